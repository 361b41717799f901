/* readable.h - GraphModule.print_readable(print_output=False): the
 * verbose code of a graph as a class, its GraphModule children's classes
 * nested in it (torch/fx/graph_module.py's _print_readable). */
#ifndef EXDB_CORE_FX_READABLE_H
#define EXDB_CORE_FX_READABLE_H

#include "core/fx/codegen.h"

/* One module of print_readable's nesting: a graph with its GraphModule
 * children (named_children order). */
typedef struct exdb_readable_mod {
    const char *name; /* the class name: "GraphModule", "InterpreterModule", the attribute */
    const exdb_graph *graph;
    const exdb_pytree_info *pytree;
    const struct exdb_readable_mod *children;
    uint32_t nchildren;
} exdb_readable_mod;

/* _print_readable(module, module_name, print_output=False, ...): the class
 * of m, then each child's class nested under it. lines as exdb_python_code's,
 * for m's own graph (lines of out's appended text). -1 on out of memory. */
int exdb_print_readable(exdb_buf *out, const exdb_readable_mod *m, const exdb_codegen_opts *o,
                        uint32_t *lines);

#endif
