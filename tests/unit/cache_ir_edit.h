/* cache_ir_edit.h - the unit tests' hands on an IR entry of the reopen
 * cache (core/export/cache_ir.h): the suites' cache folder, find the entry
 * in it, edit its image and make its checksum right again, reach its node
 * records, a built graph's lint and dce answers. Shared by
 * test_cache_ir.c and test_cache_ir_hostile.c. */
#ifndef EXDB_TESTS_UNIT_CACHE_IR_EDIT_H
#define EXDB_TESTS_UNIT_CACHE_IR_EDIT_H

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/base/strbuf.h"
#include "core/export/cache.h"
#include "core/export/cache_format.h"
#include "core/export/program.h"
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "testutil.h"

/* The suite's reopen cache: a folder in its temporary folder (tag names
 * it), every program opened shape first, files however fresh trusted;
 * test_cache_suite_fini undoes it all. */
static char test_cache_dir[300];
static uint32_t test_cache_shape_was;

static inline void test_cache_suite_init(const char *tag) {
    test_tmpdir_make(tag);
    snprintf(test_cache_dir, sizeof test_cache_dir, "%s/exdb", test_tdir);
    exdb_cache_use(test_cache_dir);
    exdb_cache_racy(1); /* the fixtures may be fresh from a checkout */
    test_cache_shape_was = exdb_program_shape_first(0);
}

/* The suite's cache folder removed (made again by the next write). */
static inline void test_cache_empty(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_cache_dir);
    cr_assert_eq(system(cmd), 0);
}

static inline void test_cache_suite_fini(void) {
    exdb_cache_use(NULL);
    exdb_cache_racy(EXDB_CACHE_RACY_NS);
    exdb_program_shape_first(test_cache_shape_was);
    test_cache_empty();
    test_tmpdir_remove();
}

/* g's lint findings, then its dce's count ("dce: N", g changed), into b. */
static inline void test_lint_dce_answers(exdb_buf *b, exdb_graph *g) {
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_graph(&r, g, NULL, NULL);
    exdb_lint_format(b, &r);
    exdb_lint_report_free(&r);
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_dce_opts o = {.impure_random = 1};
    exdb_error err = {0};
    int n = exdb_dce_run(g, &o, &log, &err);
    exdb_buf_printf(b, "dce: %d %s\n", n, n < 0 ? err.msg : "");
    exdb_dce_log_free(&log);
}

/* The IR entry in folder dir (its path; "" when none; the last listed
 * when more than one: name it while it is the only one). */
static inline const char *test_ir_entry(const char *dir) {
    static char path[1024];
    path[0] = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".ir") == 0)
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    return path;
}

/* The IR entry in dir, its image changed by edit (img: the image's bytes,
 * 8-aligned in the entry), its checksum made right again. */
static inline void test_edit_ir_entry(const char *dir, void (*edit)(char *img)) {
    const char *e = test_ir_entry(dir);
    cr_assert_str_neq(e, "", "no IR entry written");
    FILE *f = fopen(e, "r+b");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    char *s = malloc(n);
    fseek(f, 0, SEEK_SET);
    cr_assert_eq(fread(s, 1, n, f), n);
    exdb_cache_head h;
    memcpy(&h, s, sizeof h);
    size_t at = (sizeof h + h.path_len + h.model_len + h.member_len + 3 + 7) & ~(size_t)7;
    edit(s + at);
    uint64_t sum = XXH3_64bits(s, n - 8);
    memcpy(s + n - 8, &sum, 8);
    fseek(f, 0, SEEK_SET);
    cr_assert_eq(fwrite(s, 1, n, f), n);
    fclose(f);
    free(s);
}

/* Node record i of image img. */
static inline exdb_cache_ir_node *test_ir_node(char *img, uint32_t i) {
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    return (exdb_cache_ir_node *)(img + ih->sect[EXDB_IR_NODES].off) + i;
}

#endif
