/* diff.h - two exported programs compared node by node (`exdb diff A B`,
 * `diff FILE`): the flat graphs matched by name first and by structure
 * where names shifted (docs/diff.md gives the algorithm), then the graph
 * signature, the module_call_graph and the program's own fields. The
 * module tree after unflatten is core/unflatten/moddiff.h's. */
#ifndef EXDB_CORE_EXPORT_DIFF_H
#define EXDB_CORE_EXPORT_DIFF_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/export/program.h"

/* What differs between two matched nodes (a bit set). */
enum {
    EXDB_DIFF_NAME = 1,    /* only renamed: a shift of FX's _N suffixes */
    EXDB_DIFF_TARGET = 2,  /* the op (or the opcode) */
    EXDB_DIFF_ARGS = 4,    /* args, node arguments compared through the match */
    EXDB_DIFF_KWARGS = 8,  /* kwargs, the same way */
    EXDB_DIFF_VALUE = 16,  /* meta["val"]: dtype, shape... as print node shows it */
    EXDB_DIFF_MODULE = 32, /* the innermost nn_module_stack path and call */
};
/* Every bit but NAME: a pair with one of these is "changed". */
#define EXDB_DIFF_CHANGES                                                                          \
    (EXDB_DIFF_TARGET | EXDB_DIFF_ARGS | EXDB_DIFF_KWARGS | EXDB_DIFF_VALUE | EXDB_DIFF_MODULE)

typedef struct exdb_diff_pair {
    const exdb_node *a, *b;
    uint32_t what; /* EXDB_DIFF_* */
} exdb_diff_pair;

/* One difference outside the nodes: of the signature ("input", "output"),
 * the module_call_graph ("call") or the program ("program"). */
typedef struct exdb_diff_item {
    char change;         /* '+' only in B, '-' only in A, '~' in both, different */
    const char *section; /* "input", "output", "call", "program" */
    const char *key;     /* what matched the two sides: "parameter conv1.weight",
                          * "user_input 0", a module fqn, a field name */
    const char *field;   /* '~': what differs ("name", "in_spec"...); NULL for +/- */
    const char *a, *b;   /* each side as text, NULL when absent */
} exdb_diff_item;

/* A call_function target whose count differs between the graphs. */
typedef struct exdb_diff_opcount {
    const char *target;
    uint32_t a, b; /* nodes calling it in A and in B */
} exdb_diff_opcount;

typedef struct exdb_program_diff {
    exdb_arena arena;
    const exdb_program *a, *b;
    /* node id -> its match in the other graph, NULL when none */
    const exdb_node **a_to_b, **b_to_a;
    const exdb_node **removed; /* A's nodes with no match, in A's order */
    uint32_t nremoved;
    const exdb_node **added; /* B's nodes with no match, in B's order */
    uint32_t nadded;
    exdb_diff_pair *changed; /* matched with EXDB_DIFF_CHANGES bits, in A's order */
    uint32_t nchanged;
    exdb_diff_pair *renamed; /* matched, only the name differs, in A's order */
    uint32_t nrenamed;
    uint32_t nmatched;     /* matched pairs, changed and renamed included */
    uint32_t nby_name;     /* of those, matched by name (the rest: by structure) */
    exdb_diff_item *items; /* signature, call graph, program: in that order */
    uint32_t nitems;
    uint32_t nsig, ncalls;  /* items[0..nsig) signature, then ncalls call-graph ones */
    exdb_diff_opcount *ops; /* targets called a different number of times, A's order first */
    uint32_t nops;
} exdb_program_diff;

/* Compares a with b (both must outlive the result). NULL with err when
 * memory runs out. */
exdb_program_diff *exdb_diff_programs(const exdb_program *a, const exdb_program *b,
                                      exdb_error *err);
void exdb_diff_free(exdb_program_diff *d);
/* Whether nothing differs but node names (renames are no difference). */
int exdb_diff_equal(const exdb_program_diff *d);

/* The innermost nn_module_stack path of n with its call ("layer1.0",
 * "n@1"), "" for the root, into arena a; NULL when out of memory. */
const char *exdb_diff_node_module(exdb_arena *a, const exdb_node *n);

#endif
