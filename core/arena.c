/* arena.c - see arena.h. Blocks grow geometrically up to 64 MiB so a
 * million-node program costs a few dozen mallocs, and huge single requests
 * get a block of their own. */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct exdb_arena_block {
    exdb_arena_block *prev;
    size_t size, off;
    _Alignas(16) unsigned char data[];
};

#define ARENA_MIN_BLOCK ((size_t)64 * 1024)
#define ARENA_MAX_BLOCK ((size_t)64 * 1024 * 1024)

void exdb_arena_init(exdb_arena *a) {
    memset(a, 0, sizeof *a);
}

void exdb_arena_destroy(exdb_arena *a) {
    exdb_arena_block *b = a->head;
    while (b) {
        exdb_arena_block *p = b->prev;
        free(b);
        b = p;
    }
    memset(a, 0, sizeof *a);
}

void *exdb_arena_alloc(exdb_arena *a, size_t n) {
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - 64)
        return NULL;
    n = (n + 15) & ~(size_t)15;
    exdb_arena_block *b = a->head;
    if (!b || b->size - b->off < n) {
        size_t want = b ? b->size * 2 : ARENA_MIN_BLOCK;
        if (want > ARENA_MAX_BLOCK)
            want = ARENA_MAX_BLOCK;
        if (want < n)
            want = n;
        exdb_arena_block *nb = malloc(sizeof *nb + want);
        if (!nb)
            return NULL;
        nb->size = want;
        nb->off = 0;
        if (b && want == n && b->size - b->off > want / 4) {
            /* A big one-off request: keep filling the current block. */
            nb->prev = b->prev;
            b->prev = nb;
        } else {
            nb->prev = b;
            a->head = nb;
        }
        a->reserved += want;
        b = nb;
    }
    void *p = b->data + b->off;
    b->off += n;
    a->used += n;
    return p;
}

void *exdb_arena_calloc(exdb_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = exdb_arena_alloc(a, count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

char *exdb_arena_strndup(exdb_arena *a, const char *s, size_t n) {
    char *p = exdb_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *exdb_arena_strdup(exdb_arena *a, const char *s) {
    return exdb_arena_strndup(a, s, strlen(s));
}

char *exdb_arena_printf(exdb_arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = NULL;
    if (n >= 0 && (p = exdb_arena_alloc(a, (size_t)n + 1)))
        vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}
