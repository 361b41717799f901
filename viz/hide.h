/* hide.h - what hide.c defines for the other views. */
#ifndef EXDB_VIZ_HIDE_H
#define EXDB_VIZ_HIDE_H

#include "viz/view.h"

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

int vz_place_inputs(vz_graph *vg, const exdb_graph *g, const uint32_t *vidx, const uint32_t *pos);

#endif
