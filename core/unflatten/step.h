/* step.h - gdb's stepping over unflatten events: next, finish and
 * stepping until a condition holds, on top of exdb_unflatten_step. The
 * REPL's step/next/finish/until/advance and tests drive the run through
 * these. */
#ifndef EXDB_STEP_H
#define EXDB_STEP_H

#include "core/unflatten/unflatten.h"

/* Steps one event; when it is an ENTER, runs until that frame has exited
 * (gdb's `next`). */
int exdb_unflatten_next(exdb_unflatten *u, exdb_error *err);
/* Runs until the current frame exits (gdb's `finish`). */
int exdb_unflatten_finish(exdb_unflatten *u, exdb_error *err);
/* Steps until pred returns non-zero for the event just applied. */
typedef int (*exdb_unflatten_pred)(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev);
int exdb_unflatten_run_until(exdb_unflatten *u, exdb_unflatten_pred pred, void *ctx,
                             exdb_error *err);
#endif
