/* moddiff.h - differences after unflatten: two programs' module trees
 * module by module (`diff FILE`), and two calls of one module side by side
 * with the first node that kept _deduplicate_modules from merging them
 * (`diff module n n@1`). Reads finished runs through unflatten.h's public
 * functions only. */
#ifndef EXDB_CORE_UNFLATTEN_MODDIFF_H
#define EXDB_CORE_UNFLATTEN_MODDIFF_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/export/diff.h"
#include "core/unflatten/unflatten.h"

/* One module path of either tree that differs. */
typedef struct exdb_moddiff_item {
    char change;                      /* '+' only in B, '-' only in A, '~' both, different */
    const char *fqn;                  /* named_modules path, "" the root */
    const char *a_class, *b_class;    /* type(m).__name__ (NULL when absent) */
    const char *a_type, *b_type;      /* _ty, the module's nn_module_stack class, or NULL */
    int32_t a_nodes, b_nodes;         /* nodes of its graph, -1 when it has none */
    uint32_t added, removed, changed; /* flat nodes of this module call (nn_module_stack) */
} exdb_moddiff_item;

typedef struct exdb_moddiff {
    exdb_arena arena;
    exdb_moddiff_item *items; /* A's paths in pre-order, then B's new ones */
    uint32_t n;
    uint32_t a_modules, b_modules; /* paths in each tree */
} exdb_moddiff;

/* The module trees of two finished runs (ua of the diff's A, ub of its B),
 * with the diff's node differences counted per module call. NULL with err
 * when memory runs out. */
exdb_moddiff *exdb_moddiff_trees(const exdb_unflatten *ua, const exdb_unflatten *ub,
                                 const exdb_program_diff *pd, exdb_error *err);
void exdb_moddiff_free(exdb_moddiff *d);

/* Two calls of modules in one finished run, compared as
 * _check_graph_equivalence compares them (the dump dedup.c hashes). */
typedef struct exdb_modcalls {
    exdb_arena arena;
    const char *fqn[2];
    const exdb_umodule *mod[2];
    const char *merged_into; /* fqn[1] was removed by DEDUP in favour of this call, or NULL */
    const char **lines[2];   /* "3: call_function[aten.add.Tensor](%1, %2)" per node */
    const exdb_node **nodes[2];
    uint32_t n[2];
    int32_t first; /* the first line that differs, -1 when the graphs are equivalent */
} exdb_modcalls;

/* x, y: module paths or call names ("n@1"; a dispatcher's call K is
 * "n@K"). NULL with err naming a path that is no module. */
exdb_modcalls *exdb_moddiff_calls(const exdb_unflatten *u, const char *x, const char *y,
                                  exdb_error *err);
void exdb_modcalls_free(exdb_modcalls *c);

#endif
