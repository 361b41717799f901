/* tree.h - what tree.c defines for the other views. */
#ifndef EXDB_TREE_H
#define EXDB_TREE_H

#include "viz/view.h"

int vz_view_tree(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);

#endif
