/* load_meta.h - Node.metadata (docs/pt2-format.md §9): nn_module_stack,
 * stack_trace, source_fn_stack, torch_fn, custom, from_node, and the
 * nn_module_stack string's parser (shared with the tests and fuzz_stack).
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
#ifndef EXDB_CORE_EXPORT_LOAD_META_H
#define EXDB_CORE_EXPORT_LOAD_META_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/export/load.h"

/* Parses an nn_module_stack string (docs/pt2-format.md §9.1) into entries; more
 * than EXDB_MAX_MODULE_DEPTH entries or path components, or a field longer
 * than EXDB_MAX_NAME_BYTES, is an error. */
int exdb_load_meta_parse_stack(exdb_arena *a, const char *text, exdb_stack_entry **out, uint32_t *n,
                               exdb_error *err);

/* A node's metadata object m (NULL: none) at p into *out (never NULL on
 * success). */
int exdb_load_meta(loader *L, const exdb_json *m, const jpath *p, exdb_meta **out);

/* Program p's lazily read metadata read through exdb_load_meta_read from
 * its text p->buf (p->json_bytes bytes) into its text_arena; messages
 * name fname. */
void exdb_load_meta_defer_on(exdb_program *p, const char *fname);

/* exdb_meta_defer's read for the fields exdb_load_meta left unparsed. */
const char *exdb_load_meta_read(exdb_meta_defer *d, const char *quote, int32_t src,
                                const char *key);

#endif
