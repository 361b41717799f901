/* udict.h - an ordered name -> pointer dict with Python dict semantics (exdb_udict). */
#ifndef EXDB_CORE_UNFLATTEN_UDICT_H
#define EXDB_CORE_UNFLATTEN_UDICT_H

#include "core/unflatten/urun.h"

/* An empty dict whose index (when it grows one) lives in r's arena. 0. */
int exdb_udict_init(exdb_urun *r, exdb_udict *d);

void *exdb_udict_get(const exdb_udict *d, const char *key);

int exdb_udict_set(exdb_urun *r, exdb_udict *d, const char *key, void *val);

void *exdb_udict_pop(exdb_udict *d, const char *key);

#endif
