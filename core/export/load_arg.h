/* load_arg.h - a node's arguments: serialize.py's deserialize_input, one
 * Argument union into an FX argument value (exdb_arg), and the pieces the
 * graph's outputs share with it.
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
#ifndef EXDB_CORE_EXPORT_LOAD_ARG_H
#define EXDB_CORE_EXPORT_LOAD_ARG_H

#include "core/export/load.h"

/* deserialize_input: one Argument union j at p -> *out. */
int exdb_load_arg(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *out);
/* {"name": "x"} (TensorArgument) -> the node defining x. */
int exdb_load_arg_tensor_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                             exdb_arg *out);
/* SymIntArgument (flavour 0) / SymFloatArgument (1) / SymBoolArgument (2)
 * -> node or literal. */
int exdb_load_arg_sym_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p, int flavour,
                          exdb_arg *out);
/* Plain int, float and bool arguments (sc unused). */
int exdb_load_arg_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
int exdb_load_arg_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
int exdb_load_arg_bool(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
/* The Python-visible spelling of serialized operator target t, and its kind. */
const char *exdb_load_arg_pretty_target(loader *L, const char *t, exdb_target_kind *kind);

#endif
