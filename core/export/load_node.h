/* load_node.h - serialize.py's deserialize_node: one serialized node into a
 * call_function node (plus the getitems of its outputs), named as PyTorch
 * names it.
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
#ifndef EXDB_CORE_EXPORT_LOAD_NODE_H
#define EXDB_CORE_EXPORT_LOAD_NODE_H

#include "core/export/load.h"

/* Node jn at p into sc's graph; idx is its index in the main graph's nodes
 * (-1 in a subgraph). */
int exdb_load_node(loader *L, gscope *sc, const exdb_json *jn, const jpath *p, int32_t idx);
/* sync_fx_node(name, n): binds value name to n and forces n's printed name. */
int exdb_load_node_sync(loader *L, gscope *sc, exdb_node *n, const char *name, const jpath *p);
/* Sets meta["val"] on a copy of n's metadata. */
int exdb_load_node_set_val(loader *L, exdb_node *n, const exdb_val *v);
/* The name of a named symbolic value {"as_name": "s"} at p. */
int exdb_load_node_sym_name(loader *L, const exdb_json *v, const jpath *p, const char *what,
                            const char **name);
/* Whether target (as serialized) is one of serialize.py's _SYM_OPS or
 * aten.item.default: deserialize_node reads its one output as a symbol. */
int exdb_load_node_is_sym_op(const char *target);

#endif
