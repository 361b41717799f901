/* test_dce.c - eliminate_dead_code and is_impure on the fixtures of
 * tests/fixtures/dce (test/fx/test_dce_pass.py and test_fx.py cases, see
 * tests/fixtures/lint/gen_fixtures.py), dry runs, and undo. */
#include <criterion/criterion.h>

#include <string.h>

#include "core/export/program.h"
#include "core/fx/dce.h"
#include "core/fx/print.h"

static exdb_program *load(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    return p;
}

/* The removed node names, in removal order, joined with spaces. */
static void removed(const exdb_dce_log *log, char *out, size_t cap) {
    out[0] = '\0';
    for (uint32_t i = 0; i < log->n; i++) {
        strncat(out, i ? " " : "", cap - strlen(out) - 1);
        strncat(out, log->items[i].node->name, cap - strlen(out) - 1);
    }
}

static char *graph_text(const exdb_graph *g) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_print_graph(&b, g);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* test_simple, test_dead_chain (a dead chain goes in one reverse pass),
 * test_dead_placeholder(_with_user): placeholders stay. */
Test(dce, dead_pure_nodes) {
    exdb_program *p = load("tests/fixtures/dce/dead_pure.json");
    char *before = graph_text(p->graph);
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    exdb_dce_opts dry = {1, 1, NULL, NULL};
    cr_assert_eq(exdb_dce_run(p->graph, &dry, &log, &err), 3, "%s", err.msg);
    char names[512];
    removed(&log, names, sizeof names);
    cr_assert_str_eq(names, "add_1 mul add");
    char *after_dry = graph_text(p->graph);
    cr_assert_str_eq(after_dry, before, "a dry run changes nothing");
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 3);
    removed(&log, names, sizeof names);
    cr_assert_str_eq(names, "add_1 mul add");
    cr_assert_not_null(exdb_graph_find(p->graph, "y"), "an unused placeholder stays");
    cr_assert_null(exdb_graph_find(p->graph, "mul"));
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 0, "nothing left to remove");
    exdb_dce_log_free(&log);
    free(before);
    free(after_dry);
    exdb_program_free(p);
}

/* test_impure_nodes_args (add_.Tensor), test_impure_kwargs (add.out),
 * test_delete_unused_values (copy_), test_impure_random (rand),
 * test_keep_torch_assert (_assert_scalar, _assert_async.msg),
 * sym_constrain_range_for_size, test_profiler_ranges_side_effect: all kept;
 * only the dead sin goes. */
Test(dce, impure_nodes_kept) {
    exdb_program *p = load("tests/fixtures/dce/impure.json");
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 1, "%s", err.msg);
    cr_assert_str_eq(log.items[0].node->name, "sin");
    static const char *const kept[] = {"add_", "add", "copy_", "rand", "enter", NULL};
    for (int i = 0; kept[i]; i++)
        cr_assert_not_null(exdb_graph_find(p->graph, kept[i]), "%s", kept[i]);
    int asserts = 0, exits = 0;
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        asserts += strstr(n->target, "_assert") != NULL;
        exits += strstr(n->target, "_record_function_exit") != NULL;
    }
    cr_assert_eq(asserts, 2);
    cr_assert_eq(exits, 1);
    /* with impure_random = 0 rand is pure (and dead) */
    exdb_dce_opts o = {0, 0, NULL, NULL};
    cr_assert_eq(exdb_dce_run(p->graph, &o, &log, &err), 1);
    cr_assert_str_eq(log.items[0].node->name, "rand");
    exdb_dce_log_free(&log);
    exdb_program_free(p);
}

Test(dce, impure_reasons_by_name) {
    exdb_graph *g;
    exdb_arena a;
    exdb_arena_init(&a);
    g = exdb_graph_new(&a);
    struct {
        const char *target;
        exdb_target_kind k;
        const char *reason;
    } cases[] = {
        {"torch.ops.aten.add_.Tensor", EXDB_T_OP, "mutates its inputs (in-place overload)"},
        {"torch.ops.aten.__iand__.Tensor", EXDB_T_OP, "mutates its inputs (in-place overload)"},
        {"torch.ops.aten.__and__.Tensor", EXDB_T_OP, NULL},
        {"torch.ops.aten.add.out", EXDB_T_OP, "mutates its inputs (out= overload)"},
        {"torch.ops.aten.max.dim_max", EXDB_T_OP, "mutates its inputs (out= overload)"},
        {"torch.ops.aten._native_batch_norm_legit.default", EXDB_T_OP, "mutates its inputs"},
        {"torch.ops.aten._native_batch_norm_legit_no_training.default", EXDB_T_OP, NULL},
        {"torch.ops.aten.sym_constrain_range.default", EXDB_T_OP, "side-effectful function"},
        {"torch.ops.profiler._record_function_enter", EXDB_T_OP, "side-effectful function"},
        /* torch 2.13's is_impure: False for these two (not in
         * _side_effectful_functions, no effect registered), True for the rest */
        {"torch.ops.aten._assert_async.default", EXDB_T_OP, NULL},
        {"torch.ops.profiler._record_function_exit.default", EXDB_T_OP, NULL},
        {"torch.ops.aten._assert_async", EXDB_T_OP, NULL},
        {"torch.ops.profiler._record_function_exit", EXDB_T_OP, "side-effectful function"},
        {"torch.ops.profiler._record_function_exit._RecordFunction", EXDB_T_OP,
         "side-effectful function"},
        {"torch.ops.aten._assert_scalar", EXDB_T_OP, "side-effectful function"},
        {"torch.ops.aten.sym_constrain_range", EXDB_T_OP, "side-effectful function"},
        {"torch.ops.aten._print.default", EXDB_T_OP, "side-effectful function"},
        {"torch.ops.aten._print", EXDB_T_OP, "side-effectful function"},
        {"torch.ops.aten.bernoulli.p", EXDB_T_OP, "random op"},
        {"torch.ops.aten.native_dropout.default", EXDB_T_OP, "random op"},
        {"torch.ops._c10d_functional.wait_tensor.default", EXDB_T_OP, "side-effectful function"},
        {"operator.setitem", EXDB_T_PYFN, "side-effectful function"},
        {"operator.getitem", EXDB_T_PYFN, NULL},
        {"torch._assert", EXDB_T_PYFN, "side-effectful function"},
        {"torch.randn", EXDB_T_PYFN, "random op"},
        {"torch.ops.higher_order.cond", EXDB_T_HOP, NULL},
        {"torch.ops.higher_order.with_effects", EXDB_T_HOP, "effectful higher-order op"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        exdb_node *n = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, cases[i].target, cases[i].k,
                                              NULL, NULL, NULL);
        cr_assert_not_null(n);
        const char *r = exdb_node_impure_reason(n, 1);
        if (cases[i].reason)
            cr_assert(r && strcmp(r, cases[i].reason) == 0, "%s: %s", cases[i].target,
                      r ? r : "pure");
        else
            cr_assert_null(r, "%s: %s", cases[i].target, r);
    }
    exdb_node *ph =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, "x", EXDB_T_STR, NULL, NULL, NULL);
    cr_assert_str_eq(exdb_node_impure_reason(ph, 1), "placeholder");
    exdb_arena_destroy(&a);
}

/* Dead getitems of multi-output ops: max.dim keeps its op (values are used)
 * and loses the indices getitem; var_mean loses both getitems, then the op
 * itself in the same pass. */
Test(dce, dead_getitems) {
    exdb_program *p = load("tests/fixtures/dce/getitems.json");
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    cr_assert_eq(exdb_dce_run(p->graph, NULL, &log, &err), 4, "%s", err.msg);
    char names[512];
    removed(&log, names, sizeof names);
    cr_assert_str_eq(names, "var_mean_2 var_mean_1 var_mean_correction max_2");
    cr_assert_not_null(exdb_graph_find(p->graph, "max_dim"));
    cr_assert_not_null(exdb_graph_find(p->graph, "max_1"));
    exdb_dce_log_free(&log);
    exdb_program_free(p);
}

/* undo puts every node back where it was, with the users in their order:
 * the printed graph is identical. It refuses once the graph changed. */
Test(dce, undo_restores) {
    static const char *const files[] = {"tests/fixtures/dce/dead_pure.json",
                                        "tests/fixtures/dce/getitems.json",
                                        "tests/fixtures/example.json", NULL};
    for (int i = 0; files[i]; i++) {
        exdb_program *p = load(files[i]);
        char *before = graph_text(p->graph);
        exdb_dce_log log;
        exdb_dce_log_init(&log);
        exdb_error err = {0};
        cr_assert_gt(exdb_dce_run(p->graph, NULL, &log, &err), 0, "%s", files[i]);
        char *mid = graph_text(p->graph);
        cr_assert_str_neq(mid, before);
        cr_assert_eq(exdb_dce_undo(&log, &err), 0, "%s", err.msg);
        char *after = graph_text(p->graph);
        cr_assert_str_eq(after, before, "%s", files[i]);
        cr_assert_eq(exdb_dce_undo(&log, &err), -1, "a second undo has nothing to do");
        free(before);
        free(mid);
        free(after);
        exdb_dce_log_free(&log);
        exdb_program_free(p);
    }
    exdb_program *p = load("tests/fixtures/dce/dead_pure.json");
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    exdb_dce_run(p->graph, NULL, &log, &err);
    exdb_graph_insert_append(p->graph);
    cr_assert_not_null(
        exdb_graph_create_node(p->graph, EXDB_OP_PLACEHOLDER, "z", EXDB_T_STR, NULL, NULL, NULL));
    cr_assert_eq(exdb_dce_undo(&log, &err), -1);
    cr_assert_str_eq(err.msg, "The graph changed since the last dce; cannot undo it.");
    exdb_dce_log_free(&log);
    exdb_program_free(p);
}

static int impure_sub(void *ctx, const char *target) {
    (void)ctx;
    return strcmp(target, "sub") == 0;
}

/* is_impure of auto_functionalized: whether the op it wraps (its first
 * argument) is in _side_effectful_functions; call_module: the owning
 * module's _is_impure (here: sub's); a graph that does not lint is refused
 * untouched, as eliminate_dead_code's lint() does. */
Test(dce, wrapped_ops_impure_modules_and_unlinted_graphs) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a);
    exdb_node *x =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, "x", EXDB_T_STR, NULL, NULL, NULL);
    exdb_arg af1, af2, xa;
    cr_assert_eq(exdb_arg_seq(&a, EXDB_ARG_TUPLE, 1, &af1), 0);
    cr_assert_eq(exdb_arg_seq(&a, EXDB_ARG_TUPLE, 1, &af2), 0);
    cr_assert_eq(exdb_arg_seq(&a, EXDB_ARG_TUPLE, 1, &xa), 0);
    af1.u.items[0] =
        (exdb_arg){.kind = EXDB_ARG_OPERATOR, .u.s = "torch.ops.aten.sym_constrain_range.default"};
    af2.u.items[0] = (exdb_arg){.kind = EXDB_ARG_OPERATOR, .u.s = "torch.ops.aten.add_.Tensor"};
    xa.u.items[0] = (exdb_arg){.kind = EXDB_ARG_NODE, .u.node = x};
    exdb_node *k = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION,
                                          "torch.ops.higher_order.auto_functionalized", EXDB_T_HOP,
                                          &af1, NULL, "kept");
    exdb_node *d = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION,
                                          "torch.ops.higher_order.auto_functionalized", EXDB_T_HOP,
                                          &af2, NULL, "dropped");
    cr_assert_not_null(k);
    cr_assert_not_null(d);
    cr_assert_str_eq(exdb_node_impure_reason(k, 1), "side-effectful function");
    cr_assert_null(exdb_node_impure_reason(d, 1));
    cr_assert_not_null(
        exdb_graph_create_node(g, EXDB_OP_CALL_MODULE, "sub", EXDB_T_STR, &xa, NULL, "sub"));
    cr_assert_not_null(
        exdb_graph_create_node(g, EXDB_OP_CALL_MODULE, "other", EXDB_T_STR, &xa, NULL, "other"));
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    exdb_dce_opts o = {1, 1, impure_sub, NULL};
    cr_assert_eq(exdb_dce_run(g, &o, &log, &err), 2, "%s", err.msg);
    char names[256];
    removed(&log, names, sizeof names);
    cr_assert_str_eq(names, "other dropped");
    /* a node that uses one defined after it: lint fails, dce refuses */
    exdb_node *late = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.neg.default",
                                             EXDB_T_OP, &xa, NULL, "late");
    exdb_arg la;
    cr_assert_eq(exdb_arg_seq(&a, EXDB_ARG_TUPLE, 1, &la), 0);
    la.u.items[0] = (exdb_arg){.kind = EXDB_ARG_NODE, .u.node = late};
    exdb_graph_insert_before(g, late);
    cr_assert_not_null(exdb_graph_create_node(
        g, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.neg.default", EXDB_T_OP, &la, NULL, "early"));
    exdb_graph_insert_append(g);
    memset(&err, 0, sizeof err);
    cr_assert_eq(exdb_dce_run(g, NULL, &log, &err), -1);
    cr_assert(strncmp(err.msg, "dce: the graph does not lint: ", 30) == 0, "%s", err.msg);
    cr_assert_not_null(exdb_graph_find(g, "early"), "nothing removed");
    exdb_dce_log_free(&log);
    exdb_arena_destroy(&a);
}
