/* strmap.c - see strmap.h. */
#include "core/base/strmap.h"

#include <string.h>

/* Eight bytes a step (the C library's strlen finds the end): FNV-1a's byte
 * loop cost ~2 instructions a byte, 1,100 a key on the ~500-byte
 * nn_module_stack texts the loader interns. Each word is mixed with a
 * multiply (the constants are splitmix64's), the last one overlapping the
 * one before when the length is not a multiple of 8, and the whole folded
 * with murmur3's finaliser, so names that differ in one digit spread over
 * the table; a key of 64 bytes or more in four independent lanes (mix8).
 * Nothing outside the process sees the value, and no answer depends on a
 * map's slot order (maps are only looked up). */
static inline uint64_t load8(const char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* A step of one lane: the word mixed in with a multiply, the old value's
 * high bits folded back. */
static inline uint64_t mix8(uint64_t h, uint64_t w) {
    return ((h ^ w) * 0xbf58476d1ce4e5b9u) ^ (h >> 31);
}

static uint32_t hash_mem(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    if (n >= 64) {
        /* four lanes of 32 bytes a step: one chain of multiplies took ~4
         * cycles a word, its length's worth on a ~500-byte stack text */
        uint64_t b = h ^ 0x94d049bb133111ebu, c = h ^ 0xff51afd7ed558ccdu,
                 d = h ^ 0xc4ceb9fe1a85ec53u;
        const char *end = s + n - 32;
        for (; s < end; s += 32) {
            h = mix8(h, load8(s));
            b = mix8(b, load8(s + 8));
            c = mix8(c, load8(s + 16));
            d = mix8(d, load8(s + 24));
        }
        h = mix8(h, load8(end)); /* the last 32 bytes, overlapping */
        b = mix8(b, load8(end + 8));
        c = mix8(c, load8(end + 16));
        d = mix8(d, load8(end + 24));
        h = mix8(mix8(mix8(h, b), c), d);
    } else if (n >= 8) {
        const char *end = s + n - 8;
        for (; s < end; s += 8)
            h = ((h ^ load8(s)) * 0xbf58476d1ce4e5b9u) ^ (h >> 31);
        h ^= load8(end);
    } else {
        uint64_t w = 0;
        for (size_t i = 0; i < n; i++)
            w |= (uint64_t)(unsigned char)s[i] << (8 * i);
        h ^= w;
    }
    h *= 0x94d049bb133111ebu;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    uint32_t r = (uint32_t)(h ^ (h >> 32));
    return r ? r : 1;
}

static uint32_t hash_str(const char *s) {
    return hash_mem(s, strlen(s));
}

void exdb_strmap_init(exdb_strmap *m, exdb_arena *a) {
    memset(m, 0, sizeof *m);
    m->a = a;
}

uint32_t exdb_strmap_hash(const char *key) {
    return hash_str(key);
}

uint32_t exdb_strmap_hash_n(const char *key, size_t n) {
    return hash_mem(key, n);
}

void **exdb_strmap_find(const exdb_strmap *m, const char *key) {
    return m->cap ? exdb_strmap_find_hashed(m, key, hash_str(key)) : NULL;
}

#define TAG_SHIFT 48
_Static_assert(sizeof(uintptr_t) == 8, "strmap slots keep a tag above a 48-bit address");

static inline const char *slot_key(const exdb_strmap_slot *s) {
    return exdb_strmap_slot_key(s);
}

/* The slot's key word for key with hash h: its address, h's high 16 bits
 * above. */
static inline uintptr_t tagged(const char *key, uint32_t h) {
    return (uintptr_t)key | (uintptr_t)(h >> 16) << TAG_SHIFT;
}

/* The value of key hashed h, or NULL: key's n bytes, or all of it up to its
 * NUL when n is SIZE_MAX. Inlined into both finds, each compiled with its
 * one compare. */
static inline __attribute__((always_inline)) void **find_slot(const exdb_strmap *m, const char *key,
                                                              size_t n, uint32_t h) {
    if (!m->cap)
        return NULL;
    uint32_t mask = m->cap - 1;
    uintptr_t tag = (uintptr_t)(h >> 16);
    for (uint32_t i = exdb_strmap_home(h, mask);; i = (i + 1) & mask) {
        exdb_strmap_slot *s = &m->slots[i];
        if (!s->key)
            return NULL;
        if (s->key >> TAG_SHIFT != tag)
            continue;
        const char *k = slot_key(s);
        if (n == SIZE_MAX ? k == key || strcmp(k, key) == 0
                          : strncmp(k, key, n) == 0 && k[n] == '\0')
            return &s->val;
    }
}

void **exdb_strmap_find_hashed(const exdb_strmap *m, const char *key, uint32_t h) {
    return find_slot(m, key, SIZE_MAX, h);
}

void **exdb_strmap_find_hashed_n(const exdb_strmap *m, const char *key, size_t n, uint32_t h) {
    return find_slot(m, key, n, h);
}

/* Rehashes into a table of ncap slots (a power of two above the count).
 * A home slot in a table of up to 2^16 slots is bits of the slot's tag;
 * beyond, the key is hashed again. */
static int rehash(exdb_strmap *m, uint32_t ncap) {
    exdb_strmap_slot *ns = exdb_arena_calloc(m->a, ncap, sizeof *ns);
    if (!ns)
        return -1;
    uint32_t mask = ncap - 1;
    for (uint32_t i = 0; i < m->cap; i++) {
        exdb_strmap_slot *s = &m->slots[i];
        if (!s->key)
            continue;
        uint32_t tag = (uint32_t)(s->key >> TAG_SHIFT);
        uint32_t j = ncap <= ((uint32_t)1 << 16) ? tag & mask
                                                 : exdb_strmap_home(hash_str(slot_key(s)), mask);
        while (ns[j].key)
            j = (j + 1) & mask;
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
    return exdb_strmap_put_hashed(m, key, hash_str(key), created);
}

void **exdb_strmap_put_hashed(exdb_strmap *m, const char *key, uint32_t h, int *created) {
    if ((uintptr_t)key >> TAG_SHIFT)
        return NULL;
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return NULL;
    uint32_t mask = m->cap - 1;
    uintptr_t tag = (uintptr_t)(h >> 16);
    for (uint32_t i = exdb_strmap_home(h, mask);; i = (i + 1) & mask) {
        exdb_strmap_slot *s = &m->slots[i];
        if (!s->key) {
            exdb_arena_will_write(m->a, s, sizeof *s);
            EXDB_WILL_WRITE(m->a, m->count);
            s->key = tagged(key, h);
            s->val = NULL;
            m->count++;
            if (created)
                *created = 1;
            return &s->val;
        }
        if (s->key >> TAG_SHIFT == tag && (slot_key(s) == key || strcmp(slot_key(s), key) == 0)) {
            if (created)
                *created = 0;
            /* callers store through the slot */
            EXDB_WILL_WRITE(m->a, s->val);
            return &s->val;
        }
    }
}
