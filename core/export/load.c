/* load.c - see load.h: the loader's messages, text checks, limits and typed
 * accessors. */
#include "core/export/load.h"

#include "core/base/filemap.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

int exdb_load_fail(loader *L, const jpath *p, const char *fmt, ...) {
    char where[700];
    size_t n = (size_t)snprintf(where, sizeof where, "%s: ", L->fname);
    exdb_load_path_fmt(p, where + (n < sizeof where ? n : 0),
                       n < sizeof where ? sizeof where - n : sizeof where);
    va_list ap;
    va_start(ap, fmt);
    int rc = exdb_verrorf_at(L->err, where, fmt, ap);
    va_end(ap);
    return rc;
}

int exdb_load_oom(loader *L) {
    return exdb_errorf(L->err, "%s: out of memory", L->fname);
}

/* Where s[0..n) stops being UTF-8 text without U+0000: the offset of a NUL,
 * of a malformed, overlong or cut sequence, a surrogate (a lone \ud800
 * escape decodes to one) or a code point beyond U+10FFFF; n when there is
 * none. ASCII goes eight bytes at a time: stack traces are most of a
 * program's text. */
static size_t text_end(const unsigned char *s, size_t n) {
    size_t i = 0;
#ifdef __SSE2__
    for (; n - i >= 16; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        if (_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_setzero_si128()))))
            break; /* a byte above 0x7f or a NUL: the loop below finds it */
    }
#endif
    while (i < n) {
        uint64_t w;
        if (n - i >= 8 &&
            (memcpy(&w, s + i, 8), !(((w - 0x0101010101010101ULL) | w) & 0x8080808080808080ULL))) {
            i += 8;
            continue;
        }
        unsigned c = s[i];
        if (c == 0)
            return i;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
        if (c < 0xC2 || c > 0xF4 || n - i <= k)
            return i;
        unsigned cp = c & (0x3F >> k);
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return i;
            cp = cp << 6 | (s[i + j] & 0x3Fu);
        }
        if ((k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return i;
        i += k + 1;
    }
    return n;
}

/* Whether s lies in the text of a table entry found clean (clean_lo), or
 * the loader reads a clean root DOM (exdb_load_root_begin). */
static int in_clean(const loader *L, const char *s) {
    return (uintptr_t)s - (uintptr_t)L->clean_lo < (uintptr_t)L->clean_hi - (uintptr_t)L->clean_lo;
}

/* Refuses a string the loader keeps (a name, target, argument, metadata)
 * that holds U+0000 or is not UTF-8. exdb's strings end at U+0000, so
 * "x\u0000junk" silently read as x; bytes that are not UTF-8 made renders
 * that are not well-formed XML (SVG, HTML). PyTorch refuses both: it
 * decodes the file as UTF-8, and a name with U+0000 is no identifier. */
static int check_text_fail(loader *L, const char *s, size_t n, size_t at, const jpath *p);

int exdb_load_check_text(loader *L, const char *s, size_t n, const jpath *p) {
    if (in_clean(L, s))
        return 0;
    size_t at = text_end((const unsigned char *)s, n);
    return at == n ? 0 : check_text_fail(L, s, n, at, p);
}

/* exdb_load_check_text's refusal of s, bad from byte at (out of line: its
 * message buffer is not set up on every check). */
static __attribute__((noinline, cold)) int check_text_fail(loader *L, const char *s, size_t n,
                                                           size_t at, const jpath *p) {
    char q[QS];
    if (s[at] == 0)
        return exdb_load_fail(L, p, "expected a string without \\u0000 (U+0000), found %s",
                              exdb_load_path_quote_raw(q, sizeof q, s, n));
    int sur = (unsigned char)s[at] == 0xED && at + 1 < n && (unsigned char)s[at + 1] >= 0xA0;
    return exdb_load_fail(L, p, "expected UTF-8 text, found %s (not UTF-8 from byte %zu%s)",
                          exdb_load_path_quote_raw(q, sizeof q, s, n), at,
                          sur ? ": a surrogate, a \\ud800-\\udfff escape without its pair" : "");
}

/* exdb_load_check_text of a JSON string value. */
int exdb_load_check_str(loader *L, const exdb_json *v, const jpath *p) {
    return exdb_load_check_text(L, v->u.str, v->len, p);
}

/* exdb_load_check_text of an object key the loader keeps (the parser refuses keys
 * holding U+0000), reported at the object p: a path holding the key would
 * not be UTF-8 either. */
int exdb_load_check_key(loader *L, const char *k, const jpath *p) {
    if (in_clean(L, k))
        return 0;
    size_t n = strlen(k), at = text_end((const unsigned char *)k, n);
    char q[QS];
    if (at == n)
        return 0;
    return exdb_load_fail(L, p, "expected keys of UTF-8 text, found %s (not UTF-8 from byte %zu)",
                          exdb_load_path_quote_raw(q, sizeof q, k, n), at);
}

/* A name (value, node, target, fqn) within EXDB_MAX_NAME_BYTES; `what` says
 * which in the message. Bounded scan: a huge name costs no more than the
 * limit. */
int exdb_load_check_name(loader *L, const char *s, const jpath *p, const char *what) {
    size_t n = strnlen(s, (size_t)EXDB_MAX_NAME_BYTES + 1);
    if (n <= EXDB_MAX_NAME_BYTES)
        return 0;
    return exdb_load_fail(L, p, "%s longer than the limit of %d bytes for names (%zu bytes)", what,
                          EXDB_MAX_NAME_BYTES, strlen(s));
}

/* Counts module fqn (and its parents "a", "a.b" of "a.b.c", which unflatten
 * creates too) against EXDB_MAX_MODULES and EXDB_MAX_MODULE_BYTES. A parent already counted means
 * its own parents are, so each fqn costs its length once. */
int exdb_load_count_module(loader *L, const char *fqn, size_t len, const jpath *p) {
    /* counted already, with its parents (the usual case: every node's
     * stack names its module): no copy made to look it up */
    if (!len)
        return 0;
    uint32_t h = exdb_strmap_hash_n(fqn, len); /* hashed once for find and put */
    int whole = fqn[len] == '\0';
    if (whole && exdb_strmap_find_hashed(&L->modules, fqn, h))
        return 0;
    while (len) {
        /* the whole fqn is its own key (it outlives the table); a parent
         * is a copy */
        const char *key = whole ? fqn : exdb_arena_strndup(L->modules.a, fqn, len);
        int fresh;
        if (!key || !exdb_strmap_put_hashed(&L->modules, key, h, &fresh))
            return exdb_load_oom(L);
        if (!fresh)
            return 0;
        if (L->modules.count > EXDB_MAX_MODULES)
            return exdb_load_fail(L, p,
                                  "more than %d distinct modules (module fqns and their parents in "
                                  "nn_module_stack and module_call_graph), the limit",
                                  EXDB_MAX_MODULES);
        L->module_bytes += len + 1;
        if (L->module_bytes > EXDB_MAX_MODULE_BYTES)
            return exdb_load_fail(L, p,
                                  "module fqns and their parents (in nn_module_stack and "
                                  "module_call_graph) take more than the limit of %zu MiB",
                                  EXDB_MAX_MODULE_BYTES >> 20);
        while (len && fqn[len - 1] != '.')
            len--;
        if (len)
            len--; /* drop the dot */
        whole = 0;
        h = len ? exdb_strmap_hash_n(fqn, len) : 0;
    }
    return 0;
}

/* ---- typed accessors (see load.h) */

const exdb_json *exdb_load_get_opt(const exdb_json *obj, const char *key) {
    const exdb_json *v = exdb_json_get(obj, key);
    return (v && v->type == EXDB_JNULL) ? NULL : v;
}

/* The message for a required value that is absent (v NULL) or of the wrong
 * type: `PARENT: missing key "k"` when p is a key step, else `P: expected
 * WHAT, found TYPE`. */
int exdb_load_type_fail(loader *L, const exdb_json *v, const jpath *p, const char *what) {
    if (!v && p && p->key)
        return exdb_load_fail(L, p->up, "missing key \"%s\" (expected %s)", p->key, what);
    return exdb_load_fail(L, p, "expected %s, found %s", what, exdb_json_type_name(v));
}

int exdb_load_need_obj(loader *L, const exdb_json *j, const jpath *p) {
    if (!exdb_json_is(j, EXDB_JOBJECT))
        return exdb_load_type_fail(L, j, p, "an object");
    return 0;
}

int exdb_load_need_arr(loader *L, const exdb_json *j, const jpath *p) {
    if (!exdb_json_is(j, EXDB_JARRAY))
        return exdb_load_type_fail(L, j, p, "an array");
    return 0;
}

/* A required string member. */
int exdb_load_get_str(loader *L, const exdb_json *obj, const char *key, const jpath *p,
                      const char **out) {
    const exdb_json *v = exdb_json_get(obj, key);
    jpath kp = PKEY(p, key);
    *out = NULL;
    if (!exdb_json_is(v, EXDB_JSTRING))
        return exdb_load_type_fail(L, v, &kp, "a string");
    if (exdb_load_check_str(L, v, &kp) < 0)
        return -1;
    *out = v->u.str;
    return 0;
}

/* An integer: JSON number text without fraction or exponent that fits int64
 * (what Python's json gives an int for). */
int exdb_load_as_int(loader *L, const exdb_json *v, const jpath *p, int64_t *out) {
    if (!v || v->type != EXDB_JNUMBER)
        return exdb_load_type_fail(L, v, p, "an integer");
    if (exdb_json_int(v, out) == 0)
        return 0;
    int integral = 1;
    for (uint32_t i = 0; i < v->len; i++)
        if (!(v->u.str[i] == '-' || (v->u.str[i] >= '0' && v->u.str[i] <= '9')))
            integral = 0;
    return exdb_load_fail(L, p, "expected %s, found %s%.*s",
                          integral ? "an integer that fits in 64 bits" : "an integer",
                          v->len > 40 ? "..." : "", (int)(v->len > 40 ? 40 : v->len),
                          v->u.str + (v->len > 40 ? v->len - 40 : 0));
}

int exdb_load_as_double(loader *L, const exdb_json *v, const jpath *p, double *out) {
    if (exdb_json_double(v, out) < 0)
        return exdb_load_type_fail(L, v, p, "a number (or \"Infinity\", \"-Infinity\", \"NaN\")");
    return 0;
}

int exdb_load_as_bool(loader *L, const exdb_json *v, const jpath *p, int *out) {
    if (v && v->type == EXDB_JTRUE)
        *out = 1;
    else if (v && v->type == EXDB_JFALSE)
        *out = 0;
    else
        return exdb_load_type_fail(L, v, p, "a boolean");
    return 0;
}

/* Decodes a union: single-key objects (schema >= 5.1), or objects listing
 * every alternative with all but one null (schema <= 4), possibly with
 * "$type"/"$value" keys. *tag gets the variant name, *val its payload.
 * A key repeated in the object counts once (the last one wins, as in
 * Python's json). */
static int get_union_other(loader *L, const exdb_json *u, const jpath *p, const char *what,
                           const char **tag, const exdb_json **val);

int exdb_load_get_union(loader *L, const exdb_json *u, const jpath *p, const char *what,
                        const char **tag, const exdb_json **val) {
    /* one key not starting with '$' (almost every union): that member */
    if (u && u->type == EXDB_JOBJECT && u->len == 1 && u->u.kids[0].key[0] != '$') {
        *tag = u->u.kids[0].key;
        *val = &u->u.kids[0];
        return 0;
    }
    return get_union_other(L, u, p, what, tag, val);
}

/* exdb_load_get_union of any other value: "$type"/"$value", the old
 * encoding's members, or a refusal. */
static __attribute__((noinline)) int get_union_other(loader *L, const exdb_json *u, const jpath *p,
                                                     const char *what, const char **tag,
                                                     const exdb_json **val) {
    char q1[QS], q2[QS];
    if (!exdb_json_is(u, EXDB_JOBJECT)) {
        char w[96];
        snprintf(w, sizeof w, "%s (an object with one key)", what);
        return exdb_load_type_fail(L, u, p, w);
    }
    const exdb_json *t = exdb_json_get(u, "$type");
    if (t && t->type == EXDB_JSTRING) {
        const exdb_json *v = exdb_json_get(u, "$value");
        *tag = t->u.str;
        *val = v ? v : exdb_json_get(u, t->u.str);
        if (!*val)
            return exdb_load_fail(L, p, "%s: \"$type\" is %s but there is no \"$value\"", what,
                                  exdb_load_path_qs(q1, sizeof q1, t->u.str));
        return 0;
    }
    if (u->len == 1) {
        *tag = u->u.kids[0].key;
        *val = &u->u.kids[0];
        return 0;
    }
    /* Old encoding: the one non-null member. (as_none may be the chosen one
     * with an empty-list payload, so prefer any non-null value.) */
    const exdb_json *found = NULL;
    uint32_t nset = 0;
    for (uint32_t i = 0; i < u->len; i++) {
        const exdb_json *k = &u->u.kids[i];
        if (k->type == EXDB_JNULL || k->key[0] == '$' || exdb_json_get(u, k->key) != k)
            continue;
        if (found) {
            if (L->legacy_unions)
                return exdb_load_fail(L, p,
                                      "%s: expected exactly one non-null variant, found %s and %s",
                                      what, exdb_load_path_qs(q1, sizeof q1, found->key),
                                      exdb_load_path_qs(q2, sizeof q2, k->key));
            return exdb_load_fail(L, p, "%s: expected an object with one key, found %s and %s",
                                  what, exdb_load_path_qs(q1, sizeof q1, found->key),
                                  exdb_load_path_qs(q2, sizeof q2, k->key));
        }
        found = k;
        nset++;
    }
    if (!found && exdb_json_get(u, "as_none")) {
        /* schema 2 writes None as "as_none": null beside the other nulls */
        *tag = "as_none";
        *val = exdb_json_get(u, "as_none");
        return 0;
    }
    if (!found)
        return exdb_load_fail(L, p, "%s: expected an object with one key, found %s", what,
                              u->len ? "only null members" : "an empty object");
    *tag = found->key;
    *val = found;
    return 0;
}

int exdb_load_str_list(loader *L, const exdb_json *j, const jpath *p, const char ***out,
                       uint32_t *n) {
    if (exdb_load_need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    if (!*out)
        return exdb_load_oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ep = PIDX(p, i);
        if (!exdb_json_is(&j->u.kids[i], EXDB_JSTRING))
            return exdb_load_fail(L, &ep, "expected a string, found %s",
                                  exdb_json_type_name(&j->u.kids[i]));
        if (exdb_load_check_str(L, &j->u.kids[i], &ep) < 0)
            return -1;
        (*out)[i] = j->u.kids[i].u.str;
    }
    return 0;
}

/* An entry of a table the first pass left unparsed (nodes, tensor_values:
 * see exdb_program_from_json) parsed into *parsed, in L->node_dom in place
 * of the previous entry's; any other value as it is. NULL when memory runs
 * out. */
/* Bytes of table entries loaded between two calls giving their pages back. */
#define DROP_STEP ((size_t)2 << 20)

void exdb_load_drop_behind(loader *L, const char *at) {
    if (!L->dropped || at < L->dropped) {
        L->dropped = at; /* a table of its own */
    } else if ((size_t)(at - L->dropped) >= DROP_STEP) {
        exdb_filemap_drop(L->prog->buf, L->dropped, at);
        L->dropped = at;
    }
}

const exdb_json *exdb_load_root_entry(loader *L, const exdb_json *e, exdb_jstrings *strs,
                                      exdb_json *parsed) {
    if (e->type != EXDB_JRAW)
        return e;
    const char *lo = NULL, *hi = NULL;
    exdb_arena_reset(&L->node_dom);
    if (exdb_json_parse_raw(e, L->prog->buf, &L->node_dom, strs, L->fname, parsed, &lo, &hi,
                            L->err) < 0)
        return NULL;
    /* its strings, not the root DOM's: clean only when its parse says so */
    int clean = (parsed->flags & EXDB_JTEXT_CLEAN) && lo;
    L->clean_lo = clean ? lo : NULL;
    L->clean_hi = clean ? hi : NULL;
    return parsed;
}

const exdb_json *exdb_load_table_entry(loader *L, const exdb_json *e, exdb_json *parsed) {
    const exdb_json *r = NULL;
    if (e->type == EXDB_JRAW)
        exdb_load_drop_behind(L, e->u.str);
    L->clean_lo = L->clean_hi = NULL;
    const char *lo = NULL, *hi = NULL;
    if (L->ahead && exdb_json_ahead_owns(L->ahead, e)) {
        r = exdb_json_ahead_get(L->ahead, e, &lo, &hi, L->err);
    } else if (e->type != EXDB_JRAW) {
        return e;
    } else {
        exdb_arena_reset(&L->node_dom);
        if (exdb_json_parse_raw(e, L->prog->buf, &L->node_dom, &L->strs, L->fname, parsed, &lo, &hi,
                                L->err) == 0)
            r = parsed;
    }
    if (r && e->type == EXDB_JRAW && (r->flags & EXDB_JTEXT_CLEAN)) {
        L->clean_lo = lo;
        L->clean_hi = hi;
    }
    return r;
}
