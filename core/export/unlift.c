/* unlift.c - see unlift.h. Mirrors torch/export/_unlift.py (torch 2.13):
 * _unlift_exported_program_lifted_states, _unlift_inputs_as_getattr,
 * _insert_copy_for_mutations, _get_codegen. */
#include "core/export/unlift.h"

#include <stdlib.h>
#include <string.h>

#include "core/fx/dce.h"

typedef struct ucopy {
    exdb_node **map; /* program node id -> its copy */
    uint32_t n;
} ucopy;

static exdb_node *map_node(void *ctx, exdb_node *n) {
    ucopy *c = ctx;
    return n->id < c->n ? c->map[n->id] : NULL;
}

/* copy.deepcopy(ep.graph): every node copied in order, names kept. */
static exdb_graph *copy_graph(exdb_arena *a, const exdb_graph *src) {
    exdb_graph *g = exdb_graph_new(a);
    ucopy c = {calloc(src->next_id + 1, sizeof *c.map), src->next_id};
    if (!g || !c.map) {
        free(c.map);
        return NULL;
    }
    for (const exdb_node *n = src->head; n; n = n->next)
        if (!(c.map[n->id] = exdb_graph_node_copy(g, n, map_node, &c))) {
            g = NULL;
            break;
        }
    free(c.map);
    return g;
}

static int is_lifted(exdb_input_kind k) {
    return k == EXDB_IN_BUFFER || k == EXDB_IN_TENSOR_CONSTANT || k == EXDB_IN_PARAMETER ||
           k == EXDB_IN_CUSTOM_OBJ;
}

/* _unlift_inputs_as_getattr: each lifted placeholder becomes a get_attr
 * of its state FQN right after it, taking its uses and its meta.
 * unlifted[i] (by input index) is that get_attr, inputs[i] a user input's
 * placeholder. */
static int unlift_inputs(exdb_graph *g, const exdb_program *p, exdb_node **unlifted,
                         exdb_node **inputs, exdb_error *err) {
    uint32_t i = 0;
    exdb_node *next;
    for (exdb_node *n = g->head; n; n = next) {
        next = n->next;
        if (n->op != EXDB_OP_PLACEHOLDER)
            continue;
        if (i >= p->ninputs)
            return exdb_errorf(err, "ep.module(): more placeholders than input specs (%u)",
                               p->ninputs);
        const exdb_input_spec *s = &p->inputs[i];
        if (!is_lifted(s->kind) || !s->target) {
            inputs[i++] = n;
            continue;
        }
        exdb_graph_insert_after(g, n);
        exdb_node *ga =
            exdb_graph_create_node(g, EXDB_OP_GET_ATTR, s->target, EXDB_T_STR, NULL, NULL, NULL);
        exdb_graph_insert_append(g);
        if (!ga)
            return exdb_errorf(err, "out of memory");
        if (exdb_node_replace_all_uses_with(n, ga) < 0)
            return exdb_errorf(err, "out of memory");
        ga->meta = n->meta;
        if (exdb_graph_erase_node(g, n, err) < 0)
            return -1;
        unlifted[i++] = ga;
    }
    if (i != p->ninputs)
        return exdb_errorf(err, "ep.module(): %u placeholders for %u input specs", i, p->ninputs);
    return 0;
}

/* pytree.tree_flatten(output_node.args)[0]: the leaves (a None output
 * counts: torch 2.13 pairs it with its USER_OUTPUT spec). */
static void flatten(const exdb_arg *a, exdb_arg *leaves, uint32_t *n, uint32_t cap) {
    if (a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_DICT) {
        for (uint32_t i = 0; i < a->n; i++)
            flatten(&a->u.items[i], leaves, n, cap);
    } else {
        if (*n < cap)
            leaves[*n] = *a;
        (*n)++;
    }
}

static uint32_t count_leaves(const exdb_arg *a) {
    uint32_t n = 0;
    flatten(a, NULL, &n, 0);
    return n;
}

/* The node a mutation's target names: the get_attr of that state or the
 * user input of that name. */
static exdb_node *mutated_node(const exdb_program *p, exdb_node **unlifted, exdb_node **inputs,
                               const char *target) {
    for (uint32_t i = 0; target && i < p->ninputs; i++) {
        if (unlifted[i] && p->inputs[i].target && strcmp(p->inputs[i].target, target) == 0)
            return unlifted[i];
    }
    for (uint32_t i = 0; target && i < p->ninputs; i++)
        if (inputs[i] && strcmp(inputs[i]->name, target) == 0)
            return inputs[i];
    return NULL;
}

/* _insert_copy_for_mutations: aten.copy_(state, new value) before the
 * output for each mutation; the output keeps the user outputs only. */
static int insert_copies(exdb_graph *g, const exdb_program *p, exdb_node **unlifted,
                         exdb_node **inputs, exdb_error *err) {
    exdb_node *out = exdb_graph_output(g);
    if (!out)
        return exdb_errorf(err, "ep.module(): the graph has no output node");
    uint32_t n = count_leaves(&out->args);
    if (n != p->noutputs)
        return exdb_errorf(err, "Number of outputs (%u) does not match mutated outputs (%u)", n,
                           p->noutputs);
    exdb_arg *leaves = calloc(n + 1, sizeof *leaves);
    exdb_node **copy_of = calloc(n + 1, sizeof *copy_of);
    exdb_arg user;
    int rc = -1;
    if (!leaves || !copy_of || exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, n, &user) < 0) {
        exdb_errorf(err, "out of memory");
        goto done;
    }
    uint32_t k = 0, nuser = 0;
    flatten(&out->args, leaves, &k, n);
    for (uint32_t i = 0; i < n; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        int mut = s->kind == EXDB_OUT_BUFFER_MUTATION || s->kind == EXDB_OUT_USER_INPUT_MUTATION ||
                  s->kind == EXDB_OUT_PARAMETER_MUTATION;
        if (!mut) {
            user.u.items[nuser++] = leaves[i];
            continue;
        }
        exdb_node *m = mutated_node(p, unlifted, inputs, s->target);
        if (!m) {
            exdb_errorf(err, "Could not find %s in either buffer or input nodes",
                        s->target ? s->target : "None");
            goto done;
        }
        exdb_arg args;
        if (exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, 2, &args) < 0) {
            exdb_errorf(err, "out of memory");
            goto done;
        }
        args.u.items[0] = exdb_arg_node(m);
        args.u.items[1] = leaves[i];
        exdb_graph_insert_before(g, out);
        copy_of[i] = exdb_graph_create_node(
            g, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.copy_.default", EXDB_T_OP, &args, NULL, NULL);
        exdb_graph_insert_append(g);
        if (!copy_of[i]) {
            exdb_errorf(err, "out of memory");
            goto done;
        }
    }
    /* return_nodes_to_copy.get(node, node): a user output that is also a
     * mutated value returns its copy_ */
    for (uint32_t j = 0; j < nuser; j++)
        for (uint32_t i = 0; i < n; i++)
            if (copy_of[i] && user.u.items[j].kind == EXDB_ARG_NODE &&
                leaves[i].kind == EXDB_ARG_NODE && leaves[i].u.node == user.u.items[j].u.node)
                user.u.items[j] = exdb_arg_node(copy_of[i]);
    user.n = nuser;
    exdb_arg oargs;
    if (exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, 1, &oargs) < 0) {
        exdb_errorf(err, "out of memory");
        goto done;
    }
    oargs.u.items[0] = user;
    rc = exdb_node_set_args(out, &oargs, NULL) < 0 ? exdb_errorf(err, "out of memory") : 0;
done:
    free(leaves);
    free(copy_of);
    return rc;
}

/* The root's call signature (module_call_graph[0]), or NULL. */
static const exdb_call_signature *root_sig(const exdb_program *p) {
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].fqn && !p->calls[i].fqn[0])
            return p->calls[i].sig;
    return NULL;
}

/* _get_codegen(in_spec, out_spec, forward_arg_names) */
static int codegen_info(exdb_arena *a, const exdb_program *p, exdb_pytree_info *pt,
                        exdb_error *err) {
    memset(pt, 0, sizeof *pt);
    const exdb_call_signature *sig = root_sig(p);
    const exdb_treespec *in = sig ? sig->in_spec : NULL;
    if (!in)
        return exdb_errorf(err, "ep.module(): the program has no root call signature (in_spec)");
    pt->has_out_spec = sig->out_spec != NULL;
    pt->args_kwargs = in->type && strcmp(in->type, "builtins.tuple") == 0 && in->nchildren == 2 &&
                      in->children[0]->type &&
                      strcmp(in->children[0]->type, "builtins.tuple") == 0 &&
                      in->children[1]->type && strcmp(in->children[1]->type, "builtins.dict") == 0;
    uint32_t nargs = pt->args_kwargs ? in->children[0]->nchildren : in->nchildren;
    uint32_t nkw = pt->args_kwargs ? in->children[1]->nkeys : 0;
    pt->nargs = nargs;
    if (pt->args_kwargs) {
        /* the context's keys as they print in f"'{k}'": repr without quotes */
        pt->kwarg_keys = exdb_arena_calloc(a, nkw + 1, sizeof *pt->kwarg_keys);
        if (!pt->kwarg_keys)
            return exdb_errorf(err, "out of memory");
        for (uint32_t i = 0; i < nkw; i++) {
            const char *k = in->children[1]->keys[i];
            size_t l = strlen(k);
            pt->kwarg_keys[i] =
                l >= 2 && (k[0] == '\'' || k[0] == '"') ? exdb_arena_strndup(a, k + 1, l - 2) : k;
            if (!pt->kwarg_keys[i])
                return exdb_errorf(err, "out of memory");
        }
        pt->nkwarg_keys = nkw;
    }
    if (sig->forward_arg_names && sig->nforward_arg_names) {
        pt->orig_args = sig->forward_arg_names;
        pt->norig_args = sig->nforward_arg_names;
        return 0;
    }
    pt->orig_args = exdb_arena_calloc(a, nargs + nkw + 1, sizeof *pt->orig_args);
    if (!pt->orig_args)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < nargs; i++)
        if (!(pt->orig_args[i] = exdb_arena_printf(a, "arg_%u", i)))
            return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < nkw; i++)
        pt->orig_args[nargs + i] = pt->kwarg_keys[i];
    pt->norig_args = nargs + nkw;
    return 0;
}

/* The _guards_fn call_module after the last placeholder, with every
 * placeholder as argument. */
static int add_guards(exdb_graph *g, exdb_error *err) {
    uint32_t n = 0;
    exdb_node *last = NULL;
    for (exdb_node *x = g->head; x; x = x->next)
        if (x->op == EXDB_OP_PLACEHOLDER)
            n++, last = x;
    if (!n)
        return 0;
    exdb_arg args;
    if (exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, n, &args) < 0)
        return exdb_errorf(err, "out of memory");
    uint32_t i = 0;
    for (exdb_node *x = g->head; x; x = x->next)
        if (x->op == EXDB_OP_PLACEHOLDER)
            args.u.items[i++] = exdb_arg_node(x);
    exdb_graph_insert_after(g, last);
    exdb_node *c =
        exdb_graph_create_node(g, EXDB_OP_CALL_MODULE, "_guards_fn", EXDB_T_STR, &args, NULL, NULL);
    exdb_graph_insert_append(g);
    return c ? 0 : exdb_errorf(err, "out of memory");
}

/* ep.verifiers[0].dialect: the first of the program's verifiers, else its
 * (older) dialect, else the default Verifier's "ATEN". */
static const char *dialect(const exdb_program *p) {
    if (p->nverifiers && p->verifiers[0])
        return p->verifiers[0];
    return p->dialect ? p->dialect : "ATEN";
}

/* _remove_effect_tokens(ep), which module() calls unless the dialect is
 * TRAINING: no tokens to remove here, but it ends with
 * eliminate_dead_code() on the graph. */
static int remove_dead(exdb_graph *g, exdb_error *err) {
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_dce_opts o = {.impure_random = 1};
    int n = exdb_dce_run(g, &o, &log, err);
    exdb_dce_log_free(&log);
    return n < 0 ? -1 : 0;
}

exdb_graph *exdb_unlift(exdb_arena *a, const exdb_program *p, int guards, exdb_pytree_info *pt,
                        exdb_error *err) {
    if (codegen_info(a, p, pt, err) < 0)
        return NULL;
    exdb_graph *g = copy_graph(a, p->graph);
    if (!g) {
        exdb_errorf(err, "out of memory");
        return NULL;
    }
    exdb_node **unlifted = calloc(p->ninputs + 1, sizeof *unlifted);
    exdb_node **inputs = calloc(p->ninputs + 1, sizeof *inputs);
    int rc = unlifted && inputs ? 0 : exdb_errorf(err, "out of memory");
    if (rc == 0 && strcmp(dialect(p), "TRAINING") != 0)
        rc = remove_dead(g, err);
    if (rc == 0)
        rc = unlift_inputs(g, p, unlifted, inputs, err);
    if (rc == 0)
        rc = insert_copies(g, p, unlifted, inputs, err);
    if (rc == 0 && guards)
        rc = add_guards(g, err);
    free(unlifted);
    free(inputs);
    return rc < 0 ? NULL : g;
}

/* Whether a get_attr node of g names attribute name. */
static int names_attr(const exdb_graph *g, const char *name) {
    for (const exdb_node *x = g->head; x; x = x->next)
        if (x->op == EXDB_OP_GET_ATTR && strcmp(x->target, name) == 0)
            return 1;
    return 0;
}

int exdb_unlift_clean_children(exdb_arena *a, exdb_readable_mod *m, uint32_t depth,
                               exdb_error *err) {
    for (uint32_t i = 0; i < m->nchildren && depth < 10000; i++) {
        exdb_readable_mod *c = (exdb_readable_mod *)&m->children[i];
        if (!names_attr(m->graph, c->name))
            continue; /* FX's dce recurses only into children a get_attr names */
        exdb_graph *g = copy_graph(a, c->graph);
        if (!g)
            return exdb_errorf(err, "out of memory");
        if (remove_dead(g, err) < 0)
            return -1;
        c->graph = g;
        if (exdb_unlift_clean_children(a, c, depth + 1, err) < 0)
            return -1;
    }
    return 0;
}
