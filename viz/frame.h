/* frame.h - what frame.c defines for the other views. */
#ifndef EXDB_VIZ_FRAME_H
#define EXDB_VIZ_FRAME_H

#include "viz/view.h"

int vz_view_frame(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                  exdb_error *err);

#endif
