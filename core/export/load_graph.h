/* load_graph.h - serialize.py's deserialize_graph: placeholders, nodes and
 * the output node of the main graph or a subgraph (as_graph arguments).
 *
 * Names: the loader is split by what it loads (docs/pt2-format.md), one file
 * each: load_path.c (exdb_load_path_*), load_value.c (exdb_load_value_*),
 * load_meta.c (exdb_load_meta*), load_arg.c (exdb_load_arg*), load_node.c
 * (exdb_load_node*), load_graph.c (exdb_load_graph*), load_signature.c
 * (exdb_load_signature*, the module_call_graph too); any other exdb_load_*
 * name is load.c's (the loader's state, messages, text checks and typed
 * accessors); program.c is the top level (exdb_program_*, program.h). Each
 * load_X.h declares what load_X.c defines; they are private to core/export
 * (not libexdb's API). */
#ifndef EXDB_CORE_EXPORT_LOAD_GRAPH_H
#define EXDB_CORE_EXPORT_LOAD_GRAPH_H

#include "core/export/load.h"

/* Graph jg at gp into g (is_sub: a subgraph, whose nodes have no index in
 * the file's main graph). */
int exdb_load_graph(loader *L, const exdb_json *jg, const jpath *gp, exdb_graph *g, int is_sub);
/* as_graph argument v at p: loads the subgraph, registers it in
 * L->prog->subgraphs and makes *out a get_attr node of sc's graph naming it. */
int exdb_load_graph_subgraph_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p,
                                 exdb_arg *out);

#endif
