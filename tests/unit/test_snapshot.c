/* test_snapshot.c - a loaded program is a snapshot of its file
 * (core/export/snapshot.h): a `cd`, or the file changed, moved, removed or
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
#include <zip.h>

#include "core/export/program.h"
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/export/siglint.h"
#include "core/export/save.h"
#include "core/export/snapshot.h"
#include "core/export/statefiles.h"
#include "core/format/container.h"
#include "core/base/arena.h"
#include "core/base/filemap.h"
#include "core/unflatten/unflatten.h"

#include "testutil.h"
#include "core/unflatten/describe.h"

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

Test(snapshot, xxh3_reference_values) {
    cr_assert_eq(exdb_hash64("", 0), 0x2D06800538D394C2ULL); /* xxHash's own test vector */
    cr_assert_eq(exdb_hash64("a", 1), 0xE6C632B61E964E1FULL);
    cr_assert_eq(exdb_hash64("abc", 3), 0x78AF5F94892F3950ULL);
    const char *s = "Nobody inspects the spammish repetition"; /* 39 bytes: past 16 */
    cr_assert_eq(exdb_hash64(s, strlen(s)), 0x6CB00603B5CC47E9ULL);
}

/* The hash taken while a bare JSON file is read, a chunk at a time (2 MiB),
 * is the XXH3 of the whole text, for a file of several chunks and a last
 * partial one, and for an archive's member. */
Test(snapshot, hash_taken_while_reading) {
    size_t n = (5u << 20) + 12345;
    char *text = malloc(n);
    cr_assert_not_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + (i * 7 + i / 977) % 26);
    memcpy(text, "{\"a\": \"", 7);
    memcpy(text + n - 2, "\"}", 2);
    char big[512];
    snprintf(big, sizeof big, "%s/big.json", test_tdir);
    FILE *f = fopen(big, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    fclose(f);
    for (int k = 0; k < 2; k++) {
        char path[2048];
        snprintf(path, sizeof path, "%s", k ? repo : big);
        if (k)
            strncat(path, "/" TIED, sizeof path - strlen(path) - 1);
        exdb_container *c;
        exdb_error err = {0};
        cr_assert_eq(exdb_container_open(path, &c, &err), 0, "%s", err.msg);
        char *buf;
        size_t len;
        uint64_t h = 0;
        cr_assert_eq(exdb_container_read_program_hashed(c, NULL, &buf, &len, NULL, &h, &err), 0,
                     "%s", err.msg);
        cr_expect_eq(h, exdb_hash64(buf, len), "%s", path);
        if (k == 0)
            cr_expect(len == n && memcmp(buf, text, n) == 0);
        exdb_mem_release(buf);
        exdb_container_close(c);
    }
    free(text);
}

/* A mapped bare JSON text's hash is taken by the load as it gives the
 * text's pages back (container.h exdb_container_read_program_to_load),
 * not in a pass of its own: it is still the XXH3 of the whole file, for a
 * text the first pass gives back in several steps (3 MiB of spaces on
 * either side of a fixture's members), a small one, and one big enough
 * (EXDB_FILEMAP_AHEAD_MIN) that a thread maps it in and hashes it ahead of
 * the first pass. */
Test(snapshot, hash_taken_as_the_load_gives_the_text_back) {
    FILE *in = fopen(TIED_JSON, "rb");
    cr_assert_not_null(in);
    char *fix = malloc(1 << 20);
    cr_assert_not_null(fix);
    size_t nfix = fread(fix, 1, 1 << 20, in);
    fclose(in);
    cr_assert(nfix > 2 && nfix < (1 << 20) && fix[0] == '{');
    for (int k = 0; k < 3; k++) {
        size_t pad = k == 2 ? EXDB_FILEMAP_AHEAD_MIN / 2 + 12345
                     : k    ? (3u << 20) + 4321
                            : 0,
               n = nfix + 2 * pad;
        char *text = malloc(n);
        cr_assert_not_null(text);
        memset(text, ' ', n);
        text[0] = '{';
        size_t last = nfix - 1; /* the fixture's closing brace */
        while (last > 0 && fix[last] != '}')
            last--;
        memcpy(text + 1 + pad, fix + 1, last - 1); /* its members, between the pads */
        text[n - 1] = '}';
        char path[512];
        snprintf(path, sizeof path, "%s/padded%d.json", test_tdir, k);
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(text, 1, n, f), n);
        cr_assert_eq(fclose(f), 0);
        exdb_error err = {0};
        exdb_program *p = exdb_program_load(path, NULL, &err);
        cr_assert_not_null(p, "%s", err.msg);
        cr_assert_not_null(p->snapshot);
        cr_expect_eq(p->snapshot->program_hash, exdb_hash64(text, n), "pad %zu", pad);
        cr_expect_eq(p->snapshot->program_len, n);
        exdb_program_free(p);
        free(text);
    }
    free(fix);
}

/* The absolute path is resolved when asked (exdb_snapshot_abs_path), not
 * during the load: loaded by a relative symbolic link, then a cd away, it
 * is still the file linked to, and the identity is the file's. */
Test(snapshot, abs_path_resolves_a_link_loaded_relative_after_a_cd) {
    char json[2048];
    snprintf(json, sizeof json, "%s/%s", repo, TIED_JSON);
    copy_file(json, test_tpath("prog.json"));
    cr_assert_eq(symlink("prog.json", test_tpath("link.json")), 0);
    cr_assert_eq(chdir(test_tdir), 0);
    exdb_error err = {0};
    exdb_program *p = exdb_program_load("link.json", NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(chdir(repo), 0);
    char want[1024];
    snprintf(want, sizeof want, "%s/prog.json", test_tdir);
    cr_assert_str_eq(exdb_snapshot_abs_path(p->snapshot), want);
    cr_assert_str_eq(exdb_snapshot_abs_path(p->snapshot), want, "asked again");
    struct stat st;
    cr_assert_eq(stat(want, &st), 0);
    cr_expect_eq(p->snapshot->dev, (uint64_t)st.st_dev);
    cr_expect_eq(p->snapshot->ino, (uint64_t)st.st_ino);
    exdb_program_free(p);
}

/* Loaded by a symbolic link that is then pointed at another program: save
 * reads the file the link names now (the path is resolved when asked) and
 * refuses it; the message says the path loaded leads to another file now,
 * not only that the other file "changed on disk" (it never was loaded). */
Test(snapshot, reopen_after_the_link_loaded_is_retargeted_names_the_link) {
    char json[2048], other[2048];
    snprintf(json, sizeof json, "%s/%s", repo, TIED_JSON);
    snprintf(other, sizeof other, "%s/tests/fixtures/example.json", repo);
    copy_file(json, test_tpath("prog.json"));
    copy_file(other, test_tpath("other.json"));
    cr_assert_eq(symlink("prog.json", test_tpath("link.json")), 0);
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(test_tpath("link.json"), NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(unlink(test_tpath("link.json")), 0);
    cr_assert_eq(symlink("other.json", test_tpath("link.json")), 0);
    exdb_container *c = NULL;
    char *buf = NULL;
    size_t len = 0;
    cr_assert_eq(exdb_snapshot_reopen(p, &c, &buf, &len, &err), -1);
    cr_assert_null(c);
    char want[2048];
    snprintf(want, sizeof want, "%s, the path it was loaded by, leads to another file now",
             test_tpath("link.json"));
    cr_expect(strstr(err.msg, "changed on disk since the program was loaded"), "%s", err.msg);
    cr_expect(strstr(err.msg, want), "%s", err.msg);
    exdb_program_free(p);
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
    cr_assert_str_eq(exdb_snapshot_abs_path(p->snapshot), want);
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

/* ---- save */

/* The whole file (malloc'd, NUL-terminated), or NULL when absent. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* dead_pure.json with dce run: three dead nodes gone, one live add left. */
static exdb_program *load_and_dce(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 3, "%s", err.msg);
    exdb_dce_log_free(&log);
    return p;
}

/* The case: after a cd into a folder holding another prog.json
 * with as many nodes, save wrote "Saved" and a program without its live
 * node. Now it writes from the file loaded (its absolute path): the same
 * bytes as without the cd. */
Test(snapshot, save_after_cd_writes_from_the_file_loaded) {
    copy_file("tests/fixtures/dce/dead_pure.json", test_tpath("prog.json"));
    exdb_program *p = load_and_dce(test_tpath("prog.json"));
    exdb_error err = {0};
    cr_assert_eq(exdb_program_save(p, test_tpath("want.json"), 0, NULL, &err), 0, "%s", err.msg);
    exdb_program_free(p);
    cr_assert_eq(chdir(test_tdir), 0);
    p = load_and_dce("prog.json");
    cr_assert_eq(mkdir("other", 0700), 0);
    /* the same node count, other names */
    size_t len;
    char *text = slurp("prog.json", &len);
    for (char *at = text; (at = strstr(at, "\"add_1\"")); at++)
        memcpy(at, "\"zzz_1\"", 7);
    FILE *f = fopen("other/prog.json", "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    free(text);
    cr_assert_eq(chdir("other"), 0);
    cr_assert_eq(exdb_program_save(p, "out.json", 0, NULL, &err), 0, "%s", err.msg);
    size_t l1, l2;
    char *got = slurp("out.json", &l1), *want = slurp(test_tpath("want.json"), &l2);
    cr_assert(got && want && l1 == l2 && !memcmp(got, want, l1), "the program loaded, less dce");
    free(got);
    free(want);
    unlink("out.json");
    unlink("prog.json");
    cr_assert_eq(chdir(repo), 0);
    rmdir(test_tpath("other"));
    exdb_program_free(p);
}

/* Each way the file can change after loading: save (and save --dry-run)
 * refuse, name the file and say what to do, and write nothing. */
Test(snapshot, save_refuses_a_changed_moved_or_removed_file) {
    const char *src = test_tpath("prog.json"), *out = test_tpath("out.json");
    for (int how = 0; how < 4; how++) {
        copy_file("tests/fixtures/dce/dead_pure.json", src);
        exdb_program *p = load_and_dce(src);
        size_t len;
        char *text = slurp(src, &len);
        if (how == 0) { /* edited in place, the node count kept */
            char *at = strstr(text, "\"add_1\"");
            cr_assert_not_null(at);
            at[1] = 'b';
            FILE *f = fopen(src, "r+b");
            fwrite(text, 1, len, f);
            fclose(f);
        } else if (how == 1) { /* moved */
            cr_assert_eq(rename(src, test_tpath("moved.json")), 0);
        } else if (how == 2) { /* removed */
            cr_assert_eq(unlink(src), 0);
        } else { /* another file under its name (an editor's save) */
            text[len - 1] = ' ';
            FILE *f = fopen(test_tpath("new.json"), "wb");
            fwrite(text, 1, len, f);
            fclose(f);
            cr_assert_eq(rename(test_tpath("new.json"), src), 0);
        }
        free(text);
        exdb_error err = {0};
        cr_assert_eq(exdb_program_save(p, out, 0, NULL, &err), -1, "case %d", how);
        const char *want = how == 1 || how == 2 ? "cannot be read (No such file or directory)"
                                                : "changed on disk since the program was loaded";
        cr_assert(strstr(err.msg, want), "case %d: %s", how, err.msg);
        cr_assert(strstr(err.msg, "load it again"), "%s", err.msg);
        cr_assert_eq(access(out, F_OK), -1, "case %d wrote %s", how, out);
        exdb_buf b;
        exdb_buf_init(&b);
        exdb_error_clear(&err);
        cr_assert_eq(exdb_program_save_json(p, &b, NULL, &err), -1, "--dry-run, case %d", how);
        exdb_buf_free(&b);
        exdb_program_free(p);
        unlink(test_tpath("moved.json"));
    }
}

/* An archive: a member other than the program changed (the weights, say)
 * is refused too, since save would copy it; the archive as loaded saves
 * from any directory. */
Test(snapshot, save_refuses_an_archive_whose_members_changed) {
    const char *src = test_tpath("prog.pt2");
    copy_file(TIED, src);
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(src, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(chdir("/"), 0);
    cr_assert_eq(exdb_program_save(p, test_tpath("a.pt2"), 0, NULL, &err), 0, "%s", err.msg);
    int e;
    zip_t *z = zip_open(src, 0, &e);
    cr_assert_not_null(z);
    static const char other[] = "0123456789ab";
    zip_source_t *s = zip_source_buffer(z, other, sizeof other - 1, 0);
    cr_assert(zip_file_add(z, "program/data/constants/tensor_0", s, ZIP_FL_OVERWRITE) >= 0);
    cr_assert_eq(zip_close(z), 0);
    cr_assert_eq(exdb_program_save(p, test_tpath("b.pt2"), 0, NULL, &err), -1);
    cr_assert(strstr(err.msg, "changed on disk since the program was loaded (its members differ)"),
              "%s", err.msg);
    cr_assert_eq(access(test_tpath("b.pt2"), F_OK), -1);
    exdb_program_free(p);
}

/* exdb_program_from_json's programs have no file to save from. */
Test(snapshot, a_program_from_memory_has_nothing_to_save_from) {
    size_t len;
    char *text = slurp("tests/fixtures/dce/dead_pure.json", &len);
    exdb_error err = {0};
    exdb_program *p = exdb_program_from_json(text, len, "mem.json", &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_buf b;
    exdb_buf_init(&b);
    cr_assert_eq(exdb_program_save_json(p, &b, NULL, &err), -1);
    cr_assert(strstr(err.msg, "not loaded from a file"), "%s", err.msg);
    exdb_buf_free(&b);
    exdb_program_free(p);
}
