/* ustrset.h - ordered sets of strings (seen_attrs values, _IVals names) in a run. */
#ifndef EXDB_CORE_UNFLATTEN_USTRSET_H
#define EXDB_CORE_UNFLATTEN_USTRSET_H

#include "core/unflatten/urun.h"

int exdb_ustrset_add(exdb_urun *r, exdb_ustrset *s, const char *item);

int exdb_ustrset_has(const exdb_ustrset *s, const char *item);

exdb_ustrset *exdb_ustrset_get(exdb_urun *r, exdb_ustrset ***arr, uint32_t *n, uint32_t *cap,
                               exdb_strmap *index, const char *key, int create);

#endif
