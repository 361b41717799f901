/* sink.h - the SINK phase: _sink_params, placeholders sunk into get_attr nodes. */
#ifndef EXDB_USINK_H
#define EXDB_USINK_H

#include "core/unflatten/urun.h"

int exdb_sink_plan(exdb_urun *r, exdb_error *err);

int exdb_sink_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

#endif
