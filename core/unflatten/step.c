/* step.c - gdb's stepping over unflatten events (see step.h). The REPL's
 * commands and the tests go through these, so each stops where the other
 * does. */
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"

/* Whether the mode counts this event toward s->count. */
static int counted(const exdb_step *s, const exdb_uevent *ev) {
    switch (s->mode) {
    case EXDB_STEP_EVENTS:
        return 1;
    case EXDB_STEP_COPIES:
        return ev->kind == EXDB_EV_COPY;
    case EXDB_STEP_NEXT:
        return (ev->kind == EXDB_EV_COPY && ev->depth <= s->depth) || ev->depth < s->depth;
    case EXDB_STEP_FINISH:
        return ev->kind == EXDB_EV_EXIT && ev->depth < s->depth;
    case EXDB_STEP_NEVER:
        break;
    }
    return 0;
}

/* The stop conditions after one event, in the order the REPL reports
 * them: an interrupt, a breakpoint or the location, the frame's exit,
 * then the count. */
static int should_stop(exdb_unflatten *u, exdb_step *s, const exdb_uevent *ev) {
    int stop = 0;
    if (s->interrupt && *s->interrupt) {
        s->reason = EXDB_STOP_INTERRUPT;
        stop = 1;
    }
    int bp = s->check ? s->check(s->ctx, u, ev) : 0;
    s->bp = bp > 0 ? bp : 0;
    if (bp > 0 && !stop) {
        s->reason = EXDB_STOP_BREAKPOINT;
        stop = 1;
    }
    if (bp < 0 || (s->target && u->pos >= s->target)) {
        s->located = 1;
        if (!stop)
            s->reason = EXDB_STOP_LOCATION;
        stop = 1;
    } else if (s->exit_depth && ev->kind == EXDB_EV_EXIT && ev->depth < s->exit_depth) {
        s->exited = 1;
        if (!stop)
            s->reason = EXDB_STOP_FRAME_EXIT;
        stop = 1;
    }
    if (counted(s, ev) && s->count && --s->count == 0)
        stop = 1;
    return stop;
}

int exdb_step_go(exdb_unflatten *u, exdb_step *s, exdb_error *err) {
    if (!s->depth)
        s->depth = exdb_unflatten_depth(u);
    if (s->mode == EXDB_STEP_NEXT && s->depth == 0)
        s->depth = 1; /* before the root frame exists, next is step */
    s->reason = EXDB_STOP_STEP;
    s->bp = s->located = s->exited = 0;
    exdb_uevent ev;
    int rc;
    while ((rc = exdb_unflatten_step(u, &ev, err)) == 1) {
        int stop = should_stop(u, s, &ev);
        if (s->observe)
            s->observe(s->ctx, u, &ev, stop);
        if (stop)
            return 1;
    }
    s->reason = rc == 0 ? EXDB_STOP_END : EXDB_STOP_ERROR;
    return rc;
}

int exdb_step_next(exdb_unflatten *u, exdb_error *err) {
    exdb_step s = {.mode = EXDB_STEP_NEXT, .count = 1};
    return exdb_step_go(u, &s, err);
}

int exdb_step_finish(exdb_unflatten *u, exdb_error *err) {
    exdb_step s = {.mode = EXDB_STEP_FINISH, .count = 1};
    return exdb_step_go(u, &s, err);
}

uint32_t exdb_step_reverse_copies(const exdb_unflatten *u, uint32_t n) {
    uint32_t k = u->pos;
    for (uint32_t i = 0; i < n && k > 0; i++) {
        k--;
        while (k > 0 && u->log[k - 1].kind != EXDB_EV_COPY)
            k--;
    }
    return k;
}

uint32_t exdb_step_reverse_next(const exdb_unflatten *u) {
    uint32_t k = u->pos;
    if (k == 0)
        return 0;
    uint32_t depth = u->log[k - 1].depth;
    k--;
    while (k > 0) {
        const exdb_uevent *e = &u->log[k - 1];
        if ((e->kind == EXDB_EV_COPY && e->depth <= depth) || e->depth < depth ||
            (e->kind == EXDB_EV_ENTER && e->depth == depth))
            break;
        k--;
    }
    return k;
}

int exdb_step_reverse_finish(const exdb_unflatten *u, uint32_t depth, uint32_t *k) {
    if (depth <= 1 || depth > exdb_unflatten_depth(u))
        return -1;
    uint32_t index = exdb_unflatten_frame(u, depth - 1)->index;
    uint32_t at = u->pos;
    while (at > 0 &&
           !(u->log[at - 1].kind == EXDB_EV_ENTER && u->log[at - 1].frame == (int32_t)index))
        at--;
    *k = at ? at - 1 : 0;
    return 0;
}

void exdb_step_reverse_continue(exdb_unflatten *u, uint32_t before, exdb_step *s, uint32_t *last,
                                exdb_error *err) {
    *last = 0;
    int last_bp = 0;
    s->reason = EXDB_STOP_STEP;
    exdb_uevent ev;
    while (u->pos + 1 < before) {
        if (s->interrupt && *s->interrupt) {
            s->reason = EXDB_STOP_INTERRUPT;
            break;
        }
        /* the run reached `before` once, so the replay does too; an
         * event that fails now ends the search where it is */
        if (exdb_unflatten_step(u, &ev, err) != 1)
            break;
        int bp = s->check ? s->check(s->ctx, u, &ev) : 0;
        if (bp > 0) {
            *last = u->pos;
            last_bp = bp;
            if (s->observe)
                s->observe(s->ctx, u, &ev, 1);
        }
    }
    s->bp = last_bp;
    if (s->reason != EXDB_STOP_INTERRUPT)
        s->reason = last_bp ? EXDB_STOP_BREAKPOINT : EXDB_STOP_END;
}
