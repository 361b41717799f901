/* fxbuild.h - building FX nodes into a run's module graphs: where nodes go
 * (the graph's insertion point, saved and put back), getitem calls, the
 * _spec_N attribute with its tree_flatten_spec / tree_unflatten call
 * (_generate_flatten_spec / _generate_unflatten), copied metadata. */
#ifndef EXDB_CORE_UNFLATTEN_FXBUILD_H
#define EXDB_CORE_UNFLATTEN_FXBUILD_H

#include "core/unflatten/urun.h"

/* A graph's insertion point (inserting_before / inserting_after). */
typedef struct exdb_ipoint {
    exdb_insert_mode mode;
    exdb_node *ref;
} exdb_ipoint;

exdb_ipoint exdb_fxbuild_ip_save(const exdb_graph *g);
/* Puts the insertion point back (journaled). */
void exdb_fxbuild_ip_restore(exdb_graph *g, exdb_ipoint p);
/* A copy of m (an empty one for NULL) in the run's arena. */
exdb_meta *exdb_fxbuild_meta_clone(exdb_urun *r, const exdb_meta *m);
/* operator.getitem(of, idx) at g's insertion point. */
exdb_node *exdb_fxbuild_getitem(exdb_urun *r, exdb_graph *g, exdb_node *of, exdb_arg idx,
                                const char *name);
/* _generate_unflatten / _generate_flatten_spec: a _spec_N attribute on m, a
 * get_attr of it, and the call fn(first, spec), at g's insertion point. */
exdb_node *exdb_fxbuild_spec_call(exdb_urun *r, exdb_umodule *m, exdb_graph *g, const char *fn,
                                  exdb_arg first, const exdb_treespec *spec, const char *spec_text);

#endif
