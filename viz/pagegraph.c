/* pagegraph.c - the module view page's boxes, nodes and edges (pagegraph.h). */
#include "viz/pagegraph.h"

#include <stdlib.h>

#include "core/base/mem.h"
#include "viz/view.h"

void vz_pagegraph_init(vz_pagegraph *g, exdb_arena *arena, exdb_buf *tmp, int *oom) {
    *g = (vz_pagegraph){.arena = arena, .tmp = tmp, .oom = oom};
    exdb_strmap_init(&g->keys, arena);
}

void vz_pagegraph_free(vz_pagegraph *g) {
    free(g->mods);
    free(g->nodes);
    free(g->edges);
}

/* Room for item n of *p (exdb_grow when it is full). */
static int grow(void **p, uint32_t *cap, uint32_t n, size_t size) {
    if (n < *cap)
        return 0;
    void *np = exdb_grow(*p, cap, size, 256);
    if (!np)
        return -1;
    *p = np;
    return 0;
}

uint32_t vz_pagegraph_add_mod(vz_pagegraph *g, vz_pgmod m) {
    if (grow((void **)&g->mods, &g->cap_mods, g->nmods, sizeof *g->mods) < 0) {
        *g->oom = 1;
        return VZ_NONE;
    }
    m.depth = m.parent == VZ_NONE ? 0 : g->mods[m.parent].depth + 1;
    m.own = m.total = m.nloc = 0;
    m.box = m.out = VZ_NONE;
    g->mods[g->nmods] = m;
    return g->nmods++;
}

uint32_t vz_pagegraph_add_node(vz_pagegraph *g, uint32_t m, int kind, uintptr_t ref) {
    if (grow((void **)&g->nodes, &g->cap_nodes, g->nnodes, sizeof *g->nodes) < 0) {
        *g->oom = 1;
        return VZ_NONE;
    }
    g->nodes[g->nnodes++] = (vz_pgnode){.mod = m, .kind = (uint8_t)kind, .ref = ref};
    return g->mods[m].nloc++;
}

void vz_pagegraph_need_box(vz_pagegraph *g, uint32_t m) {
    if (m == 0 || g->mods[m].box != VZ_NONE)
        return;
    vz_pagegraph_need_box(g, g->mods[m].parent);
    g->mods[m].box = vz_pagegraph_add_node(g, g->mods[m].parent, VZ_PG_CHILD, m);
}

/* The index + 1 kept under fmt's key in keys (0: none); the slot to set. */
static void **key_slot(vz_pagegraph *g, const char *fmt, uint32_t m, uint32_t a, uint32_t b) {
    exdb_buf *t = g->tmp;
    exdb_buf_reset(t);
    exdb_buf_printf(t, fmt, m, a, b);
    void **slot = exdb_strmap_find(&g->keys, exdb_buf_str(t));
    if (slot)
        return slot;
    const char *key = exdb_arena_strndup(g->arena, exdb_buf_str(t), t->len);
    slot = key && !t->oom ? exdb_strmap_put(&g->keys, key, NULL) : NULL;
    if (!slot)
        *g->oom = 1;
    return slot;
}

void vz_pagegraph_edge(vz_pagegraph *g, uint32_t m, uint32_t from, uint32_t to, uint32_t value,
                       uintptr_t first) {
    if (from == VZ_NONE || to == VZ_NONE || from == to)
        return;
    void **slot = key_slot(g, "%u:%u>%u", m, from, to);
    if (!slot)
        return;
    if (*slot) {
        vz_pgedge *e = &g->edges[(uintptr_t)*slot - 1];
        if (e->value != value)
            e->nvalues++;
        e->value = value;
        return;
    }
    if (grow((void **)&g->edges, &g->cap_edges, g->nedges, sizeof *g->edges) < 0) {
        *g->oom = 1;
        return;
    }
    g->edges[g->nedges] = (vz_pgedge){m, from, to, 1, first, value};
    *slot = (void *)(uintptr_t)(++g->nedges);
}

uint32_t vz_pagegraph_input(vz_pagegraph *g, uint32_t m, uint32_t value, uintptr_t ref) {
    void **slot = key_slot(g, "i%u:%u", m, value, 0);
    if (!slot)
        return VZ_NONE;
    if (!*slot)
        *slot = (void *)(uintptr_t)(vz_pagegraph_add_node(g, m, VZ_PG_IN, ref) + 1);
    return (uint32_t)((uintptr_t)*slot - 1);
}

static uint32_t output_of(vz_pagegraph *g, uint32_t m) {
    if (g->mods[m].out == VZ_NONE)
        g->mods[m].out = vz_pagegraph_add_node(g, m, VZ_PG_OUT, 0);
    return g->mods[m].out;
}

void vz_pagegraph_link(vz_pagegraph *g, uint32_t a, uint32_t ru, uint32_t b, uint32_t rv,
                       uint32_t value, uintptr_t in_ref, uintptr_t first) {
    while (a != b && !*g->oom) {
        if (g->mods[a].depth >= g->mods[b].depth && a != 0) {
            vz_pagegraph_edge(g, a, ru, output_of(g, a), value, first);
            ru = g->mods[a].box;
            a = g->mods[a].parent;
        } else {
            vz_pagegraph_edge(g, b, vz_pagegraph_input(g, b, value, in_ref), rv, value, first);
            rv = g->mods[b].box;
            b = g->mods[b].parent;
        }
    }
    vz_pagegraph_edge(g, a, ru, rv, value, first);
}
