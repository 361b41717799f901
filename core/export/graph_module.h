/* graph_module.h - the GraphModule trees print_readable shows for a
 * program: ep.graph_module as torch.export's deserializer builds it, with
 * each higher-order op's subgraph a GraphModule child, nested as the
 * get_attr nodes name them. */
#ifndef EXDB_CORE_EXPORT_GRAPH_MODULE_H
#define EXDB_CORE_EXPORT_GRAPH_MODULE_H

#include "core/export/program.h"
#include "core/fx/readable.h"

/* The readable tree of the flat program: "GraphModule" with its HOP
 * subgraphs as children (as torch.export.load builds ep.graph_module), in
 * arena a. NULL on out of memory. */
exdb_readable_mod *exdb_readable_program(exdb_arena *a, const exdb_program *p);

/* A HOP subgraph's GraphModule named name showing graph, with the program
 * subgraphs nested in it as children (in a). -1 on out of memory. */
int exdb_readable_subgraph(exdb_arena *a, const exdb_program *p, const char *name,
                           const exdb_graph *graph, exdb_readable_mod *m);

/* m's children for a GraphModule(root, m->graph): the program subgraphs
 * the graph's get_attr nodes name, in node order (GraphModule.__init__
 * copies those attributes from root), each once (in a). -1 on out of
 * memory. */
int exdb_readable_attr_children(exdb_arena *a, const exdb_program *p, exdb_readable_mod *m);

#endif
