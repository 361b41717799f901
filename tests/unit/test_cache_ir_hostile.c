/* test_cache_ir_hostile.c - review of the IR entry (issue 27 goal 2): an
 * IR entry whose image passes exdb_cache_ir_check and keeps the entry's
 * node counts and names, but whose graph breaks an invariant every graph
 * a load makes keeps (the output node last, the placeholders first), is
 * not used: the build reads the file and answers as loaded whole. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/base/strbuf.h"
#include "core/export/cache.h"
#include "core/export/cache_format.h"
#include "core/export/cache_ir.h"
#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/fx/codegen.h"
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/fx/print.h"

#include "cache_ir_edit.h"
#include "testutil.h"

#define FIXTURE "tests/fixtures/example.json"

static void setup(void) {
    test_cache_suite_init("cache_ir_hostile");
}

static void teardown(void) {
    test_cache_suite_fini();
}

TestSuite(cache_ir_hostile, .init = setup, .fini = teardown);

static char *answers(const char *path, int cached, int *from_ir) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    *from_ir = 0;
    exdb_program *p =
        cached ? exdb_program_open(path, NULL, &err) : exdb_program_load(path, NULL, &err);
    if (!p || exdb_program_build(p, &err) < 0) {
        exdb_buf_printf(&b, "refused: %s\n", err.msg);
    } else {
        *from_ir = p->cache_kept != NULL;
        exdb_print_graph(&b, p->graph);
        exdb_codegen_opts verbose = {.verbose = 1, .include_stride = 1, .include_device = 1};
        exdb_python_code(&b, p->graph, &verbose, NULL);
        test_lint_dce_answers(&b, p->graph);
    }
    exdb_program_free(p);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

static uint32_t nnodes(char *img) {
    return (uint32_t)((exdb_cache_ir_head *)img)->sect[EXDB_IR_NODES].count;
}
static void swap_ops(char *img, uint32_t i, uint32_t j) {
    exdb_cache_ir_node *a = test_ir_node(img, i), *b = test_ir_node(img, j);
    uint8_t op = a->op, tk = a->tkind;
    a->op = b->op;
    a->tkind = b->tkind;
    b->op = op;
    b->tkind = tk;
}

/* the output node and the call before it swap ops: the output node is
 * not last, and a call uses it (the counts are the entry's) */
static void output_not_last(char *img) {
    uint32_t n = nnodes(img);
    cr_assert_eq(test_ir_node(img, n - 1)->op, EXDB_OP_OUTPUT);
    cr_assert_eq(test_ir_node(img, n - 2)->op, EXDB_OP_CALL_FUNCTION);
    swap_ops(img, n - 1, n - 2);
}

/* the first placeholder and the last call swap ops: a placeholder after
 * a call, a call before the placeholders */
static void placeholder_after_call(char *img) {
    uint32_t n = nnodes(img), c = n - 2;
    cr_assert_eq(test_ir_node(img, 0)->op, EXDB_OP_PLACEHOLDER);
    cr_assert_eq(test_ir_node(img, c)->op, EXDB_OP_CALL_FUNCTION);
    swap_ops(img, 0, c);
}

/* every lazily read stack trace's text reference at the text's start (a
 * '{', not a string's quote) */
static void text_ref_to_start(char *img) {
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    exdb_cache_ir_meta *m = (exdb_cache_ir_meta *)(img + ih->sect[EXDB_IR_METAS].off);
    uint32_t hit = 0;
    for (uint64_t i = 0; i < ih->sect[EXDB_IR_METAS].count; i++)
        if (m[i].textmask & 0x2 && m[i].strs[1] != EXDB_CACHE_NONE) {
            m[i].strs[1] = 0;
            hit++;
        }
    cr_assert_gt(hit, 0, "no lazily read stack trace");
}

static void check_file_not_used(const char *file, void (*edit)(char *), const char *what) {
    int ir;
    exdb_cache_use(NULL);
    char *ref = answers(file, 0, &ir);
    exdb_cache_use(test_cache_dir);
    free(answers(file, 1, &ir)); /* writes both entries */
    free(answers(file, 1, &ir));
    cr_assert_eq(ir, 1, "no IR entry to edit");
    test_edit_ir_entry(test_cache_dir, edit);
    char *got = answers(file, 1, &ir);
    cr_expect_eq(ir, 0, "%s: the IR entry was used", what);
    cr_expect_str_eq(got, ref, "%s: other answers than the file's", what);
    free(got);
    free(ref);
}

static void check_not_used(void (*edit)(char *), const char *what) {
    check_file_not_used(FIXTURE, edit, what);
}

Test(cache_ir_hostile, an_output_node_not_last_is_not_used) {
    check_not_used(output_not_last, "an output node not last");
}

Test(cache_ir_hostile, a_placeholder_after_a_call_is_not_used) {
    check_not_used(placeholder_after_call, "a placeholder after a call");
}

/* A text reference not at a string's quote: the entry is used (checking
 * every reference at the put-back would touch every page of the text: +1.5
 * GB resident and +0.3 s at 1M nodes), and the first read of such a field
 * says so, as a field the load refuses at first read does; never an
 * empty field in silence. */
Test(cache_ir_hostile, a_text_reference_not_at_a_quote_is_refused_at_first_read) {
    const char *file = "tests/fixtures/llm_decoder.json";
    exdb_program_lazy_meta(0); /* metadata read lazily: text references */
    int ir;
    free(answers(file, 1, &ir)); /* writes both entries */
    free(answers(file, 1, &ir));
    cr_assert_eq(ir, 1, "no IR entry to edit");
    test_edit_ir_entry(test_cache_dir, text_ref_to_start);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(file, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(exdb_program_build(p, &err), 0, "%s", err.msg);
    cr_expect_not_null(p->cache_kept, "the IR entry not used");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_codegen_opts verbose = {.verbose = 1};
    exdb_python_code(&b, p->graph, &verbose, NULL); /* reads the stack traces */
    exdb_buf_free(&b);
    cr_assert_lt(exdb_program_meta_error(p, &err), 0, "a stack trace read as a string");
    cr_expect(strstr(err.msg, "no string at byte 0 of the text") && strstr(err.msg, "--no-cache") &&
                  !strchr(err.msg, '\n'),
              "%s", err.msg);
    exdb_program_free(p);
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
}

/* The folder's entries: how many end with suffix, their bytes added to
 * *bytes (when not NULL). */
static int count_entries(const char *suffix, uint64_t *bytes) {
    int n = 0;
    DIR *d = opendir(test_cache_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        struct stat st;
        if (len > sl && strcmp(e->d_name + len - sl, suffix) == 0 &&
            fstatat(dirfd(d), e->d_name, &st, 0) == 0) {
            n++;
            if (bytes)
                *bytes += (uint64_t)st.st_size;
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* an IR entry whose shape entry is gone is not taken as there */
Test(cache_ir_hostile, an_ir_entry_without_its_shape_entry_is_not_present) {
    int ir;
    free(answers(FIXTURE, 1, &ir)); /* writes both entries */
    cr_assert_eq(exdb_cache_ir_present(FIXTURE, NULL), 1);
    const char *e = test_ir_entry(test_cache_dir);
    char shape[1100];
    snprintf(shape, sizeof shape, "%.*s.shape", (int)(strlen(e) - 3), e);
    cr_assert_eq(unlink(shape), 0, "%s", shape);
    cr_expect_eq(exdb_cache_ir_present(FIXTURE, NULL), 0, "an IR entry alone is present");
}

/* the least recently used shape entry evicted takes its IR entry along */
Test(cache_ir_hostile, eviction_takes_an_entry_pair_together) {
    int ir;
    const char *other = "tests/fixtures/llm_decoder.json";
    /* FIXTURE's entries named while they are the only ones (which of two
     * IR entries a folder lists first depends on the files' paths) */
    free(answers(FIXTURE, 1, &ir));
    const char *e = test_ir_entry(test_cache_dir);
    char ir_path[1100], shape[1100];
    snprintf(ir_path, sizeof ir_path, "%s", e);
    snprintf(shape, sizeof shape, "%.*s.shape", (int)(strlen(e) - 3), e);
    free(answers(other, 1, &ir)); /* both entries of each file: their sizes */
    uint64_t bytes = 0;
    cr_assert_eq(count_entries(".shape", &bytes), 2);
    cr_assert_eq(count_entries(".ir", &bytes), 2);
    /* other's entries gone; FIXTURE's shape entry the least recently
     * used; the bound one byte below all four */
    DIR *d = opendir(test_cache_dir);
    struct dirent *de;
    char path[1100];
    while (d && (de = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", test_cache_dir, de->d_name);
        if (de->d_name[0] != '.' && strcmp(path, ir_path) != 0 && strcmp(path, shape) != 0)
            unlink(path);
    }
    if (d)
        closedir(d);
    struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
    cr_assert_eq(utimensat(AT_FDCWD, shape, old, 0), 0);
    exdb_cache_limits(EXDB_CACHE_ENTRY_MAX, (size_t)bytes - 1);
    free(answers(other, 1, &ir)); /* other's two entries again: one too many */
    exdb_cache_limits(EXDB_CACHE_ENTRY_MAX, EXDB_CACHE_TOTAL_MAX);
    cr_expect_eq(access(shape, F_OK), -1, "the least recently used entry kept");
    cr_expect_eq(access(ir_path, F_OK), -1, "an IR entry kept without its shape entry");
    cr_expect_eq(count_entries(".shape", NULL), 1);
    cr_expect_eq(count_entries(".ir", NULL), 1);
}
