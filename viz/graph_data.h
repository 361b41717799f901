/* graph_data.h - what graph_data.c defines for the other views. */
#ifndef EXDB_VIZ_GRAPH_DATA_H
#define EXDB_VIZ_GRAPH_DATA_H

#include "viz/view.h"

/* Nodes of one cluster laid out together; a cluster with more is cut
 * into sections of this many, each opened on its own. */
#define VZ_SECTION 1000

/* The page's data for view graph vg (p: the program its FX nodes are of,
 * or NULL): the module list (its clusters and sections), each one's graph
 * and the source lines, as JSON in <script> elements, as
 * vz_write_tree_data writes them (graph_data.c). -1 with a message when
 * out of memory. */
int vz_write_graph_data(FILE *f, const vz_graph *vg, const exdb_program *p, vz_tree_stats *st,
                        exdb_error *err);

#endif
