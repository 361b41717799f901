/* outline.c - _outline_submodules: the _ModuleFrame outliner as an explicit
 * machine. Upstream recurses (run_from creates a child _ModuleFrame and
 * calls its run_from); here the frames live on r->stack and each call of
 * exdb_outline_step makes exactly one decision for the flat node at r->idx:
 * copy it into the innermost frame (COPY), open a frame for a deeper module
 * (ENTER), or finalise the innermost frame (EXIT). remap_input still walks
 * up the parent chain recursively; its depth is the module nesting depth. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fx/dce.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/ivals.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unodemap.h"
#include "core/unflatten/ustrset.h"

#define EMPTY_STACK_KEY "_empty_nn_module_stack_from_metadata_hook"

/* ---- small helpers */

int exdb_outline_add_user(exdb_node *in, exdb_node *user) {
    for (uint32_t i = in->nusers; i > 0; i--)
        if (in->users[i - 1] == user)
            return 0;
    exdb_arena *a = in->graph->arena;
    EXDB_WILL_WRITE(a, in->nusers);
    if (in->nusers == in->users_cap) {
        EXDB_WILL_WRITE(a, in->users);
        EXDB_WILL_WRITE(a, in->users_cap);
        exdb_node **nu =
            exdb_arena_grow(in->graph->arena, in->users, in->nusers, &in->users_cap, sizeof *nu, 2);
        if (!nu)
            return -1;
        in->users = nu;
    }
    EXDB_WILL_WRITE(a, in->users[in->nusers]);
    in->users[in->nusers++] = user;
    return 0;
}

/* parent_call_module.insert_arg(0, input) without copying the tuple each
 * time: the args live in f->pc_buf with spare room in front. */
int exdb_outline_prepend_arg(exdb_urun *r, exdb_uframe *f, exdb_node *input) {
    exdb_node *call = f->parent_call_module;
    exdb_arg *args = &call->args;
    int ours =
        f->pc_buf && args->u.items == f->pc_buf + f->pc_front && args->n == f->pc_cap - f->pc_front;
    exdb_arena_will_write(&r->arena, &f->pc_buf,
                          sizeof f->pc_buf + sizeof f->pc_cap + sizeof f->pc_front);
    EXDB_WILL_WRITE(&r->arena, *args);
    if (!ours || f->pc_front == 0) {
        uint32_t n = args->n;
        uint32_t cap = 2 * n + 4;
        exdb_arg *buf = exdb_arena_alloc(&r->arena, cap * sizeof *buf);
        if (!buf)
            return -1;
        if (n)
            memcpy(buf + cap - n, args->u.items, n * sizeof *buf);
        f->pc_buf = buf;
        f->pc_cap = cap;
        f->pc_front = cap - n;
    }
    f->pc_front--;
    EXDB_WILL_WRITE(&r->arena, f->pc_buf[f->pc_front]);
    f->pc_buf[f->pc_front] = exdb_arg_node(input);
    args->kind = EXDB_ARG_TUPLE;
    args->u.items = f->pc_buf + f->pc_front;
    args->n++;
    return exdb_outline_add_user(input, call);
}

/* _call_name(base, n) = base if n == 1 else f"{base}@{n - 1}" */
const char *exdb_outline_call_name(exdb_urun *r, const char *base, int n) {
    if (n == 1)
        return base;
    return exdb_arena_printf(&r->arena, "%s@%d", base, n - 1);
}

/* _compute_accessor: the child's path relative to the parent, or NULL when
 * the child is not a descendant (split on '.', compared atom by atom). */
const char *exdb_outline_compute_accessor(exdb_urun *r, const char *parent_fqn,
                                          const char *child_fqn) {
    if (!parent_fqn[0])
        return child_fqn;
    size_t lp = strlen(parent_fqn);
    if (strncmp(child_fqn, parent_fqn, lp) != 0 || child_fqn[lp] != '.')
        return NULL;
    (void)r;
    return child_fqn + lp + 1;
}

typedef struct ipoint {
    exdb_insert_mode mode;
    exdb_node *ref;
} ipoint;

static ipoint ip_save(const exdb_graph *g) {
    ipoint p = {g->insert_mode, g->insert_ref};
    return p;
}

static void ip_restore(exdb_graph *g, ipoint p) {
    EXDB_WILL_WRITE(g->arena, g->insert_mode);
    EXDB_WILL_WRITE(g->arena, g->insert_ref);
    g->insert_mode = p.mode;
    g->insert_ref = p.ref;
}

static const char *frame_name(const exdb_uframe *f) {
    return f->child_fqn[0] ? f->child_fqn : "<root>";
}

static int is_seen(const exdb_urun *r, const exdb_node *n) {
    return n->graph == r->flat && n->id < r->nseen_ids && r->seen[n->id];
}

/* seen_nodes[name], or NULL */
static exdb_node *seen_by_name(const exdb_urun *r, const char *name) {
    if (!name)
        return NULL;
    exdb_node *n = exdb_graph_find(r->flat, name);
    return n && is_seen(r, n) ? n : NULL;
}

static exdb_meta *meta_clone(exdb_urun *r, const exdb_meta *m) {
    exdb_meta *nm = exdb_arena_calloc(&r->arena, 1, sizeof *nm);
    if (nm && m)
        *nm = *m;
    return nm;
}

static exdb_node *new_node(exdb_graph *g, exdb_op op, const char *target, exdb_target_kind tk,
                           const exdb_arg *args, const exdb_arg *kwargs, const char *name) {
    return exdb_graph_create_node(g, op, target, tk, args, kwargs, name);
}

static exdb_node *getitem(exdb_urun *r, exdb_graph *g, exdb_node *of, exdb_arg idx,
                          const char *name) {
    exdb_arg args;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 2, &args) < 0)
        return NULL;
    args.u.items[0] = exdb_arg_node(of);
    args.u.items[1] = idx;
    return new_node(g, EXDB_OP_CALL_FUNCTION, "operator.getitem", EXDB_T_PYFN, &args, NULL, name);
}

/* _generate_unflatten / _generate_flatten_spec: a _spec_N attribute on m, a
 * get_attr of it, and the call, at g's insertion point. */
static exdb_node *gen_spec_call(exdb_urun *r, exdb_umodule *m, exdb_graph *g, const char *fn,
                                exdb_arg first, const exdb_treespec *spec, const char *spec_text) {
    const char *name = exdb_modtree_add_spec(r, m, spec, spec_text);
    if (!name)
        return NULL;
    exdb_node *sn = new_node(g, EXDB_OP_GET_ATTR, name, EXDB_T_STR, NULL, NULL, NULL);
    if (!sn)
        return NULL;
    exdb_arg args;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 2, &args) < 0)
        return NULL;
    args.u.items[0] = first;
    args.u.items[1] = exdb_arg_node(sn);
    return new_node(g, EXDB_OP_CALL_FUNCTION, fn, EXDB_T_PYFN, &args, NULL, NULL);
}

#define TREE_FLATTEN_SPEC "torch.fx._pytree.tree_flatten_spec"
#define TREE_UNFLATTEN    "torch.utils._pytree.tree_unflatten"

/* ---- remap_input and friends */

typedef struct remap_ctx {
    exdb_urun *r;
    exdb_uframe *f;
    exdb_error *err;
} remap_ctx;

static exdb_node *remap_cb(void *vctx, exdb_node *x) {
    remap_ctx *c = vctx;
    exdb_node *out = NULL;
    if (exdb_outline_remap_input(c->r, c->f, x, &out, c->err) < 0)
        return NULL;
    return out;
}

/* _ModuleFrame.add_placeholder */
static int add_placeholder(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_error *err) {
    if (!f->fqn[0])
        return exdb_errorf(err, "AssertionError: Cannot add placeholder %s to root module",
                           x->name);
    ipoint p = ip_save(f->graph);
    exdb_graph_insert_before(f->graph, f->graph->head); /* inserting_before(None) */
    exdb_node *ph = new_node(f->graph, EXDB_OP_PLACEHOLDER, x->name, EXDB_T_STR, NULL, NULL, NULL);
    ip_restore(f->graph, p);
    if (!ph)
        return exdb_errorf(err, "out of memory");
    ph->meta = x->meta;
    ph->src = x->src;
    return exdb_unodemap_put(r, &f->node_to_placeholder, x, ph) < 0
               ? exdb_errorf(err, "out of memory")
               : 0;
}

/* The targets remap_input recomputes locally instead of passing them in. */
static int is_recompute_target(const exdb_node *x) {
    static const char *const ops[] = {
        "torch.ops.aten.sym_size.int", "torch.ops.aten.item.default",
        "torch.ops.aten.unbind.int",   "torch.ops.aten.sum.dim_IntList",
        "torch.ops.aten.view.default", "torch.ops.aten.diff.default",
    };
    if (x->op != EXDB_OP_CALL_FUNCTION)
        return 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcmp(x->target, ops[i]) == 0)
            return 1;
    /* target.__module__ == "_operator" */
    return x->tkind == EXDB_T_PYFN && strncmp(x->target, "operator.", 9) == 0;
}

/* _ModuleFrame.copy_sym_call_function */
static int copy_sym_call_function(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out,
                                  exdb_error *err) {
    remap_ctx c = {r, f, err};
    exdb_arg args, kwargs;
    if (exdb_arg_copy(&r->arena, &x->args, &args, remap_cb, &c) < 0 ||
        exdb_arg_copy(&r->arena, &x->kwargs, &kwargs, remap_cb, &c) < 0)
        return err && err->set ? -1 : exdb_errorf(err, "out of memory");
    exdb_node *n = new_node(f->graph, EXDB_OP_CALL_FUNCTION, x->target, (exdb_target_kind)x->tkind,
                            &args, &kwargs, NULL);
    if (!n || exdb_unodemap_put(r, &f->node_map, x, n) < 0)
        return exdb_errorf(err, "out of memory");
    n->meta = x->meta;
    n->src = x->src;
    *out = n;
    return 0;
}

/* _ModuleFrame.remap_input */
int exdb_outline_remap_input(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out,
                             exdb_error *err) {
    if (x->graph != r->flat)
        return exdb_errorf(err,
                           "AssertionError: expected x.graph to be flat_graph (node %s, "
                           "module '%s')",
                           x->name, frame_name(f));
    exdb_node *m = exdb_unodemap_get(&f->node_map, x);
    if (!m)
        m = exdb_unodemap_get(&f->node_to_placeholder, x);
    if (m) {
        *out = m;
        return 0;
    }
    const exdb_call_signature *sig_self = exdb_strmap_get(&r->sigs, f->fqn);
    if (x->op == EXDB_OP_PLACEHOLDER || !sig_self) {
        if (add_placeholder(r, f, x, err) < 0)
            return -1;
        if (f->parent_call_module) {
            exdb_graph *pg = f->parent->graph;
            ipoint p = ip_save(pg);
            exdb_graph_insert_before(pg, f->parent_call_module);
            exdb_node *up = NULL;
            int rc = exdb_outline_remap_input(r, f->parent, x, &up, err);
            if (rc == 0 && exdb_outline_prepend_arg(r, f, up) < 0)
                rc = exdb_errorf(err, "out of memory");
            ip_restore(pg, p);
            if (rc < 0)
                return -1;
        }
        *out = exdb_unodemap_get(&f->node_to_placeholder, x);
        return 0;
    }
    if (is_recompute_target(x))
        return copy_sym_call_function(r, f, x, out, err);
    return exdb_ivals_read(r, f, x, out, err);
}

/* _ModuleFrame.copy_node */
static int copy_node(exdb_urun *r, exdb_uframe *f, exdb_node *node, exdb_error *err) {
    remap_ctx c = {r, f, err};
    exdb_node *n = exdb_graph_node_copy(f->graph, node, remap_cb, &c);
    if (!n)
        return err && err->set ? -1 : exdb_errorf(err, "out of memory");
    if (exdb_unodemap_put(r, &f->node_map, node, n) < 0)
        return exdb_errorf(err, "out of memory");
    EXDB_WILL_WRITE(&r->arena, r->seen[node->id]);
    r->seen[node->id] = 1;
    EXDB_WILL_WRITE(&r->arena, f->ncopied);
    f->ncopied++;
    return 0;
}

/* ---- frames */

static int push_frame(exdb_urun *r, exdb_uframe *f) {
    if (r->nframes == r->frames_cap) {
        exdb_uframe **nf =
            exdb_arena_grow(&r->arena, r->frames, r->nframes, &r->frames_cap, sizeof *nf, 64);
        if (!nf)
            return -1;
        r->frames = nf;
    }
    if (r->depth == r->stack_cap) {
        exdb_uframe **ns =
            exdb_arena_grow(&r->arena, r->stack, r->depth, &r->stack_cap, sizeof *ns, 16);
        if (!ns)
            return -1;
        r->stack = ns;
    }
    f->index = r->nframes;
    EXDB_WILL_WRITE(&r->arena, r->frames[r->nframes]);
    EXDB_WILL_WRITE(&r->arena, r->stack[r->depth]);
    r->frames[r->nframes++] = f;
    r->stack[r->depth++] = f;
    assert(f->depth == r->depth); /* a frame's module stack is as deep as the frame stack */
    return 0;
}

static exdb_upartition *partition(exdb_urun *r, const char *module_id) {
    int created;
    void **slot = exdb_strmap_put(&r->part_index, module_id, &created);
    if (!slot)
        return NULL;
    if (*slot)
        return &r->parts[(uintptr_t)*slot - 1];
    if (r->nparts == r->parts_cap) {
        exdb_upartition *np =
            exdb_arena_grow(&r->arena, r->parts, r->nparts, &r->parts_cap, sizeof *np, 32);
        if (!np)
            return NULL;
        r->parts = np;
    }
    exdb_upartition *p = &r->parts[r->nparts++];
    exdb_arena_will_write(&r->arena, p, sizeof *p);
    memset(p, 0, sizeof *p);
    p->module_id = module_id;
    *slot = (void *)(uintptr_t)r->nparts;
    return p;
}

static int add_entry(exdb_urun *r, exdb_upartition *p, exdb_uentry e) {
    exdb_arena_will_write(&r->arena, p, sizeof *p);
    if (p->n == p->cap) {
        exdb_uentry *ne = exdb_arena_grow(&r->arena, p->entries, p->n, &p->cap, sizeof *ne, 1);
        if (!ne)
            return -1;
        p->entries = ne;
    }
    exdb_arena_will_write(&r->arena, &p->entries[p->n], sizeof e);
    p->entries[p->n++] = e;
    return 0;
}

/* The root frame: module_stack [("", None, 0)], module = the UnflattenedModule. */
static int root_frame(exdb_urun *r, exdb_error *err) {
    exdb_uframe *f = exdb_arena_calloc(&r->arena, 1, sizeof *f);
    if (!f)
        return exdb_errorf(err, "out of memory");
    f->depth = 1;
    f->stack_fqn = exdb_arena_calloc(&r->arena, 1, sizeof *f->stack_fqn);
    f->stack_ty = exdb_arena_calloc(&r->arena, 1, sizeof *f->stack_ty);
    f->stack_calls = exdb_arena_calloc(&r->arena, 1, sizeof *f->stack_calls);
    if (!f->stack_fqn || !f->stack_ty || !f->stack_calls)
        return exdb_errorf(err, "out of memory");
    f->stack_fqn[0] = "";
    f->fqn = "";
    f->child_fqn = "";
    f->module_id = "";
    f->module = r->root;
    f->graph = r->root->graph;
    return push_frame(r, f) < 0 ? exdb_errorf(err, "out of memory") : 0;
}

/* Unquotes a dict key repr ('a' -> a). */
static const char *key_text(exdb_urun *r, const char *k) {
    size_t n = strlen(k);
    if (n >= 2 && (k[0] == '\'' || k[0] == '"') && k[n - 1] == k[0])
        return exdb_arena_strndup(&r->arena, k + 1, n - 2);
    return k;
}

static int is_type(const exdb_treespec *s, const char *t) {
    return s && s->type &&
           (strcmp(s->type, t) == 0 ||
            (strncmp(s->type, "builtins.", 9) == 0 && strcmp(s->type + 9, t) == 0));
}

static const char *spec_type(const exdb_treespec *s) {
    return s && s->type ? s->type : "None";
}

/* The preserved-signature part of _ModuleFrame.__init__: flatten the call's
 * (args, kwargs) through _spec_N in the child, unflatten them in the parent. */
static int preserved_setup(exdb_urun *r, exdb_uframe *f, exdb_error *err) {
    const exdb_call_signature *sig = f->sig;
    const exdb_treespec *in = sig->in_spec;
    if (!in || in->nchildren != 2)
        return exdb_errorf(err,
                           "AssertionError: expected in_spec to have 2 children, got %u "
                           "(module '%s')",
                           in ? in->nchildren : 0, f->child_fqn);
    if (!is_type(in, "tuple"))
        return exdb_errorf(err,
                           "AssertionError: expected in_spec.type to be tuple, got %s "
                           "(module '%s')",
                           spec_type(in), f->child_fqn);
    const exdb_treespec *as = in->children[0], *ks = in->children[1];
    if (!is_type(as, "tuple"))
        return exdb_errorf(err,
                           "AssertionError: expected args_spec.type to be tuple, got %s "
                           "(module '%s')",
                           spec_type(as), f->child_fqn);
    if (!is_type(ks, "dict"))
        return exdb_errorf(err,
                           "AssertionError: expected kwargs_spec.type to be dict, got %s "
                           "(module '%s')",
                           spec_type(ks), f->child_fqn);
    exdb_arena *A = &r->arena;
    const char *in_text = sig->in_spec_text;
    /* child: placeholders, tree_flatten_spec, one getitem per input */
    ipoint cp = ip_save(f->graph);
    exdb_graph_insert_append(f->graph); /* inserting_after(None) */
    exdb_arg atuple, kdict, pair;
    if (exdb_arg_seq(A, EXDB_ARG_TUPLE, as->nchildren, &atuple) < 0 ||
        exdb_arg_seq(A, EXDB_ARG_DICT, ks->nkeys, &kdict) < 0 ||
        exdb_arg_seq(A, EXDB_ARG_TUPLE, 2, &pair) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < as->nchildren; i++) {
        const char *t = exdb_arena_printf(A, "_positional_arg_%u", i);
        exdb_node *ph =
            t ? new_node(f->graph, EXDB_OP_PLACEHOLDER, t, EXDB_T_STR, NULL, NULL, NULL) : NULL;
        if (!ph)
            return exdb_errorf(err, "out of memory");
        atuple.u.items[i] = exdb_arg_node(ph);
    }
    for (uint32_t i = 0; i < ks->nkeys; i++) {
        const char *k = key_text(r, ks->keys[i]);
        exdb_node *ph =
            k ? new_node(f->graph, EXDB_OP_PLACEHOLDER, k, EXDB_T_STR, NULL, NULL, NULL) : NULL;
        if (!ph)
            return exdb_errorf(err, "out of memory");
        kdict.keys[i] = k;
        kdict.u.items[i] = exdb_arg_node(ph);
    }
    pair.u.items[0] = atuple;
    pair.u.items[1] = kdict;
    exdb_node *flat_args =
        gen_spec_call(r, f->module, f->graph, TREE_FLATTEN_SPEC, pair, in, in_text);
    if (!flat_args)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < sig->ninputs; i++) {
        const char *nm = sig->inputs[i];
        const char *name = nm ? nm : exdb_arena_printf(A, "_constant_%u", i);
        exdb_node *gi = name ? getitem(r, f->graph, flat_args, exdb_arg_int(i), name) : NULL;
        if (!gi)
            return exdb_errorf(err, "out of memory");
        if (!nm)
            continue;
        exdb_node *seen = seen_by_name(r, nm);
        if (seen) {
            gi->meta = seen->meta;
            if (exdb_unodemap_put(r, &f->node_to_placeholder, seen, gi) < 0)
                return exdb_errorf(err, "out of memory");
        }
    }
    ip_restore(f->graph, cp);

    /* parent: tree_unflatten of the remapped inputs before the call */
    exdb_uframe *P = f->parent;
    ipoint pp = ip_save(P->graph);
    exdb_graph_insert_before(P->graph, f->parent_call_module);
    exdb_arg inputs;
    int rc = 0;
    if (exdb_arg_seq(A, EXDB_ARG_LIST, sig->ninputs, &inputs) < 0)
        rc = exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; rc == 0 && i < sig->ninputs; i++) {
        if (!sig->inputs[i]) { /* a ConstantArgument: input_nodes.append(input.value) */
            if (sig->input_values &&
                exdb_arg_copy(A, &sig->input_values[i], &inputs.u.items[i], NULL, NULL) < 0)
                rc = exdb_errorf(err, "out of memory");
            continue;
        }
        exdb_node *seen = seen_by_name(r, sig->inputs[i]);
        if (!seen) { /* input.name not in self.seen_nodes */
            inputs.u.items[i] = exdb_arg_none();
            continue;
        }
        exdb_node *m = NULL;
        rc = exdb_outline_remap_input(r, P, seen, &m, err);
        if (rc == 0)
            inputs.u.items[i] = exdb_arg_node(m);
    }
    exdb_node *inputs_node = NULL, *args_node = NULL, *kwargs_node = NULL;
    exdb_arg cargs, ckwargs;
    if (rc == 0) {
        inputs_node = gen_spec_call(r, P->module, P->graph, TREE_UNFLATTEN, inputs, in, in_text);
        args_node = inputs_node ? getitem(r, P->graph, inputs_node, exdb_arg_int(0), NULL) : NULL;
        kwargs_node = inputs_node ? getitem(r, P->graph, inputs_node, exdb_arg_int(1), NULL) : NULL;
        if (!args_node || !kwargs_node ||
            exdb_arg_seq(A, EXDB_ARG_TUPLE, as->nchildren, &cargs) < 0 ||
            exdb_arg_seq(A, EXDB_ARG_DICT, ks->nkeys, &ckwargs) < 0)
            rc = exdb_errorf(err, "out of memory");
    }
    for (uint32_t i = 0; rc == 0 && i < as->nchildren; i++) {
        exdb_node *gi = getitem(r, P->graph, args_node, exdb_arg_int(i), NULL);
        if (!gi)
            rc = exdb_errorf(err, "out of memory");
        else
            cargs.u.items[i] = exdb_arg_node(gi);
    }
    for (uint32_t i = 0; rc == 0 && i < ks->nkeys; i++) {
        const char *k = key_text(r, ks->keys[i]);
        exdb_node *gi = k ? getitem(r, P->graph, kwargs_node, exdb_arg_str(k), NULL) : NULL;
        if (!gi)
            rc = exdb_errorf(err, "out of memory");
        else {
            ckwargs.keys[i] = k;
            ckwargs.u.items[i] = exdb_arg_node(gi);
        }
    }
    ip_restore(P->graph, pp);
    if (rc < 0)
        return -1;
    return exdb_node_set_args(f->parent_call_module, &cargs, &ckwargs) < 0
               ? exdb_errorf(err, "out of memory")
               : 0;
}

/* _ModuleFrame.__init__ for a child frame (the ENTER event). */
static int enter_frame(exdb_urun *r, exdb_uframe *parent, const exdb_stack_entry *e,
                       exdb_error *err) {
    exdb_arena *A = &r->arena;
    exdb_uframe *f = exdb_arena_calloc(A, 1, sizeof *f);
    if (!f)
        return exdb_errorf(err, "out of memory");
    uint32_t d = parent->depth + 1;
    f->depth = d;
    f->stack_fqn = exdb_arena_alloc(A, d * sizeof *f->stack_fqn);
    f->stack_ty = exdb_arena_alloc(A, d * sizeof *f->stack_ty);
    f->stack_calls = exdb_arena_alloc(A, d * sizeof *f->stack_calls);
    if (!f->stack_fqn || !f->stack_ty || !f->stack_calls)
        return exdb_errorf(err, "out of memory");
    memcpy(f->stack_fqn, parent->stack_fqn, (d - 1) * sizeof *f->stack_fqn);
    memcpy(f->stack_ty, parent->stack_ty, (d - 1) * sizeof *f->stack_ty);
    memcpy(f->stack_calls, parent->stack_calls, (d - 1) * sizeof *f->stack_calls);
    f->stack_fqn[d - 1] = e->path;
    f->stack_ty[d - 1] = e->path[0] ? e->type : NULL;
    f->stack_calls[d - 1] = e->call_idx;
    f->parent = parent;
    f->fqn = e->path;
    f->type = f->stack_ty[d - 1];
    f->num_calls = e->call_idx;
    f->child_fqn = exdb_outline_call_name(r, f->fqn, f->num_calls + 1);
    const char *at = strchr(e->key, '@');
    f->module_id = at ? exdb_arena_strndup(A, e->key, (size_t)(at - e->key)) : e->key;
    if (!f->child_fqn || !f->module_id)
        return exdb_errorf(err, "out of memory");
    f->module = exdb_strmap_get(&r->created_modules, f->fqn);
    if (!f->module)
        f->module = exdb_modtree_new(r, EXDB_UMOD_INTERP, f->type);
    if (!f->module)
        return exdb_errorf(err, "out of memory");
    f->graph = f->module->graph;
    const char *accessor = exdb_outline_compute_accessor(r, parent->fqn, f->child_fqn);
    if (!accessor)
        return exdb_errorf(err,
                           "RuntimeError: Child module '%s' is not a descendant of parent module "
                           "'%s'.This is currently unsupported.Please try to make child module "
                           "attach to parent module directly.",
                           f->child_fqn, parent->fqn);
    if (exdb_modtree_add_submodule(r, parent->module, accessor, f->module, parent->fqn, f->type) <
        0)
        return exdb_errorf(err, "out of memory");
    f->parent_call_module =
        new_node(parent->graph, EXDB_OP_CALL_MODULE, accessor, EXDB_T_STR, NULL, NULL, NULL);
    if (!f->parent_call_module)
        return exdb_errorf(err, "out of memory");
    exdb_upartition *p = partition(r, f->module_id);
    if (!p)
        return exdb_errorf(err, "out of memory");
    if (p->n) {
        EXDB_WILL_WRITE(A, f->module->children);
        f->module->children = p->entries[0].module->children;
    }
    exdb_uentry ent = {
        parent->fqn, parent->module, f->parent_call_module, f->fqn, f->num_calls + 1, f->module, 0};
    if (push_frame(r, f) < 0)
        return exdb_errorf(err, "out of memory");
    ent.frame = f->index;
    if (add_entry(r, p, ent) < 0)
        return exdb_errorf(err, "out of memory");
    f->sig = exdb_strmap_get(&r->sigs, f->child_fqn);
    if (f->sig)
        return preserved_setup(r, f, err);
    return 0;
}

static const exdb_val *out_val(exdb_urun *r, exdb_node **outs, uint32_t n, int single) {
    if (single)
        return n && outs[0] && outs[0]->meta ? outs[0]->meta->val : NULL;
    exdb_val *v = exdb_arena_calloc(&r->arena, 1, sizeof *v);
    if (!v)
        return NULL;
    v->kind = EXDB_VAL_TUPLE;
    v->n = n;
    v->u.items = exdb_arena_calloc(&r->arena, n ? n : 1, sizeof *v->u.items);
    for (uint32_t i = 0; v->u.items && i < n; i++)
        v->u.items[i] = outs[i] && outs[i]->meta ? outs[i]->meta->val : NULL;
    return v;
}

static int same_str(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* _ModuleFrame.uplift_common_custom_metadata */
static int uplift_custom(exdb_urun *r, exdb_uframe *f) {
    const char *common = NULL;
    int first = 1;
    for (uint32_t i = 0; i < f->node_map.n; i++) {
        const exdb_meta *m = f->node_map.vals[i]->meta;
        const char *c = m && m->custom && strcmp(m->custom, "{}") != 0 ? m->custom : NULL;
        if (first) {
            common = c;
            first = 0;
        } else if (!same_str(c, common)) {
            common = NULL;
            break;
        }
    }
    if (!common)
        return 0;
    exdb_meta *pm = meta_clone(r, f->parent_call_module->meta);
    if (!pm)
        return -1;
    pm->custom = common;
    EXDB_WILL_WRITE(&r->arena, f->parent_call_module->meta);
    f->parent_call_module->meta = pm;
    for (uint32_t i = 0; i < f->node_map.n; i++) {
        exdb_node *n = f->node_map.vals[i];
        exdb_meta *m = meta_clone(r, n->meta);
        if (!m)
            return -1;
        m->custom = NULL;
        EXDB_WILL_WRITE(&r->arena, n->meta);
        n->meta = m;
    }
    return 0;
}

/* _ModuleFrame.finalize_outputs (the EXIT event) */
static int finalize_outputs(exdb_urun *r, exdb_uframe *f, exdb_error *err) {
    exdb_arena *A = &r->arena;
    void **cm = exdb_strmap_find(&r->created_modules, f->fqn);
    if (cm) {
        EXDB_WILL_WRITE(A, *cm);
        *cm = NULL; /* created_modules.pop(fqn) */
    }
    exdb_uframe *P = f->parent;
    const exdb_call_signature *sig = f->sig;
    exdb_node **orig = NULL, **gout = NULL;
    uint32_t norig = 0;
    exdb_node *parent_out = NULL, *tree_out = NULL;
    exdb_arg outarg;
    int single = 0, rc = 0;
    if (sig) {
        orig = exdb_arena_calloc(A, sig->noutputs ? sig->noutputs : 1, sizeof *orig);
        exdb_arg tup;
        if (!orig || exdb_arg_seq(A, EXDB_ARG_TUPLE, sig->noutputs, &tup) < 0)
            return exdb_errorf(err, "out of memory");
        norig = sig->noutputs;
        for (uint32_t i = 0; i < sig->noutputs; i++) {
            exdb_node *seen = seen_by_name(r, sig->outputs[i]);
            orig[i] = seen;
            if (!seen) {
                tup.u.items[i] = exdb_arg_none();
                continue;
            }
            exdb_node *m = exdb_unodemap_get(&f->node_map, seen);
            if (!m)
                m = exdb_unodemap_get(&f->node_to_placeholder, seen);
            if (!m)
                return exdb_errorf(err, "RuntimeError: Could not find output node %s (module '%s')",
                                   seen->name, f->child_fqn);
            tup.u.items[i] = exdb_arg_node(m);
        }
        tree_out = gen_spec_call(r, f->module, f->graph, TREE_UNFLATTEN, tup, sig->out_spec,
                                 sig->out_spec_text);
        parent_out = tree_out ? gen_spec_call(r, P->module, P->graph, TREE_FLATTEN_SPEC,
                                              exdb_arg_node(f->parent_call_module), sig->out_spec,
                                              sig->out_spec_text)
                              : NULL;
        if (!parent_out)
            return exdb_errorf(err, "out of memory");
        outarg = exdb_arg_node(tree_out);
        gout = &tree_out;
        single = 1;
    } else {
        orig = exdb_arena_alloc(A, (f->node_map.n ? f->node_map.n : 1) * sizeof *orig);
        gout = exdb_arena_alloc(A, (f->node_map.n ? f->node_map.n : 1) * sizeof *gout);
        if (!orig || !gout)
            return exdb_errorf(err, "out of memory");
        for (uint32_t i = 0; i < f->node_map.n; i++) {
            exdb_node *o = f->node_map.keys[i];
            for (uint32_t u = 0; u < o->nusers; u++) {
                if (!is_seen(r, o->users[u])) {
                    orig[norig] = o;
                    gout[norig] = f->node_map.vals[i];
                    norig++;
                    break;
                }
            }
        }
        parent_out = f->parent_call_module;
        if (norig == 1) {
            outarg = exdb_arg_node(gout[0]);
            single = 1;
        } else {
            if (exdb_arg_seq(A, EXDB_ARG_LIST, norig, &outarg) < 0)
                return exdb_errorf(err, "out of memory");
            for (uint32_t i = 0; i < norig; i++)
                outarg.u.items[i] = exdb_arg_node(gout[i]);
        }
    }
    exdb_arg oargs;
    if (exdb_arg_seq(A, EXDB_ARG_TUPLE, 1, &oargs) < 0)
        return exdb_errorf(err, "out of memory");
    oargs.u.items[0] = outarg;
    if (!new_node(f->graph, EXDB_OP_OUTPUT, "output", EXDB_T_STR, &oargs, NULL, "output"))
        return exdb_errorf(err, "out of memory");
    if (!parent_out)
        return 0;
    exdb_meta *pm = meta_clone(r, parent_out->meta);
    if (!pm)
        return exdb_errorf(err, "out of memory");
    pm->val = out_val(r, gout, sig ? 1 : norig, single);
    EXDB_WILL_WRITE(A, parent_out->meta);
    parent_out->meta = pm;
    if (uplift_custom(r, f) < 0)
        return exdb_errorf(err, "out of memory");
    if (norig == 1 && !sig) {
        rc = exdb_unodemap_put(r, &P->node_map, orig[0], parent_out);
    } else {
        for (uint32_t i = 0; rc == 0 && i < norig; i++) {
            if (!orig[i])
                continue;
            exdb_node *gi = getitem(r, P->graph, parent_out, exdb_arg_int(i), NULL);
            if (!gi)
                return exdb_errorf(err, "out of memory");
            exdb_meta *gm = meta_clone(r, NULL);
            if (!gm)
                return exdb_errorf(err, "out of memory");
            gm->val = orig[i]->meta ? orig[i]->meta->val : NULL;
            gi->meta = gm;
            rc = exdb_unodemap_put(r, &P->node_map, orig[i], gi);
        }
    }
    return rc < 0 ? exdb_errorf(err, "out of memory") : 0;
}

static int exit_frame(exdb_urun *r, exdb_error *err) {
    assert(r->depth > 0 && r->stack[r->depth - 1]->depth == r->depth &&
           !r->stack[r->depth - 1]->finalized);
    exdb_uframe *f = r->stack[r->depth - 1];
    if (finalize_outputs(r, f, err) < 0)
        return -1;
    EXDB_WILL_WRITE(&r->arena, f->finalized);
    f->finalized = 1;
    r->depth--;
    return 0;
}

/* Compares the node's module stack with a frame's: 0 differs, 1 equal,
 * 2 the frame's is a strict prefix. */
static int cmp_stack(const exdb_uframe *f, const exdb_meta *m) {
    if (m->nstack == 1 && strcmp(m->stack[0].key, EMPTY_STACK_KEY) == 0)
        return 1;
    if (m->nstack < f->depth)
        return 0;
    for (uint32_t i = 0; i < f->depth; i++) {
        const exdb_stack_entry *e = &m->stack[i];
        const char *ty = e->path[0] ? e->type : NULL;
        if (strcmp(e->path, f->stack_fqn[i]) != 0 || !same_str(ty, f->stack_ty[i]) ||
            e->call_idx != f->stack_calls[i])
            return 0;
    }
    return m->nstack > f->depth ? 2 : 1;
}

static void set_ev(exdb_uevent *ev, int kind, const exdb_urun *r, int32_t flat, int32_t frame) {
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint8_t)kind;
    ev->depth = r->depth;
    ev->flat = flat;
    ev->frame = frame;
    ev->item = -1;
}

int exdb_outline_step(exdb_urun *r, exdb_uevent *ev, exdb_error *err) {
    if (r->depth == 0 && r->phase == EXDB_UPH_OUTER_PLACEHOLDERS && root_frame(r, err) < 0)
        return -1;
    for (;;) {
        if (r->phase == EXDB_UPH_OUTER_PLACEHOLDERS) {
            if (r->idx < r->nnodes && r->nodes[r->idx]->op == EXDB_OP_PLACEHOLDER) {
                exdb_uframe *root = r->stack[0];
                if (copy_node(r, root, r->nodes[r->idx], err) < 0)
                    return -1;
                set_ev(ev, EXDB_EV_COPY, r, (int32_t)r->idx, 0);
                r->idx++;
                return 1;
            }
            r->phase = EXDB_UPH_BODY;
            continue;
        }
        if (r->phase == EXDB_UPH_OUTER_OUTPUT) {
            /* for node in flat_graph.nodes: if node.op == "output": copy_node */
            while (r->idx < r->nnodes && r->nodes[r->idx]->op != EXDB_OP_OUTPUT)
                r->idx++;
            if (r->idx >= r->nnodes)
                return 0;
            if (copy_node(r, r->stack[0], r->nodes[r->idx], err) < 0)
                return -1;
            set_ev(ev, EXDB_EV_COPY, r, (int32_t)r->idx, 0);
            r->idx++;
            return 1;
        }
        if (r->phase != EXDB_UPH_BODY)
            return 0;
        exdb_uframe *f = r->stack[r->depth - 1];
        if (r->idx >= r->nnodes) { /* run_from fell off the end */
            r->phase = EXDB_UPH_OUTER_OUTPUT;
            return 0;
        }
        exdb_node *node = r->nodes[r->idx];
        if (node->op == EXDB_OP_PLACEHOLDER)
            return exdb_errorf(err,
                               "AssertionError: unexpected placeholder node at index %u "
                               "(node %s, module '%s')",
                               r->idx, node->name, frame_name(f));
        if (node->op == EXDB_OP_OUTPUT) {
            if (f->depth == 1) {
                r->phase = EXDB_UPH_OUTER_OUTPUT;
                continue;
            }
            if (exit_frame(r, err) < 0)
                return -1;
            set_ev(ev, EXDB_EV_EXIT, r, (int32_t)r->idx, (int32_t)f->index);
            return 1;
        }
        const exdb_meta *m = node->meta;
        if (!m || !m->has_stack || m->nstack == 0)
            return exdb_errorf(err,
                               "RuntimeError: Unable to find nn_module_stack for node %s "
                               "(module '%s')",
                               node->name, frame_name(f));
        int c = cmp_stack(f, m);
        if (c == 0 && f->depth == 1) {
            /* Not even the root frame is a prefix of this node's stack: the
             * stack does not start at the root module. Upstream would leave
             * the root frame here and lose the rest of the graph; exdb stops
             * with a message (found by fuzzing: the root frame used to be
             * popped, then read below the stack). */
            return exdb_errorf(err,
                               "RuntimeError: nn_module_stack of node %s does not start at the "
                               "root module (first entry \"%s\")",
                               node->name, m->stack[0].key);
        }
        if (c == 0) {
            if (exit_frame(r, err) < 0)
                return -1;
            set_ev(ev, EXDB_EV_EXIT, r, (int32_t)r->idx, (int32_t)f->index);
            return 1;
        }
        if (c == 2) {
            if (enter_frame(r, f, &m->stack[f->depth], err) < 0)
                return -1;
            set_ev(ev, EXDB_EV_ENTER, r, (int32_t)r->idx, (int32_t)r->stack[r->depth - 1]->index);
            return 1;
        }
        if (node->op == EXDB_OP_GET_ATTR) {
            exdb_ustrset *s =
                exdb_ustrset_get(r, &r->seen_attrs, &r->nseen_attrs, &r->seen_attrs_cap,
                                 &r->seen_attrs_index, f->child_fqn, 1);
            if (!s || exdb_ustrset_add(r, s, node->target) < 0)
                return exdb_errorf(err, "out of memory");
        }
        if (copy_node(r, f, node, err) < 0)
            return -1;
        set_ev(ev, EXDB_EV_COPY, r, (int32_t)r->idx, (int32_t)f->index);
        r->idx++;
        return 1;
    }
}
