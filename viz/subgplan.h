/* subgplan.h - what subgplan.c defines for the other views. */
#ifndef EXDB_VIZ_SUBGPLAN_H
#define EXDB_VIZ_SUBGPLAN_H

#include "viz/view.h"

/* One subgraph of a view graph drawn by Graphviz: a cluster, an invisible
 * group of sibling clusters or rank sets (group~N), or a rank=same pair
 * (rank~I). */
typedef struct vz_subg {
    uint32_t parent;  /* plan index of the enclosing subgraph; 0 is the root graph */
    uint32_t cluster; /* the cluster drawn, or VZ_NONE */
    uint32_t rank;    /* rank~I: node I and its rank_with partner, or VZ_NONE */
    uint32_t group;   /* group~N: N, or 0 */
} vz_subg;

/* Every subgraph in the order vz_emit makes them, which is the order
 * agwrite lists a graph's subgraphs in (a parent before its children). */
typedef struct vz_plan {
    vz_subg *s;           /* s[0] is the root graph */
    uint32_t n;           /* entries */
    uint32_t first_rank;  /* entries from here on are made after the nodes */
    uint32_t *of_cluster; /* cluster index -> plan index */
    uint32_t ngroups;
} vz_plan;

/* Plans the subgraphs of vg: clusters (siblings grouped by at most
 * GROUP_MAX), then rank pairs. layout: for gvLayout (rank pairs ungrouped,
 * root clusters not under one group), else for DOT text. -1 when out of
 * memory. */
int vz_plan_make(vz_plan *pl, const vz_graph *vg, int layout);
void vz_plan_free(vz_plan *pl);

/* Entry i's name: its cluster's, else written into buf. */
const char *vz_plan_name(const vz_plan *pl, const vz_graph *vg, uint32_t i, char buf[32]);

#endif
