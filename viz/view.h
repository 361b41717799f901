/* view.h - the view graph: what every view (flat, modules, and later the
 * unflatten views) produces, dotwrite.c writes as DOT and emit.c turns into
 * cgraph for a layout. Keeping views out
 * of cgraph lets one place decide how big graphs are drawn (duplicated
 * high-fan-out nodes, grouped sibling clusters) and lets tests check a view
 * without Graphviz. Internal to viz/. */
#ifndef EXDB_VIZ_VIEW_H
#define EXDB_VIZ_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "core/base/arena.h"
#include "core/base/strbuf.h"
#include "core/base/strmap.h"
#include "viz/render.h"

#define VZ_NONE UINT32_MAX

/* Text fields are DOT escString values: "\n" (backslash, n) separates lines
 * and backslashes in user text are already doubled (vz_put_text). NULL
 * means the attribute's default. */
typedef struct vz_node {
    const char *name; /* the cgraph node name, also the SVG id: the FX name */
    const char *label, *tooltip;
    const char *fill;   /* fillcolor; NULL: white */
    const char *shape;  /* NULL: box */
    const char *style;  /* NULL: "rounded,filled" */
    uint32_t cluster;   /* index in clusters; 0 is the root graph */
    uint32_t order;     /* position in the program, to tell near from far uses */
    uint32_t copy_of;   /* VZ_NONE, or the node this is a dashed copy of */
    uint32_t ncopies;   /* copies made of this node so far */
    uint8_t dup_ok;     /* may be drawn once per far use when it has many */
    uint32_t rank_with; /* index + 1 of a node of the same cluster to share a rank with
                         * (drawn as a rank=same subgraph), 0 = none */
    /* When label/tooltip are NULL and fx is set, they are made from the FX
     * node when written (vz_node_text): big views then store no text. */
    const exdb_node *fx;
    const char *kind_line; /* a second label line (placeholder kind), plain text */
    const char *kind_tip;  /* one more tooltip line (the state FQN), plain text */
    /* A box standing for a run of modules (tree.c): their paths, comma-separated
     * (the HTML page's search and panel; not drawn in DOT), or NULL. */
    const char *members;
} vz_node;

typedef struct vz_edge {
    uint32_t from, to;
    const char *label, *color, *style, *tooltip;
    const char *minlen; /* dot's minlen ("0": both ends may share a rank), or NULL */
} vz_edge;

typedef struct vz_cluster {
    const char *name; /* "cluster_<fqn>"; the subgraph name and SVG id */
    const char *label, *tooltip, *fill;
    uint32_t parent; /* 0 = the root graph; always a smaller index */
} vz_cluster;

typedef struct vz_graph {
    exdb_arena arena; /* every string of the view */
    vz_node *nodes;
    uint32_t nnodes, cap_nodes;
    vz_edge *edges;
    uint32_t nedges, cap_edges;
    vz_cluster *clusters; /* clusters[0] is the root graph */
    uint32_t nclusters, cap_clusters;
    exdb_strmap names;    /* node and cluster name -> (uintptr_t)index + 1 */
    const char *title;    /* the graph's label, or NULL */
    const char *rankdir;  /* NULL: top to bottom */
    const char *ordering; /* dot's ordering ("out": children in the order added), or NULL */
    int newrank;          /* dot: rank globally, not cluster by cluster (see flat.c) */
    int oom;
} vz_graph;

int vz_init(vz_graph *vg);
void vz_free(vz_graph *vg);

/* Adds a node (fields copied from *n; name must be unique and arena-owned
 * or static). Returns its index, VZ_NONE when out of memory or taken. */
uint32_t vz_add_node(vz_graph *vg, const vz_node *n);
uint32_t vz_add_edge(vz_graph *vg, const vz_edge *e);
/* Room for nodes more nodes and edges more edges, allocated at once: the
 * doublings of a big view copy it into fresh pages each time (half of
 * building the 100k synthetic program's flat view). -1 when out of memory. */
int vz_reserve(vz_graph *vg, uint32_t nodes, uint32_t edges);
/* Adds a cluster under parent; name made unique with ~N. */
uint32_t vz_add_cluster(vz_graph *vg, const char *name, uint32_t parent);
/* The node called name, or VZ_NONE. */
uint32_t vz_find(const vz_graph *vg, const char *name);
/* A node name not yet taken: base, else base~2, base~3... */
const char *vz_unique_name(vz_graph *vg, const char *base);

/* Copies text into the arena (NULL when b is empty and empty_null). */
const char *vz_str(vz_graph *vg, const exdb_buf *b);
/* Appends user text for an escString: backslashes doubled, newlines as \n
 * (or \l with left), at most max bytes (then "..."; 0 = no limit). */
void vz_put_text(exdb_buf *b, const char *s, size_t max, int left);
/* Appends a line break (\n) to a label under construction. */
void vz_put_nl(exdb_buf *b);

/* Turns a view graph into cgraph, grouping sibling clusters (emit.c).
 * layout: the graph will be laid out (gvLayout), so it gets cgraph's
 * default disciplines; otherwise it is only written as DOT (vz_write) and
 * gets the cheap ones of cgdisc.c. Returns NULL with a message on error;
 * the caller vz_close()s the result. */
typedef struct Agraph_s Agraph_t;
/* Set: vz_cg_open gives cgraph's own disciplines (always so when the
 * Graphviz is not the one cgdisc.c was written against). The test that
 * proves the disciplines write the same graph as cgraph's own sets it. */
extern int vz_cg_plain;

/* Views: each view file's header (flat.h, modules.h, ...) declares its
 * vz_view_*, which fills vg from the source; -1 with a message on error. */

/* ---- hide.c: `render flat --hide` and unused state */

/* Why a node is hidden (0: drawn). */
enum {
    VZ_HIDDEN_PARAM = 1,
    VZ_HIDDEN_BUFFER,
    VZ_HIDDEN_CONSTANT,
    VZ_HIDDEN_GETITEM,
    VZ_HIDDEN_DEAD,
    VZ_HIDDEN_KINDS
};

/* Each placeholder with at most VZ_BESIDE_MAX_USERS users drawn on the
 * rank of its first user, beside it (rank_with; flat.c gives that edge
 * minlen=0), in the same cluster only. -1 when out of memory. */
#define VZ_BESIDE_MAX_USERS 8

/* ---- tree_data.c and html_tree.c: the module view you open and close */

typedef struct vz_tree_stats {
    uint32_t modules, nodes, edges;
} vz_tree_stats;

#endif
