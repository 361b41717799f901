/* test_lint.c - Graph.lint (test_fx.py cases rebuilt with the graph API),
 * the verifier's signature checks and the unflatten pre-flight on the
 * fixtures of tests/fixtures/lint (made by gen_fixtures.py there), and lint
 * of every real program in ../shared/real_pt2. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/program.h"
#include "core/format/json.h"
#include "core/fx/lint.h"
#include "core/unflatten/preflight.h"

#include "testutil.h"

#define REAL_DIR test_real_dir()

static exdb_arg tuple(exdb_arena *a, int n, ...) {
    exdb_arg t;
    cr_assert_eq(exdb_arg_seq(a, EXDB_ARG_TUPLE, (uint32_t)n, &t), 0);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        t.u.items[i] = va_arg(ap, exdb_arg);
    va_end(ap);
    return t;
}

static exdb_node *call(exdb_graph *g, exdb_op op, const char *target, exdb_arg args,
                       const char *name) {
    exdb_node *n = exdb_graph_create_node(
        g, op, target, op == EXDB_OP_CALL_FUNCTION ? EXDB_T_PYFN : EXDB_T_STR, &args, NULL, name);
    cr_assert_not_null(n);
    return n;
}

/* How many findings of check `check` the report holds. */
static int count_check(const exdb_lint_report *r, const char *check) {
    int c = 0;
    for (uint32_t i = 0; i < r->n; i++)
        c += strcmp(r->items[i].check, check) == 0;
    return c;
}

static const exdb_finding *find_check(const exdb_lint_report *r, const char *check) {
    for (uint32_t i = 0; i < r->n; i++)
        if (strcmp(r->items[i].check, check) == 0)
            return &r->items[i];
    return NULL;
}

/* test_fx.py test_copy_no_remap: node_copy without arg_transform leaves the
 * copies' arguments in the old graph. */
Test(lint, fx_copy_no_remap) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a), *copied = exdb_graph_new(&a);
    exdb_node *x = call(g, EXDB_OP_PLACEHOLDER, "x", tuple(&a, 0), NULL);
    exdb_arg three = {.kind = EXDB_ARG_FLOAT};
    three.u.f = 3.0;
    exdb_node *add =
        call(g, EXDB_OP_CALL_FUNCTION, "operator.add", tuple(&a, 2, exdb_arg_node(x), three), NULL);
    exdb_node *relu =
        call(g, EXDB_OP_CALL_FUNCTION, "torch.relu", tuple(&a, 1, exdb_arg_node(add)), NULL);
    call(g, EXDB_OP_OUTPUT, "output", tuple(&a, 1, exdb_arg_node(relu)), "output");
    for (exdb_node *n = g->head; n; n = n->next)
        cr_assert_not_null(exdb_graph_node_copy(copied, n, NULL, NULL));
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_graph(&r, g, NULL, NULL), 0, "the original lints");
    cr_assert_gt(exdb_lint_graph(&r, copied, NULL, NULL), 0);
    const exdb_finding *f = find_check(&r, "fx.foreign-arg");
    cr_assert_not_null(f);
    cr_assert(strstr(f->what, "does not belong to this Graph"), "%s", f->what);
    cr_assert_str_eq(f->what, "Argument 'x' of Node 'add' does not belong to this Graph, but was "
                              "used as an argument! If you are copying nodes from another graph, "
                              "make sure to use ``arg_transform`` on node_copy() to remap values");
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}

/* Moves n right after ref (FX's ref.append(n)), for test_wrong_topo. */
static void move_after(exdb_graph *g, exdb_node *n, exdb_node *ref) {
    if (n->prev)
        n->prev->next = n->next;
    else
        g->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->tail = n->prev;
    n->prev = ref;
    n->next = ref->next;
    if (ref->next)
        ref->next->prev = n;
    else
        g->tail = n;
    ref->next = n;
}

/* A graph x -> b = foo.bar.baz(x), c = get_attr zip.zap.zam, d = b + c. */
static exdb_graph *topo_graph(exdb_arena *a, exdb_node **c, exdb_node **d) {
    exdb_graph *g = exdb_graph_new(a);
    exdb_node *x = call(g, EXDB_OP_PLACEHOLDER, "x", tuple(a, 0), NULL);
    exdb_node *b = call(g, EXDB_OP_CALL_MODULE, "foo.bar.baz", tuple(a, 1, exdb_arg_node(x)), NULL);
    *c = call(g, EXDB_OP_GET_ATTR, "zip.zap.zam", tuple(a, 0), NULL);
    *d = call(g, EXDB_OP_CALL_FUNCTION, "operator.add",
              tuple(a, 2, exdb_arg_node(b), exdb_arg_node(*c)), NULL);
    call(g, EXDB_OP_OUTPUT, "output", tuple(a, 1, exdb_arg_node(*d)), "output");
    return g;
}

/* test_fx.py test_wrong_topo: c moved after its user d. Without an owning
 * module the nonexistent targets are not checked. */
Test(lint, fx_wrong_topo) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_node *c, *d;
    exdb_graph *g = topo_graph(&a, &c, &d);
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_graph(&r, g, NULL, NULL), 0);
    move_after(g, c, d);
    cr_assert_eq(exdb_lint_graph(&r, g, NULL, NULL), 1);
    cr_assert_eq(r.n, 1);
    cr_assert_str_eq(r.items[0].check, "fx.use-before-def");
    cr_assert_str_eq(r.items[0].node, "add");
    cr_assert_str_eq(r.items[0].what,
                     "Argument 'zip_zap_zam' of Node 'add' was used before it has been defined! "
                     "Please check that Nodes in the graph are topologically ordered");
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}

/* The owning module of test_construct_root_dict: foo.bar.baz a Linear,
 * zip.zap.zam a parameter; the intermediates are modules. */
static exdb_attr_kind root_dict(void *ctx, const char *q) {
    static const char *const mods[] = {"foo", "foo.bar", "foo.bar.baz", "zip", "zip.zap", NULL};
    (void)ctx;
    for (int i = 0; mods[i]; i++)
        if (strcmp(q, mods[i]) == 0)
            return EXDB_ATTR_MODULE;
    return strcmp(q, "zip.zap.zam") == 0 ? EXDB_ATTR_OTHER : EXDB_ATTR_MISSING;
}

static exdb_attr_kind empty_module(void *ctx, const char *q) {
    (void)ctx;
    return strcmp(q, "foo") == 0   ? EXDB_ATTR_MODULE
           : strcmp(q, "zip") == 0 ? EXDB_ATTR_OTHER
                                   : EXDB_ATTR_MISSING;
}

/* test_construct_root_dict (clean with the right module) and FX pass 2's
 * messages when targets are missing or not modules. */
Test(lint, fx_owner_targets) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_node *c, *d;
    exdb_graph *g = topo_graph(&a, &c, &d);
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_owner good = {root_dict, NULL}, bad = {empty_module, NULL};
    cr_assert_eq(exdb_lint_graph(&r, g, &good, ""), 0);
    cr_assert_eq(r.n, 0);
    cr_assert_eq(exdb_lint_graph(&r, g, &bad, "m"), 2);
    cr_assert_str_eq(r.items[0].what,
                     "Node foo_bar_baz target foo.bar.baz references nonexistent attribute bar "
                     "of foo");
    cr_assert_str_eq(r.items[0].module, "m");
    /* get_attr targets are only checked for existence */
    cr_assert_str_eq(r.items[1].what,
                     "Node zip_zap_zam target zip.zap.zam references nonexistent attribute zap "
                     "of zip");
    exdb_lint_report_free(&r);
    exdb_lint_report_init(&r);
    exdb_graph *g2 = exdb_graph_new(&a);
    exdb_node *x = call(g2, EXDB_OP_PLACEHOLDER, "x", tuple(&a, 0), NULL);
    call(g2, EXDB_OP_CALL_MODULE, "zip", tuple(&a, 1, exdb_arg_node(x)), NULL);
    /* "zip" is a Python builtin, so FX names the node zip_1 */
    cr_assert_eq(exdb_lint_graph(&r, g2, &bad, NULL), 1);
    cr_assert_str_eq(r.items[0].what,
                     "Node zip_1 target zip zip of  does not reference an nn.Module");
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}

/* Unknown opcode, duplicate name, self reference: all reported, not only
 * the first (FX stops at the first). */
Test(lint, fx_every_finding) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a);
    exdb_node *x = call(g, EXDB_OP_PLACEHOLDER, "x", tuple(&a, 0), NULL);
    exdb_node *y = call(g, EXDB_OP_PLACEHOLDER, "y", tuple(&a, 0), NULL);
    exdb_node *n =
        call(g, EXDB_OP_CALL_FUNCTION, "torch.relu", tuple(&a, 1, exdb_arg_node(x)), NULL);
    y->name = "x"; /* duplicate (and no longer what the side table says) */
    n->op = 9;
    exdb_node_set_args(n, NULL, NULL);
    n->args.u.items[0] = exdb_arg_node(n); /* uses itself */
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_graph(&r, g, NULL, NULL);
    cr_assert_eq(count_check(&r, "fx.duplicate-name"), 1);
    cr_assert_str_eq(find_check(&r, "fx.duplicate-name")->what, "Node redefined name x!");
    cr_assert_eq(count_check(&r, "fx.side-table"), 1);
    cr_assert_str_eq(find_check(&r, "fx.unknown-opcode")->what, "Node relu had unknown opcode 9!");
    cr_assert_eq(count_check(&r, "fx.use-before-def"), 1);
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}

/* A graph big enough for lint's name index (nodes in the slab
 * exdb_graph_reserve made, the name table read from the node side): a clean
 * chain lints clean, and a node whose table entry is gone, or names another
 * node, or a node outside the reserved slab, is still found exactly. */
Test(lint, side_table_of_a_big_graph) {
    enum { N = 20000 };
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a);
    cr_assert_eq(exdb_graph_reserve(g, N, 1), 0);
    exdb_node *prev = call(g, EXDB_OP_PLACEHOLDER, "x", tuple(&a, 0), NULL);
    exdb_node *keep[3] = {0};
    for (int i = 1; i < N + 5; i++) { /* the last 5 lie beyond the reserved slab */
        prev =
            call(g, EXDB_OP_CALL_FUNCTION, "torch.relu", tuple(&a, 1, exdb_arg_node(prev)), NULL);
        if (i == 7000)
            keep[0] = prev;
        if (i == 13000)
            keep[1] = prev;
        if (i == N + 2)
            keep[2] = prev;
    }
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_graph(&r, g, NULL, NULL), 0);
    cr_assert_eq(r.n, 0, "a clean graph: %s", r.n ? r.items[0].what : "");
    exdb_lint_report_free(&r);
    /* keep[0]'s entry retired, keep[1]'s pointing at keep[0], keep[2]'s
     * (outside the slab) retired */
    *exdb_strmap_find(&g->names, keep[0]->name) = NULL;
    *exdb_strmap_find(&g->names, keep[1]->name) = keep[0];
    *exdb_strmap_find(&g->names, keep[2]->name) = NULL;
    exdb_lint_report_init(&r);
    exdb_lint_graph(&r, g, NULL, NULL);
    cr_assert_eq(count_check(&r, "fx.side-table"), 3);
    const char *want[] = {keep[0]->name, keep[1]->name, keep[2]->name};
    uint32_t k = 0;
    for (uint32_t i = 0; i < r.n; i++)
        if (strcmp(r.items[i].check, "fx.side-table") == 0)
            cr_assert_str_eq(r.items[i].node, want[k++]);
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}

static exdb_program *load(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    return p;
}

Test(lint, fixture_clean) {
    exdb_program *p = load("tests/fixtures/lint/clean.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_program(&r, p, NULL), 0);
    cr_assert_eq(r.n, 1, "only the note on act@1");
    cr_assert_str_eq(r.items[0].check, "unflatten.repeated-call");
    cr_assert_str_eq(r.items[0].node, "relu_1");
    cr_assert_str_eq(r.items[0].module, "act@1");
    /* a state dict that lacks lin.weight */
    const char *sd[] = {"other.weight"};
    exdb_lint_state st = {1, 0, sd, 1, NULL, 0, NULL, NULL};
    cr_assert_eq(exdb_lint_signature(&r, p, &st), 1);
    cr_assert_str_eq(find_check(&r, "sig.state")->what,
                     "Parameter lin.weight is not in the state dict.");
    exdb_lint_report_free(&r);
    exdb_program_free(p);
}

Test(lint, fixture_bad_signature) {
    exdb_program *p = load("tests/fixtures/lint/bad_signature.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_program(&r, p, NULL), 4);
    cr_assert_str_eq(find_check(&r, "sig.mutation-target")->what,
                     "Buffer output add does not point to a buffer that exists. (buffer "
                     "no_such_buffer)");
    cr_assert_eq(count_check(&r, "sig.output-order"), 2);
    cr_assert_str_eq(find_check(&r, "sig.output-order")->what,
                     "Mutation node mul is neither a buffer nor a user input.");
    cr_assert_str_eq(find_check(&r, "sig.root-inputs")->what,
                     "the root call signature's in_spec has 2 leaves but the graph signature has "
                     "1 user inputs");
    exdb_lint_report_free(&r);
    exdb_program_free(p);
}

/* The verifier's signature checks on specs edited after load: the loader
 * refuses files whose specs and graph inputs/outputs do not pair up (count
 * and names), but exdb_lint_signature checks any exdb_program, as
 * _verify_exported_program_signature checks any ExportedProgram. On
 * tests/fixtures/example.json: inputs 0-34 parameters, 35 a persistent and
 * 36 a non-persistent buffer, 39 the user input; outputs 0 and 1 buffer
 * mutations, 2 the user output. */
static const char *sig_finding(const char *check, void (*edit)(exdb_program *),
                               const exdb_lint_state *st) {
    static char what[512];
    exdb_program *p = load("tests/fixtures/example.json");
    edit(p);
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_signature(&r, p, st);
    const exdb_finding *f = find_check(&r, check);
    cr_assert_not_null(f, "no %s finding", check);
    snprintf(what, sizeof what, "%s", f->what);
    exdb_lint_report_free(&r);
    exdb_program_free(p);
    return what;
}

static void drop_input(exdb_program *p) {
    p->ninputs--;
}
static void rename_input(exdb_program *p) {
    p->inputs[0].name = "zz";
}
static void untarget_input(exdb_program *p) {
    p->inputs[0].target = NULL;
}
static void constant_input(exdb_program *p) {
    p->inputs[0].kind = EXDB_IN_TENSOR_CONSTANT;
    p->inputs[1].kind = EXDB_IN_CUSTOM_OBJ;
}
static void drop_output(exdb_program *p) {
    p->noutputs--;
}
static void rename_output(exdb_program *p) {
    p->outputs[2].name = "zz";
}
static void param_mutation(exdb_program *p) {
    p->outputs[0].kind = EXDB_OUT_PARAMETER_MUTATION;
    p->outputs[0].target = "nope";
}
static void user_output_first(exdb_program *p) {
    exdb_output_spec t = p->outputs[0];
    p->outputs[0] = p->outputs[2];
    p->outputs[2] = t;
}

Test(lint, signature_checks_of_edited_specs) {
    cr_assert_str_eq(sig_finding("sig.input-count", drop_input, NULL),
                     "Number of graph inputs (40) does not match number of inputs in the graph "
                     "signature (39)");
    cr_assert_str_eq(sig_finding("sig.input-name", rename_input, NULL),
                     "Input spec name zz does not match node name p_embed_weight");
    cr_assert_str_eq(sig_finding("sig.no-target", untarget_input, NULL),
                     "InputSpec for p_embed_weight has no target.");
    /* a state dict holding the non-persistent buffer and not the persistent one */
    const char *sd[] = {"encoder.layers.0.attn.scale"};
    exdb_lint_state st = {1, 0, sd, 1, NULL, 0, NULL, NULL};
    exdb_program *p = load("tests/fixtures/example.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_signature(&r, p, &st);
    int missing = 0, unwanted = 0;
    for (uint32_t i = 0; i < r.n; i++) {
        missing += strcmp(r.items[i].what,
                          "Buffer encoder.layers.0.attn.calls is not in the state dict.") == 0;
        unwanted += strcmp(r.items[i].what, "Non-persistent buffer encoder.layers.0.attn.scale is "
                                            "in the state dict, it should not be.") == 0;
    }
    cr_assert_eq(missing, 1);
    cr_assert_eq(unwanted, 1);
    exdb_lint_report_free(&r);
    exdb_program_free(p);
    /* constants saved without the ones the specs name */
    const char *consts[] = {"other"};
    exdb_lint_state cs = {0, 1, NULL, 0, consts, 1, NULL, NULL};
    cr_assert_str_eq(sig_finding("sig.state", constant_input, &cs),
                     "Constant tensor embed.weight is not in the constants dictionary.");
    p = load("tests/fixtures/example.json");
    constant_input(p);
    exdb_lint_report_init(&r);
    exdb_lint_signature(&r, p, &cs);
    cr_assert_eq(count_check(&r, "sig.state"), 2);
    cr_assert_str_eq(r.items[1].what,
                     "Custom object embed.bias is not in the constants dictionary.");
    exdb_lint_report_free(&r);
    exdb_program_free(p);
    cr_assert_str_eq(sig_finding("sig.output-count", drop_output, NULL),
                     "Number of output nodes 3 is different Than the number of outputs specified "
                     "by the graph signature: Number of mutated buffers: 2. Number of user "
                     "outputs: 0.");
    cr_assert_str_eq(sig_finding("sig.output-name", rename_output, NULL),
                     "Output spec name zz does not match output node argument addmm_13");
    cr_assert_str_eq(sig_finding("sig.mutation-target", param_mutation, NULL),
                     "Parameter output add does not point to a parameter that exists. (parameter "
                     "nope)");
    cr_assert_str_eq(sig_finding("sig.output-order", user_output_first, NULL),
                     "Mutation node addmm_13 is neither a buffer nor a user input.");
}

Test(lint, fixture_unflatten_hazards) {
    exdb_program *p = load("tests/fixtures/lint/unflatten_hazards.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_program(&r, p, NULL);
    const exdb_finding *f = find_check(&r, "unflatten.no-stack");
    cr_assert_not_null(f);
    cr_assert_str_eq(f->node, "sin");
    /* torch.export.load gives it {}: torch 2.13's _fix_nn_module_stacks raises */
    cr_assert(
        strstr(f->what, "ValueError: not enough values to unpack (expected at least 1, got 0)"));
    f = find_check(&r, "unflatten.not-a-stack");
    cr_assert_str_eq(f->node, "cos");
    cr_assert_str_eq(f->what, "nn_module_stack fqns ['', 'b', 'b.c', 'd'] at node cos do not form "
                              "a stack! dropping last 1 entries");
    cr_assert_eq(count_check(&r, "unflatten.reentry"), 2);
    f = find_check(&r, "unflatten.reentry");
    cr_assert_str_eq(f->node, "abs_1");
    cr_assert_str_eq(f->module, "e");
    f = find_check(&r, "unflatten.state-outside-owner");
    cr_assert_str_eq(f->node, "mul");
    cr_assert_str_eq(f->module, "b");
    cr_assert(strstr(f->what, "parameter a.weight (owned by a) is used in module b"));
    cr_assert_eq(r.count[EXDB_SEV_ERROR], 3);
    cr_assert_eq(r.count[EXDB_SEV_WARNING], 2);
    exdb_lint_report_free(&r);
    exdb_program_free(p);
}

/* Shared state (tests/fixtures/lint/shared_state.json): one finding per
 * foreign module, at its first user there, and mutation targets looked up
 * by the kind of the output spec. */
Test(lint, fixture_shared_state) {
    exdb_program *p = load("tests/fixtures/lint/shared_state.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_program(&r, p, NULL), 1);
    cr_assert_eq(count_check(&r, "sig.mutation-target"), 1);
    cr_assert_str_eq(find_check(&r, "sig.mutation-target")->what,
                     "Buffer output neg does not point to a buffer that exists. (buffer "
                     "a.weight)");
    cr_assert_eq(count_check(&r, "unflatten.state-outside-owner"), 2);
    const char *want[][2] = {{"add", "b"}, {"div", "c"}};
    uint32_t k = 0;
    for (uint32_t i = 0; i < r.n; i++) {
        if (strcmp(r.items[i].check, "unflatten.state-outside-owner") != 0)
            continue;
        cr_assert_str_eq(r.items[i].node, want[k][0]);
        cr_assert_str_eq(r.items[i].module, want[k][1]);
        k++;
    }
    exdb_lint_report_free(&r);
    exdb_program_free(p);
}

Test(lint, fixture_preserved) {
    exdb_program *p = load("tests/fixtures/lint/preserved.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_eq(exdb_lint_program(&r, p, NULL), 1);
    cr_assert_str_eq(find_check(&r, "unflatten.preserved-output")->node, "neg");
    cr_assert_eq(find_check(&r, "unflatten.preserved-input")->sev, EXDB_SEV_WARNING);
    exdb_lint_report_free(&r);
    exdb_program_free(p);
}

/* --json: one array, one object per finding, parseable. */
Test(lint, json_format) {
    exdb_program *p = load("tests/fixtures/lint/unflatten_hazards.json");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_program(&r, p, NULL);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_lint_format_json(&b, &r);
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json *root;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(b.s, b.len, &a, "json", &root, &err), 0, "%s", err.msg);
    cr_assert_eq(root->type, EXDB_JARRAY);
    cr_assert_eq(root->len, r.n);
    const exdb_json *o = &root->u.kids[0];
    cr_assert_str_eq(exdb_json_get(o, "severity")->u.str, exdb_severity_name(r.items[0].sev));
    cr_assert_str_eq(exdb_json_get(o, "message")->u.str, r.items[0].what);
    exdb_buf_reset(&b);
    exdb_lint_report_free(&r);
    exdb_lint_report_init(&r);
    exdb_lint_format_json(&b, &r);
    cr_assert_str_eq(b.s, "[]\n");
    exdb_arena_destroy(&a);
    exdb_buf_free(&b);
    exdb_lint_report_free(&r);
    exdb_program_free(p);
}

/* Reads the keys of a *_weights_config.json ("config": {FQN: ...}) into
 * names (malloc'd); returns how many, -1 when there is no such file. */
static int weight_names(const char *path, exdb_arena *a, const char ***names) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = exdb_arena_alloc(a, (size_t)n + 1);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    exdb_json *root;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(buf, (size_t)n, a, path, &root, &err), 0, "%s", err.msg);
    const exdb_json *cfg = exdb_json_get(root, "config");
    cr_assert_not_null(cfg);
    *names = exdb_arena_calloc(a, cfg->len + 1, sizeof **names);
    for (uint32_t i = 0; i < cfg->len; i++)
        (*names)[i] = cfg->u.kids[i].key;
    return (int)cfg->len;
}

/* Every real program lints without errors or warnings: the only findings
 * are notes on repeated calls (the resnets call each block's relu 2-3
 * times: relu, relu@1, relu@2). With the archive's weights config as the
 * state dict the verifier's state checks pass too. */
Test(lint, real_programs) {
    DIR *d = opendir(REAL_DIR);
    if (!d) {
        printf("lint.real_programs: %s is absent, skipped\n", REAL_DIR);
        return;
    }
    struct dirent *de;
    int count = 0, with_state = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 12 || strcmp(de->d_name + l - 12, "__model.json") != 0)
            continue;
        char path[1024], wpath[1100];
        snprintf(path, sizeof path, "%s/%s", REAL_DIR, de->d_name);
        snprintf(wpath, sizeof wpath, "%.*s__model_weights_config.json", (int)(strlen(path) - 12),
                 path);
        exdb_program *p = load(path);
        exdb_arena a;
        exdb_arena_init(&a);
        const char **names = NULL;
        int nn = weight_names(wpath, &a, &names);
        exdb_lint_state st = {nn >= 0, 0, names, nn > 0 ? (uint32_t)nn : 0, NULL, 0, NULL, NULL};
        with_state += nn >= 0;
        exdb_lint_report r;
        exdb_lint_report_init(&r);
        exdb_lint_program(&r, p, &st);
        cr_assert_eq(r.count[EXDB_SEV_ERROR] + r.count[EXDB_SEV_WARNING], 0, "%s: %s", path,
                     r.n ? r.items[0].what : "");
        cr_assert_eq(count_check(&r, "unflatten.repeated-call"), (int)r.n, "%s", path);
        exdb_lint_report_free(&r);
        exdb_arena_destroy(&a);
        exdb_program_free(p);
        count++;
    }
    closedir(d);
    cr_assert_gt(count, 0);
    printf("lint.real_programs: %d programs clean (%d checked against their weights config)\n",
           count, with_state);
}

/* The sanitizer build's fault injection (core/base/fault.h, in
 * build/san/libexdb.a). */
void exdb_fault_arm(unsigned long n, int flags);
unsigned long exdb_fault_seen(void);
unsigned long exdb_fault_failed(void);

/* The pre-flight lint with every arena call and malloc failing in turn, on
 * shared modules nested 13 deep (gen_modgraph.py alias 13: calls entered
 * again under keys seen before): each run says out of memory (r.oom) or
 * gives the findings of the run without failures, and never crashes (a
 * frame whose call record could not be made once left a NULL behind that
 * the next frame of that call read: UBSan, found by the fault walk). */
Test(lint, unflatten_preflight_out_of_memory) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load("tests/fixtures/modgraph/alias_13.json", NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_lint_report ref;
    exdb_lint_report_init(&ref);
    exdb_fault_arm(ULONG_MAX, 2 /* EXDB_FAULT_ARENA_CALLS: counts, never fails */);
    exdb_lint_unflatten(&ref, p, NULL);
    unsigned long total = exdb_fault_seen();
    exdb_fault_arm(0, 0);
    cr_assert_eq(ref.oom, 0);
    cr_assert_gt(total, 10);
    for (unsigned long n = 1; n <= total; n++) {
        exdb_lint_report r;
        exdb_lint_report_init(&r);
        exdb_fault_arm(n, 2);
        exdb_lint_unflatten(&r, p, NULL);
        unsigned long failed = exdb_fault_failed();
        exdb_fault_arm(0, 0);
        cr_assert(failed == 0 || r.oom || r.n == ref.n, "n %lu: %u findings, %u without failures",
                  n, r.n, ref.n);
        exdb_lint_report_free(&r);
    }
    exdb_lint_report_free(&ref);
    exdb_program_free(p);
}

/* Graph.lint: "Node 'x' does not belong to this Graph!" for a node linked
 * into the list of another graph (as only a pass that moves nodes between
 * graphs by hand can make) */
Test(lint, node_of_another_graph) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a), *other = exdb_graph_new(&a);
    exdb_node *x = call(g, EXDB_OP_PLACEHOLDER, "x", tuple(&a, 0), NULL);
    exdb_node *y =
        call(g, EXDB_OP_CALL_FUNCTION, "torch.relu", tuple(&a, 1, exdb_arg_node(x)), NULL);
    call(g, EXDB_OP_OUTPUT, "output", tuple(&a, 1, exdb_arg_node(y)), "output");
    x->graph = other;
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_gt(exdb_lint_graph(&r, g, NULL, NULL), 0);
    const exdb_finding *f = find_check(&r, "fx.foreign-node");
    cr_assert_not_null(f);
    cr_assert_str_eq(f->what, "Node 'x' does not belong to this Graph!");
    x->graph = g;
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}

/* Graph.lint walks into list arguments: a node used inside a nested list
 * before its definition is reported as FX reports it */
Test(lint, use_before_def_inside_a_nested_list) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a);
    exdb_node *x = call(g, EXDB_OP_PLACEHOLDER, "x", tuple(&a, 0), NULL);
    exdb_node *late =
        call(g, EXDB_OP_CALL_FUNCTION, "torch.relu", tuple(&a, 1, exdb_arg_node(x)), "late");
    exdb_graph_insert_before(g, late);
    exdb_arg inner = tuple(&a, 2, exdb_arg_node(x), exdb_arg_node(late));
    inner.kind = EXDB_ARG_LIST;
    exdb_arg outer = tuple(&a, 1, inner);
    outer.kind = EXDB_ARG_LIST;
    exdb_node *cat = call(g, EXDB_OP_CALL_FUNCTION, "torch.cat", tuple(&a, 1, outer), "cat");
    exdb_graph_insert_append(g);
    call(g, EXDB_OP_OUTPUT, "output", tuple(&a, 1, exdb_arg_node(cat)), "output");
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    cr_assert_gt(exdb_lint_graph(&r, g, NULL, NULL), 0);
    const exdb_finding *f = find_check(&r, "fx.use-before-def");
    cr_assert_not_null(f);
    cr_assert(strstr(f->what, "Argument 'late' of Node 'cat' was used before it has been defined!"),
              "%s", f->what);
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
}
