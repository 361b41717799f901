/* unodemap.h - flat-node -> node maps that remember insertion order (node_map,
 * node_to_placeholder). */
#ifndef EXDB_CORE_UNFLATTEN_UNODEMAP_H
#define EXDB_CORE_UNFLATTEN_UNODEMAP_H

#include "core/unflatten/urun.h"

exdb_node *exdb_unodemap_get(const exdb_unodemap *m, const exdb_node *k);

/* Room for n entries in all without growing again (an estimate from the
 * frame's span, exdb_outline's ENTER). 0, or -1 when memory is exhausted. */
int exdb_unodemap_reserve(exdb_urun *r, exdb_unodemap *m, uint32_t n);

int exdb_unodemap_put(exdb_urun *r, exdb_unodemap *m, exdb_node *k, exdb_node *v);

#endif
