/* dedup.h - the DEDUP phase: _deduplicate_modules, calls compared and merged. */
#ifndef EXDB_UDEDUP_H
#define EXDB_UDEDUP_H

#include "core/unflatten/urun.h"

int exdb_dedup_plan(exdb_urun *r, exdb_error *err);

int exdb_dedup_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err);

#endif
