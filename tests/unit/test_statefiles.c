/* test_statefiles.c - state names from a pt2 archive's payload configs, and
 * lint's state-dict check driven by them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "core/fx/lint.h"
#include "core/export/siglint.h"
#include "core/export/program.h"
#include "core/export/statefiles.h"

/* A one-parameter program: out = x + p_w (parameter "w"). */
static const char *program_json =
    "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"p_w\"}}, "
    "{\"as_tensor\": {\"name\": \"x\"}}], \"outputs\": [{\"as_tensor\": {\"name\": \"add\"}}], "
    "\"nodes\": [{\"target\": \"torch.ops.aten.add.Tensor\", \"inputs\": [{\"name\": \"self\", "
    "\"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, {\"name\": \"other\", \"arg\": "
    "{\"as_tensor\": {\"name\": \"p_w\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": {\"name\": "
    "\"add\"}}], \"metadata\": {\"nn_module_stack\": \"L__self__,,m.M\"}, \"name\": \"add\"}], "
    "\"tensor_values\": {}, \"sym_int_values\": {}, \"sym_bool_values\": {}, "
    "\"is_single_tensor_return\": false}, \"signature\": {\"input_specs\": [{\"parameter\": "
    "{\"arg\": {\"name\": \"p_w\"}, \"parameter_name\": \"w\"}}, {\"user_input\": {\"arg\": "
    "{\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": [{\"user_output\": {\"arg\": "
    "{\"as_tensor\": {\"name\": \"add\"}}}}]}, \"module_call_graph\": [{\"fqn\": \"\", "
    "\"signature\": null}]}, \"schema_version\": {\"major\": 8, \"minor\": 20}}";

static void add(zip_t *z, const char *name, const char *text) {
    zip_source_t *s = zip_source_buffer(z, text, strlen(text), 0);
    cr_assert(zip_file_add(z, name, s, ZIP_FL_OVERWRITE) >= 0);
}

/* Writes an archive whose weights config lists `weights` (a JSON object body). */
static void make_archive(const char *path, const char *weights) {
    int e;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &e);
    cr_assert(z);
    add(z, "m/archive_format", "pt2");
    add(z, "m/models/model.json", program_json);
    if (weights) {
        static char cfg[256];
        snprintf(cfg, sizeof cfg, "{\"config\": {%s}}", weights);
        add(z, "m/data/weights/model_weights_config.json", cfg);
    }
    cr_assert(zip_close(z) == 0);
}

static uint32_t lint_with_archive_state(const char *path, int *have) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert(p, "%s", err.msg);
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_lint_state st;
    cr_assert(exdb_state_from_program(p, &a, &st, &err) == 0, "%s", err.msg);
    *have = st.have_state_dict;
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    uint32_t errors = exdb_lint_signature(&r, p, &st);
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
    exdb_program_free(p);
    return errors;
}

Test(statefiles, parameter_in_weights_config) {
    char path[] = "/tmp/exdb-state-XXXXXX.pt2";
    int fd = mkstemps(path, 4);
    close(fd);
    make_archive(path, "\"w\": {\"path_name\": \"weight_0\"}");
    int have;
    cr_assert_eq(lint_with_archive_state(path, &have), 0);
    cr_assert_eq(have, 1);
    unlink(path);
}

Test(statefiles, parameter_missing_from_weights_config) {
    char path[] = "/tmp/exdb-state-XXXXXX.pt2";
    int fd = mkstemps(path, 4);
    close(fd);
    make_archive(path, "\"other\": {\"path_name\": \"weight_0\"}");
    int have;
    cr_assert_eq(lint_with_archive_state(path, &have), 1);
    unlink(path);
}

Test(statefiles, archive_without_configs_skips_the_check) {
    char path[] = "/tmp/exdb-state-XXXXXX.pt2";
    int fd = mkstemps(path, 4);
    close(fd);
    make_archive(path, NULL);
    int have;
    cr_assert_eq(lint_with_archive_state(path, &have), 0);
    cr_assert_eq(have, 0);
    unlink(path);
}
