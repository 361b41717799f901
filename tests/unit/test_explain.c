/* test_explain.c - unflatten explaining itself (core/unflatten/explain.h):
 * what SINK recorded per placeholder, DEDUP's first difference (the one
 * dump definition dedup.c exposes), DISPATCH's calls, REORDER's moves, on
 * torch-made scenarios. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "core/export/program.h"
#include "core/unflatten/explain.h"
#include "core/unflatten/dedup.h"
#include "core/unflatten/unflatten.h"

#define CORPUS "tests/conformance/corpus/scenarios/"

static exdb_unflatten *run_to_end(const char *name, exdb_program **pp) {
    exdb_error e = {0};
    char path[512];
    snprintf(path, sizeof path, CORPUS "%s/program.pt2", name);
    *pp = exdb_program_load(path, NULL, &e);
    cr_assert(*pp, "%s", e.msg);
    exdb_unflatten *u = exdb_unflatten_new(*pp, &e);
    cr_assert(u, "%s", e.msg);
    cr_assert_eq(exdb_unflatten_run(u, &e), 0, "%s", e.msg);
    return u;
}

/* The first event of a kind, or NULL. */
static const exdb_uevent *first_event(const exdb_unflatten *u, int kind) {
    for (uint32_t k = 0; k < u->pos; k++)
        if (u->log[k].kind == kind)
            return &u->log[k];
    return NULL;
}

Test(explain, first_difference) {
    cr_expect_eq(exdb_dedup_first_difference("0: a\n1: b\n", "0: a\n1: b\n"), -1);
    cr_expect_eq(exdb_dedup_first_difference("0: a\n1: b\n", "0: a\n1: c\n"), 1);
    cr_expect_eq(exdb_dedup_first_difference("0: x\n", "0: a\n1: c\n"), 0);
    cr_expect_eq(exdb_dedup_first_difference("0: a\n", "0: a\n1: c\n"), 1);
}

/* The root passes its buffer into layers.0: kept there (outer owner),
 * sunk as a get_attr at the root. */
Test(explain, sink_kept_outer_owner) {
    exdb_program *p;
    exdb_unflatten *u = run_to_end("attr_as_submod_input__strict", &p);
    const exdb_sink_rec *recs;
    const exdb_uevent *ev = first_event(u, EXDB_EV_SINK);
    cr_assert(ev);
    int32_t n = exdb_explain_sink(u, ev, &recs);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(recs[0].placeholder, "b_const");
    cr_expect_eq(recs[0].outcome, EXDB_SINK_KEPT);
    cr_expect_eq(recs[0].reason, EXDB_SINK_OUTER);
    /* the root's SINK (the last) made it a get_attr */
    const exdb_uevent *root = NULL;
    for (uint32_t k = 0; k < u->pos; k++)
        if (u->log[k].kind == EXDB_EV_SINK)
            root = &u->log[k];
    cr_assert_eq(exdb_explain_sink(u, root, &recs), 1);
    cr_expect_eq(recs[0].outcome, EXDB_SINK_GET_ATTR);
    cr_expect_str_eq(recs[0].attr, "const");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_explain_state(&b, u, "b_const");
    cr_expect(strstr(exdb_buf_str(&b), "was not sunk into layers.0"));
    cr_expect(strstr(exdb_buf_str(&b), "used by %add in layers.0"));
    exdb_buf_free(&b);
    /* going back before the SINK events: no decisions to report */
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_goto(u, (uint32_t)(ev - u->log), &e), 0);
    cr_expect_eq(exdb_explain_sink(u, ev, &recs), -1);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* n's two calls differ in a constant: the refusal names add_3 and the
 * dump lines; p's calls merge. */
Test(explain, dedup_and_dispatch) {
    exdb_program *p;
    exdb_unflatten *u = run_to_end("multiple_graphs_shared_submodule_1__strict__preserve", &p);
    const exdb_uevent *ev = first_event(u, EXDB_EV_DEDUP);
    cr_assert(ev);
    exdb_dedup_why why;
    cr_assert_eq(exdb_explain_dedup(u, ev, &why), 0);
    cr_expect_eq(ev->aux, 0);
    cr_expect_eq(why.line, 6);
    cr_assert(why.node);
    cr_expect_str_eq(why.node->name, "add_3");
    cr_expect(why.this_line && strncmp(why.this_line, "6: call_function", 16) == 0);
    cr_expect(why.this_len > 0 && why.this_line[why.this_len] == '\n');
    cr_expect_eq(exdb_explain_dedup(u, ev + 1, &why), 0);
    cr_expect_eq(ev[1].aux, 2);
    cr_expect_str_eq(why.other->fqn, "n");
    exdb_dispatch_info di;
    const exdb_uevent *d = first_event(u, EXDB_EV_DISPATCH);
    cr_assert_eq(exdb_explain_dispatch(u, d, &di), 0);
    cr_expect_str_eq(di.base, "n");
    cr_expect_eq(di.ncalls, 2);
    cr_assert_eq(exdb_explain_dispatch(u, d + 2, &di), 0);
    cr_expect_eq(di.ncalls, 0);
    cr_expect_eq(di.nelided, 4);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* mod2 and mod3 are called before mod1: REORDER records the root's move. */
Test(explain, reorder_moves) {
    exdb_program *p;
    exdb_unflatten *u = run_to_end("submodule_ordering__strict", &p);
    const exdb_urun *r = u->run;
    cr_assert_eq(r->nreorder_moves, 1);
    cr_expect_str_eq(r->reorder_moves[0].parent, "");
    cr_expect_str_eq(r->reorder_moves[0].before[0], "mod1");
    cr_expect_str_eq(r->reorder_moves[0].after[0], "mod2");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_explain_summary(&b, u, first_event(u, EXDB_EV_REORDER));
    cr_expect_str_eq(exdb_buf_str(&b), ": children of 1 module reordered");
    exdb_buf_free(&b);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}
