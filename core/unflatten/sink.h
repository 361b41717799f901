/* sink.h - the SINK phase: _sink_params, placeholders sunk into get_attr nodes. */
#ifndef EXDB_CORE_UNFLATTEN_SINK_H
#define EXDB_CORE_UNFLATTEN_SINK_H

#include "core/unflatten/urun.h"

int exdb_sink_plan(exdb_urun *r, exdb_error *err);

int exdb_sink_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

/* What one SINK event did with a state placeholder of its module graph. */
typedef enum {
    EXDB_SINK_GET_ATTR, /* used: replaced by a get_attr of `attr`, then erased */
    EXDB_SINK_ERASED,   /* unused: erased, no get_attr */
    EXDB_SINK_KEPT,     /* none of its state names is in this scope: stays an input */
} exdb_sink_outcome;

/* Why a KEPT placeholder stayed an input (the state names' owners). */
typedef enum {
    EXDB_SINK_OUTER,  /* owned by an ancestor of the module: the owner passed it in */
    EXDB_SINK_OTHER,  /* owned by a module outside this one's subtree */
    EXDB_SINK_SHARED, /* several state names (one tensor), none in this scope */
} exdb_sink_reason;

typedef struct exdb_sink_rec {
    const char *placeholder;
    const char *state; /* the state name that matched, or (KEPT) its first state name */
    const char *attr;  /* GET_ATTR/ERASED: the path in the module (state minus the scope) */
    uint32_t nstates;  /* how many state names the placeholder has (> 1: tied) */
    uint8_t outcome;   /* exdb_sink_outcome */
    uint8_t reason;    /* KEPT: exdb_sink_reason */
} exdb_sink_rec;

/* The decisions of the SINK work item w, in placeholder order, once it was
 * applied: their count (*recs set), or -1 when it was not applied yet. */
int32_t exdb_sink_decisions(const exdb_urun *r, const exdb_uwork *w, const exdb_sink_rec **recs);

/* The length of the module path owning a state name: "a.b" of
 * "a.b.weight" (0: the root owns it). */
int exdb_sink_owner_len(const char *state);

#endif
