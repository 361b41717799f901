/* sourcelines.h - the user's Python lines behind a graph's nodes, read
 * from their stack_trace and nn_module_stack metadata: a node's line in a
 * module's code (`info lines FQN`), the lines of a module grouped in
 * first-appearance order, and the calls of a module with the line each was
 * called from (`info calls FQN`). Linear in the graph. */
#ifndef EXDB_CORE_FX_SOURCELINES_H
#define EXDB_CORE_FX_SOURCELINES_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/fx/graph.h"
#include "core/fx/stacktrace.h"

/* Traces deeper than this are read to their first EXDB_MAX_FRAMES frames. */
enum { EXDB_MAX_FRAMES = 256 };

/* The index of the first nn_module_stack entry of n whose path is fqn, or
 * -1 when n is not in that module. */
int32_t exdb_source_entry_of(const exdb_node *n, const char *fqn);

/* The call site of n's nn_module_stack entry `entry` (exdb_stack_call_sites):
 * 1 with *site filled, 0 when n has no trace or the entry is the root. */
int exdb_source_call_site(const exdb_node *n, uint32_t entry, exdb_stack_frame *site);

/* n's line in the code of module fqn: when n was made inside a submodule
 * of fqn, the line of fqn's code that called it (the call site of the next
 * entry); when n is directly in fqn, its innermost frame. fqn NULL: the
 * innermost frame. 1 with *f filled, 0 when n has no trace (or is not in
 * fqn). */
int exdb_source_line_in(const exdb_node *n, const char *fqn, exdb_stack_frame *f);

/* One source line and the nodes that came from it, in graph order. */
typedef struct exdb_source_group {
    exdb_stack_frame frame;
    const exdb_node **nodes;
    uint32_t nnodes;
} exdb_source_group;

typedef struct exdb_source_lines {
    exdb_arena arena;
    exdb_source_group *groups; /* first-appearance order */
    uint32_t ngroups;
    uint32_t nnodes;    /* nodes in the module */
    uint32_t nuntraced; /* ... of which have no stack trace (in no group) */
} exdb_source_lines;

/* The nodes of g in module fqn (NULL or "": every node) grouped by their
 * line in fqn's code (exdb_source_line_in). 0, or -1 when memory ran out.
 * Free with exdb_source_lines_free. */
int exdb_source_lines_group(const exdb_graph *g, const char *fqn, exdb_source_lines *out);
void exdb_source_lines_free(exdb_source_lines *l);

/* One call of a module: an nn_module_stack key for its path (later calls
 * are "key@N"), the first node made in it, and where it was called from:
 * the call site of that entry in the first node's trace. */
typedef struct exdb_source_call {
    const char *key;
    int call_idx;
    const exdb_node *first;
    uint32_t nnodes;
    int has_site;
    exdb_stack_frame site;
} exdb_source_call;

/* The calls of module fqn in g, in first-appearance order (malloc'd array
 * in *out, free it). Returns how many, or -1 when memory ran out. */
int32_t exdb_source_calls(const exdb_graph *g, const char *fqn, exdb_source_call **out);

#endif
