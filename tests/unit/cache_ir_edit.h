/* cache_ir_edit.h - the unit tests' hands on an IR entry of the reopen
 * cache (core/export/cache_ir.h): find the one in a folder, edit its image
 * and make its checksum right again, reach its node records. Shared by
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

#include "core/export/cache_format.h"

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
