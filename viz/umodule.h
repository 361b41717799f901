/* umodule.h - what umodule.c defines for the other views. */
#ifndef EXDB_UMODULE_H
#define EXDB_UMODULE_H

#include "viz/view.h"

int vz_view_module(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                   exdb_error *err);

#endif
