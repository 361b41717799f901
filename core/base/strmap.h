/* strmap.h - string -> pointer hash map (open addressing, a multiply-mix
 * hash eight bytes a step), storage from an arena. Keys are not copied:
 * they must live as long as the map (arena strings do). Entries are never
 * deleted; store NULL to retire one. */
#ifndef EXDB_CORE_BASE_STRMAP_H
#define EXDB_CORE_BASE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"

/* A slot: 16 bytes, not 24 with a 32-bit hash of its own (a module
 * graph's name tables were a quarter of an unflatten run's arena). The
 * key's address (user-space addresses fit in 48 bits) carries the high 16
 * bits of its hash above bit 48, and a key's home slot is
 * exdb_strmap_home: the table grows from those bits alone up to 2^16
 * slots, and compares them before the text. 0: empty. */
typedef struct exdb_strmap_slot {
    uintptr_t key;
    void *val;
} exdb_strmap_slot;

typedef struct exdb_strmap {
    exdb_strmap_slot *slots;
    uint32_t cap, count;
    exdb_arena *a;
} exdb_strmap;

void exdb_strmap_init(exdb_strmap *m, exdb_arena *a);
/* Makes room for n keys in all without growing again: a loader that knows
 * how many keys come sizes the table once, instead of doubling it ~20
 * times (each old slot array stays behind in the arena). -1 when memory is
 * exhausted. */
int exdb_strmap_reserve(exdb_strmap *m, uint32_t n);
/* The value slot for key, or NULL when absent. */
void **exdb_strmap_find(const exdb_strmap *m, const char *key);
/* The value slot for key, created (holding NULL) when absent; NULL only when
 * memory is exhausted (or key's address does not fit in 48 bits). *created
 * (if given) tells which happened. The slot is recorded in the arena's
 * journal, so callers may store through it; a caller storing through
 * exdb_strmap_find's slot records it itself. */
void **exdb_strmap_put(exdb_strmap *m, const char *key, int *created);
/* For callers that look many keys up in a row (lint walks every node name):
 * the map's hash of a key, a prefetch of the slot a hash starts probing at,
 * and find with the hash already computed. Hashing a key a few lookups ahead
 * and prefetching its slot hides the cache misses of a big table. */
uint32_t exdb_strmap_hash(const char *key);
/* exdb_strmap_hash of key, whose strlen n the caller has. */
uint32_t exdb_strmap_hash_n(const char *key, size_t n);
/* The key a used slot holds (for walks over m->slots). */
static inline const char *exdb_strmap_slot_key(const exdb_strmap_slot *s) {
    return (const char *)(s->key & (((uintptr_t)1 << 48) - 1));
}
/* The slot a key of hash h starts probing at: h rotated by 16 bits, so a
 * table of up to 2^16 slots takes the bits the slot keeps. */
static inline uint32_t exdb_strmap_home(uint32_t h, uint32_t mask) {
    return ((h >> 16) | (h << 16)) & mask;
}
static inline void exdb_strmap_prefetch(const exdb_strmap *m, uint32_t h) {
    if (m->cap)
        __builtin_prefetch(&m->slots[exdb_strmap_home(h, m->cap - 1)]);
}
void **exdb_strmap_find_hashed(const exdb_strmap *m, const char *key, uint32_t h);
/* exdb_strmap_find_hashed of key's first n bytes (no NUL among them; key need
 * not end there). */
void **exdb_strmap_find_hashed_n(const exdb_strmap *m, const char *key, size_t n, uint32_t h);
/* put with h = exdb_strmap_hash(key) already computed. */
void **exdb_strmap_put_hashed(exdb_strmap *m, const char *key, uint32_t h, int *created);
static inline void *exdb_strmap_get(const exdb_strmap *m, const char *key) {
    void **v = exdb_strmap_find(m, key);
    return v ? *v : NULL;
}

#endif
