/* test_nodematch.c - find's filters (core/fx/nodematch.c) on tinynet.pt2
 * (tests/fixtures/source/gen.py): each alone, and combined. */
#include <criterion/criterion.h>

#include "core/export/program.h"
#include "core/fx/nodematch.h"

static exdb_program *prog;

static void setup(void) {
    exdb_error err = {0};
    prog = exdb_program_load("tests/fixtures/source/tinynet.pt2", NULL, &err);
    cr_assert(prog, "%s", err.msg);
}

static void teardown(void) {
    exdb_program_free(prog);
}

TestSuite(nodematch, .init = setup, .fini = teardown);

static uint32_t count(const exdb_node_filter *f) {
    uint32_t n = 0;
    for (const exdb_node *x = prog->graph->head; x; x = x->next)
        n += exdb_nodematch(f, x);
    return n;
}

Test(nodematch, each_filter) {
    exdb_node_filter f;
    exdb_nodematch_init(&f);
    cr_assert_eq(count(&f), prog->graph->count);
    f.name = "relu*";
    cr_assert_eq(count(&f), 2);
    exdb_nodematch_init(&f);
    f.op = EXDB_OP_PLACEHOLDER;
    cr_assert_eq(count(&f), 11);
    exdb_nodematch_init(&f);
    f.target = "aten.linear.*"; /* torch.ops. left out */
    cr_assert_eq(count(&f), 4);
    f.target = "torch.ops.aten.linear.default";
    cr_assert_eq(count(&f), 4);
    exdb_nodematch_init(&f);
    f.module = "blocks.?";
    cr_assert_eq(count(&f), 8);
    f.module = "norm";
    cr_assert_eq(count(&f), 2);
    exdb_nodematch_init(&f);
    f.users = 0;
    cr_assert_eq(count(&f), 1); /* the output */
    exdb_nodematch_init(&f);
    f.file = "tinynet.py:14";
    f.file_len = 10;
    f.line = 14;
    cr_assert_eq(count(&f), 4);
}

Test(nodematch, dtype_and_shape) {
    cr_assert_eq(exdb_nodematch_dtype("f32"), 7);
    cr_assert_eq(exdb_nodematch_dtype("torch.float32"), 7);
    cr_assert_eq(exdb_nodematch_dtype("float32"), 7);
    cr_assert_eq(exdb_nodematch_dtype("f99"), -1);
    exdb_node_filter f;
    exdb_nodematch_init(&f);
    f.dtype = exdb_nodematch_dtype("i64");
    cr_assert_eq(count(&f), 0);
    exdb_nodematch_init(&f);
    cr_assert_eq(exdb_nodematch_shape(&f, "8"), 0);
    cr_assert_eq(count(&f), 5); /* the biases and the norm's weight and bias */
    cr_assert_eq(exdb_nodematch_shape(&f, "[*, 2]"), 0);
    cr_assert_eq(count(&f), 1);                         /* linear_3 (the head weight is [2, 8]) */
    cr_assert_eq(exdb_nodematch_shape(&f, "s77,2"), 0); /* a symbolic size by its name */
    cr_assert_eq(count(&f), 1);
    cr_assert_eq(exdb_nodematch_shape(&f, "(8,)"), 0);
    cr_assert_eq(f.ndims, 1);
    cr_assert_eq(exdb_nodematch_shape(&f, "1,,3"), -1);
    cr_assert_eq(exdb_nodematch_shape(&f, "()"), 0);
    cr_assert_eq(f.ndims, 0);
    cr_assert_eq(count(&f), 0);
    /* spaces around the text and around each size are not part of it */
    cr_assert_eq(exdb_nodematch_shape(&f, "  [*, 2 ]  "), 0);
    cr_assert_eq(f.ndims, 2);
    cr_assert_eq(count(&f), 1);
    cr_assert_eq(exdb_nodematch_shape(&f, " 8 ,2"), 0);
    cr_assert_eq(f.ndims, 2);
}

Test(nodematch, filters_combine) {
    exdb_node_filter f;
    exdb_nodematch_init(&f);
    f.op = EXDB_OP_CALL_FUNCTION;
    f.module = "blocks.1*";
    f.target = "*mul*";
    cr_assert_eq(count(&f), 1);
    f.users = 2;
    cr_assert_eq(count(&f), 0);
}
