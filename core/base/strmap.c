/* strmap.c - see strmap.h. */
#include "core/base/strmap.h"

#include <string.h>

static uint32_t hash_str(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h ? h : 1;
}

void exdb_strmap_init(exdb_strmap *m, exdb_arena *a) {
    memset(m, 0, sizeof *m);
    m->a = a;
}

uint32_t exdb_strmap_hash(const char *key) {
    return hash_str(key);
}

void **exdb_strmap_find(const exdb_strmap *m, const char *key) {
    return m->cap ? exdb_strmap_find_hashed(m, key, hash_str(key)) : NULL;
}

void **exdb_strmap_find_hashed(const exdb_strmap *m, const char *key, uint32_t h) {
    if (!m->cap)
        return NULL;
    uint32_t mask = m->cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        exdb_strmap_slot *s = &m->slots[i];
        if (!s->key)
            return NULL;
        if (s->hash == h && (s->key == key || strcmp(s->key, key) == 0))
            return &s->val;
    }
}

/* Rehashes into a table of ncap slots (a power of two above the count). */
static int rehash(exdb_strmap *m, uint32_t ncap) {
    exdb_strmap_slot *ns = exdb_arena_calloc(m->a, ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (uint32_t i = 0; i < m->cap; i++) {
        exdb_strmap_slot *s = &m->slots[i];
        if (!s->key)
            continue;
        uint32_t j = s->hash & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    EXDB_WILL_WRITE(m->a, m->slots);
    EXDB_WILL_WRITE(m->a, m->cap);
    m->slots = ns;
    m->cap = ncap;
    return 0;
}

static int grow(exdb_strmap *m) {
    uint32_t ncap = m->cap ? m->cap * 2 : 8;
    return ncap == 0 ? -1 : rehash(m, ncap);
}

int exdb_strmap_reserve(exdb_strmap *m, uint32_t n) {
    /* put grows when (count + 1) * 4 > cap * 3: keep n keys under 3/4 */
    uint64_t need = ((uint64_t)n * 4 + 2) / 3 + 1, cap = m->cap ? m->cap : 16;
    while (cap < need)
        cap *= 2;
    if (cap > ((uint64_t)1 << 31))
        return -1;
    return cap == m->cap ? 0 : rehash(m, (uint32_t)cap);
}

void **exdb_strmap_put(exdb_strmap *m, const char *key, int *created) {
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return NULL;
    uint32_t h = hash_str(key), mask = m->cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        exdb_strmap_slot *s = &m->slots[i];
        if (!s->key) {
            exdb_arena_will_write(m->a, s, sizeof *s);
            EXDB_WILL_WRITE(m->a, m->count);
            s->key = key;
            s->hash = h;
            s->val = NULL;
            m->count++;
            if (created)
                *created = 1;
            return &s->val;
        }
        if (s->hash == h && (s->key == key || strcmp(s->key, key) == 0)) {
            if (created)
                *created = 0;
            /* callers store through the slot */
            EXDB_WILL_WRITE(m->a, s->val);
            return &s->val;
        }
    }
}
