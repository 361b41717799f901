/* test_load.c - the program loader (core/export/program.c and its load_*.c) on small programs held
 * in strings: how the FX graph is rebuilt and named (multi-output ops and their getitems, sym ops,
 * ops returning nothing, constant inputs, kwargs, higher-order ops with subgraphs), old schemas
 * (2, 5.x, 8.14), and the printers (str(graph), print_tabular, the signature) on the result.
 *
 * Programs are written with ' for " (and ` for \" inside JSON strings) to
 * keep them readable; q2json() converts them. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/version.h"
#include "core/export/describe.h"
#include "core/fx/graph.h"
#include "core/fx/print.h"
#include "core/export/load_meta.h"
#include "core/export/load_sigtext.h"
#include "core/export/program.h"
#include "core/format/json_ahead.h"
#include "core/base/strbuf.h"
#include "testutil.h"

static exdb_program *prog;
static exdb_buf out;

static void setup(void) {
    prog = NULL;
    exdb_buf_init(&out);
}

static void teardown(void) {
    exdb_program_free(prog);
    exdb_buf_free(&out);
}

TestSuite(load, .init = setup, .fini = teardown);

/* ' -> ", ` -> \" ; malloc'd (the loader adopts the buffer). */
static char *q2json(const char *q) {
    size_t n = strlen(q), w = 0;
    char *s = malloc(2 * n + 1);
    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++) {
        if (q[i] == '\'') {
            s[w++] = '"';
        } else if (q[i] == '`') {
            s[w++] = '\\';
            s[w++] = '"';
        } else {
            s[w++] = q[i];
        }
    }
    s[w] = '\0';
    return s;
}

static exdb_program *try_load(const char *q, exdb_error *err) {
    char *s = q2json(q);
    return exdb_program_from_json(s, strlen(s), "t.json", err);
}

static exdb_program *load(const char *q) {
    exdb_error err = {0};
    prog = try_load(q, &err);
    cr_assert_not_null(prog, "load failed: %s", err.msg);
    return prog;
}

static const char *load_error(const char *q) {
    static exdb_error err;
    memset(&err, 0, sizeof err);
    exdb_program *p = try_load(q, &err);
    cr_assert_null(p, "loaded");
    return err.msg;
}

static const char *graph_text(const exdb_graph *g) {
    exdb_buf_reset(&out);
    exdb_print_graph(&out, g);
    return exdb_buf_str(&out);
}

/* A schema-8.20 program around the given graph pieces. */
#define PROG(inputs, nodes, outputs, in_specs, out_specs)                                          \
    "{'schema_version': {'major': 8, 'minor': 20}, 'torch_version': '2.12.0',"                     \
    " 'graph_module': {'graph': {'inputs': [" inputs "], 'outputs': [" outputs "],"                \
    " 'nodes': [" nodes "], 'tensor_values': {}, 'sym_int_values': {},"                            \
    " 'is_single_tensor_return': false},"                                                          \
    " 'signature': {'input_specs': [" in_specs "], 'output_specs': [" out_specs "]},"              \
    " 'module_call_graph': [{'fqn': '', 'signature': null}]}}"

#define T(n)      "{'as_tensor': {'name': '" n "'}}"
#define UIN(n)    "{'user_input': {'arg': " T(n) "}}"
#define UOUT(n)   "{'user_output': {'arg': " T(n) "}}"
#define ARG(n, a) "{'name': '" n "', 'arg': " a ", 'kind': 1}"
#define KW(n, a)  "{'name': '" n "', 'arg': " a ", 'kind': 2}"

/* The programs below are built from string pieces; clang-format would
 * scatter them across the page, so the rest of the file is laid out by hand. */
// clang-format off
Test(load, multi_output_ops_and_getitems) {
    load(PROG(T("x"),
              /* a single list output: getitems straight off the node */
              "{'target': 'torch.ops.aten.split_with_sizes.default',"
              " 'inputs': [" ARG("self", T("x")) ", " ARG("split_sizes", "{'as_ints': [2, 2]}") "],"
              " 'outputs': [{'as_tensors': [{'name': 'getitem'}, {'name': 'getitem_1'}]}],"
              " 'metadata': {}, 'name': 'split_with_sizes'},"
              /* several outputs, the unused ones named <node>_unused_<k> */
              "{'target': 'torch.ops.aten._native_batch_norm_legit_no_training.default',"
              " 'inputs': [" ARG("input", T("getitem")) ", " ARG("momentum", "{'as_float': 0.1}")
              ", " ARG("eps", "{'as_float': 1e-05}") "],"
              " 'outputs': [" T("getitem_2") ", " T("_native_batch_norm_legit_no_training_unused_1")
              ", " T("_native_batch_norm_legit_no_training_unused_2") "],"
              " 'metadata': {}, 'name': '_native_batch_norm_legit_no_training'},"
              /* a tensor and a tensor list: the list gets an auto-named getitem */
              "{'target': 'torch.ops.mylib.multi.default', 'inputs': [" ARG("x", T("getitem_2")) "],"
              " 'outputs': [" T("v") ", {'as_tensors': [{'name': 'w0'}, {'name': 'w1'}]}],"
              " 'metadata': {}, 'name': 'multi'},"
              "{'target': 'torch.ops.aten.add.Tensor',"
              " 'inputs': [" ARG("self", T("getitem_1")) ", " ARG("other", T("w1")) "],"
              " 'outputs': [" T("add") "], 'metadata': {}, 'name': 'add'}",
              T("add") ", " T("getitem_2"), UIN("x"), UOUT("add") ", " UOUT("getitem_2")));
    cr_assert_str_eq(
        graph_text(prog->graph),
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %split_with_sizes : [num_users=2] = "
        "call_function[target=torch.ops.aten.split_with_sizes.default](args = (%x, [2, 2]), "
        "kwargs = {})\n"
        "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = "
        "(%split_with_sizes, 0), kwargs = {})\n"
        "    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = "
        "(%split_with_sizes, 1), kwargs = {})\n"
        "    %_native_batch_norm_legit_no_training : [num_users=3] = "
        "call_function[target=torch.ops.aten._native_batch_norm_legit_no_training.default](args = "
        "(%getitem, 0.1, 1e-05), kwargs = {})\n"
        "    %getitem_2 : [num_users=2] = call_function[target=operator.getitem](args = "
        "(%_native_batch_norm_legit_no_training, 0), kwargs = {})\n"
        "    %_native_batch_norm_legit_no_training_unused_1 : [num_users=0] = "
        "call_function[target=operator.getitem](args = (%_native_batch_norm_legit_no_training, 1), "
        "kwargs = {})\n"
        "    %_native_batch_norm_legit_no_training_unused_2 : [num_users=0] = "
        "call_function[target=operator.getitem](args = (%_native_batch_norm_legit_no_training, 2), "
        "kwargs = {})\n"
        "    %multi : [num_users=2] = call_function[target=torch.ops.mylib.multi.default](args = "
        "(%getitem_2,), kwargs = {})\n"
        "    %v : [num_users=0] = call_function[target=operator.getitem](args = (%multi, 0), kwargs "
        "= {})\n"
        "    %getitem_3 : [num_users=2] = call_function[target=operator.getitem](args = (%multi, 1), "
        "kwargs = {})\n"
        "    %w0 : [num_users=0] = call_function[target=operator.getitem](args = (%getitem_3, 0), "
        "kwargs = {})\n"
        "    %w1 : [num_users=1] = call_function[target=operator.getitem](args = (%getitem_3, 1), "
        "kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = "
        "(%getitem_1, %w1), kwargs = {})\n"
        "    return (add, getitem_2)");
    exdb_node *multi = exdb_graph_find(prog->graph, "multi");
    cr_assert_not_null(multi);
    cr_assert_eq(multi->meta->val->kind, EXDB_VAL_TUPLE);
    cr_assert_eq(multi->meta->val->n, 2);
    cr_assert_eq(multi->src, 2, "index in the serialized nodes");
    cr_assert_eq(exdb_graph_find(prog->graph, "w1")->src, 2, "getitems point at their producer");
    cr_assert_eq(prog->nserialized_nodes, 4);
}

Test(load, symbolic_ops_are_named_after_their_output) {
    /* no Node.name (8.14 style): the printed name is still the as_name */
    load("{'schema_version': {'major': 8, 'minor': 14},"
         " 'graph_module': {'graph': {'inputs': [" T("x") "], 'outputs': [" T("view") "],"
         " 'nodes': ["
         "{'target': 'torch.ops.aten.sym_size.int', 'inputs': [" ARG("self", T("x")) ", " ARG(
             "dim", "{'as_int': 0}") "],"
         " 'outputs': [{'as_sym_int': {'as_name': 's0_size'}}], 'metadata': {}},"
         "{'target': '_operator.mul', 'inputs': [{'name': 'a', 'arg': {'as_sym_int': {'as_name': "
         "'s0_size'}}}, {'name': 'b', 'arg': {'as_int': 2}}],"
         " 'outputs': [{'as_sym_int': {'as_name': 'mul'}}], 'metadata': {}},"
         "{'target': 'torch.ops.aten.view.default', 'inputs': [" ARG("self", T("x")) ", " ARG(
             "size", "{'as_sym_ints': [{'as_name': 'mul'}, {'as_int': -1}]}") "],"
         " 'outputs': [" T("view") "], 'metadata': {}}],"
         " 'tensor_values': {'x': {'dtype': 7, 'sizes': [{'as_expr': {'expr_str': 's0', 'hint': "
         "{'as_int': 4}}}], 'requires_grad': false, 'device': {'type': 'cpu', 'index': null}, "
         "'strides': [{'as_int': 1}], 'storage_offset': {'as_int': 0}, 'layout': 7}},"
         " 'sym_int_values': {'s0_size': {'as_expr': {'expr_str': 's0', 'hint': {'as_int': 4}}},"
         " 'mul': {'as_expr': {'expr_str': '2*s0', 'hint': null}}}},"
         " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("view") "]}}}");
    cr_assert_str_eq(graph_text(prog->graph),
                     "graph():\n"
                     "    %x : [num_users=2] = placeholder[target=x]\n"
                     "    %s0_size : [num_users=1] = "
                     "call_function[target=torch.ops.aten.sym_size.int](args = (%x, 0), kwargs = "
                     "{})\n"
                     "    %mul : [num_users=1] = call_function[target=operator.mul](args = "
                     "(%s0_size, 2), kwargs = {})\n"
                     "    %view : [num_users=1] = call_function[target=torch.ops.aten.view.default]"
                     "(args = (%x, [%mul, -1]), kwargs = {})\n"
                     "    return (view,)");
    const exdb_node *s = exdb_graph_find(prog->graph, "s0_size");
    cr_assert_not_null(s);
    cr_assert_eq(s->meta->val->kind, EXDB_VAL_SYMINT);
    cr_assert_str_eq(s->meta->val->u.sym.expr, "s0");
    cr_assert_eq(s->meta->val->u.sym.v.i, 4);
    const exdb_node *m = exdb_graph_find(prog->graph, "mul");
    cr_assert_eq(m->meta->val->u.sym.has_hint, 0);
    cr_assert_eq(m->tkind, EXDB_T_PYFN);
    /* the namespace registered what create_node was given (sym_size_int from
     * the target), so a later candidate of that name is suffixed */
    cr_assert_str_eq(exdb_graph_create_name(prog->graph, "sym_size_int"), "sym_size_int_1");
}

/* x -> relu -> a -> neg -> b with the given value tables (meta["val"]). */
#define VALPROG(tables)                                                                            \
    "{'schema_version': {'major': 8, 'minor': 20}, 'torch_version': '2.12.0',"                     \
    " 'graph_module': {'graph': {'inputs': [" T("x") "], 'outputs': [" T("b") "], 'nodes': ["       \
    "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("x")) "],"               \
    " 'outputs': [" T("a") "], 'metadata': {}, 'name': 'a'},"                                     \
    "{'target': 'torch.ops.aten.neg.default', 'inputs': [" ARG("self", T("a")) "],"                \
    " 'outputs': [" T("b") "], 'metadata': {}, 'name': 'b'}], " tables ","                         \
    " 'is_single_tensor_return': false},"                                                          \
    " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("b") "]}}}"
#define TM(ndim) "{'dtype': 7, 'sizes': [" ndim "], 'requires_grad': false}"

/* The dimensions of node `name`'s tensor val, -1 for a val of another kind. */
static int val_ndim(const char *name) {
    const exdb_node *n = exdb_graph_find(prog->graph, name);
    cr_assert(n && n->meta && n->meta->val, "%s has no val", name);
    return n->meta->val->kind == EXDB_VAL_TENSOR ? (int)n->meta->val->u.t->ndim : -1;
}

/* The loader takes the value tables' entries in file order while they come
 * in the order the graph defines them, and looks the rest up by name: the
 * answers are those of a lookup by name (the last of repeated names, a
 * later table's entry over an earlier one's) in every order. */
Test(load, value_tables_in_any_order) {
    const char *in_order = VALPROG("'tensor_values': {'x': " TM("{'as_int': 1}") ", 'a': " TM(
        "{'as_int': 1}, {'as_int': 2}") ", 'b': " TM("{'as_int': 1}, {'as_int': 2}, {'as_int': 3}") "}");
    const char *reversed = VALPROG("'tensor_values': {'b': " TM(
        "{'as_int': 1}, {'as_int': 2}, {'as_int': 3}") ", 'a': " TM("{'as_int': 1}, {'as_int': 2}") ","
        " 'x': " TM("{'as_int': 1}") "}");
    const char *gap = VALPROG("'tensor_values': {'x': " TM("{'as_int': 1}") ", 'b': " TM(
        "{'as_int': 1}, {'as_int': 2}, {'as_int': 3}") "}");
    const char *progs[] = {in_order, reversed};
    for (int i = 0; i < 2; i++) {
        load(progs[i]);
        cr_assert_eq(val_ndim("x"), 1);
        cr_assert_eq(val_ndim("a"), 2);
        cr_assert_eq(val_ndim("b"), 3);
        exdb_program_free(prog);
        prog = NULL;
    }
    load(gap);
    cr_assert_eq(val_ndim("x"), 1);
    cr_assert_null(exdb_graph_find(prog->graph, "a")->meta->val);
    cr_assert_eq(val_ndim("b"), 3);
    exdb_program_free(prog);
    /* a repeated name: the last entry, even where the first is in order */
    load(VALPROG("'tensor_values': {'x': " TM("{'as_int': 1}") ", 'a': " TM(
        "{'as_int': 5}") ", 'a': " TM("{'as_int': 1}, {'as_int': 2}") ", 'b': " TM(
        "{'as_int': 1}, {'as_int': 2}, {'as_int': 3}") "}"));
    cr_assert_eq(val_ndim("a"), 2);
    cr_assert_eq(val_ndim("b"), 3);
    exdb_program_free(prog);
    /* a name in two tables: the later table's */
    load(VALPROG("'tensor_values': {'x': " TM("{'as_int': 1}") ", 'a': " TM(
        "{'as_int': 1}, {'as_int': 2}") ", 'b': " TM("{'as_int': 1}, {'as_int': 2}, {'as_int': 3}") "},"
        " 'sym_int_values': {'a': {'as_int': 3}}"));
    cr_assert_eq(val_ndim("x"), 1);
    cr_assert_eq(val_ndim("a"), -1);
    cr_assert_eq(val_ndim("b"), 3);
}

/* A node's strings are checked (UTF-8, no U+0000) when the node is loaded;
 * a node whose text is ASCII with no \u escape beyond it is not scanned
 * again (EXDB_JTEXT_CLEAN), so the escapes must still be caught there. The
 * programs here are one line of ASCII, as torch.export.save writes them. */
Test(load, node_strings_checked_after_escapes) {
#define RELU(arg, name, meta)                                                                      \
    PROG(T("x"), "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T(arg)) "],"  \
                 " 'outputs': [" T("relu") "], 'metadata': {" meta "}, 'name': '" name "'}",        \
         T("relu"), UIN("x"), UOUT("relu"))
    cr_assert_str_eq(load_error(RELU("x\\u0000y", "relu", "")),
                     "t.json: $.graph_module.graph.nodes[0].inputs[0].arg.as_tensor.name: expected "
                     "a string without \\u0000 (U+0000), found \"x\\u0000y\"");
    cr_assert_str_eq(load_error(RELU("x", "relu\\ud800", "")),
                     "t.json: $.graph_module.graph.nodes[0].name: expected UTF-8 text, found "
                     "\"relu\\xed\\xa0\\x80\" (not UTF-8 from byte 4: a surrogate, a \\ud800-\\udfff "
                     "escape without its pair)");
    cr_assert_str_eq(load_error(RELU("x", "relu", "'stack_trace': 'a\\u0000b'")),
                     "t.json: $.graph_module.graph.nodes[0].metadata.stack_trace: expected a string "
                     "without \\u0000 (U+0000), found \"a\\u0000b\"");
    load(RELU("x", "relu", "'stack_trace': 'caf\\u00e9 \\ud83d\\ude00', 'note': '\\u0001'"));
    const exdb_node *n = exdb_graph_find(prog->graph, "relu");
    cr_assert_str_eq(exdb_meta_stack_trace(n->meta), "caf\xc3\xa9 \xf0\x9f\x98\x80");
#undef RELU
}

Test(load, ops_returning_nothing) {
    load(PROG(T("x"),
              "{'target': 'torch.ops.aten._assert_scalar.default',"
              " 'inputs': [" ARG("self", "{'as_bool': true}") ", " ARG("assert_msg",
                                                                         "{'as_string': 'boom'}") "],"
              " 'outputs': [], 'metadata': {}},"
              "{'target': 'torch.ops.aten._assert_scalar.default',"
              " 'inputs': [" ARG("self", "{'as_bool': true}") "], 'outputs': [], 'metadata': {}},"
              /* one None output: renamed <target __name__>_unused, even with a Node.name */
              "{'target': 'torch.ops.mylib.logIt.default', 'inputs': [" ARG("x", T("x")) "],"
              " 'outputs': [{'as_none': true}], 'metadata': {}, 'name': 'log_it'},"
              /* a HOP with a None output and no single-return flag: same rule */
              "{'target': 'torch.ops.higher_order.foo', 'inputs': [{'name': '', 'arg': " T("x") "}],"
              " 'outputs': [{'as_none': true}], 'metadata': {}, 'is_hop_single_tensor_return': null},"
              "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("x")) "],"
              " 'outputs': [" T("relu") "], 'metadata': {}, 'name': 'relu'}",
              T("relu"), UIN("x"), UOUT("relu")));
    cr_assert_str_eq(
        graph_text(prog->graph),
        "graph():\n"
        "    %x : [num_users=3] = placeholder[target=x]\n"
        "    %_assert_scalar_default : [num_users=0] = "
        "call_function[target=torch.ops.aten._assert_scalar.default](args = (True, boom), kwargs = "
        "{})\n"
        "    %_assert_scalar_default_1 : [num_users=0] = "
        "call_function[target=torch.ops.aten._assert_scalar.default](args = (True,), kwargs = {})\n"
        "    %log_it_default_unused : [num_users=0] = "
        "call_function[target=torch.ops.mylib.logIt.default](args = (%x,), kwargs = {})\n"
        "    %foo_unused : [num_users=0] = call_function[target=torch.ops.higher_order.foo](args = "
        "(%x,), kwargs = {})\n"
        "    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%x,), "
        "kwargs = {})\n"
        "    return (relu,)");
    const exdb_node *u = exdb_graph_find(prog->graph, "log_it_default_unused");
    cr_assert_not_null(u);
    cr_assert_eq(u->meta->val->kind, EXDB_VAL_NONE);
    /* print_tabular quotes strings (repr) and shows OpOverload.__str__ */
    exdb_buf_reset(&out);
    exdb_print_tabular(&out, prog->graph);
    cr_assert_str_eq(
        exdb_buf_str(&out),
        "opcode         name                      target                       args            "
        "kwargs\n"
        "-------------  ------------------------  ---------------------------  --------------  "
        "--------\n"
        "placeholder    x                         x                            ()              "
        "{}\n"
        "call_function  _assert_scalar_default    aten._assert_scalar.default  (True, 'boom')  "
        "{}\n"
        "call_function  _assert_scalar_default_1  aten._assert_scalar.default  (True,)         "
        "{}\n"
        "call_function  log_it_default_unused     mylib.logIt.default          (x,)            "
        "{}\n"
        "call_function  foo_unused                foo                          (x,)            "
        "{}\n"
        "call_function  relu                      aten.relu.default            (x,)            "
        "{}\n"
        "output         output                    output                       ((relu,),)      "
        "{}");
}

Test(load, constant_inputs_and_forced_names) {
    load(PROG(T("sum") ", {'as_int': 3}, {'as_string': 'mean'}, {'as_none': true}",
              "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("sum")) "],"
              " 'outputs': [" T("relu") "], 'metadata': {}, 'name': 'relu'}",
              T("relu") ", {'as_int': 1}",
              UIN("sum") ", {'constant_input': {'name': 'n', 'value': {'as_int': 3}}},"
                         " {'constant_input': {'name': 'myMode', 'value': {'as_string': 'mean'}}},"
                         " {'constant_input': {'name': 'input', 'value': {'as_none': true}}}",
              UOUT("relu") ", {'user_output': {'arg': {'as_int': 1}}}"));
    /* named inputs print as named (even "sum"); constants get create_name's
     * version of their spec name, their target the name itself */
    cr_assert_str_eq(graph_text(prog->graph),
                     "graph():\n"
                     "    %sum : [num_users=1] = placeholder[target=sum]\n"
                     "    %n : [num_users=0] = placeholder[target=n]\n"
                     "    %my_mode : [num_users=0] = placeholder[target=myMode]\n"
                     "    %input_1 : [num_users=0] = placeholder[target=input]\n"
                     "    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default]"
                     "(args = (%sum,), kwargs = {})\n"
                     "    return (relu, 1)");
    const exdb_node *n = exdb_graph_find(prog->graph, "n");
    cr_assert_eq(n->meta->val->kind, EXDB_VAL_CONST);
    cr_assert_eq(n->meta->val->u.arg->kind, EXDB_ARG_INT);
    cr_assert_eq(n->meta->val->u.arg->u.i, 3);
    cr_assert_eq(prog->inputs[2].kind, EXDB_IN_CONSTANT_INPUT);
    cr_assert_str_eq(prog->inputs[2].name, "myMode");
    cr_assert_eq(prog->inputs[2].value.kind, EXDB_ARG_STR);
    cr_assert_null(prog->outputs[1].name);
    exdb_buf_reset(&out);
    exdb_print_signature(&out, prog);
    cr_assert_str_eq(exdb_buf_str(&out), "\n# inputs\n"
                                         "sum: USER_INPUT\n"
                                         "n: USER_INPUT\n"
                                         "myMode: USER_INPUT\n"
                                         "input: USER_INPUT\n"
                                         "\n# outputs\n"
                                         "relu: USER_OUTPUT\n"
                                         ": USER_OUTPUT\n");
}

Test(load, synced_names_win_over_node_name) {
    /* create_node gets Node.name, then sync_fx_node forces the value name */
    load(PROG(T("input"),
              "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("input")) "],"
              " 'outputs': [" T("r") "], 'metadata': {}, 'name': 'relu'}",
              T("r"), UIN("input"), UOUT("r")));
    cr_assert_str_eq(graph_text(prog->graph),
                     "graph():\n"
                     "    %input : [num_users=1] = placeholder[target=input]\n"
                     "    %r : [num_users=1] = call_function[target=torch.ops.aten.relu.default]"
                     "(args = (%input,), kwargs = {})\n"
                     "    return (r,)");
    cr_assert_eq(exdb_graph_find(prog->graph, "r")->op, EXDB_OP_CALL_FUNCTION);
    cr_assert_null(exdb_graph_find(prog->graph, "relu"), "the registered name is not the node's");
    cr_assert_str_eq(exdb_graph_create_name(prog->graph, "relu"), "relu_1");
}

Test(load, kwargs_and_positional_args) {
    load(PROG(T("x"),
              "{'target': 'torch.ops.aten.sum.dim_IntList', 'inputs': [" ARG("self", T("x")) ", " ARG(
                  "dim", "{'as_ints': [-1]}") ", " KW("keepdim", "{'as_bool': true}") "],"
              " 'outputs': [" T("sum_1") "], 'metadata': {}, 'name': 'sum_1'},"
              /* KEYWORD but a Python keyword: positional */
              "{'target': 'torch.ops.aten.random_.from', 'inputs': [" ARG("self", T("sum_1")) ", " KW(
                  "from", "{'as_int': 0}") ", " KW("to", "{'as_int': 10}") "],"
              " 'outputs': [" T("random") "], 'metadata': {}, 'name': 'random'},"
              /* no kind (5.x) or kind 0: positional */
              "{'target': 'torch.ops.aten.mul.Tensor', 'inputs': [{'name': 'self', 'arg': " T(
                  "random") "}, {'name': 'other', 'arg': {'as_float': 2.5}, 'kind': 0}],"
              " 'outputs': [" T("mul") "], 'metadata': {}, 'name': 'mul'},"
              /* HOP: named inputs are kwargs */
              "{'target': 'torch.ops.higher_order.wrap', 'inputs': [{'name': '', 'arg': " T(
                  "mul") ", 'kind': 1}, {'name': 'flag', 'arg': {'as_bool': false}, 'kind': 1}],"
              " 'outputs': [" T("w") "], 'metadata': {}, 'is_hop_single_tensor_return': true}",
              T("w"), UIN("x"), UOUT("w")));
    cr_assert_str_eq(
        graph_text(prog->graph),
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.dim_IntList](args = "
        "(%x, [-1]), kwargs = {keepdim: True})\n"
        "    %random : [num_users=1] = call_function[target=torch.ops.aten.random_.from](args = "
        "(%sum_1, 0), kwargs = {to: 10})\n"
        "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%random, "
        "2.5), kwargs = {})\n"
        "    %w : [num_users=1] = call_function[target=torch.ops.higher_order.wrap](args = (%mul,), "
        "kwargs = {flag: False})\n"
        "    return (w,)");
    exdb_buf_reset(&out);
    exdb_repr_arg(&out, &exdb_graph_find(prog->graph, "sum_1")->kwargs);
    cr_assert_str_eq(exdb_buf_str(&out), "{'keepdim': True}");
}

Test(load, argument_kinds_print_like_python) {
    load(PROG(T("x"),
              "{'target': 'torch.ops.mylib.foo.default', 'inputs': ["
              ARG("a", T("x")) ", "
              ARG("b", "{'as_int_lists': [[1, 2], [3]]}") ", "
              ARG("c", "{'as_operator': 'torch.ops.aten.add.Tensor'}") ", "
              ARG("d", "{'as_device': {'type': 'cuda', 'index': 0}}") ", "
              ARG("e", "{'as_scalar_type': 7}") ", "
              ARG("f", "{'as_layout': 7}") ", "
              ARG("g", "{'as_memory_format': 1}") ", "
              ARG("h", "{'as_float': 1e-05}") ", "
              ARG("i", "{'as_complex': {'real': 1.0, 'imag': -2.0}}") ", "
              ARG("j", "{'as_string_to_argument': {'k': {'as_int': 1}}}") ", "
              ARG("k", "{'as_optional_tensors': [" T("x") ", {'as_none': true}]}") ", "
              ARG("l", "{'as_strings': ['a', 'it`s']}") ", "
              ARG("m", "{'as_operator': '_operator.add'}") ", "
              /* a repeated key: the last one wins */
              ARG("n", "{'as_int': 1, 'as_int': 2}") ", "
              KW("alpha", "{'as_float': 'Infinity'}") "],"
              " 'outputs': [" T("foo") "], 'metadata': {}, 'name': 'foo'}",
              T("foo"), UIN("x"), UOUT("foo")));
    const exdb_node *n = exdb_graph_find(prog->graph, "foo");
    exdb_buf_reset(&out);
    exdb_format_node(&out, n);
    cr_assert_str_eq(exdb_buf_str(&out),
                     "%foo : [num_users=1] = call_function[target=torch.ops.mylib.foo.default](args "
                     "= (%x, [(1, 2), (3,)], aten.add.Tensor, cuda:0, torch.float32, torch.strided, "
                     "torch.contiguous_format, 1e-05, (1-2j), {k: 1}, [%x, None], [a, it\"s], "
                     "<built-in function add>, 2), kwargs = {alpha: inf})");
    exdb_buf_reset(&out);
    exdb_repr_arg(&out, &n->args);
    cr_assert_str_eq(exdb_buf_str(&out),
                     "(x, [(1, 2), (3,)], <OpOverload(op='aten.add', overload='Tensor')>, "
                     "device(type='cuda', index=0), torch.float32, torch.strided, "
                     "torch.contiguous_format, 1e-05, (1-2j), {'k': 1}, [x, None], ['a', "
                     "'it\"s'], <built-in function add>, 2)");
}

Test(load, higher_order_op_with_subgraphs) {
#define SUB(nm, op, out)                                                                           \
    "{'as_graph': {'name': '" nm "', 'graph': {'inputs': [" T("x_1") "], 'outputs': [" T(out) "],"   \
    " 'nodes': [{'target': 'torch.ops.aten." op ".default', 'inputs': [" ARG("self", T("x_1")) "],"  \
    " 'outputs': [" T(out) "], 'metadata': {}, 'name': '" out "'}], 'tensor_values': {},"           \
    " 'is_single_tensor_return': false}}}"
    load(PROG(T("p") ", " T("x"),
              "{'target': 'torch.ops.higher_order.cond', 'inputs': [{'name': '', 'arg': " T(
                  "p") "}, {'name': '', 'arg': " SUB("true_graph_0", "relu", "relu") "},"
                       " {'name': '', 'arg': " SUB("false_graph_0", "neg", "neg") "},"
                       " {'name': '', 'arg': {'as_tensors': [{'name': 'x'}]}}],"
              " 'outputs': [" T("getitem") "], 'is_hop_single_tensor_return': false,"
              " 'metadata': {'nn_module_stack': 'L__self__,,m.M'}, 'name': 'cond'}",
              T("getitem"), UIN("p") ", " UIN("x"), UOUT("getitem")));
    cr_assert_str_eq(
        graph_text(prog->graph),
        "graph():\n"
        "    %p : [num_users=1] = placeholder[target=p]\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]\n"
        "    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]\n"
        "    %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%p, "
        "%true_graph_0, %false_graph_0, [%x]), kwargs = {})\n"
        "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), "
        "kwargs = {})\n"
        "    return (getitem,)");
    cr_assert_eq(prog->nsubgraphs, 2);
    cr_assert_str_eq(prog->subgraphs[0].name, "true_graph_0");
    cr_assert_str_eq(prog->subgraphs[1].name, "false_graph_0");
    const exdb_node *ga = exdb_graph_find(prog->graph, "true_graph_0");
    cr_assert_eq(prog->subgraphs[0].owner, ga);
    cr_assert_eq(ga->op, EXDB_OP_GET_ATTR);
    cr_assert_eq(ga->meta->nstack, 1, "get_attr takes the HOP's metadata");
    cr_assert_str_eq(graph_text(prog->subgraphs[0].graph),
                     "graph():\n"
                     "    %x_1 : [num_users=1] = placeholder[target=x_1]\n"
                     "    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default]"
                     "(args = (%x_1,), kwargs = {})\n"
                     "    return (relu,)");
    cr_assert_str_eq(graph_text(prog->subgraphs[1].graph),
                     "graph():\n"
                     "    %x_1 : [num_users=1] = placeholder[target=x_1]\n"
                     "    %neg : [num_users=1] = call_function[target=torch.ops.aten.neg.default]"
                     "(args = (%x_1,), kwargs = {})\n"
                     "    return (neg,)");
    /* the getitem copies the producer's metadata */
    cr_assert_eq(exdb_graph_find(prog->graph, "getitem")->meta->nstack, 1);
#undef SUB
}

Test(load, symbolic_list_outputs) {
    load(PROG(T("x"),
              "{'target': 'torch.ops.mylib.shape.default', 'inputs': [" ARG("x", T("x")) "],"
              " 'outputs': [{'as_sym_ints': [{'as_name': 'd0'}, {'as_name': 'd1'}]}, " T("t") ","
              " {'as_none': true}], 'metadata': {}, 'name': 'shape'}",
              T("t"), UIN("x"), UOUT("t")));
    cr_assert_str_eq(
        graph_text(prog->graph),
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %shape : [num_users=3] = call_function[target=torch.ops.mylib.shape.default](args = "
        "(%x,), kwargs = {})\n"
        "    %getitem : [num_users=2] = call_function[target=operator.getitem](args = (%shape, 0), "
        "kwargs = {})\n"
        "    %d0 : [num_users=0] = call_function[target=operator.getitem](args = (%getitem, 0), "
        "kwargs = {})\n"
        "    %d1 : [num_users=0] = call_function[target=operator.getitem](args = (%getitem, 1), "
        "kwargs = {})\n"
        "    %t : [num_users=1] = call_function[target=operator.getitem](args = (%shape, 1), kwargs "
        "= {})\n"
        "    %as_none : [num_users=0] = call_function[target=operator.getitem](args = (%shape, 2), "
        "kwargs = {})\n"
        "    return (t,)");
}

Test(load, schema_2_unions_list_every_variant) {
    load("{'schema_version': 2, 'dialect': 'ATEN', 'opset_version': {'aten': 10},"
         " 'graph_module': {'graph': {"
         "  'inputs': [{'as_none': null, 'as_tensor': {'name': 'x'}, 'as_int': null}],"
         "  'outputs': [{'as_none': null, 'as_tensor': {'name': 'add'}, 'as_int': null}],"
         "  'nodes': [{'target': 'torch.ops.aten.add.Tensor', 'inputs': ["
         "    {'name': 'self', 'arg': {'as_none': null, 'as_tensor': {'name': 'x'}, 'as_tensors': "
         "null, 'as_int': null}},"
         "    {'name': 'other', 'arg': {'as_none': null, 'as_tensor': null, 'as_int': null, "
         "'as_float': null}},"
         "    {'name': 'alpha', 'arg': {'$type': 'as_int', '$value': 3}}],"
         "   'outputs': [{'as_none': null, 'as_tensor': {'name': 'add'}, 'as_tensors': null}],"
         "   'metadata': {'source_fn_stack': 'add,add'}}],"
         "  'tensor_values': {}, 'sym_int_values': {}, 'sym_bool_values': {}},"
         " 'signature': {'input_specs': [{'user_input': {'arg': {'as_none': null, 'as_tensor': "
         "{'name': 'x'}}}, 'parameter': null, 'buffer': null}],"
         " 'output_specs': [{'user_output': {'arg': {'as_none': null, 'as_tensor': {'name': "
         "'add'}}}, 'loss_output': null}]}, 'module_call_graph': []}, 'range_constraints': {}}");
    cr_assert_eq(prog->schema_major, 2);
    cr_assert_eq(prog->schema_minor, 0);
    cr_assert_str_eq(prog->dialect, "ATEN");
    cr_assert_str_eq(graph_text(prog->graph),
                     "graph():\n"
                     "    %x : [num_users=1] = placeholder[target=x]\n"
                     "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor]"
                     "(args = (%x, None, 3), kwargs = {})\n"
                     "    return (add,)");
    cr_assert_eq(prog->inputs[0].kind, EXDB_IN_USER_INPUT);
    cr_assert_eq(prog->outputs[0].kind, EXDB_OUT_USER_OUTPUT);
    cr_assert_str_eq(prog->outputs[0].name, "add");
}

Test(load, schema_5_file) {
    load("{'schema_version': {'major': 5, 'minor': 3}, 'dialect': 'ATEN',"
         " 'range_constraints': {'s0': {'min_val': 2, 'max_val': Infinity}},"
         " 'graph_module': {'graph': {'inputs': [" T("x") "], 'outputs': [" T("sum_1") "],"
         "  'nodes': [{'target': 'torch.ops.aten.sum.dim_IntList', 'inputs': ["
         "   {'name': 'self', 'arg': " T("x") "}, {'name': 'dim', 'arg': {'as_ints': [1]}},"
         "   {'name': 'keepdim', 'arg': {'as_bool': true}}, {'name': 'dtype', 'arg': {'as_none': "
         "[]}}],"
         "   'outputs': [" T("sum_1") "], 'metadata': {}}],"
         "  'tensor_values': {'x': {'dtype': 7, 'sizes': [{'as_expr': {'expr_str': 's0'}}, {'as_int': "
         "3}], 'requires_grad': false, 'device': {'type': 'cpu'}, 'strides': [{'as_int': 3}, "
         "{'as_int': 1}], 'storage_offset': {'as_int': 0}, 'layout': 7}}},"
         " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("sum_1") "]},"
         " 'module_call_graph': []}}");
    cr_assert_str_eq(graph_text(prog->graph),
                     "graph():\n"
                     "    %x : [num_users=1] = placeholder[target=x]\n"
                     "    %sum_1 : [num_users=1] = "
                     "call_function[target=torch.ops.aten.sum.dim_IntList](args = (%x, [1], True, "
                     "None), kwargs = {})\n"
                     "    return (sum_1,)");
    cr_assert_eq(prog->nranges, 1);
    cr_assert_eq(prog->ranges[0].has_min, 1);
    cr_assert_eq(prog->ranges[0].min, 2);
    cr_assert_eq(prog->ranges[0].has_max, 0, "Infinity: unbounded");
    const exdb_val *v = exdb_graph_find(prog->graph, "x")->meta->val;
    cr_assert_eq(v->kind, EXDB_VAL_TENSOR);
    cr_assert_str_eq(v->u.t->sizes[0].expr, "s0");
    cr_assert_eq(v->u.t->sizes[0].has_hint, 0);
    cr_assert_eq(v->u.t->device_index, -1);
}

Test(load, schema_1_tensor_meta_and_hint_kinds) {
    /* schema 1 wraps a TensorMeta in {'meta': ...} and writes plain ints
     * for sizes and hints; a hint may be an int, float or bool; a device
     * may name its index */
    load("{'schema_version': {'major': 8, 'minor': 20}, 'torch_version': '2.12.0',"
         " 'graph_module': {'graph': {'inputs': [" T("x") "], 'outputs': [" T("s") "],"
         " 'nodes': [{'target': 'torch.ops.aten.sum.default', 'inputs': [" ARG("self", T("x")) "],"
         " 'outputs': [" T("s") "], 'metadata': {}, 'name': 's'}],"
         " 'tensor_values': {'x': {'meta': {'dtype': 7, 'sizes': [3,"
         " {'as_expr': {'expr_str': 's0', 'hint': 4}}, {'as_expr': {'expr_str': 's1', 'hint':"
         " {'as_float': 2.5}}}, {'as_expr': {'expr_str': 's2', 'hint': {'as_bool': true}}}],"
         " 'requires_grad': false, 'device': {'type': 'cuda', 'index': 1}}}}, 'sym_int_values': {},"
         " 'is_single_tensor_return': false},"
         " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("s") "]},"
         " 'module_call_graph': [{'fqn': '', 'signature': null}]}}");
    const exdb_tensor_meta *t = exdb_graph_find(prog->graph, "x")->meta->val->u.t;
    cr_assert_eq(t->ndim, 4);
    cr_assert_eq(t->sizes[0].v.i, 3);
    cr_assert(t->sizes[1].has_hint && t->sizes[1].v.i == 4);
    cr_assert(t->sizes[2].has_hint && t->sizes[2].v.f == 2.5);
    cr_assert(t->sizes[3].has_hint && t->sizes[3].v.b);
    cr_assert_eq(t->device_index, 1);
    cr_assert_str_eq(load_error(
        "{'schema_version': {'major': 8, 'minor': 20}, 'torch_version': '2.12.0',"
        " 'graph_module': {'graph': {'inputs': [" T("x") "], 'outputs': [" T("x") "],"
        " 'nodes': [], 'tensor_values': {'x': {'dtype': 7, 'sizes': [{'as_expr': {'expr_str':"
        " 's0', 'hint': {'as_str': 'a'}}}], 'requires_grad': false, 'device': {'type': 'cpu'}}},"
        " 'sym_int_values': {}, 'is_single_tensor_return': false},"
        " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("x") "]},"
        " 'module_call_graph': [{'fqn': '', 'signature': null}]}}"),
        "t.json: $.graph_module.graph.tensor_values.x.sizes[0].as_expr.hint: unknown SymExprHint"
        " kind \"as_str\" (expected \"as_int\", \"as_float\" or \"as_bool\")");
}

Test(load, call_signatures_with_symbolic_names_and_no_lists) {
    /* a symbolic input names its value (as_name); a signature may leave out
     * its inputs, outputs and specs; a schema-1 signature is refused */
    load("{'schema_version': {'major': 8, 'minor': 20}, 'torch_version': '2.12.0',"
         " 'graph_module': {'graph': {'inputs': [" T("x") "], 'outputs': [" T("x") "],"
         " 'nodes': [], 'tensor_values': {}, 'sym_int_values': {},"
         " 'is_single_tensor_return': false},"
         " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("x") "]},"
         " 'module_call_graph': [{'fqn': '', 'signature': {'inputs': [" T("x") ","
         " {'as_sym_int': {'as_name': 's0'}}, {'as_sym_int': {'as_int': 3}}], 'outputs': []}},"
         " {'fqn': 'a', 'signature': {}}]}}");
    const exdb_call_signature *s = prog->calls[0].sig;
    cr_assert_eq(s->ninputs, 3);
    cr_assert_str_eq(s->inputs[0], "x");
    cr_assert_str_eq(s->inputs[1], "s0");
    cr_assert_null(s->inputs[2]);
    cr_assert_null(s->in_spec);
    s = prog->calls[1].sig;
    cr_assert_eq(s->ninputs, 0);
    cr_assert_null(s->inputs);
    cr_assert_eq(s->noutputs, 0);
    cr_assert_str_eq(
        load_error("{'schema_version': {'major': 8, 'minor': 20}, 'torch_version': '2.12.0',"
                   " 'graph_module': {'graph': {'inputs': [], 'outputs': [], 'nodes': [],"
                   " 'tensor_values': {}, 'sym_int_values': {}, 'is_single_tensor_return': false},"
                   " 'signature': {'inputs_to_parameters': {}, 'user_inputs': []},"
                   " 'module_call_graph': []}}"),
        "t.json: $.graph_module.signature: schema-1 graph signature "
        "(inputs_to_parameters/user_inputs maps) is not supported; expected "
        "input_specs/output_specs");
}

Test(load, schema_8_14_nodes_without_name) {
    /* FX names the unnamed multi-output node from target.__name__ */
    load("{'schema_version': {'major': 8, 'minor': 14}, 'graph_module': {'graph': {"
         " 'inputs': [" T("x") "], 'outputs': [" T("getitem") ", " T("getitem_1") "],"
         " 'nodes': [{'target': 'torch.ops.aten.split_with_sizes.default', 'inputs': [" ARG(
             "self", T("x")) ", " ARG("split_sizes", "{'as_ints': [1, 1]}") "],"
         " 'outputs': [{'as_tensors': [{'name': 'getitem'}, {'name': 'getitem_1'}]}], 'metadata': "
         "{}, 'is_hop_single_tensor_return': null},"
         " {'target': 'torch.ops.aten.split_with_sizes.default', 'inputs': [" ARG("self", T("x")) ", " ARG(
             "split_sizes", "{'as_ints': [2]}") "],"
         " 'outputs': [{'as_tensors': [{'name': 'getitem_2'}]}], 'metadata': {}}],"
         " 'tensor_values': {}},"
         " 'signature': {'input_specs': [" UIN("x") "], 'output_specs': [" UOUT("getitem") ", " UOUT(
             "getitem_1") "]}}}");
    cr_assert_str_eq(
        graph_text(prog->graph),
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %split_with_sizes_default : [num_users=2] = "
        "call_function[target=torch.ops.aten.split_with_sizes.default](args = (%x, [1, 1]), kwargs "
        "= {})\n"
        "    %getitem : [num_users=1] = call_function[target=operator.getitem](args = "
        "(%split_with_sizes_default, 0), kwargs = {})\n"
        "    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = "
        "(%split_with_sizes_default, 1), kwargs = {})\n"
        "    %split_with_sizes_default_1 : [num_users=1] = "
        "call_function[target=torch.ops.aten.split_with_sizes.default](args = (%x, [2]), kwargs = "
        "{})\n"
        "    %getitem_2 : [num_users=0] = call_function[target=operator.getitem](args = "
        "(%split_with_sizes_default_1, 0), kwargs = {})\n"
        "    return (getitem, getitem_1)");
}

Test(load, module_stack_metadata) {
    load(PROG(T("x"),
              "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("x")) "],"
              " 'outputs': [" T("relu") "], 'metadata': {'nn_module_stack': "
              "'L__self__,,m.Net;L__self___layers_0,getattr(L[`self`].layers, `0`),torch.nn.ReLU',"
              " 'stack_trace': 'File `m.py`, line 3', 'my_key': 'v',"
              " 'my_num': 3, 'torch_fn': null}, 'name': 'relu'}",
              T("relu"), UIN("x"), UOUT("relu")));
    const exdb_meta *m = exdb_graph_find(prog->graph, "relu")->meta;
    cr_assert_eq(m->has_stack, 1);
    cr_assert_eq(m->nstack, 2);
    cr_assert_str_eq(m->stack[1].path, "getattr(L[\"self\"].layers, \"0\")");
    cr_assert_str_eq(exdb_meta_stack_trace(m), "File \"m.py\", line 3");
    cr_assert_eq(m->nextra, 1);
    cr_assert_str_eq(m->lazy_extra[0].key, "my_key");
    const exdb_meta *xm = exdb_graph_find(prog->graph, "x")->meta;
    cr_assert(!xm || !xm->stack, "placeholders have no module stack");
}

Test(load, error_messages_name_file_and_path) {
    cr_assert_str_eq(load_error("[]"), "t.json: $: expected an ExportedProgram object, found an "
                                       "array");
    cr_assert_str_eq(load_error("{'schema_version': {'major': 8, 'minor': 20}}"),
                     "t.json: $: missing key \"graph_module\" (expected an object)");
    cr_assert_str_eq(
        load_error(PROG(T("x"),
                        "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG(
                            "self", "{'as_tensor': {'name': 'y'}}") "], 'outputs': [" T(
                            "relu") "], 'metadata': {}}",
                        T("relu"), UIN("x"), UOUT("relu"))),
        "t.json: $.graph_module.graph.nodes[0].inputs[0].arg.as_tensor: refers to \"y\", which no "
        "graph input or earlier node defines");
    /* odd keys are bracketed and quoted in paths */
    cr_assert_str_eq(
        load_error("{'schema_version': {'major': 8, 'minor': 20}, 'range_constraints': {'a.b': "
                   "{'min_val': 'x'}}}"),
        "t.json: $.range_constraints[\"a.b\"].min_val: expected an integer (or null or Infinity for "
        "no bound), found a string");
    /* names in messages are quoted and escaped, control characters included */
    cr_assert_str_eq(
        load_error(PROG(T("x\\ny"), "", T("x\\ny"), UIN("x\\ny") ", " UIN("z"), UOUT("x\\ny"))),
        "t.json: $.graph_module.signature.input_specs: 2 input specs for 1 graph input (they pair "
        "up one to one, in order)");
    cr_assert_str_eq(load_error(PROG(T("a\\tb") ", " T("a\\tb"), "", T("a\\tb"),
                                     UIN("a\\tb") ", " UIN("a\\tb"), UOUT("a\\tb"))),
                     "t.json: $.graph_module.graph.inputs[1].as_tensor: value \"a\\x09b\" is "
                     "defined twice (first by graph input \"a\\x09b\")");
    cr_assert_str_eq(load_error(PROG(T("x"), "", T("x"), UIN("y"), UOUT("x"))),
                     "t.json: $.graph_module.signature.input_specs[0]: names \"y\", but graph "
                     "input 0 is \"x\" (input specs and graph inputs pair up in order)");
}

Test(load, float_infinity_and_overflow) {
    load(PROG(T("x"),
              "{'target': 'torch.ops.aten.mul.Scalar', 'inputs': [" ARG("self", T("x")) ", " ARG(
                  "other", "{'as_float': 1e999}") "],"
              " 'outputs': [" T("mul") "], 'metadata': {}, 'name': 'mul'},"
              "{'target': 'torch.ops.aten.mul.Scalar', 'inputs': [" ARG("self", T("mul")) ", " ARG(
                  "other", "{'as_float': '-Infinity'}") "],"
              " 'outputs': [" T("mul_1") "], 'metadata': {}, 'name': 'mul_1'},"
              "{'target': 'torch.ops.aten.mul.Scalar', 'inputs': [" ARG("self", T("mul_1")) ", " ARG(
                  "other", "{'as_float': 'NaN'}") "],"
              " 'outputs': [" T("mul_2") "], 'metadata': {}, 'name': 'mul_2'}",
              T("mul_2"), UIN("x"), UOUT("mul_2")));
    const exdb_node *m = exdb_graph_find(prog->graph, "mul");
    cr_assert(isinf(m->args.u.items[1].u.f) && m->args.u.items[1].u.f > 0);
    exdb_buf_reset(&out);
    exdb_format_arg(&out, &exdb_graph_find(prog->graph, "mul_1")->args);
    cr_assert_str_eq(exdb_buf_str(&out), "(%mul, -inf)");
    exdb_buf_reset(&out);
    exdb_format_arg(&out, &exdb_graph_find(prog->graph, "mul_2")->args);
    cr_assert_str_eq(exdb_buf_str(&out), "(%mul_1, nan)");
}

Test(load, subgraph_constant_inputs_take_top_level_spec_names) {
    /* PyTorch names a constant graph input after self.signature.input_specs[i]
     * even inside a subgraph, where that is the top-level signature */
    load(PROG(T("p") ", " T("x"),
              "{'target': 'torch.ops.higher_order.foo', 'inputs': [{'name': '', 'arg': {'as_graph': "
              "{'name': 'body', 'graph': {'inputs': [" T("a") ", {'as_int': 3}, {'as_int': 4}],"
              " 'outputs': [" T("a") "], 'nodes': []}}}}, {'name': '', 'arg': " T("x") "}],"
              " 'outputs': [" T("y") "], 'metadata': {}, 'is_hop_single_tensor_return': true}",
              T("y"), UIN("p") ", " UIN("x"), UOUT("y")));
    cr_assert_eq(prog->nsubgraphs, 1);
    cr_assert_str_eq(graph_text(prog->subgraphs[0].graph),
                     "graph():\n"
                     "    %a : [num_users=1] = placeholder[target=a]\n"
                     "    %x : [num_users=0] = placeholder[target=x]\n"
                     "    %arg2 : [num_users=0] = placeholder[target=arg2]\n"
                     "    return (a,)");
}
// clang-format on

/* N higher-order ops with one small as_graph body each (issue 13 item 1):
 * the subgraph list grew by a copy per subgraph, N^2/2 entries in all
 * (3 GB at 16k; here 110 bytes of program per byte of JSON, 7.6 now). The
 * program's memory must stay within a small multiple of its JSON, and
 * subgraphs are found by name. */
Test(load, many_subgraphs_linear_memory) {
    enum { N = 4000 };
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "%s",
                    "{\"schema_version\": {\"major\": 8, \"minor\": 20}, \"graph_module\":"
                    " {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}],"
                    " \"nodes\": [");
    char prev[16] = "x";
    for (int i = 0; i < N; snprintf(prev, sizeof prev, "h%d", i), i++)
        exdb_buf_printf(
            &b,
            "%s{\"target\": \"torch.ops.higher_order.wrap_with_set_grad_enabled\", \"inputs\": ["
            "{\"name\": \"\", \"arg\": {\"as_bool\": false}}, {\"name\": \"\", \"arg\": "
            "{\"as_graph\":"
            " {\"name\": \"body%d\", \"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"a\"}}],"
            " \"outputs\": [{\"as_tensor\": {\"name\": \"a\"}}], \"nodes\": []}}}},"
            " {\"name\": \"\", \"arg\": {\"as_tensor\": {\"name\": \"%s\"}}}],"
            " \"outputs\": [{\"as_tensor\": {\"name\": \"h%d\"}}], \"metadata\": {},"
            " \"is_hop_single_tensor_return\": true}",
            i ? ", " : "", i, prev, i);
    exdb_buf_printf(&b,
                    "], \"outputs\": [{\"as_tensor\": {\"name\": \"h%d\"}}]}, \"signature\":"
                    " {\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\":"
                    " \"x\"}}}}], \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\":"
                    " {\"name\": \"h%d\"}}}}]}}}",
                    N - 1, N - 1);
    size_t len = b.len;
    char *json = malloc(len + 1);
    cr_assert_not_null(json);
    memcpy(json, exdb_buf_str(&b), len + 1);
    exdb_buf_free(&b);
    exdb_error err = {0};
    prog = exdb_program_from_json(json, len, "t.json", &err);
    cr_assert_not_null(prog, "load failed: %s", err.msg);
    cr_assert_eq(prog->nsubgraphs, N);
    size_t used = prog->arena.used + prog->args_arena.used + prog->text_arena.used;
    cr_assert_lt(used, 12 * len, "%zu bytes of program for %zu bytes of JSON", used, len);
    const struct exdb_subgraph *s = exdb_program_subgraph(prog, "body3999");
    cr_assert_not_null(s);
    cr_assert_eq(s, &prog->subgraphs[N - 1]);
    cr_assert_eq(s->owner, exdb_graph_find(prog->graph, "body3999"));
    cr_assert_null(exdb_program_subgraph(prog, "body4000"));
}

/* Strings the loader keeps must be UTF-8 text without U+0000 (issue 13
 * item 11): "x\u0000junk" was read as x, and a name that is not UTF-8 made
 * an SVG that is not well-formed XML. Refused with the JSON path. */
// clang-format off
#define RELU(name, x, more) "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T(x)) more "]," \
    " 'outputs': [" T("relu") "], 'metadata': {}, 'name': '" name "'}"
Test(load, strings_are_utf8_without_nul) {
    cr_assert_str_eq(load_error(PROG(T("x"), RELU("relu\\u0000x", "x", ""), T("relu"), UIN("x"), UOUT("relu"))),
                     "t.json: $.graph_module.graph.nodes[0].name: expected a string without \\u0000 (U+0000), "
                     "found \"relu\\u0000x\"");
    cr_assert_str_eq(load_error(PROG(T("x"), RELU("relu", "x\\u0000junk", ""), T("relu"), UIN("x"), UOUT("relu"))),
                     "t.json: $.graph_module.graph.nodes[0].inputs[0].arg.as_tensor.name: expected a string "
                     "without \\u0000 (U+0000), found \"x\\u0000junk\"");
    cr_assert_str_eq(load_error(PROG(T("x"), RELU("relu", "x", ", " ARG("m", "{'as_string': 'a\xff" "b'}")),
                                     T("relu"), UIN("x"), UOUT("relu"))),
                     "t.json: $.graph_module.graph.nodes[0].inputs[1].arg.as_string: expected UTF-8 text, "
                     "found \"a\\xffb\" (not UTF-8 from byte 1)");
    cr_assert_str_eq(load_error(PROG(T("x"), RELU("relu", "x", ", " ARG("d", "{'as_string_to_argument': "
                                                                           "{'k\xc3': {'as_int': 1}}}")),
                                     T("relu"), UIN("x"), UOUT("relu"))),
                     "t.json: $.graph_module.graph.nodes[0].inputs[1].arg.as_string_to_argument: expected "
                     "keys of UTF-8 text, found \"k\\xc3\" (not UTF-8 from byte 1)");
    cr_assert_str_eq(load_error(PROG(T("x"),
                                     "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("x")) "],"
                                     " 'outputs': [" T("relu") "], 'metadata': {'stack_trace': 'ok\\udc00'}}",
                                     T("relu"), UIN("x"), UOUT("relu"))),
                     "t.json: $.graph_module.graph.nodes[0].metadata.stack_trace: expected UTF-8 text, found "
                     "\"ok\\xed\\xb0\\x80\" (not UTF-8 from byte 2: a surrogate, a \\ud800-\\udfff escape "
                     "without its pair)");
    cr_assert_str_eq(load_error(PROG(T("x\xe2\x82"), "", T("x\xe2\x82"), UIN("x\xe2\x82"), UOUT("x\xe2\x82"))),
                     "t.json: $.graph_module.signature.input_specs[0].user_input.arg.as_tensor.name: "
                     "expected UTF-8 text, found \"x\\xe2\\x82\" (not UTF-8 from byte 1)");
    /* UTF-8 text is fine, escaped or not: e-acute, a euro sign, U+1F600 as a surrogate pair */
    load(PROG(T("x"), "{'target': 'torch.ops.aten.relu.default', 'inputs': [" ARG("self", T("x")) "],"
              " 'outputs': [" T("caf\\u00e9\xe2\x82\xac") "], 'metadata': {'stack_trace': '\\ud83d\\ude00'}}",
              T("caf\\u00e9\xe2\x82\xac"), UIN("x"), UOUT("caf\xc3\xa9\xe2\x82\xac")));
    cr_assert_not_null(exdb_graph_find(prog->graph, "caf\xc3\xa9\xe2\x82\xac"));
}
#undef RELU
// clang-format on

// clang-format on
/* ---- nodes parsed ahead in a second thread (core/format/json_ahead.h) */

/* What loading path gives: the error, or the program's info and graph. */
static char *load_answer(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    exdb_buf b;
    exdb_buf_init(&b);
    if (!p) {
        exdb_buf_printf(&b, "error: %s", err.msg);
    } else {
        exdb_print_program_info(&b, p);
        exdb_print_graph(&b, p->graph);
        exdb_program_free(p);
    }
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* Calls check(path) on every program (*.json, *.pt2) below the folder d;
 * returns the number of programs. */
static int each_program(const char *d, void (*check)(const char *path)) {
    DIR *dir = opendir(d);
    cr_assert_not_null(dir, "%s", d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", d, e->d_name);
        size_t len = strlen(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            n += each_program(path, check);
            continue;
        }
        if (!(len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) &&
            !(len > 4 && strcmp(e->d_name + len - 4, ".pt2") == 0))
            continue;
        check(path);
        n++;
    }
    closedir(dir);
    return n;
}

/* path gives the same answer with its nodes parsed in a second thread as
 * without: the same error message for the same first fault, the same
 * program otherwise. */
static void same_ahead(const char *path) {
    exdb_program_parse_ahead(UINT32_MAX);
    char *serial = load_answer(path);
    exdb_program_parse_ahead(0);
    char *ahead = load_answer(path);
    exdb_program_parse_ahead(EXDB_JSON_AHEAD_MIN);
    cr_expect_str_eq(ahead, serial, "%s", path);
    free(serial);
    free(ahead);
}

/* ---- node metadata read at first use (exdb_program_lazy_meta) */

/* What loading path gives with every node's metadata read: the error (the
 * load's, or the first metadata read's), or the program's info, graph and
 * every node's info (all its metadata fields). */
static char *meta_answer(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    exdb_buf b;
    exdb_buf_init(&b);
    if (!p) {
        exdb_buf_printf(&b, "error: %s", err.msg);
    } else {
        exdb_print_program_info(&b, p);
        exdb_print_graph(&b, p->graph);
        for (const exdb_node *n = p->graph->head; n; n = n->next)
            exdb_print_node_info(&b, p, n);
        if (exdb_program_meta_error(p, &err) < 0) {
            exdb_buf_reset(&b);
            exdb_buf_printf(&b, "error: %s", err.msg);
        }
        exdb_program_free(p);
    }
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* path reads the same with its metadata parsed when first read as parsed
 * at load; one refused either way is refused the other (at load or at the
 * read, maybe for another of its faults). */
static void same_lazy(const char *path) {
    exdb_program_lazy_meta(UINT32_MAX);
    char *eager = meta_answer(path);
    exdb_program_lazy_meta(0);
    char *lazy = meta_answer(path);
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    if (strncmp(lazy, "error: ", 7) == 0 || strncmp(eager, "error: ", 7) == 0)
        cr_expect(strncmp(lazy, "error: ", 7) == 0 && strncmp(eager, "error: ", 7) == 0,
                  "%s: %.200s | %.200s", path, eager, lazy);
    else
        cr_expect_str_eq(lazy, eager, "%s", path);
    free(eager);
    free(lazy);
}

Test(load, metadata_read_at_first_use_gives_the_same_answers) {
    cr_expect_gt(each_program("tests/malformed", same_lazy), 90);
    cr_expect_gt(each_program("tests/fixtures", same_lazy), 10);
}

/* ---- shape first (exdb_program_open, exdb_program_build) */

static int opened_by_shape;    /* programs shape_answer opened shape first */
static uint32_t shape_min_now; /* the nodes shape_answer opens shape first from */

/* What opening path gives, shape first (shape; 2: the build started in
 * a thread at once) or whole: "error: MSG" when the open or the build
 * refuses it, else the program's info before the build, then after it,
 * and the graph. */
static char *shape_answer(const char *path, int shape) {
    exdb_program_shape_first(shape ? shape_min_now : UINT32_MAX);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(path, NULL, &err);
    exdb_program_shape_first(EXDB_SHAPE_FIRST_MIN);
    exdb_buf b;
    exdb_buf_init(&b);
    if (p) {
        cr_expect(shape || exdb_program_built(p), "%s", path);
        opened_by_shape += !exdb_program_built(p);
        if (shape == 2) { /* the shape read while the build runs */
            exdb_program_build_start(p);
            exdb_print_program_info(&b, exdb_program_shape_view(p));
            exdb_program_wait(p);
        } else {
            exdb_print_program_info(&b, p);
        }
        if (exdb_program_build(p, &err) == 0) {
            exdb_print_program_info(&b, p);
            exdb_print_graph(&b, p->graph);
        } else {
            exdb_error again = {0}; /* the same message every time */
            cr_expect_eq(exdb_program_build(p, &again), -1, "%s", path);
            cr_expect_str_eq(again.msg, err.msg, "%s", path);
            exdb_print_program_info(&b, p); /* the shape still answers */
            exdb_buf_reset(&b);
        }
        exdb_program_free(p);
    }
    if (!p || !b.len)
        exdb_buf_printf(&b, "error: %s", err.msg);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* path opened shape first answers as opened whole: the same info (before
 * and after the build) and graph, or the same one-line error, given by the
 * open or by the first build. */
static void same_shape(const char *path) {
    char *whole = shape_answer(path, 0);
    char *shape = shape_answer(path, 1);
    char *behind = shape_answer(path, 2);
    cr_expect_str_eq(shape, whole, "%s", path);
    cr_expect_str_eq(behind, whole, "%s (built in a thread)", path);
    free(whole);
    free(shape);
    free(behind);
}

Test(load, shape_first_gives_the_same_answers) {
    cr_expect_gt(each_program("tests/malformed", same_shape), 90);
    int malformed = opened_by_shape;
    cr_expect_gt(malformed, 40); /* those the shape read passes, the build refuses */
    cr_expect_gt(each_program("tests/fixtures", same_shape), 10);
    cr_expect_gt(opened_by_shape - malformed, 20);
    /* what fuzz_shape found (serialized getitem nodes counted) and the rest */
    cr_expect_gt(each_program("tests/fuzz/regressions", same_shape), 5);
    struct stat st;
    if (stat("../shared/real_pt2", &st) == 0) /* CI has it beside the repository */
        cr_expect_gt(each_program("../shared/real_pt2", same_shape), 10);
}

/* A program of 4 relu nodes r0..r3 (x -> r0 -> ... -> r3) into b, node i's
 * metadata its nn_module_stack (stacks[i], or "L__self__,,m.M" when stacks
 * is NULL) and then meta[i]'s entries (none when meta is NULL). */
static void relu_chain_of(exdb_buf *b, const char *const stacks[4], char meta[4][256]) {
    exdb_buf_printf(b, "{\"schema_version\": {\"major\": 8, \"minor\": 20}, "
                       "\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": "
                       "{\"name\": \"x\"}}], \"nodes\": [");
    for (int i = 0; i < 4; i++) {
        char prev[16];
        snprintf(prev, sizeof prev, i ? "r%d" : "x", i - 1);
        exdb_buf_printf(b,
                        "%s{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": "
                        "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": "
                        "\"%s\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": "
                        "{\"name\": \"r%d\"}}], \"metadata\": {\"nn_module_stack\": "
                        "\"%s\"%s%s}}",
                        i ? ", " : "", prev, i, stacks ? stacks[i] : "L__self__,,m.M",
                        meta ? ", " : "", meta ? meta[i] : "");
    }
    exdb_buf_printf(b, "], \"outputs\": [{\"as_tensor\": {\"name\": \"r3\"}}]}, "
                       "\"signature\": {\"input_specs\": [{\"user_input\": {\"arg\": "
                       "{\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": "
                       "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": "
                       "\"r3\"}}}}]}, \"module_call_graph\": []}}");
}

static void relu_chain(exdb_buf *b, char meta[4][256]) {
    relu_chain_of(b, NULL, meta);
}

/* prog: the relu chain of the four stacks (relu_chain_of), loaded. */
static void load_relu_chain(const char *const stacks[4]) {
    exdb_buf b;
    exdb_buf_init(&b);
    relu_chain_of(&b, stacks, NULL);
    char *text = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    exdb_error err = {0};
    prog = exdb_program_from_json(text, strlen(text), "t.json", &err);
    cr_assert_not_null(prog, "%s", err.msg);
}

/* A malformed stack_trace, torch_fn or extra value in node k of a big
 * program: the load succeeds, each read of the field gives the load's
 * one-line message (a syntax error's with the JSON path) and no value,
 * the node's other fields and other nodes read as before. */
Test(load, malformed_metadata_found_when_read) {
    static const char *const cases[][2] = {
        {"\"stack_trace\": \"bad \\q\"",
         "t.json: $.graph_module.graph.nodes[2].metadata.stack_trace: line 1, column "},
        {"\"torch_fn\": \"a\\u0000b\"",
         "t.json: $.graph_module.graph.nodes[2].metadata.torch_fn: expected a string without "
         "\\u0000 (U+0000), found \"a\\u0000b\""},
        {"\"k\": \"\\ud800\"",
         "t.json: $.graph_module.graph.nodes[2].metadata.k: expected UTF-8 "
         "text, found \"\\xed\\xa0\\x80\" (not UTF-8 from byte 0: a surrogate"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        exdb_buf b;
        exdb_buf_init(&b);
        char meta[4][256];
        for (int i = 0; i < 4; i++)
            snprintf(meta[i], sizeof meta[i], "\"source_fn_stack\": \"s%d\", %s", i,
                     i == 2 ? cases[c][0] : "\"stack_trace\": \"File \\\"m.py\\\", line 1\"");
        relu_chain(&b, meta);
        exdb_error err = {0}, eager = {0};
        /* the load's own message, parsed at load */
        exdb_program_lazy_meta(UINT32_MAX);
        char *etext = strdup(exdb_buf_str(&b));
        cr_assert_null(exdb_program_from_json(etext, strlen(etext), "t.json", &eager));
        const char *path = strstr(cases[c][1], "$.");
        char want[2200];
        if (c == 0) /* the syntax error's message, the path inserted */
            snprintf(want, sizeof want, "t.json: %.*s%s", (int)(strstr(path, ": ") + 2 - path),
                     path, eager.msg + strlen("t.json: "));
        else
            snprintf(want, sizeof want, "%s", eager.msg);
        exdb_program_lazy_meta(0);
        char *text = strdup(exdb_buf_str(&b));
        exdb_program *p = exdb_program_from_json(text, strlen(text), "t.json", &err);
        exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
        exdb_buf_free(&b);
        cr_assert_not_null(p, "case %zu: %s", c, err.msg);
        const exdb_meta *m2 = exdb_graph_find(p->graph, "r2")->meta;
        const exdb_meta *m1 = exdb_graph_find(p->graph, "r1")->meta;
        for (int round = 0; round < 2; round++) {
            cr_expect_eq(exdb_program_meta_error(p, &err), 0);
            cr_expect_str_eq(exdb_meta_stack_trace(m1), "File \"m.py\", line 1");
            cr_expect_str_eq(exdb_meta_source_fn_stack(m2), "s2");
            cr_expect_eq(exdb_program_meta_error(p, &err), 0);
            const char *v = c == 0   ? exdb_meta_stack_trace(m2)
                            : c == 1 ? exdb_meta_torch_fn(m2)
                                     : exdb_meta_extra(m2, 0);
            cr_expect_null(v, "case %zu", c);
            cr_expect_eq(exdb_program_meta_error(p, &err), -1, "case %zu", c);
            cr_expect(strncmp(err.msg, cases[c][1], strlen(cases[c][1])) == 0, "case %zu: %s", c,
                      err.msg);
            cr_expect_str_eq(err.msg, want, "case %zu", c);
            cr_expect_eq(exdb_program_meta_error(p, &err), 0);
        }
        exdb_program_free(p);
    }
}

/* ---- tensor_values entries read off their text (load_value.c) */

/* The tensor meta of input x whose tensor_values entry is the text e. */
static exdb_tensor_meta meta_of_entry(const char *e) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b,
                    "{\"schema_version\": {\"major\": 8, \"minor\": 20}, \"graph_module\": "
                    "{\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}], \"nodes\": "
                    "[], \"tensor_values\": {\"x\": %s}, \"outputs\": [{\"as_tensor\": "
                    "{\"name\": \"x\"}}]}, \"signature\": {\"input_specs\": [{\"user_input\": "
                    "{\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": "
                    "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}]}, "
                    "\"module_call_graph\": []}}",
                    e);
    char *text = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    exdb_error err = {0};
    exdb_program *p = exdb_program_from_json(text, strlen(text), "t.json", &err);
    cr_assert_not_null(p, "%s: %s", e, err.msg);
    const exdb_node *x = exdb_graph_find(p->graph, "x");
    cr_assert(x && x->meta && x->meta->val && x->meta->val->kind == EXDB_VAL_TENSOR, "%s", e);
    exdb_tensor_meta t = *x->meta->val->u.t;
    static char types[8][16];
    static int nt;
    snprintf(types[nt % 8], sizeof types[0], "%s", t.device_type);
    t.device_type = types[nt++ % 8];
    static exdb_sym dims[8][2][8];
    static int nd;
    cr_assert(t.ndim <= 8);
    memcpy(dims[nd % 8][0], t.sizes, t.ndim * sizeof *t.sizes);
    if (t.strides)
        memcpy(dims[nd % 8][1], t.strides, t.ndim * sizeof *t.strides);
    t.sizes = dims[nd % 8][0];
    t.strides = t.strides ? dims[nd % 8][1] : NULL;
    nd++;
    exdb_program_free(p);
    return t;
}

/* An entry in serialize.py's form (read off the text) and the same entry
 * with its keys in another order (parsed) give the same tensor meta. */
Test(load, tensor_values_read_off_their_text) {
    static const char *const forms[][2] = {
        {"{\"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_int\": 3}], \"requires_grad\": true, "
         "\"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": [{\"as_int\": 3}, "
         "{\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}",
         "{\"layout\": 7, \"dtype\": 7, \"sizes\": [{\"as_int\": 2}, {\"as_int\": 3}], "
         "\"requires_grad\": true, \"device\": {\"type\": \"cpu\", \"index\": null}, "
         "\"strides\": [{\"as_int\": 3}, {\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}}"},
        {"{\"dtype\": 5, \"sizes\": [], \"requires_grad\": false, \"device\": {\"type\": "
         "\"cuda\", \"index\": 1}, \"strides\": [], \"storage_offset\": {\"as_int\": "
         "123456789012345678}, \"layout\": 3}",
         "{\"sizes\": [], \"dtype\": 5, \"requires_grad\": false, \"device\": {\"type\": "
         "\"cuda\", \"index\": 1}, \"strides\": [], \"storage_offset\": {\"as_int\": "
         "123456789012345678}, \"layout\": 3}"},
        {"{\"dtype\": 6, \"sizes\": [{\"as_int\": 0}], \"requires_grad\": false, \"device\": "
         "{\"type\": \"meta\", \"index\": 0}, \"strides\": [{\"as_int\": -1}], "
         "\"storage_offset\": {\"as_int\": 4}, \"layout\": 0}",
         "{\"dtype\": 6, \"sizes\": [{\"as_int\": 0}], \"device\": {\"type\": \"meta\", "
         "\"index\": 0}, \"requires_grad\": false, \"strides\": [{\"as_int\": -1}], "
         "\"storage_offset\": {\"as_int\": 4}, \"layout\": 0}"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        exdb_tensor_meta a = meta_of_entry(forms[i][0]), b = meta_of_entry(forms[i][1]);
        cr_expect_eq(a.dtype, b.dtype, "%zu", i);
        cr_expect_eq(a.layout, b.layout, "%zu", i);
        cr_expect_eq(a.requires_grad, b.requires_grad, "%zu", i);
        cr_expect_str_eq(a.device_type, b.device_type, "%zu", i);
        cr_expect_eq(a.device_index, b.device_index, "%zu", i);
        cr_expect_eq(a.ndim, b.ndim, "%zu", i);
        cr_expect_eq(!a.strides, !b.strides, "%zu", i);
        for (uint32_t d = 0; d < a.ndim && d < b.ndim; d++) {
            cr_expect(memcmp(&a.sizes[d], &b.sizes[d], sizeof a.sizes[d]) == 0, "%zu %u", i, d);
            cr_expect(memcmp(&a.strides[d], &b.strides[d], sizeof a.strides[d]) == 0, "%zu", i);
        }
        cr_expect(memcmp(&a.storage_offset, &b.storage_offset, sizeof a.storage_offset) == 0);
    }
    /* one past 18 digits, a leading zero, a fraction: parsed, as before */
    cr_expect_eq(meta_of_entry("{\"dtype\": 7, \"sizes\": [{\"as_int\": 1234567890123456789}], "
                               "\"requires_grad\": false, \"device\": {\"type\": \"cpu\", "
                               "\"index\": null}, \"strides\": [{\"as_int\": 1}], "
                               "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}")
                     .sizes[0]
                     .v.i,
                 1234567890123456789LL);
    cr_expect_str_eq(
        load_error("{\"schema_version\": {\"major\": 8, \"minor\": 20}, "
                   "\"graph_module\": {\"graph\": {\"inputs\": [], \"nodes\": [], "
                   "\"tensor_values\": {\"x\": {\"dtype\": 07, \"sizes\": [], "
                   "\"requires_grad\": false, \"device\": {\"type\": \"cpu\", "
                   "\"index\": null}, \"strides\": [], \"storage_offset\": "
                   "{\"as_int\": 0}, \"layout\": 7}}, \"outputs\": []}, "
                   "\"signature\": {\"input_specs\": [], \"output_specs\": []}, "
                   "\"module_call_graph\": []}}"),
        "t.json: line 1, column 134: a number must not start with 0 followed by digits");
}

/* Input i's dtype, sizes (k = 1, 2) of tensor_values_repeated_texts: four
 * texts, three of them alike but for one byte, four hundred distinct ones
 * (more than load_value.c's memo keeps, and then too few found in it for
 * it to be asked again), then the first four again. */
static int rep_dim(int i, int k) {
    static const int first[4][3] = {{7, 2, 3}, {7, 2, 4}, {7, 2, 3}, {6, 2, 3}};
    if (i >= 4 && i < 404)
        return k == 0 ? 7 : k == 1 ? 2 : 100 + i;
    return first[i % 4][k];
}

/* Entries whose texts repeat (load_value.c's memo of texts read): each
 * input's tensor meta is its own entry's, whether its text is an earlier
 * one's again, differs from one in a single byte, or comes after the memo
 * is full or no longer asked. */
Test(load, tensor_values_repeated_texts) {
    enum { N = 412 };
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "{\"schema_version\": {\"major\": 8, \"minor\": 20}, \"graph_module\": "
                        "{\"graph\": {\"inputs\": [");
    for (int i = 0; i < N; i++)
        exdb_buf_printf(&b, "%s{\"as_tensor\": {\"name\": \"x%d\"}}", i ? ", " : "", i);
    exdb_buf_printf(&b, "], \"nodes\": [], \"tensor_values\": {");
    for (int i = 0; i < N; i++)
        exdb_buf_printf(&b,
                        "%s\"x%d\": {\"dtype\": %d, \"sizes\": [{\"as_int\": %d}, {\"as_int\": "
                        "%d}], \"requires_grad\": false, \"device\": {\"type\": \"cpu\", "
                        "\"index\": null}, \"strides\": [{\"as_int\": %d}, {\"as_int\": 1}], "
                        "\"storage_offset\": {\"as_int\": 0}, \"layout\": 7}",
                        i ? ", " : "", i, rep_dim(i, 0), rep_dim(i, 1), rep_dim(i, 2),
                        rep_dim(i, 2));
    exdb_buf_printf(&b, "}, \"outputs\": [{\"as_tensor\": {\"name\": \"x0\"}}]}, "
                        "\"signature\": {\"input_specs\": [");
    for (int i = 0; i < N; i++)
        exdb_buf_printf(&b, "%s{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x%d\"}}}}",
                        i ? ", " : "", i);
    exdb_buf_printf(&b, "], \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\": "
                        "{\"name\": \"x0\"}}}}]}, \"module_call_graph\": []}}");
    char *text = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    exdb_error err = {0};
    prog = exdb_program_from_json(text, strlen(text), "t.json", &err);
    cr_assert_not_null(prog, "%s", err.msg);
    for (int i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        const exdb_node *x = exdb_graph_find(prog->graph, name);
        cr_assert(x && x->meta && x->meta->val && x->meta->val->kind == EXDB_VAL_TENSOR, "%d", i);
        const exdb_tensor_meta *t = x->meta->val->u.t;
        cr_expect_eq(t->dtype, rep_dim(i, 0), "x%d", i);
        cr_assert_eq(t->ndim, 2, "x%d", i);
        cr_expect_eq(t->sizes[0].v.i, rep_dim(i, 1), "x%d", i);
        cr_expect_eq(t->sizes[1].v.i, rep_dim(i, 2), "x%d", i);
        cr_expect_eq(t->strides[0].v.i, rep_dim(i, 2), "x%d", i);
        cr_expect_str_eq(t->device_type, "cpu", "x%d", i);
    }
}

Test(load, nodes_parsed_ahead_give_the_same_answers) {
    cr_expect_gt(each_program("tests/malformed", same_ahead), 90);
    cr_expect_gt(each_program("tests/fixtures", same_ahead), 10);
}

/* A chain of n relus on x (nodes r0..r{n-1}) with tensor metadata for each,
 * where node `bad` (if < n) reads "nowhere" (a load error) and node
 * `broken` (if < n) has a syntax error. */
static char *chain(int n, int bad, int broken) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "{\"schema_version\": {\"major\": 8, \"minor\": 20}, \"torch_version\": "
                        "\"2.12.0\", \"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": "
                        "{\"name\": \"x\"}}], \"nodes\": [");
    for (int i = 0; i < n; i++) {
        char prev[32];
        snprintf(prev, sizeof prev, i ? "r%d" : "x", i - 1);
        exdb_buf_printf(&b,
                        "%s{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": [{\"name\": "
                        "\"self\", \"arg\": {\"as_tensor\": {\"name\": \"%s\"}}, \"kind\": 1}], "
                        "\"outputs\": [{\"as_tensor\": {\"name\": \"r%d\"}}], \"metadata\": "
                        "{\"stack_trace\": \"File \\\"m.py\\\", line %d\\n    relu()\"}%s}",
                        i ? ", " : "", i == bad ? "nowhere" : prev, i, i, i == broken ? ",," : "");
    }
    exdb_buf_printf(&b,
                    "], \"tensor_values\": {\"x\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], "
                    "\"requires_grad\": false, \"device\": {\"type\": \"cpu\"}, "
                    "\"strides\": [{\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}, "
                    "\"layout\": 0}");
    for (int i = 0; i < n; i++)
        exdb_buf_printf(&b,
                        ", \"r%d\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 2}], "
                        "\"requires_grad\": false, \"device\": {\"type\": \"cpu\"}, "
                        "\"strides\": [{\"as_int\": 1}], \"storage_offset\": {\"as_int\": 0}, "
                        "\"layout\": 0}",
                        i);
    exdb_buf_printf(&b,
                    "}, \"outputs\": [{\"as_tensor\": {\"name\": \"r%d\"}}]}, \"signature\": "
                    "{\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": "
                    "\"x\"}}}}], \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\": "
                    "{\"name\": \"r%d\"}}}}]}, \"module_call_graph\": [{\"fqn\": \"\", "
                    "\"signature\": null}]}}",
                    n - 1, n - 1);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* chain()'s answer with its nodes parsed ahead (min 0) or not. */
static char *chain_answer(int n, int bad, int broken, uint32_t min) {
    char *s = chain(n, bad, broken);
    exdb_error err = {0};
    exdb_program_parse_ahead(min);
    exdb_program *p = exdb_program_from_json(s, strlen(s), "t.json", &err);
    exdb_program_parse_ahead(EXDB_JSON_AHEAD_MIN);
    exdb_buf b;
    exdb_buf_init(&b);
    if (!p) {
        exdb_buf_printf(&b, "error: %s", err.msg);
    } else {
        exdb_print_graph(&b, p->graph);
        for (const exdb_node *nd = p->graph->head; nd; nd = nd->next)
            exdb_buf_printf(&b, "%s\n",
                            nd->meta && exdb_meta_stack_trace(nd->meta)
                                ? exdb_meta_stack_trace(nd->meta)
                                : "-");
        exdb_program_free(p);
    }
    char *r = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return r;
}

/* 3,000 nodes and 3,001 tensor values: the thread's ring of batches wraps
 * many times over; the first fault in file order wins as without it. */
Test(load, a_long_chain_parsed_ahead) {
    static const int cases[][2] = {{-1, -1},    {2000, -1}, {-1, 2500}, {700, 2500},
                                   {2500, 700}, {0, 2999},  {-1, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *serial = chain_answer(3000, cases[k][0], cases[k][1], UINT32_MAX);
        char *ahead = chain_answer(3000, cases[k][0], cases[k][1], 0);
        cr_expect_str_eq(ahead, serial, "bad %d broken %d", cases[k][0], cases[k][1]);
        if (k == 0)
            cr_expect(strstr(serial, "File \"m.py\", line 2999\n    relu()"), "%.200s", serial);
        else
            cr_expect(strncmp(serial, "error: ", 7) == 0, "%.200s", serial);
        free(serial);
        free(ahead);
    }
}

/* exdb_version() is the VERSION file's number (exdb --version, libexdb.a). */
Test(load, version_is_the_version_file) {
    FILE *f = fopen("VERSION", "r");
    cr_assert_not_null(f);
    char v[64] = {0};
    cr_assert_not_null(fgets(v, sizeof v, f));
    fclose(f);
    v[strcspn(v, "\n")] = '\0';
    cr_assert_str_eq(exdb_version(), v);
}

/* Two malformed metadata strings in two nodes of a big program: each read
 * gives its own node's message, the first time and every time after. */
Test(load, each_malformed_metadata_string_has_its_own_message) {
    exdb_buf b;
    exdb_buf_init(&b);
    char meta[4][256];
    for (int i = 0; i < 4; i++)
        snprintf(meta[i], sizeof meta[i], "\"torch_fn\": \"%s\"",
                 i == 1   ? "a\\u0000b"
                 : i == 2 ? "c\\ud800d"
                          : "ok");
    relu_chain(&b, meta);
    exdb_error err = {0};
    exdb_program_lazy_meta(0);
    char *text = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    exdb_program *p = exdb_program_from_json(text, strlen(text), "t.json", &err);
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    cr_assert_not_null(p, "%s", err.msg);
    const exdb_meta *m1 = exdb_graph_find(p->graph, "r1")->meta;
    const exdb_meta *m2 = exdb_graph_find(p->graph, "r2")->meta;
    for (int round = 0; round < 2; round++) {
        cr_expect_null(exdb_meta_torch_fn(m2));
        cr_expect_eq(exdb_program_meta_error(p, &err), -1);
        cr_expect(strstr(err.msg, "nodes[2].metadata.torch_fn: expected UTF-8 text") != NULL, "%s",
                  err.msg);
        cr_expect_null(exdb_meta_torch_fn(m1));
        cr_expect_eq(exdb_program_meta_error(p, &err), -1);
        cr_expect(strstr(err.msg, "nodes[1].metadata.torch_fn: expected a string without") != NULL,
                  "%s", err.msg);
    }
    exdb_program_free(p);
}

/* A program file truncated in place while exdb holds its text mapped
 * (torch.export.save opens with "wb"): a later read of metadata left in the
 * text (past the new end: SIGBUS without the guard) fails with one line
 * saying so, every time, and the process goes on; what was read before
 * the truncation still reads. core/base/filemap.h. */
Test(load, metadata_read_after_the_file_was_truncated) {
    test_tmpdir_make("trunc");
    exdb_buf b;
    exdb_buf_init(&b);
    static char meta[4][256];
    for (int i = 0; i < 4; i++)
        snprintf(meta[i], sizeof meta[i], "\"stack_trace\": \"line %d\"", i);
    relu_chain(&b, meta);
    /* pad the program past a few pages: r3's metadata is then far from
     * the first page, which truncation leaves (zeroed past the end) */
    char *pad = malloc(3 * 4096 + 1);
    cr_assert_not_null(pad);
    memset(pad, ' ', 3 * 4096);
    pad[3 * 4096] = '\0';
    char *text = malloc(b.len + 3 * 4096 + 1);
    cr_assert_not_null(text);
    const char *s = exdb_buf_str(&b),
               *r3 = strstr(s, "{\"target\": \"torch.ops.aten.relu.default\", "
                               "\"inputs\": [{\"name\": \"self\", \"arg\": "
                               "{\"as_tensor\": {\"name\": \"r2\"");
    cr_assert_not_null(r3);
    size_t head = (size_t)(r3 - s);
    snprintf(text, b.len + 3 * 4096 + 1, "%.*s%s%s", (int)head, s, pad, r3);
    const char *path = test_tpath("t.json");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    cr_assert_eq(fclose(f), 0);
    free(pad);
    free(text);
    exdb_buf_free(&b);
    exdb_error err = {0};
    exdb_program_lazy_meta(0);
    exdb_program *p = exdb_program_load(path, NULL, &err);
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    cr_assert_not_null(p, "%s", err.msg);
    const exdb_meta *m0 = exdb_graph_find(p->graph, "r0")->meta;
    const exdb_meta *m3 = exdb_graph_find(p->graph, "r3")->meta;
    cr_assert_str_eq(exdb_meta_stack_trace(m0), "line 0");
    cr_assert_eq(truncate(path, 10), 0);
    for (int round = 0; round < 2; round++) {
        cr_expect_null(exdb_meta_stack_trace(m3));
        cr_expect_eq(exdb_program_meta_error(p, &err), -1);
        char want[600];
        snprintf(want, sizeof want, "%s changed on disk since it was loaded; load it again", path);
        cr_expect_str_eq(err.msg, want);
    }
    cr_expect_str_eq(exdb_meta_stack_trace(m0), "line 0", "read before: remembered");
    exdb_program_free(p);
    test_tmpdir_remove();
}

/* Loads the relu chain of the four stacks and expects each node's entries
 * to be those of its own text parsed alone. */
static void expect_stacks_parsed_alone(const char *const stacks[4]) {
    load_relu_chain(stacks);
    exdb_error err = {0};
    exdb_arena a;
    exdb_arena_init(&a);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        const exdb_meta *m = exdb_graph_find(prog->graph, name)->meta;
        exdb_stack_entry *e;
        uint32_t n;
        cr_assert_eq(exdb_load_meta_parse_stack(&a, stacks[i], &e, &n, &err), 0, "%s", err.msg);
        cr_assert_eq(m->nstack, n, "node %d", i);
        cr_expect_str_eq(m->nn_module_stack, stacks[i], "node %d", i);
        for (uint32_t k = 0; k < n; k++) {
            cr_expect_str_eq(m->stack[k].key, e[k].key, "node %d entry %u", i, k);
            cr_expect_str_eq(m->stack[k].path, e[k].path, "node %d entry %u", i, k);
            cr_expect_str_eq(m->stack[k].type, e[k].type, "node %d entry %u", i, k);
            cr_expect_eq(m->stack[k].call_idx, e[k].call_idx, "node %d entry %u", i, k);
        }
    }
    exdb_arena_destroy(&a);
    exdb_program_free(prog);
    prog = NULL;
}

/* A node's nn_module_stack shares its first entries with the previous
 * node's (copied, not parsed again: load_meta.c same_entries): each node's
 * entries are those of its own text parsed alone, whether the texts part
 * at an entry's end, inside one, or one is the other's beginning, the
 * same text again, or an earlier node's (the table of stacks); an entry
 * after the shared ones is still refused with its index, an empty one
 * after a ';' too. */
Test(load, module_stack_entries_shared_with_the_previous_node) {
    static const char *const stacks[4] = {
        "L__self__,,m.M;L__self___a,a,m.A",
        "L__self__,,m.M;L__self___a,a,m.A;L__self___a_b@2,a.b,m.B",
        "L__self__,,m.M;L__self___a,a,m.AA",
        "L__self__,,m.M",
    };
    expect_stacks_parsed_alone(stacks);
    static const char *const again[4] = {
        "L__self__,,m.M;L__self___a,a,m.A(x,[y,z])",
        "L__self__,,m.M;L__self___a,a,m.A(x,[y,z])",
        "L__self__,,m.M;L__self___a,a,m.A(x,[y",
        "L__self__,,m.M;L__self___a,a,m.A(x,[y,z])",
    };
    expect_stacks_parsed_alone(again);
    exdb_buf b;
    exdb_error err = {0};
    char *text;
    const char *const empty[4] = {stacks[0], "L__self__,,m.M;L__self___a,a,m.A;", stacks[2],
                                  stacks[3]};
    exdb_buf_init(&b);
    relu_chain_of(&b, empty, NULL);
    text = strdup(exdb_buf_str(&b));
    cr_assert_null(exdb_program_from_json(text, strlen(text), "t.json", &err));
    cr_expect(strstr(err.msg, "nodes[1].metadata.nn_module_stack: entry 2 is empty"), "%s",
              err.msg);
    exdb_buf_free(&b);
    const char *const bad[4] = {stacks[0], "L__self__,,m.M;L__self___a,a,m.A;bad", stacks[2],
                                stacks[3]};
    exdb_buf_init(&b);
    relu_chain_of(&b, bad, NULL);
    text = strdup(exdb_buf_str(&b));
    memset(&err, 0, sizeof err);
    cr_assert_null(exdb_program_from_json(text, strlen(text), "t.json", &err));
    cr_expect(strstr(err.msg, "nodes[1].metadata.nn_module_stack: entry 2 (\"bad\")"), "%s",
              err.msg);
    exdb_buf_free(&b);
}

/* A stack without a backslash is recognised by its raw text (json.c leaves
 * it unparsed), one with an escape is decoded first: the same stack
 * written both ways, next to each other or apart, is one stack (the
 * table's text, its entries). */
Test(load, module_stack_raw_and_escaped_texts_are_one_stack) {
    static const char *const stacks[4] = {
        "L__self__,,m.M;L__self___a,a,m.A",
        "L__self__,,m.M;L__self___a,a,m.\\u0041",
        "L__self__,,m.M;L__self___a,a,m.AB",
        "L__self__,,m.M;L__self___a,a,m.A",
    };
    load_relu_chain(stacks);
    const exdb_meta *m[4];
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        m[i] = exdb_graph_find(prog->graph, name)->meta;
        cr_assert_eq(m[i]->nstack, 2, "node %d", i);
        cr_expect_str_eq(m[i]->stack[1].key, "L__self___a", "node %d", i);
        cr_expect_str_eq(m[i]->stack[1].path, "a", "node %d", i);
    }
    cr_expect_str_eq(m[0]->nn_module_stack, stacks[0]);
    cr_expect_str_eq(m[2]->nn_module_stack, stacks[2]);
    cr_expect_str_eq(m[2]->stack[1].type, "m.AB");
    for (int i = 1; i < 4; i += 2) {
        cr_expect_eq(m[i]->nn_module_stack, m[0]->nn_module_stack, "node %d", i);
        cr_expect_eq(m[i]->stack, m[0]->stack, "node %d", i);
    }
    cr_expect_str_eq(m[0]->stack[1].type, "m.A");
    exdb_program_free(prog);
    prog = NULL;
}

/* The first pass counts the main graph's nodes as it delimits them
 * (load_shape.h's tally): a repeated "nodes" key (Python keeps the last)
 * is counted as the DOM keeps it, whether the arrays before it have as
 * many elements, fewer, or the last one is empty; with the first nodes
 * counted after the first pass (those below shape_min) too. */
Test(load, shape_first_counts_the_last_of_repeated_nodes) {
    static const char *const unbind = /* two getitems */
        "{\"target\": \"torch.ops.aten.unbind.int\", \"inputs\": [{\"name\": \"self\", \"arg\": "
        "{\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensors\": "
        "[{\"name\": \"q\"}, {\"name\": \"r\"}]}], \"metadata\": {}}";
    char before[3][1024];
    snprintf(before[0], sizeof before[0], "\"graph\": {\"nodes\": [%s], ", unbind);
    snprintf(before[1], sizeof before[1], "\"graph\": {\"nodes\": [%s, %s, %s], ", unbind, unbind,
             unbind); /* as many as the fixture's */
    snprintf(before[2], sizeof before[2], "\"graph\": {\"nodes\": [], ");
    FILE *f = fopen("tests/fixtures/const_inputs_multi_out.json", "rb");
    cr_assert(f);
    static char text[64 * 1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *at = strstr(text, "\"graph\": {");
    const char *tv = strstr(text, "\"tensor_values\":");
    cr_assert(at && tv && at < tv);
    for (int v = 0; v < 4; v++) {
        char path[] = "/tmp/exdb-nodes-XXXXXX.json";
        int fd = mkstemps(path, 5);
        cr_assert(fd >= 0);
        FILE *o = fdopen(fd, "wb");
        if (v < 3) /* another nodes array first */
            fprintf(o, "%.*s%s%s", (int)(at - text), text, before[v], at + strlen("\"graph\": {"));
        else /* an empty one last */
            fprintf(o, "%.*s\"nodes\": [], %s", (int)(tv - text), text, tv);
        fclose(o);
        /* the fixture's 3 nodes all counted by the first pass, the first 1,
         * 2 or 3 walked after it (the tally skips shape_min nodes) */
        for (shape_min_now = 0; shape_min_now <= 3; shape_min_now++) {
            int was = opened_by_shape;
            same_shape(path);
            if (v < 3) /* the last nodes array is the fixture's: opened shape first */
                cr_expect_eq(opened_by_shape - was, 2, "variant %d from %u", v, shape_min_now);
        }
        shape_min_now = 0;
        unlink(path);
    }
}

/* The text of fixture path with the whitespace outside strings dropped
 * (one line, as torch writes a program: its nodes then delimited by the
 * first pass and read off their text by the shape read), malloc'd. */
static char *compact_fixture(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    static char text[64 * 1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    char *c = malloc(n + 1), *o = c;
    cr_assert(c);
    int in_str = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = text[i];
        if (in_str && ch == '\\') {
            *o++ = ch;
            *o++ = text[++i];
            continue;
        }
        in_str ^= ch == '"';
        if (in_str || (ch != ' ' && ch != '\n' && ch != '\t' && ch != '\r'))
            *o++ = ch;
    }
    *o = '\0';
    return c;
}

/* The end of the JSON object starting at s (its closing brace + 1). */
static const char *object_end(const char *s) {
    int depth = 0, in_str = 0;
    for (; *s; s++) {
        if (in_str && *s == '\\')
            s++;
        else if (*s == '"')
            in_str = !in_str;
        else if (!in_str && (*s == '{' || *s == '['))
            depth++;
        else if (!in_str && (*s == '}' || *s == ']') && --depth == 0)
            return s + 1;
    }
    return s;
}

/* A program with subgraphs opened shape first counts them as the load
 * reads them (a wrong count is refused as "changed on disk" when the file
 * is reopened from its cache entries): a key "as_graph" spelled with an
 * escape (the same JSON: Python reads it so), and an input whose "arg" is
 * repeated (the last one read: here not the subgraph). */
Test(load, shape_first_counts_the_subgraphs_the_load_makes) {
    char *c = compact_fixture("tests/fixtures/unflatten/cond.json");
    const char *g = strstr(c, "\"arg\":{\"as_graph\":");
    cr_assert(g);
    for (int v = 0; v < 3; v++) {
        char path[] = "/tmp/exdb-subgraphs-XXXXXX.json";
        int fd = mkstemps(path, 5);
        cr_assert(fd >= 0);
        FILE *o = fdopen(fd, "wb");
        const char *arg = g + strlen("\"arg\":");
        if (v == 0) /* as written */
            fputs(c, o);
        else if (v == 1) /* every "as_graph" key escaped */
            for (const char *p = c, *q; *p; p = q + strlen("\"as_graph\"")) {
                if (!(q = strstr(p, "\"as_graph\""))) {
                    fputs(p, o);
                    break;
                }
                fprintf(o, "%.*s\"as\\u005fgraph\"", (int)(q - p), p);
            }
        else /* the first subgraph's "arg" followed by another */
            fprintf(o, "%.*s,\"arg\":{\"as_none\":true}%s", (int)(object_end(arg) - c), c,
                    object_end(arg));
        fclose(o);
        int was = opened_by_shape;
        shape_min_now = 0;
        same_shape(path);
        /* an as_graph the load does not read: opened whole */
        cr_expect_eq(opened_by_shape - was, v < 2 ? 2 : 0, "variant %d opened shape first", v);
        unlink(path);
    }
    free(c);
}

/* ---- the main graph's inputs and input specs read off their text
 * (load_sigtext.h), or parsed when they are in any other form */

/* prog's input specs (kind, name, target, persistent) and placeholders. */
static const char *specs_text(void) {
    exdb_buf_reset(&out);
    for (uint32_t i = 0; i < prog->ninputs; i++) {
        const exdb_input_spec *s = &prog->inputs[i];
        exdb_buf_printf(&out, "%s %s %s %d; ", exdb_input_kind_name(s->kind), s->name,
                        s->target ? s->target : "-", s->persistent);
    }
    for (const exdb_node *n = prog->graph->head; n && n->op == EXDB_OP_PLACEHOLDER; n = n->next)
        exdb_buf_printf(&out, "%s ", n->name);
    return exdb_buf_str(&out);
}

// clang-format off
#define SPECS_PROG(w, param, buf_n, tc, gin)                                                       \
    PROG(gin ", " T("b_m") ", " T("b_n") ", " T("b_k") ", " T("c_t") ", " T("x"), "", T("x"),      \
         param ", {'buffer': {'arg': {'name': 'b_m'}, 'buffer_name': 'm', 'persistent': true}}, "  \
         buf_n ", {'buffer': {'arg': {'name': 'b_k'}, 'buffer_name': 'k'}}, " tc ", " UIN("x"),    \
         UOUT("x"))
#define TORCH_PARAM(name, target) "{'parameter': {'arg': {'name': '" name "'}, 'parameter_name': '" target "'}}"
#define TORCH_BUF_N "{'buffer': {'arg': {'name': 'b_n'}, 'buffer_name': 'n', 'persistent': false}}"
#define TORCH_TC "{'tensor_constant': {'arg': {'name': 'c_t'}, 'tensor_constant_name': 't'}}"

Test(load, specs_and_inputs_read_off_their_text_or_parsed) {
    static const char *const want =
        "parameter p_w w -1; buffer b_m m 1; buffer b_n n 0; buffer b_k k 1; "
        "tensor_constant c_t t -1; user_input x - -1; p_w b_m b_n b_k c_t x ";
    /* torch's form: read off the text */
    load(SPECS_PROG("w", TORCH_PARAM("p_w", "w"), TORCH_BUF_N, TORCH_TC, T("p_w")));
    cr_expect_str_eq(specs_text(), want);
    exdb_program_free(prog);
    /* any other form parsed, with the same answer: no spaces, an escape
     * in a name (which its text is not), another member order, a
     * repeated key (the last wins), a member more */
    static const char *const forms[][4] = {
        {"{'parameter':{'arg':{'name':'p_w'},'parameter_name':'w'}}", TORCH_BUF_N, TORCH_TC, T("p_w")},
        {TORCH_PARAM("p_\\u0077", "w"), TORCH_BUF_N, TORCH_TC, T("p_w")},
        {TORCH_PARAM("p_w", "\\u0077"), TORCH_BUF_N, TORCH_TC, "{'as_tensor': {'name': 'p_\\u0077'}}"},
        {"{'parameter': {'parameter_name': 'w', 'arg': {'name': 'p_w'}}}", TORCH_BUF_N, TORCH_TC,
         "{'as_tensor': {'name': 'p_w'} }"},
        {"{'parameter': {'arg': {'name': 'p_w'}, 'parameter_name': 'v', 'parameter_name': 'w'}}",
         "{'buffer': {'arg': {'name': 'b_n'}, 'buffer_name': 'n', 'persistent': true, 'persistent': false}}",
         TORCH_TC, "{'as_tensor': {'name': 'p_w', 'name': 'p_w'}}"},
        {TORCH_PARAM("p_w", "w"), "{'buffer': {'arg': {'name': 'b_n'}, 'buffer_name': 'n', 'persistent': false }}",
         "{'tensor_constant': {'arg': {'name': 'c_t', 'x': 1}, 'tensor_constant_name': 't'}}", T("p_w")},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 PROG("%s, " T("b_m") ", " T("b_n") ", " T("b_k") ", " T("c_t") ", " T("x"), "", T("x"),
                      "%s, {'buffer': {'arg': {'name': 'b_m'}, 'buffer_name': 'm', 'persistent': true}}, "
                      "%s, {'buffer': {'arg': {'name': 'b_k'}, 'buffer_name': 'k'}}, %s, " UIN("x"),
                      UOUT("x")),
                 forms[i][3], forms[i][0], forms[i][1], forms[i][2]);
        load(text);
        cr_expect_str_eq(specs_text(), want, "form %zu", i);
        exdb_program_free(prog);
    }
    prog = NULL;
    /* the strings of a spec or graph input parsed are checked as theirs,
     * not as the root's (the first pass left their escapes alone) */
    cr_expect_str_eq(load_error(SPECS_PROG("w", TORCH_PARAM("p_w", "w\\u0000"), TORCH_BUF_N, TORCH_TC, T("p_w"))),
                     "t.json: $.graph_module.signature.input_specs[0].parameter.parameter_name: expected "
                     "a string without \\u0000 (U+0000), found \"w\\u0000\"");
    cr_expect_str_eq(load_error(SPECS_PROG("w", TORCH_PARAM("p_w", "w"), TORCH_BUF_N, TORCH_TC,
                                           "{'as_tensor': {'name': 'p_w\\u0000'}}")),
                     "t.json: $.graph_module.graph.inputs[0].as_tensor.name: expected a string without "
                     "\\u0000 (U+0000), found \"p_w\\u0000\"");
    /* a syntax error in either: the first pass's message, line and column */
    cr_expect_str_eq(load_error(SPECS_PROG("w", "{'parameter': {'arg': {'name': 'p_w'}, 'parameter_name': tru}}",
                                           TORCH_BUF_N, TORCH_TC, T("p_w"))),
                     "t.json: line 1, column 524: expected a value, found 'tru'");
    cr_expect_str_eq(load_error(SPECS_PROG("w", TORCH_PARAM("p_w", "w"), TORCH_BUF_N, TORCH_TC,
                                           "{'as_tensor': {'name': 'p_w',}}")),
                     "t.json: line 1, column 141: expected a string key in object, found '}'");
}
#undef SPECS_PROG
#undef TORCH_PARAM
#undef TORCH_BUF_N
#undef TORCH_TC
// clang-format on

/* exdb_load_sigtext_spec / _input take torch's forms, with the names and
 * targets at any length (a string's end found by 16-byte loads, the last
 * ending at the element's end), and nothing else. */
static exdb_json raw_of(const char *text) {
    exdb_json e = {.type = EXDB_JRAW, .flags = EXDB_JRAW_ASCII, .len = (uint32_t)strlen(text)};
    e.u.str = text;
    return e;
}

Test(load, sigtext_reads_torch_forms_only) {
    static const char pad[] = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int nl = 0; nl < 40; nl++)
        for (int tl = 0; tl < 40; tl++) {
            char text[256];
            snprintf(text, sizeof text,
                     "{\"buffer\": {\"arg\": {\"name\": \"%.*s\"}, \"buffer_name\": \"%.*s\", "
                     "\"persistent\": %s}}",
                     nl, pad, tl, pad + 3, tl % 2 ? "true" : "false");
            exdb_json e = raw_of(text);
            exdb_sigtext_spec s;
            cr_assert_eq(exdb_load_sigtext_spec(&e, &s), 1, "%s", text);
            cr_expect_eq(s.kind, EXDB_IN_BUFFER);
            cr_expect_eq(s.persistent, tl % 2);
            cr_expect(s.nlen == (size_t)nl && memcmp(s.name, pad, s.nlen) == 0, "%s", text);
            cr_expect(s.tlen == (size_t)tl && memcmp(s.target, pad + 3, s.tlen) == 0, "%s", text);
            snprintf(text, sizeof text, "{\"as_tensor\": {\"name\": \"%.*s\"}}", nl + tl, pad);
            e = raw_of(text);
            const char *name;
            size_t n;
            cr_assert_eq(exdb_load_sigtext_input(&e, &name, &n), 1, "%s", text);
            cr_expect(n == (size_t)(nl + tl) && memcmp(name, pad, n) == 0, "%s", text);
        }
    static const char *const other[] = {
        "{\"parameter\": {\"arg\": {\"name\": \"a\\u0062\"}, \"parameter_name\": \"t\"}}",
        "{\"parameter\": {\"arg\": {\"name\": \"a\"}, \"parameter_name\": \"t\\\"\"}}",
        "{\"parameter\": {\"arg\": {\"name\": \"a\"}, \"parameter_name\": \"t\", \"x\": 1}}",
        "{\"parameter\":{\"arg\":{\"name\":\"a\"},\"parameter_name\":\"t\"}}",
        "{\"buffer\": {\"arg\": {\"name\": \"a\"}, \"buffer_name\": \"t\", \"persistent\": null}}",
        "{\"buffer\": {\"arg\": {\"name\": \"a\"}, \"parameter_name\": \"t\"}}",
        "{\"custom_obj\": {\"arg\": {\"name\": \"a\"}, \"custom_obj_name\": \"t\"}}",
        "{\"user_input\": {\"arg\": {\"as_int\": 1}}}",
        "{\"token\": {\"arg\": {\"name\": \"a\"}}}",
    };
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        exdb_json e = raw_of(other[i]);
        exdb_sigtext_spec s;
        cr_expect_eq(exdb_load_sigtext_spec(&e, &s), 0, "%s", other[i]);
    }
    exdb_json e = raw_of("{\"as_tensor\": {\"name\": \"a\\\\b\"}}");
    const char *name;
    size_t n;
    cr_expect_eq(exdb_load_sigtext_input(&e, &name, &n), 0);
    e = raw_of("{\"parameter\": {\"arg\": {\"name\": \"a\"}, \"parameter_name\": \"t\"}}");
    e.flags = 0; /* not delimited by the skim: its bytes unchecked */
    exdb_sigtext_spec s;
    cr_expect_eq(exdb_load_sigtext_spec(&e, &s), 0);
}
