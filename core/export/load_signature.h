/* load_signature.h - the graph signature (input_specs / output_specs,
 * serialize.py's deserialize_signature) with the name checks of
 * ExportedProgram's verifier, and the module_call_graph.
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
#ifndef EXDB_CORE_EXPORT_LOAD_SIGNATURE_H
#define EXDB_CORE_EXPORT_LOAD_SIGNATURE_H

#include "core/export/load.h"

/* sig at p into L->prog->inputs / outputs (loaded before the graph: constant
 * graph inputs take their placeholder names from it). */
int exdb_load_signature(loader *L, const exdb_json *sig, const jpath *p);
/* Once the graph is built: each named spec names the placeholder / output
 * value at its position (sigp: the signature's path). */
int exdb_load_signature_check_names(loader *L, const jpath *sigp);
/* module_call_graph mcg at p into L->prog->calls. */
int exdb_load_signature_call_graph(loader *L, const exdb_json *mcg, const jpath *p);

#endif
