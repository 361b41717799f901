/* pagegraph.h - the module boxes, nodes and edges of the module view's
 * page data, shared by its two writers: tree_data.c (modules from
 * nn_module_stack) and graph_data.c (any view graph's clusters). A module's
 * graph holds its own nodes, one box per child module, one input node per
 * value made outside it and used inside, and one output node; a value used
 * across modules is drawn at their lowest common module between the boxes
 * holding its ends, and inside each box from an input or to the output. */
#ifndef EXDB_VIZ_PAGEGRAPH_H
#define EXDB_VIZ_PAGEGRAPH_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/strbuf.h"
#include "core/base/strmap.h"

enum { VZ_PG_OP, VZ_PG_CHILD, VZ_PG_IN, VZ_PG_OUT };

typedef struct vz_pgmod {
    const char *fqn;   /* "layers.3.attn@1"; "" for the root */
    const char *type;  /* tree_data.c: the class, NULL for a container never called */
    const char *label; /* graph_data.c: the cluster's label, plain text */
    const char *fill;  /* graph_data.c: the cluster's colour */
    uint32_t parent, depth, own, total;
    uint32_t box;  /* index of its child box in the parent's graph, VZ_NONE until made */
    uint32_t out;  /* index of its output node, VZ_NONE until needed */
    uint32_t nloc; /* nodes in its graph so far */
} vz_pgmod;

/* mod first: vz_groupby_module groups these by it. */
typedef struct vz_pgnode {
    uint32_t mod;
    uint8_t kind;  /* VZ_PG_* */
    uintptr_t ref; /* the writer's node (VZ_PG_OP, VZ_PG_IN) or the child module (VZ_PG_CHILD) */
} vz_pgnode;

typedef struct vz_pgedge {
    uint32_t mod, from, to, nvalues;
    uintptr_t first; /* the writer's payload of the first value carried (its label) */
    uint32_t value;  /* the last value carried (distinct values are counted) */
} vz_pgedge;

typedef struct vz_pagegraph {
    exdb_arena *arena;
    exdb_buf *tmp;
    int *oom;
    exdb_strmap keys; /* "im:v" (inputs), "m:a>b" (edges) -> index + 1 */
    vz_pgmod *mods;
    uint32_t nmods, cap_mods;
    vz_pgnode *nodes;
    uint32_t nnodes, cap_nodes;
    vz_pgedge *edges;
    uint32_t nedges, cap_edges;
} vz_pagegraph;

/* Keys live in arena; tmp is scratch text; out of memory sets *oom. */
void vz_pagegraph_init(vz_pagegraph *g, exdb_arena *arena, exdb_buf *tmp, int *oom);
void vz_pagegraph_free(vz_pagegraph *g);

/* Module m (parent: VZ_NONE for the root; depth, box, out and counts are
 * set here); its index, VZ_NONE on out of memory. */
uint32_t vz_pagegraph_add_mod(vz_pagegraph *g, vz_pgmod m);

/* A node of module m's graph; its index in that graph (VZ_NONE: out of memory). */
uint32_t vz_pagegraph_add_node(vz_pagegraph *g, uint32_t m, int kind, uintptr_t ref);

/* Module m's box in its parent's graph, made (with its parents') when first needed. */
void vz_pagegraph_need_box(vz_pagegraph *g, uint32_t m);

/* The input node of value `value` in module m, made with ref when new. */
uint32_t vz_pagegraph_input(vz_pagegraph *g, uint32_t m, uint32_t value, uintptr_t ref);

/* An edge from -> to in m's graph carrying value (one edge per pair,
 * counting the distinct values; first names the first). */
void vz_pagegraph_edge(vz_pagegraph *g, uint32_t m, uint32_t from, uint32_t to, uint32_t value,
                       uintptr_t first);

/* Value `value` (its input node's ref: in_ref) from node ru of module a to
 * node rv of module b, climbing the deeper side first, one module a step. */
void vz_pagegraph_link(vz_pagegraph *g, uint32_t a, uint32_t ru, uint32_t b, uint32_t rv,
                       uint32_t value, uintptr_t in_ref, uintptr_t first);

#endif
