/* load.c - ExportedProgram JSON -> exdb_program.
 *
 * C twin of torch/_export/serde/serialize.py's ExportedProgramDeserializer and
 * GraphModuleDeserializer: rebuilds the FX graph exactly as PyTorch does
 * (placeholders, one call_function per serialized node, getitem nodes for
 * multi-output ops, one output node) with PyTorch's naming, and reads the
 * graph signature, module_call_graph and the rest. Schemas 2 (unions as
 * objects with every alternative, all but one null) through 8.20 (single-key
 * unions) are read; see docs/pt2-format.md §12.
 *
 * Naming follows the deserializer (serialize.py's deserialize_node and
 * deserialize_outputs, restated in the functions below): create_node is given Node.name or the
 * single output's name, and sync_fx_node then forces the printed name of every node that *is* a
 * value (placeholders, single-output ops, sym ops, named getitems) to the serialized value name;
 * the rest keep FX's create_name result.
 *
 * Errors name the file and the JSON path of the offending value, e.g.
 *   model.json: $.graph_module.graph.nodes[12].inputs[0].arg: unknown Argument kind "as_foo"
 * and besides the JSON shape, the checks PyTorch's loader and its
 * ExportedProgram verifier make: values defined once and before use, specs
 * pairing up with graph inputs/outputs by count and by name. */
#include "core/export/program.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format/container.h"
#include "core/fx/graph_check.h"
#include "core/format/json.h"
#include "core/export/snapshot.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- JSON paths for messages, built on the C stack and only formatted
 * when an error is reported. */
typedef struct jpath {
    const struct jpath *up;
    const char *key; /* ".key" step, or NULL for an index step */
    long idx;
} jpath;

#define PKEY(parent, k) ((jpath){(parent), (k), -1})
#define PIDX(parent, i) ((jpath){(parent), NULL, (long)(i)})

static int is_ident(const char *k) {
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'))
        return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_'))
            return 0;
    return 1;
}

/* Quotes s[0..n) for a message: "text" with quotes, backslashes and
 * control characters escaped, cut to about 80 characters, so a hostile name
 * cannot break the one-line format or flood the terminal. With raw, also
 * U+0000 (as \u0000) and every byte above 0x7f (as \xNN), so that the
 * message about a string that is not UTF-8 text is. Returns out. */
static const char *quote(char *out, size_t cap, const char *s, size_t n, int raw) {
    size_t w = 0;
    out[w++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= 80 || w + 8 >= cap) {
            memcpy(out + w, "...", 3);
            w += 3;
            break;
        }
        if (c == '"' || c == '\\') {
            out[w++] = '\\';
            out[w++] = (char)c;
        } else if (raw && c == 0) {
            w += (size_t)snprintf(out + w, cap - w, "\\u0000");
        } else if (c < 0x20 || c == 0x7f || (raw && c > 0x7f)) {
            w += (size_t)snprintf(out + w, cap - w, "\\x%02x", c);
        } else {
            out[w++] = (char)c;
        }
    }
    out[w++] = '"';
    out[w] = '\0';
    return out;
}

/* quote() of bytes that may not be text */
static const char *quote_raw(char *out, size_t cap, const char *s, size_t n) {
    return quote(out, cap, s, n, 1);
}

/* quote() of a C string as it is */
static const char *qs(char *out, size_t cap, const char *s) {
    return quote(out, cap, s, strlen(s), 0);
}

enum { QS = 128 }; /* buffer size for qs() */

/* "$.graph_module.graph.nodes[3].inputs[0].arg": keys that are not
 * identifiers are written ["like this"]. When the path is deeper than the
 * step buffer, its outer part is elided as "$..." (the innermost steps are
 * the informative ones). */
static void path_fmt(const jpath *p, char *buf, size_t cap) {
    const jpath *steps[256];
    int n = 0;
    const jpath *q = p;
    for (; q && n < 256; q = q->up)
        steps[n++] = q;
    size_t off = (size_t)snprintf(buf, cap, q ? "$..." : "$");
    for (int i = n - 1; i >= 0 && off < cap; i--) {
        const jpath *st = steps[i];
        char qk[QS];
        if (st->key && is_ident(st->key))
            off += (size_t)snprintf(buf + off, cap - off, ".%s", st->key);
        else if (st->key)
            off += (size_t)snprintf(buf + off, cap - off, "[%s]", qs(qk, sizeof qk, st->key));
        else
            off += (size_t)snprintf(buf + off, cap - off, "[%ld]", st->idx);
    }
}

typedef struct parsed_stack {
    exdb_stack_entry *entries;
    uint32_t n;
} parsed_stack;

/* JSON bytes per node a graph may reserve room for ahead (a node is
 * ~200 bytes of IR; the smallest one PyTorch could load is ~40 bytes of
 * JSON, a real one ~2 KB). */
#define RESERVE_BYTES 64

typedef struct loader {
    exdb_program *prog;
    exdb_arena *a;
    exdb_arena *args;  /* where node argument trees go (exdb_program.args_arena) */
    const char *fname; /* what messages call the input */
    exdb_error *err;
    int legacy_unions; /* schema < 5: unions list every alternative */
    /* Parsed nn_module_stack strings by their text: consecutive nodes of a
     * module share one string, so each distinct stack is parsed once. */
    exdb_strmap stacks;
    const char *last_stack_text; /* the previous node's, checked first */
    const parsed_stack *last_stack;
    /* Module fqns seen (with their parents), for EXDB_MAX_MODULES; keys are
     * copies in the DOM's arena. */
    exdb_strmap modules;
    size_t module_bytes;    /* their text, for EXDB_MAX_MODULE_BYTES */
    uint64_t nnodes;        /* graph inputs and nodes so far, for EXDB_MAX_NODES */
    uint32_t subgraphs_cap; /* room in prog->subgraphs */
    /* Nodes the graphs may still reserve room for ahead (load_graph): one
     * per RESERVE_BYTES of JSON, all graphs together. Real programs take
     * ~2 KB per node and never reach it; without it 3.9M empty `{}` nodes
     * (11.7 MB) reserved 891 MB before the first was refused. */
    uint64_t reserve_left;
    /* The DOM of one node or tensor_values entry of the main graph at a
     * time (parsed lazily: see exdb_program_from_json). */
    exdb_arena node_dom;
} loader;

/* A graph being rebuilt: its value-name scope (serialized_name_to_node). */
typedef struct gscope {
    exdb_graph *g;
    exdb_strmap values; /* value name -> exdb_node* */
    exdb_strmap metas;  /* value name -> exdb_val* (tensor/sym values) */
    const exdb_json *jgraph;
} gscope;

__attribute__((format(printf, 3, 4))) static int lfail(loader *L, const jpath *p, const char *fmt,
                                                       ...) {
    char path[600], msg[600];
    path_fmt(p, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return exdb_errorf(L->err, "%s: %s: %s", L->fname, path, msg);
}

static int oom(loader *L) {
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

/* Refuses a string the loader keeps (a name, target, argument, metadata)
 * that holds U+0000 or is not UTF-8. exdb's strings end at U+0000, so
 * "x\u0000junk" silently read as x; bytes that are not UTF-8 made renders
 * that are not well-formed XML (SVG, HTML). PyTorch refuses both: it
 * decodes the file as UTF-8, and a name with U+0000 is no identifier. */
static int check_text(loader *L, const char *s, size_t n, const jpath *p) {
    size_t at = text_end((const unsigned char *)s, n);
    if (at == n)
        return 0;
    char q[QS];
    if (s[at] == 0)
        return lfail(L, p, "expected a string without \\u0000 (U+0000), found %s",
                     quote_raw(q, sizeof q, s, n));
    int sur = (unsigned char)s[at] == 0xED && at + 1 < n && (unsigned char)s[at + 1] >= 0xA0;
    return lfail(L, p, "expected UTF-8 text, found %s (not UTF-8 from byte %zu%s)",
                 quote_raw(q, sizeof q, s, n), at,
                 sur ? ": a surrogate, a \\ud800-\\udfff escape without its pair" : "");
}

/* check_text of a JSON string value. */
static int check_str(loader *L, const exdb_json *v, const jpath *p) {
    return check_text(L, v->u.str, v->len, p);
}

/* check_text of an object key the loader keeps (the parser refuses keys
 * holding U+0000), reported at the object p: a path holding the key would
 * not be UTF-8 either. */
static int check_key(loader *L, const char *k, const jpath *p) {
    size_t n = strlen(k), at = text_end((const unsigned char *)k, n);
    char q[QS];
    if (at == n)
        return 0;
    return lfail(L, p, "expected keys of UTF-8 text, found %s (not UTF-8 from byte %zu)",
                 quote_raw(q, sizeof q, k, n), at);
}

/* A name (value, node, target, fqn) within EXDB_MAX_NAME_BYTES; `what` says
 * which in the message. Bounded scan: a huge name costs no more than the
 * limit. */
static int check_name(loader *L, const char *s, const jpath *p, const char *what) {
    size_t n = strnlen(s, (size_t)EXDB_MAX_NAME_BYTES + 1);
    if (n <= EXDB_MAX_NAME_BYTES)
        return 0;
    return lfail(L, p, "%s longer than the limit of %d bytes for names (%zu bytes)", what,
                 EXDB_MAX_NAME_BYTES, strlen(s));
}

/* Counts module fqn (and its parents "a", "a.b" of "a.b.c", which unflatten
 * creates too) against EXDB_MAX_MODULES and EXDB_MAX_MODULE_BYTES. A parent already counted means
 * its own parents are, so each fqn costs its length once. */
static int count_module(loader *L, const char *fqn, size_t len, const jpath *p) {
    while (len) {
        char *key = exdb_arena_strndup(L->modules.a, fqn, len);
        int fresh;
        if (!key || !exdb_strmap_put(&L->modules, key, &fresh))
            return oom(L);
        if (!fresh)
            return 0;
        if (L->modules.count > EXDB_MAX_MODULES)
            return lfail(L, p,
                         "more than %d distinct modules (module fqns and their parents in "
                         "nn_module_stack and module_call_graph), the limit",
                         EXDB_MAX_MODULES);
        L->module_bytes += len + 1;
        if (L->module_bytes > EXDB_MAX_MODULE_BYTES)
            return lfail(L, p,
                         "module fqns and their parents (in nn_module_stack and "
                         "module_call_graph) take more than the limit of %zu MiB",
                         EXDB_MAX_MODULE_BYTES >> 20);
        while (len && fqn[len - 1] != '.')
            len--;
        if (len)
            len--; /* drop the dot */
    }
    return 0;
}

/* ---- typed accessors
 *
 * Each takes the value (NULL when the key is absent) and its path; a missing
 * key is reported at the parent as `missing key "k"`, a wrong type as
 * "expected X, found Y". */

static const exdb_json *get_opt(const exdb_json *obj, const char *key) {
    const exdb_json *v = exdb_json_get(obj, key);
    return (v && v->type == EXDB_JNULL) ? NULL : v;
}

/* The message for a required value that is absent (v NULL) or of the wrong
 * type: `PARENT: missing key "k"` when p is a key step, else `P: expected
 * WHAT, found TYPE`. */
static int type_fail(loader *L, const exdb_json *v, const jpath *p, const char *what) {
    if (!v && p && p->key)
        return lfail(L, p->up, "missing key \"%s\" (expected %s)", p->key, what);
    return lfail(L, p, "expected %s, found %s", what, exdb_json_type_name(v));
}

static int need_obj(loader *L, const exdb_json *j, const jpath *p) {
    if (!exdb_json_is(j, EXDB_JOBJECT))
        return type_fail(L, j, p, "an object");
    return 0;
}

static int need_arr(loader *L, const exdb_json *j, const jpath *p) {
    if (!exdb_json_is(j, EXDB_JARRAY))
        return type_fail(L, j, p, "an array");
    return 0;
}

/* A required string member. */
static int get_str(loader *L, const exdb_json *obj, const char *key, const jpath *p,
                   const char **out) {
    const exdb_json *v = exdb_json_get(obj, key);
    jpath kp = PKEY(p, key);
    *out = NULL;
    if (!exdb_json_is(v, EXDB_JSTRING))
        return type_fail(L, v, &kp, "a string");
    if (check_str(L, v, &kp) < 0)
        return -1;
    *out = v->u.str;
    return 0;
}

/* An integer: JSON number text without fraction or exponent that fits int64
 * (what Python's json gives an int for). */
static int as_int(loader *L, const exdb_json *v, const jpath *p, int64_t *out) {
    if (!v || v->type != EXDB_JNUMBER)
        return type_fail(L, v, p, "an integer");
    if (exdb_json_int(v, out) == 0)
        return 0;
    int integral = 1;
    for (uint32_t i = 0; i < v->len; i++)
        if (!(v->u.str[i] == '-' || (v->u.str[i] >= '0' && v->u.str[i] <= '9')))
            integral = 0;
    return lfail(L, p, "expected %s, found %s%.*s",
                 integral ? "an integer that fits in 64 bits" : "an integer",
                 v->len > 40 ? "..." : "", (int)(v->len > 40 ? 40 : v->len),
                 v->u.str + (v->len > 40 ? v->len - 40 : 0));
}

static int as_double(loader *L, const exdb_json *v, const jpath *p, double *out) {
    if (exdb_json_double(v, out) < 0)
        return type_fail(L, v, p, "a number (or \"Infinity\", \"-Infinity\", \"NaN\")");
    return 0;
}

static int as_bool(loader *L, const exdb_json *v, const jpath *p, int *out) {
    if (v && v->type == EXDB_JTRUE)
        *out = 1;
    else if (v && v->type == EXDB_JFALSE)
        *out = 0;
    else
        return type_fail(L, v, p, "a boolean");
    return 0;
}

/* Decodes a union: single-key objects (schema >= 5.1), or objects listing
 * every alternative with all but one null (schema <= 4), possibly with
 * "$type"/"$value" keys. *tag gets the variant name, *val its payload.
 * A key repeated in the object counts once (the last one wins, as in
 * Python's json). */
static int get_union(loader *L, const exdb_json *u, const jpath *p, const char *what,
                     const char **tag, const exdb_json **val) {
    char q1[QS], q2[QS];
    if (!exdb_json_is(u, EXDB_JOBJECT)) {
        char w[96];
        snprintf(w, sizeof w, "%s (an object with one key)", what);
        return type_fail(L, u, p, w);
    }
    const exdb_json *t = exdb_json_get(u, "$type");
    if (t && t->type == EXDB_JSTRING) {
        const exdb_json *v = exdb_json_get(u, "$value");
        *tag = t->u.str;
        *val = v ? v : exdb_json_get(u, t->u.str);
        if (!*val)
            return lfail(L, p, "%s: \"$type\" is %s but there is no \"$value\"", what,
                         qs(q1, sizeof q1, t->u.str));
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
                return lfail(L, p, "%s: expected exactly one non-null variant, found %s and %s",
                             what, qs(q1, sizeof q1, found->key), qs(q2, sizeof q2, k->key));
            return lfail(L, p, "%s: expected an object with one key, found %s and %s", what,
                         qs(q1, sizeof q1, found->key), qs(q2, sizeof q2, k->key));
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
        return lfail(L, p, "%s: expected an object with one key, found %s", what,
                     u->len ? "only null members" : "an empty object");
    *tag = found->key;
    *val = found;
    return 0;
}

/* ---- values (tensor_values, sym_*_values) */

static int parse_sym(loader *L, const exdb_json *j, const jpath *p, int flavour, exdb_sym *out) {
    /* flavour: 0 int, 1 float, 2 bool */
    static const char *const names[] = {"SymInt", "SymFloat", "SymBool"};
    static const char *const what[] = {"a SymInt", "a SymFloat", "a SymBool"};
    static const char *const lits[] = {"as_int", "as_float", "as_bool"};
    char q[QS];
    memset(out, 0, sizeof *out);
    if (j && j->type == EXDB_JNUMBER && flavour == 0) /* schema 1: plain int */
        return as_int(L, j, p, &out->v.i);
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, what[flavour], &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_expr") == 0) {
        if (need_obj(L, v, &vp) < 0 || get_str(L, v, "expr_str", &vp, &out->expr) < 0)
            return -1;
        const exdb_json *h = get_opt(v, "hint");
        jpath hp = PKEY(&vp, "hint");
        if (h) {
            if (h->type == EXDB_JNUMBER) { /* schema 1: plain int hint */
                out->has_hint = 1;
                return as_int(L, h, &hp, &out->v.i);
            }
            const char *ht;
            const exdb_json *hv;
            if (get_union(L, h, &hp, "a SymExprHint", &ht, &hv) < 0)
                return -1;
            jpath hvp = PKEY(&hp, ht);
            out->has_hint = 1;
            if (strcmp(ht, "as_int") == 0)
                return as_int(L, hv, &hvp, &out->v.i);
            if (strcmp(ht, "as_float") == 0)
                return as_double(L, hv, &hvp, &out->v.f);
            if (strcmp(ht, "as_bool") == 0)
                return as_bool(L, hv, &hvp, &out->v.b);
            return lfail(
                L, &hp,
                "unknown SymExprHint kind %s (expected \"as_int\", \"as_float\" or \"as_bool\")",
                qs(q, sizeof q, ht));
        }
        return 0;
    }
    if (strcmp(tag, "as_int") == 0 && flavour == 0)
        return as_int(L, v, &vp, &out->v.i);
    if (strcmp(tag, "as_float") == 0 && flavour == 1)
        return as_double(L, v, &vp, &out->v.f);
    if (strcmp(tag, "as_bool") == 0 && flavour == 2)
        return as_bool(L, v, &vp, &out->v.b);
    return lfail(L, p, "unknown %s kind %s (expected \"as_expr\" or \"%s\")", names[flavour],
                 qs(q, sizeof q, tag), lits[flavour]);
}

/* A list of SymInts (sizes, strides). */
static int parse_sym_list(loader *L, const exdb_json *j, const jpath *p, exdb_sym **out,
                          uint32_t *n) {
    if (need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_alloc(L->a, (j->len ? j->len : 1) * sizeof **out);
    if (!*out)
        return oom(L);
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
    if (need_obj(L, j, p) < 0)
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
        return oom(L);
    int64_t x;
    jpath dp = PKEY(p, "dtype");
    if (as_int(L, exdb_json_get(j, "dtype"), &dp, &x) < 0)
        return -1;
    t->dtype = (int)x;
    const exdb_json *sizes = exdb_json_get(j, "sizes");
    jpath sp = PKEY(p, "sizes");
    if (parse_sym_list(L, sizes, &sp, &t->sizes, &t->ndim) < 0)
        return -1;
    const exdb_json *strides = get_opt(j, "strides");
    if (strides) {
        uint32_t ns;
        jpath stp = PKEY(p, "strides");
        if (parse_sym_list(L, strides, &stp, &t->strides, &ns) < 0)
            return -1;
        if (ns != t->ndim)
            return lfail(L, &stp, "expected %u strides (one per size), found %u", t->ndim, ns);
    }
    const exdb_json *so = get_opt(j, "storage_offset");
    if (so) {
        jpath sop = PKEY(p, "storage_offset");
        if (parse_sym(L, so, &sop, 0, &t->storage_offset) < 0)
            return -1;
    }
    const exdb_json *rg = get_opt(j, "requires_grad");
    if (rg) {
        jpath rp = PKEY(p, "requires_grad");
        if (as_bool(L, rg, &rp, &t->requires_grad) < 0)
            return -1;
    }
    t->layout = 7;
    const exdb_json *lay = get_opt(j, "layout");
    if (lay) {
        jpath lp = PKEY(p, "layout");
        if (as_int(L, lay, &lp, &x) < 0)
            return -1;
        t->layout = (int)x;
    }
    t->device_type = "cpu";
    t->device_index = -1;
    const exdb_json *dev = get_opt(j, "device");
    if (dev) {
        jpath dvp = PKEY(p, "device");
        if (need_obj(L, dev, &dvp) < 0 || get_str(L, dev, "type", &dvp, &t->device_type) < 0)
            return -1;
        const exdb_json *idx = get_opt(dev, "index");
        if (idx) {
            jpath ixp = PKEY(&dvp, "index");
            if (as_int(L, idx, &ixp, &x) < 0)
                return -1;
            t->device_index = (int)x;
        }
    }
    v->kind = EXDB_VAL_TENSOR;
    v->u.t = t;
    *out = v;
    return 0;
}

/* Fills sc->metas from the graph's value tables. */
/* An entry of a table the first pass left unparsed (nodes, tensor_values:
 * see exdb_program_from_json) parsed into *parsed, in L->node_dom in place
 * of the previous entry's; any other value as it is. NULL when memory runs
 * out. */
static const exdb_json *table_entry(loader *L, const exdb_json *e, exdb_json *parsed) {
    if (e->type != EXDB_JRAW)
        return e;
    exdb_arena_reset(&L->node_dom);
    return exdb_json_parse_raw(e, &L->node_dom, L->fname, parsed, L->err) < 0 ? NULL : parsed;
}

static int load_values(loader *L, gscope *sc, const jpath *gp) {
    static const char *const tables[] = {"tensor_values", "sym_int_values", "sym_float_values",
                                         "sym_bool_values", "custom_obj_values"};
    uint32_t total = 0;
    for (int t = 0; t < 5; t++) {
        const exdb_json *m = get_opt(sc->jgraph, tables[t]);
        total += exdb_json_is(m, EXDB_JOBJECT) ? m->len : 0;
    }
    /* none: no table at all (a subgraph's tables are often empty, and an
     * empty table still costs 16 slots) */
    if (total && exdb_strmap_reserve(&sc->metas, total) < 0)
        return oom(L);
    for (int t = 0; t < 5; t++) {
        const exdb_json *m = get_opt(sc->jgraph, tables[t]);
        if (!m)
            continue;
        jpath tp = PKEY(gp, tables[t]);
        if (need_obj(L, m, &tp) < 0)
            return -1;
        for (uint32_t i = 0; i < m->len; i++) {
            const exdb_json *e = &m->u.kids[i];
            jpath ep = PKEY(&tp, e->key);
            exdb_val *v = NULL;
            exdb_json parsed;
            if (!(e = table_entry(L, e, &parsed)))
                return -1;
            if (t == 0) {
                if (parse_tensor_meta(L, e, &ep, &v) < 0)
                    return -1;
            } else if (t == 4) {
                v = exdb_arena_calloc(L->a, 1, sizeof *v);
                if (!v)
                    return oom(L);
                v->kind = EXDB_VAL_CUSTOM_OBJ;
                if (need_obj(L, e, &ep) < 0 || get_str(L, e, "class_fqn", &ep, &v->u.s) < 0)
                    return -1;
            } else {
                v = exdb_arena_calloc(L->a, 1, sizeof *v);
                if (!v)
                    return oom(L);
                v->kind = t == 1 ? EXDB_VAL_SYMINT : t == 2 ? EXDB_VAL_SYMFLOAT : EXDB_VAL_SYMBOOL;
                if (parse_sym(L, e, &ep, t - 1, &v->u.sym) < 0)
                    return -1;
            }
            void **slot = exdb_strmap_put(&sc->metas, e->key, NULL);
            if (!slot)
                return oom(L);
            *slot = v;
        }
    }
    return 0;
}

/* ---- metadata */

/* nn_module_stack "key,path,type;key,path,type..." (docs/pt2-format.md §9.1), split
 * as serialize.py's metadata_split does: entries at every ';', fields at
 * commas outside ()/[] (the depth goes negative on a stray closer, as in
 * Python, and then no later comma splits), exactly three fields. The call
 * index is the number after the key's last '@' (what unflatten reads). */
int exdb_parse_module_stack(exdb_arena *a, const char *text, exdb_stack_entry **out, uint32_t *n,
                            exdb_error *err) {
    *out = NULL;
    *n = 0;
    if (!text[0])
        return 0;
    uint32_t count = 1;
    for (const char *q = text; *q; q++)
        count += *q == ';';
    if (count > EXDB_MAX_MODULE_DEPTH)
        return exdb_errorf(err,
                           "%u entries: modules nested deeper than the limit of %d levels "
                           "(expected at most %d entries)",
                           count, EXDB_MAX_MODULE_DEPTH, EXDB_MAX_MODULE_DEPTH);
    exdb_stack_entry *e = exdb_arena_calloc(a, count, sizeof *e);
    if (!e)
        return exdb_errorf(err, "out of memory");
    const char *s = text;
    for (uint32_t k = 0; k < count; k++) {
        const char *end = strchr(s, ';');
        if (!end)
            end = s + strlen(s);
        int shown = (int)(end - s > 120 ? 120 : end - s);
        const char *more = end - s > 120 ? "..." : "";
        if (end == s)
            return exdb_errorf(err, "entry %u is empty: expected \"key,path,type\"", k);
        const char *cut[2];
        int ncut = 0, depth = 0;
        for (const char *q = s; q < end; q++) {
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
        e[k].key = exdb_arena_strndup(a, s, (size_t)(cut[0] - s));
        e[k].path = exdb_arena_strndup(a, cut[0] + 1, (size_t)(cut[1] - cut[0] - 1));
        e[k].type = exdb_arena_strndup(a, cut[1] + 1, (size_t)(end - cut[1] - 1));
        if (!e[k].key || !e[k].path || !e[k].type)
            return exdb_errorf(err, "out of memory");
        const char *at = strrchr(e[k].key, '@');
        e[k].call_idx = 0;
        if (at) {
            long v = 0;
            const char *d = at + 1;
            for (; *d >= '0' && *d <= '9' && v <= 1000000000; d++)
                v = v * 10 + (*d - '0');
            if (d == at + 1 || *d || v > 1000000000)
                return exdb_errorf(err,
                                   "entry %u: key \"%.*s\": expected a call index (a number) "
                                   "after its last '@'",
                                   k, (int)(strlen(e[k].key) > 120 ? 120 : strlen(e[k].key)),
                                   e[k].key);
            e[k].call_idx = (int)v;
        }
        s = *end ? end + 1 : end;
    }
    *out = e;
    *n = count;
    return 0;
}

static int is_known_meta_key(const char *k) {
    return strcmp(k, "nn_module_stack") == 0 || strcmp(k, "stack_trace") == 0 ||
           strcmp(k, "source_fn_stack") == 0 || strcmp(k, "source_fn") == 0 ||
           strcmp(k, "torch_fn") == 0 || strcmp(k, "custom") == 0 || strcmp(k, "from_node") == 0;
}

/* Node.metadata (str -> str, docs/pt2-format.md §9). The keys PyTorch reads must
 * be strings; other keys are kept as extras when they are strings and
 * skipped otherwise (PyTorch ignores them). An empty nn_module_stack is no
 * stack, as in deserialize_metadata. */
static int load_meta(loader *L, const exdb_json *m, const jpath *p, exdb_meta **out) {
    exdb_meta *meta = exdb_arena_calloc(L->a, 1, sizeof *meta);
    if (!meta)
        return oom(L);
    *out = meta;
    if (!m)
        return 0;
    if (need_obj(L, m, p) < 0)
        return -1;
    uint32_t nextra = 0;
    for (uint32_t i = 0; i < m->len; i++) {
        const exdb_json *e = &m->u.kids[i];
        jpath ep = PKEY(p, e->key);
        const char *k = e->key;
        if (!is_known_meta_key(k)) {
            if (e->type == EXDB_JSTRING && (check_key(L, k, p) < 0 || check_str(L, e, &ep) < 0))
                return -1;
            nextra += e->type == EXDB_JSTRING;
            continue;
        }
        if (e->type == EXDB_JNULL)
            continue;
        if (e->type != EXDB_JSTRING)
            return type_fail(L, e, &ep, "a string");
        if (check_str(L, e, &ep) < 0)
            return -1;
        const char *v = e->u.str;
        if (strcmp(k, "nn_module_stack") == 0) {
            exdb_stack_entry *st;
            uint32_t n;
            int fresh;
            if (L->last_stack && strcmp(v, L->last_stack_text) == 0) {
                meta->stack = L->last_stack->entries;
                meta->nstack = L->last_stack->n;
                meta->has_stack = meta->nstack > 0;
                meta->nn_module_stack = v;
                continue;
            }
            void **slot = exdb_strmap_put(&L->stacks, v, &fresh);
            if (!slot)
                return oom(L);
            if (fresh) {
                exdb_error e2 = {0};
                parsed_stack *ps = exdb_arena_alloc(L->a, sizeof *ps);
                if (!ps)
                    return oom(L);
                /* a failed parse ends the load, so the half-made entry is never read */
                if (exdb_parse_module_stack(L->a, v, &ps->entries, &ps->n, &e2) < 0)
                    return lfail(L, &ep, "%s", e2.msg);
                for (uint32_t j = 0; j < ps->n; j++)
                    if (count_module(L, ps->entries[j].path, strlen(ps->entries[j].path), &ep) < 0)
                        return -1;
                *slot = ps;
            }
            L->last_stack = *slot;
            L->last_stack_text = v;
            st = L->last_stack->entries;
            n = L->last_stack->n;
            meta->stack = st;
            meta->nstack = n;
            meta->has_stack = n > 0;
            meta->nn_module_stack = v;
        } else if (strcmp(k, "stack_trace") == 0) {
            meta->stack_trace = v;
        } else if (strcmp(k, "source_fn_stack") == 0 || strcmp(k, "source_fn") == 0) {
            meta->source_fn_stack = v;
        } else if (strcmp(k, "torch_fn") == 0) {
            meta->torch_fn = v;
        } else if (strcmp(k, "custom") == 0) {
            meta->custom = v;
        } else {
            meta->from_node = v;
        }
    }
    if (nextra) {
        exdb_kv *kv = exdb_arena_alloc(L->a, nextra * sizeof *kv);
        if (!kv)
            return oom(L);
        uint32_t w = 0;
        for (uint32_t i = 0; i < m->len; i++) {
            const exdb_json *e = &m->u.kids[i];
            if (!is_known_meta_key(e->key) && e->type == EXDB_JSTRING) {
                kv[w].key = e->key;
                kv[w].value = e->u.str;
                w++;
            }
        }
        meta->extra = kv;
        meta->nextra = nextra;
    }
    return 0;
}

/* ---- arguments */

static int load_graph(loader *L, const exdb_json *jg, const jpath *gp, exdb_graph *g, int is_sub);

/* A use of value `name`: it must be defined by an earlier node or a graph
 * input of the same graph (PyTorch's serialized_name_to_node lookup). */
static int lookup_value(loader *L, gscope *sc, const char *name, const jpath *p, exdb_arg *out) {
    exdb_node *n = exdb_strmap_get(&sc->values, name);
    char q[QS];
    if (!n)
        return lfail(L, p, "refers to %s, which no graph input or earlier node defines",
                     qs(q, sizeof q, name));
    *out = exdb_arg_node(n);
    return 0;
}

/* {"name": "x"} (TensorArgument) -> node */
static int tensor_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *out) {
    const char *name;
    if (need_obj(L, j, p) < 0 || get_str(L, j, "name", p, &name) < 0)
        return -1;
    return lookup_value(L, sc, name, p, out);
}

/* SymIntArgument / SymFloatArgument / SymBoolArgument -> node or literal */
static int sym_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p, int flavour,
                   exdb_arg *out) {
    static const char *const names[] = {"SymIntArgument", "SymFloatArgument", "SymBoolArgument"};
    static const char *const what[] = {"a SymIntArgument", "a SymFloatArgument",
                                       "a SymBoolArgument"};
    static const char *const lits[] = {"as_int", "as_float", "as_bool"};
    const char *tag;
    const exdb_json *v;
    char q[QS];
    if (get_union(L, j, p, what[flavour], &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_name") == 0) {
        if (v->type != EXDB_JSTRING)
            return type_fail(L, v, &vp, "a string");
        if (check_str(L, v, &vp) < 0)
            return -1;
        return lookup_value(L, sc, v->u.str, &vp, out);
    }
    memset(out, 0, sizeof *out);
    if (strcmp(tag, "as_int") == 0 && flavour == 0) {
        out->kind = EXDB_ARG_INT;
        return as_int(L, v, &vp, &out->u.i);
    }
    if (strcmp(tag, "as_float") == 0 && flavour == 1) {
        out->kind = EXDB_ARG_FLOAT;
        return as_double(L, v, &vp, &out->u.f);
    }
    if (strcmp(tag, "as_bool") == 0 && flavour == 2) {
        int b = 0;
        out->kind = EXDB_ARG_BOOL;
        if (as_bool(L, v, &vp, &b) < 0)
            return -1;
        out->u.i = b;
        return 0;
    }
    return lfail(L, p, "unknown %s kind %s (expected \"as_name\" or \"%s\")", names[flavour],
                 qs(q, sizeof q, tag), lits[flavour]);
}

static int opt_tensor_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                          exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, "an OptionalTensorArgument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_none") == 0) {
        *out = exdb_arg_none();
        return 0;
    }
    if (strcmp(tag, "as_tensor") == 0)
        return tensor_ref(L, sc, v, &vp, out);
    char q[QS];
    return lfail(L, p,
                 "unknown OptionalTensorArgument kind %s (expected \"as_tensor\" or \"as_none\")",
                 qs(q, sizeof q, tag));
}

typedef int (*elem_fn)(loader *, gscope *, const exdb_json *, const jpath *, exdb_arg *);

static int elem_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    memset(o, 0, sizeof *o);
    o->kind = EXDB_ARG_INT;
    return as_int(L, j, p, &o->u.i);
}
static int elem_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    memset(o, 0, sizeof *o);
    o->kind = EXDB_ARG_FLOAT;
    return as_double(L, j, p, &o->u.f);
}
static int elem_bool(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    int b = 0;
    memset(o, 0, sizeof *o);
    o->kind = EXDB_ARG_BOOL;
    if (as_bool(L, j, p, &b) < 0)
        return -1;
    o->u.i = b;
    return 0;
}
static int elem_str(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    if (!exdb_json_is(j, EXDB_JSTRING))
        return type_fail(L, j, p, "a string");
    if (check_str(L, j, p) < 0)
        return -1;
    *o = exdb_arg_str(j->u.str);
    return 0;
}
static int elem_symint(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return sym_ref(L, sc, j, p, 0, o);
}
static int elem_symfloat(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return sym_ref(L, sc, j, p, 1, o);
}
static int elem_symbool(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return sym_ref(L, sc, j, p, 2, o);
}
static int elem_tuple_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
static int elem_list_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
static int elem_list_tensor(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);

static int list_of(loader *L, gscope *sc, const exdb_json *j, const jpath *p, elem_fn fn,
                   exdb_arg *out) {
    if (need_arr(L, j, p) < 0)
        return -1;
    if (exdb_arg_seq(L->a, EXDB_ARG_LIST, j->len, out) < 0)
        return oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ip = PIDX(p, i);
        if (fn(L, sc, &j->u.kids[i], &ip, &out->u.items[i]) < 0)
            return -1;
    }
    return 0;
}

/* as_int_lists elements: PyTorch turns each into a tuple (Triton grids). */
static int elem_tuple_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    if (list_of(L, sc, j, p, elem_int, o) < 0)
        return -1;
    o->kind = EXDB_ARG_TUPLE;
    return 0;
}
static int elem_list_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return list_of(L, sc, j, p, elem_float, o);
}
static int elem_list_tensor(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                            exdb_arg *o) {
    return list_of(L, sc, j, p, tensor_ref, o);
}

static int enum_arg(loader *L, const exdb_json *v, const jpath *p, exdb_arg_kind kind,
                    exdb_arg *out) {
    memset(out, 0, sizeof *out);
    out->kind = (uint8_t)kind;
    return as_int(L, v, p, &out->u.i);
}

/* as_device -> "type" or "type:index", as str(torch.device) prints it. */
static int device_arg(loader *L, const exdb_json *v, const jpath *p, exdb_arg *out) {
    const char *type;
    if (need_obj(L, v, p) < 0 || get_str(L, v, "type", p, &type) < 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->kind = EXDB_ARG_DEVICE;
    const exdb_json *idx = get_opt(v, "index");
    if (idx) {
        int64_t i;
        jpath ip = PKEY(p, "index");
        if (as_int(L, idx, &ip, &i) < 0)
            return -1;
        out->u.s = exdb_arena_printf(L->a, "%s:%" PRId64, type, i);
    } else {
        out->u.s = type;
    }
    return out->u.s ? 0 : oom(L);
}

/* Python-visible spelling of a serialized operator target. */
static const char *pretty_target(loader *L, const char *t, exdb_target_kind *kind) {
    if (strncmp(t, "torch.ops.higher_order.", 23) == 0) {
        *kind = EXDB_T_HOP;
        return t;
    }
    if (strncmp(t, "torch.ops.", 10) == 0 || t[0] == '#') {
        *kind = EXDB_T_OP;
        return t;
    }
    *kind = EXDB_T_PYFN;
    if (strncmp(t, "_operator.", 10) == 0)
        return exdb_arena_printf(L->a, "operator.%s", t + 10);
    return t;
}

static int load_subgraph_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p,
                             exdb_arg *out);

/* deserialize_input: one Argument union -> an FX argument value. */
static int load_arg(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, "an Argument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    memset(out, 0, sizeof *out);
    if (strcmp(tag, "as_none") == 0) {
        return 0;
    } else if (strcmp(tag, "as_tensor") == 0) {
        return tensor_ref(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_tensors") == 0) {
        return list_of(L, sc, v, &vp, tensor_ref, out);
    } else if (strcmp(tag, "as_int") == 0) {
        return elem_int(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_ints") == 0) {
        return list_of(L, sc, v, &vp, elem_int, out);
    } else if (strcmp(tag, "as_float") == 0) {
        return elem_float(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_floats") == 0) {
        return list_of(L, sc, v, &vp, elem_float, out);
    } else if (strcmp(tag, "as_string") == 0) {
        return elem_str(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_strings") == 0) {
        return list_of(L, sc, v, &vp, elem_str, out);
    } else if (strcmp(tag, "as_bool") == 0) {
        return elem_bool(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_bools") == 0) {
        return list_of(L, sc, v, &vp, elem_bool, out);
    } else if (strcmp(tag, "as_sym_int") == 0) {
        return sym_ref(L, sc, v, &vp, 0, out);
    } else if (strcmp(tag, "as_sym_ints") == 0) {
        return list_of(L, sc, v, &vp, elem_symint, out);
    } else if (strcmp(tag, "as_sym_float") == 0) {
        return sym_ref(L, sc, v, &vp, 1, out);
    } else if (strcmp(tag, "as_sym_floats") == 0) {
        return list_of(L, sc, v, &vp, elem_symfloat, out);
    } else if (strcmp(tag, "as_sym_bool") == 0) {
        return sym_ref(L, sc, v, &vp, 2, out);
    } else if (strcmp(tag, "as_sym_bools") == 0) {
        return list_of(L, sc, v, &vp, elem_symbool, out);
    } else if (strcmp(tag, "as_scalar_type") == 0) {
        return enum_arg(L, v, &vp, EXDB_ARG_DTYPE, out);
    } else if (strcmp(tag, "as_memory_format") == 0) {
        return enum_arg(L, v, &vp, EXDB_ARG_MEMFMT, out);
    } else if (strcmp(tag, "as_layout") == 0) {
        return enum_arg(L, v, &vp, EXDB_ARG_LAYOUT, out);
    } else if (strcmp(tag, "as_device") == 0) {
        return device_arg(L, v, &vp, out);
    } else if (strcmp(tag, "as_optional_tensors") == 0) {
        return list_of(L, sc, v, &vp, opt_tensor_ref, out);
    } else if (strcmp(tag, "as_optional_tensor") == 0) {
        return opt_tensor_ref(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_custom_obj") == 0) {
        /* a lifted object is a graph input; one that is not (old programs)
         * lives in the constants payload, which exdb does not read: kept by
         * name */
        const char *name;
        if (need_obj(L, v, &vp) < 0 || get_str(L, v, "name", &vp, &name) < 0)
            return -1;
        if (!exdb_strmap_get(&sc->values, name)) {
            *out = exdb_arg_str(name);
            return 0;
        }
        return tensor_ref(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_operator") == 0) {
        if (v->type != EXDB_JSTRING)
            return type_fail(L, v, &vp, "a string");
        if (check_str(L, v, &vp) < 0)
            return -1;
        exdb_target_kind k;
        out->kind = EXDB_ARG_OPERATOR;
        out->u.s = pretty_target(L, v->u.str, &k);
        return out->u.s ? 0 : oom(L);
    } else if (strcmp(tag, "as_complex") == 0) {
        if (need_obj(L, v, &vp) < 0)
            return -1;
        out->kind = EXDB_ARG_COMPLEX;
        out->u.c = exdb_arena_alloc(L->a, 2 * sizeof(double));
        if (!out->u.c)
            return oom(L);
        jpath rp = PKEY(&vp, "real"), ip = PKEY(&vp, "imag");
        if (as_double(L, exdb_json_get(v, "real"), &rp, &out->u.c[0]) < 0 ||
            as_double(L, exdb_json_get(v, "imag"), &ip, &out->u.c[1]) < 0)
            return -1;
        return 0;
    } else if (strcmp(tag, "as_nested_tensors") == 0) {
        return list_of(L, sc, v, &vp, elem_list_tensor, out);
    } else if (strcmp(tag, "as_int_lists") == 0) {
        return list_of(L, sc, v, &vp, elem_tuple_int, out);
    } else if (strcmp(tag, "as_float_lists") == 0) {
        return list_of(L, sc, v, &vp, elem_list_float, out);
    } else if (strcmp(tag, "as_string_to_argument") == 0) {
        if (need_obj(L, v, &vp) < 0)
            return -1;
        if (exdb_arg_seq(L->a, EXDB_ARG_DICT, v->len, out) < 0)
            return oom(L);
        for (uint32_t i = 0; i < v->len; i++) {
            jpath kp = PKEY(&vp, v->u.kids[i].key);
            if (check_key(L, v->u.kids[i].key, &vp) < 0)
                return -1;
            out->keys[i] = v->u.kids[i].key;
            if (load_arg(L, sc, &v->u.kids[i], &kp, &out->u.items[i]) < 0)
                return -1;
        }
        return 0;
    } else if (strcmp(tag, "as_graph") == 0) {
        return load_subgraph_arg(L, sc, v, &vp, out);
    }
    char q[QS];
    return lfail(L, p, "unknown Argument kind %s", qs(q, sizeof q, tag));
}

/* ---- nodes */

static int is_python_keyword(const char *s) {
    static const char *const kw[] = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",    NULL};
    for (int i = 0; kw[i]; i++)
        if (strcmp(s, kw[i]) == 0)
            return 1;
    return 0;
}

/* `fx_node.name = name`: the node prints as `name` while the graph's
 * namespace keeps what create_name registered (PyTorch's sync_fx_node and
 * placeholder code assign the attribute directly). exdb's name table also
 * maps `name` to the node so lookups by printed name work. */
static int force_name(loader *L, exdb_graph *g, exdb_node *n, const char *name) {
    if (strcmp(n->name, name) == 0)
        return 0;
    void **slot = exdb_strmap_find(&g->names, n->name);
    if (slot && *slot == n)
        *slot = NULL; /* the registered name stays used */
    slot = exdb_strmap_put(&g->names, name, NULL);
    if (!slot)
        return oom(L);
    *slot = n;
    n->name = name;
    exdb_node_hash_name(n);
    return 0;
}

/* Records that serialized value `name` is produced by node n (sync_fx_node,
 * which refuses a name deserialized before) and gives n its val. */
/* Binds value name to n and gives n the value's metadata (val). n's meta is
 * copied first unless owns_meta says n alone holds it (a plain node's own,
 * fresh from load_meta), when val is set in place: one meta per node, not
 * two (the copy was ~0.1 byte per byte of a real program's JSON). */
static int bind_value(loader *L, gscope *sc, const char *name, exdb_node *n, const jpath *p,
                      int owns_meta) {
    int created;
    if (check_name(L, name, p, "value name") < 0)
        return -1;
    void **slot = exdb_strmap_put(&sc->values, name, &created);
    if (!slot)
        return oom(L);
    if (!created && *slot) {
        const exdb_node *first = *slot;
        char q1[QS], q2[QS];
        return lfail(L, p, "value %s is defined twice (first by %s %s)", qs(q1, sizeof q1, name),
                     first->op == EXDB_OP_PLACEHOLDER ? "graph input" : "node",
                     qs(q2, sizeof q2, first->name));
    }
    *slot = n;
    if (!n->meta || !n->meta->val) {
        exdb_val *v = exdb_strmap_get(&sc->metas, name);
        if (v && owns_meta && n->meta) {
            ((exdb_meta *)n->meta)->val = v;
        } else if (v) {
            exdb_meta *m = exdb_arena_alloc(L->a, sizeof *m);
            if (!m)
                return oom(L);
            if (n->meta)
                *m = *n->meta;
            else
                memset(m, 0, sizeof *m);
            m->val = v;
            n->meta = m;
        }
    }
    return 0;
}

/* sync_fx_node(name, n): binds the value and forces the printed name. */
static int sync_node_meta(loader *L, gscope *sc, exdb_node *n, const char *name, const jpath *p,
                          int owns_meta) {
    if (bind_value(L, sc, name, n, p, owns_meta) < 0)
        return -1;
    return force_name(L, sc->g, n, name);
}

static int sync_node(loader *L, gscope *sc, exdb_node *n, const char *name, const jpath *p) {
    return sync_node_meta(L, sc, n, name, p, 0);
}

/* operator.getitem(of, idx), sharing the producer's metadata; name NULL
 * lets FX derive it ("getitem", "getitem_1", ...). */
static exdb_node *new_getitem(loader *L, gscope *sc, exdb_node *of, uint32_t idx, const char *name,
                              const exdb_meta *meta) {
    exdb_arg args;
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, 2, &args) < 0)
        return NULL;
    args.u.items[0] = exdb_arg_node(of);
    args.u.items[1] = exdb_arg_int(idx);
    exdb_node *gi = exdb_graph_create_node(sc->g, EXDB_OP_CALL_FUNCTION, "operator.getitem",
                                           EXDB_T_PYFN, &args, NULL, name);
    if (gi) {
        gi->meta = meta;
        gi->src = of->src;
    }
    return gi;
}

/* Sets meta["val"] on a copy of n's metadata (metadata may be shared). */
static int set_val(loader *L, exdb_node *n, const exdb_val *v) {
    exdb_meta *m = exdb_arena_alloc(L->a, sizeof *m);
    if (!m)
        return oom(L);
    if (n->meta)
        *m = *n->meta;
    else
        memset(m, 0, sizeof *m);
    m->val = v;
    n->meta = m;
    return 0;
}

/* What the elements handed to gen_getitems are. */
typedef enum {
    ELEM_ARGUMENT, /* Argument unions (a node's outputs list) */
    ELEM_TENSOR,   /* TensorArguments (the elements of as_tensors) */
    ELEM_SYM,      /* SymIntArgument/SymFloatArgument unions (as_sym_ints/as_sym_floats) */
} elem_kind;

/* The name of a named symbolic value {"as_name": "s"} at p. */
static int sym_value_name(loader *L, const exdb_json *v, const jpath *p, const char *what,
                          const char **name) {
    const char *st;
    const exdb_json *sv;
    char q[QS];
    if (get_union(L, v, p, what, &st, &sv) < 0)
        return -1;
    jpath sp = PKEY(p, st);
    if (strcmp(st, "as_name") != 0)
        return lfail(L, p, "%s: expected a named value (\"as_name\"), found %s", what,
                     qs(q, sizeof q, st));
    if (sv->type != EXDB_JSTRING)
        return type_fail(L, sv, &sp, "a string");
    if (check_str(L, sv, &sp) < 0)
        return -1;
    *name = sv->u.str;
    return 0;
}

/* generate_getitems: one operator.getitem per element, named after the
 * element's value; list elements get an auto-named getitem and nested ones.
 * tuple_val receives the vals, as fx_node.meta["val"] = tuple(meta_val). */
static int gen_getitems(loader *L, gscope *sc, exdb_node *of, const exdb_json *outs, const jpath *p,
                        const exdb_meta *meta, elem_kind ek, exdb_val *tuple_val) {
    tuple_val->kind = EXDB_VAL_TUPLE;
    tuple_val->n = outs->len;
    tuple_val->u.items = exdb_arena_calloc(L->a, outs->len ? outs->len : 1, sizeof(exdb_val *));
    if (!tuple_val->u.items)
        return oom(L);
    const exdb_meta *none_meta = NULL;
    for (uint32_t i = 0; i < outs->len; i++) {
        const exdb_json *o = &outs->u.kids[i];
        jpath ip = PIDX(p, i);
        const char *tag = ek == ELEM_TENSOR ? "as_tensor" : "as_sym_int";
        const exdb_json *v = o;
        const jpath *vpp = &ip;
        if (ek == ELEM_ARGUMENT && get_union(L, o, &ip, "a node output", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ip, tag);
        if (ek == ELEM_ARGUMENT)
            vpp = &vp;
        const char *name = NULL;
        char q[QS];
        if (strcmp(tag, "as_tensor") == 0) {
            if (need_obj(L, v, vpp) < 0 || get_str(L, v, "name", vpp, &name) < 0)
                return -1;
        } else if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_float") == 0) {
            if (sym_value_name(L, v, vpp, "a symbolic output", &name) < 0)
                return -1;
        }
        if (name) {
            exdb_node *gi = new_getitem(L, sc, of, i, name, meta);
            if (!gi)
                return oom(L);
            if (sync_node(L, sc, gi, name, vpp) < 0)
                return -1;
            tuple_val->u.items[i] = gi->meta ? gi->meta->val : NULL;
        } else if (strcmp(tag, "as_none") == 0) {
            /* the None getitems of one node share one metadata copy (meta is
             * immutable once attached): one each was ~150 bytes of IR per
             * 17 bytes of JSON */
            exdb_node *gi = new_getitem(L, sc, of, i, "as_none", meta);
            if (!gi)
                return oom(L);
            if (none_meta) {
                gi->meta = none_meta;
                continue;
            }
            exdb_val *nv = exdb_arena_calloc(L->a, 1, sizeof *nv);
            if (!nv || set_val(L, gi, nv) < 0)
                return oom(L);
            none_meta = gi->meta;
        } else if (strcmp(tag, "as_tensors") == 0 || strcmp(tag, "as_sym_ints") == 0 ||
                   strcmp(tag, "as_sym_floats") == 0) {
            if (need_arr(L, v, vpp) < 0)
                return -1;
            exdb_node *list = new_getitem(L, sc, of, i, NULL, meta);
            exdb_val *lv = exdb_arena_calloc(L->a, 1, sizeof *lv);
            if (!list || !lv)
                return oom(L);
            if (gen_getitems(L, sc, list, v, vpp, meta,
                             strcmp(tag, "as_tensors") == 0 ? ELEM_TENSOR : ELEM_SYM, lv) < 0)
                return -1;
            if (set_val(L, list, lv) < 0)
                return -1;
            tuple_val->u.items[i] = lv;
        } else {
            return lfail(L, &ip,
                         "unsupported node output kind %s (expected \"as_tensor\", \"as_tensors\", "
                         "\"as_sym_int\", \"as_sym_ints\", \"as_sym_float\", \"as_sym_floats\" or "
                         "\"as_none\")",
                         qs(q, sizeof q, tag));
        }
    }
    return 0;
}

/* deserialize_outputs: binds a node's outputs to names. One tensor or
 * symbolic output: the node is that value. One None: the node is renamed
 * "<target>_unused". Anything else (several outputs, a tensor list, a HOP
 * that returns a 1-tuple): getitem nodes, the node's val a tuple. */
static int load_outputs(loader *L, gscope *sc, exdb_node *n, const exdb_json *outs, const jpath *p,
                        int is_hop, int hop_single) {
    if (outs->len == 0)
        return 0;
    const exdb_json *o0 = &outs->u.kids[0];
    jpath p0 = PIDX(p, 0);
    const char *tag;
    const exdb_json *v;
    char q[QS];
    if (get_union(L, o0, &p0, "a node output", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(&p0, tag);
    int is_none = strcmp(tag, "as_none") == 0;
    /* a HOP whose one result is a 1-tuple: getitem(node, 0) named after it */
    int hop_tuple = outs->len == 1 && is_hop && !hop_single && !is_none;
    int one = outs->len == 1 && !hop_tuple;
    if (one && strcmp(tag, "as_tensor") == 0) {
        const char *name;
        if (need_obj(L, v, &vp) < 0 || get_str(L, v, "name", &vp, &name) < 0)
            return -1;
        /* a HOP shares its meta with its get_attr subgraph arguments */
        return sync_node_meta(L, sc, n, name, &vp, !is_hop);
    }
    if (one && (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_bool") == 0 ||
                strcmp(tag, "as_sym_float") == 0)) {
        const char *name;
        if (sym_value_name(L, v, &vp, "a symbolic output", &name) < 0)
            return -1;
        return sync_node(L, sc, n, name, &vp);
    }
    if (one && is_none) {
        /* fx_node._rename(f"{self.graph._target_to_str(fx_node.target)}_unused") */
        const char *base = exdb_target_to_str(L->a, n->op, n->target, n->tkind);
        char *cand = base ? exdb_arena_printf(L->a, "%s_unused", base) : NULL;
        if (!cand)
            return oom(L);
        if (strcmp(cand, n->name) != 0) {
            const char *nm = exdb_graph_create_name(sc->g, cand);
            if (!nm)
                return oom(L);
            void **slot = exdb_strmap_find(&sc->g->names, n->name);
            if (slot && *slot == n)
                *slot = NULL;
            slot = exdb_strmap_find(&sc->g->names, nm);
            *slot = n;
            n->name = nm;
            exdb_node_hash_name(n);
        }
        exdb_val *nv = exdb_arena_calloc(L->a, 1, sizeof *nv);
        return nv ? set_val(L, n, nv) : oom(L);
    }
    exdb_val *tv = exdb_arena_calloc(L->a, 1, sizeof *tv);
    if (!tv)
        return oom(L);
    int rc;
    if (one) {
        /* a single list: its elements are indexed straight off the node */
        if (strcmp(tag, "as_tensors") != 0)
            return lfail(L, &p0,
                         "unsupported node output kind %s (expected \"as_tensor\", "
                         "\"as_tensors\", \"as_sym_int\", \"as_sym_float\", \"as_sym_bool\" or "
                         "\"as_none\")",
                         qs(q, sizeof q, tag));
        if (need_arr(L, v, &vp) < 0)
            return -1;
        rc = gen_getitems(L, sc, n, v, &vp, n->meta, ELEM_TENSOR, tv);
    } else {
        rc = gen_getitems(L, sc, n, outs, p, n->meta, ELEM_ARGUMENT, tv);
    }
    if (rc < 0)
        return -1;
    if (set_val(L, n, tv) < 0)
        return -1;
    /* serialized_name_to_node[fx_node.name] = fx_node (overwriting, as PyTorch does) */
    void **slot = exdb_strmap_put(&sc->values, n->name, NULL);
    if (!slot)
        return oom(L);
    *slot = n;
    return 0;
}

/* The name of outputs[0].as_tensor when the node has exactly that one
 * output (the schema-less stand-in for _is_single_tensor_return). */
static const char *single_tensor_name(const exdb_json *outs) {
    if (outs->len != 1)
        return NULL;
    const exdb_json *t = get_opt(&outs->u.kids[0], "as_tensor");
    const exdb_json *nm = get_opt(t, "name");
    return exdb_json_is(nm, EXDB_JSTRING) ? nm->u.str : NULL;
}

/* How input i of a call_function is passed. Sym ops: positionally. HOPs:
 * positionally when the name is "" (deserialize_hoo_inputs). OpOverloads:
 * by ArgumentKind (1 positional, 2 keyword unless the name is a Python
 * keyword); with no kind (5.x) or kind 0 PyTorch consults the op schema,
 * which exdb does not have, so such inputs count as positional. */
static int input_is_positional(loader *L, const exdb_json *na, const jpath *nap, const char *aname,
                               int sym, int is_hop, int *positional) {
    if (sym) {
        *positional = 1;
    } else if (is_hop) {
        *positional = aname[0] == '\0';
    } else {
        const exdb_json *kind = get_opt(na, "kind");
        int64_t k = 1;
        if (kind) {
            jpath kp = PKEY(nap, "kind");
            if (as_int(L, kind, &kp, &k) < 0)
                return -1;
        }
        *positional = !(k == 2 && !is_python_keyword(aname));
    }
    return 0;
}

/* A node's args and kwargs from its inputs ins (at ip) in serialized
 * order, pos[i] saying which are positional (npos of them, nkw keyword). */
static int load_node_args(loader *L, gscope *sc, const exdb_json *ins, const jpath *ip,
                          const uint8_t *pos, uint32_t npos, uint32_t nkw, exdb_arg *args,
                          exdb_arg *kwargs) {
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, npos, args) < 0 ||
        exdb_arg_seq(L->a, EXDB_ARG_DICT, nkw, kwargs) < 0)
        return oom(L);
    uint32_t ap = 0, kp = 0;
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *na = &ins->u.kids[i];
        jpath nap = PIDX(ip, i);
        jpath argp = PKEY(&nap, "arg");
        exdb_arg *dst;
        if (pos[i]) {
            dst = &args->u.items[ap++];
        } else {
            kwargs->keys[kp] = exdb_json_get(na, "name")->u.str;
            dst = &kwargs->u.items[kp++];
        }
        if (load_arg(L, sc, exdb_json_get(na, "arg"), &argp, dst) < 0)
            return -1;
    }
    return 0;
}

/* deserialize_node: one serialized node -> one call_function node (plus
 * getitems). The name handed to create_node is Node.name when present, else
 * the single output's name (sym ops; single-tensor ops; HOPs flagged
 * is_hop_single_tensor_return), else none (FX derives it from the target);
 * outputs are then synced, which may force the printed name. */
static int load_node(loader *L, gscope *sc, const exdb_json *jn, const jpath *p, int32_t idx) {
    if (need_obj(L, jn, p) < 0)
        return -1;
    const char *target;
    jpath tp = PKEY(p, "target");
    if (get_str(L, jn, "target", p, &target) < 0 || check_name(L, target, &tp, "target") < 0)
        return -1;
    jpath ip = PKEY(p, "inputs"), op = PKEY(p, "outputs"), mp = PKEY(p, "metadata");
    const exdb_json *ins = exdb_json_get(jn, "inputs");
    const exdb_json *outs = exdb_json_get(jn, "outputs");
    if (need_arr(L, ins, &ip) < 0 || need_arr(L, outs, &op) < 0)
        return -1;
    const exdb_json *jname = get_opt(jn, "name");
    const char *given = NULL;
    if (jname) {
        jpath np = PKEY(p, "name");
        if (jname->type != EXDB_JSTRING)
            return type_fail(L, jname, &np, "a string or null");
        if (check_str(L, jname, &np) < 0 || check_name(L, jname->u.str, &np, "node name") < 0)
            return -1;
        if (jname->u.str[0])
            given = jname->u.str;
    }
    exdb_meta *meta = NULL;
    if (load_meta(L, get_opt(jn, "metadata"), &mp, &meta) < 0)
        return -1;

    exdb_target_kind tk;
    const char *pt = pretty_target(L, target, &tk);
    if (!pt)
        return oom(L);
    /* serialize.py's _SYM_OPS are Python functions (operator.*, math.trunc,
     * torch.sym_*), plus aten.item.default; exdb reads any Python-function
     * target that way (PyTorch refuses the ones it does not know). */
    int sym = tk == EXDB_T_PYFN || strcmp(target, "torch.ops.aten.item.default") == 0;
    int is_hop = tk == EXDB_T_HOP;
    const exdb_json *hs = get_opt(jn, "is_hop_single_tensor_return");
    int hop_single = hs && hs->type == EXDB_JTRUE;
    const char *sym_name = NULL;
    jpath sym_path = PIDX(&op, 0), sym_vpath = sym_path;
    if (sym) {
        /* the one output: {"as_sym_int"/"as_sym_float"/"as_sym_bool": {"as_name": ...}} */
        const char *tag;
        const exdb_json *v;
        if (outs->len == 0)
            return lfail(L, &op, "a symbolic op (%s) must have one output, found none", pt);
        if (get_union(L, &outs->u.kids[0], &sym_path, "a node output", &tag, &v) < 0)
            return -1;
        sym_vpath = PKEY(&sym_path, tag);
        if (strcmp(tag, "as_sym_int") && strcmp(tag, "as_sym_float") &&
            strcmp(tag, "as_sym_bool")) {
            char q[QS];
            return lfail(L, &sym_path,
                         "a symbolic op (%s) must output \"as_sym_int\", \"as_sym_float\" or "
                         "\"as_sym_bool\", found %s",
                         pt, qs(q, sizeof q, tag));
        }
        if (sym_value_name(L, v, &sym_vpath, "a symbolic output", &sym_name) < 0)
            return -1;
    }

    /* args / kwargs, in serialized order */
    uint8_t *pos = exdb_arena_alloc(L->a, ins->len ? ins->len : 1);
    if (!pos)
        return oom(L);
    uint32_t npos = 0, nkw = 0;
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *na = &ins->u.kids[i];
        jpath nap = PIDX(&ip, i);
        const char *aname;
        int positional;
        if (need_obj(L, na, &nap) < 0 || get_str(L, na, "name", &nap, &aname) < 0 ||
            input_is_positional(L, na, &nap, aname, sym, is_hop, &positional) < 0)
            return -1;
        if (!exdb_json_get(na, "arg"))
            return lfail(L, &nap, "missing key \"arg\" (expected an Argument)");
        pos[i] = (uint8_t)positional;
        if (positional)
            npos++;
        else
            nkw++;
    }
    /* The argument trees go to the program's args arena (see program.h):
     * L->a points there while they are built. */
    exdb_arena *own = L->a;
    L->a = L->args;
    exdb_arg args, kwargs;
    int rc = load_node_args(L, sc, ins, &ip, pos, npos, nkw, &args, &kwargs);
    L->a = own;
    if (rc < 0)
        return -1;

    const char *cand = given;
    if (!cand)
        cand = sym ? sym_name : (!is_hop || hop_single) ? single_tensor_name(outs) : NULL;
    exdb_node *n =
        exdb_graph_create_node(sc->g, EXDB_OP_CALL_FUNCTION, pt, tk, &args, &kwargs, cand);
    if (!n)
        return oom(L);
    n->src = idx;
    n->meta = meta;
    /* HOP: get_attr subgraph arguments take the HOP's metadata */
    if (is_hop) {
        for (uint32_t i = 0; i < args.n + kwargs.n; i++) {
            exdb_arg *a = i < args.n ? &args.u.items[i] : &kwargs.u.items[i - args.n];
            if (a->kind == EXDB_ARG_NODE && a->u.node->op == EXDB_OP_GET_ATTR) {
                exdb_meta *m = exdb_arena_alloc(L->a, sizeof *m);
                if (!m)
                    return oom(L);
                *m = *meta;
                m->val = NULL;
                a->u.node->meta = m;
            }
        }
    }
    if (sym) /* deserialize_sym_op_outputs */
        return sync_node(L, sc, n, sym_name, &sym_vpath);
    return load_outputs(L, sc, n, outs, &op, is_hop, hop_single);
}

/* as_graph: the subgraph (its own namespace and value names) registered
 * under GraphArgument.name, and a get_attr node of that name in the parent,
 * created before the node that uses it. */
static int load_subgraph_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p,
                             exdb_arg *out) {
    const char *name;
    if (need_obj(L, v, p) < 0 || get_str(L, v, "name", p, &name) < 0)
        return -1;
    const exdb_json *jg = exdb_json_get(v, "graph");
    jpath gp = PKEY(p, "graph");
    if (need_obj(L, jg, &gp) < 0)
        return -1;
    exdb_graph *sub = exdb_graph_new(L->a);
    if (!sub)
        return oom(L);
    if (load_graph(L, jg, &gp, sub, 1) < 0)
        return -1;
    exdb_node *ga =
        exdb_graph_create_node(sc->g, EXDB_OP_GET_ATTR, name, EXDB_T_STR, NULL, NULL, name);
    if (!ga)
        return oom(L);
    exdb_program *P = L->prog;
    if (P->nsubgraphs == L->subgraphs_cap) {
        /* doubling: the copies left behind in the arena add up to less than
         * the final list (one copy per subgraph was quadratic: 3 GB at 16k) */
        uint32_t ncap = L->subgraphs_cap ? 2 * L->subgraphs_cap : 8;
        struct exdb_subgraph *ns = exdb_arena_alloc(L->a, (size_t)ncap * sizeof *ns);
        if (!ns)
            return oom(L);
        if (P->nsubgraphs)
            memcpy(ns, P->subgraphs, P->nsubgraphs * sizeof *ns);
        P->subgraphs = ns;
        L->subgraphs_cap = ncap;
    }
    struct exdb_subgraph *e = &P->subgraphs[P->nsubgraphs++];
    e->name = name;
    e->graph = sub;
    e->owner = ga;
    *out = exdb_arg_node(ga);
    return 0;
}

/* The placeholder target of constant graph input i:
 * `self.signature.input_specs[i].arg.name or f"arg{i}"`. PyTorch consults
 * the top-level signature even inside a subgraph, and so does exdb. */
static const char *constant_input_name(loader *L, uint32_t i) {
    exdb_program *P = L->prog;
    if (i < P->ninputs && P->inputs[i].name && P->inputs[i].name[0])
        return P->inputs[i].name;
    return exdb_arena_printf(L->a, "arg%u", i);
}

/* Graph output value (deserialize_graph_output). */
static int load_output_value(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                             exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, "a graph output", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    memset(out, 0, sizeof *out);
    if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0)
        return tensor_ref(L, sc, v, &vp, out);
    if (strcmp(tag, "as_sym_int") == 0)
        return sym_ref(L, sc, v, &vp, 0, out);
    if (strcmp(tag, "as_sym_float") == 0)
        return sym_ref(L, sc, v, &vp, 1, out);
    if (strcmp(tag, "as_sym_bool") == 0)
        return sym_ref(L, sc, v, &vp, 2, out);
    if (strcmp(tag, "as_int") == 0)
        return elem_int(L, sc, v, &vp, out);
    if (strcmp(tag, "as_float") == 0)
        return elem_float(L, sc, v, &vp, out);
    if (strcmp(tag, "as_bool") == 0)
        return elem_bool(L, sc, v, &vp, out);
    if (strcmp(tag, "as_none") == 0)
        return 0;
    /* PyTorch refuses anything else; exdb reads it as an argument */
    return load_arg(L, sc, j, p, out);
}

/* deserialize_graph: placeholders, nodes, output. Named inputs (tensors,
 * custom objects, named SymInts) print exactly as named; constant inputs
 * (ints, floats, bools, None, strings) get create_name's version of their
 * signature name and are not values other nodes can refer to. */
static int load_graph(loader *L, const exdb_json *jg, const jpath *gp, exdb_graph *g, int is_sub) {
    gscope sc = {.g = g, .jgraph = jg};
    exdb_strmap_init(&sc.values, L->a);
    exdb_strmap_init(&sc.metas, L->a);
    if (load_values(L, &sc, gp) < 0)
        return -1;
    const exdb_json *ins = exdb_json_get(jg, "inputs");
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    const exdb_json *outs = exdb_json_get(jg, "outputs");
    jpath ip = PKEY(gp, "inputs"), np = PKEY(gp, "nodes"), op = PKEY(gp, "outputs");
    if (need_arr(L, ins, &ip) < 0 || need_arr(L, nodes, &np) < 0 || need_arr(L, outs, &op) < 0)
        return -1;
    L->nnodes += (uint64_t)ins->len + nodes->len;
    if (L->nnodes > EXDB_MAX_NODES)
        return lfail(L, &np,
                     "%u nodes and %u graph inputs (%llu in all graphs so far) exceed the limit "
                     "of %d nodes",
                     nodes->len, ins->len, (unsigned long long)L->nnodes, EXDB_MAX_NODES);
    /* one name per input and node, or per value if there are more values
     * (the getitems of multi-output nodes name values too); one value per
     * entry of the value tables */
    /* capped, so a file with a huge value table and few nodes cannot make
     * the loader reserve nodes it will never create, and within what is
     * left of the loader's budget (reserve_left) */
    uint64_t nn = (uint64_t)ins->len + nodes->len, cap = 2 * nn + 64;
    uint64_t est64 = nn > sc.metas.count ? nn : sc.metas.count;
    est64 = est64 < cap ? est64 : cap;
    est64 = est64 < L->reserve_left ? est64 : L->reserve_left;
    L->reserve_left -= est64;
    uint32_t est = (uint32_t)est64;
    uint32_t nbases = ins->len + (nodes->len < 64 ? nodes->len : 64);
    if (exdb_graph_reserve(g, est + 1, nbases < est + 1 ? nbases : est + 1) < 0 ||
        (sc.metas.count && exdb_strmap_reserve(&sc.values, sc.metas.count) < 0))
        return oom(L);
    for (uint32_t i = 0; i < ins->len; i++) {
        jpath ep = PIDX(&ip, i);
        const char *tag;
        const exdb_json *v;
        char q[QS];
        if (get_union(L, &ins->u.kids[i], &ep, "a graph input", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ep, tag);
        const char *name = NULL;
        if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0 ||
            strcmp(tag, "as_token") == 0) {
            if (need_obj(L, v, &vp) < 0 || get_str(L, v, "name", &vp, &name) < 0)
                return -1;
        } else if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_bool") == 0 ||
                   strcmp(tag, "as_sym_float") == 0) {
            if (sym_value_name(L, v, &vp, "a symbolic graph input", &name) < 0)
                return -1;
        } else if (strcmp(tag, "as_int") == 0 || strcmp(tag, "as_float") == 0 ||
                   strcmp(tag, "as_bool") == 0 || strcmp(tag, "as_none") == 0 ||
                   strcmp(tag, "as_string") == 0) {
            const char *target = constant_input_name(L, i);
            exdb_arg *ca = exdb_arena_alloc(L->a, sizeof *ca);
            exdb_val *cval = exdb_arena_calloc(L->a, 1, sizeof *cval);
            if (!target || !ca || !cval)
                return oom(L);
            if (load_output_value(L, &sc, &ins->u.kids[i], &ep, ca) < 0)
                return -1;
            cval->kind = EXDB_VAL_CONST;
            cval->u.arg = ca;
            exdb_node *ph = exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, target, EXDB_T_STR, NULL,
                                                   NULL, NULL);
            if (!ph || set_val(L, ph, cval) < 0)
                return oom(L);
            continue;
        } else {
            return lfail(L, &ep,
                         "unsupported graph input kind %s (expected \"as_tensor\", "
                         "\"as_custom_obj\", \"as_sym_int\" or a constant)",
                         qs(q, sizeof q, tag));
        }
        /* graph.placeholder(name), then placeholder_node.name = name */
        exdb_node *ph =
            exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, name, EXDB_T_STR, NULL, NULL, NULL);
        if (!ph)
            return oom(L);
        if (sync_node(L, &sc, ph, name, &vp) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < nodes->len; i++) {
        jpath ep = PIDX(&np, i);
        const exdb_json *jn = &nodes->u.kids[i];
        exdb_json parsed;
        if (!(jn = table_entry(L, jn, &parsed)))
            return -1;
        if (load_node(L, &sc, jn, &ep, is_sub ? -1 : (int32_t)i) < 0)
            return -1;
    }
    /* output node */
    exdb_arg res;
    const exdb_json *single = get_opt(jg, "is_single_tensor_return");
    if (single && single->type == EXDB_JTRUE) {
        if (outs->len != 1)
            return lfail(L, &op, "is_single_tensor_return is true, so expected 1 output, found %u",
                         outs->len);
        jpath ep = PIDX(&op, 0);
        if (load_output_value(L, &sc, &outs->u.kids[0], &ep, &res) < 0)
            return -1;
    } else {
        if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, outs->len, &res) < 0)
            return oom(L);
        for (uint32_t i = 0; i < outs->len; i++) {
            jpath ep = PIDX(&op, i);
            if (load_output_value(L, &sc, &outs->u.kids[i], &ep, &res.u.items[i]) < 0)
                return -1;
        }
    }
    exdb_arg args;
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, 1, &args) < 0)
        return oom(L);
    args.u.items[0] = res;
    if (!exdb_graph_create_node(g, EXDB_OP_OUTPUT, "output", EXDB_T_STR, &args, NULL, NULL))
        return oom(L);
    return 0;
}

/* qsort order of subgraphs_by_owner: by the owner node's address. */
static int by_owner(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)(*(struct exdb_subgraph *const *)a)->owner;
    uintptr_t y = (uintptr_t)(*(struct exdb_subgraph *const *)b)->owner;
    return x < y ? -1 : x > y;
}

/* Indexes the subgraphs by name (and by owner node) once all are loaded (entries no longer
 * move): exdb_program_subgraph is then one hash lookup, not a scan of a
 * list that a program of N higher-order ops makes N long. */
static int index_subgraphs(loader *L) {
    exdb_program *P = L->prog;
    exdb_strmap_init(&P->subgraph_names, L->a);
    if (exdb_strmap_reserve(&P->subgraph_names, P->nsubgraphs) < 0)
        return oom(L);
    for (uint32_t i = 0; i < P->nsubgraphs; i++) {
        void **slot = exdb_strmap_put(&P->subgraph_names, P->subgraphs[i].name, NULL);
        if (!slot)
            return oom(L);
        *slot = &P->subgraphs[i];
    }
    if (!P->nsubgraphs)
        return 0;
    P->subgraphs_by_owner = exdb_arena_alloc(L->a, P->nsubgraphs * sizeof *P->subgraphs_by_owner);
    if (!P->subgraphs_by_owner)
        return oom(L);
    for (uint32_t i = 0; i < P->nsubgraphs; i++)
        P->subgraphs_by_owner[i] = &P->subgraphs[i];
    qsort(P->subgraphs_by_owner, P->nsubgraphs, sizeof *P->subgraphs_by_owner, by_owner);
    return 0;
}

const struct exdb_subgraph *exdb_program_subgraph(const exdb_program *p, const char *name) {
    return exdb_strmap_get(&p->subgraph_names, name);
}

const struct exdb_subgraph *exdb_program_subgraph_owned(const exdb_program *p,
                                                        const exdb_node *owner) {
    uint32_t lo = 0, hi = p->subgraphs_by_owner ? p->nsubgraphs : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const exdb_node *o = p->subgraphs_by_owner[mid]->owner;
        if (o == owner)
            return p->subgraphs_by_owner[mid];
        if ((uintptr_t)o < (uintptr_t)owner)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- signature */

static const char *const in_keys[] = {"user_input", "parameter", "buffer",        "tensor_constant",
                                      "custom_obj", "token",     "constant_input"};
static const char *const out_keys[] = {"user_output",
                                       "loss_output",
                                       "buffer_mutation",
                                       "gradient_to_parameter",
                                       "gradient_to_user_input",
                                       "user_input_mutation",
                                       "token",
                                       "parameter_mutation"};

/* The name of an Argument that names a value, or NULL for constants. */
static int arg_value_name(loader *L, const exdb_json *j, const jpath *p, const char **name,
                          exdb_arg *constant) {
    const char *tag;
    const exdb_json *v;
    *name = NULL;
    if (get_union(L, j, p, "an Argument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0 ||
        strcmp(tag, "as_token") == 0)
        return need_obj(L, v, &vp) < 0 ? -1 : get_str(L, v, "name", &vp, name);
    if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_float") == 0 ||
        strcmp(tag, "as_sym_bool") == 0) {
        const char *st;
        const exdb_json *sv;
        if (get_union(L, v, &vp, "a symbolic argument", &st, &sv) < 0)
            return -1;
        jpath np = PKEY(&vp, st);
        if (strcmp(st, "as_name") == 0 && sv->type == EXDB_JSTRING) {
            if (check_str(L, sv, &np) < 0)
                return -1;
            *name = sv->u.str;
        }
        return 0;
    }
    if (constant) {
        gscope none = {0};
        exdb_strmap_init(&none.values, L->a);
        return load_arg(L, &none, j, p, constant);
    }
    return 0;
}

/* deserialize_signature: input_specs/output_specs (unions, docs/pt2-format.md §7)
 * into prog->inputs/outputs. Loaded before the graph, since constant graph
 * inputs take their placeholder names from it. */
static int load_signature(loader *L, const exdb_json *sig, const jpath *p) {
    exdb_program *P = L->prog;
    if (need_obj(L, sig, p) < 0)
        return -1;
    const exdb_json *ins = exdb_json_get(sig, "input_specs");
    const exdb_json *outs = exdb_json_get(sig, "output_specs");
    jpath ip = PKEY(p, "input_specs"), op = PKEY(p, "output_specs");
    if (!ins && (exdb_json_get(sig, "inputs_to_parameters") || exdb_json_get(sig, "user_inputs")))
        return lfail(L, p,
                     "schema-1 graph signature (inputs_to_parameters/user_inputs maps) is not "
                     "supported; expected input_specs/output_specs");
    if (need_arr(L, ins, &ip) < 0 || need_arr(L, outs, &op) < 0)
        return -1;
    P->inputs = exdb_arena_calloc(L->a, ins->len ? ins->len : 1, sizeof *P->inputs);
    P->outputs = exdb_arena_calloc(L->a, outs->len ? outs->len : 1, sizeof *P->outputs);
    if (!P->inputs || !P->outputs)
        return oom(L);
    P->ninputs = ins->len;
    P->noutputs = outs->len;
    for (uint32_t i = 0; i < ins->len; i++) {
        jpath ep = PIDX(&ip, i);
        const char *tag;
        const exdb_json *v;
        if (get_union(L, &ins->u.kids[i], &ep, "an InputSpec", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ep, tag);
        exdb_input_spec *s = &P->inputs[i];
        s->persistent = -1;
        int k = -1;
        for (int t = 0; t < 7; t++)
            if (strcmp(tag, in_keys[t]) == 0)
                k = t;
        if (k < 0) {
            char q[QS];
            return lfail(L, &ep,
                         "unknown input spec kind %s (expected user_input, parameter, buffer, "
                         "tensor_constant, custom_obj, token or constant_input)",
                         qs(q, sizeof q, tag));
        }
        s->kind = (exdb_input_kind)k;
        if (need_obj(L, v, &vp) < 0)
            return -1;
        if (k == EXDB_IN_CONSTANT_INPUT) {
            if (get_str(L, v, "name", &vp, &s->name) < 0)
                return -1;
            const exdb_json *cv = exdb_json_get(v, "value");
            jpath cvp = PKEY(&vp, "value");
            if (cv) {
                gscope none = {0};
                exdb_strmap_init(&none.values, L->a);
                if (load_arg(L, &none, cv, &cvp, &s->value) < 0)
                    return -1;
            }
            continue;
        }
        const exdb_json *arg = exdb_json_get(v, "arg");
        jpath ap = PKEY(&vp, "arg");
        if (!arg)
            return lfail(L, &vp, "missing key \"arg\" (expected an Argument)");
        if (k == EXDB_IN_USER_INPUT) {
            if (arg_value_name(L, arg, &ap, &s->name, &s->value) < 0)
                return -1;
        } else {
            if (need_obj(L, arg, &ap) < 0 || get_str(L, arg, "name", &ap, &s->name) < 0)
                return -1;
            const exdb_json *cf = exdb_json_get(arg, "class_fqn");
            jpath cfp = PKEY(&ap, "class_fqn");
            if (k == EXDB_IN_CUSTOM_OBJ && exdb_json_is(cf, EXDB_JSTRING)) {
                if (check_str(L, cf, &cfp) < 0)
                    return -1;
                s->class_fqn = cf->u.str;
            }
        }
        const char *tkey = k == EXDB_IN_PARAMETER         ? "parameter_name"
                           : k == EXDB_IN_BUFFER          ? "buffer_name"
                           : k == EXDB_IN_TENSOR_CONSTANT ? "tensor_constant_name"
                           : k == EXDB_IN_CUSTOM_OBJ      ? "custom_obj_name"
                                                          : NULL;
        if (tkey && get_str(L, v, tkey, &vp, &s->target) < 0)
            return -1;
        if (k == EXDB_IN_BUFFER) {
            const exdb_json *pers = get_opt(v, "persistent");
            s->persistent = 1;
            if (pers) {
                jpath pp = PKEY(&vp, "persistent");
                if (as_bool(L, pers, &pp, &s->persistent) < 0)
                    return -1;
            }
        }
    }
    for (uint32_t i = 0; i < outs->len; i++) {
        jpath ep = PIDX(&op, i);
        const char *tag;
        const exdb_json *v;
        if (get_union(L, &outs->u.kids[i], &ep, "an OutputSpec", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ep, tag);
        exdb_output_spec *s = &P->outputs[i];
        int k = -1;
        for (int t = 0; t < 8; t++)
            if (strcmp(tag, out_keys[t]) == 0)
                k = t;
        if (k < 0) {
            char q[QS];
            return lfail(L, &ep,
                         "unknown output spec kind %s (expected user_output, loss_output, "
                         "buffer_mutation, parameter_mutation, gradient_to_parameter, "
                         "gradient_to_user_input, user_input_mutation or token)",
                         qs(q, sizeof q, tag));
        }
        s->kind = (exdb_output_kind)k;
        if (need_obj(L, v, &vp) < 0)
            return -1;
        const exdb_json *arg = exdb_json_get(v, "arg");
        jpath ap = PKEY(&vp, "arg");
        if (!arg)
            return lfail(L, &vp, "missing key \"arg\" (expected an Argument)");
        if (k == EXDB_OUT_USER_OUTPUT) {
            if (arg_value_name(L, arg, &ap, &s->name, &s->value) < 0)
                return -1;
        } else {
            if (need_obj(L, arg, &ap) < 0 || get_str(L, arg, "name", &ap, &s->name) < 0)
                return -1;
        }
        const char *tkey =
            k == EXDB_OUT_BUFFER_MUTATION ? "buffer_name"
            : (k == EXDB_OUT_GRADIENT_TO_PARAMETER || k == EXDB_OUT_PARAMETER_MUTATION)
                ? "parameter_name"
            : (k == EXDB_OUT_GRADIENT_TO_USER_INPUT || k == EXDB_OUT_USER_INPUT_MUTATION)
                ? "user_input_name"
                : NULL;
        if (tkey && get_str(L, v, tkey, &vp, &s->target) < 0)
            return -1;
    }
    return 0;
}

/* The checks of ExportedProgram's verifier (_verify_exported_program_signature)
 * that concern names: each named input spec names the placeholder at its
 * position, each named output spec the value the graph returns there. */
static int check_signature_names(loader *L, const jpath *sigp) {
    exdb_program *P = L->prog;
    char q1[QS], q2[QS];
    jpath isp = PKEY(sigp, "input_specs"), osp = PKEY(sigp, "output_specs");
    const exdb_node *ph = P->graph->head;
    for (uint32_t i = 0; i < P->ninputs; i++, ph = ph ? ph->next : NULL) {
        const exdb_input_spec *s = &P->inputs[i];
        if (!ph || ph->op != EXDB_OP_PLACEHOLDER)
            break;
        if (!s->name || s->kind == EXDB_IN_CONSTANT_INPUT || s->kind == EXDB_IN_CUSTOM_OBJ ||
            s->kind == EXDB_IN_TOKEN)
            continue;
        if (strcmp(s->name, ph->name) != 0) {
            jpath ep = PIDX(&isp, i);
            return lfail(L, &ep,
                         "names %s, but graph input %u is %s (input specs and graph inputs pair "
                         "up in order)",
                         qs(q1, sizeof q1, s->name), i, qs(q2, sizeof q2, ph->name));
        }
    }
    const exdb_node *out = exdb_graph_output(P->graph);
    if (!out || out->args.n != 1)
        return 0;
    const exdb_arg *res = &out->args.u.items[0];
    uint32_t nres = res->kind == EXDB_ARG_TUPLE ? res->n : 1;
    for (uint32_t i = 0; i < P->noutputs && i < nres; i++) {
        const exdb_output_spec *s = &P->outputs[i];
        const exdb_arg *a = res->kind == EXDB_ARG_TUPLE ? &res->u.items[i] : res;
        if (!s->name || s->kind == EXDB_OUT_TOKEN)
            continue;
        if (a->kind != EXDB_ARG_NODE || strcmp(s->name, a->u.node->name) != 0) {
            jpath ep = PIDX(&osp, i);
            return lfail(L, &ep,
                         "names %s, but graph output %u is %s (output specs and graph outputs "
                         "pair up in order)",
                         qs(q1, sizeof q1, s->name), i,
                         a->kind == EXDB_ARG_NODE ? qs(q2, sizeof q2, a->u.node->name)
                                                  : "a constant");
        }
    }
    return 0;
}

/* ---- module_call_graph */

static int load_str_list(loader *L, const exdb_json *j, const jpath *p, const char ***out,
                         uint32_t *n) {
    if (need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    if (!*out)
        return oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ep = PIDX(p, i);
        if (!exdb_json_is(&j->u.kids[i], EXDB_JSTRING))
            return lfail(L, &ep, "expected a string, found %s", exdb_json_type_name(&j->u.kids[i]));
        if (check_str(L, &j->u.kids[i], &ep) < 0)
            return -1;
        (*out)[i] = j->u.kids[i].u.str;
    }
    return 0;
}

/* ModuleCallSignature.inputs/outputs: value names (NULL for constants),
 * and each ConstantArgument's value in *vals (None beside a name). */
static int load_sig_args(loader *L, const exdb_json *j, const jpath *p, const char ***out,
                         exdb_arg **vals, uint32_t *n) {
    if (!j) {
        *n = 0;
        *out = NULL;
        *vals = NULL;
        return 0;
    }
    if (need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    *vals = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **vals);
    if (!*out || !*vals)
        return oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ep = PIDX(p, i);
        if (arg_value_name(L, &j->u.kids[i], &ep, &(*out)[i], &(*vals)[i]) < 0)
            return -1;
    }
    return 0;
}

/* module_call_graph: one entry per module FQN, with the signature (and its
 * TreeSpecs, parsed) of the root and of preserved modules. */
static int load_call_graph(loader *L, const exdb_json *mcg, const jpath *p) {
    exdb_program *P = L->prog;
    if (need_arr(L, mcg, p) < 0)
        return -1;
    P->calls = exdb_arena_calloc(L->a, mcg->len ? mcg->len : 1, sizeof *P->calls);
    if (!P->calls)
        return oom(L);
    P->ncalls = mcg->len;
    for (uint32_t i = 0; i < mcg->len; i++) {
        const exdb_json *e = &mcg->u.kids[i];
        jpath ep = PIDX(p, i);
        if (need_obj(L, e, &ep) < 0 || get_str(L, e, "fqn", &ep, &P->calls[i].fqn) < 0)
            return -1;
        jpath fqp = PKEY(&ep, "fqn");
        const char *fqn = P->calls[i].fqn;
        if (check_name(L, fqn, &fqp, "module fqn") < 0)
            return -1;
        uint32_t levels = fqn[0] != 0;
        for (const char *q = fqn; *q; q++)
            levels += *q == '.';
        if (levels > EXDB_MAX_MODULE_DEPTH)
            return lfail(L, &fqp,
                         "%u components: modules nested deeper than the limit of %d levels", levels,
                         EXDB_MAX_MODULE_DEPTH);
        if (count_module(L, fqn, strlen(fqn), &fqp) < 0)
            return -1;
        const exdb_json *sig = get_opt(e, "signature");
        if (!sig)
            continue;
        jpath sp = PKEY(&ep, "signature");
        if (need_obj(L, sig, &sp) < 0)
            return -1;
        exdb_call_signature *s = exdb_arena_calloc(L->a, 1, sizeof *s);
        if (!s)
            return oom(L);
        P->calls[i].sig = s;
        jpath inp = PKEY(&sp, "inputs"), outp = PKEY(&sp, "outputs");
        if (load_sig_args(L, get_opt(sig, "inputs"), &inp, &s->inputs, &s->input_values,
                          &s->ninputs) < 0 ||
            load_sig_args(L, get_opt(sig, "outputs"), &outp, &s->outputs, &s->output_values,
                          &s->noutputs) < 0)
            return -1;
        for (int which = 0; which < 2; which++) {
            const char *key = which ? "out_spec" : "in_spec";
            const exdb_json *spec = get_opt(sig, key);
            jpath kp = PKEY(&sp, key);
            if (!spec)
                continue;
            if (spec->type != EXDB_JSTRING)
                return lfail(L, &kp, "expected a TreeSpec JSON string, found %s",
                             exdb_json_type_name(spec));
            if (check_str(L, spec, &kp) < 0)
                return -1;
            exdb_treespec *ts;
            exdb_error e2 = {0};
            if (exdb_parse_treespec(L->a, spec->u.str, &ts, &e2) < 0)
                return lfail(L, &kp, "%s", e2.msg);
            if (which) {
                s->out_spec = ts;
                s->out_spec_text = spec->u.str;
            } else {
                s->in_spec = ts;
                s->in_spec_text = spec->u.str;
            }
        }
        const exdb_json *fan = get_opt(sig, "forward_arg_names");
        if (fan) {
            jpath fp = PKEY(&sp, "forward_arg_names");
            if (load_str_list(L, fan, &fp, &s->forward_arg_names, &s->nforward_arg_names) < 0)
                return -1;
        }
    }
    return 0;
}

/* ---- top level */

static int load_kv_strings(loader *L, const exdb_json *j, const jpath *p, exdb_kv **out,
                           uint32_t *n) {
    if (!j)
        return 0;
    if (need_obj(L, j, p) < 0)
        return -1;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    if (!*out)
        return oom(L);
    *n = j->len;
    for (uint32_t i = 0; i < j->len; i++) {
        const exdb_json *e = &j->u.kids[i];
        jpath ep = PKEY(p, e->key);
        if (check_key(L, e->key, p) < 0)
            return -1;
        (*out)[i].key = e->key;
        if (e->type == EXDB_JSTRING) {
            if (check_str(L, e, &ep) < 0)
                return -1;
            (*out)[i].value = e->u.str;
        } else if (e->type == EXDB_JNUMBER) {
            (*out)[i].value = exdb_arena_strndup(L->a, e->u.str, e->len);
        } else {
            return lfail(L, &ep, "expected a string or number, found %s", exdb_json_type_name(e));
        }
    }
    return 0;
}

/* The top level: schema version (refused outside 2..8), metadata, range
 * constraints, then the signature, the graph and the module call graph. */
static int load_program(loader *L, const exdb_json *root) {
    exdb_program *P = L->prog;
    jpath rp = {NULL, NULL, -2}; /* "$" itself */
    const jpath *top = NULL;
    (void)rp;
    if (!exdb_json_is(root, EXDB_JOBJECT))
        return lfail(L, top, "expected an ExportedProgram object, found %s",
                     exdb_json_type_name(root));
    /* schema version: {"major", "minor"} or a plain int (schema <= 2) */
    const exdb_json *sv = exdb_json_get(root, "schema_version");
    jpath svp = PKEY(top, "schema_version");
    if (!sv)
        return lfail(L, top, "missing key \"schema_version\" (is this a torch.export program?)");
    int64_t major = 0, minor = 0;
    if (sv->type == EXDB_JNUMBER) {
        if (as_int(L, sv, &svp, &major) < 0)
            return -1;
    } else if (sv->type == EXDB_JOBJECT) {
        jpath mp = PKEY(&svp, "major"), np = PKEY(&svp, "minor");
        if (as_int(L, exdb_json_get(sv, "major"), &mp, &major) < 0)
            return -1;
        const exdb_json *mi = exdb_json_get(sv, "minor");
        if (mi && as_int(L, mi, &np, &minor) < 0)
            return -1;
    } else {
        return lfail(L, &svp, "expected {\"major\": int, \"minor\": int} or an int, found %s",
                     exdb_json_type_name(sv));
    }
    if (major < 2 || major > 8) {
        if (sv->type == EXDB_JNUMBER)
            return lfail(L, &svp,
                         "schema version %" PRId64 " is not supported (exdb reads 2 to 8.x)",
                         major);
        return lfail(L, &svp,
                     "schema version %" PRId64 ".%" PRId64
                     " is not supported (exdb reads 2 to 8.x)",
                     major, minor);
    }
    P->schema_major = (int)major;
    P->schema_minor = (int)minor;
    L->legacy_unions = major < 5;
    const exdb_json *tv = get_opt(root, "torch_version");
    const exdb_json *dia = get_opt(root, "dialect");
    jpath tvp = PKEY(top, "torch_version"), dp = PKEY(top, "dialect");
    if (exdb_json_is(tv, EXDB_JSTRING) && check_str(L, tv, &tvp) < 0)
        return -1;
    if (exdb_json_is(dia, EXDB_JSTRING) && check_str(L, dia, &dp) < 0)
        return -1;
    P->torch_version = exdb_json_is(tv, EXDB_JSTRING) ? tv->u.str : NULL;
    P->dialect = exdb_json_is(dia, EXDB_JSTRING) ? dia->u.str : NULL;
    const exdb_json *ver = get_opt(root, "verifiers");
    if (ver) {
        jpath vp = PKEY(top, "verifiers");
        if (load_str_list(L, ver, &vp, &P->verifiers, &P->nverifiers) < 0)
            return -1;
    }
    jpath osp = PKEY(top, "opset_version");
    if (load_kv_strings(L, get_opt(root, "opset_version"), &osp, &P->opset, &P->nopset) < 0)
        return -1;
    /* range constraints */
    const exdb_json *rc = get_opt(root, "range_constraints");
    if (rc) {
        jpath rcp = PKEY(top, "range_constraints");
        if (need_obj(L, rc, &rcp) < 0)
            return -1;
        P->ranges = exdb_arena_calloc(L->a, rc->len ? rc->len : 1, sizeof *P->ranges);
        if (!P->ranges)
            return oom(L);
        P->nranges = rc->len;
        for (uint32_t i = 0; i < rc->len; i++) {
            const exdb_json *e = &rc->u.kids[i];
            jpath ep = PKEY(&rcp, e->key);
            exdb_range *r = &P->ranges[i];
            if (check_key(L, e->key, &rcp) < 0)
                return -1;
            r->symbol = e->key;
            if (need_obj(L, e, &ep) < 0)
                return -1;
            for (int w = 0; w < 2; w++) {
                const char *k = w ? "max_val" : "min_val";
                const exdb_json *b = get_opt(e, k);
                jpath bp = PKEY(&ep, k);
                if (!b)
                    continue;
                double d;
                int64_t iv;
                if (exdb_json_int(b, &iv) == 0) {
                    if (w) {
                        r->max = iv;
                        r->has_max = 1;
                    } else {
                        r->min = iv;
                        r->has_min = 1;
                    }
                } else if (exdb_json_double(b, &d) == 0 && isinf(d)) {
                    /* unbounded */
                } else if (b->type == EXDB_JNUMBER) {
                    return lfail(L, &bp,
                                 "expected an integer that fits in 64 bits (or null or Infinity "
                                 "for no bound), found %.*s%s",
                                 (int)(b->len > 40 ? 40 : b->len), b->u.str,
                                 b->len > 40 ? "..." : "");
                } else {
                    return lfail(L, &bp,
                                 "expected an integer (or null or Infinity for no bound), found %s",
                                 exdb_json_type_name(b));
                }
            }
        }
    }
    const exdb_json *gm = exdb_json_get(root, "graph_module");
    jpath gmp = PKEY(top, "graph_module");
    if (!gm)
        return lfail(L, top, "missing key \"graph_module\" (expected an object)");
    if (need_obj(L, gm, &gmp) < 0)
        return -1;
    /* signature first: constant inputs take their names from it */
    const exdb_json *sig = exdb_json_get(gm, "signature");
    jpath sigp = PKEY(&gmp, "signature");
    if (!sig)
        return lfail(L, &gmp, "missing key \"signature\" (expected an object)");
    if (load_signature(L, sig, &sigp) < 0)
        return -1;
    const exdb_json *jg = exdb_json_get(gm, "graph");
    jpath gp = PKEY(&gmp, "graph");
    if (!jg)
        return lfail(L, &gmp, "missing key \"graph\" (expected an object)");
    if (need_obj(L, jg, &gp) < 0)
        return -1;
    P->graph = exdb_graph_new(L->a);
    if (!P->graph)
        return oom(L);
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    P->nserialized_nodes = exdb_json_is(nodes, EXDB_JARRAY) ? nodes->len : 0;
    /* specs and graph inputs/outputs pair up one to one (checked before the
     * graph is built: constant inputs take their names from the specs) */
    const exdb_json *gins = exdb_json_get(jg, "inputs");
    const exdb_json *gouts = exdb_json_get(jg, "outputs");
    if (exdb_json_is(gins, EXDB_JARRAY) && gins->len != P->ninputs) {
        jpath isp = PKEY(&sigp, "input_specs");
        return lfail(L, &isp,
                     "%u input spec%s for %u graph input%s (they pair up one to one, in order)",
                     P->ninputs, P->ninputs == 1 ? "" : "s", gins->len, gins->len == 1 ? "" : "s");
    }
    if (exdb_json_is(gouts, EXDB_JARRAY) && gouts->len != P->noutputs) {
        jpath osp2 = PKEY(&sigp, "output_specs");
        return lfail(
            L, &osp2, "%u output spec%s for %u graph output%s (they pair up one to one, in order)",
            P->noutputs, P->noutputs == 1 ? "" : "s", gouts->len, gouts->len == 1 ? "" : "s");
    }
    if (load_graph(L, jg, &gp, P->graph, 0) < 0 || index_subgraphs(L) < 0)
        return -1;
    if (check_signature_names(L, &sigp) < 0)
        return -1;
    const exdb_json *mcg = get_opt(gm, "module_call_graph");
    if (mcg) {
        jpath mp = PKEY(&gmp, "module_call_graph");
        if (load_call_graph(L, mcg, &mp) < 0)
            return -1;
    }
    jpath mdp = PKEY(&gmp, "metadata");
    const exdb_json *md = get_opt(gm, "metadata");
    if (md && md->type == EXDB_JOBJECT &&
        load_kv_strings(L, md, &mdp, &P->gm_metadata, &P->ngm_metadata) < 0)
        return -1;
    return 0;
}

exdb_program *exdb_program_from_json(char *buf, size_t len, const char *name, exdb_error *err) {
    exdb_program *P = calloc(1, sizeof *P);
    if (!P) {
        exdb_mem_release(buf);
        exdb_errorf(err, "%s: out of memory", name);
        return NULL;
    }
    exdb_arena_init(&P->arena);
    exdb_arena_init(&P->args_arena);
    P->buf = buf;
    P->json_bytes = len;
    P->path = exdb_arena_strdup(&P->arena, name);
    P->member = P->path;
    P->model = "model";
    loader L = {.prog = P,
                .a = &P->arena,
                .args = &P->args_arena,
                .fname = P->path ? P->path : name,
                .err = err,
                .reserve_left = len / RESERVE_BYTES + 64};
    exdb_arena_init(&L.node_dom);
    /* The DOM lives in its own arena, dropped once the IR is built. The
     * main graph's nodes (~3/4 of the JSON) and tensor metadata (a DOM of
     * ~3 bytes per byte: 30 small values in 250 bytes) are parsed one at a
     * time into L.node_dom as load_graph reaches them, so their DOM never
     * exists all at once: peak memory is the buffer, the rest of the DOM
     * and the IR. */
    static const char *const lazy_prefix[] = {"graph_module", "graph"};
    static const char *const lazy_last[] = {"nodes", "tensor_values", NULL};
    exdb_arena dom;
    exdb_arena_init(&dom);
    exdb_strmap_init(&L.stacks, &dom); /* the memo table goes with the DOM */
    exdb_strmap_init(&L.modules, &dom);
    exdb_json *root;
    int rc = -1;
    if (!P->path)
        exdb_errorf(err, "%s: out of memory", name);
    else if (exdb_json_parse_lazy(buf, len, &dom, L.fname, lazy_prefix, 2, lazy_last, &root, err) ==
             0)
        rc = load_program(&L, root);
    exdb_arena_destroy(&L.node_dom);
    exdb_arena_destroy(&dom);
    if (rc < 0) {
        exdb_program_free(P);
        return NULL;
    }
    assert(exdb_graph_ok(P->graph));
    for (uint32_t i = 0; i < P->nsubgraphs; i++)
        assert(exdb_graph_ok(P->subgraphs[i].graph));
    return P;
}

exdb_program *exdb_program_load(const char *path, const char *model, exdb_error *err) {
    exdb_container *c;
    if (exdb_container_open(path, &c, err) < 0)
        return NULL;
    char *buf;
    size_t len;
    const char *member;
    if (exdb_container_read_program(c, model, &buf, &len, &member, err) < 0) {
        exdb_container_close(c);
        return NULL;
    }
    int kind = (int)exdb_container_kind_of(c);
    /* Messages name "FILE: MEMBER" for archives, the file alone otherwise. */
    char *label;
    if (kind == EXDB_CONT_JSON) {
        label = strdup(path);
    } else {
        size_t n = strlen(path) + strlen(member) + 3;
        label = malloc(n);
        if (label)
            snprintf(label, n, "%s: %s", path, member);
    }
    /* exdb_program_from_json, through snapshot.c: it keeps what run and save
     * need from c and the text (its hash, before the parse) */
    exdb_program *P = label ? exdb_snapshot_load(c, model, buf, len, label, err) : NULL;
    if (!label) {
        exdb_mem_release(buf);
        exdb_errorf(err, "%s: out of memory", path);
    }
    if (P) {
        P->path = exdb_arena_strdup(&P->arena, path);
        P->member = exdb_arena_strdup(&P->arena, member);
        P->container_kind = kind;
        const char *name = model                                ? model
                           : exdb_container_model_count(c) == 1 ? exdb_container_model_name(c, 0)
                                                                : NULL;
        if (name)
            P->model = exdb_arena_strdup(&P->arena, name);
        if (!P->path || !P->member || (name && !P->model)) {
            exdb_errorf(err, "%s: out of memory", path);
            exdb_program_free(P);
            P = NULL;
        }
    }
    free(label);
    exdb_container_close(c);
    return P;
}

void exdb_program_free(exdb_program *p) {
    if (!p)
        return;
    exdb_arena_destroy(&p->arena);
    exdb_arena_destroy(&p->args_arena);
    exdb_mem_release(p->buf);
    free(p);
}
