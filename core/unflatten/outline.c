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

#include "core/base/strbuf.h"
#include "core/fx/dce.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/frame.h"
#include "core/unflatten/fxbuild.h"
#include "core/unflatten/ivals.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unodemap.h"
#include "core/unflatten/ustrset.h"
#include "core/unflatten/urun.h"

#define EMPTY_STACK_KEY "_empty_nn_module_stack_from_metadata_hook"

/* ---- small helpers */

/* Appends user to in->users (the caller knows it is not there). */
static int append_user(exdb_node *in, exdb_node *user) {
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

/* Whether `in` is among args[from..n) (plain node args), looked up where it
 * is cheaper: the call's other args or in's users (one module called N
 * times with one parameter gives that parameter N users; one call with N
 * inputs has N args). */
static int already_user(const exdb_arg *args, uint32_t from, exdb_node *in, exdb_node *call) {
    uint32_t n = args->n;
    if (n - from < in->nusers) {
        int flat = 1;
        for (uint32_t i = from; i < n && flat; i++) {
            const exdb_arg *a = &args->u.items[i];
            if (a->kind == EXDB_ARG_NODE && a->u.node == in)
                return 1;
            flat = a->kind == EXDB_ARG_NODE;
        }
        if (flat)
            return 0;
    }
    for (uint32_t i = in->nusers; i > 0; i--)
        if (in->users[i - 1] == call)
            return 1;
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
    return already_user(args, 1, input, call) ? 0 : append_user(input, call);
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
    exdb_ipoint p = exdb_fxbuild_ip_save(f->graph);
    exdb_graph_insert_before(f->graph, f->graph->head); /* inserting_before(None) */
    exdb_node *ph = exdb_graph_create_node(f->graph, EXDB_OP_PLACEHOLDER, x->name, EXDB_T_STR, NULL,
                                           NULL, NULL);
    exdb_fxbuild_ip_restore(f->graph, p);
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
    exdb_node *n = exdb_graph_create_node(f->graph, EXDB_OP_CALL_FUNCTION, x->target,
                                          (exdb_target_kind)x->tkind, &args, &kwargs, NULL);
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
                           x->name, exdb_urun_frame_name(f));
    exdb_node *m = exdb_unodemap_get(&f->node_map, x);
    if (!m)
        m = exdb_unodemap_get(&f->node_to_placeholder, x);
    if (m) {
        *out = m;
        return 0;
    }
    if (x->op == EXDB_OP_PLACEHOLDER || !f->fqn_sig) {
        if (add_placeholder(r, f, x, err) < 0)
            return -1;
        if (f->parent_call_module) {
            exdb_graph *pg = f->parent->graph;
            exdb_ipoint p = exdb_fxbuild_ip_save(pg);
            exdb_graph_insert_before(pg, f->parent_call_module);
            exdb_node *up = NULL;
            int rc = exdb_outline_remap_input(r, f->parent, x, &up, err);
            if (rc == 0 && exdb_outline_prepend_arg(r, f, up) < 0)
                rc = exdb_errorf(err, "out of memory");
            exdb_fxbuild_ip_restore(pg, p);
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
        if (strcmp(e->path, f->stack_fqn[i]) != 0 || !exdb_str_same(ty, f->stack_ty[i]) ||
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

/* What frame f (just entered at r->idx) will hold from this call, at
 * least: its own nodes (the flat nodes at its depth up to where the stack
 * leaves it), one call_module node per child call, and the inputs its own
 * nodes take from nodes copied before it (placeholders, for the most
 * part). */
typedef struct span_count {
    const exdb_urun *r;
    uint32_t own, children, outside;
} span_count;

static void count_outside(void *ctx, exdb_node *in) {
    span_count *sc = ctx;
    sc->outside += sc->r->seen[in->id] != 0;
}

/* The scan costs the frame's span once per level of nesting; a node with
 * the previous node's stack (the loader keeps one copy of each distinct
 * stack) is not compared again. */
static span_count span_of(const exdb_urun *r, const exdb_uframe *f) {
    span_count sc = {r, 0, 0, 0};
    const exdb_stack_entry *child = NULL, *prev = NULL;
    int c = 0;
    for (uint32_t i = r->idx; i < r->nnodes; i++) {
        const exdb_meta *m = r->nodes[i]->meta;
        if (!m || !m->has_stack || m->nstack == 0)
            break;
        int same = m->stack == prev;
        if (!same)
            c = cmp_stack(f, m);
        prev = m->stack;
        if (c == 0)
            break;
        if (c == 1) {
            sc.own++;
            exdb_node_foreach_input(r->nodes[i], count_outside, &sc);
            child = NULL;
            continue;
        }
        const exdb_stack_entry *e = &m->stack[f->depth];
        if (!same &&
            (!child || child->call_idx != e->call_idx || strcmp(child->path, e->path) != 0))
            sc.children++;
        child = e;
    }
    return sc;
}

/* Room in frame f's graph's names and base_count for names more keys and
 * in its node_map for own more entries, each only where it would outgrow
 * its first size anyway (6 keys, 4 entries). 0, or -1 when memory is
 * exhausted. */
static int reserve_tables(exdb_urun *r, exdb_uframe *f, uint32_t names, uint32_t own) {
    exdb_graph *g = f->graph;
    if (g->names.count + names > 6 &&
        (exdb_strmap_reserve(&g->names, g->names.count + names) < 0 ||
         exdb_strmap_reserve(&g->base_count, g->base_count.count + names) < 0))
        return -1;
    return f->node_map.n + own > 4 ? exdb_unodemap_reserve(r, &f->node_map, f->node_map.n + own)
                                   : 0;
}

/* Sizes frame f's tables for its span at the ENTER event, in tables that
 * event makes: its graph's names and base_count, its node_map and
 * node_to_placeholder. Grown one key at a time, each doubles from its
 * first size and leaves the old table in the run's arena (kept for undo):
 * synth_100k's run left 15.4 MB of them in its 203 MB arena. Only tables
 * that would outgrow their first size anyway are sized. 0, or -1 when
 * memory is exhausted. */
static int reserve_frame(exdb_urun *r, exdb_uframe *f) {
    span_count sc = span_of(r, f);
    uint32_t names = 1 + sc.own + sc.children + sc.outside + (f->sig ? f->sig->ninputs : 0);
    if (reserve_tables(r, f, names, sc.own) < 0)
        return -1;
    uint32_t inputs = f->node_to_placeholder.n + sc.outside;
    return inputs > 4 ? exdb_unodemap_reserve(r, &f->node_to_placeholder, inputs) : 0;
}

/* Sizes the root frame's tables, at its first event, for the outer
 * placeholders it copies first (the program's inputs, the flat graph's
 * leading nodes): grown one key at a time, its names and base_count
 * tables doubled up to 2^19 slots at 1M nodes (300k inputs), each
 * doubling past 2^16 slots hashing every name's text again, and left each
 * old table in the run's arena. Nothing for a root of at most 6 names.
 * 0, or -1 when memory is exhausted. */
static int reserve_root(exdb_urun *r, exdb_uframe *f) {
    uint32_t n = 0;
    while (n < r->nnodes && r->nodes[n]->op == EXDB_OP_PLACEHOLDER)
        n++;
    return f->graph->names.count + n <= 6 ? 0 : reserve_tables(r, f, n, n);
}

/* run_from's decision for the node at r->idx inside frame f (the BODY
 * phase): exit f when the node's stack leaves it, enter a deeper module, or
 * copy the node into f. 1 event, -1 error. */
static int body_step(exdb_urun *r, exdb_uframe *f, exdb_uevent *ev, exdb_error *err) {
    exdb_node *node = r->nodes[r->idx];
    const exdb_meta *m = node->meta;
    if (!m || !m->has_stack || m->nstack == 0)
        return exdb_errorf(err,
                           "RuntimeError: Unable to find nn_module_stack for node %s "
                           "(module '%s')",
                           node->name, exdb_urun_frame_name(f));
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
        if (exdb_frame_exit(r, err) < 0)
            return -1;
        set_ev(ev, EXDB_EV_EXIT, r, (int32_t)r->idx, (int32_t)f->index);
        return 1;
    }
    if (c == 2) {
        if (exdb_frame_enter(r, f, &m->stack[f->depth], err) < 0)
            return -1;
        if (reserve_frame(r, r->stack[r->depth - 1]) < 0)
            return exdb_errorf(err, "out of memory");
        set_ev(ev, EXDB_EV_ENTER, r, (int32_t)r->idx, (int32_t)r->stack[r->depth - 1]->index);
        return 1;
    }
    if (node->op == EXDB_OP_GET_ATTR) {
        exdb_ustrset *s = exdb_ustrset_get(r, &r->seen_attrs, &r->nseen_attrs, &r->seen_attrs_cap,
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

/* Copies the node at r->idx into the root frame (the outer placeholders
 * and the output). */
static int copy_to_root(exdb_urun *r, exdb_uevent *ev, exdb_error *err) {
    if (copy_node(r, r->stack[0], r->nodes[r->idx], err) < 0)
        return -1;
    set_ev(ev, EXDB_EV_COPY, r, (int32_t)r->idx, 0);
    r->idx++;
    return 1;
}

int exdb_outline_step(exdb_urun *r, exdb_uevent *ev, exdb_error *err) {
    if (r->depth == 0 && r->phase == EXDB_UPH_OUTER_PLACEHOLDERS) {
        if (exdb_frame_root(r, err) < 0)
            return -1;
        if (reserve_root(r, r->stack[0]) < 0)
            return exdb_errorf(err, "out of memory");
    }
    for (;;) {
        if (r->phase == EXDB_UPH_OUTER_PLACEHOLDERS) {
            if (r->idx < r->nnodes && r->nodes[r->idx]->op == EXDB_OP_PLACEHOLDER)
                return copy_to_root(r, ev, err);
            r->phase = EXDB_UPH_BODY;
            continue;
        }
        if (r->phase == EXDB_UPH_OUTER_OUTPUT) {
            /* for node in flat_graph.nodes: if node.op == "output": copy_node */
            while (r->idx < r->nnodes && r->nodes[r->idx]->op != EXDB_OP_OUTPUT)
                r->idx++;
            return r->idx >= r->nnodes ? 0 : copy_to_root(r, ev, err);
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
                               r->idx, node->name, exdb_urun_frame_name(f));
        if (node->op != EXDB_OP_OUTPUT)
            return body_step(r, f, ev, err);
        if (f->depth == 1) {
            r->phase = EXDB_UPH_OUTER_OUTPUT;
            continue;
        }
        if (exdb_frame_exit(r, err) < 0)
            return -1;
        set_ev(ev, EXDB_EV_EXIT, r, (int32_t)r->idx, (int32_t)f->index);
        return 1;
    }
}
