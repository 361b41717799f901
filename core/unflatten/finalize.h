/* finalize.h - InterpreterModule.finalize: the GraphModule a module's graph gets. */
#ifndef EXDB_CORE_UNFLATTEN_FINALIZE_H
#define EXDB_CORE_UNFLATTEN_FINALIZE_H

#include "core/unflatten/urun.h"

/* InterpreterModule.finalize's GraphModule, as m->gm */
int exdb_finalize(exdb_urun *r, exdb_umodule *m, exdb_error *err);

/* The copy named atom[0..len) under v (a GraphModule finalize made, or one
 * of its fresh nn.Modules), or NULL. O(1) for a graph with many targets. */
exdb_ugm *exdb_finalize_child(const exdb_ugm *v, const char *atom, size_t len);

#endif
