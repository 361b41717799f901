/* attrs.c - the ATTRS phase: _copy_graph_attrs, a module's HOP subgraph
 * attributes (see attrs.h). */
#include "core/unflatten/attrs.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/udict.h"

#include <string.h>

#include "core/fx/dce.h"
#include "core/unflatten/urun.h"

static exdb_node *map_by_id(void *ctx, exdb_node *n) {
    exdb_node **by_id = ctx;
    return by_id[n->id];
}

/* Whether a get_attr node of g names attribute name. */
static int names_attr(const exdb_graph *g, const char *name) {
    for (const exdb_node *x = g->head; x; x = x->next)
        if (x->op == EXDB_OP_GET_ATTR && strcmp(x->target, name) == 0)
            return 1;
    return 0;
}

/* A GraphModule holding a copy of program subgraph src, cleaned as
 * _remove_effect_tokens left it (see remove_dead in prepass.c:
 * eliminate_dead_code() ran on it), with its own subgraphs as GraphModule
 * children, as the deserializer registered them (one per attribute, in
 * get_attr order); FX's dce recursed only into those a get_attr still
 * names (clean). depth bounds the recursion (the loader's limits do too). */
static exdb_umodule *copy_subgraph(exdb_urun *r, const exdb_graph *src, int clean, uint32_t depth,
                                   exdb_error *err) {
    const exdb_program *p = r->prog;
    exdb_umodule *gm = exdb_modtree_new(r, EXDB_UMOD_GRAPH, "torch.fx.graph_module.GraphModule");
    if (!gm || depth > 10000 || !(gm->graph = exdb_graph_new(&r->arena))) {
        exdb_errorf(err, "out of memory");
        return NULL;
    }
    gm->src = src;
    exdb_node **by_id =
        exdb_arena_calloc(&r->arena, src->next_id ? src->next_id : 1, sizeof *by_id);
    if (!by_id) {
        exdb_errorf(err, "out of memory");
        return NULL;
    }
    for (exdb_node *n = src->head; n; n = n->next) {
        exdb_node *c = exdb_graph_node_copy(gm->graph, n, map_by_id, by_id);
        if (!c) {
            exdb_errorf(err, "out of memory");
            return NULL;
        }
        by_id[n->id] = c;
    }
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_dce_opts o = {.impure_random = 1};
    int dead = clean ? exdb_dce_run(gm->graph, &o, &log, err) : 0;
    exdb_dce_log_free(&log);
    if (dead < 0)
        return NULL;
    for (const exdb_node *x = src->head; x; x = x->next) {
        const struct exdb_subgraph *sg =
            x->op == EXDB_OP_GET_ATTR ? exdb_program_subgraph_owned(p, x) : NULL;
        if (!sg || exdb_udict_get(gm->children, sg->name))
            continue;
        sg = exdb_program_subgraph_in(p, src, sg->name); /* the last of the name */
        exdb_umodule *c =
            copy_subgraph(r, sg->graph, names_attr(gm->graph, sg->name), depth + 1, err);
        if (!c)
            return NULL;
        if (exdb_udict_set(r, gm->children, sg->name, c) < 0) {
            exdb_errorf(err, "out of memory");
            return NULL;
        }
    }
    return gm;
}

/* getattr(gm, name) of a HOP subgraph, copied into the run (sink may edit it). */
int exdb_attrs_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err) {
    const exdb_program *p = r->prog;
    const char *fqn = w->name, *name = (const char *)w->node;
    exdb_umodule *m = exdb_modtree_get_path(r->root, fqn);
    if (!m)
        return exdb_errorf(err, "AttributeError: _copy_graph_attrs: no module '%s'", fqn);
    const struct exdb_subgraph *sub = exdb_program_subgraph(p, name); /* the last of the name */
    const exdb_graph *src = sub ? sub->graph : NULL;
    if (!src)
        return exdb_errorf(err,
                           "AttributeError: _copy_graph_attrs: the program has no attribute "
                           "'%s' (module '%s')",
                           name, fqn[0] ? fqn : "<root>");
    exdb_umodule *gm = copy_subgraph(r, src, 1, 0, err);
    if (!gm)
        return -1;
    exdb_udict_pop(m->attrs, name);
    exdb_udict *d = exdb_modtree_own_dict(r, &m->children);
    return !d || exdb_udict_set(r, d, name, gm) < 0 ? exdb_errorf(err, "out of memory") : 0;
}

int exdb_attrs_plan(exdb_urun *r, exdb_error *err) {
    for (uint32_t i = 0; i < r->nseen_attrs; i++)
        for (uint32_t k = 0; k < r->seen_attrs[i]->n; k++) {
            exdb_uwork w = {0};
            w.name = r->seen_attrs[i]->key;
            w.node = (exdb_node *)r->seen_attrs[i]->items[k];
            if (exdb_urun_work_push(r, w) < 0)
                return exdb_errorf(err, "out of memory");
        }
    return 0;
}
