/* nodematch.h - node search: the filters of `find` (a name glob, op,
 * target glob, module glob, dtype, shape, user count, source line), all of
 * which must hold. One test per node, so a search is linear in the graph. */
#ifndef EXDB_CORE_FX_NODEMATCH_H
#define EXDB_CORE_FX_NODEMATCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/fx/graph.h"

enum { EXDB_NODEMATCH_MAX_DIMS = 64 };

/* A filter; a field left at its "any" value (NULL, -1, 0) tests nothing.
 * Globs are fnmatch patterns. Strings are the caller's. */
typedef struct exdb_node_filter {
    const char *name;   /* glob on the node's name */
    int op;             /* exdb_op, -1 any */
    const char *target; /* glob on the target as FX prints it; "torch.ops." may be left out */
    const char *module; /* glob on the fqn of any entry of nn_module_stack ("" the root) */
    int dtype;          /* ScalarType code of a tensor value, -1 any */
    int has_shape;      /* the value is a tensor of this shape: */
    uint32_t ndims;
    struct {
        const char *text; /* "*" any size, digits a size, else a symbolic size's text */
        uint32_t len;
    } dims[EXDB_NODEMATCH_MAX_DIMS];
    int64_t users;    /* len(node.users), -1 any */
    const char *file; /* a frame of the stack trace at file:line (a suffix), NULL any */
    size_t file_len;
    uint32_t line;
} exdb_node_filter;

/* A filter that matches every node. */
void exdb_nodematch_init(exdb_node_filter *f);

/* "f32", "float32" or "torch.float32" -> its ScalarType code; -1 when no
 * dtype has that name. */
int exdb_nodematch_dtype(const char *word);

/* "1,*,224,224" (brackets or parentheses around allowed; "" or "()" a
 * 0-d tensor) into f's dims, pointing into text. 0, or -1 when it has more
 * than EXDB_NODEMATCH_MAX_DIMS dims or an empty one. */
int exdb_nodematch_shape(exdb_node_filter *f, const char *text);

/* Whether n passes every filter of f. */
int exdb_nodematch(const exdb_node_filter *f, const exdb_node *n);

#endif
