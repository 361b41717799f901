/* treespec.c - pytree TreeSpecs as torch.utils._pytree writes them
 * (treespec_dumps, JSON protocol 1): "[1, {"type": ..., "context": ...,
 * "children_spec": [...]}]". See docs/pt2-format.md §8.
 *
 * exdb_treespec_str renders a spec as the Python literal it describes, with
 * "*" for each leaf: "((*, *), {'mask': *})", "[*, *]", "mypkg.Out(*, *)",
 * "OrderedDict({'a': *})", "defaultdict(list, {'a': *})", "deque([*])",
 * "None". (Python's own repr(TreeSpec) spans several lines and prints
 * context objects, which only exist inside a Python process.) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format/json.h"
#include "core/format/treespec.h"

#define SPEC_MAX_DEPTH 200

/* The JSON path of a node inside the spec, for messages: "[1]",
 * "[1].children_spec[0]". Built on the C stack, formatted on error only. */
typedef struct spath {
    const struct spath *up;
    uint32_t child; /* index in the parent's children_spec */
} spath;

static void spath_fmt(const spath *p, char *buf, size_t cap) {
    uint32_t idx[SPEC_MAX_DEPTH + 2];
    int n = 0;
    for (const spath *q = p; q && q->up && n < SPEC_MAX_DEPTH + 2; q = q->up)
        idx[n++] = q->child;
    size_t off = (size_t)snprintf(buf, cap, "[1]");
    for (int i = n - 1; i >= 0 && off < cap; i--)
        off += (size_t)snprintf(buf + off, cap - off, ".children_spec[%u]", idx[i]);
}

__attribute__((format(printf, 3, 4))) static int sfail(exdb_error *err, const spath *p,
                                                       const char *fmt, ...) {
    char where[256] = "TreeSpec ";
    spath_fmt(p, where + 9, sizeof where - 9);
    va_list ap;
    va_start(ap, fmt);
    int rc = exdb_verrorf_at(err, where, fmt, ap);
    va_end(ap);
    return rc;
}

/* Python repr of a str: 'text', or "text" when it holds a ' and no ". */
static char *py_str_repr(exdb_arena *a, const char *s, size_t n) {
    int sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
    char q = (sq && !dq) ? '"' : '\'';
    char *out = exdb_arena_alloc(a, 4 * n + 3);
    if (!out)
        return NULL;
    size_t w = 0;
    out[w++] = q;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            out[w++] = '\\';
            out[w++] = (char)c;
        } else if (c == '\n') {
            out[w++] = '\\';
            out[w++] = 'n';
        } else if (c == '\t') {
            out[w++] = '\\';
            out[w++] = 't';
        } else if (c == '\r') {
            out[w++] = '\\';
            out[w++] = 'r';
        } else if (c < 0x20 || c == 0x7f) {
            w += (size_t)snprintf(out + w, 5, "\\x%02x", c);
        } else {
            out[w++] = (char)c;
        }
    }
    out[w++] = q;
    out[w] = '\0';
    return out;
}

/* Python repr of a dict key from the context's JSON key list. */
static const char *key_repr(exdb_arena *a, const exdb_json *k) {
    if (k->type == EXDB_JSTRING)
        return py_str_repr(a, k->u.str, k->len);
    if (k->type == EXDB_JNUMBER)
        return exdb_arena_strndup(a, k->u.str, k->len);
    if (k->type == EXDB_JOBJECT) { /* {"__enum__": true, "fqn": ..., "name": ...} */
        const exdb_json *fqn = exdb_json_get(k, "fqn"), *nm = exdb_json_get(k, "name");
        if (exdb_json_is(fqn, EXDB_JSTRING) && exdb_json_is(nm, EXDB_JSTRING))
            return exdb_arena_printf(a, "<%s.%s>", fqn->u.str, nm->u.str);
    }
    if (k->type == EXDB_JTRUE)
        return "True";
    if (k->type == EXDB_JFALSE)
        return "False";
    if (k->type == EXDB_JNULL)
        return "None";
    return "?";
}

/* A growable text buffer for json_text/spec_str; a failed allocation sets
 * oom and later appends do nothing. */
typedef struct tbuf {
    char *s;
    size_t len, cap;
    int oom;
} tbuf;

static void put(tbuf *b, const char *s, size_t n) {
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = (b->cap ? b->cap * 2 : 64) + n;
        char *nb = realloc(b->s, nc);
        if (!nb) {
            b->oom = 1;
            return;
        }
        b->s = nb;
        b->cap = nc;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(tbuf *b, const char *s) {
    put(b, s, strlen(s));
}

/* Serializes a JSON value back to compact text (contexts are kept as text). */
static void json_text(const exdb_json *j, tbuf *b) {
    switch ((exdb_jtype)j->type) {
    case EXDB_JNULL:
        puts_(b, "null");
        break;
    case EXDB_JTRUE:
        puts_(b, "true");
        break;
    case EXDB_JFALSE:
        puts_(b, "false");
        break;
    case EXDB_JNUMBER:
    case EXDB_JRAW: /* an unparsed element is its original text */
        put(b, j->u.str, j->len);
        break;
    case EXDB_JSTRING:
        put(b, "\"", 1);
        for (uint32_t i = 0; i < j->len; i++) {
            char c = j->u.str[i];
            if (c == '"' || c == '\\') {
                char e[2] = {'\\', c};
                put(b, e, 2);
            } else if ((unsigned char)c < 0x20) {
                char e[8];
                snprintf(e, sizeof e, "\\u%04x", (unsigned char)c);
                put(b, e, 6);
            } else {
                put(b, &c, 1);
            }
        }
        put(b, "\"", 1);
        break;
    case EXDB_JARRAY:
    case EXDB_JOBJECT: {
        int obj = j->type == EXDB_JOBJECT;
        puts_(b, obj ? "{" : "[");
        for (uint32_t i = 0; i < j->len; i++) {
            if (i)
                puts_(b, ", ");
            if (obj) {
                exdb_json k = {.type = EXDB_JSTRING};
                k.u.str = j->u.kids[i].key;
                k.len = (uint32_t)strlen(k.u.str);
                json_text(&k, b);
                puts_(b, ": ");
            }
            json_text(&j->u.kids[i], b);
        }
        puts_(b, obj ? "}" : "]");
        break;
    }
    }
}

/* Types whose context is the list of keys and whose children are the
 * values, in key order. */
static int is_dict_type(const char *t) {
    return strcmp(t, "builtins.dict") == 0 || strcmp(t, "collections.OrderedDict") == 0 ||
           strcmp(t, "collections.defaultdict") == 0 ||
           strcmp(t, "torch.fx.immutable_collections.immutable_dict") == 0;
}

/* Reads a dict-like node's keys: the context is a JSON string holding the
 * key list (dict, OrderedDict) or, for defaultdict, an object whose
 * "dict_context" is that list. */
static int dict_keys(exdb_arena *a, exdb_treespec *s, const exdb_json *ctx, uint32_t nkids,
                     const spath *p, exdb_error *err) {
    exdb_arena tmp;
    exdb_arena_init(&tmp);
    const exdb_json *keylist = NULL;
    int rc = -1;
    if (strcmp(s->type, "collections.defaultdict") == 0) {
        const exdb_json *dc = exdb_json_get(ctx, "dict_context");
        if (!exdb_json_is(ctx, EXDB_JOBJECT) || !exdb_json_is(dc, EXDB_JARRAY)) {
            sfail(err, p,
                  "collections.defaultdict: expected a context object with a \"dict_context\" "
                  "key list, found %s",
                  exdb_json_type_name(ctx));
            goto done;
        }
        keylist = dc;
    } else {
        if (!exdb_json_is(ctx, EXDB_JSTRING)) {
            sfail(err, p, "%s: expected a context string holding the JSON key list, found %s",
                  s->type, exdb_json_type_name(ctx));
            goto done;
        }
        char *copy = exdb_arena_strndup(&tmp, ctx->u.str, ctx->len);
        exdb_json *kl;
        exdb_error e2 = {0};
        if (!copy) {
            exdb_errorf(err, "out of memory");
            goto done;
        }
        if (exdb_json_parse(copy, ctx->len, &tmp, "context", &kl, &e2) < 0 ||
            kl->type != EXDB_JARRAY) {
            sfail(err, p, "%s: the context is not a JSON list of keys (%s)", s->type,
                  e2.set ? e2.msg : "not a list");
            goto done;
        }
        keylist = kl;
    }
    if (keylist->len != nkids) {
        sfail(err, p, "%s with %u key%s but %u child%s", s->type, keylist->len,
              keylist->len == 1 ? "" : "s", nkids, nkids == 1 ? "" : "ren");
        goto done;
    }
    s->nkeys = keylist->len;
    s->keys = exdb_arena_calloc(a, keylist->len ? keylist->len : 1, sizeof *s->keys);
    if (!s->keys) {
        exdb_errorf(err, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < keylist->len; i++)
        if (!(s->keys[i] = key_repr(a, &keylist->u.kids[i]))) {
            exdb_errorf(err, "out of memory");
            goto done;
        }
    rc = 0;
done:
    exdb_arena_destroy(&tmp);
    return rc;
}

/* treespec_loads' _json_to_treespec: a leaf is type null, context null and
 * no children; anything else names a type, keeps its context as JSON text
 * and its children in order. */
static int spec_node(exdb_arena *a, const exdb_json *j, exdb_treespec **out, const spath *p,
                     int depth, exdb_error *err) {
    if (depth > SPEC_MAX_DEPTH)
        return sfail(err, p, "nested deeper than %d levels", SPEC_MAX_DEPTH);
    if (!exdb_json_is(j, EXDB_JOBJECT))
        return sfail(err, p,
                     "expected a node object {\"type\", \"context\", \"children_spec\"}, "
                     "found %s",
                     exdb_json_type_name(j));
    const exdb_json *type = exdb_json_get(j, "type"), *ctx = exdb_json_get(j, "context");
    const exdb_json *kids = exdb_json_get(j, "children_spec");
    if (!type || !ctx || !kids)
        return sfail(err, p, "missing key \"%s\"",
                     !type  ? "type"
                     : !ctx ? "context"
                            : "children_spec");
    if (!exdb_json_is(kids, EXDB_JARRAY))
        return sfail(err, p, "children_spec: expected an array, found %s",
                     exdb_json_type_name(kids));
    exdb_treespec *s = exdb_arena_calloc(a, 1, sizeof *s);
    if (!s)
        return exdb_errorf(err, "out of memory");
    *out = s;
    if (type->type == EXDB_JNULL) {
        if (kids->len)
            return sfail(err, p, "a leaf (type null) must have no children, found %u", kids->len);
        if (ctx->type != EXDB_JNULL)
            return sfail(err, p, "a leaf (type null) must have a null context, found %s",
                         exdb_json_type_name(ctx));
        s->num_leaves = 1;
        return 0;
    }
    if (type->type != EXDB_JSTRING)
        return sfail(err, p, "type: expected a string or null, found %s",
                     exdb_json_type_name(type));
    s->type = exdb_arena_strdup(a, type->u.str);
    tbuf t = {0};
    json_text(ctx, &t);
    s->context = t.s && !t.oom ? exdb_arena_strdup(a, t.s) : NULL;
    free(t.s);
    if (!s->type || !s->context)
        return exdb_errorf(err, "out of memory");
    if (is_dict_type(s->type) && dict_keys(a, s, ctx, kids->len, p, err) < 0)
        return -1;
    s->nchildren = kids->len;
    s->children = exdb_arena_calloc(a, kids->len ? kids->len : 1, sizeof *s->children);
    if (!s->children)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < kids->len; i++) {
        spath cp = {p, i};
        if (spec_node(a, &kids->u.kids[i], &s->children[i], &cp, depth + 1, err) < 0)
            return -1;
        s->num_leaves += s->children[i]->num_leaves;
    }
    return 0;
}

int exdb_parse_treespec(exdb_arena *a, const char *text, exdb_treespec **out, exdb_error *err) {
    exdb_arena tmp;
    exdb_arena_init(&tmp);
    size_t n = strlen(text);
    char *copy = exdb_arena_strndup(&tmp, text, n);
    exdb_json *root;
    int rc = -1;
    exdb_error e2 = {0};
    *out = NULL;
    if (!copy) {
        exdb_errorf(err, "out of memory");
    } else if (exdb_json_parse(copy, n, &tmp, "TreeSpec", &root, &e2) < 0) {
        exdb_errorf(err, "%s", e2.msg);
    } else if (!exdb_json_is(root, EXDB_JARRAY) || root->len != 2) {
        exdb_errorf(err, "TreeSpec: expected [protocol, spec] (an array of 2), found %s",
                    root->type == EXDB_JARRAY ? "an array of another length"
                                              : exdb_json_type_name(root));
    } else {
        int64_t proto;
        const exdb_json *pj = &root->u.kids[0];
        spath top = {NULL, 0};
        if (exdb_json_int(pj, &proto) < 0 || proto != 1) {
            if (pj->type == EXDB_JNUMBER)
                exdb_errorf(err, "TreeSpec: unsupported protocol %.*s (exdb reads protocol 1)",
                            (int)(pj->len > 40 ? 40 : pj->len), pj->u.str);
            else
                exdb_errorf(err, "TreeSpec: expected the protocol number 1 first, found %s",
                            exdb_json_type_name(pj));
        } else {
            rc = spec_node(a, &root->u.kids[1], out, &top, 0, err);
        }
    }
    exdb_arena_destroy(&tmp);
    return rc;
}

/* Renders s as the Python literal it describes (see the top of the file). */
static void spec_str(const exdb_treespec *s, tbuf *b) {
    if (!s->type) {
        puts_(b, "*");
        return;
    }
    const char *t = s->type;
    if (strcmp(t, "builtins.NoneType") == 0) {
        puts_(b, "None");
        return;
    }
    const char *open = "(", *close = ")";
    int is_tuple = strcmp(t, "builtins.tuple") == 0;
    if (strcmp(t, "builtins.list") == 0 ||
        strcmp(t, "torch.fx.immutable_collections.immutable_list") == 0) {
        open = "[";
        close = "]";
    } else if (strcmp(t, "collections.deque") == 0) {
        open = "deque([";
        close = "])";
    } else if (s->keys || is_dict_type(t)) {
        open = "{";
        close = "}";
        if (strcmp(t, "collections.OrderedDict") == 0) {
            open = "OrderedDict({";
            close = "})";
        } else if (strcmp(t, "collections.defaultdict") == 0) {
            /* the factory's name sits in the context object */
            const char *f = strstr(s->context, "\"default_factory_name\": \"");
            puts_(b, "defaultdict(");
            if (f) {
                f += 25;
                const char *e = strchr(f, '"');
                put(b, f, e ? (size_t)(e - f) : strlen(f));
            } else {
                puts_(b, "None");
            }
            puts_(b, ", ");
            close = "})";
        }
    } else if (strcmp(t, "collections.namedtuple") == 0) {
        /* the context (kept as JSON text) is the type name as a string */
        size_t n = strlen(s->context);
        if (n >= 2 && s->context[0] == '"')
            put(b, s->context + 1, n - 2);
        else
            puts_(b, "namedtuple");
    } else if (!is_tuple) {
        puts_(b, t);
    }
    puts_(b, open);
    for (uint32_t i = 0; i < s->nchildren; i++) {
        if (i)
            puts_(b, ", ");
        if (s->keys && i < s->nkeys) {
            puts_(b, s->keys[i]);
            puts_(b, ": ");
        }
        spec_str(s->children[i], b);
    }
    if (is_tuple && s->nchildren == 1)
        puts_(b, ",");
    puts_(b, close);
}

char *exdb_treespec_str(exdb_arena *a, const exdb_treespec *s) {
    tbuf b = {0};
    spec_str(s, &b);
    char *r = b.s && !b.oom ? exdb_arena_strdup(a, b.s) : NULL;
    free(b.s);
    return r;
}
