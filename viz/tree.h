/* tree.h - what tree.c defines for the other views. */
#ifndef EXDB_VIZ_TREE_H
#define EXDB_VIZ_TREE_H

#include "viz/view.h"

int vz_view_tree(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);

/* The `tree` view cut to the subtree of the module at fqn ("" = root),
 * titled "title, N modules ...": what `module FQN` draws for a plain
 * torch.nn.Module, which has no graph of its own (tree.c). */
int vz_view_subtree(vz_graph *vg, const struct exdb_unflatten *u, const char *fqn,
                    const char *title, exdb_error *err);

#endif
