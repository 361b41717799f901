/* udict.c - see udict.h. */
#include "core/unflatten/udict.h"

#include <stdint.h>
#include <string.h>

/* ---- ordered dicts
 *
 * Most dicts are tiny (a Linear's attrs: weight, bias; most _modules: a
 * handful of children), and there is one per module object: 23k of them in
 * the 141k-node synthetic program. A hash index would cost at least 384
 * zeroed bytes each, so a dict is searched linearly until it holds more
 * than UDICT_LINEAR slots and gets its exdb_strmap index only then. */

#define UDICT_LINEAR 8

int exdb_udict_init(exdb_urun *r, exdb_udict *d) {
    memset(d, 0, sizeof *d);
    exdb_strmap_init(&d->index, &r->arena);
    return 0;
}

/* The slot of the live entry for key, or -1. */
static long udict_slot(const exdb_udict *d, const char *key) {
    if (d->index.cap) {
        void **slot = exdb_strmap_find(&d->index, key);
        return slot && *slot ? (long)((uintptr_t)*slot - 1) : -1;
    }
    for (uint32_t i = 0; i < d->n; i++)
        if (d->vals[i] && strcmp(d->keys[i], key) == 0)
            return (long)i;
    return -1;
}

void *exdb_udict_get(const exdb_udict *d, const char *key) {
    long i = udict_slot(d, key);
    return i < 0 ? NULL : d->vals[i];
}

/* Indexes the live slots once the dict outgrows linear search. */
static int udict_build_index(exdb_udict *d) {
    for (uint32_t i = 0; i < d->n; i++) {
        if (!d->vals[i])
            continue;
        void **slot = exdb_strmap_put(&d->index, d->keys[i], NULL);
        if (!slot)
            return -1;
        *slot = (void *)(uintptr_t)(i + 1);
    }
    return 0;
}

/* d[key] = val: in place when present, appended otherwise. */
int exdb_udict_set(exdb_urun *r, exdb_udict *d, const char *key, void *val) {
    long i = udict_slot(d, key);
    exdb_arena *a = &r->arena;
    if (i >= 0) {
        EXDB_WILL_WRITE(a, d->vals[i]);
        d->vals[i] = val;
        return 0;
    }
    exdb_arena_will_write(a, d, offsetof(exdb_udict, index));
    if (d->n == d->cap) {
        uint32_t ncap = d->cap ? d->cap * 2 : 2;
        const char **nk = exdb_arena_alloc(&r->arena, ncap * sizeof *nk);
        void **nv = exdb_arena_alloc(&r->arena, ncap * sizeof *nv);
        if (!nk || !nv)
            return -1;
        if (d->n) {
            memcpy(nk, d->keys, d->n * sizeof *nk);
            memcpy(nv, d->vals, d->n * sizeof *nv);
        }
        d->keys = nk;
        d->vals = nv;
        d->cap = ncap;
    }
    EXDB_WILL_WRITE(a, d->keys[d->n]);
    EXDB_WILL_WRITE(a, d->vals[d->n]);
    d->keys[d->n] = key;
    d->vals[d->n] = val;
    d->n++;
    d->live++;
    if (strpbrk(key, "@\n"))
        d->nodd++;
    if (d->index.cap) {
        void **slot = exdb_strmap_put(&d->index, key, NULL);
        if (!slot)
            return -1;
        *slot = (void *)(uintptr_t)d->n;
    } else if (d->n > UDICT_LINEAR && udict_build_index(d) < 0) {
        return -1;
    }
    return 0;
}

void *exdb_udict_pop(exdb_udict *d, const char *key) {
    long i = udict_slot(d, key);
    if (i < 0)
        return NULL;
    exdb_arena *a = d->index.a;
    void *v = d->vals[i];
    EXDB_WILL_WRITE(a, d->vals[i]);
    d->vals[i] = NULL;
    if (d->index.cap) {
        void **slot = exdb_strmap_find(&d->index, key);
        EXDB_WILL_WRITE(a, *slot);
        *slot = NULL;
    }
    EXDB_WILL_WRITE(a, d->live);
    d->live--;
    return v;
}
