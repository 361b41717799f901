/* subgplan.c - which subgraphs a view graph is drawn with, and in what
 * order: vz_emit makes them in cgraph from this plan, and dotwrite.c writes
 * them as DOT from it, so both agree by construction.
 *
 * agwrite tests every node and edge of a graph against each of its direct
 * subgraphs, so a parent holding thousands of sibling clusters (a
 * ModuleList of 1,000 layers) made DOT writing quadratic (108 s for 8,334
 * clusters). Siblings are therefore grouped under invisible (non-cluster)
 * subgraphs of at most GROUP_MAX each, which dot ignores for drawing, and
 * the root's clusters all go under one such group (see plan_clusters). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/subgplan.h"

#define GROUP_MAX 32

static uint32_t add(vz_plan *pl, uint32_t parent, uint32_t cluster, uint32_t rank, uint32_t group) {
    vz_subg e = {.parent = parent, .cluster = cluster, .rank = rank, .group = group};
    pl->s[pl->n] = e;
    if (cluster != VZ_NONE)
        pl->of_cluster[cluster] = pl->n;
    return pl->n++;
}

/* items[0..n) under parent (each a cluster, or a rank pair when ranks), at
 * most GROUP_MAX direct subgraphs per level: larger sets are split into
 * invisible groups, recursively, so each level stays small and agwrite
 * stays linear. */
static void place_grouped(vz_plan *pl, uint32_t parent, const uint32_t *items, uint32_t n,
                          int ranks) {
    if (n <= GROUP_MAX) {
        for (uint32_t i = 0; i < n; i++)
            add(pl, parent, ranks ? VZ_NONE : items[i], ranks ? items[i] : VZ_NONE, 0);
        return;
    }
    uint32_t per = (n + GROUP_MAX - 1) / GROUP_MAX;
    for (uint32_t at = 0; at < n; at += per) {
        uint32_t grp = add(pl, parent, VZ_NONE, VZ_NONE, ++pl->ngroups);
        place_grouped(pl, grp, items + at, n - at < per ? n - at : per, ranks);
    }
}

/* Every cluster, parents first (a cluster's parent has a smaller index),
 * each parent's children placed together. Every edge is the root's, and
 * agwrite tests each against each of the root's direct subgraphs (three
 * searches apiece): so the root of a graph written as DOT gets one, a group
 * holding its clusters (agwrite of the 100k synthetic program's --by-module
 * view: 1.15 s of CPU with 32 direct subgraphs, 0.90 s with one). Images
 * are left as they were: dot's drawing depends on subgraph order. */
static int plan_clusters(vz_plan *pl, const vz_graph *vg, int layout) {
    uint32_t nc = vg->nclusters;
    uint32_t *start = calloc((size_t)nc + 2, sizeof *start);
    uint32_t *kids = malloc(((size_t)nc + 1) * sizeof *kids);
    if (!start || !kids) {
        free(start);
        free(kids);
        return -1;
    }
    for (uint32_t c = 1; c < nc; c++)
        start[vg->clusters[c].parent + 2]++;
    for (uint32_t c = 0; c < nc; c++)
        start[c + 2] += start[c + 1];
    for (uint32_t c = 1; c < nc; c++) /* start[p + 1]: p's next free slot */
        kids[start[vg->clusters[c].parent + 1]++] = c;
    for (uint32_t p = 0; p < nc; p++) {
        uint32_t parent = pl->of_cluster[p], n = start[p + 1] - start[p];
        if (p == 0 && n > 1 && !layout)
            parent = add(pl, 0, VZ_NONE, VZ_NONE, ++pl->ngroups);
        place_grouped(pl, parent, kids + start[p], n, 0);
    }
    free(start);
    free(kids);
    return 0;
}

/* Every rank=same pair (vz_node.rank_with), in its node's cluster. Written
 * as DOT, a cluster's pairs are grouped (place_grouped): agwrite tests every
 * node and edge against each direct subgraph, and the flat view of the
 * 10k synthetic program has 3,017 pairs in its root (5.9 s to write; 100k
 * did not finish in 24 min). dot's rank sets are found inside non-cluster
 * subgraphs too. For a layout they stay as they were: dot's drawing
 * depends on subgraph order. */
static int plan_ranks(vz_plan *pl, const vz_graph *vg, int layout) {
    if (layout) {
        for (uint32_t i = 0; i < vg->nnodes; i++)
            if (vg->nodes[i].rank_with)
                add(pl, pl->of_cluster[vg->nodes[i].cluster], VZ_NONE, i, 0);
        return 0;
    }
    uint32_t nc = vg->nclusters;
    uint32_t *start = calloc((size_t)nc + 1, sizeof *start);
    uint32_t *idx = malloc(((size_t)vg->nnodes + 1) * sizeof *idx);
    if (!start || !idx) {
        free(start);
        free(idx);
        return -1;
    }
    for (uint32_t i = 0; i < vg->nnodes; i++)
        if (vg->nodes[i].rank_with)
            start[vg->nodes[i].cluster + 1]++;
    for (uint32_t c = 0; c < nc; c++)
        start[c + 1] += start[c];
    for (uint32_t i = 0; i < vg->nnodes; i++)
        if (vg->nodes[i].rank_with)
            idx[start[vg->nodes[i].cluster]++] = i;
    /* start[c] is now cluster c's end, and c's pairs begin at c-1's end */
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t from = c ? start[c - 1] : 0;
        if (start[c] > from)
            place_grouped(pl, pl->of_cluster[c], idx + from, start[c] - from, 1);
    }
    free(start);
    free(idx);
    return 0;
}

int vz_plan_make(vz_plan *pl, const vz_graph *vg, int layout) {
    memset(pl, 0, sizeof *pl);
    uint32_t nranks = 0;
    for (uint32_t i = 0; i < vg->nnodes; i++)
        nranks += vg->nodes[i].rank_with != 0;
    /* groups: fewer than the items grouped, plus the root's one */
    size_t cap = 2 * ((size_t)vg->nclusters + nranks) + 2;
    pl->s = malloc(cap * sizeof *pl->s);
    pl->of_cluster = malloc(((size_t)vg->nclusters + 1) * sizeof *pl->of_cluster);
    if (!pl->s || !pl->of_cluster) {
        vz_plan_free(pl);
        return -1;
    }
    add(pl, 0, 0, VZ_NONE, 0);
    int rc = plan_clusters(pl, vg, layout);
    pl->first_rank = pl->n;
    if (rc == 0)
        rc = plan_ranks(pl, vg, layout);
    if (rc < 0)
        vz_plan_free(pl);
    return rc;
}

void vz_plan_free(vz_plan *pl) {
    free(pl->s);
    free(pl->of_cluster);
    memset(pl, 0, sizeof *pl);
}

const char *vz_plan_name(const vz_plan *pl, const vz_graph *vg, uint32_t i, char buf[32]) {
    const vz_subg *e = &pl->s[i];
    if (e->cluster != VZ_NONE)
        return vg->clusters[e->cluster].name;
    if (e->rank != VZ_NONE)
        snprintf(buf, 32, "rank~%u", e->rank);
    else
        snprintf(buf, 32, "group~%u", e->group);
    return buf;
}
