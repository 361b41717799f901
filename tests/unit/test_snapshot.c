/* test_snapshot.c - a loaded program is a snapshot of its file
 * (core/snapshot.h): a `cd`, or the file changed, moved, removed or
 * replaced by another of the same name after loading, changes nothing
 * exdb shows (unflatten's STATE phase, lint's state checks), and nothing
 * save writes; save refuses, saying why, when the file it copies from is
 * not the one loaded. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lint.h"
#include "core/snapshot.h"
#include "core/statefiles.h"
#include "core/unflatten.h"

#include "testutil.h"

/* tied_embeddings: its weights config says emb.weight and head.weight are
 * one tensor, so unflatten sinks it into emb as a get_attr; without the
 * config (bare JSON, or an archive read again and found missing) emb gets a
 * placeholder. */
#define TIED      "tests/conformance/corpus/scenarios/tied_embeddings__nonstrict/program.pt2"
#define TIED_JSON "tests/fixtures/tied_embeddings.json"

static char repo[1024];

static void setup(void) {
    cr_assert_not_null(getcwd(repo, sizeof repo));
    test_tmpdir_make("snapshot");
}

static void teardown(void) {
    cr_assert_eq(chdir(repo), 0);
    test_tmpdir_remove();
}

TestSuite(snapshot, .init = setup, .fini = teardown);

static void copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    cr_assert(in && out, "%s -> %s", from, to);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

/* The graph of module fqn after a complete unflatten run of p. */
static char *module_graph(const exdb_program *p, const char *fqn) {
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), 0, "%s", err.msg);
    exdb_buf b;
    exdb_buf_init(&b);
    cr_assert_eq(exdb_unflatten_print_module(&b, u, fqn, &err), 0, "%s", err.msg);
    exdb_unflatten_free(u);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

Test(snapshot, xxh64_reference_values) {
    cr_assert_eq(exdb_hash64("", 0), 0xEF46DB3751D8E999ULL);
    cr_assert_eq(exdb_hash64("a", 1), 0xD24EC4F1A98C6E5BULL);
    cr_assert_eq(exdb_hash64("abc", 3), 0x44BC2CF5AD770999ULL);
    const char *s = "Nobody inspects the spammish repetition"; /* 39 bytes: the 32-byte lanes */
    cr_assert_eq(exdb_hash64(s, strlen(s)), 0xFBCEA83C8A378BF1ULL);
}

/* Load by a relative path, cd away, then remove the archive, then put
 * another archive (no configs) under its name: the STATE phase and lint's
 * state checks keep using the configs read at load time. Before, the run
 * stopped at event 7 with "No such file or directory", or used the other
 * archive. */
Test(snapshot, archive_configs_outlive_cd_removal_and_replacement) {
    copy_file(TIED, test_tpath("prog.pt2"));
    cr_assert_eq(chdir(test_tdir), 0);
    exdb_error err = {0};
    exdb_program *p = exdb_program_load("prog.pt2", NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    char want[1024];
    snprintf(want, sizeof want, "%s/prog.pt2", test_tdir);
    cr_assert_str_eq(p->snapshot->abs_path, want);
    char *before = module_graph(p, "emb");
    cr_assert(strstr(before, "get_attr[target=weight]"), "%s", before);
    cr_assert_eq(mkdir("sub", 0700), 0);
    cr_assert_eq(chdir("sub"), 0);
    for (int step = 0; step < 3; step++) {
        if (step == 1)
            cr_assert_eq(unlink(want), 0);
        if (step == 2) { /* a program without configs, under the same name */
            char json[2048];
            snprintf(json, sizeof json, "%s/%s", repo, TIED_JSON);
            copy_file(json, want);
        }
        char *now = module_graph(p, "emb");
        cr_assert_str_eq(now, before, "step %d", step);
        free(now);
        exdb_arena a;
        exdb_arena_init(&a);
        exdb_lint_state st;
        cr_assert_eq(exdb_state_from_program(p, &a, &st, &err), 0, "%s", err.msg);
        cr_assert(st.have_state_dict, "step %d", step);
        int tied = 0;
        for (uint32_t i = 0; i < st.nstate_dict; i++)
            tied +=
                !strcmp(st.state_dict[i], "emb.weight") || !strcmp(st.state_dict[i], "head.weight");
        cr_assert_eq(tied, 2, "emb.weight and head.weight, step %d", step);
        exdb_arena_destroy(&a);
    }
    cr_assert_eq(chdir(repo), 0);
    rmdir(test_tpath("sub"));
    free(before);
    exdb_program_free(p);
}

/* A config that could not be read is reported when a run needs it, as
 * before, with the message of the read. */
Test(snapshot, a_config_read_error_is_reported_by_the_run) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(TIED, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    p->snapshot->weights.bytes = NULL;
    p->snapshot->weights.error = "prog.pt2: data/weights/model_weights_config.json: broken";
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), -1);
    cr_assert(strstr(err.msg, "model_weights_config.json: broken"), "%s", err.msg);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}
