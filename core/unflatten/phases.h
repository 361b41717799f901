/* phases.h - the unflatten pipeline as a table: UnflattenedModule.__init__'s
 * steps in order, each with the event kind it logs and how it runs (the
 * outliner's own stepping, a work list planned then applied one item per
 * event, or one event). The driver (unflatten.c) steps through it; the
 * printers and the REPL read the event kinds and names from it. */
#ifndef EXDB_CORE_UNFLATTEN_PHASES_H
#define EXDB_CORE_UNFLATTEN_PHASES_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/unflatten/urun.h"

typedef struct exdb_phase {
    uint8_t phase;    /* exdb_uphase, the row's index */
    int8_t event;     /* the kind of its events; -1: outlining (COPY, ENTER, EXIT) */
    uint8_t next;     /* the phase after it */
    const char *name; /* as `list` names what is ahead: "SINK"; NULL for outlining */
    /* outlining: one event (1), 0 when outlining is finished, -1 */
    int (*step)(exdb_urun *r, exdb_uevent *ev, exdb_error *err);
    /* work-list phases: the list (r->work), then one item per event
     * (decision: DEDUP's, in the event's aux) */
    int (*plan)(exdb_urun *r, exdb_error *err);
    int (*apply)(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err);
    /* single-event phases */
    int (*once)(exdb_urun *r, exdb_error *err);
} exdb_phase;

/* The row of phase (an exdb_uphase). */
const exdb_phase *exdb_phases_get(int phase);
/* The work-list phase whose events have kind `event`, or -1. */
int exdb_phases_of_event(int event);

#endif
