/* ivals.c - _IVals, newest semantics (docs/unflatten-notes.md §5.6): a
 * preserved-signature frame that needs the intermediate value of a
 * functionalized mutation reads the mutated tensor itself (node.args[0]);
 * update() later re-inserts aten.copy_(args[0], node) after the producer in
 * every outlined graph, so the mutation happens in place again. (Upstream's
 * stray `print("Checking mutability", ...)` is not reproduced: core/ never
 * prints.) */
#include <string.h>
#include "core/unflatten/ivals.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/urun.h"
#include "core/unflatten/ustrset.h"

/* _IVals._is_mutable: isinstance(target, OpOverload) and
 * target._schema.is_mutable, i.e. some argument is annotated (a!). The
 * program file carries no schemas, so this reads the name by ATen's
 * naming rules: in-place ops end in '_' (add_, copy_; not dunders), out=
 * variants are overloads named out*, *_out (Scalar_out, no_stats_out),
 * grad_input, or values/dim_max style (sort.values, max.dim_max), and a
 * few functional-looking ops write their running statistics. Higher-order ops and Python functions
 * are not OpOverloads. A custom op that mutates without following the naming rules is taken as
 * functional. */
static int is_mutable(const exdb_node *n) {
    if (n->tkind != EXDB_T_OP || strncmp(n->target, "torch.ops.", 10) != 0)
        return 0;
    const char *ns_end = strchr(n->target + 10, '.');
    if (!ns_end)
        return 0;
    const char *name = ns_end + 1;
    const char *dot = strrchr(name, '.');
    size_t len = dot ? (size_t)(dot - name) : strlen(name);
    const char *overload = dot ? dot + 1 : "default";
    size_t lo = strlen(overload);
    if (len > 1 && name[len - 1] == '_' && !(len > 2 && name[0] == '_' && name[1] == '_'))
        return 1;
    if (strncmp(overload, "out", 3) == 0 || (lo > 4 && strcmp(overload + lo - 4, "_out") == 0))
        return 1;
    static const char *const out_overloads[] = {"grad_input",   "values",  "values_stable",
                                                "dim_max",      "dim_min", "names_dim_max",
                                                "names_dim_min"};
    for (size_t i = 0; i < sizeof out_overloads / sizeof *out_overloads; i++)
        if (strcmp(overload, out_overloads[i]) == 0)
            return 1;
    static const char *const writers[] = {
        "_native_batch_norm_legit.default",        /* running_mean/var (a!)/(b!) */
        "_batch_norm_with_update.default",         /* running_mean/var */
        "_fused_moving_avg_obs_fq_helper.default", /* observer state */
    };
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++)
        if (strcmp(name, writers[i]) == 0)
            return 1;
    return 0;
}

/* _IVals.read */
int exdb_ivals_read(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out, exdb_error *err) {
    const char *mod = f->child_fqn[0] ? f->child_fqn : "<root>";
    if (x->op != EXDB_OP_CALL_FUNCTION)
        return exdb_errorf(err,
                           "AssertionError: expected node.op to be 'call_function', got '%s' "
                           "(_IVals.read of node %s, module '%s')",
                           exdb_op_name((exdb_op)x->op), x->name, mod);
    if (!is_mutable(x)) {
        const exdb_meta *m = x->meta;
        if (!m || !m->has_stack || !m->nstack)
            return exdb_errorf(err,
                               "KeyError: 'nn_module_stack' (_IVals.read of node %s, "
                               "module '%s')",
                               x->name, mod);
        const char *fqn = m->stack[m->nstack - 1].path;
        exdb_ustrset *s =
            exdb_ustrset_get(r, &r->ivals, &r->nivals, &r->ivals_cap, &r->ivals_index, fqn, 1);
        if (!s || exdb_ustrset_add(r, s, x->name) < 0)
            return exdb_errorf(err, "out of memory");
    }
    if (x->args.n < 1 || x->args.u.items[0].kind != EXDB_ARG_NODE)
        return exdb_errorf(err, "_IVals.read: node %s has no tensor first argument (module '%s')",
                           x->name, mod);
    return exdb_outline_remap_input(r, f, x->args.u.items[0].u.node, out, err);
}

/* _IVals.update, planned: one work item per node to follow with a copy_,
 * partitions and entries in seen_modules order. */
int exdb_ivals_plan(exdb_urun *r, exdb_error *err) {
    if (!r->nivals)
        return 0;
    for (uint32_t p = 0; p < r->nparts; p++) {
        exdb_upartition *part = &r->parts[p];
        for (uint32_t e = 0; e < part->n; e++) {
            exdb_uentry *ent = &part->entries[e];
            exdb_ustrset *names = exdb_ustrset_get(r, &r->ivals, &r->nivals, &r->ivals_cap,
                                                   &r->ivals_index, ent->fqn, 0);
            if (!names || !names->n || !ent->module->graph)
                continue;
            for (exdb_node *n = ent->module->graph->head; n; n = n->next) {
                if (!exdb_ustrset_has(names, n->name))
                    continue;
                exdb_uwork w = {0};
                w.module = ent->module;
                w.node = n;
                w.name = ent->fqn;
                if (exdb_urun_work_push(r, w) < 0)
                    return exdb_errorf(err, "out of memory");
            }
        }
    }
    return 0;
}

int exdb_ivals_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err) {
    exdb_node *n = w->node;
    exdb_graph *g = w->module->graph;
    if (n->args.n < 1 || n->args.u.items[0].kind != EXDB_ARG_NODE)
        return exdb_errorf(err,
                           "_IVals.update: node %s has no tensor first argument (module "
                           "'%s')",
                           n->name, w->name);
    exdb_arg args;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 2, &args) < 0)
        return exdb_errorf(err, "out of memory");
    args.u.items[0] = n->args.u.items[0];
    args.u.items[1] = exdb_arg_node(n);
    exdb_insert_mode mode = g->insert_mode;
    exdb_node *ref = g->insert_ref;
    exdb_graph_insert_after(g, n);
    exdb_node *c = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.copy_.default",
                                          EXDB_T_OP, &args, NULL, NULL);
    exdb_graph_insert_append(g); /* logs the insertion point, then: */
    g->insert_mode = mode;
    g->insert_ref = ref;
    if (!c)
        return exdb_errorf(err, "out of memory");
    c->meta = n->meta;
    return 0;
}
