/* load_value.h - a graph's value tables (tensor_values, sym_int_values,
 * sym_float_values, sym_bool_values, custom_obj_values): the meta["val"] of
 * the values the graph's nodes produce.
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
#ifndef EXDB_CORE_EXPORT_LOAD_VALUE_H
#define EXDB_CORE_EXPORT_LOAD_VALUE_H

#include "core/export/load.h"

/* Reads the tables of sc->jgraph, at gp, into sc's value names and metas
 * (sc->mkey, sc->mval). */
int exdb_load_value_tables(loader *L, gscope *sc, const jpath *gp);
/* *out: the meta["val"] the tables give value `name` (the last entry of
 * that name, as json.loads keeps it), NULL when none does; -1 when memory
 * runs out. */
int exdb_load_value_find(loader *L, gscope *sc, const char *name, exdb_val **out);

#endif
