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

/* The text goes into out; with a FILE it is written out every FLUSH_AT
 * bytes. Appending to a buffer instead of a stdio stream saves the
 * per-call locking of fputs/putc and, for exdb_viz_dot, one copy of the
 * whole text (68 MB for the 100k synthetic program's flat view). */
#define FLUSH_AT (1 << 16)

typedef struct writer {
    const vz_graph *vg;
    exdb_buf *out;
    FILE *f; /* NULL: out is the caller's buffer, kept whole */
    int write_error;
    uint32_t *kid_start, *kids;   /* clusters by parent (CSR) */
    uint32_t *node_start, *nodes; /* nodes by cluster (CSR) */
    exdb_buf tmp;                 /* scratch for node texts */
    char **tips;                  /* hub index -> its tooltip, shared by its copies */
} writer;

static void flush(writer *w) {
    if (!w->f || !w->out->len)
        return;
    if (fwrite(w->out->s, 1, w->out->len, w->f) != w->out->len)
        w->write_error = 1;
    exdb_buf_reset(w->out);
}

/* A DOT double-quoted string. Texts are escStrings whose backslashes are
 * already doubled (vz_put_text), so only quotes need escaping. */
static void q(exdb_buf *b, const char *s) {
    exdb_buf_putc(b, '"');
    vz_put_quoted(b, s);
    exdb_buf_putc(b, '"');
}

/* name="v" with v already escaped for a quoted string. */
static void attr_raw(exdb_buf *b, int *first, const char *name, const char *v) {
    exdb_buf_puts(b, *first ? " [" : ", ");
    *first = 0;
    exdb_buf_puts(b, name);
    exdb_buf_puts(b, "=\"");
    exdb_buf_puts(b, v);
    exdb_buf_putc(b, '"');
}

static void attr(exdb_buf *b, int *first, const char *name, const char *v) {
    if (!v)
        return;
    exdb_buf_puts(b, *first ? " [" : ", ");
    *first = 0;
    exdb_buf_puts(b, name);
    exdb_buf_putc(b, '=');
    q(b, v);
}

/* A node's label or tooltip, escaped while it is made, straight into the
 * output; left out when empty (the attribute's default then applies, as
 * when emit.c sets nothing). */
static void text_attr(writer *w, int *first, const char *name, const vz_node *n,
                      void (*make)(exdb_buf *, const vz_node *, int, exdb_buf *)) {
    exdb_buf *b = w->out;
    size_t mark = b->len;
    exdb_buf_puts(b, *first ? " [" : ", ");
    exdb_buf_puts(b, name);
    exdb_buf_puts(b, "=\"");
    size_t body = b->len;
    make(b, n, 1, &w->tmp);
    if (b->len == body) {
        if (!b->oom) {
            b->len = mark;
            b->s[mark] = '\0';
        }
        return;
    }
    exdb_buf_putc(b, '"');
    *first = 0;
}

/* The tooltip of n. A hub's dashed copies (emit.c) show the same FX node
 * as the hub, so its tooltip is made once and kept: the output node of the
 * 100k synthetic program has 1,785 copies, each formatting the 1,786-value
 * return tuple before the 1,500-byte cut took a quarter of the writing. */
static void tooltip_attr(writer *w, int *first, const vz_node *n, uint32_t i) {
    uint32_t hub = n->copy_of != VZ_NONE ? n->copy_of : n->ncopies ? i : VZ_NONE;
    if (hub == VZ_NONE || !w->tips) {
        text_attr(w, first, "tooltip", n, vz_node_tooltip_to);
        return;
    }
    exdb_buf *b = w->out;
    if (w->tips[hub]) {
        if (w->tips[hub][0])
            attr_raw(b, first, "tooltip", w->tips[hub]);
        return;
    }
    size_t at = b->len;
    text_attr(w, first, "tooltip", n, vz_node_tooltip_to);
    /* the text between the opening and the closing quote, or "" */
    const char *open = b->len > at ? memchr(b->s + at, '"', b->len - at) : NULL;
    size_t len = open ? (size_t)(b->s + b->len - 1 - (open + 1)) : 0;
    w->tips[hub] = malloc(len + 1);
    if (w->tips[hub]) {
        memcpy(w->tips[hub], open ? open + 1 : "", len);
        w->tips[hub][len] = '\0';
    }
}

static void end_attrs(exdb_buf *b, int first) {
    exdb_buf_puts(b, first ? ";\n" : "];\n");
}

static void write_nodes(writer *w, uint32_t c) {
    exdb_buf *b = w->out;
    for (uint32_t i = w->node_start[c]; i < w->node_start[c + 1]; i++) {
        const vz_node *n = &w->vg->nodes[w->nodes[i]];
        int first = 1;
        q(b, n->name);
        attr(b, &first, "id", n->name);
        text_attr(w, &first, "label", n, vz_node_label_to);
        tooltip_attr(w, &first, n, w->nodes[i]);
        attr(b, &first, "fillcolor", n->fill);
        attr(b, &first, "shape", n->shape);
        attr(b, &first, "style", n->style);
        end_attrs(b, first);
        if (b->len >= FLUSH_AT)
            flush(w);
    }
    for (uint32_t i = w->node_start[c]; i < w->node_start[c + 1]; i++) {
        const vz_node *n = &w->vg->nodes[w->nodes[i]];
        if (!n->rank_with)
            continue;
        exdb_buf_printf(b, "subgraph \"rank~%u\" {\nrank=same;\n", w->nodes[i]);
        q(b, n->name);
        exdb_buf_puts(b, ";\n");
        q(b, w->vg->nodes[n->rank_with - 1].name);
        exdb_buf_puts(b, ";\n}\n");
        if (b->len >= FLUSH_AT)
            flush(w);
    }
}

/* One cluster block with its nodes and, recursively, its sub-clusters.
 * Every graph attribute is written so nothing is inherited from the
 * enclosing graph. */
static void write_cluster(writer *w, uint32_t c) {
    const vz_cluster *vc = &w->vg->clusters[c];
    exdb_buf *b = w->out;
    exdb_buf_puts(b, "subgraph ");
    q(b, vc->name);
    exdb_buf_puts(b, " {\ngraph");
    int first = 1;
    attr(b, &first, "label", vc->label ? vc->label : "");
    attr(b, &first, "tooltip", vc->tooltip ? vc->tooltip : vc->label ? vc->label : "");
    attr(b, &first, "fillcolor", vc->fill ? vc->fill : "");
    attr(b, &first, "style", "rounded,filled");
    attr(b, &first, "id", vc->name);
    end_attrs(b, first);
    write_nodes(w, c);
    for (uint32_t i = w->kid_start[c]; i < w->kid_start[c + 1]; i++)
        write_cluster(w, w->kids[i]);
    exdb_buf_puts(b, "}\n");
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

/* Writes the whole graph through w (out and f set by the caller). */
static int write_graph(writer *w, exdb_viz_stats *st) {
    const vz_graph *vg = w->vg;
    exdb_buf *b = w->out;
    uint32_t nc = vg->nclusters;
    exdb_buf_init(&w->tmp);
    w->kid_start = malloc(((size_t)nc + 1) * sizeof *w->kid_start);
    w->kids = malloc(((size_t)nc + 1) * sizeof *w->kids);
    w->node_start = malloc(((size_t)nc + 1) * sizeof *w->node_start);
    w->nodes = malloc(((size_t)vg->nnodes + 1) * sizeof *w->nodes);
    w->tips = calloc((size_t)vg->nnodes + 1, sizeof *w->tips);
    int rc = -1;
    if (!w->kid_start || !w->kids || !w->node_start || !w->nodes || !w->tips)
        goto out;
    if (csr(nc, nc, cluster_parent, vg, 1, w->kid_start, w->kids) < 0 ||
        csr(nc, vg->nnodes, node_cluster, vg, 0, w->node_start, w->nodes) < 0)
        goto out;

    exdb_buf_puts(b,
                  "digraph exdb {\n"
                  "graph [fontname=Helvetica, fontsize=11, labeljust=l, rankdir=TB, label=\"\", "
                  "tooltip=\"\", fillcolor=\"\", style=\"\", id=\"\"];\n"
                  "node [fontname=Helvetica, fontsize=10, margin=\"0.06,0.03\", shape=box, "
                  "style=\"rounded,filled\", fillcolor=white, label=\"\\N\", tooltip=\"\", "
                  "id=\"\"];\n"
                  "edge [fontname=Helvetica, fontsize=9, label=\"\", color=\"\", fontcolor=\"\", "
                  "style=\"\", tooltip=\"\", minlen=1];\n");
    for (uint32_t i = w->kid_start[0]; i < w->kid_start[1]; i++)
        write_cluster(w, w->kids[i]);
    write_nodes(w, 0);
    for (uint32_t i = 0; i < vg->nedges; i++) {
        const vz_edge *e = &vg->edges[i];
        q(b, vg->nodes[e->from].name);
        exdb_buf_puts(b, " -> ");
        q(b, vg->nodes[e->to].name);
        int first = 1;
        attr(b, &first, "label", e->label);
        attr(b, &first, "color", e->color);
        attr(b, &first, "fontcolor", e->color);
        attr(b, &first, "style", e->style);
        attr(b, &first, "tooltip", e->tooltip);
        attr(b, &first, "minlen", e->minlen);
        end_attrs(b, first);
        if (b->len >= FLUSH_AT)
            flush(w);
    }
    /* Root values last: an attribute set on a graph becomes the default of
     * subgraphs created after it, and the title is not theirs. */
    if (vg->title || vg->rankdir || vg->ordering || vg->newrank) {
        exdb_buf_puts(b, "graph");
        int first = 1;
        attr(b, &first, "label", vg->title);
        attr(b, &first, "rankdir", vg->rankdir);
        attr(b, &first, "ordering", vg->ordering);
        attr(b, &first, "newrank", vg->newrank ? "true" : NULL);
        end_attrs(b, first);
    }
    exdb_buf_puts(b, "}\n");
    flush(w);
    rc = b->oom || w->write_error ? -1 : 0;
    if (st) {
        st->nodes = vg->nnodes;
        st->edges = vg->nedges;
        st->clusters = nc - 1;
        st->groups = 0;
    }
out:
    for (uint32_t i = 0; w->tips && i < vg->nnodes; i++)
        free(w->tips[i]);
    free(w->tips);
    exdb_buf_free(&w->tmp);
    free(w->kid_start);
    free(w->kids);
    free(w->node_start);
    free(w->nodes);
    return rc;
}

int vz_write_dot(const vz_graph *vg, FILE *f, exdb_viz_stats *st) {
    exdb_buf b;
    exdb_buf_init(&b);
    writer w = {.vg = vg, .out = &b, .f = f};
    int rc = write_graph(&w, st);
    exdb_buf_free(&b);
    return rc < 0 || ferror(f) ? -1 : 0;
}

int vz_write_dot_buf(const vz_graph *vg, exdb_buf *b, exdb_viz_stats *st) {
    writer w = {.vg = vg, .out = b};
    return write_graph(&w, st);
}
