/* save.c - see save.h: re-read the program JSON from the file it was loaded
 * from (snapshot.c makes sure it is the same), leave out what dce removed,
 * write it as Python's json.dumps does, through the container layer. */
#include "core/export/save.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format/container.h"
#include "core/format/container_save.h"
#include "core/base/outfile.h"
#include "core/export/snapshot.h"
#include "core/base/strmap.h"

/* ---- json.dumps */

/* One code point from UTF-8 at p (n bytes left); a lone surrogate arrives in
 * its 3-byte form and is returned as is. Bytes that are not UTF-8 come back
 * one at a time as their own value (Python never writes them). */
static size_t utf8_next(const unsigned char *p, size_t n, unsigned *cp) {
    unsigned c = p[0];
    if (c >= 0xC2 && c <= 0xDF && n >= 2 && (p[1] & 0xC0) == 0x80) {
        *cp = ((c & 0x1F) << 6) | (p[1] & 0x3F);
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF && n >= 3 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        *cp = ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        if (*cp >= 0x800)
            return 3;
    }
    if (c >= 0xF0 && c <= 0xF4 && n >= 4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
        (p[3] & 0xC0) == 0x80) {
        *cp = ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        if (*cp >= 0x10000 && *cp <= 0x10FFFF)
            return 4;
    }
    *cp = c;
    return 1;
}

/* py_encode_basestring_ascii: short escapes for \" \\ \b \f \n \r \t,
 * \u00XX for other control characters and DEL, \uXXXX (lower-case hex,
 * surrogate pairs above the BMP) for everything outside ASCII. */
static void dump_str(exdb_buf *b, const char *s, size_t len) {
    const unsigned char *p = (const unsigned char *)s;
    exdb_buf_putc(b, '"');
    size_t run = 0; /* plain bytes pending, copied in one go */
    for (size_t i = 0; i < len;) {
        unsigned c = p[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            run++;
            i++;
            continue;
        }
        if (run)
            exdb_buf_put(b, (const char *)p + i - run, run);
        run = 0;
        const char *e = NULL;
        switch (c) {
        case '"':
            e = "\\\"";
            break;
        case '\\':
            e = "\\\\";
            break;
        case '\b':
            e = "\\b";
            break;
        case '\f':
            e = "\\f";
            break;
        case '\n':
            e = "\\n";
            break;
        case '\r':
            e = "\\r";
            break;
        case '\t':
            e = "\\t";
            break;
        }
        if (e) {
            exdb_buf_puts(b, e);
            i++;
            continue;
        }
        unsigned cp;
        i += c < 0x80 ? 1 : utf8_next(p + i, len - i, &cp);
        if (c < 0x80)
            cp = c;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            exdb_buf_printf(b, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            exdb_buf_printf(b, "\\u%04x", cp);
        }
    }
    if (run)
        exdb_buf_put(b, (const char *)p + len - run, run);
    exdb_buf_putc(b, '"');
}

/* What the writer leaves out (NULL members: nothing). */
typedef struct dump_filter {
    const exdb_json *nodes; /* the main graph's nodes array */
    const uint8_t *drop;    /* by index in nodes */
    const exdb_json *tables[5];
    const exdb_strmap *dead_values; /* names to leave out of the tables */
    struct raw_ctx *raw;            /* parses the elements left unparsed (EXDB_JRAW), or NULL */
} dump_filter;

/* save parses the program text as the loader does (exdb_json_parse_lazy):
 * the nodes and the value tables, most of the text, are parsed one element
 * at a time as they are written, so their DOM never exists all at once. */
struct raw_ctx {
    const char *text; /* the buffer parsed */
    const char *fname;
    exdb_arena scratch; /* one element's DOM and strings, reset between elements */
    exdb_error *err;
    int failed;
};

/* The DOM of a lazy element (into the scratch arena), or NULL (failed). */
static const exdb_json *raw_parse(struct raw_ctx *r, const exdb_json *j, exdb_json *out) {
    exdb_arena_reset(&r->scratch);
    exdb_jstrings strs = exdb_jstrings_on(&r->scratch);
    if (exdb_json_parse_raw(j, r->text, &r->scratch, &strs, r->fname, out, NULL, NULL, r->err) <
        0) {
        r->failed = 1;
        return NULL;
    }
    return out;
}

/* ---- text already as json.dumps writes it */

static int hex4(const char *p, const char *end, unsigned *v) {
    *v = 0;
    if (end - p < 4)
        return 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        if (c >= '0' && c <= '9')
            *v = *v * 16 + (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            *v = *v * 16 + (unsigned)(c - 'a' + 10);
        else
            return 0; /* json.dumps writes lower-case hex */
    }
    return 1;
}

/* A string literal at *pp that dump_str would write back byte for byte. */
static int canon_string(const char **pp, const char *end) {
    const char *p = *pp + 1;
    while (p < end && *p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c >= 0x7F)
            return 0;
        if (c != '\\') {
            p++;
            continue;
        }
        if (++p == end)
            return 0;
        if (strchr("\"\\bfnrt", *p) && *p) {
            p++;
            continue;
        }
        unsigned v, w;
        if (*p != 'u' || !hex4(p + 1, end, &v))
            return 0;
        p += 5;
        if (v >= 0xD800 && v < 0xDC00) { /* a pair, as written above the BMP */
            if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, end, &w) || w < 0xDC00 ||
                w >= 0xE000)
                return 0;
            p += 6;
        } else if ((v < 0x20 && (!v || strchr("\b\t\n\f\r", (int)v))) || (v >= 0x20 && v < 0x7F) ||
                   (v >= 0xDC00 && v < 0xE000)) {
            return 0; /* written otherwise, or a lone surrogate: the parser decides */
        }
    }
    if (p == end)
        return 0;
    *pp = p + 1;
    return 1;
}

static int canon_value(const char **pp, const char *end, int depth) {
    const char *p = *pp;
    if (p == end || depth > 200)
        return 0;
    if (*p == '"')
        return canon_string(pp, end);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p++;
        if (p < end && *p == close) {
            *pp = p + 1;
            return 1;
        }
        for (;;) {
            if (close == '}') {
                if (p == end || *p != '"' || !canon_string(&p, end) || end - p < 2 || p[0] != ':' ||
                    p[1] != ' ')
                    return 0;
                p += 2;
            }
            if (!canon_value(&p, end, depth + 1))
                return 0;
            if (p < end && *p == close) {
                *pp = p + 1;
                return 1;
            }
            if (end - p < 2 || p[0] != ',' || p[1] != ' ')
                return 0;
            p += 2;
        }
    }
    static const char *const lit[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lit[i]);
        if ((size_t)(end - p) >= n && memcmp(p, lit[i], n) == 0) {
            *pp = p + n;
            return 1;
        }
    }
    const char *q = p; /* a number: its text is written as it is */
    while (q < end && strchr("+-.0123456789eE", *q) && *q)
        q++;
    if (q == p)
        return 0;
    *pp = q;
    return 1;
}

/* Whether the valid JSON text[0..len) is what dump would write for it (the
 * files torch writes are): then it is copied, with no DOM built for it. */
static int canonical(const char *text, size_t len) {
    const char *p = text;
    return canon_value(&p, text + len, 0) && p == text + len;
}

static void dump(exdb_buf *b, const exdb_json *j, const dump_filter *f) {
    switch ((exdb_jtype)j->type) {
    case EXDB_JNULL:
        exdb_buf_puts(b, "null");
        return;
    case EXDB_JTRUE:
        exdb_buf_puts(b, "true");
        return;
    case EXDB_JFALSE:
        exdb_buf_puts(b, "false");
        return;
    case EXDB_JRAW:
        if (f && f->raw && !canonical(j->u.str, j->len)) {
            /* written as if it had been parsed with the rest */
            exdb_json v;
            if (!f->raw->failed && raw_parse(f->raw, j, &v))
                dump(b, &v, f);
            return;
        }
        /* an unparsed element is its original text */
        exdb_buf_put(b, j->u.str, j->len);
        return;
    case EXDB_JNUMBER:
        exdb_buf_put(b, j->u.str, j->len);
        return;
    case EXDB_JSTRING:
        dump_str(b, j->u.str, j->len);
        return;
    case EXDB_JARRAY: {
        int first = 1;
        exdb_buf_putc(b, '[');
        for (uint32_t i = 0; i < j->len; i++) {
            if (f && j == f->nodes && f->drop[i])
                continue;
            if (!first)
                exdb_buf_puts(b, ", ");
            first = 0;
            dump(b, &j->u.kids[i], f);
        }
        exdb_buf_putc(b, ']');
        return;
    }
    case EXDB_JOBJECT: {
        int table = 0, first = 1;
        for (int t = 0; f && t < 5; t++)
            table |= f->tables[t] == j;
        exdb_buf_putc(b, '{');
        for (uint32_t i = 0; i < j->len; i++) {
            const exdb_json *k = &j->u.kids[i];
            if (table && exdb_strmap_find(f->dead_values, k->key))
                continue;
            if (!first)
                exdb_buf_puts(b, ", ");
            first = 0;
            dump_str(b, k->key, strlen(k->key));
            exdb_buf_puts(b, ": ");
            dump(b, k, f);
        }
        exdb_buf_putc(b, '}');
        return;
    }
    }
}

void exdb_json_dump(exdb_buf *b, const exdb_json *j) {
    dump(b, j, NULL);
}

/* The member of obj that Python's json would keep for key: the last one. */
static const exdb_json *last_member(const exdb_json *obj, const char *key) {
    for (uint32_t i = obj->len; i-- > 0;)
        if (strcmp(obj->u.kids[i].key, key) == 0)
            return &obj->u.kids[i];
    return NULL;
}

/* Whether an earlier member of obj repeats kids[i]'s key (Python keeps one). */
static int shadowed(const exdb_json *obj, uint32_t i) {
    for (uint32_t k = i + 1; k < obj->len; k++)
        if (strcmp(obj->u.kids[k].key, obj->u.kids[i].key) == 0)
            return 1;
    return 0;
}

int exdb_json_equal(const exdb_json *a, const exdb_json *b) {
    if (a->type != b->type)
        return 0;
    switch ((exdb_jtype)a->type) {
    case EXDB_JNULL:
    case EXDB_JTRUE:
    case EXDB_JFALSE:
        return 1;
    case EXDB_JRAW: /* unparsed elements: the same text */
        return a->len == b->len && memcmp(a->u.str, b->u.str, a->len) == 0;
    case EXDB_JNUMBER: {
        if (a->len == b->len && memcmp(a->u.str, b->u.str, a->len) == 0)
            return 1;
        int64_t x, y;
        if (exdb_json_int(a, &x) == 0 && exdb_json_int(b, &y) == 0)
            return x == y;
        double dx, dy;
        if (exdb_json_double(a, &dx) < 0 || exdb_json_double(b, &dy) < 0)
            return 0;
        return dx == dy || (isnan(dx) && isnan(dy));
    }
    case EXDB_JSTRING:
        return a->len == b->len && memcmp(a->u.str, b->u.str, a->len) == 0;
    case EXDB_JARRAY:
        if (a->len != b->len)
            return 0;
        for (uint32_t i = 0; i < a->len; i++)
            if (!exdb_json_equal(&a->u.kids[i], &b->u.kids[i]))
                return 0;
        return 1;
    case EXDB_JOBJECT: {
        uint32_t na = 0, nb = 0;
        for (uint32_t i = 0; i < a->len; i++) {
            if (shadowed(a, i))
                continue;
            na++;
            const exdb_json *o = last_member(b, a->u.kids[i].key);
            if (!o || !exdb_json_equal(&a->u.kids[i], o))
                return 0;
        }
        for (uint32_t i = 0; i < b->len; i++)
            nb += !shadowed(b, i);
        return na == nb;
    }
    }
    return 0;
}

/* ---- what dce removed */

/* Collects every value name an outputs array binds: "name" members of
 * TensorArguments and "as_name" members of symbolic arguments. */
static int collect_names(const exdb_json *j, exdb_strmap *names, exdb_arena *a) {
    if (j->type == EXDB_JOBJECT) {
        for (uint32_t i = 0; i < j->len; i++) {
            const exdb_json *k = &j->u.kids[i];
            if (k->type == EXDB_JSTRING &&
                (strcmp(k->key, "name") == 0 || strcmp(k->key, "as_name") == 0)) {
                /* the element's strings go with its scratch arena */
                const char *name = exdb_arena_strndup(a, k->u.str, k->len);
                if (!name || !exdb_strmap_put(names, name, NULL))
                    return -1;
            } else if (collect_names(k, names, a) < 0) {
                return -1;
            }
        }
    } else if (j->type == EXDB_JARRAY) {
        for (uint32_t i = 0; i < j->len; i++)
            if (collect_names(&j->u.kids[i], names, a) < 0)
                return -1;
    }
    return 0;
}

/* A getitem the loader added for an output of serialized node n->src (it
 * carries the op's src), judged by args: n's own, or for a node dce erased
 * the ones it had before (erase_node sets them to None). */
static int is_loader_getitem(const exdb_node *n, const exdb_arg *args) {
    return n->src >= 0 && n->op == EXDB_OP_CALL_FUNCTION &&
           strcmp(n->target, "operator.getitem") == 0 && args->n >= 1 &&
           args->u.items[0].kind == EXDB_ARG_NODE && args->u.items[0].u.node->src == n->src;
}

/* The node built from serialized node n->src itself, as opposed to the
 * getitems the loader adds after it (which carry the same src). */
static int is_op_node(const exdb_node *n) {
    return n->src >= 0 && !is_loader_getitem(n, &n->args);
}

/* The number of getitems under a tuple value: one per element, plus those
 * under an element that is itself a list (a tuple value too). */
static uint32_t count_getitems(const exdb_val *v) {
    uint32_t k = 0;
    for (uint32_t i = 0; v && v->kind == EXDB_VAL_TUPLE && i < v->n; i++)
        k += 1 + count_getitems(v->u.items[i]);
    return k;
}

/* The live getitem the loader made for element i of n, or NULL. */
static const exdb_node *getitem_at(const exdb_node *n, uint32_t i) {
    for (uint32_t k = 0; k < n->nusers; k++) {
        const exdb_node *u = n->users[k];
        if (is_loader_getitem(u, &u->args) && u->args.u.items[0].u.node == n && u->args.n >= 2 &&
            u->args.u.items[1].kind == EXDB_ARG_INT && u->args.u.items[1].u.i == (int64_t)i)
            return u;
    }
    return NULL;
}

/* How many of the getitems the loader made under n (v: n's tuple value,
 * one element per getitem) the graph no longer has. The file still holds
 * them as outputs of the op, so a reload makes them again. Elements are
 * followed by the parent's value, not the getitem's: a named getitem may
 * share its op's metadata. */
static uint32_t missing_getitems(const exdb_node *n, const exdb_val *v) {
    uint32_t missing = 0;
    for (uint32_t i = 0; v && v->kind == EXDB_VAL_TUPLE && i < v->n; i++) {
        const exdb_val *item = v->u.items[i];
        const exdb_node *gi = getitem_at(n, i);
        if (!gi)
            missing += 1 + count_getitems(item);
        else if (item && item->kind == EXDB_VAL_TUPLE)
            missing += missing_getitems(gi, item);
    }
    return missing;
}

uint32_t exdb_save_kept_getitems(const exdb_program *p, const exdb_dce_log *log) {
    if (log->graph != p->graph || !log->n)
        return 0;
    uint8_t *op_gone = calloc(p->nserialized_nodes + 1, 1);
    if (!op_gone)
        return EXDB_SAVE_KEPT_UNKNOWN;
    const exdb_dce_entry *e = log->items;
    for (uint32_t i = 0; i < log->n; i++) {
        const exdb_arg *args = log->applied ? &e[i].args : &e[i].node->args;
        if (e[i].node->src >= 0 && (uint32_t)e[i].node->src < p->nserialized_nodes &&
            !is_loader_getitem(e[i].node, args))
            op_gone[e[i].node->src] = 1;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < log->n; i++) {
        const exdb_arg *args = log->applied ? &e[i].args : &e[i].node->args;
        kept += is_loader_getitem(e[i].node, args) &&
                (uint32_t)e[i].node->src < p->nserialized_nodes && !op_gone[e[i].node->src];
    }
    free(op_gone);
    return kept;
}

/* The program JSON save writes, into b, from buf: the program text of the
 * file p was loaded from, as it was then (snapshot.c checked). */
static int program_json(const exdb_program *p, char *buf, size_t len, exdb_buf *b,
                        exdb_save_stats *stats, exdb_error *err) {
    static const char *const lazy_prefix[] = {"graph_module", "graph"};
    static const char *const lazy_last[] = {"nodes",
                                            "tensor_values",
                                            "sym_int_values",
                                            "sym_float_values",
                                            "sym_bool_values",
                                            "custom_obj_values",
                                            NULL};
    exdb_save_stats st = {0};
    exdb_arena a;
    exdb_arena_init(&a);
    struct raw_ctx raw = {.text = buf, .fname = p->path, .err = err};
    exdb_arena_init(&raw.scratch);
    exdb_json *root;
    int rc = -1;
    uint8_t *drop = NULL;
    exdb_jstrings strs = exdb_jstrings_on(&a);
    if (exdb_json_parse_lazy(buf, len, &a, &strs, p->path, lazy_prefix, 2, lazy_last, &root, err) <
        0)
        goto done;
    const exdb_json *jg = exdb_json_get(exdb_json_get(root, "graph_module"), "graph");
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    if (!exdb_json_is(nodes, EXDB_JARRAY) || nodes->len != p->nserialized_nodes) {
        /* the text hashed as loaded: only a loader and save that disagree */
        exdb_errorf(err, "%s: the program has %u serialized nodes, its file %u", p->path,
                    p->nserialized_nodes, exdb_json_is(nodes, EXDB_JARRAY) ? nodes->len : 0);
        goto done;
    }
    drop = malloc(nodes->len ? nodes->len : 1);
    if (!drop) {
        exdb_errorf(err, "%s: out of memory", p->path);
        goto done;
    }
    memset(drop, 1, nodes->len);
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        if (is_op_node(n) && (uint32_t)n->src < nodes->len) {
            drop[n->src] = 0;
            st.getitems_kept += missing_getitems(n, n->meta ? n->meta->val : NULL);
        }
    exdb_strmap dead;
    exdb_strmap_init(&dead, &a);
    for (uint32_t i = 0; i < nodes->len; i++) {
        if (!drop[i])
            continue;
        st.nodes_dropped++;
        exdb_json nv;
        const exdb_json *node = raw_parse(&raw, &nodes->u.kids[i], &nv);
        if (!node)
            goto done;
        const exdb_json *outs = exdb_json_get(node, "outputs");
        if (outs && collect_names(outs, &dead, &a) < 0) {
            exdb_errorf(err, "%s: out of memory", p->path);
            goto done;
        }
    }
    static const char *const tables[5] = {"tensor_values", "sym_int_values", "sym_float_values",
                                          "sym_bool_values", "custom_obj_values"};
    dump_filter f = {.nodes = nodes, .drop = drop, .dead_values = &dead, .raw = &raw};
    for (int t = 0; t < 5; t++) {
        f.tables[t] = exdb_json_get(jg, tables[t]);
        if (f.tables[t] && f.tables[t]->type == EXDB_JOBJECT)
            for (uint32_t i = 0; i < f.tables[t]->len; i++)
                st.values_dropped += exdb_strmap_find(&dead, f.tables[t]->u.kids[i].key) != NULL;
    }
    size_t before = b->len;
    /* about the text's size: one allocation instead of doubling up to
     * twice it (the old and the new copy both live while it grows) */
    exdb_buf_grow(b, len + len / 64 + 4096);
    dump(b, root, &f);
    if (raw.failed)
        goto done;
    if (b->oom) {
        exdb_errorf(err, "%s: out of memory", p->path);
        goto done;
    }
    st.bytes = b->len - before;
    rc = 0;
done:
    free(drop);
    exdb_arena_destroy(&raw.scratch);
    exdb_arena_destroy(&a);
    if (stats)
        *stats = st;
    return rc;
}

int exdb_program_save_json(const exdb_program *p, exdb_buf *b, exdb_save_stats *stats,
                           exdb_error *err) {
    exdb_container *c;
    char *buf;
    size_t len;
    if (exdb_snapshot_reopen(p, &c, &buf, &len, err) < 0)
        return -1;
    exdb_container_close(c);
    int rc = program_json(p, buf, len, b, stats, err);
    exdb_mem_release(buf);
    return rc;
}

/* Error messages of the container layer name the file it wrote, which is
 * inside save's temporary directory: name the user's file instead. */
static void name_target(exdb_error *err, const char *inner, const char *out_path) {
    char *at = err && err->set ? strstr(err->msg, inner) : NULL;
    if (!at)
        return;
    char rest[EXDB_ERROR_MAX];
    snprintf(rest, sizeof rest, "%s", at + strlen(inner));
    snprintf(at, sizeof err->msg - (size_t)(at - err->msg), "%s%s", out_path, rest);
}

/* The container layer writes the copy into a temporary directory beside
 * out_path (its own temporary files, and libzip's, go there too), which
 * outfile.c removes with everything in it on failure or on a terminating
 * signal; only then is the finished file renamed to out_path. */
static int write_copy(exdb_container *c, const char *model, const exdb_buf *json,
                      const char *out_path, int force, exdb_error *err) {
    char *dir;
    if (exdb_out_temp(out_path, 1, &dir, NULL, err) < 0)
        return -1;
    const char *slash = strrchr(out_path, '/');
    const char *base = slash ? slash + 1 : out_path;
    size_t n = strlen(dir) + strlen(base) + 2;
    char *inner = malloc(n);
    int rc = -1;
    if (!inner) {
        exdb_errorf(err, "%s: out of memory", out_path);
    } else {
        snprintf(inner, n, "%s/%s", dir, base);
        rc = exdb_container_save(c, model, exdb_buf_str(json), json->len, inner, 0, err);
        name_target(err, inner, out_path);
        if (rc == 0)
            rc = exdb_out_install(inner, out_path, force, err);
    }
    exdb_out_discard(dir);
    free(inner);
    return rc;
}

int exdb_program_save(const exdb_program *p, const char *out_path, int force,
                      exdb_save_stats *stats, exdb_error *err) {
    if (exdb_out_check(out_path, force, err) < 0)
        return -1;
    exdb_container *c;
    char *buf;
    size_t len;
    if (exdb_snapshot_reopen(p, &c, &buf, &len, err) < 0)
        return -1;
    exdb_buf b;
    exdb_buf_init(&b);
    int rc = program_json(p, buf, len, &b, stats, err);
    exdb_mem_release(buf);
    if (rc == 0) {
        const char *model = exdb_container_model_count(c) > 1 ? p->model : NULL;
        rc = write_copy(c, model, &b, out_path, force, err);
    }
    exdb_container_close(c);
    exdb_buf_free(&b);
    return rc;
}
