/* load.c - ExportedProgram JSON -> exdb_program.
 *
 * C twin of torch/_export/serde/serialize.py's ExportedProgramDeserializer and
 * GraphModuleDeserializer: rebuilds the FX graph exactly as PyTorch does
 * (placeholders, one call_function per serialized node, getitem nodes for
 * multi-output ops, one output node) with PyTorch's naming, and reads the
 * graph signature, module_call_graph and the rest. Schemas 2 (unions as
 * objects with every alternative, all but one null) through 8.20 (single-key
 * unions) are read; see pt2-format.md §12.
 *
 * Errors name the file and the JSON path of the offending value, e.g.
 *   model.json: $.graph_module.graph.nodes[12].inputs[0].arg: unknown argument kind "as_foo" */
#include "program.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "json.h"

/* ---- JSON paths for messages, built on the C stack and only formatted
 * when an error is reported. */
typedef struct jpath {
    const struct jpath *up;
    const char *key; /* ".key" step, or NULL for an index step */
    long idx;
} jpath;

#define PKEY(parent, k) ((jpath){(parent), (k), -1})
#define PIDX(parent, i) ((jpath){(parent), NULL, (long)(i)})

static void path_fmt(const jpath *p, char *buf, size_t cap) {
    const jpath *steps[256];
    int n = 0;
    for (const jpath *q = p; q && n < 256; q = q->up)
        steps[n++] = q;
    size_t off = (size_t)snprintf(buf, cap, "$");
    for (int i = n - 1; i >= 0 && off < cap; i--) {
        const jpath *s = steps[i];
        if (s->key)
            off += (size_t)snprintf(buf + off, cap - off, ".%s", s->key);
        else
            off += (size_t)snprintf(buf + off, cap - off, "[%ld]", s->idx);
    }
}

typedef struct loader {
    exdb_program *prog;
    exdb_arena *a;
    const char *fname; /* what messages call the input */
    exdb_error *err;
    int legacy_unions; /* schema < 5: unions list every alternative */
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

/* ---- typed accessors */

static const exdb_json *get_opt(const exdb_json *obj, const char *key) {
    const exdb_json *v = exdb_json_get(obj, key);
    return (v && v->type == EXDB_JNULL) ? NULL : v;
}

static int need_obj(loader *L, const exdb_json *j, const jpath *p) {
    if (!exdb_json_is(j, EXDB_JOBJECT))
        return lfail(L, p, "expected an object, found %s", exdb_json_type_name(j));
    return 0;
}

static int need_arr(loader *L, const exdb_json *j, const jpath *p) {
    if (!exdb_json_is(j, EXDB_JARRAY))
        return lfail(L, p, "expected an array, found %s", exdb_json_type_name(j));
    return 0;
}

/* A required string member. */
static int get_str(loader *L, const exdb_json *obj, const char *key, const jpath *p,
                   const char **out) {
    const exdb_json *v = exdb_json_get(obj, key);
    jpath kp = PKEY(p, key);
    if (!v)
        return lfail(L, p, "missing key \"%s\"", key);
    if (v->type != EXDB_JSTRING)
        return lfail(L, &kp, "expected a string, found %s", exdb_json_type_name(v));
    *out = v->u.str;
    return 0;
}

static int as_int(loader *L, const exdb_json *v, const jpath *p, int64_t *out) {
    if (!v || v->type != EXDB_JNUMBER)
        return lfail(L, p, "expected an integer, found %s", exdb_json_type_name(v));
    if (exdb_json_int(v, out) < 0)
        return lfail(L, p, "expected an integer that fits 64 bits, found %.*s",
                     (int)(v->len > 40 ? 40 : v->len), v->u.str);
    return 0;
}

static int as_double(loader *L, const exdb_json *v, const jpath *p, double *out) {
    if (exdb_json_double(v, out) < 0)
        return lfail(L, p, "expected a number (or \"Infinity\", \"-Infinity\", \"NaN\"), found %s",
                     exdb_json_type_name(v));
    return 0;
}

static int as_bool(loader *L, const exdb_json *v, const jpath *p, int *out) {
    if (v && v->type == EXDB_JTRUE)
        *out = 1;
    else if (v && v->type == EXDB_JFALSE)
        *out = 0;
    else
        return lfail(L, p, "expected a boolean, found %s", exdb_json_type_name(v));
    return 0;
}

/* Decodes a union: single-key objects (schema >= 5.1), or objects listing
 * every alternative with all but one null (schema <= 4), possibly with
 * "$type"/"$value" keys. *tag gets the variant name, *val its payload. */
static int get_union(loader *L, const exdb_json *u, const jpath *p, const char *what,
                     const char **tag, const exdb_json **val) {
    if (!exdb_json_is(u, EXDB_JOBJECT))
        return lfail(L, p, "expected %s (an object with one key), found %s", what,
                     exdb_json_type_name(u));
    const exdb_json *t = exdb_json_get(u, "$type");
    if (t && t->type == EXDB_JSTRING) {
        const exdb_json *v = exdb_json_get(u, "$value");
        *tag = t->u.str;
        *val = v ? v : exdb_json_get(u, t->u.str);
        if (!*val)
            return lfail(L, p, "%s: \"$type\" is \"%s\" but there is no value", what, t->u.str);
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
    for (uint32_t i = 0; i < u->len; i++) {
        const exdb_json *k = &u->u.kids[i];
        if (k->type == EXDB_JNULL || k->key[0] == '$')
            continue;
        if (found)
            return lfail(
                L, p, "%s: expected exactly one of its variants to be set, found \"%s\" and \"%s\"",
                what, found->key, k->key);
        found = k;
    }
    if (!found && exdb_json_get(u, "as_none")) {
        /* schema 2 writes None as "as_none": null beside the other nulls */
        *tag = "as_none";
        *val = exdb_json_get(u, "as_none");
        return 0;
    }
    if (!found)
        return lfail(L, p, "%s: expected an object with one key, found %s", what,
                     u->len ? "every variant null" : "an empty object");
    *tag = found->key;
    *val = found;
    return 0;
}

/* ---- values (tensor_values, sym_*_values) */

static int parse_sym(loader *L, const exdb_json *j, const jpath *p, int flavour, exdb_sym *out) {
    /* flavour: 0 int, 1 float, 2 bool */
    memset(out, 0, sizeof *out);
    if (j && j->type == EXDB_JNUMBER && flavour == 0) /* schema 1: plain int */
        return as_int(L, j, p, &out->v.i);
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, "a SymInt", &tag, &v) < 0)
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
            return lfail(L, &hp, "unknown SymExprHint kind \"%s\"", ht);
        }
        return 0;
    }
    if (strcmp(tag, "as_int") == 0 && flavour == 0)
        return as_int(L, v, &vp, &out->v.i);
    if (strcmp(tag, "as_float") == 0 && flavour == 1)
        return as_double(L, v, &vp, &out->v.f);
    if (strcmp(tag, "as_bool") == 0 && flavour == 2)
        return as_bool(L, v, &vp, &out->v.b);
    return lfail(L, p, "unknown %s kind \"%s\"",
                 flavour == 0   ? "SymInt"
                 : flavour == 1 ? "SymFloat"
                                : "SymBool",
                 tag);
}

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
static int load_values(loader *L, gscope *sc, const jpath *gp) {
    static const char *const tables[] = {"tensor_values", "sym_int_values", "sym_float_values",
                                         "sym_bool_values", "custom_obj_values"};
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

int exdb_parse_module_stack(exdb_arena *a, const char *text, exdb_stack_entry **out, uint32_t *n,
                            exdb_error *err) {
    *out = NULL;
    *n = 0;
    if (!text[0])
        return 0;
    uint32_t count = 1;
    for (const char *q = text; *q; q++)
        count += *q == ';';
    exdb_stack_entry *e = exdb_arena_calloc(a, count, sizeof *e);
    if (!e)
        return exdb_errorf(err, "out of memory");
    const char *s = text;
    for (uint32_t k = 0; k < count; k++) {
        const char *end = strchr(s, ';');
        if (!end)
            end = s + strlen(s);
        /* split on commas at bracket depth 0: exactly three fields */
        const char *cut[2];
        int ncut = 0, depth = 0;
        for (const char *q = s; q < end; q++) {
            if (*q == '(' || *q == '[')
                depth++;
            else if ((*q == ')' || *q == ']') && depth > 0)
                depth--;
            else if (*q == ',' && depth == 0) {
                if (ncut == 2)
                    return exdb_errorf(
                        err,
                        "entry %u \"%.*s\": expected \"key,path,type\", found more than 3 fields",
                        k, (int)(end - s > 200 ? 200 : end - s), s);
                cut[ncut++] = q;
            }
        }
        if (ncut != 2)
            return exdb_errorf(err,
                               "entry %u \"%.*s\": expected \"key,path,type\" (3 comma-separated "
                               "fields), found %d",
                               k, (int)(end - s > 200 ? 200 : end - s), s, ncut + 1);
        e[k].key = exdb_arena_strndup(a, s, (size_t)(cut[0] - s));
        e[k].path = exdb_arena_strndup(a, cut[0] + 1, (size_t)(cut[1] - cut[0] - 1));
        e[k].type = exdb_arena_strndup(a, cut[1] + 1, (size_t)(end - cut[1] - 1));
        if (!e[k].key || !e[k].path || !e[k].type)
            return exdb_errorf(err, "out of memory");
        /* call index: int(text after the last '@') when the key has one */
        const char *at = strrchr(e[k].key, '@');
        e[k].call_idx = 0;
        if (at) {
            char *endp;
            long v = strtol(at + 1, &endp, 10);
            if (at[1] == '\0' || *endp || v < 0 || v > 1000000000)
                return exdb_errorf(err, "entry %u: key \"%s\": expected a call index after '@'", k,
                                   e[k].key);
            e[k].call_idx = (int)v;
        }
        s = *end ? end + 1 : end;
    }
    *out = e;
    *n = count;
    return 0;
}

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
        if (e->type != EXDB_JSTRING)
            return lfail(L, &ep, "expected a string, found %s", exdb_json_type_name(e));
        const char *k = e->key, *v = e->u.str;
        if (strcmp(k, "nn_module_stack") == 0) {
            exdb_stack_entry *st;
            uint32_t n;
            exdb_error e2 = {0};
            if (exdb_parse_module_stack(L->a, v, &st, &n, &e2) < 0)
                return lfail(L, &ep, "%s", e2.msg);
            meta->stack = st;
            meta->nstack = n;
            meta->has_stack = n > 0; /* PyTorch drops an empty stack */
            meta->nn_module_stack = v;
        } else if (strcmp(k, "stack_trace") == 0) {
            meta->stack_trace = v;
        } else if (strcmp(k, "source_fn_stack") == 0 || strcmp(k, "source_fn") == 0) {
            meta->source_fn_stack = v;
        } else if (strcmp(k, "torch_fn") == 0) {
            meta->torch_fn = v;
        } else if (strcmp(k, "custom") == 0) {
            meta->custom = v;
        } else if (strcmp(k, "from_node") == 0) {
            meta->from_node = v;
        } else {
            nextra++;
        }
    }
    if (nextra) {
        exdb_kv *kv = exdb_arena_alloc(L->a, nextra * sizeof *kv);
        if (!kv)
            return oom(L);
        uint32_t w = 0;
        for (uint32_t i = 0; i < m->len; i++) {
            const char *k = m->u.kids[i].key;
            if (strcmp(k, "nn_module_stack") && strcmp(k, "stack_trace") &&
                strcmp(k, "source_fn_stack") && strcmp(k, "source_fn") && strcmp(k, "torch_fn") &&
                strcmp(k, "custom") && strcmp(k, "from_node")) {
                kv[w].key = k;
                kv[w].value = m->u.kids[i].u.str;
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

static int lookup_value(loader *L, gscope *sc, const char *name, const jpath *p, exdb_arg *out) {
    exdb_node *n = exdb_strmap_get(&sc->values, name);
    if (!n)
        return lfail(L, p, "refers to \"%s\", which no earlier node or input defines", name);
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
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, "a symbolic argument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_name") == 0) {
        if (v->type != EXDB_JSTRING)
            return lfail(L, &vp, "expected a string, found %s", exdb_json_type_name(v));
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
    return lfail(L, p, "unknown %s kind \"%s\"",
                 flavour == 0   ? "SymIntArgument"
                 : flavour == 1 ? "SymFloatArgument"
                                : "SymBoolArgument",
                 tag);
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
    return lfail(L, p, "unknown OptionalTensorArgument kind \"%s\"", tag);
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
        return lfail(L, p, "expected a string, found %s", exdb_json_type_name(j));
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
static int elem_list_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
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

static int elem_list_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return list_of(L, sc, j, p, elem_int, o);
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
        return tensor_ref(L, sc, v, &vp, out);
    } else if (strcmp(tag, "as_operator") == 0) {
        if (v->type != EXDB_JSTRING)
            return lfail(L, &vp, "expected a string, found %s", exdb_json_type_name(v));
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
        return list_of(L, sc, v, &vp, elem_list_int, out);
    } else if (strcmp(tag, "as_float_lists") == 0) {
        return list_of(L, sc, v, &vp, elem_list_float, out);
    } else if (strcmp(tag, "as_string_to_argument") == 0) {
        if (need_obj(L, v, &vp) < 0)
            return -1;
        if (exdb_arg_seq(L->a, EXDB_ARG_DICT, v->len, out) < 0)
            return oom(L);
        for (uint32_t i = 0; i < v->len; i++) {
            jpath kp = PKEY(&vp, v->u.kids[i].key);
            out->keys[i] = v->u.kids[i].key;
            if (load_arg(L, sc, &v->u.kids[i], &kp, &out->u.items[i]) < 0)
                return -1;
        }
        return 0;
    } else if (strcmp(tag, "as_graph") == 0) {
        return load_subgraph_arg(L, sc, v, &vp, out);
    }
    return lfail(L, p, "unknown argument kind \"%s\"", tag);
}

/* ---- nodes */

/* Targets whose result is a SymInt/SymBool/SymFloat and that PyTorch
 * deserializes with deserialize_sym_op_inputs (all inputs positional). */
static int is_sym_op(const char *t) {
    static const char *const ops[] = {"_operator.add",
                                      "_operator.sub",
                                      "_operator.mul",
                                      "_operator.floordiv",
                                      "_operator.truediv",
                                      "_operator.mod",
                                      "_operator.pow",
                                      "_operator.neg",
                                      "_operator.pos",
                                      "_operator.eq",
                                      "_operator.ne",
                                      "_operator.le",
                                      "_operator.ge",
                                      "_operator.lt",
                                      "_operator.gt",
                                      "_operator.and_",
                                      "_operator.or_",
                                      "_operator.not_",
                                      "_operator.abs",
                                      "math.trunc",
                                      "torch.sym_int",
                                      "torch.sym_float",
                                      "torch.sym_ite",
                                      "torch.sym_max",
                                      "torch.sym_min",
                                      "torch.sym_not",
                                      "torch.sym_sqrt",
                                      "torch._sym_sqrt",
                                      "torch.sym_sum",
                                      "torch.ops.aten.sym_size.int",
                                      "torch.ops.aten.sym_stride.int",
                                      "torch.ops.aten.sym_numel.default",
                                      "torch.ops.aten.sym_storage_offset.default",
                                      "torch.ops.aten.item.default",
                                      NULL};
    for (int i = 0; ops[i]; i++)
        if (strcmp(t, ops[i]) == 0)
            return 1;
    return 0;
}

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

/* Records that serialized value `name` is produced by node n (sync_fx_node). */
static int bind_value(loader *L, gscope *sc, const char *name, exdb_node *n, const jpath *p) {
    int created;
    void **slot = exdb_strmap_put(&sc->values, name, &created);
    if (!slot)
        return oom(L);
    if (!created)
        return lfail(L, p, "value \"%s\" is defined twice", name);
    *slot = n;
    if (!n->meta || !n->meta->val) {
        exdb_val *v = exdb_strmap_get(&sc->metas, name);
        if (v) {
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

/* generate_getitems: one getitem per element, nested for list elements. */
static int gen_getitems(loader *L, gscope *sc, exdb_node *of, const exdb_json *outs, const jpath *p,
                        const exdb_meta *meta, int elems_are_tensor_args, exdb_val *tuple_val) {
    tuple_val->kind = EXDB_VAL_TUPLE;
    tuple_val->n = outs->len;
    tuple_val->u.items = exdb_arena_calloc(L->a, outs->len ? outs->len : 1, sizeof(exdb_val *));
    if (!tuple_val->u.items)
        return oom(L);
    for (uint32_t i = 0; i < outs->len; i++) {
        const exdb_json *o = &outs->u.kids[i];
        jpath ip = PIDX(p, i);
        const char *tag = "as_tensor";
        const exdb_json *v = o;
        if (!elems_are_tensor_args && get_union(L, o, &ip, "an output Argument", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ip, tag);
        const char *name = NULL;
        if (strcmp(tag, "as_tensor") == 0) {
            if (need_obj(L, v, &vp) < 0 || get_str(L, v, "name", &vp, &name) < 0)
                return -1;
        } else if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_float") == 0) {
            const char *st;
            const exdb_json *sv;
            if (get_union(L, v, &vp, "a symbolic output", &st, &sv) < 0)
                return -1;
            if (strcmp(st, "as_name") != 0 || sv->type != EXDB_JSTRING)
                return lfail(L, &vp, "expected an output name (\"as_name\"), found \"%s\"", st);
            name = sv->u.str;
        }
        if (name) {
            exdb_node *gi = new_getitem(L, sc, of, i, name, meta);
            if (!gi)
                return oom(L);
            if (bind_value(L, sc, name, gi, &vp) < 0)
                return -1;
            tuple_val->u.items[i] = gi->meta ? gi->meta->val : NULL;
        } else if (strcmp(tag, "as_none") == 0) {
            exdb_node *gi = new_getitem(L, sc, of, i, "as_none", meta);
            if (!gi)
                return oom(L);
        } else if (strcmp(tag, "as_tensors") == 0 || strcmp(tag, "as_sym_ints") == 0 ||
                   strcmp(tag, "as_sym_floats") == 0) {
            if (need_arr(L, v, &vp) < 0)
                return -1;
            exdb_node *list = new_getitem(L, sc, of, i, NULL, meta);
            if (!list)
                return oom(L);
            exdb_val *lv = exdb_arena_calloc(L->a, 1, sizeof *lv);
            if (!lv)
                return oom(L);
            /* elements of as_tensors are TensorArguments; of as_sym_ints, SymIntArguments */
            if (strcmp(tag, "as_tensors") == 0) {
                if (gen_getitems(L, sc, list, v, &vp, meta, 1, lv) < 0)
                    return -1;
            } else {
                /* wrap each SymIntArgument as an Argument-like union */
                if (gen_getitems(L, sc, list, v, &vp, meta, 0, lv) < 0)
                    return -1;
            }
            if (set_val(L, list, lv) < 0)
                return -1;
            tuple_val->u.items[i] = lv;
        } else {
            return lfail(L, &ip, "unsupported node output kind \"%s\"", tag);
        }
    }
    return 0;
}

/* deserialize_outputs: binds a node's outputs to names. */
static int load_outputs(loader *L, gscope *sc, exdb_node *n, const exdb_json *outs, const jpath *p,
                        int is_hop, int hop_single) {
    if (!outs || outs->len == 0)
        return 0;
    const exdb_json *o0 = &outs->u.kids[0];
    jpath p0 = PIDX(p, 0);
    const char *tag;
    const exdb_json *v;
    if (get_union(L, o0, &p0, "an output Argument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(&p0, tag);
    if (outs->len == 1 && strcmp(tag, "as_tensor") == 0 && !(is_hop && !hop_single)) {
        const char *name;
        if (need_obj(L, v, &vp) < 0 || get_str(L, v, "name", &vp, &name) < 0)
            return -1;
        return bind_value(L, sc, name, n, &vp);
    }
    if (outs->len == 1 && (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_bool") == 0 ||
                           strcmp(tag, "as_sym_float") == 0)) {
        const char *st;
        const exdb_json *sv;
        if (get_union(L, v, &vp, "a symbolic output", &st, &sv) < 0)
            return -1;
        if (strcmp(st, "as_name") != 0 || sv->type != EXDB_JSTRING)
            return lfail(L, &vp, "expected an output name (\"as_name\"), found \"%s\"", st);
        return bind_value(L, sc, sv->u.str, n, &vp);
    }
    if (outs->len == 1 && strcmp(tag, "as_none") == 0) {
        /* fx_node._rename(f"{_target_to_str(target)}_unused") */
        const char *base = n->target;
        if (n->tkind == EXDB_T_OP && strncmp(base, "torch.ops.", 10) == 0) {
            const char *q = strchr(base + 10, '.');
            base = q ? q + 1 : base;
            const char *dot = strchr(base, '.');
            base = exdb_arena_strndup(L->a, base, dot ? (size_t)(dot - base) : strlen(base));
        } else {
            const char *dot = strrchr(base, '.');
            if (dot)
                base = dot + 1;
        }
        char *cand = exdb_arena_printf(L->a, "%s_unused", base);
        if (!cand)
            return oom(L);
        void **slot = exdb_strmap_find(&sc->g->names, n->name);
        if (slot)
            *slot = NULL;
        n->name = exdb_graph_create_name(sc->g, cand);
        if (!n->name)
            return oom(L);
        slot = exdb_strmap_find(&sc->g->names, n->name);
        *slot = n;
        exdb_val *nv = exdb_arena_calloc(L->a, 1, sizeof *nv);
        return nv ? set_val(L, n, nv) : oom(L);
    }
    exdb_val *tv = exdb_arena_calloc(L->a, 1, sizeof *tv);
    if (!tv)
        return oom(L);
    int rc;
    if (outs->len == 1) {
        if (strcmp(tag, "as_tensors") != 0 || !exdb_json_is(v, EXDB_JARRAY))
            return lfail(L, &p0, "unsupported single node output kind \"%s\"", tag);
        rc = gen_getitems(L, sc, n, v, &vp, n->meta, 1, tv);
    } else {
        rc = gen_getitems(L, sc, n, outs, p, n->meta, 0, tv);
    }
    if (rc < 0)
        return -1;
    if (set_val(L, n, tv) < 0)
        return -1;
    /* serialized_name_to_node[fx_node.name] = fx_node */
    void **slot = exdb_strmap_put(&sc->values, n->name, NULL);
    if (!slot)
        return oom(L);
    if (!*slot)
        *slot = n;
    return 0;
}

/* The first output's value name: what PyTorch names a single-result node. */
static const char *single_output_name(const exdb_json *outs, int want_sym) {
    if (!outs || outs->type != EXDB_JARRAY || outs->len != 1)
        return NULL;
    const exdb_json *o = &outs->u.kids[0];
    if (o->type != EXDB_JOBJECT || o->len < 1)
        return NULL;
    const exdb_json *t = get_opt(o, want_sym ? "as_sym_int" : "as_tensor");
    if (!t && want_sym)
        t = get_opt(o, "as_sym_bool");
    if (!t && want_sym)
        t = get_opt(o, "as_sym_float");
    if (!t)
        return NULL;
    const exdb_json *nm = get_opt(t, want_sym ? "as_name" : "name");
    return exdb_json_is(nm, EXDB_JSTRING) ? nm->u.str : NULL;
}

static int load_node(loader *L, gscope *sc, const exdb_json *jn, const jpath *p, int32_t idx) {
    if (need_obj(L, jn, p) < 0)
        return -1;
    const char *target;
    if (get_str(L, jn, "target", p, &target) < 0)
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
            return lfail(L, &np, "expected a string, found %s", exdb_json_type_name(jname));
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
    int sym = is_sym_op(target);
    if (!sym && outs->len == 1 && tk != EXDB_T_HOP) {
        const exdb_json *o = &outs->u.kids[0];
        if (get_opt(o, "as_sym_int") || get_opt(o, "as_sym_bool") || get_opt(o, "as_sym_float"))
            sym = 1;
    }
    int is_hop = tk == EXDB_T_HOP;
    int hop_single = 0;
    const exdb_json *hs = get_opt(jn, "is_hop_single_tensor_return");
    if (hs && hs->type == EXDB_JTRUE)
        hop_single = 1;

    /* args / kwargs */
    uint32_t npos = 0, nkw = 0;
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *na = &ins->u.kids[i];
        jpath nap = PIDX(&ip, i);
        if (need_obj(L, na, &nap) < 0)
            return -1;
        const exdb_json *nm = exdb_json_get(na, "name");
        if (!exdb_json_is(nm, EXDB_JSTRING)) {
            jpath nmp = PKEY(&nap, "name");
            return lfail(L, nm ? &nmp : &nap,
                         nm ? "expected a string, found %s" : "missing key \"name\"%s",
                         nm ? exdb_json_type_name(nm) : "");
        }
        int positional;
        if (sym) {
            positional = 1;
        } else if (is_hop) {
            positional = nm->u.str[0] == '\0';
        } else {
            const exdb_json *kind = get_opt(na, "kind");
            int64_t k = 1;
            if (kind) {
                jpath kp = PKEY(&nap, "kind");
                if (as_int(L, kind, &kp, &k) < 0)
                    return -1;
            }
            /* KEYWORD -> kwargs unless the name is a Python keyword */
            positional = !(k == 2 && !is_python_keyword(nm->u.str));
        }
        if (positional)
            npos++;
        else
            nkw++;
    }
    exdb_arg args, kwargs;
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, npos, &args) < 0 ||
        exdb_arg_seq(L->a, EXDB_ARG_DICT, nkw, &kwargs) < 0)
        return oom(L);
    uint32_t ap = 0, kp = 0;
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *na = &ins->u.kids[i];
        jpath nap = PIDX(&ip, i);
        jpath argp = PKEY(&nap, "arg");
        const char *aname = exdb_json_get(na, "name")->u.str;
        int positional;
        if (sym) {
            positional = 1;
        } else if (is_hop) {
            positional = aname[0] == '\0';
        } else {
            const exdb_json *kind = get_opt(na, "kind");
            int64_t k = 1;
            if (kind)
                exdb_json_int(kind, &k);
            positional = !(k == 2 && !is_python_keyword(aname));
        }
        const exdb_json *arg = exdb_json_get(na, "arg");
        if (!arg)
            return lfail(L, &nap, "missing key \"arg\"");
        exdb_arg *dst;
        if (positional) {
            dst = &args.u.items[ap++];
        } else {
            kwargs.keys[kp] = aname;
            dst = &kwargs.u.items[kp++];
        }
        if (load_arg(L, sc, arg, &argp, dst) < 0)
            return -1;
    }

    /* the node's name (see deserialize_node) */
    const char *name = given;
    if (!name) {
        if (sym)
            name = single_output_name(outs, 1);
        else if (is_hop)
            name = hop_single ? single_output_name(outs, 0) : NULL;
        else
            name = single_output_name(outs, 0);
    }
    exdb_node *n =
        exdb_graph_create_node(sc->g, EXDB_OP_CALL_FUNCTION, pt, tk, &args, &kwargs, name);
    if (!n)
        return oom(L);
    n->src = idx;
    n->meta = meta;
    /* HOP: get_attr subgraph arguments inherit the HOP's metadata */
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
    return load_outputs(L, sc, n, outs, &op, is_hop, hop_single);
}

/* as_graph: a subgraph registered as a submodule plus a get_attr node. */
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
    struct exdb_subgraph *ns = exdb_arena_alloc(L->a, (P->nsubgraphs + 1) * sizeof *ns);
    if (!ns)
        return oom(L);
    if (P->nsubgraphs)
        memcpy(ns, P->subgraphs, P->nsubgraphs * sizeof *ns);
    ns[P->nsubgraphs].name = name;
    ns[P->nsubgraphs].graph = sub;
    ns[P->nsubgraphs].owner = ga;
    P->subgraphs = ns;
    P->nsubgraphs++;
    *out = exdb_arg_node(ga);
    return 0;
}

/* The constant name a graph input gets when it is not a tensor/obj/symint. */
static const char *constant_input_name(loader *L, uint32_t i) {
    exdb_program *P = L->prog;
    if (i < P->ninputs && P->inputs[i].kind == EXDB_IN_CONSTANT_INPUT && P->inputs[i].name)
        return P->inputs[i].name;
    return exdb_arena_printf(L->a, "arg%u", i);
}

/* Creates a placeholder whose name is forced to `name`, as the deserializer
 * does (`placeholder_node.name = name`, even when FX would refuse it). */
static exdb_node *forced_placeholder(loader *L, gscope *sc, const char *name) {
    exdb_node *ph =
        exdb_graph_create_node(sc->g, EXDB_OP_PLACEHOLDER, name, EXDB_T_STR, NULL, NULL, NULL);
    if (!ph)
        return NULL;
    if (strcmp(ph->name, name) != 0) {
        void **slot = exdb_strmap_find(&sc->g->names, ph->name);
        if (slot)
            *slot = NULL;
        ph->name = name;
        slot = exdb_strmap_put(&sc->g->names, name, NULL);
        if (!slot)
            return NULL;
        *slot = ph;
    }
    return ph;
}

/* Graph output value (deserialize_graph_output). */
static int load_output_value(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                             exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (get_union(L, j, p, "an output Argument", &tag, &v) < 0)
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
    /* PyTorch falls back to deserialize_input for anything else */
    return load_arg(L, sc, j, p, out);
}

/* deserialize_graph: placeholders, nodes, output. */
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
    for (uint32_t i = 0; i < ins->len; i++) {
        jpath ep = PIDX(&ip, i);
        const char *tag;
        const exdb_json *v;
        if (get_union(L, &ins->u.kids[i], &ep, "an input Argument", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ep, tag);
        const char *name = NULL;
        exdb_val *cval = NULL;
        if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0 ||
            strcmp(tag, "as_token") == 0) {
            if (need_obj(L, v, &vp) < 0 || get_str(L, v, "name", &vp, &name) < 0)
                return -1;
        } else if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_bool") == 0 ||
                   strcmp(tag, "as_sym_float") == 0) {
            const char *st;
            const exdb_json *sv;
            if (get_union(L, v, &vp, "a symbolic input", &st, &sv) < 0)
                return -1;
            if (strcmp(st, "as_name") != 0 || sv->type != EXDB_JSTRING)
                return lfail(L, &vp, "a graph input must be named (\"as_name\"), found \"%s\"", st);
            name = sv->u.str;
        } else if (strcmp(tag, "as_int") == 0 || strcmp(tag, "as_float") == 0 ||
                   strcmp(tag, "as_bool") == 0 || strcmp(tag, "as_none") == 0 ||
                   strcmp(tag, "as_string") == 0) {
            name = is_sub ? exdb_arena_printf(L->a, "arg%u", i) : constant_input_name(L, i);
            exdb_arg *ca = exdb_arena_alloc(L->a, sizeof *ca);
            cval = exdb_arena_calloc(L->a, 1, sizeof *cval);
            if (!name || !ca || !cval)
                return oom(L);
            if (load_output_value(L, &sc, &ins->u.kids[i], &ep, ca) < 0)
                return -1;
            cval->kind = EXDB_VAL_CONST;
            cval->u.arg = ca;
        } else {
            return lfail(L, &ep, "unsupported graph input kind \"%s\"", tag);
        }
        exdb_node *ph = forced_placeholder(L, &sc, name);
        if (!ph)
            return oom(L);
        if (exdb_strmap_get(&sc.values, name))
            return lfail(L, &vp, "input \"%s\" is defined twice", name);
        if (cval) {
            void **slot = exdb_strmap_put(&sc.metas, name, NULL);
            if (!slot)
                return oom(L);
            *slot = cval;
        }
        if (bind_value(L, &sc, name, ph, &vp) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < nodes->len; i++) {
        jpath ep = PIDX(&np, i);
        if (load_node(L, &sc, &nodes->u.kids[i], &ep, is_sub ? -1 : (int32_t)i) < 0)
            return -1;
    }
    /* output node */
    exdb_arg res;
    const exdb_json *single = get_opt(jg, "is_single_tensor_return");
    if (single && single->type == EXDB_JTRUE) {
        if (outs->len != 1)
            return lfail(L, &op, "is_single_tensor_return is true but there are %u outputs",
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
    if (!exdb_graph_create_node(g, EXDB_OP_OUTPUT, "output", EXDB_T_STR, &args, NULL, "output"))
        return oom(L);
    return 0;
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
        if (strcmp(st, "as_name") == 0 && sv->type == EXDB_JSTRING)
            *name = sv->u.str;
        return 0;
    }
    if (constant) {
        gscope none = {0};
        exdb_strmap_init(&none.values, L->a);
        return load_arg(L, &none, j, p, constant);
    }
    return 0;
}

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
        if (k < 0)
            return lfail(L, &ep, "unknown input spec kind \"%s\"", tag);
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
            return lfail(L, &vp, "missing key \"arg\"");
        if (k == EXDB_IN_USER_INPUT) {
            if (arg_value_name(L, arg, &ap, &s->name, &s->value) < 0)
                return -1;
        } else {
            if (need_obj(L, arg, &ap) < 0 || get_str(L, arg, "name", &ap, &s->name) < 0)
                return -1;
            if (k == EXDB_IN_CUSTOM_OBJ)
                s->class_fqn = exdb_json_is(exdb_json_get(arg, "class_fqn"), EXDB_JSTRING)
                                   ? exdb_json_get(arg, "class_fqn")->u.str
                                   : NULL;
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
        if (k < 0)
            return lfail(L, &ep, "unknown output spec kind \"%s\"", tag);
        s->kind = (exdb_output_kind)k;
        if (need_obj(L, v, &vp) < 0)
            return -1;
        const exdb_json *arg = exdb_json_get(v, "arg");
        jpath ap = PKEY(&vp, "arg");
        if (!arg)
            return lfail(L, &vp, "missing key \"arg\"");
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
        (*out)[i] = j->u.kids[i].u.str;
    }
    return 0;
}

static int load_sig_args(loader *L, const exdb_json *j, const jpath *p, const char ***out,
                         uint32_t *n) {
    if (!j) {
        *n = 0;
        *out = NULL;
        return 0;
    }
    if (need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    if (!*out)
        return oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ep = PIDX(p, i);
        exdb_arg c;
        if (arg_value_name(L, &j->u.kids[i], &ep, &(*out)[i], &c) < 0)
            return -1;
    }
    return 0;
}

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
        if (load_sig_args(L, get_opt(sig, "inputs"), &inp, &s->inputs, &s->ninputs) < 0 ||
            load_sig_args(L, get_opt(sig, "outputs"), &outp, &s->outputs, &s->noutputs) < 0)
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
        (*out)[i].key = e->key;
        if (e->type == EXDB_JSTRING) {
            (*out)[i].value = e->u.str;
        } else if (e->type == EXDB_JNUMBER) {
            (*out)[i].value = exdb_arena_strndup(L->a, e->u.str, e->len);
        } else {
            jpath ep = PKEY(p, e->key);
            return lfail(L, &ep, "expected a string or number, found %s", exdb_json_type_name(e));
        }
    }
    return 0;
}

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
    if (major < 2 || major > 8)
        return lfail(L, &svp,
                     "schema version %" PRId64 ".%" PRId64
                     " is not supported (exdb reads 2 to 8.x)",
                     major, minor);
    P->schema_major = (int)major;
    P->schema_minor = (int)minor;
    L->legacy_unions = major < 5;
    const exdb_json *tv = get_opt(root, "torch_version");
    if (exdb_json_is(tv, EXDB_JSTRING))
        P->torch_version = tv->u.str;
    const exdb_json *dia = get_opt(root, "dialect");
    if (exdb_json_is(dia, EXDB_JSTRING))
        P->dialect = dia->u.str;
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
                } else {
                    return lfail(L, &bp, "expected an integer, null or Infinity, found %s",
                                 exdb_json_type_name(b));
                }
            }
        }
    }
    const exdb_json *gm = exdb_json_get(root, "graph_module");
    jpath gmp = PKEY(top, "graph_module");
    if (!gm)
        return lfail(L, top, "missing key \"graph_module\"");
    if (need_obj(L, gm, &gmp) < 0)
        return -1;
    /* signature first: constant inputs take their names from it */
    const exdb_json *sig = exdb_json_get(gm, "signature");
    jpath sigp = PKEY(&gmp, "signature");
    if (!sig)
        return lfail(L, &gmp, "missing key \"signature\"");
    if (load_signature(L, sig, &sigp) < 0)
        return -1;
    const exdb_json *jg = exdb_json_get(gm, "graph");
    jpath gp = PKEY(&gmp, "graph");
    if (!jg)
        return lfail(L, &gmp, "missing key \"graph\"");
    if (need_obj(L, jg, &gp) < 0)
        return -1;
    P->graph = exdb_graph_new(L->a);
    if (!P->graph)
        return oom(L);
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    P->nserialized_nodes = exdb_json_is(nodes, EXDB_JARRAY) ? nodes->len : 0;
    if (load_graph(L, jg, &gp, P->graph, 0) < 0)
        return -1;
    /* inputs and specs pair up one to one */
    const exdb_json *gins = exdb_json_get(jg, "inputs");
    const exdb_json *gouts = exdb_json_get(jg, "outputs");
    if (gins->len != P->ninputs) {
        jpath isp = PKEY(&sigp, "input_specs");
        return lfail(L, &isp, "%u input specs for %u graph inputs (they must pair up one to one)",
                     P->ninputs, gins->len);
    }
    if (gouts->len != P->noutputs) {
        jpath osp2 = PKEY(&sigp, "output_specs");
        return lfail(L, &osp2,
                     "%u output specs for %u graph outputs (they must pair up one to one)",
                     P->noutputs, gouts->len);
    }
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
        free(buf);
        exdb_errorf(err, "%s: out of memory", name);
        return NULL;
    }
    exdb_arena_init(&P->arena);
    P->buf = buf;
    P->json_bytes = len;
    P->path = exdb_arena_strdup(&P->arena, name);
    P->member = P->path;
    P->model = "model";
    loader L = {.prog = P, .a = &P->arena, .fname = P->path ? P->path : name, .err = err};
    /* The DOM lives in its own arena, dropped once the IR is built. */
    exdb_arena dom;
    exdb_arena_init(&dom);
    exdb_json *root;
    int rc = -1;
    if (!P->path)
        exdb_errorf(err, "%s: out of memory", name);
    else if (exdb_json_parse(buf, len, &dom, L.fname, &root, err) == 0)
        rc = load_program(&L, root);
    exdb_arena_destroy(&dom);
    if (rc < 0) {
        exdb_program_free(P);
        return NULL;
    }
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
    char *label = kind == EXDB_CONT_JSON ? strdup(path) : NULL;
    if (!label) {
        size_t n = strlen(path) + strlen(member) + 3;
        label = malloc(n);
        if (label)
            snprintf(label, n, "%s: %s", path, member);
    }
    exdb_program *P = label ? exdb_program_from_json(buf, len, label, err) : NULL;
    if (!label) {
        free(buf);
        exdb_errorf(err, "%s: out of memory", path);
    }
    if (P) {
        P->path = exdb_arena_strdup(&P->arena, path);
        P->member = exdb_arena_strdup(&P->arena, member);
        P->container_kind = kind;
        if (model)
            P->model = exdb_arena_strdup(&P->arena, model);
        else if (exdb_container_model_count(c) == 1)
            P->model = exdb_arena_strdup(&P->arena, exdb_container_model_name(c, 0));
    }
    free(label);
    exdb_container_close(c);
    return P;
}

void exdb_program_free(exdb_program *p) {
    if (!p)
        return;
    exdb_arena_destroy(&p->arena);
    free(p->buf);
    free(p);
}
