/* ustrset.c - see ustrset.h. */
#include "core/unflatten/ustrset.h"

#include <string.h>

int exdb_ustrset_has(const exdb_ustrset *s, const char *item) {
    return s && exdb_strmap_get(&s->index, item) != NULL;
}

int exdb_ustrset_add(exdb_urun *r, exdb_ustrset *s, const char *item) {
    int created;
    void **slot = exdb_strmap_put(&s->index, item, &created);
    if (!slot)
        return -1;
    if (*slot)
        return 0;
    exdb_arena *a = &r->arena;
    exdb_arena_will_write(a, &s->items, sizeof s->items + sizeof s->n + sizeof s->cap);
    if (s->n == s->cap) {
        uint32_t ncap = s->cap ? s->cap * 2 : 4;
        const char **ni = exdb_arena_alloc(&r->arena, ncap * sizeof *ni);
        if (!ni)
            return -1;
        if (s->n)
            memcpy(ni, s->items, s->n * sizeof *ni);
        s->items = ni;
        s->cap = ncap;
    }
    EXDB_WILL_WRITE(a, s->items[s->n]);
    s->items[s->n++] = item;
    *slot = (void *)1;
    return 0;
}

/* A defaultdict(set) keyed by string, in first-use order. */
exdb_ustrset *exdb_ustrset_get(exdb_urun *r, exdb_ustrset ***arr, uint32_t *n, uint32_t *cap,
                               exdb_strmap *index, const char *key, int create) {
    void **slot = create ? exdb_strmap_put(index, key, NULL) : exdb_strmap_find(index, key);
    if (!slot)
        return NULL;
    if (*slot)
        return *slot;
    exdb_ustrset *s = exdb_arena_calloc(&r->arena, 1, sizeof *s);
    if (!s)
        return NULL;
    s->key = key;
    exdb_strmap_init(&s->index, &r->arena);
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 8;
        exdb_ustrset **na = exdb_arena_alloc(&r->arena, ncap * sizeof *na);
        if (!na)
            return NULL;
        if (*n)
            memcpy(na, *arr, *n * sizeof *na);
        EXDB_WILL_WRITE(&r->arena, *arr);
        EXDB_WILL_WRITE(&r->arena, *cap);
        *arr = na;
        *cap = ncap;
    }
    EXDB_WILL_WRITE(&r->arena, (*arr)[*n]);
    EXDB_WILL_WRITE(&r->arena, *n);
    (*arr)[(*n)++] = s;
    *slot = s;
    return s;
}
