/* arena.h - bump allocation for everything that lives as long as a program
 * (or an unflatten run). One exdb_arena_destroy frees it all; nothing
 * allocated from an arena is freed individually. */
#ifndef EXDB_ARENA_H
#define EXDB_ARENA_H

#include <stddef.h>

typedef struct exdb_arena_block exdb_arena_block;

typedef struct exdb_arena {
    exdb_arena_block *head; /* current block; older blocks chained behind */
    size_t used;            /* bytes handed out, for `info memory` and bench */
    size_t reserved;        /* bytes obtained from malloc */
} exdb_arena;

void exdb_arena_init(exdb_arena *a);
void exdb_arena_destroy(exdb_arena *a);
/* Returns n bytes aligned to 16, or NULL when memory is exhausted. */
void *exdb_arena_alloc(exdb_arena *a, size_t n);
/* Zero-filled; NULL on overflow of count*size or exhaustion. */
void *exdb_arena_calloc(exdb_arena *a, size_t count, size_t size);
/* Copies n bytes of s and appends a NUL. */
char *exdb_arena_strndup(exdb_arena *a, const char *s, size_t n);
char *exdb_arena_strdup(exdb_arena *a, const char *s);
char *exdb_arena_printf(exdb_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
