/* udict.h - an ordered name -> pointer dict with Python dict semantics (exdb_udict). */
#ifndef EXDB_CORE_UNFLATTEN_UDICT_H
#define EXDB_CORE_UNFLATTEN_UDICT_H

#include "core/unflatten/urun.h"

/* An empty dict whose index (when it grows one) lives in r's arena. 0. */
int exdb_udict_init(exdb_urun *r, exdb_udict *d);

/* Room for n slots in all (keys ever set, popped ones included) without
 * growing: a dict whose size is known is made once, leaving no outgrown
 * copies in the arena. 0, or -1 when out of memory. */
int exdb_udict_reserve(exdb_urun *r, exdb_udict *d, uint32_t n);

void *exdb_udict_get(const exdb_udict *d, const char *key);

int exdb_udict_set(exdb_urun *r, exdb_udict *d, const char *key, void *val);

void *exdb_udict_pop(exdb_udict *d, const char *key);

/* fn(ctx, value) for each live value whose key is a call name of item[0..
 * len) (_is_call_name: item, item@1, item@7, ... and any of them followed
 * by one newline), in dict order; the first non-zero return of fn is
 * returned. An indexed dict finds them without a scan (dicts holding
 * thousands of keys, a ModuleList, are asked once per state target). */
int exdb_udict_each_call(const exdb_udict *d, const char *item, size_t len,
                         int (*fn)(void *ctx, void *val), void *ctx);

#endif
