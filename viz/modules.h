/* modules.h - what modules.c defines for the other views. */
#ifndef EXDB_VIZ_MODULES_H
#define EXDB_VIZ_MODULES_H

#include "viz/view.h"

/* The module-level dataflow view. */
int vz_view_modules(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                    exdb_error *err);

#endif
