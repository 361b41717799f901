/* view.h - the view graph: what every view (flat, modules, and later the
 * unflatten views) produces and emit.c turns into cgraph. Keeping views out
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
    const char *fill;  /* fillcolor; NULL: white */
    const char *shape; /* NULL: box */
    const char *style; /* NULL: "rounded,filled" */
    uint32_t cluster;  /* index in clusters; 0 is the root graph */
    uint32_t order;    /* position in the program, to tell near from far uses */
    uint32_t copy_of;  /* VZ_NONE, or the node this is a dashed copy of */
    uint32_t ncopies;  /* copies made of this node so far */
    uint8_t dup_ok;    /* may be drawn once per far use when it has many */
    /* When label/tooltip are NULL and fx is set, they are made from the FX
     * node when written (vz_node_text): big views then store no text. */
    const exdb_node *fx;
    const char *kind_line; /* a second label line (placeholder kind), plain text */
    const char *kind_tip;  /* one more tooltip line (the state FQN), plain text */
    uint32_t rank_with;    /* index + 1 of a node of the same cluster to share a rank with
                            * (drawn as a rank=same subgraph), 0 = none */
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

/* Gives high-fan-out nodes one dashed copy per far use (see emit.c)
 * unless no_dup; records real and copied node counts in st. */
int vz_duplicate(vz_graph *vg, const exdb_viz_settings *set, int no_dup, exdb_viz_stats *st,
                 exdb_error *err);
/* Turns a view graph into cgraph, grouping sibling clusters (emit.c).
 * layout: the graph will be laid out (gvLayout), so it gets cgraph's
 * default disciplines; otherwise it is only written as DOT (vz_write) and
 * gets the cheap ones of cgdisc.c. Returns NULL with a message on error;
 * the caller vz_close()s the result. */
typedef struct Agraph_s Agraph_t;
Agraph_t *vz_emit(vz_graph *vg, int layout, exdb_viz_stats *st, exdb_error *err);
/* An empty directed graph with cgdisc.c's disciplines: its objects and
 * strings in an arena, names mapped by a hash map. count and bytes: how
 * many names it will hold and their summed length (an upper bound keeps
 * the names in one block, in creation order). NULL when out of memory. */
Agraph_t *vz_cg_open(const char *name, size_t count, size_t bytes);
/* Set: vz_cg_open gives cgraph's own disciplines (always so when the
 * Graphviz is not the one cgdisc.c was written against). The test that
 * proves the disciplines write the same graph as cgraph's own sets it. */
extern int vz_cg_plain;
/* agclose, then frees what vz_cg_open allocated (any graph). */
void vz_close(Agraph_t *g);
/* agwrite of a vz_cg_open graph: to f, or appended to b when f is NULL.
 * -1 on a write error or when out of memory. */
int vz_write(Agraph_t *g, FILE *f, exdb_buf *b);

/* Views. Each fills vg from the source; -1 with a message on error. */
int vz_view_flat(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);
int vz_view_modules(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                    exdb_error *err);
int vz_view_module(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                   exdb_error *err);
/* The module at fqn of u (a dispatcher's call "n@1" too) as `module FQN`
 * draws it, titled "module FQN: ..."; mark: a node drawn bold red, or NULL.
 * The frame view uses it for the later phases' events (umodule.c). */
struct exdb_unflatten;
int vz_view_umodule(vz_graph *vg, const struct exdb_unflatten *u, const char *fqn,
                    const exdb_node *mark, exdb_error *err);
int vz_view_tree(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);
/* The `tree` view cut to the subtree of the module at fqn ("" = root),
 * titled "title, N modules ...": what `module FQN` draws for a plain
 * torch.nn.Module, which has no graph of its own (tree.c). */
struct exdb_unflatten;
int vz_view_subtree(vz_graph *vg, const struct exdb_unflatten *u, const char *fqn,
                    const char *title, exdb_error *err);
int vz_view_frame(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                  exdb_error *err);
/* B's flat graph with A's removed nodes, coloured by src->diff (diff.c). */
int vz_view_diff(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);

/* Links every input of each node of g already drawn (vidx: FX node id ->
 * view node, VZ_NONE = not drawn) to its user; getitem edges get their
 * index as label (flat.c). */
void vz_link_graph(vz_graph *vg, const exdb_graph *g, const uint32_t *vidx);
/* Fill of an FX node by op: output, getitem, get_attr; NULL for others. */
const char *vz_op_fill(const exdb_node *n);
/* The graph's label from plain text. */
void vz_set_title(vz_graph *vg, const char *plain);

/* Append the label or tooltip of n (escString text), made from n->fx when
 * the view did not store them. tmp: scratch space the caller reuses from
 * node to node, so the texts of a big graph cost no mallocs. */
void vz_node_label_to(exdb_buf *b, const vz_node *n, exdb_buf *tmp);
void vz_node_tooltip_to(exdb_buf *b, const vz_node *n, exdb_buf *tmp);

/* s with <, > and & escaped, for HTML text (html.c). */
void vz_html_escape(FILE *f, const char *s);
/* Writes the HTML viewer page around an SVG document (html.c); title is
 * plain text. -1 when svg has no <svg> element or on a write error. */
int vz_write_html(FILE *f, const char *svg, size_t len, const char *title);
/* Writes Graphviz's SVG with text drawn at its exact size at any zoom
 * (html.c); whole: with the XML prolog (an .svg file), else only the
 * <svg> element. -1 when there is no <svg> element or on a write error. */
int vz_write_svg(FILE *f, const char *svg, size_t len, int whole);

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
/* FX node id -> VZ_HIDDEN_* for the EXDB_VIZ_HIDE_* bits in hide (inputs:
 * placeholder name -> input spec index + 1); counts[k]: how many of each.
 * NULL when out of memory; the caller frees it. */
uint8_t *vz_hidden_nodes(const exdb_program *p, const exdb_strmap *inputs, unsigned hide,
                         uint32_t counts[VZ_HIDDEN_KINDS]);
/* The node n = getitem(src, index) reads, or NULL when n is no getitem. */
const exdb_node *vz_getitem_source(const exdb_node *n, long long *index);
/* "; hidden: 161 parameters, 53 buffers" for the title (nothing when none). */
void vz_hidden_title(exdb_buf *b, const uint32_t counts[VZ_HIDDEN_KINDS]);
/* State nobody uses (a BatchNorm's num_batches_tracked) drawn on the rank
 * of the first node using its module's other state (rank_with), when that
 * node is in the same cluster. vidx, pos: FX node id -> view node and
 * program position. -1 when out of memory. */
int vz_place_unused_state(vz_graph *vg, const exdb_program *p, const uint32_t *vidx,
                          const uint32_t *pos);

/* Each placeholder with at most VZ_BESIDE_MAX_USERS users drawn on the
 * rank of its first user, beside it (rank_with; flat.c gives that edge
 * minlen=0), in the same cluster only. -1 when out of memory. */
#define VZ_BESIDE_MAX_USERS 8
int vz_place_inputs(vz_graph *vg, const exdb_graph *g, const uint32_t *vidx, const uint32_t *pos);

/* The source lines of n's stack trace as its tooltip ends with them
 * ("\nsource:\n  File ..., line N\n    code"), plain text (flat.c). */
void vz_fx_source(exdb_buf *b, const exdb_node *n);

/* ---- tree_data.c and html_tree.c: the module view you open and close */

typedef struct vz_tree_stats {
    uint32_t modules, nodes, edges;
} vz_tree_stats;
/* The page's data: the module list, each module call's own dataflow
 * graph and the source lines, as JSON in <script> elements (tree_data.c).
 * -1 with a message when out of memory. */
int vz_write_tree_data(FILE *f, const exdb_program *p, vz_tree_stats *st, exdb_error *err);
/* The whole page: the module tree collapsed below depth open_depth (>= 1;
 * 1: only the root open), modules opening in place on a click, search
 * opening the path to a match (html_tree.c). */
int vz_write_tree_html(FILE *f, const exdb_program *p, int open_depth, const char *title,
                       vz_tree_stats *st, exdb_error *err);

/* Shared styling of program nodes (flat.c). */
const char *vz_input_fill(exdb_input_kind k);
/* Maps each input spec's placeholder name to its index + 1 in inputs (an
 * exdb_strmap_init'ed map): what the views look placeholders up in. -1
 * when out of memory (the names that fit are mapped). */
int vz_index_inputs(exdb_strmap *inputs, const exdb_program *p);
/* Label for an FX node: name, short target, value; tooltip: the full node,
 * module path and the first stack-trace frame. */
void vz_fx_label(exdb_buf *b, const exdb_node *n, const char *kind_line);
void vz_fx_tooltip(exdb_buf *b, const exdb_node *n);
/* The deepest nn_module_stack entry with a non-empty path, or NULL. */
const exdb_stack_entry *vz_leaf_entry(const exdb_node *n);

#endif
