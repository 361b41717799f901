/* state.h - the STATE phase: parameters, buffers and constants assigned (_assign_attr). */
#ifndef EXDB_CORE_UNFLATTEN_STATE_H
#define EXDB_CORE_UNFLATTEN_STATE_H

#include "core/unflatten/urun.h"

int exdb_state_assign(exdb_urun *r, exdb_error *err);

#endif
