/* unlift.h - the graph ep.module() runs: torch/export/_unlift.py's
 * _unlift_exported_program_lifted_states (dead code removed unless the
 * dialect is TRAINING, lifted parameters, buffers and constants back to
 * get_attr nodes, copy_ nodes for mutations, the _guards_fn call) with the
 * _PyTreeCodeGen info _get_codegen gives it. */
#ifndef EXDB_CORE_EXPORT_UNLIFT_H
#define EXDB_CORE_EXPORT_UNLIFT_H

#include "core/export/program.h"
#include "core/fx/codegen.h"
#include "core/fx/readable.h"

/* Builds that graph in arena a (a copy: the program is not touched) and
 * fills *pt (strings in a). guards: emit the _guards_fn call torch adds
 * when the loaded program has example inputs. NULL with err set when the
 * program's signature does not match its graph (torch raises there too). */
exdb_graph *exdb_unlift(exdb_arena *a, const exdb_program *p, int guards, exdb_pytree_info *pt,
                        exdb_error *err);

/* The eliminate_dead_code() above recurses into the GraphModule children
 * (HOP subgraphs, and theirs) its get_attr nodes name: m's children (built
 * from the program's subgraphs) get cleaned copies in arena a. depth: 0. */
int exdb_unlift_clean_children(exdb_arena *a, exdb_readable_mod *m, uint32_t depth,
                               exdb_error *err);

#endif
