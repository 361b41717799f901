/* emit.h - what emit.c defines for the other views. */
#ifndef EXDB_VIZ_EMIT_H
#define EXDB_VIZ_EMIT_H

#include "viz/view.h"

/* Gives high-fan-out nodes one dashed copy per far use (see emit.c)
 * unless no_dup; records real and copied node counts in st. */
int vz_duplicate(vz_graph *vg, const exdb_viz_settings *set, int no_dup, exdb_viz_stats *st,
                 exdb_error *err);

Agraph_t *vz_emit(vz_graph *vg, int layout, exdb_viz_stats *st, exdb_error *err);

#endif
