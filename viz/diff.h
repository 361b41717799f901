/* diff.h - what diff.c defines for the other views. */
#ifndef EXDB_VIZ_DIFF_H
#define EXDB_VIZ_DIFF_H

#include "viz/view.h"

/* B's flat graph with A's removed nodes, coloured by src->diff (diff.c). */
int vz_view_diff(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);

#endif
