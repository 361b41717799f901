/* unodemap.c - see unodemap.h. */
#include "core/unflatten/unodemap.h"

#include <string.h>

/* ---- the flat-node -> node maps */

static uint32_t hash_id(uint32_t id) {
    return id * 2654435761u;
}

exdb_node *exdb_unodemap_get(const exdb_unodemap *m, const exdb_node *k) {
    if (!m->nslots)
        return NULL;
    uint32_t mask = m->nslots - 1;
    for (uint32_t h = hash_id(k->id) & mask;; h = (h + 1) & mask) {
        uint32_t s = m->slots[h];
        if (!s)
            return NULL;
        if (m->e[s - 1].key == k)
            return m->e[s - 1].val;
    }
}

/* The slot array rebuilt with ns slots (a power of two above 2 * m->n). */
static int nodemap_rehash(exdb_urun *r, exdb_unodemap *m, uint32_t ns) {
    uint32_t *slots = exdb_arena_calloc(&r->arena, ns, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t h = hash_id(m->e[i].key->id) & (ns - 1);
        while (slots[h])
            h = (h + 1) & (ns - 1);
        slots[h] = i + 1;
    }
    EXDB_WILL_WRITE(&r->arena, m->slots);
    EXDB_WILL_WRITE(&r->arena, m->nslots);
    m->slots = slots;
    m->nslots = ns;
    return 0;
}

/* The entries moved to an array of ncap. */
static int nodemap_resize(exdb_urun *r, exdb_unodemap *m, uint32_t ncap) {
    exdb_unodemap_entry *ne = exdb_arena_alloc(&r->arena, ncap * sizeof *ne);
    if (!ne)
        return -1;
    if (m->n)
        memcpy(ne, m->e, m->n * sizeof *ne);
    /* e and the word of n and cap: one record */
    exdb_arena_will_write(&r->arena, &m->e, sizeof m->e + sizeof m->n + sizeof m->cap);
    m->e = ne;
    m->cap = ncap;
    return 0;
}

int exdb_unodemap_reserve(exdb_urun *r, exdb_unodemap *m, uint32_t n) {
    if (n > (1u << 28))
        return 0; /* an estimate that big: grow as entries come */
    uint32_t cap = m->cap ? m->cap : 4, ns = m->nslots ? m->nslots : 8;
    while (cap < n)
        cap *= 2;
    while (n * 2 > ns)
        ns *= 2;
    if (ns != m->nslots && nodemap_rehash(r, m, ns) < 0)
        return -1;
    return cap != m->cap ? nodemap_resize(r, m, cap) : 0;
}

/* m[k] = v: in place when k is present (dict semantics). */
int exdb_unodemap_put(exdb_urun *r, exdb_unodemap *m, exdb_node *k, exdb_node *v) {
    if (m->nslots) {
        uint32_t mask = m->nslots - 1;
        for (uint32_t h = hash_id(k->id) & mask;; h = (h + 1) & mask) {
            uint32_t s = m->slots[h];
            if (!s)
                break;
            if (m->e[s - 1].key == k) {
                EXDB_WILL_WRITE(&r->arena, m->e[s - 1].val);
                m->e[s - 1].val = v;
                return 0;
            }
        }
    }
    EXDB_WILL_WRITE(&r->arena, m->n);
    if ((m->n + 1) * 2 > m->nslots && nodemap_rehash(r, m, m->nslots ? m->nslots * 2 : 8) < 0)
        return -1;
    if (m->n == m->cap && nodemap_resize(r, m, m->cap ? m->cap * 2 : 4) < 0)
        return -1;
    EXDB_WILL_WRITE(&r->arena, m->e[m->n]);
    m->e[m->n].key = k;
    m->e[m->n].val = v;
    uint32_t mask = m->nslots - 1;
    uint32_t h = hash_id(k->id) & mask;
    while (m->slots[h])
        h = (h + 1) & mask;
    EXDB_WILL_WRITE(&r->arena, m->slots[h]);
    m->slots[h] = ++m->n;
    return 0;
}
