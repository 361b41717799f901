/* step.h - gdb's stepping over unflatten events, for the REPL (step, stepi,
 * next, finish, continue, until, advance and the reverse-* commands) and
 * the tests: one definition of when each of them stops.
 *
 * Forward, exdb_step_go applies events until the command's condition holds
 * (counted events, a breakpoint the caller's check reports, the command's
 * own location, the selected frame's exit, an interrupt, the end or an
 * error). Backward, the exdb_step_reverse_* functions find the event a
 * reverse command goes to in the log; exdb_unflatten_goto takes the run
 * there. */
#ifndef EXDB_CORE_UNFLATTEN_STEP_H
#define EXDB_CORE_UNFLATTEN_STEP_H

#include <signal.h>
#include <stdint.h>

#include "core/unflatten/unflatten.h"

typedef enum {
    EXDB_STEP_EVENTS, /* stepi N: after N events */
    EXDB_STEP_COPIES, /* step N: after N COPY events */
    EXDB_STEP_NEXT,   /* next N: N COPYs in this frame or an outer one; child frames run through */
    EXDB_STEP_FINISH, /* finish: when the frame at `depth` exits */
    EXDB_STEP_NEVER,  /* continue, run: only breakpoints, interrupts, the end or an error */
} exdb_step_mode;

typedef enum {
    EXDB_STOP_STEP,       /* the count ran out */
    EXDB_STOP_BREAKPOINT, /* check returned a breakpoint number */
    EXDB_STOP_LOCATION,   /* until/advance: the location (target, or check < 0) */
    EXDB_STOP_FRAME_EXIT, /* until/advance: the frame exited first */
    EXDB_STOP_INTERRUPT,  /* *interrupt was set */
    EXDB_STOP_END,        /* the run is complete */
    EXDB_STOP_ERROR,      /* an event failed */
} exdb_stop_reason;

typedef struct exdb_step {
    exdb_step_mode mode;
    uint32_t count;      /* events the mode counts before it stops (0: none) */
    uint32_t depth;      /* NEXT, FINISH: the frame stack depth they are about (0: current) */
    uint32_t exit_depth; /* until/advance: stop when a frame this deep exits (0: never) */
    uint32_t target;     /* until/advance K: stop after event K (0: none) */
    /* After each event: > 0 a breakpoint hit (its number), < 0 the command's
     * own location reached, 0 nothing. NULL: no breakpoints. */
    int (*check)(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev);
    /* After each event and its check, with whether the run stops there
     * (a trace prints every event, a REPL the one it stops at). */
    void (*observe)(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev, int stop);
    void *ctx;
    const volatile sig_atomic_t *interrupt; /* Ctrl-C's flag, or NULL */
    /* out */
    exdb_stop_reason reason;
    int bp;      /* the breakpoint that stopped the run, or 0 */
    int located; /* the location was reached */
    int exited;  /* the frame exited (until/advance) */
} exdb_step;

/* Runs events until s's condition holds. 1 stopped there, 0 the run is
 * complete, -1 an event failed (err; u->err). s->reason says why. */
int exdb_step_go(exdb_unflatten *u, exdb_step *s, exdb_error *err);

/* gdb's `next` (one COPY in this frame or an outer one, child frames run
 * through) and `finish` (until the innermost frame exits; after outlining,
 * to the end), without breakpoints. 1, 0 at the end, -1. */
int exdb_step_next(exdb_unflatten *u, exdb_error *err);
int exdb_step_finish(exdb_unflatten *u, exdb_error *err);

/* reverse-step N: the event after the N-th COPY before the current one is
 * undone, i.e. just after the (N+1)-th COPY back (0 when there are not that
 * many). */
uint32_t exdb_step_reverse_copies(const exdb_unflatten *u, uint32_t n);
/* reverse-next: back to the previous COPY in this frame or an outer one
 * (or the frame's ENTER), over the child frames that ran in between. */
uint32_t exdb_step_reverse_next(const exdb_unflatten *u);
/* reverse-finish: just before the frame `depth` frames deep was entered.
 * -1 in the outermost frame (or none). */
int exdb_step_reverse_finish(const exdb_unflatten *u, uint32_t depth, uint32_t *k);
/* reverse-continue: replays from where the run is (the caller has gone
 * to event 0 and armed its breakpoints) up to the event before `before`,
 * with s->check, and says the last event that hit a breakpoint (*last,
 * s->bp; 0 when none), or that s->interrupt stopped the search. observe
 * (when set) sees each hit. The run is left where the replay stopped: the
 * caller goes to *last. An event that fails ends the search (err). */
void exdb_step_reverse_continue(exdb_unflatten *u, uint32_t before, exdb_step *s, uint32_t *last,
                                exdb_error *err);

#endif
