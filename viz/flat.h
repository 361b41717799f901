/* flat.h - what flat.c defines for the other views. */
#ifndef EXDB_VIZ_FLAT_H
#define EXDB_VIZ_FLAT_H

#include "viz/view.h"

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

/* The source lines of n's stack trace as its tooltip ends with them
 * ("\nsource:\n  File ..., line N\n    code"), plain text (flat.c). */
void vz_fx_source(exdb_buf *b, const exdb_node *n);

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

/* The flat graph view. */
int vz_view_flat(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err);

#endif
