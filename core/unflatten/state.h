/* state.h - the STATE phase: parameters, buffers and constants assigned (_assign_attr). */
#ifndef EXDB_USTATE_H
#define EXDB_USTATE_H

#include "core/unflatten/urun.h"

int exdb_state_assign(exdb_urun *r, exdb_error *err);

#endif
