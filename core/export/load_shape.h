/* load_shape.h - the main graph's node counts read off the text, without
 * building the graph: what `info program` and the load line print of a
 * program opened shape first (program.h's exdb_program_open).
 *
 * Names: load_shape.c defines exdb_load_shape_* (load.h has the loader's
 * file names). */
#ifndef EXDB_CORE_EXPORT_LOAD_SHAPE_H
#define EXDB_CORE_EXPORT_LOAD_SHAPE_H

#include "core/export/load.h"

/* The node counts of graph jg (at gp) as exdb_load_graph would build it
 * (placeholders, one call_function per node and the getitems of its
 * outputs, the output node) into *c. -1 when it cannot say for sure: the
 * graph is not as a load would accept it, or it has subgraphs (as_graph
 * arguments); the message in L->err then says nothing the load would. */
int exdb_load_shape_graph(loader *L, const exdb_json *jg, const jpath *gp, exdb_node_counts *c);

#endif
