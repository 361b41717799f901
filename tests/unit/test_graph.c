/* test_graph.c - the graph IR pinned to torch.fx: _Namespace.create_name,
 * Graph._target_to_str, insertion points, Node.users bookkeeping (order and
 * dedup), erase_node, replace_all_uses_with / replace_input_with /
 * insert_arg / args assignment, node_copy, plus a size run (200k nodes, a
 * node with 100k users) that would crawl if anything were quadratic.
 *
 * Expected values were derived from upstream torch/fx/graph.py,
 * torch/fx/node.py and torch/csrc/fx/node.cpp (cited per test) and
 * cross-checked against a plain-Python transcription of those functions. */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/fx/graph.h"
#include "core/fx/names.h"
#include "core/fx/print.h"

static exdb_arena A;
static exdb_graph *G;

static void setup(void) {
    exdb_arena_init(&A);
    G = exdb_graph_new(&A);
    cr_assert_not_null(G);
}

static void teardown(void) {
    exdb_arena_destroy(&A);
}

TestSuite(graph, .init = setup, .fini = teardown);

/* ---- helpers */

#define ADD "torch.ops.aten.add.Tensor"

/* Graph.placeholder(name): target = name, no explicit name (so FX derives the
 * node name through _target_to_str, as here). */
static exdb_node *ph(exdb_graph *g, const char *name) {
    exdb_node *n =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, name, EXDB_T_STR, NULL, NULL, NULL);
    cr_assert_not_null(n);
    return n;
}

/* A tuple of node arguments allocated in g's arena. */
static exdb_arg tup(exdb_graph *g, int n, ...) {
    exdb_arg t;
    cr_assert_eq(exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, (uint32_t)n, &t), 0);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        t.u.items[i] = exdb_arg_node(va_arg(ap, exdb_node *));
    va_end(ap);
    return t;
}

/* call_function aten.add.Tensor named `name` with node args. */
static exdb_node *call(exdb_graph *g, const char *name, int nargs, ...) {
    exdb_arg t;
    cr_assert_eq(exdb_arg_seq(g->arena, EXDB_ARG_TUPLE, (uint32_t)nargs, &t), 0);
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++)
        t.u.items[i] = exdb_arg_node(va_arg(ap, exdb_node *));
    va_end(ap);
    exdb_node *n = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &t, NULL, name);
    cr_assert_not_null(n);
    return n;
}

/* Names joined by ',' (rotating static buffers so a test can compare two). */
static char *next_buf(void) {
    static char bufs[4][4096];
    static int k;
    char *b = bufs[k++ % 4];
    b[0] = '\0';
    return b;
}

static void append_name(char *b, const char *name) {
    if (b[0])
        strcat(b, ",");
    strcat(b, name);
}

static const char *users_of(const exdb_node *n) {
    char *b = next_buf();
    for (uint32_t i = 0; i < n->nusers; i++)
        append_name(b, n->users[i]->name);
    return b;
}

static const char *order(const exdb_graph *g) {
    char *b = next_buf();
    for (const exdb_node *n = g->head; n; n = n->next)
        append_name(b, n->name);
    return b;
}

static const char *fmt(const exdb_node *n) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_format_node(&b, n);
    char *out = next_buf();
    snprintf(out, 4096, "%s", exdb_buf_str(&b));
    exdb_buf_free(&b);
    return out;
}

static const char *args_of(const exdb_node *n) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_format_arg(&b, &n->args);
    exdb_buf_puts(&b, " ");
    exdb_format_arg(&b, &n->kwargs);
    char *out = next_buf();
    snprintf(out, 4096, "%s", exdb_buf_str(&b));
    exdb_buf_free(&b);
    return out;
}

static const char *name_of(exdb_graph *g, const char *candidate) {
    const char *s = exdb_graph_create_name(g, candidate);
    cr_assert_not_null(s);
    return s;
}

/* Checks FX's invariant both ways: every distinct input of n lists n once in
 * its users, and every user of n has n among its inputs. */
typedef struct {
    exdb_node *user;
} inv_ctx;

static void check_input(void *vctx, exdb_node *in) {
    inv_ctx *c = vctx;
    uint32_t seen = 0;
    for (uint32_t i = 0; i < in->nusers; i++)
        seen += in->users[i] == c->user;
    cr_assert_eq(seen, 1, "%s appears %u times in the users of %s", c->user->name, seen, in->name);
}

typedef struct {
    exdb_node *want;
    int found;
} has_ctx;

static void has_input(void *vctx, exdb_node *in) {
    has_ctx *c = vctx;
    if (in == c->want)
        c->found = 1;
}

static void check_consistent(exdb_graph *g) {
    uint32_t count = 0;
    for (exdb_node *n = g->head; n; n = n->next) {
        count++;
        cr_assert_eq(n->graph, g);
        cr_assert_not(n->erased);
        cr_assert_eq(exdb_graph_find(g, n->name), n);
        inv_ctx ic = {n};
        exdb_node_foreach_input(n, check_input, &ic);
        for (uint32_t i = 0; i < n->nusers; i++) {
            has_ctx hc = {n, 0};
            exdb_node_foreach_input(n->users[i], has_input, &hc);
            cr_assert(hc.found, "%s is a user of %s but does not use it", n->users[i]->name,
                      n->name);
        }
    }
    cr_assert_eq(count, g->count);
}

/* ---- naming: _Namespace.create_name (torch/fx/graph.py, newest form; the
 * rules are quoted above exdb_names_create in core/fx/names.c) */

/* `add` is free -> kept; taken -> num = _base_count["add"] (0) and the
 * while loop probes add_1, then add_2. */
Test(graph, name_duplicates_get_suffixes) {
    cr_assert_str_eq(name_of(G, "add"), "add");
    cr_assert_str_eq(name_of(G, "add"), "add_1");
    cr_assert_str_eq(name_of(G, "add"), "add_2");
}

/* An explicit "add_1" that is taken: num = _base_count["add"] (1) and the
 * loop moves on to add_2. */
Test(graph, name_suffixed_candidate_taken) {
    cr_assert_str_eq(name_of(G, "add"), "add");
    cr_assert_str_eq(name_of(G, "add_1"), "add_1");
    cr_assert_str_eq(name_of(G, "add_1"), "add_2");
    cr_assert_str_eq(name_of(G, "add"), "add_3");
}

/* A free "getitem_3" keeps its text and sets _base_count["getitem"] = 3, so
 * the next auto "getitem" starts probing at getitem_4. */
Test(graph, name_base_counter_follows_explicit_suffix) {
    cr_assert_str_eq(name_of(G, "getitem"), "getitem");
    cr_assert_str_eq(name_of(G, "getitem_3"), "getitem_3");
    cr_assert_str_eq(name_of(G, "getitem"), "getitem_4");
    cr_assert_str_eq(name_of(G, "getitem"), "getitem_5");
}

/* The counter is read under the base ("add"), as pytorch/pytorch#176515 has
 * it; graph.py up to late 2025 read _base_count["add_1"] (missing, 0) and
 * would give add_2 here. */
Test(graph, name_taken_suffix_continues_from_base_counter) {
    cr_assert_str_eq(name_of(G, "add"), "add");
    cr_assert_str_eq(name_of(G, "add_1"), "add_1");
    cr_assert_str_eq(name_of(G, "add_5"), "add_5");
    cr_assert_str_eq(name_of(G, "add_1"), "add_6");
}

/* _illegal_char_regex = "[^0-9a-zA-Z_]+": every run becomes one '_'. */
Test(graph, name_illegal_characters) {
    cr_assert_str_eq(name_of(G, "foo.bar-baz"), "foo_bar_baz");
    cr_assert_str_eq(name_of(G, "a..b--c"), "a_b_c");
    cr_assert_str_eq(name_of(G, ".x."), "_x_");
    cr_assert_str_eq(name_of(G, "-"), "_");
    cr_assert_str_eq(name_of(G, "caf\xc3\xa9"), "caf_"); /* non-ASCII bytes are one run */
}

/* candidate[0].isdigit() -> "_" prefix. _name_regex's lazy base keeps at
 * least one character, so "_1" has base "_1" and no suffix. */
Test(graph, name_leading_digit) {
    cr_assert_str_eq(name_of(G, "1x"), "_1x");
    cr_assert_str_eq(name_of(G, "1"), "_1");
    cr_assert_str_eq(name_of(G, "_1"), "_1_1");
    cr_assert_str_eq(name_of(G, "__1"), "__1"); /* base "_", suffix 1, free */
    cr_assert_str_eq(name_of(G, "1.5"), "_1_5");
}

/* `if not candidate: candidate = "_unnamed"`. */
Test(graph, name_empty) {
    cr_assert_str_eq(name_of(G, ""), "_unnamed");
    cr_assert_str_eq(name_of(G, ""), "_unnamed_1");
    cr_assert_str_eq(name_of(G, "_unnamed"), "_unnamed_2");
    cr_assert_str_eq(name_of(G, "@@"), "_");
}

/* `_illegal_names.get(candidate, obj) is not obj` with obj None: keywords,
 * builtins and FX's custom builtins get "_1" (then the loop). "None" is the
 * exception: builtins.__dict__["None"] is None itself, so it passes. */
Test(graph, name_keywords_and_builtins_refused) {
    cr_assert_str_eq(name_of(G, "sum"), "sum_1");
    cr_assert_str_eq(name_of(G, "sum"), "sum_2");
    cr_assert_str_eq(name_of(G, "input"), "input_1");
    cr_assert_str_eq(name_of(G, "class"), "class_1");
    cr_assert_str_eq(name_of(G, "inf"), "inf_1");
    cr_assert_str_eq(name_of(G, "nan"), "nan_1");
    cr_assert_str_eq(name_of(G, "torch"), "torch_1");
    cr_assert_str_eq(name_of(G, "NoneType"), "NoneType_1");
    cr_assert_str_eq(name_of(G, "device"), "device_1");
    cr_assert_str_eq(name_of(G, "fx_pytree"), "fx_pytree_1");
    cr_assert_str_eq(name_of(G, "True"), "True_1");
    cr_assert_str_eq(name_of(G, "lambda"), "lambda_1");
    cr_assert_str_eq(name_of(G, "__name__"), "__name___1");
    cr_assert_str_eq(name_of(G, "print"), "print_1");
    cr_assert_str_eq(name_of(G, "ZeroDivisionError"), "ZeroDivisionError_1");
    cr_assert_str_eq(name_of(G, "None"), "None");
    /* not reserved: soft keywords and near misses */
    cr_assert_str_eq(name_of(G, "match"), "match");
    cr_assert_str_eq(name_of(G, "Sum"), "Sum");
    cr_assert_str_eq(name_of(G, "sum_"), "sum_");
    /* a suffixed form of a reserved name is an ordinary name */
    cr_assert_str_eq(name_of(G, "min_1"), "min_1");
    cr_assert_str_eq(name_of(G, "min"), "min_2");
}

/* create_name asks a filter of the reserved names' hashes before it
 * searches the list (names.c): it must refuse exactly the names
 * exdb_names_is_reserved refuses. Every name of one to three lowercase
 * letters (abs, as, id, if, in, inf, nan, or, sum, zip, ...) and longer
 * reserved names. */
Test(graph, name_reserved_filter_agrees_with_the_list) {
    static const char *const longer[] = {"ZeroDivisionError",
                                         "PendingDeprecationWarning",
                                         "__build_class__",
                                         "isinstance",
                                         "breakpoint",
                                         "StopAsyncIteration",
                                         "fx_pytree",
                                         "nonlocal",
                                         "matmul",
                                         "getitem"};
    char cand[4];
    uint32_t nres = 0;
    for (uint32_t i = 0; i < 26 + 26 * 26 + 26 * 26 * 26; i++) {
        uint32_t k = i, len = k < 26 ? 1 : k < 26 + 676 ? 2 : 3;
        k -= len == 1 ? 0 : len == 2 ? 26 : 26 + 676;
        for (uint32_t j = len; j-- > 0; k /= 26)
            cand[j] = (char)('a' + k % 26);
        cand[len] = '\0';
        int res = exdb_names_is_reserved(cand);
        nres += (uint32_t)res;
        const char *got = name_of(G, cand);
        if (res)
            cr_assert(strncmp(got, cand, len) == 0 && strcmp(got + len, "_1") == 0, "%s -> %s",
                      cand, got);
        else
            cr_assert_str_eq(got, cand);
    }
    cr_assert_gt(nres, 30);
    for (size_t i = 0; i < sizeof longer / sizeof *longer; i++) {
        const char *got = name_of(G, longer[i]);
        if (exdb_names_is_reserved(longer[i]))
            cr_assert(strlen(got) == strlen(longer[i]) + 2, "%s -> %s", longer[i], got);
        else
            cr_assert_str_eq(got, longer[i]);
    }
}

/* "x_0" has suffix "0": free, so kept (num = int("0")). FX's older
 * `if not num:` treated 0 like no suffix; the newest tests `num is None`. */
Test(graph, name_zero_suffix) {
    cr_assert_str_eq(name_of(G, "x_0"), "x_0");
    cr_assert_str_eq(name_of(G, "x"), "x");
    cr_assert_str_eq(name_of(G, "x"), "x_1");
    cr_assert_str_eq(name_of(G, "x_0"), "x_2");
    cr_assert_str_eq(name_of(G, "x_0"), "x_3");
}

/* A free zero-padded suffix keeps its text (only num = int("01") = 1 is
 * recorded); the older create_name rebuilt it as f"{base}_{num}" = "a_1". */
Test(graph, name_zero_padded_suffix) {
    cr_assert_str_eq(name_of(G, "a_01"), "a_01");
    cr_assert_str_eq(name_of(G, "a"), "a");
    cr_assert_str_eq(name_of(G, "a_01"), "a_2");
    cr_assert_str_eq(name_of(G, "a_1"), "a_1");
    /* long padding is still the number 1 */
    cr_assert_str_eq(name_of(G, "b_000000000000000000000000000001"),
                     "b_000000000000000000000000000001");
    cr_assert_str_eq(name_of(G, "b"), "b");
    cr_assert_str_eq(name_of(G, "b"), "b_2");
}

/* Names of 16 bytes or more are checked sixteen characters a step: an
 * illegal character at any place of a block or of the tail is found, and
 * every legal one ('0'-'9', 'a'-'z', 'A'-'Z', '_') passes, their
 * neighbours ('/', ':', '@', '[', '`', '{', 0x7f, 0x80, 0xff) do not. */
Test(graph, name_long_checked_in_blocks) {
    const char legal[] = "azAZ09_mM5azAZ09_mM5azAZ09_mM5azAZ09";
    cr_assert_str_eq(name_of(G, legal), legal);
    const char bad[] = {'/', ':', '@', '[', '`', '{', 0x7f, (char)0x80, (char)0xff};
    for (size_t at = 1; at < sizeof legal - 1; at++) {
        for (size_t b = 0; b < sizeof bad; b++) {
            char cand[sizeof legal], want[sizeof legal];
            memcpy(cand, legal, sizeof legal);
            cand[at] = bad[b];
            memcpy(want, legal, sizeof legal);
            want[at] = '_';
            const char *got = name_of(G, cand);
            /* up to the '_' (a name taken before gets a counter after it) */
            cr_assert(strncmp(got, want, at + 1) == 0, "byte %zu 0x%02x: %s", at,
                      (unsigned char)bad[b], got);
        }
    }
}

/* The suffix is what follows the last '_' when it is all digits and that
 * '_' is not the first character. */
Test(graph, name_suffix_read_from_the_end) {
    cr_assert_str_eq(name_of(G, "a__1"), "a__1"); /* base "a_" */
    cr_assert_str_eq(name_of(G, "a_"), "a_");
    cr_assert_str_eq(name_of(G, "a_"), "a__2"); /* base "a_", counter 1 (a__1 taken) */
    cr_assert_str_eq(name_of(G, "a_"), "a__3");
    cr_assert_str_eq(name_of(G, "q_1x"), "q_1x"); /* no suffix */
    cr_assert_str_eq(name_of(G, "q_1x"), "q_1x_1");
    cr_assert_str_eq(name_of(G, "r1_2"), "r1_2");
    cr_assert_str_eq(name_of(G, "r1"), "r1");
    cr_assert_str_eq(name_of(G, "r1"), "r1_3");
    /* 18 digits: a suffix (as in torch 2.13); 19: none here (names.c's
     * documented limit; Python's int is unbounded and gives s_1...01) */
    cr_assert_str_eq(name_of(G, "s_1000000000000000000"), "s_1000000000000000000");
    cr_assert_str_eq(name_of(G, "s"), "s");
    cr_assert_str_eq(name_of(G, "s"), "s_1");
    cr_assert_str_eq(name_of(G, "t_100000000000000000"), "t_100000000000000000");
    cr_assert_str_eq(name_of(G, "t"), "t");
    cr_assert_str_eq(name_of(G, "t"), "t_100000000000000001");
}

/* "n@1" fails _name_regex -> "n_1" -> base "n", suffix 1 (how unflatten's
 * call_module `n@1` becomes node n_1). */
Test(graph, name_at_sign) {
    cr_assert_str_eq(name_of(G, "n@1"), "n_1");
    cr_assert_str_eq(name_of(G, "n"), "n");
    cr_assert_str_eq(name_of(G, "n"), "n_2");
    cr_assert_str_eq(name_of(G, "n@1"), "n_3");
}

/* create_name reserves a name without a node; create_node uses it. */
Test(graph, name_reserved_without_node) {
    cr_assert_str_eq(name_of(G, "foo"), "foo");
    cr_assert_null(exdb_graph_find(G, "foo"));
    exdb_node *n = ph(G, "foo");
    cr_assert_str_eq(n->name, "foo_1");
    cr_assert_eq(exdb_graph_find(G, "foo_1"), n);
}

/* ---- default names: Graph._target_to_str, then create_name */

static const char *default_name(exdb_op op, const char *target, exdb_target_kind tk) {
    exdb_node *n = exdb_graph_create_node(G, op, target, tk, NULL, NULL, NULL);
    cr_assert_not_null(n);
    return n->name;
}

/* OpOverload.__name__ is "<op>.<overload>" (torch/_ops.py), which FX does
 * not strip: graph.call_function(aten.add.Tensor) is named add_tensor.
 * (make_fx passes name=_target_to_str(func.overloadpacket.__name__), hence
 * the add / add_1 of exported graphs.) */
Test(graph, default_name_of_op_overload) {
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP), "add_tensor");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP), "add_tensor_1");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION,
                                  "torch.ops.aten._native_batch_norm_legit_no_training.default",
                                  EXDB_T_OP),
                     "_native_batch_norm_legit_no_training_default");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, "torch.ops.aten.sym_size.int", EXDB_T_OP),
                     "sym_size_int");
    cr_assert_str_eq(
        default_name(EXDB_OP_CALL_FUNCTION, "torch.ops.aten.upsample_bilinear2d.vec", EXDB_T_OP),
        "upsample_bilinear2d_vec");
    cr_assert_str_eq(
        default_name(EXDB_OP_CALL_FUNCTION, "torch.ops.mylib.addTensor.Default", EXDB_T_OP),
        "add_tensor_default");
    /* an OpOverloadPacket's __name__ is the op name */
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, "torch.ops.aten.add", EXDB_T_OP), "add");
}

/* HigherOrderOperator.__name__ is its name; Python functions' __name__ is
 * the bare name (a reserved one then gets _1). */
Test(graph, default_name_of_callables) {
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, "torch.ops.higher_order.cond", EXDB_T_HOP),
                     "cond");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, "operator.getitem", EXDB_T_PYFN),
                     "getitem");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, "builtins.getattr", EXDB_T_PYFN),
                     "getattr_1");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_FUNCTION, "torch.sym_max", EXDB_T_PYFN), "sym_max");
}

/* String targets: __magic__ stripped (only for strings), then _snake_case:
 * re.sub(r"(?<=[a-z])([A-Z])", r"_\1", s).lower(). _is_magic("__") is true
 * and "__"[2:-2] == "" -> "_unnamed". */
Test(graph, default_name_of_string_targets) {
    cr_assert_str_eq(default_name(EXDB_OP_CALL_METHOD, "__add__", EXDB_T_STR), "add");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_METHOD, "__getitem__", EXDB_T_STR), "getitem");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_MODULE, "fooBar.bazQux", EXDB_T_STR),
                     "foo_bar_baz_qux");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_MODULE, "getHTTPResponse", EXDB_T_STR),
                     "get_httpresponse");
    cr_assert_str_eq(default_name(EXDB_OP_PLACEHOLDER, "inputIds", EXDB_T_STR), "input_ids");
    cr_assert_str_eq(default_name(EXDB_OP_GET_ATTR, "L__self___linear", EXDB_T_STR),
                     "l__self___linear");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_METHOD, "__", EXDB_T_STR), "_unnamed");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_METHOD, "___", EXDB_T_STR), "_unnamed_1");
    cr_assert_str_eq(default_name(EXDB_OP_CALL_MODULE, "n@1", EXDB_T_STR), "n_1");
    cr_assert_str_eq(default_name(EXDB_OP_OUTPUT, "output", EXDB_T_STR), "output");
}

/* ---- insertion points: Graph.inserting_before / inserting_after bind
 * n.prepend / n.append (graph.py), and Node.append(x) is
 * self._next._prepend(x) (node.cpp). */

Test(graph, insert_append_by_default) {
    ph(G, "x");
    call(G, "a", 0);
    call(G, "b", 0);
    cr_assert_str_eq(order(G), "x,a,b");
    cr_assert_eq(G->count, 3);
    check_consistent(G);
}

/* inserting_before(y): each new node goes right before y, order kept. */
Test(graph, insert_before_keeps_order) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_graph_insert_before(G, y);
    call(G, "p", 1, x);
    call(G, "q", 1, x);
    cr_assert_str_eq(order(G), "x,p,q,y");
    exdb_graph_insert_append(G);
    call(G, "r", 0);
    cr_assert_str_eq(order(G), "x,p,q,y,r");
    check_consistent(G);
}

/* inserting_after(x): each new node goes right after x, so successive ones
 * come out reversed - FX's behaviour, which unflatten relies on. */
Test(graph, insert_after_reverses_successive_nodes) {
    exdb_node *x = ph(G, "x");
    ph(G, "y");
    exdb_graph_insert_after(G, x);
    call(G, "p", 1, x);
    call(G, "q", 1, x);
    call(G, "r", 1, x);
    cr_assert_str_eq(order(G), "x,r,q,p,y");
    cr_assert_str_eq(users_of(x), "p,q,r");
    /* after the last node: same rule, at the end */
    exdb_node *last = G->tail;
    exdb_graph_insert_after(G, last);
    call(G, "s", 0);
    call(G, "t", 0);
    cr_assert_str_eq(order(G), "x,r,q,p,y,t,s");
    cr_assert_eq(G->tail->prev->next, G->tail);
    check_consistent(G);
}

/* inserting_before(None) is inserting_after(root): the start of the graph,
 * reversed; inserting_after(None) is inserting_before(root): the end. */
Test(graph, insert_null_means_root) {
    ph(G, "x");
    exdb_graph_insert_before(G, NULL);
    ph(G, "p");
    ph(G, "q");
    cr_assert_str_eq(order(G), "q,p,x");
    cr_assert_null(G->head->prev);
    exdb_graph_insert_after(G, NULL);
    ph(G, "r");
    ph(G, "s");
    cr_assert_str_eq(order(G), "q,p,x,r,s");
    check_consistent(G);
}

Test(graph, insert_at_start_of_empty_graph) {
    exdb_graph_insert_before(G, NULL);
    ph(G, "a");
    cr_assert_str_eq(order(G), "a");
    cr_assert_eq(G->head, G->tail);
}

/* An insertion point whose node was erased falls back to the end. */
Test(graph, insert_point_erased_falls_back_to_end) {
    ph(G, "x");
    exdb_node *y = ph(G, "y");
    ph(G, "z");
    exdb_graph_insert_before(G, y);
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_erase_node(G, y, &err), 0);
    ph(G, "w");
    cr_assert_str_eq(order(G), "x,z,w");
    check_consistent(G);
}

/* ---- users: insertion-ordered, one entry per user node */

/* `a = x + x` is one user of x (Node.users is a dict); users keep creation
 * order across args and kwargs; [num_users=N] counts user nodes. */
Test(graph, users_ordered_and_deduplicated) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_node *a = call(G, "a", 2, x, x);
    exdb_arg kw;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_DICT, 1, &kw), 0);
    kw.keys[0] = "k";
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_LIST, 2, &kw.u.items[0]), 0);
    kw.u.items[0].u.items[0] = exdb_arg_node(y);
    kw.u.items[0].u.items[1] = exdb_arg_node(x);
    exdb_arg args = tup(G, 1, x);
    exdb_node *b =
        exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &args, &kw, "b");
    cr_assert_not_null(b);
    call(G, "c", 2, a, x);
    cr_assert_str_eq(users_of(x), "a,b,c");
    cr_assert_str_eq(users_of(y), "b");
    cr_assert_str_eq(users_of(a), "c");
    cr_assert_str_eq(fmt(x), "%x : [num_users=3] = placeholder[target=x]");
    cr_assert_str_eq(fmt(a), "%a : [num_users=1] = call_function[target=" ADD
                             "](args = (%x, %x), kwargs = {})");
    cr_assert_str_eq(fmt(b), "%b : [num_users=0] = call_function[target=" ADD
                             "](args = (%x,), kwargs = {k: [%y, %x]})");
    check_consistent(G);
}

/* create_node joins its inputs' users once each, whether its distinct inputs
 * fit the walk's list (16) or not (then stamped): 16 and 20 distinct, each
 * given twice; the users in creation order either way. */
Test(graph, users_of_many_inputs_added_once) {
    exdb_node *in[20];
    char nm[20][16];
    for (int i = 0; i < 20; i++) {
        snprintf(nm[i], sizeof nm[i], "i%d", i);
        in[i] = ph(G, nm[i]);
    }
    const char *names[2] = {"sixteen", "twenty"};
    uint32_t counts[2] = {16, 20};
    for (int k = 0; k < 2; k++) {
        exdb_arg args;
        cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_TUPLE, 2 * counts[k], &args), 0);
        for (uint32_t i = 0; i < 2 * counts[k]; i++)
            args.u.items[i] = exdb_arg_node(in[i % counts[k]]);
        cr_assert_not_null(exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &args,
                                                  NULL, names[k]));
    }
    for (int i = 0; i < 20; i++)
        cr_assert_str_eq(users_of(in[i]), i < 16 ? "sixteen,twenty" : "twenty", "%s", nm[i]);
    check_consistent(G);
}

/* all_input_nodes order: distinct nodes of args then kwargs. */
static void collect(void *ctx, exdb_node *in) {
    append_name(ctx, in->name);
}

Test(graph, foreach_input_order) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_node *z = ph(G, "z");
    exdb_arg kw;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_DICT, 2, &kw), 0);
    kw.keys[0] = "p";
    kw.u.items[0] = exdb_arg_node(x);
    kw.keys[1] = "q";
    kw.u.items[1] = exdb_arg_node(z);
    exdb_arg args = tup(G, 3, y, x, y);
    exdb_node *n =
        exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &args, &kw, "n");
    char *b = next_buf();
    exdb_node_foreach_input(n, collect, b);
    cr_assert_str_eq(b, "y,x,z");
}

/* ---- erase_node (graph.py Graph.erase_node) */

Test(graph, erase_refuses_while_users_remain) {
    exdb_node *x = ph(G, "x");
    call(G, "a", 2, x, x);
    call(G, "b", 1, x);
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_erase_node(G, x, &err), -1);
    /* f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)}
     * users in the graph: {to_erase.users}!" - users is a dict */
    cr_assert_str_eq(err.msg, "Tried to erase Node x but it still had 2 users in the graph: "
                              "{a: None, b: None}!");
    cr_assert_eq(exdb_graph_find(G, "x"), x);
    cr_assert_eq(G->count, 3);
    check_consistent(G);
}

/* Erasing works once the users are gone; the node's inputs lose it as a
 * user and its node arguments become None (FX's _update_args_kwargs with
 * map_arg(..., lambda n: None)); the name stays in _used_names. */
Test(graph, erase_after_users_gone_keeps_name_used) {
    exdb_node *x = ph(G, "x");
    exdb_node *a = call(G, "a", 2, x, x);
    exdb_node *b = call(G, "b", 2, a, x);
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_erase_node(G, b, &err), 0, "%s", err.msg);
    cr_assert(b->erased);
    cr_assert_null(exdb_graph_find(G, "b"));
    cr_assert_str_eq(users_of(x), "a");
    cr_assert_eq(a->nusers, 0);
    cr_assert_str_eq(args_of(b), "(None, None) {}");
    cr_assert_str_eq(order(G), "x,a");
    cr_assert_eq(G->count, 2);
    /* the name is not reused */
    exdb_node *b2 = call(G, "b", 1, x);
    cr_assert_str_eq(b2->name, "b_1");
    cr_assert_null(exdb_graph_find(G, "b"));
    /* erasing an erased node: FX only warns */
    cr_assert_eq(exdb_graph_erase_node(G, b, &err), 0);
    cr_assert_eq(G->count, 3);
    check_consistent(G);
}

Test(graph, erase_from_wrong_graph) {
    exdb_graph *g2 = exdb_graph_new(&A);
    exdb_node *x = ph(g2, "x");
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_erase_node(G, x, &err), -1);
    cr_assert_str_eq(err.msg, "Attempting to remove x from wrong graph!");
    cr_assert_not(x->erased);
}

/* The DCE pattern: erase newest first. */
Test(graph, erase_chain_in_reverse) {
    exdb_node *x = ph(G, "x");
    exdb_node *prev = x;
    for (int i = 0; i < 50; i++)
        prev = call(G, NULL, 2, prev, x);
    cr_assert_eq(x->nusers, 50);
    exdb_error err = {0};
    while (G->tail != x)
        cr_assert_eq(exdb_graph_erase_node(G, G->tail, &err), 0, "%s", err.msg);
    cr_assert_eq(x->nusers, 0);
    cr_assert_eq(G->count, 1);
    check_consistent(G);
}

/* ---- replace_all_uses_with / replace_input_with / insert_arg / args */

/* for use_node in list(self.users): use_node._replace_input_with(self, new);
 * each user leaves every input's users and is appended again, so y's users
 * go from [b, c] to [c, a, b]. */
Test(graph, replace_all_uses_with_moves_users) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_node *a = call(G, "a", 1, x);
    exdb_node *b = call(G, "b", 2, x, y);
    call(G, "c", 1, y);
    cr_assert_str_eq(users_of(y), "b,c");
    cr_assert_eq(exdb_node_replace_all_uses_with(x, y), 2);
    cr_assert_eq(x->nusers, 0);
    cr_assert_str_eq(users_of(y), "c,a,b");
    cr_assert_str_eq(args_of(a), "(%y,) {}");
    cr_assert_str_eq(args_of(b), "(%y, %y) {}");
    cr_assert_str_eq(fmt(y), "%y : [num_users=3] = placeholder[target=y]");
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_erase_node(G, x, &err), 0, "%s", err.msg);
    check_consistent(G);
}

/* Users with nested uses (lists, dicts) are rewritten too. */
Test(graph, replace_all_uses_with_nested) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_arg kw;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_DICT, 1, &kw), 0);
    kw.keys[0] = "k";
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_LIST, 2, &kw.u.items[0]), 0);
    kw.u.items[0].u.items[0] = exdb_arg_node(x);
    kw.u.items[0].u.items[1] = exdb_arg_int(3);
    exdb_arg args = tup(G, 1, x);
    exdb_node *n =
        exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &args, &kw, "n");
    cr_assert_eq(exdb_node_replace_all_uses_with(x, y), 1);
    cr_assert_str_eq(args_of(n), "(%y,) {k: [%y, 3]}");
    /* the trees given to create_node are not edited (FX builds new ones) */
    cr_assert_eq(args.u.items[0].u.node, x);
    cr_assert_eq(kw.u.items[0].u.items[0].u.node, x);
    check_consistent(G);
}

/* A tree shared by two nodes: replacing in one must not rewrite the other
 * behind the users bookkeeping's back. */
Test(graph, replace_input_with_does_not_edit_shared_trees) {
    exdb_node *x = ph(G, "x");
    exdb_node *z = ph(G, "z");
    exdb_arg shared = tup(G, 1, x);
    exdb_node *p =
        exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &shared, NULL, "p");
    exdb_node *q =
        exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &shared, NULL, "q");
    exdb_node_replace_input_with(p, x, z);
    cr_assert_str_eq(args_of(p), "(%z,) {}");
    cr_assert_str_eq(args_of(q), "(%x,) {}");
    cr_assert_str_eq(users_of(x), "q");
    cr_assert_str_eq(users_of(z), "p");
    check_consistent(G);
}

/* replace_input_with: (x, y, x) -> (z, y, z); n leaves x, moves to the end
 * of y's users, joins z's. FX calls _update_args_kwargs even when old is not
 * an input, which also moves n to the end of its inputs' users. */
Test(graph, replace_input_with_updates_users) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_node *z = ph(G, "z");
    exdb_node *w = ph(G, "w");
    call(G, "m", 1, y);
    exdb_node *n = call(G, "n", 3, x, y, x);
    call(G, "o", 2, y, z);
    cr_assert_str_eq(users_of(y), "m,n,o");
    exdb_node_replace_input_with(n, x, z);
    cr_assert_str_eq(args_of(n), "(%z, %y, %z) {}");
    cr_assert_eq(x->nusers, 0);
    cr_assert_str_eq(users_of(y), "m,o,n");
    cr_assert_str_eq(users_of(z), "o,n");
    /* old absent: args unchanged, users reordered as in FX */
    exdb_node *m = exdb_graph_find(G, "m");
    exdb_node_replace_input_with(m, w, x);
    cr_assert_str_eq(args_of(m), "(%y,) {}");
    cr_assert_str_eq(users_of(y), "o,n,m");
    cr_assert_eq(w->nusers, 0);
    cr_assert_eq(x->nusers, 0);
    check_consistent(G);
}

/* insert_arg(0, x) twice: args (x, x, y), x lists n once, and y's users keep
 * their order (insert_arg only adds new inputs; node.cpp NodeBase_insert_arg). */
Test(graph, insert_arg_shifts_args_and_adds_user_once) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_node *n = call(G, "n", 1, y);
    call(G, "m", 1, y);
    cr_assert_eq(exdb_node_insert_arg(n, 0, exdb_arg_node(x)), 0);
    cr_assert_str_eq(args_of(n), "(%x, %y) {}");
    cr_assert_str_eq(users_of(x), "n");
    cr_assert_str_eq(users_of(y), "n,m");
    cr_assert_eq(exdb_node_insert_arg(n, 0, exdb_arg_node(x)), 0);
    cr_assert_str_eq(args_of(n), "(%x, %x, %y) {}");
    cr_assert_str_eq(users_of(x), "n");
    /* at the end, a non-node */
    cr_assert_eq(exdb_node_insert_arg(n, 3, exdb_arg_int(7)), 0);
    cr_assert_str_eq(args_of(n), "(%x, %x, %y, 7) {}");
    /* FX asserts 0 <= idx <= len(self.args) */
    cr_assert_eq(exdb_node_insert_arg(n, 5, exdb_arg_int(1)), -1);
    cr_assert_str_eq(args_of(n), "(%x, %x, %y, 7) {}");
    cr_assert_str_eq(fmt(x), "%x : [num_users=1] = placeholder[target=x]");
    check_consistent(G);
}

/* node.args = (x, z): n leaves y, moves to the end of x's users, joins z's. */
Test(graph, set_args_updates_users) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_node *z = ph(G, "z");
    exdb_node *n = call(G, "n", 2, x, y);
    call(G, "m", 1, x);
    exdb_arg na = tup(G, 2, x, z);
    cr_assert_eq(exdb_node_set_args(n, &na, NULL), 0);
    cr_assert_str_eq(args_of(n), "(%x, %z) {}");
    cr_assert_str_eq(users_of(x), "m,n");
    cr_assert_eq(y->nusers, 0);
    cr_assert_str_eq(users_of(z), "n");
    /* kwargs only */
    exdb_arg kw;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_DICT, 1, &kw), 0);
    kw.keys[0] = "alpha";
    kw.u.items[0] = exdb_arg_node(y);
    cr_assert_eq(exdb_node_set_args(n, NULL, &kw), 0);
    cr_assert_str_eq(args_of(n), "(%x, %z) {alpha: %y}");
    cr_assert_str_eq(users_of(y), "n");
    check_consistent(G);
}

/* ---- node_copy (graph.py Graph.node_copy) and exdb_arg_copy */

typedef struct {
    exdb_node *from[8], *to[8];
    int n;
} node_map;

static exdb_node *map_node(void *ctx, exdb_node *n) {
    node_map *m = ctx;
    for (int i = 0; i < m->n; i++)
        if (m->from[i] == n)
            return m->to[i];
    return NULL;
}

static exdb_node *map_fail(void *ctx, exdb_node *n) {
    (void)ctx;
    (void)n;
    return NULL;
}

/* create_node(node.op, node.target, map_arg(args), map_arg(kwargs),
 * node.name, ...): the name is made unique in the target graph, containers
 * are new, meta is shared (copy.copy of the dict shares its values). */
Test(graph, node_copy_between_graphs) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_arg kw;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_DICT, 1, &kw), 0);
    kw.keys[0] = "k";
    kw.u.items[0] = exdb_arg_node(y);
    exdb_arg args;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_TUPLE, 2, &args), 0);
    args.u.items[0] = exdb_arg_node(x);
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_LIST, 2, &args.u.items[1]), 0);
    args.u.items[1].u.items[0] = exdb_arg_node(y);
    args.u.items[1].u.items[1] = exdb_arg_str("s");
    exdb_node *add =
        exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &args, &kw, "add");
    static const exdb_meta meta = {.lazy_stack_trace = "File x.py, line 1"};
    add->meta = &meta;
    add->src = 7;

    exdb_arena a2;
    exdb_arena_init(&a2);
    exdb_graph *g2 = exdb_graph_new(&a2);
    exdb_node *x2 = ph(g2, "x");
    exdb_node *y2 = ph(g2, "y");
    call(g2, "add", 1, x2);
    node_map m = {{x, y}, {x2, y2}, 2};
    exdb_node *c = exdb_graph_node_copy(g2, add, map_node, &m);
    cr_assert_not_null(c);
    cr_assert_str_eq(c->name, "add_1");
    cr_assert_eq(c->graph, g2);
    cr_assert_str_eq(c->target, ADD);
    cr_assert_eq(c->tkind, EXDB_T_OP);
    cr_assert_eq(c->meta, &meta);
    cr_assert_eq(c->src, 7);
    cr_assert_str_eq(args_of(c), "(%x, [%y, s]) {k: %y}");
    cr_assert_eq(c->args.u.items[0].u.node, x2);
    cr_assert_eq(c->kwargs.u.items[0].u.node, y2);
    cr_assert_neq(c->args.u.items, args.u.items);
    cr_assert_neq(c->args.u.items[1].u.items, args.u.items[1].u.items);
    cr_assert_neq(c->kwargs.u.items, kw.u.items);
    cr_assert_str_eq(users_of(x2), "add,add_1");
    cr_assert_str_eq(users_of(y2), "add_1");
    cr_assert_str_eq(users_of(x), "add"); /* the source graph is untouched */
    check_consistent(G);
    check_consistent(g2);
    /* arg_transform failing -> NULL, nothing added */
    cr_assert_null(exdb_graph_node_copy(g2, add, map_fail, NULL));
    cr_assert_eq(g2->count, 4);
    /* copying a name that was never used keeps it */
    exdb_graph *g3 = exdb_graph_new(&a2);
    exdb_node *x3 = ph(g3, "x");
    exdb_node *y3 = ph(g3, "y");
    node_map m3 = {{x, y}, {x3, y3}, 2};
    cr_assert_str_eq(exdb_graph_node_copy(g3, add, map_node, &m3)->name, "add");
    exdb_arena_destroy(&a2);
}

Test(graph, arg_copy_is_deep) {
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    exdb_arg src;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_DICT, 2, &src), 0);
    src.keys[0] = "a";
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_LIST, 2, &src.u.items[0]), 0);
    src.u.items[0].u.items[0] = exdb_arg_node(x);
    src.u.items[0].u.items[1] = exdb_arg_int(5);
    src.keys[1] = "b";
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_TUPLE, 1, &src.u.items[1]), 0);
    src.u.items[1].u.items[0] = exdb_arg_str("t");

    exdb_arg dst;
    cr_assert_eq(exdb_arg_copy(&A, &src, &dst, NULL, NULL), 0); /* fn NULL: nodes kept */
    cr_assert_eq(dst.kind, EXDB_ARG_DICT);
    cr_assert_eq(dst.n, 2);
    cr_assert_neq(dst.u.items, src.u.items);
    cr_assert_neq(dst.keys, src.keys);
    cr_assert_neq(dst.u.items[0].u.items, src.u.items[0].u.items);
    /* a sequence holding no node is shared (never edited in place) */
    cr_assert_eq(dst.u.items[1].u.items, src.u.items[1].u.items);
    /* editing the source's sequences that hold nodes leaves the copy alone */
    src.u.items[0].u.items[0] = exdb_arg_node(y);
    src.u.items[0].u.items[1] = exdb_arg_int(6);
    src.keys[1] = "c";
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_format_arg(&b, &dst);
    cr_assert_str_eq(exdb_buf_str(&b), "{a: [%x, 5], b: (t,)}");
    exdb_buf_free(&b);
    /* mapping */
    node_map m = {{y}, {x}, 1};
    cr_assert_eq(exdb_arg_copy(&A, &src, &dst, map_node, &m), 0);
    cr_assert_eq(dst.u.items[0].u.items[0].u.node, x);
    cr_assert_eq(exdb_arg_copy(&A, &src, &dst, map_fail, NULL), -1);
    /* scalars copy as they are */
    exdb_arg i = exdb_arg_int(42), o;
    cr_assert_eq(exdb_arg_copy(&A, &i, &o, map_fail, NULL), 0);
    cr_assert_eq(o.kind, EXDB_ARG_INT);
    cr_assert_eq(o.u.i, 42);
}

/* ---- size: nothing may be quadratic. Not timed assertions: a quadratic
 * path here takes minutes (200k^2 probes) instead of well under a second. */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define BIG 200000

typedef struct {
    exdb_graph *g;
} self_map;

static exdb_node *same_node(void *ctx, exdb_node *n) {
    (void)ctx;
    return n;
}

/* 200k nodes all named from the base "add" (add, add_1 ... add_199999),
 * found by name; then every one copied into the same graph again, so each
 * candidate "add_k" is taken: with the counter read under the base each
 * copy costs O(1) probes (FX up to 2025 probed from add_1 every time). */
Test(graph, size_200k_nodes_named_and_found, .timeout = 120) {
    double t0 = now();
    exdb_node *x = ph(G, "x");
    exdb_node *prev = x;
    for (int i = 0; i < BIG; i++)
        prev = call(G, NULL, 2, prev, x); /* default name: add_tensor, add_tensor_1, ... */
    double t1 = now();
    char name[32];
    for (int i = 0; i < BIG; i++) {
        snprintf(name, sizeof name, i ? "add_tensor_%d" : "add_tensor", i);
        exdb_node *n = exdb_graph_find(G, name);
        cr_assert_not_null(n, "%s", name);
        cr_assert_eq(n->id, (uint32_t)i + 1);
    }
    double t2 = now();
    cr_assert_eq(x->nusers, BIG);
    cr_assert_eq(G->count, BIG + 1);

    /* explicit names add, add_1, ...: then copy them all again */
    exdb_graph *g2 = exdb_graph_new(&A);
    exdb_node *y = ph(g2, "y");
    for (int i = 0; i < BIG; i++) {
        snprintf(name, sizeof name, i ? "add_%d" : "add", i);
        cr_assert_str_eq(call(g2, name, 1, y)->name, name);
    }
    exdb_node *last = g2->tail;
    for (exdb_node *n = y->next;; n = n->next) {
        exdb_node *c = exdb_graph_node_copy(g2, n, same_node, NULL);
        cr_assert_not_null(c);
        if (n == last)
            break;
    }
    double t3 = now();
    cr_assert_eq(g2->count, 2 * BIG + 1);
    snprintf(name, sizeof name, "add_%d", 2 * BIG - 1);
    cr_assert_not_null(exdb_graph_find(g2, name));
    cr_assert_str_eq(g2->tail->name, name);
    fprintf(stderr,
            "200k: build %.3fs, find %.3fs, 200k named + 200k re-copied %.3fs, arena %zu MB\n",
            t1 - t0, t2 - t1, t3 - t2, A.used >> 20);
}

/* One node with 100k users, erased newest first (DCE), oldest first, and
 * moved wholesale by replace_all_uses_with. */
Test(graph, size_100k_users_erased_and_replaced, .timeout = 120) {
    exdb_error err = {0};
    exdb_node *x = ph(G, "x");
    exdb_node *y = ph(G, "y");
    double t0 = now();
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < BIG / 2; i++)
            call(G, NULL, 2, x, y);
        cr_assert_eq(x->nusers, BIG / 2);
        while (G->tail != y) {
            exdb_node *victim = round == 0 ? G->tail : y->next;
            cr_assert_eq(exdb_graph_erase_node(G, victim, &err), 0, "%s", err.msg);
        }
        cr_assert_eq(x->nusers, 0);
        cr_assert_eq(y->nusers, 0);
    }
    double t1 = now();
    for (int i = 0; i < BIG / 2; i++)
        call(G, NULL, 2, x, y);
    exdb_node *z = ph(G, "z");
    cr_assert_eq(exdb_node_replace_all_uses_with(x, z), BIG / 2);
    cr_assert_eq(x->nusers, 0);
    cr_assert_eq(z->nusers, BIG / 2);
    cr_assert_eq(y->nusers, BIG / 2);
    double t2 = now();
    for (uint32_t i = 0; i < z->nusers; i++) { /* same users, same order, all rewritten */
        cr_assert_eq(z->users[i], y->users[i]);
        cr_assert_eq(z->users[i]->args.u.items[0].u.node, z);
    }
    fprintf(stderr, "100k users: erase both ways %.3fs, replace_all_uses_with %.3fs\n", t1 - t0,
            t2 - t1);
}

/* ---- memory: a users array doubles inside the arena and the old array is
 * left behind. x lives in its own graph/arena (users arrays are allocated
 * from the input's arena), so that arena's growth is exactly x's users
 * arrays: 2 + 4 + ... + 2^k slots for a final array of 2^(k+1). */
Test(graph, memory_users_array_waste) {
    exdb_arena ax;
    exdb_arena_init(&ax);
    exdb_graph *gx = exdb_graph_new(&ax);
    exdb_node *x = ph(gx, "x");
    size_t before = ax.used;
    for (int i = 0; i < BIG / 2; i++)
        call(G, NULL, 1, x);
    size_t total = ax.used - before;
    size_t final = (size_t)x->users_cap * sizeof *x->users;
    size_t live = (size_t)x->nusers * sizeof *x->users;
    size_t waste = total - final;
    fprintf(stderr,
            "100k users: live %zu KB, final array %zu KB, abandoned arrays %zu KB "
            "(%.2fx the final array, %.2fx the live data), all arrays %.2fx the live data\n",
            live >> 10, final >> 10, waste >> 10, (double)waste / (double) final,
            (double)waste / (double)live, (double)total / (double)live);
    cr_assert_eq(x->nusers, BIG / 2);
    cr_assert_leq(waste, 2 * final);
    exdb_arena_destroy(&ax);
}

/* arena.c's block cache: a destroyed arena's big blocks (1 MiB and more)
 * serve the next arena (its pages are mapped already); small blocks are
 * freed; exdb_arena_trim empties the cache. */
Test(arena, freed_big_blocks_are_reused) {
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO);
    exdb_arena_trim();
    exdb_arena a;
    exdb_arena_init(&a);
    unsigned char *big = exdb_arena_alloc(&a, (size_t)3 << 20); /* a block of its own */
    cr_assert_not_null(big);
    memset(big, 0xab, (size_t)3 << 20);
    exdb_arena_destroy(&a);
    exdb_arena_init(&a);
    unsigned char *again = exdb_arena_alloc(&a, (size_t)3 << 20);
    cr_expect_eq(again, big, "the cached block was not reused");
    cr_expect_eq(a.reserved, (size_t)3 << 20);
    /* a request bigger than twice the cached block gets a new one */
    exdb_arena_destroy(&a);
    exdb_arena_init(&a);
    unsigned char *bigger = exdb_arena_alloc(&a, (size_t)7 << 20);
    cr_expect_neq(bigger, big);
    exdb_arena_destroy(&a);
    exdb_arena_trim();
    exdb_arena_init(&a);
    cr_assert_not_null(exdb_arena_alloc(&a, 100));
    exdb_arena_destroy(&a);
    exdb_arena_cache(0);
}

/* The cache is the program's choice: off (the library's default), a
 * destroyed arena's blocks go back to malloc and nothing is kept. */
Test(arena, no_cache_unless_asked) {
    exdb_arena_cache(0);
    exdb_arena a;
    exdb_arena_init(&a);
    cr_assert_not_null(exdb_arena_alloc(&a, (size_t)3 << 20));
    exdb_arena_destroy(&a);
    cr_expect_eq(exdb_arena_cached(), 0);
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO);
    exdb_arena_init(&a);
    cr_assert_not_null(exdb_arena_alloc(&a, (size_t)3 << 20));
    exdb_arena_destroy(&a);
    cr_expect_geq(exdb_arena_cached(), (size_t)3 << 20);
    exdb_arena_cache(0);
    cr_expect_eq(exdb_arena_cached(), 0);
}

static void add_used(void *ctx, const void *p, size_t n) {
    (void)p;
    *(size_t *)ctx = *(size_t *)ctx * 31 + n;
}

/* The release build's exdb_arena_alloc and _calloc bump the current
 * block inline when its prefaulted part has room (arena.h; this build
 * calls them out of line, so the test calls the inline ones by name): the
 * same memory, alignment and accounting as the out-of-line path. Two arenas, one through each path,
 * given the same requests (0 bytes, odd sizes, big ones, after a reset
 * that leaves dirty memory) end with the same blocks filled as far, the
 * same used and reserved bytes; every pointer is 16-aligned, calloc's
 * memory is zero, and no two allocations overlap (each is filled with its
 * own byte and checked after all). */
Test(arena, inline_bump_agrees_with_out_of_line) {
    exdb_arena_cache(0);
    exdb_arena a, b;
    exdb_arena_init(&a);
    exdb_arena_init(&b);
    enum { N = 3000 };
    static unsigned char *pa[N];
    static size_t na[N];
    uint32_t x = 12345;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++) {
            x = x * 1103515245u + 12345u;
            size_t n = (x >> 8) % 7 == 0 ? (x >> 4) % 70000 : (x >> 12) % 200;
            int zero = (x >> 20) & 1;
            unsigned char *p =
                zero ? exdb_arena_calloc_fast(&a, 1, n) : exdb_arena_alloc_fast(&a, n);
            unsigned char *q = zero ? exdb_arena_calloc_out(&b, 1, n) : exdb_arena_alloc_out(&b, n);
            cr_assert(p && q);
            cr_assert_eq((uintptr_t)p % 16, 0);
            for (size_t k = 0; zero && k < n; k++)
                cr_assert_eq(p[k], 0, "calloc(%zu) byte %zu", n, k);
            memset(p, i & 0xff, n);
            pa[i] = p;
            na[i] = n;
        }
        for (int i = 0; i < N; i++)
            for (size_t k = 0; k < na[i]; k++)
                cr_assert_eq(pa[i][k], i & 0xff, "allocation %d overwritten", i);
        cr_assert_eq(a.used, b.used);
        cr_assert_eq(a.reserved, b.reserved);
        size_t ua = 0, ub = 0;
        exdb_arena_each_used(&a, add_used, &ua);
        exdb_arena_each_used(&b, add_used, &ub);
        cr_assert_eq(ua, ub);
        exdb_arena_reset(&a);
        exdb_arena_reset(&b);
    }
    exdb_arena_destroy(&a);
    exdb_arena_destroy(&b);
}

/* Python: repr(['a\'b"c\\\n\t\r\x01\x7f', 2j, complex(-0.0, 1), complex(0, -1.5)])
 * == ['a\'b"c\\\n\t\r\x01\x7f', 2j, (-0+1j), -1.5j]; an operator value
 * exdb does not know prints as its name */
Test(graph, repr_of_strings_and_complex_numbers_as_python) {
    double c1[2] = {0, 2}, c2[2] = {-0.0, 1}, c3[2] = {0, -1.5};
    exdb_arg items[5] = {
        {.kind = EXDB_ARG_STR, .u.s = "a'b\"c\\\n\t\r\x01\x7f"},
        {.kind = EXDB_ARG_COMPLEX, .u.c = c1},
        {.kind = EXDB_ARG_COMPLEX, .u.c = c2},
        {.kind = EXDB_ARG_COMPLEX, .u.c = c3},
        {.kind = EXDB_ARG_OPERATOR, .u.s = "mylib.myop"},
    };
    exdb_arg list = {.kind = EXDB_ARG_LIST, .n = 5, .u.items = items};
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_repr_arg(&b, &list);
    cr_assert_str_eq(exdb_buf_str(&b),
                     "['a\\'b\"c\\\\\\n\\t\\r\\x01\\x7f', 2j, (-0+1j), -1.5j, mylib.myop]");
    exdb_buf_free(&b);
}

/* Node.format_node of a placeholder with a default: "(default=" +
 * str(args[0]) + ")"; example values: a SymFloat without an expression,
 * a tuple holding None */
Test(graph, placeholder_default_and_value_texts) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_graph *g = exdb_graph_new(&a);
    exdb_arg d;
    cr_assert_eq(exdb_arg_seq(&a, EXDB_ARG_TUPLE, 1, &d), 0);
    d.u.items[0] = (exdb_arg){.kind = EXDB_ARG_INT, .u.i = 3};
    exdb_node *x = exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, "x", EXDB_T_STR, &d, NULL, "x");
    cr_assert_not_null(x);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_format_node(&b, x);
    cr_assert_str_eq(exdb_buf_str(&b), "%x : [num_users=0] = placeholder[target=x](default=3)");
    exdb_val f = {.kind = EXDB_VAL_SYMFLOAT}, t = {.kind = EXDB_VAL_SYMBOOL};
    f.u.sym.v.f = 2.5;
    t.u.sym.v.b = 1;
    const exdb_val *items[3] = {&f, NULL, &t};
    exdb_val tup = {.kind = EXDB_VAL_TUPLE, .n = 3};
    tup.u.items = items;
    exdb_buf_reset(&b);
    exdb_format_val(&b, &tup);
    cr_assert_str_eq(exdb_buf_str(&b), "(2.5, None, True)");
    exdb_buf_free(&b);
    exdb_arena_destroy(&a);
}
