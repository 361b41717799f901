/* load_meta.c - see load_meta.h. */
#include "core/export/load_meta.h"

#include "core/base/filemap.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

/* The call index of entry k: the number after its key's last '@' (0 when
 * there is none). */
static int call_index(exdb_stack_entry *e, uint32_t k, exdb_error *err) {
    const char *at = strrchr(e->key, '@');
    e->call_idx = 0;
    if (!at)
        return 0;
    long v = 0;
    const char *d = at + 1;
    for (; *d >= '0' && *d <= '9' && v <= 1000000000; d++)
        v = v * 10 + (*d - '0');
    if (d == at + 1 || *d || v > 1000000000)
        return exdb_errorf(err,
                           "entry %u: key \"%.*s\": expected a call index (a number) "
                           "after its last '@'",
                           k, (int)(strlen(e->key) > 120 ? 120 : strlen(e->key)), e->key);
    e->call_idx = (int)v;
    return 0;
}

/* Entry k, s[0..end), into e: three fields split at the commas outside
 * ()/[], each within EXDB_MAX_NAME_BYTES, a path of at most
 * EXDB_MAX_MODULE_DEPTH components. */
static int parse_entry(exdb_arena *a, const char *s, const char *end, uint32_t k,
                       exdb_stack_entry *e, exdb_error *err) {
    int shown = (int)(end - s > 120 ? 120 : end - s);
    const char *more = end - s > 120 ? "..." : "";
    if (end == s)
        return exdb_errorf(err, "entry %u is empty: expected \"key,path,type\"", k);
    const char *cut[2];
    int ncut = 0, depth = 0;
    /* *end is ';' or the NUL: strcspn (vectorised in the C library) stops
     * at the next bracket or comma, or at end */
    for (const char *q = s + strcspn(s, "()[],;"); q < end; q = q + 1 + strcspn(q + 1, "()[],;")) {
        if (*q == '(' || *q == '[')
            depth++;
        else if (*q == ')' || *q == ']')
            depth--;
        else if (*q == ',' && depth == 0) {
            if (ncut == 2)
                return exdb_errorf(err,
                                   "entry %u (\"%.*s%s\"): expected 3 fields \"key,path,type\" "
                                   "(split at commas outside brackets), found more",
                                   k, shown, s, more);
            cut[ncut++] = q;
        }
    }
    if (ncut != 2)
        return exdb_errorf(err,
                           "entry %u (\"%.*s%s\"): expected 3 fields \"key,path,type\" (split "
                           "at commas outside brackets), found %d",
                           k, shown, s, more, ncut + 1);
    const char *fstart[3] = {s, cut[0] + 1, cut[1] + 1};
    const char *fend[3] = {cut[0], cut[1], end};
    static const char *const fname[3] = {"key", "path", "type"};
    for (int f = 0; f < 3; f++)
        if (fend[f] - fstart[f] > EXDB_MAX_NAME_BYTES)
            return exdb_errorf(err,
                               "entry %u: %s longer than the limit of %d bytes for names "
                               "(%zu bytes)",
                               k, fname[f], EXDB_MAX_NAME_BYTES, (size_t)(fend[f] - fstart[f]));
    uint32_t levels = cut[1] > cut[0] + 1;
    for (const char *q = cut[0] + 1; q < cut[1]; q++)
        levels += *q == '.';
    if (levels > EXDB_MAX_MODULE_DEPTH)
        return exdb_errorf(err,
                           "entry %u: path of %u components: modules nested deeper than the "
                           "limit of %d levels",
                           k, levels, EXDB_MAX_MODULE_DEPTH);
    /* one copy of the entry, its two commas made the fields' ends */
    char *c = exdb_arena_strndup(a, s, (size_t)(end - s));
    if (!c)
        return exdb_errorf(err, "out of memory");
    c[cut[0] - s] = c[cut[1] - s] = '\0';
    e->key = c;
    e->path = c + (cut[0] - s) + 1;
    e->type = c + (cut[1] - s) + 1;
    return call_index(e, k, err);
}

/* nn_module_stack "key,path,type;key,path,type..." (docs/pt2-format.md §9.1), split
 * as serialize.py's metadata_split does: entries at every ';', fields at
 * commas outside ()/[] (the depth goes negative on a stray closer, as in
 * Python, and then no later comma splits), exactly three fields. The call
 * index is the number after the key's last '@' (what unflatten reads). */
static int parse_stack_after(exdb_arena *a, const char *text, size_t len,
                             const exdb_stack_entry *same, uint32_t nsame, size_t skip,
                             exdb_stack_entry **out, uint32_t *n, exdb_error *err);

int exdb_load_meta_parse_stack(exdb_arena *a, const char *text, exdb_stack_entry **out, uint32_t *n,
                               exdb_error *err) {
    return parse_stack_after(a, text, strlen(text), NULL, 0, 0, out, n, err);
}

/* The length of the common prefix of s[0..ls) and t[0..lt), sixteen
 * bytes a step, then eight (stacks are ~500 bytes and mostly share all but
 * their last entry with the previous node's). */
static size_t common_prefix(const char *s, size_t ls, const char *t, size_t lt) {
    size_t n = ls < lt ? ls : lt, i = 0;
    uint64_t x, y;
#ifdef __SSE2__
    for (; i + 16 <= n; i += 16) { /* sixteen bytes a step first */
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(t + i));
        unsigned ne = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) ^ 0xFFFFu;
        if (ne)
            return i + (size_t)__builtin_ctz(ne);
    }
#endif
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        memcpy(&y, t + i, 8);
        if (x != y)
            return i + (size_t)__builtin_ctzll(x ^ y) / 8;
    }
    while (i < n && s[i] == t[i])
        i++;
    return i;
}

/* How many of text's first entries are, character for character, entries
 * of prev, a stack parsed before, given their common prefix of i bytes;
 * *skip: where the entry after them starts in text. */
static uint32_t same_entries(const char *text, const char *prev, size_t i, size_t *skip) {
    uint32_t m = 0;
    *skip = 0;
    for (const char *q = memchr(text, ';', i); q;
         q = memchr(q + 1, ';', i - (size_t)(q + 1 - text))) {
        m++;
        *skip = (size_t)(q + 1 - text);
    }
    /* the entry ending here, when it ends both (at ';' or the end) */
    if (i && (text[i] == ';' || !text[i]) && (prev[i] == ';' || !prev[i])) {
        m++;
        *skip = text[i] ? i + 1 : i;
    }
    return m;
}

/* exdb_load_meta_parse_stack of text (len bytes) with its first nsame
 * entries, which end at text[skip], known to be same[0..nsame) (checked
 * when those were parsed): copied, not parsed again. */
static int parse_stack_after(exdb_arena *a, const char *text, size_t len,
                             const exdb_stack_entry *same, uint32_t nsame, size_t skip,
                             exdb_stack_entry **out, uint32_t *n, exdb_error *err) {
    *out = NULL;
    *n = 0;
    if (!len)
        return 0;
    /* the ';' before skip are not looked for: each of the nsame entries
     * ends with one, but for the last when skip is the end and no ';' is */
    uint32_t count = nsame ? nsame + 1 - (skip == len && text[len - 1] != ';') : 1;
    const char *from = text + skip;
    for (const char *q = memchr(from, ';', len - skip); q;
         q = memchr(q + 1, ';', len - (size_t)(q + 1 - text)))
        count++;
    if (count > EXDB_MAX_MODULE_DEPTH)
        return exdb_errorf(err,
                           "%u entries: modules nested deeper than the limit of %d levels "
                           "(expected at most %d entries)",
                           count, EXDB_MAX_MODULE_DEPTH, EXDB_MAX_MODULE_DEPTH);
    exdb_stack_entry *e = exdb_arena_alloc(a, count * sizeof *e);
    if (!e)
        return exdb_errorf(err, "out of memory");
    if (nsame)
        memcpy(e, same, nsame * sizeof *e);
    const char *s = text + skip, *stop = text + len;
    for (uint32_t k = nsame; k < count; k++) {
        const char *end = memchr(s, ';', (size_t)(stop - s));
        if (!end)
            end = stop;
        if (parse_entry(a, s, end, k, &e[k], err) < 0)
            return -1;
        s = end < stop ? end + 1 : end;
    }
    *out = e;
    *n = count;
    return 0;
}

/* The metadata keys PyTorch reads, by the first letter (one strcmp or
 * two, not a chain of seven: every node has several). */
enum { MK_OTHER, MK_STACK, MK_TRACE, MK_SOURCE_FN, MK_TORCH_FN, MK_CUSTOM, MK_FROM_NODE };
static int meta_key(const char *k) {
    switch (k[0]) {
    case 'n':
        return exdb_json_key_is(k, "nn_module_stack") ? MK_STACK : MK_OTHER;
    case 's':
        return exdb_json_key_is(k, "stack_trace") ? MK_TRACE
               : exdb_json_key_is(k, "source_fn_stack") || exdb_json_key_is(k, "source_fn")
                   ? MK_SOURCE_FN
                   : MK_OTHER;
    case 't':
        return exdb_json_key_is(k, "torch_fn") ? MK_TORCH_FN : MK_OTHER;
    case 'c':
        return exdb_json_key_is(k, "custom") ? MK_CUSTOM : MK_OTHER;
    case 'f':
        return exdb_json_key_is(k, "from_node") ? MK_FROM_NODE : MK_OTHER;
    default:
        return MK_OTHER;
    }
}

static int is_known_meta_key(const char *k) {
    return meta_key(k) != MK_OTHER;
}

/* meta's nn_module_stack v (len bytes, at p; v need not end there: raw
 * text json.c left), parsed once per distinct string (the previous
 * node's checked first) and its modules counted against the limits. */
static int module_stack(loader *L, exdb_meta *meta, const char *v, size_t len, const jpath *p) {
    const parsed_stack *prev = L->last_stack;
    size_t common = prev ? common_prefix(v, len, prev->text, prev->len) : 0;
    if (!prev || common != len || prev->len != len) {
        /* v may live with its node's DOM or be the text's
         * (EXDB_JRAW_DEFER): the table keeps a copy of each distinct stack */
        uint32_t h = exdb_strmap_hash_n(v, len);
        void **found = exdb_strmap_find_hashed_n(&L->stacks, v, len, h);
        parsed_stack *ps = found ? *found : NULL;
        if (!ps) {
            exdb_error e2 = {0};
            ps = exdb_arena_alloc(L->a, sizeof *ps);
            if (!ps || !(ps->text = exdb_arena_strndup(L->a, v, len)))
                return exdb_load_oom(L);
            ps->len = (uint32_t)len;
            /* the entries it shares with the previous node's stack (their
             * modules counted) are copied */
            size_t skip = 0;
            uint32_t nsame = prev ? same_entries(ps->text, prev->text, common, &skip) : 0;
            if (prev && nsame > prev->n) /* never: parsed in full then */
                nsame = 0, skip = 0;
            /* a failed parse ends the load, so the half-made entry is never read */
            if (parse_stack_after(L->a, ps->text, len, nsame ? prev->entries : NULL, nsame, skip,
                                  &ps->entries, &ps->n, &e2) < 0)
                return exdb_load_fail(L, p, "%s", e2.msg);
            for (uint32_t j = nsame; j < ps->n; j++)
                if (exdb_load_count_module(L, ps->entries[j].path, strlen(ps->entries[j].path), p) <
                    0)
                    return -1;
            void **slot = exdb_strmap_put_hashed(&L->stacks, ps->text, h, NULL);
            if (!slot)
                return exdb_load_oom(L);
            *slot = ps;
        }
        L->last_stack = ps;
    }
    meta->stack = L->last_stack->entries;
    meta->nstack = L->last_stack->n;
    meta->has_stack = meta->nstack > 0;
    meta->nn_module_stack = L->last_stack->text;
    return 0;
}

/* A string value, parsed or left unparsed (EXDB_JRAW_DEFER). */
static int is_text(const exdb_json *e) {
    return e->type == EXDB_JSTRING || e->type == EXDB_JRAW;
}

/* meta->lazy_extra: the nextra string members of m that PyTorch does not
 * read. */
static int extras(loader *L, exdb_meta *meta, const exdb_json *m, uint32_t nextra) {
    exdb_kv *kv = exdb_arena_alloc(L->a, nextra * sizeof *kv);
    if (!kv)
        return exdb_load_oom(L);
    uint32_t w = 0;
    for (uint32_t i = 0; i < m->len; i++) {
        const exdb_json *e = &m->u.kids[i];
        if (!is_known_meta_key(e->key) && is_text(e)) {
            kv[w].key = e->key;
            kv[w].value = e->u.str;
            w++;
        }
    }
    meta->lazy_extra = kv;
    meta->nextra = nextra;
    return 0;
}

/* The slot of d's memo for quote (its entry, or the empty slot where it
 * would go); NULL when the memo is empty. */
static exdb_meta_memo *memo_slot(const exdb_meta_defer *d, const char *quote) {
    if (!d->memo_cap)
        return NULL;
    uint32_t mask = d->memo_cap - 1;
    uint32_t i = (uint32_t)(((uintptr_t)quote * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    while (d->memo[i].quote && d->memo[i].quote != quote)
        i = (i + 1) & mask;
    return &d->memo[i];
}

/* Remembers s (NULL: refused) as the string at quote; when memory runs out
 * it is not remembered, and the next read reads it again. */
static void memo_put(exdb_meta_defer *d, const char *quote, const char *s) {
    if (2 * (d->nmemo + 1) > d->memo_cap) {
        uint32_t ncap = d->memo_cap ? 2 * d->memo_cap : 64;
        exdb_meta_memo *old = d->memo, *nm = ncap > d->memo_cap ? calloc(ncap, sizeof *nm) : NULL;
        if (!nm)
            return;
        uint32_t ocap = d->memo_cap;
        d->memo = nm;
        d->memo_cap = ncap;
        for (uint32_t i = 0; i < ocap; i++)
            if (old[i].quote)
                *memo_slot(d, old[i].quote) = old[i];
        free(old);
    }
    exdb_meta_memo *m = memo_slot(d, quote);
    if (!m->quote)
        d->nmemo++;
    m->quote = quote;
    m->s = s;
}

/* A refused string's message, read again. */
static const char *meta_refused(exdb_meta_defer *d, const char *quote) {
    d->err = d->failed_err;
    for (const exdb_meta_fail *f = d->fails; f; f = f->next)
        if (f->quote == quote)
            d->err = f->err;
    d->pending = 1;
    return NULL;
}

/* A field refused at its first read (its message e): remembered with
 * it, and the first refusal kept for exdb_program_meta_error. NULL. */
static const char *meta_fail(exdb_meta_defer *d, const char *quote, const exdb_error *e) {
    if (!d->failed) {
        d->failed = quote;
        d->failed_err = *e;
    }
    exdb_meta_fail *f = malloc(sizeof *f);
    if (f) {
        f->quote = quote;
        f->err = *e;
        f->next = d->fails;
        d->fails = f;
    }
    memo_put(d, quote, NULL);
    d->err = *e;
    d->pending = 1;
    return NULL;
}

/* First reads between two calls giving a mapped text's pages back. */
#define DROP_READS 4096

/* exdb_meta_defer's read (the accessors' slow path): the string at quote,
 * metadata key `key` of serialized node src, parsed and checked as the
 * load would have (exdb_json_string_at, exdb_load_check_text) into d's
 * arena on its first read, then remembered (d->memo; a refused one with
 * its message). The text is never written. NULL and d->pending on an
 * error. */
const char *exdb_load_meta_read(exdb_meta_defer *d, const char *quote, int32_t src,
                                const char *key) {
    exdb_meta_memo *m = memo_slot(d, quote);
    if (m && m->quote)
        return m->s ? m->s : meta_refused(d, quote);
    const char *s;
    uint32_t n;
    exdb_error e = {0};
    jpath gm = PKEY(NULL, "graph_module"), g = PKEY(&gm, "graph"), ns = PKEY(&g, "nodes");
    jpath np = PIDX(&ns, src), mp = PKEY(&np, "metadata"), kp = PKEY(&mp, key);
    exdb_jstrings pool = {d->arena, NULL, d->pool, d->pool_end};
    int quoted = *quote == '"'; /* read once: what is checked is what was read */
    int rc = quoted ? exdb_json_string_at(quote, d->end, d->text, &pool, d->fname, &s, &n, &e) : -1;
    d->pool = pool.p;
    d->pool_end = pool.end;
    if (exdb_filemap_changed(d->text)) {
        /* the text is a mapping of a file truncated or rewritten since
         * (core/base/filemap.h): what was read is not the program's */
        exdb_error_clear(&d->err);
        exdb_errorf(&d->err, "%s changed on disk since it was loaded; load it again", d->fname);
        d->pending = 1;
        return NULL;
    }
    if (!quoted) {
        /* never where the loader found it (the offsets are its own), nor
         * in a file changed since (said above): one a reopen cache's IR
         * entry gave (cache_ir.h) for a text whose hash is the entry's,
         * so the entry was forged or damaged; said at first read, so that
         * no put-back touches every page of the text to prove each */
        char where[512];
        exdb_load_path_fmt(&kp, where, sizeof where);
        exdb_errorf(&e,
                    "%s: %s: no string at byte %zu of the text, where the reopen cache's entry "
                    "said one is (a forged or damaged entry: open it with --no-cache)",
                    d->fname, where, (size_t)(quote - d->text));
        return meta_fail(d, quote, &e);
    }
    if (rc < 0) {
        /* "FILE: line 1, column C: what" as the load would have said it,
         * the JSON path inserted: the command that found it may be far
         * from the load */
        char where[512];
        size_t fl = strlen(d->fname);
        exdb_load_path_fmt(&kp, where, sizeof where);
        if (strncmp(e.msg, d->fname, fl) == 0 && strncmp(e.msg + fl, ": ", 2) == 0 &&
            strncmp(e.msg + fl + 2, "line ", 5) == 0)
            exdb_errorf(&d->err, "%s: %s: %s", d->fname, where, e.msg + fl + 2);
        else
            d->err = e;
        d->pending = 1;
        return NULL;
    }
    loader L = {.fname = d->fname, .err = &e};
    if (exdb_load_check_text(&L, s, n, &kp) < 0)
        return meta_fail(d, quote, &e);
    memo_put(d, quote, s);
    if (++d->reads >= DROP_READS) {
        /* what was read is decoded and remembered: a command reading
         * every node's metadata keeps no more of the text than this */
        d->reads = 0;
        exdb_filemap_drop(d->text, d->text, d->end);
    }
    return s;
}

/* meta's text fields were left unparsed (EXDB_JRAW_DEFER: only the main
 * graph's nodes, p being $...nodes[i].metadata): they are read through
 * L's program's exdb_meta_defer. */
static void defer(loader *L, exdb_meta *meta, const jpath *p) {
    meta->defer = &L->prog->meta_defer;
    meta->defer_src = p->up ? (int32_t)p->up->idx : -1;
}

/* Node.metadata (str -> str, docs/pt2-format.md §9). The keys PyTorch reads must
 * be strings; other keys are kept as extras when they are strings and
 * skipped otherwise (PyTorch ignores them). An empty nn_module_stack is no
 * stack, as in deserialize_metadata. */
int exdb_load_meta(loader *L, const exdb_json *m, const jpath *p, exdb_meta **out) {
    exdb_meta *meta = exdb_arena_calloc(L->a, 1, sizeof *meta);
    if (!meta)
        return exdb_load_oom(L);
    *out = meta;
    if (!m)
        return 0;
    if (exdb_load_need_obj(L, m, p) < 0)
        return -1;
    uint32_t nextra = 0;
    for (uint32_t i = 0; i < m->len; i++) {
        const exdb_json *e = &m->u.kids[i];
        jpath ep = PKEY(p, e->key);
        const char *k = e->key;
        int id = meta_key(k);
        if (e->type == EXDB_JRAW && id != MK_STACK) /* left unparsed (EXDB_JRAW_DEFER) */
            defer(L, meta, p);
        if (id == MK_OTHER) {
            if (is_text(e) && (exdb_load_check_key(L, k, p) < 0 ||
                               (e->type == EXDB_JSTRING && exdb_load_check_str(L, e, &ep) < 0)))
                return -1;
            nextra += is_text(e);
            continue;
        }
        if (e->type == EXDB_JNULL)
            continue;
        if (!is_text(e))
            return exdb_load_type_fail(L, e, &ep, "a string");
        if (e->type == EXDB_JSTRING && exdb_load_check_str(L, e, &ep) < 0)
            return -1;
        const char *v = e->u.str;
        if (id == MK_STACK) {
            /* raw: json.c left it, its quotes around text that is its value
             * (ASCII, no backslash, no control byte) */
            int raw = e->type == EXDB_JRAW;
            if (module_stack(L, meta, v + raw, raw ? e->len - 2 : e->len, &ep) < 0)
                return -1;
        } else if (id == MK_TRACE) {
            meta->lazy_stack_trace = v;
        } else if (id == MK_SOURCE_FN) {
            meta->lazy_source_fn_stack = v;
        } else if (id == MK_TORCH_FN) {
            meta->lazy_torch_fn = v;
        } else if (id == MK_CUSTOM) {
            meta->custom = v;
        } else {
            meta->lazy_from_node = v;
        }
    }
    if (nextra && extras(L, meta, m, nextra) < 0)
        return -1;
    return 0;
}

void exdb_load_meta_defer_on(exdb_program *p, const char *fname) {
    exdb_meta_defer *d = &p->meta_defer;
    d->read = exdb_load_meta_read;
    d->text = p->buf;
    d->end = p->buf + p->json_bytes;
    d->arena = &p->text_arena;
    d->fname = fname;
}
