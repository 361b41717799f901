/* dotwrite.c - DOT text straight from a view graph, for big graphs.
 *
 * For the 100k-node synthetic program, building the cgraph graph, agwrite
 * and agclose took ~1.6 s (cgraph copies every string into its own
 * refcounted pool; agwrite checks each node and edge against the direct
 * subgraphs). This writer does one pass over the view graph's arrays and
 * writes the same graph: the same node names, edges, clusters and
 * attributes as emit.c declares, so agread gives the same counts (checked
 * in tests/unit/test_viz.c). Cluster nesting is written as nested blocks,
 * so it needs no grouping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/view.h"

/* A DOT double-quoted string. Texts are escStrings whose backslashes are
 * already doubled (vz_put_text), so only quotes need escaping. */
static void q(FILE *f, const char *s) {
    putc('"', f);
    for (;;) {
        size_t run = strcspn(s, "\"");
        fwrite(s, 1, run, f);
        s += run;
        if (!*s)
            break;
        fputs("\\\"", f);
        s++;
    }
    putc('"', f);
}

static void attr(FILE *f, int *first, const char *name, const char *v) {
    if (!v)
        return;
    fputs(*first ? " [" : ", ", f);
    *first = 0;
    fputs(name, f);
    putc('=', f);
    q(f, v);
}

static void end_attrs(FILE *f, int first) {
    fputs(first ? ";\n" : "];\n", f);
}

typedef struct writer {
    const vz_graph *vg;
    FILE *f;
    uint32_t *kid_start, *kids;   /* clusters by parent (CSR) */
    uint32_t *node_start, *nodes; /* nodes by cluster (CSR) */
    exdb_buf lab, tip;
} writer;

static void write_nodes(writer *w, uint32_t c) {
    FILE *f = w->f;
    for (uint32_t i = w->node_start[c]; i < w->node_start[c + 1]; i++) {
        const vz_node *n = &w->vg->nodes[w->nodes[i]];
        int first = 1;
        q(f, n->name);
        attr(f, &first, "id", n->name);
        vz_node_text(n, &w->lab, &w->tip);
        attr(f, &first, "label", w->lab.len ? exdb_buf_str(&w->lab) : NULL);
        attr(f, &first, "tooltip", w->tip.len ? exdb_buf_str(&w->tip) : NULL);
        attr(f, &first, "fillcolor", n->fill);
        attr(f, &first, "shape", n->shape);
        attr(f, &first, "style", n->style);
        end_attrs(f, first);
    }
    for (uint32_t i = w->node_start[c]; i < w->node_start[c + 1]; i++) {
        const vz_node *n = &w->vg->nodes[w->nodes[i]];
        if (!n->rank_with)
            continue;
        fprintf(f, "subgraph \"rank~%u\" {\nrank=same;\n", w->nodes[i]);
        q(f, n->name);
        fputs(";\n", f);
        q(f, w->vg->nodes[n->rank_with - 1].name);
        fputs(";\n}\n", f);
    }
}

/* One cluster block with its nodes and, recursively, its sub-clusters.
 * Every graph attribute is written so nothing is inherited from the
 * enclosing graph. */
static void write_cluster(writer *w, uint32_t c) {
    const vz_cluster *vc = &w->vg->clusters[c];
    FILE *f = w->f;
    fputs("subgraph ", f);
    q(f, vc->name);
    fputs(" {\ngraph", f);
    int first = 1;
    attr(f, &first, "label", vc->label ? vc->label : "");
    attr(f, &first, "tooltip", vc->tooltip ? vc->tooltip : vc->label ? vc->label : "");
    attr(f, &first, "fillcolor", vc->fill ? vc->fill : "");
    attr(f, &first, "style", "rounded,filled");
    attr(f, &first, "id", vc->name);
    end_attrs(f, first);
    write_nodes(w, c);
    for (uint32_t i = w->kid_start[c]; i < w->kid_start[c + 1]; i++)
        write_cluster(w, w->kids[i]);
    fputs("}\n", f);
}

/* Counting sort of items by key into start[0..nkeys] / out[]. */
static int csr(uint32_t nkeys, uint32_t n, uint32_t (*key)(const vz_graph *, uint32_t),
               const vz_graph *vg, uint32_t first, uint32_t *start, uint32_t *out) {
    memset(start, 0, ((size_t)nkeys + 1) * sizeof *start);
    for (uint32_t i = first; i < n; i++)
        start[key(vg, i) + 1]++;
    for (uint32_t k = 0; k < nkeys; k++)
        start[k + 1] += start[k];
    uint32_t *fill = calloc((size_t)nkeys + 1, sizeof *fill);
    if (!fill)
        return -1;
    for (uint32_t i = first; i < n; i++) {
        uint32_t k = key(vg, i);
        out[start[k] + fill[k]++] = i;
    }
    free(fill);
    return 0;
}

static uint32_t cluster_parent(const vz_graph *vg, uint32_t i) {
    return vg->clusters[i].parent;
}

static uint32_t node_cluster(const vz_graph *vg, uint32_t i) {
    return vg->nodes[i].cluster;
}

int vz_write_dot(const vz_graph *vg, FILE *f, exdb_viz_stats *st) {
    uint32_t nc = vg->nclusters;
    writer w = {.vg = vg, .f = f};
    exdb_buf_init(&w.lab);
    exdb_buf_init(&w.tip);
    w.kid_start = malloc(((size_t)nc + 1) * sizeof *w.kid_start);
    w.kids = malloc(((size_t)nc + 1) * sizeof *w.kids);
    w.node_start = malloc(((size_t)nc + 1) * sizeof *w.node_start);
    w.nodes = malloc(((size_t)vg->nnodes + 1) * sizeof *w.nodes);
    int rc = -1;
    if (!w.kid_start || !w.kids || !w.node_start || !w.nodes)
        goto out;
    if (csr(nc, nc, cluster_parent, vg, 1, w.kid_start, w.kids) < 0 ||
        csr(nc, vg->nnodes, node_cluster, vg, 0, w.node_start, w.nodes) < 0)
        goto out;

    fputs("digraph exdb {\n"
          "graph [fontname=Helvetica, fontsize=11, labeljust=l, rankdir=TB, label=\"\", "
          "tooltip=\"\", fillcolor=\"\", style=\"\", id=\"\"];\n"
          "node [fontname=Helvetica, fontsize=10, margin=\"0.06,0.03\", shape=box, "
          "style=\"rounded,filled\", fillcolor=white, label=\"\\N\", tooltip=\"\", id=\"\"];\n"
          "edge [fontname=Helvetica, fontsize=9, label=\"\", color=\"\", fontcolor=\"\", "
          "style=\"\", tooltip=\"\", minlen=1];\n",
          f);
    for (uint32_t i = w.kid_start[0]; i < w.kid_start[1]; i++)
        write_cluster(&w, w.kids[i]);
    write_nodes(&w, 0);
    for (uint32_t i = 0; i < vg->nedges; i++) {
        const vz_edge *e = &vg->edges[i];
        q(f, vg->nodes[e->from].name);
        fputs(" -> ", f);
        q(f, vg->nodes[e->to].name);
        int first = 1;
        attr(f, &first, "label", e->label);
        attr(f, &first, "color", e->color);
        attr(f, &first, "fontcolor", e->color);
        attr(f, &first, "style", e->style);
        attr(f, &first, "tooltip", e->tooltip);
        attr(f, &first, "minlen", e->minlen);
        end_attrs(f, first);
    }
    /* Root values last: an attribute set on a graph becomes the default of
     * subgraphs created after it, and the title is not theirs. */
    if (vg->title || vg->rankdir || vg->ordering || vg->newrank) {
        fputs("graph", f);
        int first = 1;
        attr(f, &first, "label", vg->title);
        attr(f, &first, "rankdir", vg->rankdir);
        attr(f, &first, "ordering", vg->ordering);
        attr(f, &first, "newrank", vg->newrank ? "true" : NULL);
        end_attrs(f, first);
    }
    fputs("}\n", f);
    rc = ferror(f) ? -1 : 0;
    if (st) {
        st->nodes = vg->nnodes;
        st->edges = vg->nedges;
        st->clusters = nc - 1;
        st->groups = 0;
    }
out:
    exdb_buf_free(&w.lab);
    exdb_buf_free(&w.tip);
    free(w.kid_start);
    free(w.kids);
    free(w.node_start);
    free(w.nodes);
    return rc;
}
