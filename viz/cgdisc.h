/* cgdisc.h - what cgdisc.c defines for the other views. */
#ifndef EXDB_VIZ_CGDISC_H
#define EXDB_VIZ_CGDISC_H

#include "viz/view.h"

/* An empty directed graph with cgdisc.c's disciplines: its objects and
 * strings in an arena, names mapped by a hash map. count and bytes: how
 * many names it will hold and their summed length (an upper bound keeps
 * the names in one block, in creation order). NULL when out of memory. */
Agraph_t *vz_cg_open(const char *name, size_t count, size_t bytes);

/* agclose, then frees what vz_cg_open allocated (any graph). */
void vz_close(Agraph_t *g);

/* agwrite of a vz_cg_open graph: to f, or appended to b when f is NULL.
 * -1 on a write error or when out of memory. */
int vz_write(Agraph_t *g, FILE *f, exdb_buf *b);

#endif
