/* phases.c - the unflatten pipeline's table (see phases.h), in the order of
 * UnflattenedModule.__init__ in torch/export/unflatten.py. */
#include "core/unflatten/phases.h"

#include <stddef.h>

#include "core/unflatten/attrs.h"
#include "core/unflatten/dedup.h"
#include "core/unflatten/dispatch.h"
#include "core/unflatten/ivals.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/rootlint.h"
#include "core/unflatten/sink.h"
#include "core/unflatten/state.h"

/* The phases' own signatures, in the table's one shape. */
static int ivals_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err) {
    (void)decision;
    return exdb_ivals_apply(r, w, err);
}

static int attrs_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err) {
    (void)decision;
    return exdb_attrs_apply(r, w, err);
}

static int sink_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err) {
    (void)decision;
    return exdb_sink_apply(r, w, err);
}

static int dispatch_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err) {
    (void)decision;
    return exdb_dispatch_apply(r, w, err);
}

#define OUTLINE(ph)                                                                                \
    { ph, -1, EXDB_UPH_IVALS, NULL, exdb_outline_step, NULL, NULL, NULL }

static const exdb_phase phases[] = {
    /* _ModuleFrame(...).run_outer(): the outliner steps its own three phases */
    OUTLINE(EXDB_UPH_OUTER_PLACEHOLDERS),
    OUTLINE(EXDB_UPH_BODY),
    OUTLINE(EXDB_UPH_OUTER_OUTPUT),
    /* reset_ivals / _IVals.update */
    {EXDB_UPH_IVALS, EXDB_EV_IVAL, EXDB_UPH_GRAPH_ATTRS, "IVAL", NULL, exdb_ivals_plan, ivals_apply,
     NULL},
    /* _copy_graph_attrs */
    {EXDB_UPH_GRAPH_ATTRS, EXDB_EV_ATTRS, EXDB_UPH_STATE, "ATTRS", NULL, exdb_attrs_plan,
     attrs_apply, NULL},
    /* _assign_attr of the state dict and constants */
    {EXDB_UPH_STATE, EXDB_EV_STATE, EXDB_UPH_SINK, "STATE", NULL, NULL, NULL, exdb_state_assign},
    /* _sink_params */
    {EXDB_UPH_SINK, EXDB_EV_SINK, EXDB_UPH_DEDUP, "SINK", NULL, exdb_sink_plan, sink_apply, NULL},
    /* _deduplicate_modules */
    {EXDB_UPH_DEDUP, EXDB_EV_DEDUP, EXDB_UPH_DISPATCH, "DEDUP", NULL, exdb_dedup_plan,
     exdb_dedup_apply, NULL},
    /* _dispatch_modules */
    {EXDB_UPH_DISPATCH, EXDB_EV_DISPATCH, EXDB_UPH_REORDER, "DISPATCH", NULL, exdb_dispatch_plan,
     dispatch_apply, NULL},
    /* _reorder_submodules */
    {EXDB_UPH_REORDER, EXDB_EV_REORDER, EXDB_UPH_FINAL, "REORDER", NULL, NULL, NULL,
     exdb_modtree_reorder_submodules},
    /* self.graph.lint() before finalize() */
    {EXDB_UPH_FINAL, EXDB_EV_DONE, EXDB_UPH_DONE, "DONE", NULL, NULL, NULL, exdb_rootlint},
    {EXDB_UPH_DONE, -1, EXDB_UPH_DONE, NULL, NULL, NULL, NULL, NULL},
};

_Static_assert(sizeof phases / sizeof *phases == EXDB_UPH_DONE + 1, "a row per phase");

const exdb_phase *exdb_phases_get(int phase) {
    return phase >= 0 && phase <= EXDB_UPH_DONE ? &phases[phase] : NULL;
}

int exdb_phases_of_event(int event) {
    for (size_t i = 0; i < sizeof phases / sizeof *phases; i++)
        if (phases[i].event == event && phases[i].plan)
            return phases[i].phase;
    return -1;
}
