/* load_value.c - see load_value.h. TensorMeta, SymInt/SymFloat/SymBool and
 * custom objects as serialize.py writes them (docs/pt2-format.md). */
#include "core/export/load_value.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
#endif

static int parse_sym(loader *L, const exdb_json *j, const jpath *p, int flavour, exdb_sym *out) {
    /* flavour: 0 int, 1 float, 2 bool */
    static const char *const names[] = {"SymInt", "SymFloat", "SymBool"};
    static const char *const what[] = {"a SymInt", "a SymFloat", "a SymBool"};
    static const char *const lits[] = {"as_int", "as_float", "as_bool"};
    char q[QS];
    memset(out, 0, sizeof *out);
    /* {"as_int": N}, most sizes and strides: what the general path below
     * gives it, without its lookups; anything else takes that path */
    if (flavour == 0 && j && j->type == EXDB_JOBJECT && j->len == 1 &&
        j->u.kids[0].type == EXDB_JNUMBER && exdb_json_key_is(j->u.kids[0].key, "as_int") &&
        exdb_json_int(&j->u.kids[0], &out->v.i) == 0)
        return 0;
    if (j && j->type == EXDB_JNUMBER && flavour == 0) /* schema 1: plain int */
        return exdb_load_as_int(L, j, p, &out->v.i);
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, j, p, what[flavour], &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_expr") == 0) {
        if (exdb_load_need_obj(L, v, &vp) < 0 ||
            exdb_load_get_str(L, v, "expr_str", &vp, &out->expr) < 0)
            return -1;
        const exdb_json *h = exdb_load_get_opt(v, "hint");
        jpath hp = PKEY(&vp, "hint");
        if (h) {
            if (h->type == EXDB_JNUMBER) { /* schema 1: plain int hint */
                out->has_hint = 1;
                return exdb_load_as_int(L, h, &hp, &out->v.i);
            }
            const char *ht;
            const exdb_json *hv;
            if (exdb_load_get_union(L, h, &hp, "a SymExprHint", &ht, &hv) < 0)
                return -1;
            jpath hvp = PKEY(&hp, ht);
            out->has_hint = 1;
            if (strcmp(ht, "as_int") == 0)
                return exdb_load_as_int(L, hv, &hvp, &out->v.i);
            if (strcmp(ht, "as_float") == 0)
                return exdb_load_as_double(L, hv, &hvp, &out->v.f);
            if (strcmp(ht, "as_bool") == 0)
                return exdb_load_as_bool(L, hv, &hvp, &out->v.b);
            return exdb_load_fail(
                L, &hp,
                "unknown SymExprHint kind %s (expected \"as_int\", \"as_float\" or \"as_bool\")",
                exdb_load_path_qs(q, sizeof q, ht));
        }
        return 0;
    }
    if (strcmp(tag, "as_int") == 0 && flavour == 0)
        return exdb_load_as_int(L, v, &vp, &out->v.i);
    if (strcmp(tag, "as_float") == 0 && flavour == 1)
        return exdb_load_as_double(L, v, &vp, &out->v.f);
    if (strcmp(tag, "as_bool") == 0 && flavour == 2)
        return exdb_load_as_bool(L, v, &vp, &out->v.b);
    return exdb_load_fail(L, p, "unknown %s kind %s (expected \"as_expr\" or \"%s\")",
                          names[flavour], exdb_load_path_qs(q, sizeof q, tag), lits[flavour]);
}

/* A list of SymInts (sizes, strides). */
static int parse_sym_list(loader *L, const exdb_json *j, const jpath *p, exdb_sym **out,
                          uint32_t *n) {
    if (exdb_load_need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_alloc(L->a, (j->len ? j->len : 1) * sizeof **out);
    if (!*out)
        return exdb_load_oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ip = PIDX(p, i);
        if (parse_sym(L, &j->u.kids[i], &ip, 0, &(*out)[i]) < 0)
            return -1;
    }
    return 0;
}

/* A TensorMeta (tensor_values entry) -> a tensor val. Schema 1 wraps it in
 * {"meta": ...}; 5.x omits null fields (strides, device index, hint). */
static int parse_tensor_meta(loader *L, const exdb_json *j, const jpath *p, exdb_val **out) {
    if (exdb_load_need_obj(L, j, p) < 0)
        return -1;
    const exdb_json *inner = exdb_json_get(j, "meta"); /* schema 1 wraps it */
    jpath ip = PKEY(p, "meta");
    if (inner && inner->type == EXDB_JOBJECT && !exdb_json_get(j, "dtype")) {
        j = inner;
        p = &ip;
    }
    exdb_tensor_meta *t = exdb_arena_calloc(L->a, 1, sizeof *t);
    exdb_val *v = exdb_arena_calloc(L->a, 1, sizeof *v);
    if (!t || !v)
        return exdb_load_oom(L);
    int64_t x;
    jpath dp = PKEY(p, "dtype");
    if (exdb_load_as_int(L, exdb_json_get(j, "dtype"), &dp, &x) < 0)
        return -1;
    t->dtype = (int)x;
    const exdb_json *sizes = exdb_json_get(j, "sizes");
    jpath sp = PKEY(p, "sizes");
    if (parse_sym_list(L, sizes, &sp, &t->sizes, &t->ndim) < 0)
        return -1;
    const exdb_json *strides = exdb_load_get_opt(j, "strides");
    if (strides) {
        uint32_t ns;
        jpath stp = PKEY(p, "strides");
        if (parse_sym_list(L, strides, &stp, &t->strides, &ns) < 0)
            return -1;
        if (ns != t->ndim)
            return exdb_load_fail(L, &stp, "expected %u strides (one per size), found %u", t->ndim,
                                  ns);
    }
    const exdb_json *so = exdb_load_get_opt(j, "storage_offset");
    if (so) {
        jpath sop = PKEY(p, "storage_offset");
        if (parse_sym(L, so, &sop, 0, &t->storage_offset) < 0)
            return -1;
    }
    const exdb_json *rg = exdb_load_get_opt(j, "requires_grad");
    if (rg) {
        jpath rp = PKEY(p, "requires_grad");
        if (exdb_load_as_bool(L, rg, &rp, &t->requires_grad) < 0)
            return -1;
    }
    t->layout = 7;
    const exdb_json *lay = exdb_load_get_opt(j, "layout");
    if (lay) {
        jpath lp = PKEY(p, "layout");
        if (exdb_load_as_int(L, lay, &lp, &x) < 0)
            return -1;
        t->layout = (int)x;
    }
    t->device_type = "cpu";
    t->device_index = -1;
    const exdb_json *dev = exdb_load_get_opt(j, "device");
    if (dev) {
        jpath dvp = PKEY(p, "device");
        if (exdb_load_need_obj(L, dev, &dvp) < 0 ||
            exdb_load_get_str(L, dev, "type", &dvp, &t->device_type) < 0)
            return -1;
        const exdb_json *idx = exdb_load_get_opt(dev, "index");
        if (idx) {
            jpath ixp = PKEY(&dvp, "index");
            if (exdb_load_as_int(L, idx, &ixp, &x) < 0)
                return -1;
            t->device_index = (int)x;
        }
    }
    v->kind = EXDB_VAL_TENSOR;
    v->u.t = t;
    *out = v;
    return 0;
}

/* ---- TensorMeta as torch.export.save writes it, read off its text */

/* A read position in a table entry's text. */
typedef struct cursor {
    const char *p, *e;
} cursor;

static int lit(cursor *c, const char *s, size_t n) {
    if ((size_t)(c->e - c->p) < n || memcmp(c->p, s, n) != 0)
        return 0;
    c->p += n;
    return 1;
}
#define LIT(c, s) lit((c), (s), sizeof(s) - 1)

/* A JSON integer of at most 18 digits (so it fits int64), not followed by
 * a fraction or exponent; no leading zero, no "-0" (the general path's
 * answers for those are its own). */
static int int_at(cursor *c, int64_t *out) {
    const char *q = c->p;
    int neg = q < c->e && *q == '-';
    q += neg;
    const char *d = q;
    int64_t v = 0;
    /* 18 digits at most: a 19th would overflow int64 before the check
     * (it is the digit after them, refused below) */
    while (q < c->e && *q >= '0' && *q <= '9' && q - d < 18)
        v = v * 10 + (*q++ - '0');
    size_t nd = (size_t)(q - d);
    if (nd == 0 || (*d == '0' && (nd > 1 || neg)) ||
        (q < c->e && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9'))))
        return 0;
    *out = neg ? -v : v;
    c->p = q;
    return 1;
}

/* "[{"as_int": N}, ...]" of at most 64 elements into v[0..*n). */
static int as_int_list(cursor *c, int64_t *v, uint32_t *n) {
    *n = 0;
    if (!LIT(c, "["))
        return 0;
    if (LIT(c, "]"))
        return 1;
    for (;;) {
        if (*n == 64 || !LIT(c, "{\"as_int\": ") || !int_at(c, &v[*n]) || !LIT(c, "}"))
            return 0;
        (*n)++;
        if (LIT(c, "]"))
            return 1;
        if (!LIT(c, ", "))
            return 0;
    }
}

/* n SymInts holding v[0..n) (the general path's {"as_int": N}). */
static exdb_sym *sym_ints(loader *L, const int64_t *v, uint32_t n) {
    exdb_sym *s = exdb_arena_alloc(L->a, (n ? n : 1) * sizeof *s);
    for (uint32_t i = 0; s && i < n; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].v.i = v[i];
    }
    return s;
}

/* The device type [s, e) as a C string: the usual ones static, others
 * copied into the program's arena. NULL when memory runs out. */
static const char *device_type(loader *L, const char *s, const char *e) {
    static const char *const known[] = {"cpu", "cuda", "meta", "mps", "xpu", "hpu"};
    size_t n = (size_t)(e - s);
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strlen(known[i]) == n && memcmp(known[i], s, n) == 0)
            return known[i];
    return exdb_arena_strndup(L->a, s, n);
}

/* The TensorMeta text e (an unparsed table entry) when it is exactly what
 * serialize.py writes for a tensor of static shape: {"dtype": D, "sizes":
 * [...], "requires_grad": B, "device": {"type": "T", "index": I or null},
 * "strides": [...], "storage_offset": {"as_int": N}, "layout": L}, with
 * json.dumps's separators, integers, one stride per size and a device type
 * of letters, digits and '_'. Read straight off the text into *out, as
 * parse_tensor_meta reads its DOM (the JSON DOM of ~20 values an entry
 * cost ~30 instructions a byte); the device type is copied out of the text
 * (which is never written), the usual ones not at all. 1 when read, 0 when the text is anything
 * else (the caller parses it), -1 when memory runs out. */
static int tensor_meta_text(loader *L, const exdb_json *e, exdb_val **out) {
    cursor c = {e->u.str, e->u.str + e->len};
    int64_t dtype, sizes[64], strides[64], off, layout, index = -1;
    uint32_t nsizes, nstrides;
    int rg;
    if (!LIT(&c, "{\"dtype\": ") || !int_at(&c, &dtype) || !LIT(&c, ", \"sizes\": ") ||
        !as_int_list(&c, sizes, &nsizes) || !LIT(&c, ", \"requires_grad\": "))
        return 0;
    if (LIT(&c, "true"))
        rg = 1;
    else if (LIT(&c, "false"))
        rg = 0;
    else
        return 0;
    if (!LIT(&c, ", \"device\": {\"type\": \""))
        return 0;
    const char *type = c.p;
    while (c.p < c.e && ((*c.p >= 'a' && *c.p <= 'z') || (*c.p >= 'A' && *c.p <= 'Z') ||
                         (*c.p >= '0' && *c.p <= '9') || *c.p == '_'))
        c.p++;
    const char *quote = c.p;
    if (c.p - type > 64 || !LIT(&c, "\", \"index\": "))
        return 0;
    if (!LIT(&c, "null") && !int_at(&c, &index))
        return 0;
    if (!LIT(&c, "}, \"strides\": ") || !as_int_list(&c, strides, &nstrides) ||
        nstrides != nsizes || !LIT(&c, ", \"storage_offset\": {\"as_int\": ") ||
        !int_at(&c, &off) || !LIT(&c, "}, \"layout\": ") || !int_at(&c, &layout) || !LIT(&c, "}") ||
        c.p != c.e)
        return 0;
    exdb_tensor_meta *t = exdb_arena_calloc(L->a, 1, sizeof *t);
    exdb_val *v = exdb_arena_calloc(L->a, 1, sizeof *v);
    if (!t || !v || !(t->sizes = sym_ints(L, sizes, nsizes)) ||
        !(t->strides = sym_ints(L, strides, nsizes)) || !(type = device_type(L, type, quote)))
        return exdb_load_oom(L);
    t->dtype = (int)dtype;
    t->ndim = nsizes;
    t->requires_grad = rg;
    t->device_type = type;
    t->device_index = (int)index;
    t->storage_offset.v.i = off;
    t->layout = (int)layout;
    v->kind = EXDB_VAL_TENSOR;
    v->u.t = t;
    *out = v;
    return 1;
}

/* The TensorMeta texts of one graph's tensor_values that tensor_meta_text
 * read, by their bytes: real programs repeat a few shapes entry after
 * entry (efficientnet_b7: 2,507 entries, 139 distinct texts), and a text
 * read before gives its tensor meta again (const, shared) without being
 * read (a hash and one memcmp against ~1,400 instructions). The texts are
 * copies (the mapped text behind the loader is given back): at most
 * TM_TEXTS of at most TM_TEXT_MAX bytes, later ones are read each time,
 * and when the table is full with fewer than half the entries found in
 * it, none is looked up any more. */
#define TM_TEXTS    256
#define TM_TEXT_MAX 512
typedef struct tm_slot {
    const char *text; /* the copy; NULL: empty */
    uint32_t len;
    uint64_t h;
    const exdb_tensor_meta *t;
} tm_slot;
typedef struct tm_memo {
    tm_slot *s; /* the table, then the copies, one allocation */
    char *pool; /* the copies, one after another */
    size_t used;
    uint32_t mask, n, room;
    uint32_t seen, found; /* entries looked up, found */
    int crc;              /* texts hashed by tm_hash_crc (SSE4.2), else XXH3 */
} tm_memo;

#if defined(__x86_64__) && defined(__GNUC__)
/* A text's hash for the memo in two lanes of CRC32C, eight bytes an
 * instruction (XXH3 took ~280 instructions a ~226-byte text, a fifth of
 * reading it), the last eight bytes overlapping; then mixed so that the
 * table's low bits spread. Only the memo sees it: equal texts hash alike,
 * and a collision costs a memcmp. */
__attribute__((target("sse4.2"))) static uint64_t tm_hash_crc(const char *s, size_t n) {
    uint64_t a = n, b = ~(uint64_t)n, w;
    size_t i = 0;
    if (n < 8) {
        for (; i < n; i++)
            a = _mm_crc32_u8((uint32_t)a, (unsigned char)s[i]);
    } else {
        for (; i + 16 <= n; i += 16) {
            memcpy(&w, s + i, 8);
            a = _mm_crc32_u64(a, w);
            memcpy(&w, s + i + 8, 8);
            b = _mm_crc32_u64(b, w);
        }
        if (i + 8 <= n) {
            memcpy(&w, s + i, 8);
            a = _mm_crc32_u64(a, w);
        }
        memcpy(&w, s + n - 8, 8);
        b = _mm_crc32_u64(b, w);
    }
    uint64_t h = (a << 32 | b) * 0x9E3779B97F4A7C15u;
    return h ^ h >> 29;
}
#endif

/* The hash of e's text for m. */
static uint64_t tm_hash(const tm_memo *m, const exdb_json *e) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (m->crc)
        return tm_hash_crc(e->u.str, e->len);
#endif
    (void)m;
    return XXH3_64bits(e->u.str, e->len);
}

/* m's table and pool for a tensor_values of n entries; -1 when memory runs
 * out. */
static int tm_init(tm_memo *m, uint32_t n) {
    uint32_t texts = n < TM_TEXTS ? n : TM_TEXTS, cap = 16;
    while (cap < 2 * texts)
        cap *= 2;
#if defined(__x86_64__) && defined(__GNUC__)
    m->crc = __builtin_cpu_supports("sse4.2");
#endif
    m->s = malloc((size_t)cap * sizeof *m->s + (size_t)texts * TM_TEXT_MAX);
    if (!m->s)
        return -1;
    memset(m->s, 0, (size_t)cap * sizeof *m->s);
    m->pool = (char *)(m->s + cap);
    m->mask = cap - 1;
    m->room = texts;
    return 0;
}

/* The slot of e's text in m: its entry, or the empty slot where it goes
 * (at most half the table is used: never full). */
static tm_slot *tm_find(const tm_memo *m, const exdb_json *e, uint64_t h) {
    for (uint32_t i = (uint32_t)h & m->mask;; i = (i + 1) & m->mask) {
        tm_slot *s = &m->s[i];
        if (!s->text || (s->h == h && s->len == e->len && memcmp(s->text, e->u.str, e->len) == 0))
            return s;
    }
}

/* tensor_meta_text through m: a text read before gives a new val of the
 * same tensor meta. */
static int tensor_meta_memo(loader *L, tm_memo *m, const exdb_json *e, exdb_val **out) {
    if (e->len > TM_TEXT_MAX || (m->n == m->room && 2 * m->found < m->seen))
        return tensor_meta_text(L, e, out);
    uint64_t h = tm_hash(m, e);
    tm_slot *s = tm_find(m, e, h);
    m->seen++;
    if (s->text) {
        m->found++;
        exdb_val *v = exdb_arena_calloc(L->a, 1, sizeof *v);
        if (!v)
            return exdb_load_oom(L);
        v->kind = EXDB_VAL_TENSOR;
        v->u.t = s->t;
        *out = v;
        return 1;
    }
    int read = tensor_meta_text(L, e, out);
    if (read == 1 && m->n < m->room) {
        char *copy = m->pool + m->used; /* room for TM_TEXT_MAX bytes a text */
        m->used += e->len;
        m->n++;
        memcpy(copy, e->u.str, e->len);
        *s = (tm_slot){copy, e->len, h, (*out)->u.t};
    }
    return read;
}

/* XXH3, 64 bits: the fingerprint no_repeats compares (never 0); FNV-1a's
 * byte loop took ~5 instructions a byte of every name. */
static uint64_t fp64(const char *k) {
    uint64_t h = XXH3_64bits(k, strlen(k));
    return h ? h : 1;
}

/* Whether no two of sc's table entries can have one name: their 64-bit
 * fingerprints are all different (a set of 8 bytes a name, not a table of
 * keys: no string is compared). 0 when two are equal (a repeated name, or
 * once in billions two names), and then exdb_load_value_find asks the
 * hashed index for every name; -1 when memory runs out. */
static int no_repeats(loader *L, const gscope *sc) {
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)sc->mcount)
        cap *= 2;
    uint64_t *set = calloc((size_t)cap, sizeof *set);
    if (!set)
        return exdb_load_oom(L);
    int unique = 1;
    for (uint32_t i = 0; i < sc->mcount && unique; i++) {
        uint64_t h = fp64(sc->mkey[i]);
        uint64_t j = h & (cap - 1);
        while (set[j] && set[j] != h)
            j = (j + 1) & (cap - 1);
        unique = !set[j];
        set[j] = h;
    }
    free(set);
    return unique;
}

/* sc->metas: every table entry's name -> its index + 1, the last of
 * repeated names winning (json.loads' dict, and a later table's entry over
 * an earlier table's, as the loader always read them). */
static int index_metas(loader *L, gscope *sc) {
    if (exdb_strmap_reserve(&sc->metas, sc->mcount) < 0)
        return exdb_load_oom(L);
    for (uint32_t i = 0; i < sc->mcount; i++) {
        void **slot = exdb_strmap_put(&sc->metas, sc->mkey[i], NULL);
        if (!slot)
            return exdb_load_oom(L);
        *slot = (void *)(uintptr_t)(i + 1);
    }
    sc->mindexed = 1;
    return 0;
}

int exdb_load_value_find(loader *L, gscope *sc, const char *name, exdb_val **out) {
    *out = NULL;
    /* the next entry in file order: exact when no name repeats */
    /* the names are read in file order, far from the nodes' text: ask for
     * a later one now (a cache miss per node at 1M nodes) */
    if (sc->mnext + 16 < sc->mcount)
        __builtin_prefetch(sc->mkey[sc->mnext + 16]);
    if (!sc->mdup && sc->mnext < sc->mcount && strcmp(sc->mkey[sc->mnext], name) == 0) {
        *out = sc->mval[sc->mnext++];
        return 0;
    }
    if (!sc->mcount)
        return 0;
    if (!sc->mindexed && index_metas(L, sc) < 0)
        return -1;
    void *ix = exdb_strmap_get(&sc->metas, name);
    if (ix) {
        uint32_t i = (uint32_t)((uintptr_t)ix - 1);
        *out = sc->mval[i];
        sc->mnext = i + 1; /* in order again from there */
    }
    return 0;
}

/* A graph's value tables, in the order they are read. */
static const char *const tables[] = {"tensor_values", "sym_int_values", "sym_float_values",
                                     "sym_bool_values", "custom_obj_values"};

static int load_tables(loader *L, gscope *sc, const jpath *gp, tm_memo *memo);

/* Reads the graph's value tables into sc->mkey and sc->mval. */
int exdb_load_value_tables(loader *L, gscope *sc, const jpath *gp) {
    uint32_t total = 0;
    for (int t = 0; t < 5; t++) {
        const exdb_json *m = exdb_load_get_opt(sc->jgraph, tables[t]);
        total += exdb_json_is(m, EXDB_JOBJECT) ? m->len : 0;
    }
    /* none: no table at all (a subgraph's tables are often empty, and an
     * empty table still costs 16 slots) */
    if (total) {
        sc->mkey = exdb_arena_alloc(L->a, (size_t)total * sizeof *sc->mkey);
        sc->mval = exdb_arena_alloc(L->a, (size_t)total * sizeof *sc->mval);
        if (!sc->mkey || !sc->mval)
            return exdb_load_oom(L);
    }
    tm_memo memo = {0};
    int rc = load_tables(L, sc, gp, &memo);
    free(memo.s);
    if (rc < 0)
        return -1;
    if (sc->mcount > 1) {
        int unique = no_repeats(L, sc);
        if (unique < 0)
            return -1;
        sc->mdup = !unique;
    }
    return 0;
}

/* exdb_load_value_tables' reading of the five tables, TensorMeta texts
 * through memo (allocated here, freed by the caller). */
static int load_tables(loader *L, gscope *sc, const jpath *gp, tm_memo *memo) {
    for (int t = 0; t < 5; t++) {
        const exdb_json *m = exdb_load_get_opt(sc->jgraph, tables[t]);
        if (!m)
            continue;
        if (t == 0 && exdb_json_is(m, EXDB_JOBJECT) && m->len > 1) {
            if (tm_init(memo, m->len) < 0)
                return exdb_load_oom(L);
        }
        jpath tp = PKEY(gp, tables[t]);
        if (exdb_load_need_obj(L, m, &tp) < 0)
            return -1;
        for (uint32_t i = 0; i < m->len; i++) {
            const exdb_json *e = &m->u.kids[i];
            jpath ep = PKEY(&tp, e->key);
            exdb_val *v = NULL;
            exdb_json parsed;
            int read = 0;
            if (e->type == EXDB_JRAW)
                exdb_load_drop_behind(L, e->u.str);
            if (t == 0 && e->type == EXDB_JRAW && !exdb_json_ahead_owns(L->ahead, e) &&
                (read = memo->s ? tensor_meta_memo(L, memo, e, &v) : tensor_meta_text(L, e, &v)) <
                    0)
                return -1;
            if (read) {
                /* read off its text */
            } else if (!(e = exdb_load_table_entry(L, e, &parsed))) {
                return -1;
            } else if (t == 0) {
                if (parse_tensor_meta(L, e, &ep, &v) < 0)
                    return -1;
            } else if (t == 4) {
                v = exdb_arena_calloc(L->a, 1, sizeof *v);
                if (!v)
                    return exdb_load_oom(L);
                v->kind = EXDB_VAL_CUSTOM_OBJ;
                if (exdb_load_need_obj(L, e, &ep) < 0 ||
                    exdb_load_get_str(L, e, "class_fqn", &ep, &v->u.s) < 0)
                    return -1;
            } else {
                v = exdb_arena_calloc(L->a, 1, sizeof *v);
                if (!v)
                    return exdb_load_oom(L);
                v->kind = t == 1 ? EXDB_VAL_SYMINT : t == 2 ? EXDB_VAL_SYMFLOAT : EXDB_VAL_SYMBOOL;
                if (parse_sym(L, e, &ep, t - 1, &v->u.sym) < 0)
                    return -1;
            }
            sc->mkey[sc->mcount] = e->key;
            sc->mval[sc->mcount++] = v;
        }
    }
    return 0;
}
