/* explain.h - unflatten explaining itself: what each later-phase decision
 * did and why, in torch's terms (torch/export/unflatten.py: _sink_params,
 * _deduplicate_modules, _dispatch_modules, _reorder_submodules), and the
 * errors a run stops at with the facts of the program behind them and the
 * fix a user can apply.
 *
 * Three depths: a summary that ends an event's one-line description
 * (describe.c), the event's detail lines (`info event K`), and the prose
 * of `explain` (the decision, torch's rule, the chain of facts, the fix).
 * Nothing here allocates in the run's arena: describing never changes the
 * run. */
#ifndef EXDB_CORE_UNFLATTEN_EXPLAIN_H
#define EXDB_CORE_UNFLATTEN_EXPLAIN_H

#include <stdint.h>

#include "core/base/strbuf.h"
#include "core/unflatten/dedup.h"
#include "core/unflatten/dispatch.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/sink.h"
#include "core/unflatten/unflatten.h"

/* The compact tail of a later-phase event's line (" : 2 get_attr, 1 kept
 * as input"); nothing for the other kinds or an event not applied. */
void exdb_explain_summary(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev);

/* The event's detail lines, each indented two spaces and ended by a
 * newline; nothing when there is no detail. */
void exdb_explain_detail(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev);

/* The decisions of a SINK event (exdb_sink_decisions): count and *recs, -1
 * for another kind or an event not applied in the current run. */
int32_t exdb_explain_sink(const exdb_unflatten *u, const exdb_uevent *ev,
                          const exdb_sink_rec **recs);
/* A DEDUP event's comparison (exdb_dedup_explain). 0, or -1. */
int exdb_explain_dedup(const exdb_unflatten *u, const exdb_uevent *ev, exdb_dedup_why *why);
/* A DISPATCH event's subject (exdb_dispatch_describe). 0, or -1. */
int exdb_explain_dispatch(const exdb_unflatten *u, const exdb_uevent *ev, exdb_dispatch_info *out);

/* `explain K`: event k (1..u->pos) in words: the decision, torch's rule,
 * the facts behind it and, where the program is the cause, the fix. */
void exdb_explain_event(exdb_buf *b, const exdb_unflatten *u, uint32_t k);

/* `explain` after an error: the error in words with its facts and fix.
 * 0, or -1 when the run did not stop at an error. */
int exdb_explain_error(exdb_buf *b, const exdb_unflatten *u);

/* `explain NAME`: what the run's SINK events did with a state name or a
 * state placeholder (where it became a get_attr, where it stayed an input
 * and why). 0, or -1 when NAME is neither (nothing written). */
int exdb_explain_state(exdb_buf *b, const exdb_unflatten *u, const char *name);

#endif
