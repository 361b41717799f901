/* step.c - gdb's stepping over unflatten events (see step.h). */
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"

int exdb_unflatten_run_until(exdb_unflatten *u, exdb_unflatten_pred pred, void *ctx,
                             exdb_error *err) {
    exdb_uevent ev;
    int rc;
    while ((rc = exdb_unflatten_step(u, &ev, err)) == 1)
        if (pred(ctx, u, &ev))
            return 1;
    return rc;
}

/* Stops once the frame stack is back to `depth` frames after an EXIT. */
static int back_to_depth(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev) {
    (void)u;
    uint32_t depth = *(const uint32_t *)ctx;
    return ev->kind != EXDB_EV_COPY && ev->kind != EXDB_EV_ENTER && ev->depth <= depth;
}

int exdb_unflatten_next(exdb_unflatten *u, exdb_error *err) {
    exdb_uevent ev;
    uint32_t depth = u->run->depth;
    int rc = exdb_unflatten_step(u, &ev, err);
    if (rc != 1 || ev.kind != EXDB_EV_ENTER)
        return rc;
    return exdb_unflatten_run_until(u, back_to_depth, &depth, err);
}

int exdb_unflatten_finish(exdb_unflatten *u, exdb_error *err) {
    uint32_t depth = u->run->depth;
    if (depth <= 1 || u->run->phase > EXDB_UPH_OUTER_OUTPUT)
        return exdb_unflatten_run(u, err) < 0 ? -1 : 0;
    depth--;
    return exdb_unflatten_run_until(u, back_to_depth, &depth, err);
}
