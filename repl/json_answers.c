/* json_answers.c - the structured data of the commands' JSON answers (see
 * json_answers.h and docs/json.md). The text a command prints stays its
 * "output"; these builders give the same facts as data, read from the IR
 * and never parsed back out of the text, except where the text is itself
 * the format (info facts, show). */
#include "json_answers.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/fx/print.h"
#include "core/export/save.h"
#include "core/base/strbuf.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unflatten.h"

/* ---- values */

/* An int64 as a JSON number written exactly (a double would round past
 * 2^53). */
static cJSON *exact_int(int64_t v) {
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, v);
    return cJSON_CreateRaw(t);
}

/* A float as Python's repr writes it (1e-05, 0.1): valid JSON when finite;
 * inf and nan, which JSON has no number for, as {"float": "inf"}. */
static cJSON *py_float(double d) {
    char t[32];
    exdb_py_float(d, t);
    if (isfinite(d))
        return cJSON_CreateRaw(t);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "float", t);
    return o;
}

static cJSON *tagged(const char *tag, cJSON *v) {
    cJSON *o = cJSON_CreateObject();
    if (o && v)
        cJSON_AddItemToObject(o, tag, v);
    else
        cJSON_Delete(v);
    return o;
}

cJSON *ja_arg(const exdb_arg *a) {
    switch ((exdb_arg_kind)a->kind) {
    case EXDB_ARG_NONE:
        return cJSON_CreateNull();
    case EXDB_ARG_NODE:
        return tagged("node", cJSON_CreateString(a->u.node->name));
    case EXDB_ARG_INT:
        return exact_int(a->u.i);
    case EXDB_ARG_FLOAT:
        return py_float(a->u.f);
    case EXDB_ARG_BOOL:
        return cJSON_CreateBool(a->u.i != 0);
    case EXDB_ARG_STR:
        return cJSON_CreateString(a->u.s);
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE: {
        cJSON *arr = cJSON_CreateArray();
        for (uint32_t i = 0; arr && i < a->n; i++)
            cJSON_AddItemToArray(arr, ja_arg(&a->u.items[i]));
        return a->kind == EXDB_ARG_LIST ? arr : tagged("tuple", arr);
    }
    case EXDB_ARG_DICT: {
        cJSON *o = cJSON_CreateObject();
        for (uint32_t i = 0; o && i < a->n; i++)
            cJSON_AddItemToObject(o, a->keys[i], ja_arg(&a->u.items[i]));
        return tagged("dict", o);
    }
    case EXDB_ARG_DTYPE:
        return tagged("dtype", cJSON_CreateString(exdb_dtype_name((int)a->u.i)));
    case EXDB_ARG_LAYOUT:
        return tagged("layout", cJSON_CreateString(exdb_layout_name((int)a->u.i)));
    case EXDB_ARG_MEMFMT:
        return tagged("memory_format", cJSON_CreateString(exdb_memory_format_name((int)a->u.i)));
    case EXDB_ARG_DEVICE:
        return tagged("device", cJSON_CreateString(a->u.s));
    case EXDB_ARG_COMPLEX: {
        cJSON *arr = cJSON_CreateArray();
        if (arr) {
            cJSON_AddItemToArray(arr, py_float(a->u.c[0]));
            cJSON_AddItemToArray(arr, py_float(a->u.c[1]));
        }
        return tagged("complex", arr);
    }
    case EXDB_ARG_OPERATOR:
        return tagged("operator", cJSON_CreateString(a->u.s));
    }
    return cJSON_CreateNull();
}

/* A size or stride: a whole number, or the sympy expression of a symbol. */
static cJSON *sym_json(const exdb_sym *s) {
    return s->expr ? cJSON_CreateString(s->expr) : exact_int(s->v.i);
}

static cJSON *tensor_json(cJSON *o, const exdb_tensor_meta *t) {
    cJSON_AddStringToObject(o, "dtype", exdb_dtype_name(t->dtype));
    cJSON *shape = cJSON_AddArrayToObject(o, "shape");
    for (uint32_t i = 0; shape && i < t->ndim; i++)
        cJSON_AddItemToArray(shape, sym_json(&t->sizes[i]));
    if (t->strides) {
        cJSON *st = cJSON_AddArrayToObject(o, "stride");
        for (uint32_t i = 0; st && i < t->ndim; i++)
            cJSON_AddItemToArray(st, sym_json(&t->strides[i]));
    } else {
        cJSON_AddNullToObject(o, "stride");
    }
    char dev[96];
    if (t->device_index >= 0)
        snprintf(dev, sizeof dev, "%s:%d", t->device_type, t->device_index);
    else
        snprintf(dev, sizeof dev, "%s", t->device_type ? t->device_type : "");
    cJSON_AddStringToObject(o, "device", dev);
    cJSON_AddStringToObject(o, "layout", exdb_layout_name(t->layout));
    cJSON_AddBoolToObject(o, "requires_grad", t->requires_grad);
    return o;
}

static const char *const val_kinds[] = {"none",    "tensor",     "symint", "symfloat",
                                        "symbool", "custom_obj", "tuple",  "constant"};

cJSON *ja_val(const exdb_val *v) {
    if (!v)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "kind", v->kind < 8 ? val_kinds[v->kind] : "?");
    switch ((exdb_val_kind)v->kind) {
    case EXDB_VAL_NONE:
        break;
    case EXDB_VAL_TENSOR:
        tensor_json(o, v->u.t);
        break;
    case EXDB_VAL_SYMINT:
    case EXDB_VAL_SYMFLOAT:
    case EXDB_VAL_SYMBOOL: {
        const exdb_sym *s = &v->u.sym;
        if (s->expr)
            cJSON_AddStringToObject(o, "expr", s->expr);
        else
            cJSON_AddNullToObject(o, "expr");
        if (s->expr && !s->has_hint)
            cJSON_AddNullToObject(o, "value");
        else if (v->kind == EXDB_VAL_SYMINT)
            cJSON_AddItemToObject(o, "value", exact_int(s->v.i));
        else if (v->kind == EXDB_VAL_SYMFLOAT)
            cJSON_AddItemToObject(o, "value", py_float(s->v.f));
        else
            cJSON_AddBoolToObject(o, "value", s->v.b);
        break;
    }
    case EXDB_VAL_CUSTOM_OBJ:
        cJSON_AddStringToObject(o, "class", v->u.s);
        break;
    case EXDB_VAL_TUPLE: {
        cJSON *items = cJSON_AddArrayToObject(o, "items");
        for (uint32_t i = 0; items && i < v->n; i++)
            cJSON_AddItemToArray(items, ja_val(v->u.items[i]));
        break;
    }
    case EXDB_VAL_CONST:
        cJSON_AddItemToObject(o, "value", ja_arg(v->u.arg));
        break;
    }
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_format_val(&b, v);
    cJSON_AddStringToObject(o, "text", exdb_buf_str(&b));
    exdb_buf_free(&b);
    return o;
}

/* ---- nodes and graphs */

static void add_str_or_null(cJSON *o, const char *key, const char *s) {
    if (s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

/* meta: the module stack as entries, the stack trace and the other keys
 * as written. */
static cJSON *meta_json(const exdb_meta *m) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (m && m->has_stack) {
        cJSON *st = cJSON_AddArrayToObject(o, "nn_module_stack");
        for (uint32_t i = 0; st && i < m->nstack; i++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "key", m->stack[i].key);
            cJSON_AddStringToObject(e, "path", m->stack[i].path);
            cJSON_AddStringToObject(e, "type", m->stack[i].type);
            cJSON_AddNumberToObject(e, "call_idx", m->stack[i].call_idx);
            cJSON_AddItemToArray(st, e);
        }
    } else {
        cJSON_AddNullToObject(o, "nn_module_stack");
    }
    add_str_or_null(o, "stack_trace", m ? exdb_meta_stack_trace(m) : NULL);
    add_str_or_null(o, "source_fn_stack", m ? exdb_meta_source_fn_stack(m) : NULL);
    add_str_or_null(o, "torch_fn", m ? exdb_meta_torch_fn(m) : NULL);
    add_str_or_null(o, "custom", m ? m->custom : NULL);
    add_str_or_null(o, "from_node", m ? exdb_meta_from_node(m) : NULL);
    cJSON *extra = cJSON_AddObjectToObject(o, "extra");
    for (uint32_t i = 0; extra && m && i < m->nextra; i++)
        cJSON_AddStringToObject(extra, m->lazy_extra[i].key, exdb_meta_extra(m, i));
    return o;
}

/* What the graph signature says a node of the flat graph is (print node's
 * "signature:" lines): a placeholder's input spec, a returned value's output
 * specs, every output spec for the output node. */
static cJSON *roles_json(const exdb_program *p, const exdb_node *n) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && n->op == EXDB_OP_PLACEHOLDER && i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        if (!s->name || strcmp(s->name, n->name) != 0)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", exdb_input_kind_upper(s->kind));
        add_str_or_null(o, "target", s->target);
        if (s->persistent >= 0)
            cJSON_AddBoolToObject(o, "persistent", s->persistent);
        cJSON_AddItemToArray(arr, o);
    }
    int all = n->op == EXDB_OP_OUTPUT;
    for (uint32_t i = 0; arr && n->op != EXDB_OP_PLACEHOLDER && i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        if (!all && !(s->name && strcmp(s->name, n->name) == 0))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", exdb_output_kind_upper(s->kind));
        add_str_or_null(o, "target", s->target);
        if (all)
            add_str_or_null(o, "name", s->name);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static const char *const target_kinds[] = {"name", "op", "hop", "function"};

cJSON *ja_node(const exdb_program *p, const exdb_node *n) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "name", n->name);
    cJSON_AddStringToObject(o, "op", exdb_op_name((exdb_op)n->op));
    cJSON_AddStringToObject(o, "target", n->target);
    cJSON_AddStringToObject(o, "target_kind", n->tkind < 4 ? target_kinds[n->tkind] : "?");
    cJSON *args = cJSON_AddArrayToObject(o, "args"); /* args is always a tuple */
    for (uint32_t i = 0; args && i < n->args.n; i++)
        cJSON_AddItemToArray(args, ja_arg(&n->args.u.items[i]));
    const char *const *an = exdb_arg_names_of(n);
    if (an) {
        cJSON *names = cJSON_AddArrayToObject(o, "arg_names"); /* the schema's, per arg */
        for (uint32_t i = 0; names && i < n->args.n; i++)
            cJSON_AddItemToArray(names, cJSON_CreateString(an[i]));
    }
    cJSON *kwargs = cJSON_AddObjectToObject(o, "kwargs"); /* always a dict */
    for (uint32_t i = 0; kwargs && i < n->kwargs.n; i++)
        cJSON_AddItemToObject(kwargs, n->kwargs.keys[i], ja_arg(&n->kwargs.u.items[i]));
    cJSON *users = cJSON_AddArrayToObject(o, "users");
    for (uint32_t i = 0; users && i < n->nusers; i++)
        cJSON_AddItemToArray(users, cJSON_CreateString(n->users[i]->name));
    cJSON_AddItemToObject(o, "value", ja_val(n->meta ? n->meta->val : NULL));
    cJSON_AddItemToObject(o, "meta", meta_json(n->meta));
    if (p && n->graph == p->graph)
        cJSON_AddItemToObject(o, "signature", roles_json(p, n));
    else
        cJSON_AddNullToObject(o, "signature");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_format_node(&b, n);
    cJSON_AddStringToObject(o, "text", exdb_buf_str(&b));
    exdb_buf_free(&b);
    return o;
}

cJSON *ja_graph(const exdb_program *p, const exdb_graph *g) {
    cJSON *o = cJSON_CreateObject();
    cJSON *nodes = o ? cJSON_AddArrayToObject(o, "nodes") : NULL;
    for (const exdb_node *n = g ? g->head : NULL; nodes && n; n = n->next)
        cJSON_AddItemToArray(nodes, ja_node(p, n));
    return o;
}

/* ---- the program */

static const char *const formats[] = {"json", "pt2", "legacy-zip"};

/* {"kind name": count} over the kinds that occur, in kind order. */
static cJSON *kind_counts(const uint32_t *cnt, int n, int outputs) {
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; o && k < n; k++)
        if (cnt[k])
            cJSON_AddNumberToObject(o,
                                    outputs ? exdb_output_kind_name((exdb_output_kind)k)
                                            : exdb_input_kind_name((exdb_input_kind)k),
                                    cnt[k]);
    return o;
}

cJSON *ja_program(const exdb_program *p) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "path", p->path);
    cJSON_AddStringToObject(
        o, "format",
        p->container_kind >= 0 && p->container_kind < 3 ? formats[p->container_kind] : "?");
    add_str_or_null(o, "member", p->container_kind ? p->member : NULL);
    add_str_or_null(o, "model", p->container_kind ? p->model : NULL);
    char schema[32];
    snprintf(schema, sizeof schema, "%d.%d", p->schema_major, p->schema_minor);
    cJSON_AddStringToObject(o, "schema", schema);
    add_str_or_null(o, "torch_version", p->torch_version);
    cJSON *ver = cJSON_AddArrayToObject(o, "verifiers");
    for (uint32_t i = 0; ver && i < p->nverifiers; i++)
        cJSON_AddItemToArray(ver, cJSON_CreateString(p->verifiers[i]));
    add_str_or_null(o, "dialect", p->dialect);
    exdb_node_counts nc; /* from the shape when opened shape first */
    exdb_program_node_counts(p, &nc);
    cJSON_AddNumberToObject(o, "nodes", nc.nodes);
    cJSON_AddNumberToObject(o, "serialized_nodes", p->nserialized_nodes);
    cJSON *oc = cJSON_AddObjectToObject(o, "ops");
    for (int k = 0; oc && k < 6; k++)
        cJSON_AddNumberToObject(oc, exdb_op_name((exdb_op)k), nc.ops[k]);
    cJSON_AddNumberToObject(o, "getitems", nc.getitems);
    uint32_t ik[7] = {0}, ok[8] = {0}, preserved = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        ik[p->inputs[i].kind < 7 ? p->inputs[i].kind : 0]++;
    for (uint32_t i = 0; i < p->noutputs; i++)
        ok[p->outputs[i].kind < 8 ? p->outputs[i].kind : 0]++;
    for (uint32_t i = 0; i < p->ncalls; i++)
        preserved += p->calls[i].sig && p->calls[i].fqn[0];
    cJSON_AddNumberToObject(o, "inputs", p->ninputs);
    cJSON_AddItemToObject(o, "input_kinds", kind_counts(ik, 7, 0));
    cJSON_AddNumberToObject(o, "outputs", p->noutputs);
    cJSON_AddItemToObject(o, "output_kinds", kind_counts(ok, 8, 1));
    cJSON_AddNumberToObject(o, "modules", p->ncalls);
    cJSON_AddNumberToObject(o, "preserved_signatures", preserved);
    cJSON_AddNumberToObject(o, "subgraphs", exdb_program_subgraph_count(p));
    cJSON *rc = cJSON_AddArrayToObject(o, "range_constraints");
    for (uint32_t i = 0; rc && i < p->nranges; i++) {
        const exdb_range *r = &p->ranges[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "symbol", r->symbol);
        cJSON_AddItemToObject(e, "min", r->has_min ? exact_int(r->min) : cJSON_CreateNull());
        cJSON_AddItemToObject(e, "max", r->has_max ? exact_int(r->max) : cJSON_CreateNull());
        cJSON_AddItemToArray(rc, e);
    }
    return o;
}

cJSON *ja_signature(const exdb_program *p) {
    cJSON *o = cJSON_CreateObject();
    cJSON *in = o ? cJSON_AddArrayToObject(o, "inputs") : NULL;
    for (uint32_t i = 0; in && i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "kind", exdb_input_kind_upper(s->kind));
        add_str_or_null(e, "name", s->name);
        add_str_or_null(e, "target", s->target);
        if (s->persistent >= 0)
            cJSON_AddBoolToObject(e, "persistent", s->persistent);
        if (s->class_fqn)
            cJSON_AddStringToObject(e, "class_fqn", s->class_fqn);
        if (s->kind == EXDB_IN_CONSTANT_INPUT || !s->name)
            cJSON_AddItemToObject(e, "value", ja_arg(&s->value));
        cJSON_AddItemToArray(in, e);
    }
    cJSON *out = o ? cJSON_AddArrayToObject(o, "outputs") : NULL;
    for (uint32_t i = 0; out && i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "kind", exdb_output_kind_upper(s->kind));
        add_str_or_null(e, "name", s->name);
        add_str_or_null(e, "target", s->target);
        if (!s->name)
            cJSON_AddItemToObject(e, "value", ja_arg(&s->value));
        cJSON_AddItemToArray(out, e);
    }
    return o;
}

static cJSON *names_json(const char **names, uint32_t n) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && i < n; i++)
        cJSON_AddItemToArray(arr, names[i] ? cJSON_CreateString(names[i]) : cJSON_CreateNull());
    return arr;
}

/* A TreeSpec as str(TreeSpec) prints it and its leaf count, or null. */
static void spec_json(cJSON *o, const char *key, const exdb_program *p, const exdb_treespec *t) {
    if (!t) {
        cJSON_AddNullToObject(o, key);
        return;
    }
    cJSON *e = cJSON_AddObjectToObject(o, key);
    char *text = exdb_treespec_str((exdb_arena *)&p->arena, t);
    add_str_or_null(e, "text", text);
    cJSON_AddNumberToObject(e, "leaves", t->num_leaves);
}

cJSON *ja_call_graph(const exdb_program *p) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && i < p->ncalls; i++) {
        const exdb_module_call *c = &p->calls[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "index", i);
        cJSON_AddStringToObject(e, "fqn", c->fqn);
        if (!c->sig) {
            cJSON_AddNullToObject(e, "signature");
        } else {
            const exdb_call_signature *s = c->sig;
            cJSON *sig = cJSON_AddObjectToObject(e, "signature");
            cJSON_AddItemToObject(sig, "inputs", names_json(s->inputs, s->ninputs));
            cJSON_AddItemToObject(sig, "outputs", names_json(s->outputs, s->noutputs));
            spec_json(sig, "in_spec", p, s->in_spec);
            spec_json(sig, "out_spec", p, s->out_spec);
            if (s->forward_arg_names)
                cJSON_AddItemToObject(sig, "forward_arg_names",
                                      names_json(s->forward_arg_names, s->nforward_arg_names));
            else
                cJSON_AddNullToObject(sig, "forward_arg_names");
        }
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

/* A word of info facts or show: a whole number as a number, else text. */
static cJSON *word_json(const char *w, size_t n) {
    char *t = strndup(w, n);
    if (!t)
        return NULL;
    char *end;
    long long v = n && n < 19 ? strtoll(t, &end, 10) : 0;
    cJSON *j = n && n < 19 && !*end && (t[0] != '0' || n == 1) && t[0] != '+'
                   ? cJSON_CreateNumber((double)v)
                   : cJSON_CreateString(t);
    free(t);
    return j;
}

/* "input_kinds parameter=35 buffer=4": {"parameter": 35, "buffer": 4}
 * (in the order written, which is the facts' first-appearance order). */
static cJSON *pairs_json(const char *v, size_t n) {
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < n;) {
        size_t j = i;
        while (j < n && v[j] != ' ')
            j++;
        const char *eq = memchr(v + i, '=', j - i);
        if (eq) {
            char *k = strndup(v + i, (size_t)(eq - v - i));
            if (k)
                cJSON_AddItemToObject(o, k, word_json(eq + 1, (size_t)(v + j - eq - 1)));
            free(k);
        }
        i = j + 1;
    }
    return o;
}

cJSON *ja_facts(const char *text) {
    cJSON *o = cJSON_CreateObject();
    for (const char *l = text; o && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        const char *sp = memchr(l, ' ', len);
        /* a line without a value ("input_kinds" of a program without
         * inputs): an empty object for the *_kinds counts, else "" */
        size_t kn = sp ? (size_t)(sp - l) : len;
        char *k = kn ? strndup(l, kn) : NULL;
        const char *v = sp ? sp + 1 : l + len;
        size_t vn = len - (size_t)(v - l);
        if (k) {
            int kinds = kn > 6 && memcmp(k + kn - 6, "_kinds", 6) == 0;
            cJSON_AddItemToObject(o, k,
                                  memchr(v, '=', vn) || (kinds && vn == 0) ? pairs_json(v, vn)
                                                                           : word_json(v, vn));
        }
        free(k);
        l += len + (nl != NULL);
    }
    return o;
}

/* ---- the unflattened module */

int ja_module_calls(const exdb_unflatten *u, const exdb_umodule *m) {
    if (m->kind == EXDB_UMOD_DISPATCH)
        return (int)m->ncall_modules;
    if (m->kind == EXDB_UMOD_INTERP)
        return (int)exdb_modtree_call_count(u->run, m);
    return -1;
}

typedef struct tree_ctx {
    const exdb_unflatten *u;
    ja_class_fn cls;
    void *cls_ctx;
    uint32_t visit;
    cJSON *stack[EXDB_MAX_MODULE_DEPTH + 2]; /* the open modules, root first */
    uint32_t depth;
    cJSON *root;
} tree_ctx;

/* fqn "" is depth 0, "a" 1, "a.b" 2: how deep named_modules is. */
static uint32_t fqn_depth(const char *fqn) {
    uint32_t d = fqn[0] != '\0';
    for (const char *p = fqn; *p; p++)
        d += *p == '.';
    return d;
}

/* named_modules visits in pre-order, so a module at depth d belongs under
 * the module most recently visited at depth d - 1: the stack of open
 * modules nests them without looking paths up. */
static void tree_visit(void *vctx, const char *fqn, exdb_umodule *m) {
    tree_ctx *c = vctx;
    const char *cls = c->cls ? c->cls(c->cls_ctx, c->visit) : "";
    c->visit++;
    uint32_t d = fqn_depth(fqn);
    if (d > EXDB_MAX_MODULE_DEPTH + 1 || (d && d > c->depth) || (!d && c->root))
        return; /* not named_modules' pre-order: leave it out */
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    const char *dot = strrchr(fqn, '.');
    cJSON_AddStringToObject(o, "name", dot ? dot + 1 : fqn);
    cJSON_AddStringToObject(o, "fqn", fqn);
    cJSON_AddStringToObject(o, "kind", exdb_modtree_class_name(m));
    add_str_or_null(o, "type", m->type && m->kind != EXDB_UMOD_GRAPH ? m->type : NULL);
    /* the class: _ty, or for a plain module the one nn_module_stack gives */
    add_str_or_null(o, "class", m->type ? m->type : cls && *cls ? cls : NULL);
    int calls = ja_module_calls(c->u, m);
    if (calls >= 0)
        cJSON_AddNumberToObject(o, "calls", calls);
    else
        cJSON_AddNullToObject(o, "calls");
    if (m->graph)
        cJSON_AddNumberToObject(o, "nodes", m->graph->count);
    else
        cJSON_AddNullToObject(o, "nodes");
    uint32_t np, nb, nc;
    exdb_modtree_count_state(m, &np, &nb, &nc);
    cJSON_AddNumberToObject(o, "params", np);
    cJSON_AddNumberToObject(o, "buffers", nb);
    cJSON_AddNumberToObject(o, "constants", nc);
    cJSON_AddArrayToObject(o, "children");
    if (!d)
        c->root = o;
    else
        cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(c->stack[d - 1], "children"), o);
    c->stack[d] = o;
    c->depth = d + 1;
}

cJSON *ja_module_tree(const exdb_unflatten *u, ja_class_fn cls, void *ctx) {
    tree_ctx c = {.u = u, .cls = cls, .cls_ctx = ctx};
    exdb_modtree_named_modules(u->run, tree_visit, &c);
    return c.root;
}

static cJSON *module_graph(const exdb_unflatten *u, const char *fqn, const exdb_graph *g) {
    cJSON *o = ja_graph(u->prog, g);
    if (o)
        cJSON_AddStringToObject(o, "fqn", fqn);
    return o;
}

cJSON *ja_module(const exdb_unflatten *u, const char *fqn) {
    exdb_umodule *m = exdb_modtree_get_path(u->run->root, fqn);
    int call = 0;
    if (!m && (m = exdb_unflatten_dispatch_call(u, fqn)) != NULL)
        call = 1;
    if (!m || (!m->graph && m->kind != EXDB_UMOD_DISPATCH))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "fqn", fqn);
    cJSON_AddStringToObject(o, "kind", exdb_modtree_class_name(m));
    add_str_or_null(o, "type", m->type && m->kind != EXDB_UMOD_GRAPH ? m->type : NULL);
    cJSON_AddBoolToObject(o, "dispatch_call", call);
    cJSON *graphs = cJSON_AddArrayToObject(o, "graphs");
    if (m->kind != EXDB_UMOD_DISPATCH) {
        cJSON_AddItemToArray(graphs, module_graph(u, fqn, m->graph));
        return o;
    }
    exdb_buf name;
    exdb_buf_init(&name);
    for (uint32_t i = 0; i < m->ncall_modules; i++) { /* n, n@1, n@2: as the text's headers */
        exdb_buf_reset(&name);
        exdb_buf_puts(&name, fqn);
        if (i)
            exdb_buf_printf(&name, "@%u", i);
        cJSON_AddItemToArray(graphs,
                             module_graph(u, exdb_buf_str(&name), m->call_modules[i]->graph));
    }
    exdb_buf_free(&name);
    return o;
}

/* ---- settings and files */

cJSON *ja_settings(const char *text) {
    cJSON *o = cJSON_CreateObject();
    for (const char *l = text; o && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        const char *colon = memchr(l, ':', len);
        if (colon && colon[1] == ' ') {
            char *k = strndup(l, (size_t)(colon - l));
            const char *v = colon + 2;
            if (k)
                cJSON_AddItemToObject(o, k, word_json(v, len - (size_t)(v - l)));
            free(k);
        }
        l += len + (nl != NULL);
    }
    return o;
}

cJSON *ja_render_file(const char *path, const char *view, const exdb_viz_stats *st) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "view", view);
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    add_str_or_null(o, "format", dot && (!slash || dot > slash) ? dot + 1 : NULL);
    cJSON_AddNumberToObject(o, "nodes", st->nodes);
    cJSON_AddNumberToObject(o, "edges", st->edges);
    cJSON_AddNumberToObject(o, "clusters", st->clusters);
    cJSON_AddNumberToObject(o, "dup_nodes", st->dup_nodes);
    add_str_or_null(o, "engine", st->engine);
    return o;
}

cJSON *ja_saved_file(const char *path, const exdb_save_stats *st) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_str_or_null(o, "path", path);
    cJSON_AddBoolToObject(o, "dry_run", path == NULL);
    cJSON_AddNumberToObject(o, "bytes", (double)st->bytes);
    cJSON_AddNumberToObject(o, "nodes_dropped", st->nodes_dropped);
    cJSON_AddNumberToObject(o, "values_dropped", st->values_dropped);
    cJSON_AddNumberToObject(o, "getitems_kept", st->getitems_kept);
    /* what save says: dce removed only getitems the format keeps */
    cJSON_AddBoolToObject(o, "as_loaded", st->getitems_kept && !st->nodes_dropped);
    return o;
}
