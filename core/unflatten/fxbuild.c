/* fxbuild.c - building FX nodes into a run's module graphs: insertion
 * points, getitem calls, the _spec_N attribute and its tree_flatten_spec /
 * tree_unflatten call (see fxbuild.h). */
#include "core/unflatten/fxbuild.h"

#include "core/unflatten/modtree.h"

exdb_ipoint exdb_fxbuild_ip_save(const exdb_graph *g) {
    exdb_ipoint p = {g->insert_mode, g->insert_ref};
    return p;
}

void exdb_fxbuild_ip_restore(exdb_graph *g, exdb_ipoint p) {
    EXDB_WILL_WRITE(g->arena, g->insert_mode);
    EXDB_WILL_WRITE(g->arena, g->insert_ref);
    g->insert_mode = p.mode;
    g->insert_ref = p.ref;
}

exdb_meta *exdb_fxbuild_meta_clone(exdb_urun *r, const exdb_meta *m) {
    exdb_meta *nm = exdb_arena_calloc(&r->arena, 1, sizeof *nm);
    if (nm && m)
        *nm = *m;
    return nm;
}

exdb_node *exdb_fxbuild_getitem(exdb_urun *r, exdb_graph *g, exdb_node *of, exdb_arg idx,
                                const char *name) {
    exdb_arg args;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 2, &args) < 0)
        return NULL;
    args.u.items[0] = exdb_arg_node(of);
    args.u.items[1] = idx;
    return exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, "operator.getitem", EXDB_T_PYFN, &args,
                                  NULL, name);
}

/* _generate_unflatten / _generate_flatten_spec: a _spec_N attribute on m, a
 * get_attr of it, and the call, at g's insertion point. */
exdb_node *exdb_fxbuild_spec_call(exdb_urun *r, exdb_umodule *m, exdb_graph *g, const char *fn,
                                  exdb_arg first, const exdb_treespec *spec,
                                  const char *spec_text) {
    const char *name = exdb_modtree_add_spec(r, m, spec, spec_text);
    if (!name)
        return NULL;
    exdb_node *sn = exdb_graph_create_node(g, EXDB_OP_GET_ATTR, name, EXDB_T_STR, NULL, NULL, NULL);
    if (!sn)
        return NULL;
    exdb_arg args;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 2, &args) < 0)
        return NULL;
    args.u.items[0] = first;
    args.u.items[1] = exdb_arg_node(sn);
    return exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, fn, EXDB_T_PYFN, &args, NULL, NULL);
}
