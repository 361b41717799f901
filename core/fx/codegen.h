/* codegen.h - the Python torch.fx generates for a graph (GraphModule.code)
 * and print_readable()'s view of it, byte for byte as torch 2.13 writes
 * them: the C twin of torch/fx/graph.py's CodeGen._gen_python_code and
 * _PyTreeCodeGen (print_readable's nesting is readable.h). */
#ifndef EXDB_CORE_FX_CODEGEN_H
#define EXDB_CORE_FX_CODEGEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/fx/graph.h"
#include "core/format/schema.h"
#include "core/base/strbuf.h"

/* _PyTreeInfo: the forward's own argument names, with the in/out specs
 * that decide the binding line and the return (_PyTreeCodeGen). */
typedef struct exdb_pytree_info {
    const char **orig_args; /* forward's parameter names, "self" excluded */
    uint32_t norig_args;
    /* in_spec is tuple(tuple(args...), dict(kwargs...)): its kwargs' keys
     * (the dict's context, in order) and how many positional arguments */
    int args_kwargs;
    uint32_t nargs;
    const char **kwarg_keys;
    uint32_t nkwarg_keys;
    int has_out_spec; /* the return goes through pytree.tree_unflatten */
} exdb_pytree_info;

typedef struct exdb_codegen_opts {
    int verbose; /* print_readable's form: annotations, "# File:" comments */
    int include_stride, include_device, colored;
    const exdb_pytree_info *pytree; /* NULL: the plain CodeGen */
} exdb_codegen_opts;

/* Graph.python_code(root_module="self").src for g: the text GraphModule.code
 * holds ("\n\n\ndef forward(self, ...):\n    ...\n    "). lines, when not
 * NULL, receives for each node of g in graph order the 1-based line of out's
 * text (counted from the start of what this call appends) where the node's
 * statement begins, 0 for a node with no line of its own (a placeholder not
 * renamed); it must have room for g->count entries. -1 on out of memory. */
int exdb_python_code(exdb_buf *out, const exdb_graph *g, const exdb_codegen_opts *o,
                     uint32_t *lines);

/* Where exdb_python_code_write puts the text: n bytes at s; -1 stops it. */
typedef int (*exdb_code_write)(void *ctx, const char *s, size_t n);

/* exdb_python_code_write's pieces: 1 MB of body. */
#define EXDB_CODE_PIECE ((size_t)1 << 20)

/* exdb_python_code's text given to write as it is made, a piece each time
 * the body reaches piece bytes (EXDB_CODE_PIECE: never a whole big graph's
 * text at once), the first once every placeholder is seen; lines as
 * exdb_python_code's. -1 on out of memory or when write failed (what was
 * written stays written). */
int exdb_python_code_write(const exdb_graph *g, const exdb_codegen_opts *o, uint32_t *lines,
                           size_t piece, exdb_code_write write, void *ctx);

/* Node n's statement in exdb_python_code(g, plain options)'s text, without
 * indent or line end, into out, and its line there in *line (0 and nothing
 * appended when n has no line of its own). -1 on out of memory. */
int exdb_python_code_node(exdb_buf *out, const exdb_graph *g, const exdb_node *n, uint32_t *line);

#endif
