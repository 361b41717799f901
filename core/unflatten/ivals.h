/* ivals.h - _IVals: intermediate values shared between calls of a module (IVAL events). */
#ifndef EXDB_CORE_UNFLATTEN_IVALS_H
#define EXDB_CORE_UNFLATTEN_IVALS_H

#include "core/unflatten/urun.h"

int exdb_ivals_read(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out, exdb_error *err);

int exdb_ivals_plan(exdb_urun *r, exdb_error *err);

int exdb_ivals_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

#endif
