/* finalize.h - InterpreterModule.finalize: the GraphModule a module's graph gets. */
#ifndef EXDB_CORE_UNFLATTEN_FINALIZE_H
#define EXDB_CORE_UNFLATTEN_FINALIZE_H

#include "core/unflatten/urun.h"

/* InterpreterModule.finalize's GraphModule, as m->gm */
int exdb_finalize(exdb_urun *r, exdb_umodule *m, exdb_error *err);

#endif
