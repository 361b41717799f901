/* frame.c - a _ModuleFrame's life: the root frame, a new frame for a
 * deeper module (_ModuleFrame.__init__: the module object or the earlier
 * call it shares, seen_modules, a preserved call signature's placeholders
 * and tree_flatten_spec), and its end (finalize_outputs). See frame.h. */
#include "core/unflatten/frame.h"

#include "core/base/strbuf.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/unflatten/fxbuild.h"
#include "core/unflatten/ivals.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/unodemap.h"
#include "core/unflatten/ustrset.h"
#include "core/unflatten/urun.h"

#define EMPTY_STACK_KEY   "_empty_nn_module_stack_from_metadata_hook"
#define TREE_FLATTEN_SPEC "torch.fx._pytree.tree_flatten_spec"
#define TREE_UNFLATTEN    "torch.utils._pytree.tree_unflatten"

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
int exdb_frame_root(exdb_urun *r, exdb_error *err) {
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
    f->fqn_sig = exdb_strmap_get(&r->sigs, "");
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

/* str(spec.type): None for a leaf, else the class as Python prints it
 * ("<class 'list'>", "<class 'collections.OrderedDict'>"). */
static const char *spec_type(const exdb_treespec *s, char *buf, size_t cap) {
    if (!s || !s->type)
        return "None";
    const char *t = strncmp(s->type, "builtins.", 9) == 0 ? s->type + 9 : s->type;
    snprintf(buf, cap, "<class '%s'>", t);
    return buf;
}

/* The asserts _ModuleFrame.__init__ makes on a preserved module's in_spec:
 * ((args...), {kwargs...}). */
static int check_in_spec(const exdb_uframe *f, exdb_error *err) {
    const exdb_treespec *in = f->sig->in_spec;
    char ty[256];
    if (!in || in->nchildren != 2)
        return exdb_errorf(err,
                           "AssertionError: expected in_spec to have 2 children, got %u "
                           "(module '%s')",
                           in ? in->nchildren : 0, f->child_fqn);
    if (!is_type(in, "tuple"))
        return exdb_errorf(err,
                           "AssertionError: expected in_spec.type to be tuple, got %s "
                           "(module '%s')",
                           spec_type(in, ty, sizeof ty), f->child_fqn);
    const exdb_treespec *as = in->children[0], *ks = in->children[1];
    if (!is_type(as, "tuple"))
        return exdb_errorf(err,
                           "AssertionError: expected args_spec.type to be tuple, got %s "
                           "(module '%s')",
                           spec_type(as, ty, sizeof ty), f->child_fqn);
    if (!is_type(ks, "dict"))
        return exdb_errorf(err,
                           "AssertionError: expected kwargs_spec.type to be dict, got %s "
                           "(module '%s')",
                           spec_type(ks, ty, sizeof ty), f->child_fqn);
    return 0;
}

/* In the child: a placeholder per positional and keyword argument, their
 * tree_flatten_spec, and one getitem per signature input (named as the
 * input; node_to_placeholder maps the flat node to it). */
static int preserved_child(exdb_urun *r, exdb_uframe *f, exdb_error *err) {
    const exdb_call_signature *sig = f->sig;
    const exdb_treespec *in = sig->in_spec, *as = in->children[0], *ks = in->children[1];
    exdb_arena *A = &r->arena;
    exdb_ipoint cp = exdb_fxbuild_ip_save(f->graph);
    exdb_graph_insert_append(f->graph); /* inserting_after(None) */
    exdb_arg atuple, kdict, pair;
    if (exdb_arg_seq(A, EXDB_ARG_TUPLE, as->nchildren, &atuple) < 0 ||
        exdb_arg_seq(A, EXDB_ARG_DICT, ks->nkeys, &kdict) < 0 ||
        exdb_arg_seq(A, EXDB_ARG_TUPLE, 2, &pair) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < as->nchildren; i++) {
        const char *t = exdb_arena_printf(A, "_positional_arg_%u", i);
        exdb_node *ph = t ? exdb_graph_create_node(f->graph, EXDB_OP_PLACEHOLDER, t, EXDB_T_STR,
                                                   NULL, NULL, NULL)
                          : NULL;
        if (!ph)
            return exdb_errorf(err, "out of memory");
        atuple.u.items[i] = exdb_arg_node(ph);
    }
    for (uint32_t i = 0; i < ks->nkeys; i++) {
        const char *k = key_text(r, ks->keys[i]);
        exdb_node *ph = k ? exdb_graph_create_node(f->graph, EXDB_OP_PLACEHOLDER, k, EXDB_T_STR,
                                                   NULL, NULL, NULL)
                          : NULL;
        if (!ph)
            return exdb_errorf(err, "out of memory");
        kdict.keys[i] = k;
        kdict.u.items[i] = exdb_arg_node(ph);
    }
    pair.u.items[0] = atuple;
    pair.u.items[1] = kdict;
    exdb_node *flat_args = exdb_fxbuild_spec_call(r, f->module, f->graph, TREE_FLATTEN_SPEC, pair,
                                                  in, sig->in_spec_text);
    if (!flat_args)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < sig->ninputs; i++) {
        const char *nm = sig->inputs[i];
        const char *name = nm ? nm : exdb_arena_printf(A, "_constant_%u", i);
        exdb_node *gi =
            name ? exdb_fxbuild_getitem(r, f->graph, flat_args, exdb_arg_int(i), name) : NULL;
        if (!gi)
            return exdb_errorf(err, "out of memory");
        if (!nm)
            continue;
        exdb_node *seen = exdb_urun_seen_by_name(r, nm);
        if (seen) {
            gi->meta = seen->meta;
            if (exdb_unodemap_put(r, &f->node_to_placeholder, seen, gi) < 0)
                return exdb_errorf(err, "out of memory");
        }
    }
    exdb_fxbuild_ip_restore(f->graph, cp);
    return 0;
}

/* The parent's list of the signature's inputs, remapped into it (a
 * ConstantArgument's value, None for an input not seen yet). */
static int preserved_inputs(exdb_urun *r, exdb_uframe *f, exdb_arg *inputs, exdb_error *err) {
    const exdb_call_signature *sig = f->sig;
    exdb_arena *A = &r->arena;
    if (exdb_arg_seq(A, EXDB_ARG_LIST, sig->ninputs, inputs) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < sig->ninputs; i++) {
        if (!sig->inputs[i]) { /* a ConstantArgument: input_nodes.append(input.value) */
            if (sig->input_values &&
                exdb_arg_copy(A, &sig->input_values[i], &inputs->u.items[i], NULL, NULL) < 0)
                return exdb_errorf(err, "out of memory");
            continue;
        }
        exdb_node *seen = exdb_urun_seen_by_name(r, sig->inputs[i]);
        if (!seen) { /* input.name not in self.seen_nodes */
            inputs->u.items[i] = exdb_arg_none();
            continue;
        }
        exdb_node *m = NULL;
        if (exdb_outline_remap_input(r, f->parent, seen, &m, err) < 0)
            return -1;
        inputs->u.items[i] = exdb_arg_node(m);
    }
    return 0;
}

/* In the parent, before the call: tree_unflatten of the inputs, and the
 * call's args and kwargs as getitems of it. */
static int preserved_parent(exdb_urun *r, exdb_uframe *f, exdb_arg *cargs, exdb_arg *ckwargs,
                            exdb_error *err) {
    const exdb_treespec *in = f->sig->in_spec, *as = in->children[0], *ks = in->children[1];
    exdb_uframe *P = f->parent;
    exdb_arena *A = &r->arena;
    exdb_arg inputs;
    if (preserved_inputs(r, f, &inputs, err) < 0)
        return -1;
    exdb_node *inputs_node = exdb_fxbuild_spec_call(r, P->module, P->graph, TREE_UNFLATTEN, inputs,
                                                    in, f->sig->in_spec_text);
    exdb_node *args_node =
        inputs_node ? exdb_fxbuild_getitem(r, P->graph, inputs_node, exdb_arg_int(0), NULL) : NULL;
    exdb_node *kwargs_node =
        inputs_node ? exdb_fxbuild_getitem(r, P->graph, inputs_node, exdb_arg_int(1), NULL) : NULL;
    if (!args_node || !kwargs_node || exdb_arg_seq(A, EXDB_ARG_TUPLE, as->nchildren, cargs) < 0 ||
        exdb_arg_seq(A, EXDB_ARG_DICT, ks->nkeys, ckwargs) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < as->nchildren; i++) {
        exdb_node *gi = exdb_fxbuild_getitem(r, P->graph, args_node, exdb_arg_int(i), NULL);
        if (!gi)
            return exdb_errorf(err, "out of memory");
        cargs->u.items[i] = exdb_arg_node(gi);
    }
    for (uint32_t i = 0; i < ks->nkeys; i++) {
        const char *k = key_text(r, ks->keys[i]);
        exdb_node *gi =
            k ? exdb_fxbuild_getitem(r, P->graph, kwargs_node, exdb_arg_str(k), NULL) : NULL;
        if (!gi)
            return exdb_errorf(err, "out of memory");
        ckwargs->keys[i] = k;
        ckwargs->u.items[i] = exdb_arg_node(gi);
    }
    return 0;
}

/* The preserved-signature part of _ModuleFrame.__init__: flatten the call's
 * (args, kwargs) through _spec_N in the child, unflatten them in the parent. */
static int preserved_setup(exdb_urun *r, exdb_uframe *f, exdb_error *err) {
    if (check_in_spec(f, err) < 0 || preserved_child(r, f, err) < 0)
        return -1;
    exdb_uframe *P = f->parent;
    exdb_ipoint pp = exdb_fxbuild_ip_save(P->graph);
    exdb_graph_insert_before(P->graph, f->parent_call_module);
    exdb_arg cargs, ckwargs;
    int rc = preserved_parent(r, f, &cargs, &ckwargs, err);
    exdb_fxbuild_ip_restore(P->graph, pp);
    if (rc < 0)
        return -1;
    return exdb_node_set_args(f->parent_call_module, &cargs, &ckwargs) < 0
               ? exdb_errorf(err, "out of memory")
               : 0;
}

/* _ModuleFrame.__init__ for a child frame (the ENTER event). */
int exdb_frame_enter(exdb_urun *r, exdb_uframe *parent, const exdb_stack_entry *e,
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
    f->fqn_sig = exdb_strmap_get(&r->sigs, f->fqn);
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
    f->parent_call_module = exdb_graph_create_node(parent->graph, EXDB_OP_CALL_MODULE, accessor,
                                                   EXDB_T_STR, NULL, NULL, NULL);
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
    /* the first call's name is the fqn itself (exdb_outline_call_name) */
    f->sig = f->child_fqn == f->fqn ? f->fqn_sig : exdb_strmap_get(&r->sigs, f->child_fqn);
    if (f->sig)
        return preserved_setup(r, f, err);
    return 0;
}

/* The call's meta["val"]: the one output's, else a tuple of the outputs'
 * (*v NULL when the one output has none). -1 on out of memory. */
static int out_val(exdb_urun *r, exdb_node **outs, uint32_t n, int single, const exdb_val **v) {
    *v = NULL;
    if (single) {
        *v = n && outs[0] && outs[0]->meta ? outs[0]->meta->val : NULL;
        return 0;
    }
    exdb_val *t = exdb_arena_calloc(&r->arena, 1, sizeof *t);
    const exdb_val **items = exdb_arena_calloc(&r->arena, n ? n : 1, sizeof *items);
    if (!t || !items)
        return -1;
    t->kind = EXDB_VAL_TUPLE;
    t->n = n;
    for (uint32_t i = 0; i < n; i++)
        items[i] = outs[i] && outs[i]->meta ? outs[i]->meta->val : NULL;
    t->u.items = items;
    *v = t;
    return 0;
}

/* _ModuleFrame.uplift_common_custom_metadata */
static int uplift_custom(exdb_urun *r, exdb_uframe *f) {
    const char *common = NULL;
    int first = 1;
    for (uint32_t i = 0; i < f->node_map.n; i++) {
        const exdb_meta *m = f->node_map.e[i].val->meta;
        const char *c = m && m->custom && strcmp(m->custom, "{}") != 0 ? m->custom : NULL;
        if (first) {
            common = c;
            first = 0;
        } else if (!exdb_str_same(c, common)) {
            common = NULL;
            break;
        }
    }
    if (!common)
        return 0;
    exdb_meta *pm = exdb_fxbuild_meta_clone(r, f->parent_call_module->meta);
    if (!pm)
        return -1;
    pm->custom = common;
    EXDB_WILL_WRITE(&r->arena, f->parent_call_module->meta);
    f->parent_call_module->meta = pm;
    for (uint32_t i = 0; i < f->node_map.n; i++) {
        exdb_node *n = f->node_map.e[i].val;
        exdb_meta *m = exdb_fxbuild_meta_clone(r, n->meta);
        if (!m)
            return -1;
        m->custom = NULL;
        EXDB_WILL_WRITE(&r->arena, n->meta);
        n->meta = m;
    }
    return 0;
}

/* _ModuleFrame.finalize_outputs (the EXIT event) */
/* What finalize_outputs wires: the flat nodes whose values leave the frame
 * (orig, NULL for an output not seen), the frame's nodes that produce them
 * (gout), the parent's node standing for the call (parent_out) and the
 * frame's output argument. */
typedef struct frame_outs {
    exdb_node **orig, **gout;
    exdb_node *tree_out; /* a preserved signature's one output (gout points here) */
    uint32_t norig;
    exdb_node *parent_out;
    exdb_arg outarg;
    int single;
} frame_outs;

/* A preserved signature's outputs: tree_unflatten in the child, and
 * tree_flatten_spec of the call in the parent. */
static int outs_preserved(exdb_urun *r, exdb_uframe *f, frame_outs *o, exdb_error *err) {
    exdb_arena *A = &r->arena;
    const exdb_call_signature *sig = f->sig;
    o->orig = exdb_arena_calloc(A, sig->noutputs ? sig->noutputs : 1, sizeof *o->orig);
    exdb_arg tup;
    if (!o->orig || exdb_arg_seq(A, EXDB_ARG_TUPLE, sig->noutputs, &tup) < 0)
        return exdb_errorf(err, "out of memory");
    o->norig = sig->noutputs;
    for (uint32_t i = 0; i < sig->noutputs; i++) {
        exdb_node *seen = exdb_urun_seen_by_name(r, sig->outputs[i]);
        o->orig[i] = seen;
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
    exdb_node **gout = &o->tree_out;
    *gout = exdb_fxbuild_spec_call(r, f->module, f->graph, TREE_UNFLATTEN, tup, sig->out_spec,
                                   sig->out_spec_text);
    o->parent_out =
        *gout ? exdb_fxbuild_spec_call(r, f->parent->module, f->parent->graph, TREE_FLATTEN_SPEC,
                                       exdb_arg_node(f->parent_call_module), sig->out_spec,
                                       sig->out_spec_text)
              : NULL;
    if (!o->parent_out)
        return exdb_errorf(err, "out of memory");
    o->outarg = exdb_arg_node(*gout);
    o->gout = gout;
    o->single = 1;
    return 0;
}

/* No signature: every copied node with a user outside the frame, in
 * node_map's order; one is returned bare, several as a list. */
static int outs_escaping(exdb_urun *r, exdb_uframe *f, frame_outs *o, exdb_error *err) {
    exdb_arena *A = &r->arena;
    o->orig = exdb_arena_alloc(A, (f->node_map.n ? f->node_map.n : 1) * sizeof *o->orig);
    o->gout = exdb_arena_alloc(A, (f->node_map.n ? f->node_map.n : 1) * sizeof *o->gout);
    if (!o->orig || !o->gout)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < f->node_map.n; i++) {
        exdb_node *n = f->node_map.e[i].key;
        for (uint32_t u = 0; u < n->nusers; u++) {
            if (!exdb_urun_is_seen(r, n->users[u])) {
                o->orig[o->norig] = n;
                o->gout[o->norig] = f->node_map.e[i].val;
                o->norig++;
                break;
            }
        }
    }
    o->parent_out = f->parent_call_module;
    if (o->norig == 1) {
        o->outarg = exdb_arg_node(o->gout[0]);
        o->single = 1;
        return 0;
    }
    if (exdb_arg_seq(A, EXDB_ARG_LIST, o->norig, &o->outarg) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < o->norig; i++)
        o->outarg.u.items[i] = exdb_arg_node(o->gout[i]);
    return 0;
}

/* The parent's side: the call's value, and node_map entries for the flat
 * nodes the frame produced (the call itself for one unsigned output, else
 * a getitem per output). */
static int wire_parent(exdb_urun *r, exdb_uframe *f, const frame_outs *o, exdb_error *err) {
    exdb_arena *A = &r->arena;
    exdb_uframe *P = f->parent;
    exdb_meta *pm = exdb_fxbuild_meta_clone(r, o->parent_out->meta);
    if (!pm)
        return exdb_errorf(err, "out of memory");
    if (out_val(r, o->gout, f->sig ? 1 : o->norig, o->single, &pm->val) < 0)
        return exdb_errorf(err, "out of memory");
    EXDB_WILL_WRITE(A, o->parent_out->meta);
    o->parent_out->meta = pm;
    if (uplift_custom(r, f) < 0)
        return exdb_errorf(err, "out of memory");
    int rc = 0;
    if (o->norig == 1 && !f->sig)
        return exdb_unodemap_put(r, &P->node_map, o->orig[0], o->parent_out) < 0
                   ? exdb_errorf(err, "out of memory")
                   : 0;
    for (uint32_t i = 0; rc == 0 && i < o->norig; i++) {
        if (!o->orig[i])
            continue;
        exdb_node *gi = exdb_fxbuild_getitem(r, P->graph, o->parent_out, exdb_arg_int(i), NULL);
        exdb_meta *gm = gi ? exdb_fxbuild_meta_clone(r, NULL) : NULL;
        if (!gm)
            return exdb_errorf(err, "out of memory");
        gm->val = o->orig[i]->meta ? o->orig[i]->meta->val : NULL;
        gi->meta = gm;
        rc = exdb_unodemap_put(r, &P->node_map, o->orig[i], gi);
    }
    return rc < 0 ? exdb_errorf(err, "out of memory") : 0;
}

static int finalize_outputs(exdb_urun *r, exdb_uframe *f, exdb_error *err) {
    exdb_arena *A = &r->arena;
    void **cm = exdb_strmap_find(&r->created_modules, f->fqn);
    if (cm) {
        EXDB_WILL_WRITE(A, *cm);
        *cm = NULL; /* created_modules.pop(fqn) */
    }
    frame_outs o = {0};
    if ((f->sig ? outs_preserved(r, f, &o, err) : outs_escaping(r, f, &o, err)) < 0)
        return -1;
    exdb_arg oargs;
    if (exdb_arg_seq(A, EXDB_ARG_TUPLE, 1, &oargs) < 0)
        return exdb_errorf(err, "out of memory");
    oargs.u.items[0] = o.outarg;
    if (!exdb_graph_create_node(f->graph, EXDB_OP_OUTPUT, "output", EXDB_T_STR, &oargs, NULL,
                                "output"))
        return exdb_errorf(err, "out of memory");
    if (!o.parent_out)
        return 0;
    return wire_parent(r, f, &o, err);
}

int exdb_frame_exit(exdb_urun *r, exdb_error *err) {
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
