/* test_save.c - save: json.dumps-compatible writing, atomic replace with
 * --force only, dce'd nodes and their values left out, and for every real
 * program load -> save -> load giving the same program (same parsed JSON,
 * key order ignored; in fact the same bytes) and dce -> save -> load -> lint
 * clean. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/export/program.h"
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/unflatten/preflight.h"
#include "core/fx/print.h"
#include "core/export/save.h"

#include "testutil.h"

#define REAL_DIR test_real_dir()

static void setup(void) {
    test_tmpdir_make("save");
}

TestSuite(save, .init = setup, .fini = test_tmpdir_remove);

static exdb_program *load(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    return p;
}

/* The whole file, NUL-terminated (malloc'd). */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
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

/* Whether two JSON files hold the same value (key order ignored). */
static int same_json(const char *p1, const char *p2) {
    size_t l1, l2;
    char *b1 = slurp(p1, &l1), *b2 = slurp(p2, &l2);
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json *j1, *j2;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(b1, l1, &a, p1, &j1, &err), 0, "%s", err.msg);
    cr_assert_eq(exdb_json_parse(b2, l2, &a, p2, &j2, &err), 0, "%s", err.msg);
    int eq = exdb_json_equal(j1, j2);
    exdb_arena_destroy(&a);
    free(b1);
    free(b2);
    return eq;
}

/* Python: json.dumps({"a": [1, 2.5e-05, {}], "b": "é\n\u007f😀\"", "c": []})
 * == '{"a": [1, 2.5e-05, {}], "b": "\\u00e9\\n\\u007f\\ud83d\\ude00\\"", "c": []}' */
Test(save, json_dumps_format) {
    char src[] = "{\"a\":[1,2.5e-05,{}],\"b\":\"\xc3\xa9\\n\x7f\xf0\x9f\x98\x80\\\"\",\"c\":[ ]}";
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json *j;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(src, strlen(src), &a, "t", &j, &err), 0, "%s", err.msg);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_json_dump(&b, j);
    cr_assert_str_eq(b.s,
                     "{\"a\": [1, 2.5e-05, {}], \"b\": \"\\u00e9\\n\\u007f\\ud83d\\ude00\\\"\", "
                     "\"c\": []}");
    exdb_buf_free(&b);
    exdb_arena_destroy(&a);
}

/* Python: json.dumps({"s": "\b\f\r\t\u20ac\x01"}) ==
 * '{"s": "\\b\\f\\r\\t\\u20ac\\u0001"}' (the short escapes, a 3-byte code point) */
Test(save, json_dumps_short_escapes_and_bmp) {
    char src[] = "{\"s\": \"\\b\\f\\r\\t\xe2\x82\xac\\u0001\"}";
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json *j;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(src, strlen(src), &a, "t", &j, &err), 0, "%s", err.msg);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_json_dump(&b, j);
    cr_assert_str_eq(b.s, "{\"s\": \"\\b\\f\\r\\t\\u20ac\\u0001\"}");
    exdb_buf_free(&b);
    exdb_arena_destroy(&a);
}

/* Python's == on json.loads results: 0 == -0 (ints by value), lists of
 * other lengths differ, a repeated key keeps its last value */
Test(save, json_equal_numbers_lengths_repeated_keys) {
    const char *eq[][2] = {{"[0]", "[-0]"}, {"{\"a\": 1, \"a\": 2}", "{\"a\": 2}"}};
    const char *ne[][2] = {{"[0]", "[1]"},
                           {"[1, 2]", "[1]"},
                           {"{\"a\": 1, \"a\": 2}", "{\"a\": 1}"},
                           {"[1]", "[\"1\"]"}};
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_error err = {0};
    for (size_t k = 0; k < 2 + 4; k++) {
        const char *const *pr = k < 2 ? eq[k] : ne[k - 2];
        exdb_json *x, *y;
        char *s0 = exdb_arena_strdup(&a, pr[0]), *s1 = exdb_arena_strdup(&a, pr[1]);
        cr_assert_eq(exdb_json_parse(s0, strlen(s0), &a, "x", &x, &err), 0, "%s", err.msg);
        cr_assert_eq(exdb_json_parse(s1, strlen(s1), &a, "y", &y, &err), 0, "%s", err.msg);
        cr_assert_eq(exdb_json_equal(x, y), k < 2, "%s vs %s", pr[0], pr[1]);
    }
    exdb_arena_destroy(&a);
}

Test(save, json_equal_ignores_key_order) {
    char s1[] = "{\"a\": 1, \"b\": [true, null, \"x\"], \"c\": {\"d\": 1.0}}";
    char s2[] = "{\"c\": {\"d\": 1}, \"b\": [true, null, \"x\"], \"a\": 1}";
    char s3[] = "{\"c\": {\"d\": 1}, \"b\": [null, true, \"x\"], \"a\": 1}";
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json *j1, *j2, *j3;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(s1, strlen(s1), &a, "1", &j1, &err), 0);
    cr_assert_eq(exdb_json_parse(s2, strlen(s2), &a, "2", &j2, &err), 0);
    cr_assert_eq(exdb_json_parse(s3, strlen(s3), &a, "3", &j3, &err), 0);
    cr_assert(exdb_json_equal(j1, j2));
    cr_assert_not(exdb_json_equal(j1, j3));
    exdb_arena_destroy(&a);
}

Test(save, refuses_to_overwrite_without_force) {
    exdb_program *p = load("tests/fixtures/dce/dead_pure.json");
    exdb_error err = {0};
    const char *out = test_tpath("out.json");
    cr_assert_eq(exdb_program_save(p, out, 0, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(exdb_program_save(p, out, 0, NULL, &err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: file exists (use --force to replace it)", out);
    cr_assert_str_eq(err.msg, want);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_program_save(p, out, 1, NULL, &err), 0, "%s", err.msg);
    cr_assert(same_json(out, "tests/fixtures/dce/dead_pure.json"));
    exdb_program_free(p);
}

/* After dce the dead serialized nodes and their tensor_values go; the
 * reloaded program has exactly the graph dce left, and lints clean. */
Test(save, after_dce_drops_nodes_and_values) {
    exdb_program *p = load("tests/fixtures/dce/getitems.json");
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 4);
    exdb_save_stats st;
    const char *out = test_tpath("dce.json");
    cr_assert_eq(exdb_program_save(p, out, 0, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.nodes_dropped, 1, "var_mean's node");
    cr_assert_eq(st.values_dropped, 2, "var_mean_1 and var_mean_2");
    exdb_program *q = load(out);
    cr_assert_eq(q->nserialized_nodes, 2);
    cr_assert_null(exdb_graph_find(q->graph, "var_mean_correction"));
    /* max.dim's unused output stays in the file, so its getitem comes back */
    cr_assert_not_null(exdb_graph_find(q->graph, "max_2"));
    cr_assert_eq(q->graph->count, p->graph->count + 1);
    size_t len;
    char *text = slurp(out, &len);
    cr_assert_null(strstr(text, "var_mean"));
    free(text);
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_program(&r, q, NULL), 0);
    exdb_lint_report_free(&r);
    exdb_program_free(q);
    /* dead_pure: the three dead nodes go, the printed graphs agree */
    exdb_program *d = load("tests/fixtures/dce/dead_pure.json");
    cr_assert_eq(exdb_dce_run(d->graph, NULL, &log, &err), 3);
    cr_assert_eq(exdb_program_save(d, test_tpath("pure.json"), 0, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.nodes_dropped, 3);
    exdb_program *e = load(test_tpath("pure.json"));
    exdb_buf b1, b2;
    exdb_buf_init(&b1);
    exdb_buf_init(&b2);
    exdb_print_graph(&b1, d->graph);
    exdb_print_graph(&b2, e->graph);
    cr_assert_str_eq(b1.s, b2.s);
    exdb_buf_free(&b1);
    exdb_buf_free(&b2);
    exdb_program_free(e);
    exdb_program_free(d);
    exdb_dce_log_free(&log);
    exdb_program_free(p);
}

/* A dce that removes only getitems of multi-output ops that stay (the
 * _unused_ outputs of native_layer_norm) changes the graph but not the file:
 * the format stores an op with all its outputs. save writes the program as
 * loaded, byte for byte, and both dce's log and save's stats say how many
 * such getitems there are, so the commands can tell the user. */
Test(save, dce_of_kept_getitems_writes_the_program_as_loaded) {
    exdb_program *p = load("tests/fixtures/example.json");
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    exdb_dce_opts dry = {1, 1, NULL, NULL};
    cr_assert_eq(exdb_dce_run(p->graph, &dry, &log, &err), 6);
    cr_assert_eq(exdb_save_kept_getitems(p, &log), 6, "a dry run's log");
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 6);
    cr_assert_eq(exdb_save_kept_getitems(p, &log), 6, "after the removal");
    exdb_save_stats st;
    const char *out = test_tpath("kept.json");
    cr_assert_eq(exdb_program_save(p, out, 0, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.nodes_dropped, 0);
    cr_assert_eq(st.values_dropped, 0);
    cr_assert_eq(st.getitems_kept, 6);
    size_t l1, l2;
    char *b1 = slurp(out, &l1), *b2 = slurp("tests/fixtures/example.json", &l2);
    cr_assert(l1 == l2 && memcmp(b1, b2, l1) == 0, "byte for byte the file loaded");
    free(b1);
    free(b2);
    cr_assert_eq(exdb_dce_undo(&log, &err), 0, "%s", err.msg);
    cr_assert_eq(exdb_program_save(p, out, 1, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.getitems_kept, 0, "undo put them back");
    exdb_program_free(p);
    /* some of each: var_mean goes with both its getitems, max.dim's dead
     * getitem stays in the file */
    exdb_program *q = load("tests/fixtures/dce/getitems.json");
    cr_assert_eq(exdb_dce_run(q->graph, NULL, &log, &err), 4);
    cr_assert_eq(exdb_save_kept_getitems(q, &log), 1);
    cr_assert_eq(exdb_program_save(q, test_tpath("some.json"), 0, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.nodes_dropped, 1);
    cr_assert_eq(st.getitems_kept, 1);
    exdb_dce_log_free(&log);
    exdb_program_free(q);
}

/* Every real program: load -> save -> load is the same program; dce ->
 * save -> load lints without errors. */
Test(save, real_programs_round_trip) {
    DIR *d = opendir(REAL_DIR);
    if (!d) {
        printf("save.real_programs_round_trip: %s is absent, skipped\n", REAL_DIR);
        return;
    }
    struct dirent *de;
    int count = 0, identical = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 12 || strcmp(de->d_name + l - 12, "__model.json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", REAL_DIR, de->d_name);
        exdb_program *p = load(path);
        exdb_error err = {0};
        const char *out = test_tpath("rt.json");
        cr_assert_eq(exdb_program_save(p, out, 1, NULL, &err), 0, "%s", err.msg);
        cr_assert(same_json(path, out), "%s", path);
        size_t l1, l2;
        char *b1 = slurp(path, &l1), *b2 = slurp(out, &l2);
        identical += l1 == l2 && memcmp(b1, b2, l1) == 0;
        free(b1);
        free(b2);
        exdb_program *q = load(out);
        exdb_buf g1, g2;
        exdb_buf_init(&g1);
        exdb_buf_init(&g2);
        exdb_print_graph(&g1, p->graph);
        exdb_print_graph(&g2, q->graph);
        cr_assert_str_eq(g1.s, g2.s, "%s", path);
        exdb_buf_free(&g1);
        exdb_buf_free(&g2);
        exdb_program_free(q);
        /* after dce */
        exdb_dce_log log;
        exdb_dce_log_init(&log);
        cr_assert_geq(exdb_dce_run(p->graph, NULL, &log, &err), 0, "%s", err.msg);
        cr_assert_eq(exdb_program_save(p, out, 1, NULL, &err), 0, "%s", err.msg);
        q = load(out);
        exdb_lint_report r;
        exdb_lint_report_init(&r);
        cr_assert_eq(exdb_lint_program(&r, q, NULL), 0, "%s", path);
        exdb_lint_report_free(&r);
        exdb_program_free(q);
        exdb_dce_log_free(&log);
        exdb_program_free(p);
        count++;
    }
    closedir(d);
    cr_assert_gt(count, 0);
    printf("save.real_programs_round_trip: %d programs, %d byte-identical after save\n", count,
           identical);
}

/* text with the first `"metadata": {` followed by `ins` (malloc'd). */
static char *with_meta(const char *text, const char *ins) {
    const char *at = strstr(text, "\"metadata\": {");
    cr_assert_not_null(at);
    at += strlen("\"metadata\": {");
    size_t head = (size_t)(at - text), n = strlen(ins);
    char *s = malloc(strlen(text) + n + 1);
    memcpy(s, text, head);
    memcpy(s + head, ins, n);
    strcpy(s + head + n, at);
    return s;
}

/* save copies a node whose text is already json.dumps's as it is (no DOM:
 * a node with a list of a million ints once took 4 bytes of RSS per byte of
 * the file), and writes the others as json.dumps does: escapes json.dumps
 * writes otherwise (upper-case hex, \u0041, \/, \u000a's short form,
 * bytes outside ASCII) or blanks between tokens. The expected text is Python's
 * json.dumps(json.load(f)) of the file. */
Test(save, node_text_as_json_dumps_is_copied_others_rewritten) {
    size_t len;
    char *canon = slurp("tests/fixtures/modgraph/calls_param_12.json", &len);
    if (len && canon[len - 1] == '\n')
        canon[--len] = '\0';
    static const struct {
        const char *in, *out;
    } cases[] = {
        /* already json.dumps's: copied */
        {"\"stack_trace\": \"\\u00e9\\ud83d\\ude00\\n\\u007f\\\"\\\\\", ",
         "\"stack_trace\": \"\\u00e9\\ud83d\\ude00\\n\\u007f\\\"\\\\\", "},
        {"\"stack_trace\": \"\\u00E9\", ", "\"stack_trace\": \"\\u00e9\", "},
        {"\"stack_trace\": \"\\u0041\\/\", ", "\"stack_trace\": \"A/\", "},
        {"\"stack_trace\": \"\\u000a\\u0007\", ", "\"stack_trace\": \"\\n\\u0007\", "},
        {"\"stack_trace\": \"\xc3\xa9\", ", "\"stack_trace\": \"\\u00e9\", "},
        {"\"stack_trace\" :\"x\",\n ", "\"stack_trace\": \"x\", "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *in = with_meta(canon, cases[i].in), *want = with_meta(canon, cases[i].out);
        const char *path = test_tpath("in.json");
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        fputs(in, f);
        fclose(f);
        exdb_program *p = load(path);
        exdb_buf b;
        exdb_buf_init(&b);
        exdb_error err = {0};
        cr_assert_eq(exdb_program_save_json(p, &b, NULL, &err), 0, "case %zu: %s", i, err.msg);
        cr_assert_str_eq(b.s, want, "case %zu", i);
        exdb_buf_free(&b);
        exdb_program_free(p);
        free(in);
        free(want);
    }
    free(canon);
}
