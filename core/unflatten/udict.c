/* udict.c - see udict.h. */
#include "core/unflatten/udict.h"

#include <stdint.h>
#include <string.h>

/* ---- ordered dicts
 *
 * Most dicts are tiny (a Linear's attrs: weight, bias; most _modules: a
 * handful of children), and there is one per module object: 23k of them in
 * the 141k-node synthetic program. A dict is searched linearly until it
 * holds more than UDICT_LINEAR slots and gets its index only then: slot
 * numbers in an open-addressing table at most half full (8 to 16 bytes
 * a key; an exdb_strmap's 24-byte slots cost 32 to 64, plus the tables
 * its doublings left in the arena). */

#define UDICT_LINEAR 8

int exdb_udict_init(exdb_urun *r, exdb_udict *d) {
    memset(d, 0, sizeof *d);
    exdb_strmap_init(&d->calls, &r->arena);
    return 0;
}

/* exdb_strmap's hash (eight bytes a step): the index only places keys,
 * the order a dict keeps is its insertion order. */
static uint32_t key_hash(const char *s) {
    return exdb_strmap_hash(s);
}

/* The index position of key: where its slot is, or the empty one where it
 * would go. */
static uint32_t index_pos(const exdb_udict *d, const char *key) {
    uint32_t mask = d->nindex - 1;
    for (uint32_t i = key_hash(key) & mask;; i = (i + 1) & mask) {
        uint32_t s = d->index[i];
        if (!s || strcmp(d->keys[s - 1], key) == 0)
            return i;
    }
}

/* An index of nindex positions (a power of two above twice the keys) for
 * the slots [0, d->n): the live ones, and popped ones whose key is not
 * set again later (a later slot of the same key replaces them). */
static int index_build(exdb_arena *a, exdb_udict *d, uint32_t nindex) {
    uint32_t *ix = exdb_arena_calloc(a, nindex, sizeof *ix);
    if (!ix)
        return -1;
    exdb_arena_will_write(a, &d->index, sizeof d->index + sizeof d->nindex);
    d->index = ix;
    d->nindex = nindex;
    for (uint32_t i = 0; i < d->n; i++)
        ix[index_pos(d, d->keys[i])] = i + 1;
    return 0;
}

/* Makes room in the index for one more key. */
static int index_room(exdb_arena *a, exdb_udict *d) {
    if ((uint64_t)(d->n + 1) * 2 <= d->nindex)
        return 0;
    uint32_t n = d->nindex ? d->nindex : 16;
    while ((uint64_t)(d->n + 1) * 2 > n)
        n *= 2;
    return index_build(a, d, n);
}

int exdb_udict_reserve(exdb_urun *r, exdb_udict *d, uint32_t n) {
    exdb_arena *a = &r->arena;
    if (n > d->cap) {
        const char **nk = exdb_arena_alloc(a, (size_t)n * sizeof *nk);
        void **nv = exdb_arena_alloc(a, (size_t)n * sizeof *nv);
        if (!nk || !nv)
            return -1;
        if (d->n) {
            memcpy(nk, d->keys, d->n * sizeof *nk);
            memcpy(nv, d->vals, d->n * sizeof *nv);
        }
        exdb_arena_will_write(a, d, offsetof(exdb_udict, live));
        d->keys = nk;
        d->vals = nv;
        d->cap = n;
    }
    if (n <= UDICT_LINEAR || (uint64_t)n * 2 <= d->nindex)
        return 0;
    uint32_t ni = 16;
    while ((uint64_t)n * 2 > ni)
        ni *= 2;
    return d->nindex ? index_build(a, d, ni) : 0; /* a new index is sized by set */
}

/* ---- call names (an indexed dict's d->calls)
 *
 * A key holding '@' or '\n' can be a call name of up to two items other
 * than itself: "a@1\n" of "a@1" and "a", "a@1" of "a", "a\n" of "a". Each
 * such item maps to the ascending slots of those keys (popped slots stay
 * listed and are skipped: a key set again gets a new, higher slot). */

typedef struct {
    uint32_t n, cap;
    uint32_t *slot;
} udict_calls;

/* The length of k[0..n) without a final "@DIGITS", n when it has none. */
static size_t call_base_len(const char *k, size_t n) {
    size_t j = n;
    while (j > 0 && k[j - 1] >= '0' && k[j - 1] <= '9')
        j--;
    return j < n && j > 0 && k[j - 1] == '@' ? j - 1 : n;
}

/* Adds slot i under item k[0..len). */
static int calls_add(exdb_udict *d, const char *k, size_t len, uint32_t i) {
    exdb_arena *a = d->calls.a;
    char tmp[256];
    void **v = NULL;
    if (len < sizeof tmp) {
        memcpy(tmp, k, len);
        tmp[len] = '\0';
        v = exdb_strmap_find(&d->calls, tmp);
    }
    if (!v) {
        char *item = exdb_arena_strndup(a, k, len);
        if (!item || !(v = exdb_strmap_put(&d->calls, item, NULL)))
            return -1;
    }
    udict_calls *c = *v;
    if (!c) {
        if (!(c = exdb_arena_calloc(a, 1, sizeof *c)))
            return -1;
        EXDB_WILL_WRITE(a, *v);
        *v = c;
    }
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? c->cap * 2 : 2;
        uint32_t *ns = exdb_arena_alloc(a, ncap * sizeof *ns);
        if (!ns)
            return -1;
        if (c->n)
            memcpy(ns, c->slot, c->n * sizeof *ns);
        exdb_arena_will_write(a, c, sizeof *c);
        c->slot = ns;
        c->cap = ncap;
    }
    EXDB_WILL_WRITE(a, c->slot[c->n]);
    c->slot[c->n] = i;
    EXDB_WILL_WRITE(a, c->n);
    c->n++;
    return 0;
}

/* Lists slot i under the items its key is a call name of. */
static int calls_note(exdb_udict *d, uint32_t i) {
    const char *k = d->keys[i];
    size_t n = strlen(k);
    if (n && k[n - 1] == '\n') {
        size_t b = call_base_len(k, n - 1);
        if (calls_add(d, k, n - 1, i) < 0 || (b < n - 1 && calls_add(d, k, b, i) < 0))
            return -1;
        return 0;
    }
    size_t b = call_base_len(k, n);
    return b < n ? calls_add(d, k, b, i) : 0;
}

/* _is_call_name(key, item): re.match(re.escape(item) + r"(@\d+)?$", key),
 * with `$` also matching before a final newline. \d is ASCII here (Python
 * also takes other Unicode decimal digits), as in names.c's name regex. */
static int is_call_name(const char *key, const char *item, size_t len) {
    if (strncmp(key, item, len) != 0)
        return 0;
    const char *s = key + len;
    if (*s == '@' && s[1] >= '0' && s[1] <= '9')
        for (s++; *s >= '0' && *s <= '9'; s++)
            ;
    return !*s || (s[0] == '\n' && !s[1]);
}

/* The slot of the live entry for key, or -1. */
static long udict_slot(const exdb_udict *d, const char *key) {
    if (d->nindex) {
        uint32_t s = d->index[index_pos(d, key)];
        return s && d->vals[s - 1] ? (long)s - 1 : -1;
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

/* Indexes the slots once the dict outgrows linear search (sized for the
 * keys reserved), and lists the live call names. */
static int udict_build_index(exdb_arena *a, exdb_udict *d) {
    uint32_t n = 16;
    while ((uint64_t)(d->cap > d->n ? d->cap : d->n + 1) * 2 > n)
        n *= 2;
    if (index_build(a, d, n) < 0)
        return -1;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->vals[i] && strpbrk(d->keys[i], "@\n") && calls_note(d, i) < 0)
            return -1;
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
    if (d->nindex && index_room(a, d) < 0)
        return -1;
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
    if (d->nindex) {
        uint32_t at = index_pos(d, key);
        EXDB_WILL_WRITE(a, d->index[at]);
        d->index[at] = d->n;
        if (strpbrk(key, "@\n") && calls_note(d, d->n - 1) < 0)
            return -1;
    } else if (d->n > UDICT_LINEAR && udict_build_index(a, d) < 0) {
        return -1;
    }
    return 0;
}

void *exdb_udict_pop(exdb_udict *d, const char *key) {
    long i = udict_slot(d, key);
    if (i < 0)
        return NULL;
    exdb_arena *a = d->calls.a;
    void *v = d->vals[i];
    EXDB_WILL_WRITE(a, d->vals[i]); /* the index keeps the slot: a popped value reads absent */
    d->vals[i] = NULL;
    EXDB_WILL_WRITE(a, d->live);
    d->live--;
    return v;
}

int exdb_udict_each_call(const exdb_udict *d, const char *item, size_t len,
                         int (*fn)(void *ctx, void *val), void *ctx) {
    if (!d->nindex || strlen(item) != len) {
        for (uint32_t i = 0; i < d->n; i++) {
            int rc = d->vals[i] && is_call_name(d->keys[i], item, len) ? fn(ctx, d->vals[i]) : 0;
            if (rc)
                return rc;
        }
        return 0;
    }
    /* item's own slot merged into the ascending slots of its call names */
    long own = strlen(item) == len ? udict_slot(d, item) : -1;
    const udict_calls *c = exdb_strmap_get(&d->calls, item);
    uint32_t n = c ? c->n : 0;
    for (uint32_t k = 0; k <= n; k++) {
        uint32_t i = k < n ? c->slot[k] : UINT32_MAX;
        if (own >= 0 && (uint32_t)own < i) {
            int rc = fn(ctx, d->vals[own]);
            if (rc)
                return rc;
            own = -1;
        }
        if (k < n && d->vals[i]) {
            int rc = fn(ctx, d->vals[i]);
            if (rc)
                return rc;
        }
    }
    return 0;
}
