/* dispatch.h - the DISPATCH phase: _dispatch_modules, InterpreterModuleDispatcher. */
#ifndef EXDB_UDISPATCH_H
#define EXDB_UDISPATCH_H

#include "core/unflatten/urun.h"

int exdb_dispatch_plan(exdb_urun *r, exdb_error *err);

int exdb_dispatch_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

#endif
