/* attrs.h - the ATTRS phase: a module's HOP subgraph attributes (_copy_graph_attrs). */
#ifndef EXDB_CORE_UNFLATTEN_ATTRS_H
#define EXDB_CORE_UNFLATTEN_ATTRS_H

#include "core/unflatten/urun.h"

/* One ATTRS event: _copy_graph_attrs for the module in w. */
int exdb_attrs_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

/* The ATTRS work list: one item per (child fqn, attribute) seen_attrs
 * recorded while outlining. */
int exdb_attrs_plan(exdb_urun *r, exdb_error *err);

#endif
