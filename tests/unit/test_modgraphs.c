/* test_modgraphs.c - Graph.lint() and eliminate_dead_code() on the graphs of
 * an unflattened module tree (core/unflatten/modgraphs.h): FX's own lint cases
 * (docs/unflatten-notes.md §2.1) moved into module graphs, where the owning
 * module makes FX check get_attr/call_module targets; higher-order op
 * subgraphs, flat and per module; module dce with FX's recursion into
 * GraphModule children; and every module graph of every real program. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/program.h"
#include "core/unflatten/modgraphs.h"
#include "core/unflatten/preflight.h"
#include "core/fx/print.h"
#include "testutil.h"
#include "core/unflatten/unflatten.h"

#define EXAMPLE "tests/fixtures/example.json"
#define COND    "tests/fixtures/unflatten/cond.json"

typedef struct tree {
    exdb_program *p;
    exdb_unflatten *u;
    exdb_modgraphs gs;
    exdb_lint_report r;
} tree;

/* Loads path, unflattens it to the end, collects the graphs of fqn (NULL:
 * every module). */
static void tree_open(tree *t, const char *path, const char *fqn) {
    exdb_error err = {0};
    memset(t, 0, sizeof *t);
    t->p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(t->p, "%s: %s", path, err.msg);
    t->u = exdb_unflatten_new(t->p, &err);
    cr_assert_not_null(t->u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(t->u, &err), 0, "%s", err.msg);
    exdb_modgraphs_init(&t->gs);
    cr_assert_eq(exdb_modgraphs_collect(&t->gs, t->u, fqn, &err), 0, "%s", err.msg);
    exdb_lint_report_init(&t->r);
}

static void tree_close(tree *t) {
    exdb_lint_report_free(&t->r);
    exdb_modgraphs_free(&t->gs);
    exdb_unflatten_free(t->u);
    exdb_program_free(t->p);
}

static uint32_t lint_all(tree *t) {
    uint32_t errors = 0;
    for (uint32_t i = 0; i < t->gs.n; i++)
        errors += exdb_modgraph_lint(&t->r, t->u, &t->gs.items[i]);
    return errors;
}

static exdb_graph *graph_of(tree *t, const char *fqn) {
    exdb_umodule *m = exdb_unflatten_module(t->u, fqn);
    cr_assert_not_null(m, "no module %s", fqn);
    cr_assert_not_null(m->graph, "module %s has no graph", fqn);
    return m->graph;
}

/* A node inserted before g's output (args: one node or none). */
static exdb_node *add_before_output(exdb_graph *g, exdb_op op, const char *target,
                                    exdb_target_kind tk, exdb_node *arg, const char *name) {
    exdb_arg args;
    cr_assert_eq(exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, arg ? 1 : 0, &args), 0);
    if (arg)
        args.u.items[0] = exdb_arg_node(arg);
    exdb_graph_insert_before(g, exdb_graph_output(g));
    exdb_node *n = exdb_graph_create_node(g, op, target, tk, &args, NULL, name);
    exdb_graph_insert_append(g);
    cr_assert_not_null(n);
    return n;
}

static const exdb_finding *only_finding(const exdb_lint_report *r, const char *check) {
    cr_assert_eq(r->n, 1, "want 1 finding, got %u (first: %s)", r->n, r->n ? r->items[0].what : "");
    cr_assert_str_eq(r->items[0].check, check);
    return &r->items[0];
}

/* The unflattened example lints clean, and every module with a graph is
 * there once: the root and 25 InterpreterModules (each layer's act@1 was
 * deduplicated into act). */
Test(modgraphs, example_clean) {
    tree t;
    tree_open(&t, EXAMPLE, NULL);
    cr_expect_eq(t.gs.n, 26, "graphs: %u", t.gs.n);
    cr_expect_str_eq(t.gs.items[0].module, "");
    cr_expect_null(t.gs.items[0].subgraph);
    cr_expect_eq(lint_all(&t), 0);
    cr_expect_eq(t.r.n, 0);
    tree_close(&t);
}

/* A get_attr whose target the module lacks: pass 2 of Graph.lint with the
 * InterpreterModule as owning module (a LayerNorm has weight and bias, no
 * running_mean); its existing get_attrs (weight, bias) pass. */
Test(modgraphs, get_attr_missing) {
    tree t;
    tree_open(&t, EXAMPLE, "encoder.norm");
    cr_assert_eq(t.gs.n, 1);
    add_before_output(graph_of(&t, "encoder.norm"), EXDB_OP_GET_ATTR, "running_mean", EXDB_T_STR,
                      NULL, "running_mean");
    cr_assert_eq(lint_all(&t), 1);
    const exdb_finding *f = only_finding(&t.r, "fx.target-missing");
    cr_expect_str_eq(f->what,
                     "Node running_mean target running_mean references nonexistent attribute "
                     "running_mean of ");
    cr_expect_str_eq(f->node, "running_mean");
    cr_expect_str_eq(f->module, "encoder.norm");
    cr_expect_null(f->graph);
    /* below a tensor attribute nothing exists either */
    exdb_lint_report_free(&t.r);
    exdb_lint_report_init(&t.r);
    exdb_graph *g = graph_of(&t, "encoder.norm");
    exdb_node *bad = exdb_graph_find(g, "running_mean");
    cr_assert_eq(exdb_graph_erase_node(g, bad, NULL), 0);
    add_before_output(g, EXDB_OP_GET_ATTR, "weight.zzz", EXDB_T_STR, NULL, "weight_zzz");
    lint_all(&t);
    cr_expect_str_eq(only_finding(&t.r, "fx.target-missing")->what,
                     "Node weight_zzz target weight.zzz references nonexistent attribute zzz of "
                     "weight");
    tree_close(&t);
}

/* A call_module to a missing submodule, and one whose target is a
 * parameter: FX's two pass-2 messages, on the root UnflattenedModule. */
Test(modgraphs, call_module_missing) {
    tree t;
    tree_open(&t, EXAMPLE, "");
    exdb_graph *root = graph_of(&t, "");
    exdb_node *x = exdb_graph_find(root, "x");
    add_before_output(root, EXDB_OP_CALL_MODULE, "encoder.missing", EXDB_T_STR, x, "missing");
    add_before_output(root, EXDB_OP_CALL_MODULE, "encoder.norm.weight", EXDB_T_STR, x, "notmod");
    add_before_output(root, EXDB_OP_CALL_MODULE, "encoder.norm", EXDB_T_STR, x, "fine");
    cr_assert_eq(lint_all(&t), 2);
    cr_assert_eq(t.r.n, 2);
    cr_expect_str_eq(t.r.items[0].check, "fx.target-missing");
    cr_expect_str_eq(t.r.items[0].what,
                     "Node missing target encoder.missing references nonexistent attribute missing "
                     "of encoder");
    cr_expect_str_eq(t.r.items[1].check, "fx.target-not-module");
    cr_expect_str_eq(t.r.items[1].what, "Node notmod target encoder.norm.weight weight of "
                                        "encoder.norm does not reference an nn.Module");
    cr_expect_str_eq(t.r.items[1].module, "");
    tree_close(&t);
}

/* test_wrong_topo in a module graph: get_attr weight moved after its user. */
Test(modgraphs, wrong_topo) {
    tree t;
    tree_open(&t, EXAMPLE, "encoder.layers.0.norm1");
    exdb_graph *g = graph_of(&t, "encoder.layers.0.norm1");
    exdb_node *w = exdb_graph_find(g, "weight"), *ln = exdb_graph_find(g, "native_layer_norm");
    /* unlink w, relink after ln */
    w->prev->next = w->next;
    w->next->prev = w->prev;
    w->prev = ln;
    w->next = ln->next;
    ln->next->prev = w;
    ln->next = w;
    cr_assert_eq(lint_all(&t), 1);
    const exdb_finding *f = only_finding(&t.r, "fx.use-before-def");
    cr_expect_str_eq(f->what, "Argument 'weight' of Node 'native_layer_norm' was used before it "
                              "has been defined! Please check that Nodes in the graph are "
                              "topologically ordered");
    cr_expect_str_eq(f->module, "encoder.layers.0.norm1");
    tree_close(&t);
}

static exdb_node *no_remap(void *ctx, exdb_node *n) {
    (void)ctx;
    return n;
}

/* test_copy_no_remap between module graphs: a node of encoder.norm copied
 * into encoder.layers.1.norm1 without remapping its arguments. */
Test(modgraphs, copy_no_remap) {
    tree t;
    tree_open(&t, EXAMPLE, "encoder.layers.1.norm1");
    exdb_graph *from = graph_of(&t, "encoder.norm"), *to = graph_of(&t, "encoder.layers.1.norm1");
    exdb_graph_insert_before(to, exdb_graph_output(to));
    cr_assert_not_null(
        exdb_graph_node_copy(to, exdb_graph_find(from, "native_layer_norm_2"), no_remap, NULL));
    exdb_graph_insert_append(to);
    cr_assert_gt(lint_all(&t), 0);
    cr_expect_str_eq(t.r.items[0].check, "fx.foreign-arg");
    cr_expect(strstr(t.r.items[0].what, "Argument 'add_5' of Node 'native_layer_norm_2' does not "
                                        "belong to this Graph") != NULL,
              "%s", t.r.items[0].what);
    cr_expect_str_eq(t.r.items[0].module, "encoder.layers.1.norm1");
    tree_close(&t);
}

/* Higher-order op subgraphs: per module, m1's cond branches are GraphModule
 * children linted with m1 (findings name the subgraph); flat, the program's
 * subgraphs are linted by exdb_lint_program. */
Test(modgraphs, hop_subgraphs) {
    tree t;
    tree_open(&t, COND, NULL);
    cr_assert_eq(t.gs.n, 4, "root, m1, two branches: %u", t.gs.n);
    cr_expect_str_eq(t.gs.items[2].module, "m1");
    cr_expect_str_eq(t.gs.items[2].subgraph, "true_graph_0");
    cr_expect_str_eq(t.gs.items[3].subgraph, "false_graph_0");
    cr_expect_eq(t.gs.items[2].parent, 1);
    cr_expect_eq(lint_all(&t), 0);
    exdb_graph *tg = t.gs.items[2].graph;
    add_before_output(tg, EXDB_OP_GET_ATTR, "nested_graph_9", EXDB_T_STR, NULL, "nested_graph_9");
    cr_assert_eq(lint_all(&t), 1);
    const exdb_finding *f = only_finding(&t.r, "fx.target-missing");
    cr_expect_str_eq(f->module, "m1");
    cr_expect_str_eq(f->graph, "true_graph_0");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_lint_format(&b, &t.r);
    cr_expect(strstr(b.s, "error: node nested_graph_9 (module m1, subgraph true_graph_0): ") == b.s,
              "%s", b.s);
    exdb_buf_reset(&b);
    exdb_lint_format_json(&b, &t.r);
    cr_expect(strstr(b.s, "\"module\": \"m1\", \"graph\": \"true_graph_0\"") != NULL, "%s", b.s);
    /* flat: swap the first two nodes of the program's false branch */
    exdb_lint_report_free(&t.r);
    exdb_lint_report_init(&t.r);
    exdb_graph *fg = NULL;
    for (uint32_t i = 0; i < t.p->nsubgraphs; i++)
        if (strcmp(t.p->subgraphs[i].name, "false_graph_0") == 0)
            fg = t.p->subgraphs[i].graph;
    cr_assert_not_null(fg);
    exdb_node *sub = NULL;
    for (exdb_node *n = fg->head; n; n = n->next)
        if (n->op == EXDB_OP_CALL_FUNCTION)
            sub = n;
    cr_assert_not_null(sub);
    /* the sub node moves to the front, before the placeholders it uses */
    sub->prev->next = sub->next;
    sub->next->prev = sub->prev;
    sub->prev = NULL;
    sub->next = fg->head;
    fg->head->prev = sub;
    fg->head = sub;
    cr_assert_gt(exdb_lint_program(&t.r, t.p, NULL), 0);
    const exdb_finding *ff = NULL;
    for (uint32_t i = 0; i < t.r.n; i++)
        if (strcmp(t.r.items[i].check, "fx.use-before-def") == 0)
            ff = &t.r.items[i];
    cr_assert_not_null(ff);
    cr_expect_str_eq(ff->graph, "false_graph_0");
    cr_expect_null(ff->module);
    exdb_buf_reset(&b);
    exdb_lint_format(&b, &t.r);
    cr_expect(strstr(b.s, "(subgraph false_graph_0): Argument") != NULL, "%s", b.s);
    exdb_buf_free(&b);
    tree_close(&t);
}

Test(modgraphs, collect_errors) {
    tree t;
    tree_open(&t, EXAMPLE, "encoder.layers.0");
    cr_expect_eq(t.gs.n, 1);
    exdb_modgraphs gs;
    exdb_modgraphs_init(&gs);
    exdb_error err = {0};
    cr_expect_eq(exdb_modgraphs_collect(&gs, t.u, "encoder.nope", &err), -1);
    cr_expect_str_eq(err.msg, "No module \"encoder.nope\" in the unflattened module.");
    exdb_modgraphs_free(&gs);
    tree_close(&t);
}

/* The calls of an InterpreterModuleDispatcher are named n, n@1, n@2; calls
 * 0 and 1 of this fixture are one deduplicated module, linted once. */
Test(modgraphs, dispatcher_calls) {
    tree t;
    tree_open(&t, "tests/fixtures/unflatten/dispatch.json", "n");
    exdb_umodule *n = exdb_unflatten_module(t.u, "n");
    cr_assert_eq(n->kind, EXDB_UMOD_DISPATCH);
    cr_assert_eq(n->ncall_modules, 3);
    cr_assert_eq(n->call_modules[0], n->call_modules[1]);
    cr_assert_eq(t.gs.n, 2);
    cr_expect_str_eq(t.gs.items[0].module, "n");
    cr_expect_str_eq(t.gs.items[1].module, "n@2");
    cr_expect_eq(t.gs.items[1].owner, n->call_modules[2]);
    cr_expect_eq(lint_all(&t), 0);
    tree_close(&t);
}

static uint32_t count_nodes(const exdb_graph *g) {
    uint32_t k = 0;
    for (const exdb_node *n = g->head; n; n = n->next)
        k++;
    return k;
}

/* dce module: FX's reverse pass on encoder.norm, given a dead chain of
 * two nodes (unflatten's own dce already took the flat graph's dead
 * getitems, as torch's does); a dry run changes nothing; undo restores the
 * graph as it printed. */
Test(modgraphs, dce_module_and_undo) {
    tree t;
    tree_open(&t, EXAMPLE, "encoder.norm");
    exdb_graph *g = graph_of(&t, "encoder.norm");
    cr_assert_eq(count_nodes(g), 6);
    exdb_node *neg = add_before_output(g, EXDB_OP_CALL_FUNCTION, "aten.neg.default", EXDB_T_OP,
                                       exdb_graph_find(g, "add_5"), "dead_1");
    add_before_output(g, EXDB_OP_CALL_FUNCTION, "aten.neg.default", EXDB_T_OP, neg, "dead_2");
    exdb_buf before, after;
    exdb_buf_init(&before);
    exdb_buf_init(&after);
    exdb_print_graph(&before, g);
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    exdb_dce_opts dry = {.dry_run = 1, .impure_random = 1};
    cr_assert_eq(exdb_modgraphs_dce(&t.gs, t.u, &dry, &log, &err), 2, "%s", err.msg);
    cr_expect_eq(count_nodes(g), 8);
    exdb_dce_opts o = {.impure_random = 1};
    cr_assert_eq(exdb_modgraphs_dce(&t.gs, t.u, &o, &log, &err), 2, "%s", err.msg);
    cr_expect_str_eq(log.items[0].node->name, "dead_2");
    cr_expect_str_eq(log.items[1].node->name, "dead_1");
    cr_expect_eq(count_nodes(g), 6);
    cr_expect_eq(lint_all(&t), 0);
    cr_assert_eq(exdb_dce_undo(&log, &err), 0, "%s", err.msg);
    exdb_print_graph(&after, g);
    cr_expect_str_eq(after.s, before.s);
    exdb_dce_log_free(&log);
    exdb_buf_free(&before);
    exdb_buf_free(&after);
    tree_close(&t);
}

/* FX lints (pass 2 included) before eliminating: a graph of the tree that
 * does not lint is left alone with Graph.lint's message (eliminate_dead_code
 * raises on it), the others are cleaned as each is asked in turn. */
Test(modgraphs, dce_refuses_unlinted_tree) {
    tree t;
    tree_open(&t, EXAMPLE, NULL);
    add_before_output(graph_of(&t, "head"), EXDB_OP_GET_ATTR, "nope", EXDB_T_STR, NULL, "nope");
    exdb_dce_log *logs = calloc(t.gs.n, sizeof *logs);
    exdb_error err = {0};
    exdb_dce_opts o = {.impure_random = 1};
    exdb_node *dead = add_before_output(
        graph_of(&t, "encoder.norm"), EXDB_OP_CALL_FUNCTION, "aten.neg.default", EXDB_T_OP,
        exdb_graph_find(graph_of(&t, "encoder.norm"), "add_5"), "dead_1");
    cr_assert_not_null(dead);
    cr_assert_eq(exdb_modgraphs_dce(&t.gs, t.u, &o, logs, &err), 1, "%s", err.msg);
    uint32_t nrefused = 0;
    for (uint32_t i = 0; i < t.gs.n; i++)
        if (t.gs.items[i].refused) {
            nrefused++;
            cr_expect_str_eq(t.gs.items[i].module, "head");
            cr_expect_str_eq(t.gs.items[i].refused,
                             "Node nope target nope references nonexistent attribute nope of ");
        }
    cr_expect_eq(nrefused, 1);
    cr_expect_eq(count_nodes(graph_of(&t, "head")), 7, "the refused graph keeps its nodes");
    cr_expect_eq(count_nodes(graph_of(&t, "encoder.norm")), 6);
    for (uint32_t i = 0; i < t.gs.n; i++)
        exdb_dce_log_free(&logs[i]);
    free(logs);
    tree_close(&t);
}

/* call_module is pure on module graphs (InterpreterModule has no
 * _is_impure): a dead submodule call goes, as FX removes it. */
Test(modgraphs, dce_dead_call_module) {
    tree t;
    tree_open(&t, EXAMPLE, "");
    exdb_graph *root = graph_of(&t, "");
    add_before_output(root, EXDB_OP_CALL_MODULE, "encoder", EXDB_T_STR,
                      exdb_graph_find(root, "embed"), "encoder_again");
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    exdb_dce_opts o = {.impure_random = 1};
    cr_assert_eq(exdb_modgraphs_dce(&t.gs, t.u, &o, &log, &err), 1, "%s", err.msg);
    cr_expect_str_eq(log.items[0].node->name, "encoder_again");
    cr_expect_null(exdb_graph_find(root, "encoder_again"));
    exdb_dce_log_free(&log);
    tree_close(&t);
}

/* FX's eliminate_dead_code recurses into the GraphModule children named by
 * the graph's get_attr nodes: a dead node in m1's true branch goes with
 * `dce module m1`. */
Test(modgraphs, dce_recurses_into_subgraphs) {
    tree t;
    tree_open(&t, COND, "m1");
    cr_assert_eq(t.gs.n, 3);
    exdb_graph *tg = t.gs.items[1].graph;
    cr_assert_str_eq(t.gs.items[1].subgraph, "true_graph_0");
    add_before_output(tg, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.neg.default", EXDB_T_OP, tg->head,
                      "dead_neg");
    exdb_dce_log logs[3];
    for (int i = 0; i < 3; i++)
        exdb_dce_log_init(&logs[i]);
    exdb_error err = {0};
    exdb_dce_opts o = {.impure_random = 1};
    cr_assert_eq(exdb_modgraphs_dce(&t.gs, t.u, &o, logs, &err), 1, "%s", err.msg);
    cr_expect_eq(logs[1].n, 1);
    cr_expect_str_eq(logs[1].items[0].node->name, "dead_neg");
    for (int i = 0; i < 3; i++)
        exdb_dce_log_free(&logs[i]);
    tree_close(&t);
}

/* Every module graph (and subgraph) of every real program lints clean,
 * pass 2 included (the sunk parameters' get_attrs resolve on their
 * modules, every call_module on a submodule). */
Test(modgraphs, real_programs, .timeout = 300) {
    DIR *d = opendir(test_real_dir());
    if (!d) {
        printf("modgraphs.real_programs: %s is absent, skipped\n", test_real_dir());
        return;
    }
    struct dirent *de;
    int programs = 0;
    uint32_t graphs = 0, targets = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 11 || strcmp(de->d_name + l - 11, "_model.json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", test_real_dir(), de->d_name);
        tree t;
        tree_open(&t, path, NULL);
        cr_assert_gt(t.gs.n, 1, "%s", de->d_name);
        uint32_t errors = lint_all(&t);
        cr_expect_eq(errors, 0, "%s: %s", de->d_name, t.r.n ? t.r.items[0].what : "");
        cr_expect_eq(t.r.n, 0, "%s", de->d_name);
        graphs += t.gs.n;
        for (uint32_t i = 0; i < t.gs.n; i++)
            for (const exdb_node *n = t.gs.items[i].graph->head; n; n = n->next)
                targets += n->op == EXDB_OP_GET_ATTR || n->op == EXDB_OP_CALL_MODULE;
        tree_close(&t);
        programs++;
    }
    closedir(d);
    cr_expect_eq(programs, 22);
    cr_expect_gt(targets, 0);
    printf("modgraphs.real_programs: %d programs, %u module graphs, %u get_attr/call_module "
           "targets checked, clean\n",
           programs, graphs, targets);
}

/* Control flow nested in control flow (issue 25): a subgraph's own
 * subgraphs are its GraphModule's children (torch's named_modules lists
 * true_graph_0.true_graph_0), collected after their parent, and dce
 * recurses into them; "true_graph_0" inside a subgraph is its own graph,
 * not the top-level attribute of that name. */
Test(modgraphs, nested_control_flow) {
    tree t;
    tree_open(&t, "tests/conformance/corpus/scenarios/cf_cond_in_cond__nonstrict/program.pt2",
              NULL);
    const char *want[][2] = {{"", NULL},
                             {"", "true_graph_0"},
                             {"", "true_graph_0.true_graph_0"},
                             {"", "true_graph_0.false_graph_0"},
                             {"", "false_graph_0"},
                             {"", "false_graph_0.true_graph_0"},
                             {"", "false_graph_0.false_graph_0"}};
    cr_assert_eq(t.gs.n, 7);
    for (uint32_t i = 0; i < 7; i++) {
        cr_expect_str_eq(t.gs.items[i].module, want[i][0]);
        if (want[i][1])
            cr_expect_str_eq(t.gs.items[i].subgraph, want[i][1]);
    }
    cr_expect_eq(t.gs.items[2].parent, 1);
    cr_expect_eq(t.gs.items[5].parent, 4);
    /* the inner false_graph_0 of false_graph_0 takes cos of its input, the
     * inner one of true_graph_0 does not */
    cr_expect(t.gs.items[3].graph != t.gs.items[6].graph);
    exdb_umodule *m = exdb_unflatten_module(t.u, "false_graph_0.true_graph_0");
    cr_assert_not_null(m);
    cr_expect_eq(m->graph, t.gs.items[5].graph);
    cr_expect_eq(lint_all(&t), 0);
    /* a dead node two levels down is found by dce of the whole tree */
    exdb_graph *g = t.gs.items[6].graph;
    add_before_output(g, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.neg.default", EXDB_T_OP, g->head,
                      "dead_neg");
    exdb_dce_log logs[7];
    for (int i = 0; i < 7; i++)
        exdb_dce_log_init(&logs[i]);
    exdb_dce_opts o = {.impure_random = 1, .dry_run = 1};
    exdb_error err = {0};
    cr_expect_eq(exdb_modgraphs_dce(&t.gs, t.u, &o, logs, &err), 1, "%s", err.msg);
    cr_expect_eq(logs[6].n, 1);
    for (int i = 0; i < 7; i++)
        exdb_dce_log_free(&logs[i]);
    tree_close(&t);
}
