/* tree_data.h - what tree_data.c defines for the other views. */
#ifndef EXDB_VIZ_TREE_DATA_H
#define EXDB_VIZ_TREE_DATA_H

#include "viz/view.h"

/* The page's data: the module list, each module call's own dataflow
 * graph and the source lines, as JSON in <script> elements (tree_data.c).
 * -1 with a message when out of memory. */
int vz_write_tree_data(FILE *f, const exdb_program *p, vz_tree_stats *st, exdb_error *err);

#endif
