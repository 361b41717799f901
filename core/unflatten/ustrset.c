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
        const char **ni = exdb_arena_grow(&r->arena, s->items, s->n, &s->cap, sizeof *ni, 4);
        if (!ni)
            return -1;
        s->items = ni;
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
        EXDB_WILL_WRITE(&r->arena, *cap);
        exdb_ustrset **na = exdb_arena_grow(&r->arena, *arr, *n, cap, sizeof *na, 8);
        if (!na)
            return NULL;
        EXDB_WILL_WRITE(&r->arena, *arr);
        *arr = na;
    }
    EXDB_WILL_WRITE(&r->arena, (*arr)[*n]);
    EXDB_WILL_WRITE(&r->arena, *n);
    (*arr)[(*n)++] = s;
    *slot = s;
    return s;
}
