/* dotwrite.h - what dotwrite.c defines for the other views. */
#ifndef EXDB_VIZ_DOTWRITE_H
#define EXDB_VIZ_DOTWRITE_H

#include "viz/view.h"

/* Appends vg as DOT to b: the bytes agwrite writes for vz_emit(vg, 0).
 * 0 when written, -1 when out of memory, 1 when vg is one dotwrite.c does
 * not write (a name that would make cgraph merge or reorder objects: then
 * nothing is appended and the caller goes through cgraph). Fills st's
 * counts as vz_emit does. */
int vz_dot_write(const vz_graph *vg, exdb_buf *b, exdb_viz_stats *st);

/* Set: every DOT goes through vz_emit and agwrite (the tests' oracle). */
extern int vz_dot_agwrite;

#endif
