/* fuzz_unflatten.c - the unflatten engine (core/unflatten/unflatten.c and the phase
 * files) on any program the loader accepts: run to the end, print the
 * module tree and every module's graph, then travel back and forth through
 * the event log (goto, back, step) and dump the state. An extra harness
 * beyond the loader's: unflatten is what a user runs next on a file. */
#include "core/export/program.h"
#include "core/base/strbuf.h"
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"
#include "fuzz_common.h"
#include "core/unflatten/describe.h"

enum { MAX_MODULES = 32 };

typedef struct visit {
    const exdb_unflatten *u;
    exdb_buf *b;
    int n;
} visit;

static void print_one(void *ctx, const char *fqn, exdb_umodule *m) {
    visit *v = ctx;
    (void)m;
    if (v->n++ >= MAX_MODULES)
        return;
    exdb_error err = {0};
    if (exdb_unflatten_print_module(v->b, v->u, fqn, &err) < 0)
        fuzz_check_error(err.msg, err.set);
    exdb_buf_reset(v->b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    char *buf = fuzz_dup(data, size);
    if (!buf)
        return 0;
    exdb_error err = {0};
    exdb_program *p = exdb_program_from_json(buf, size, "fuzz.json", &err);
    if (!p)
        return 0;
    memset(&err, 0, sizeof err);
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    if (!u) {
        fuzz_check_error(err.msg, err.set);
        exdb_program_free(p);
        return 0;
    }
    exdb_buf b;
    exdb_buf_init(&b);
    memset(&err, 0, sizeof err);
    int rc = exdb_unflatten_run(u, &err);
    if (rc < 0)
        fuzz_check_error(err.msg, err.set);
    uint32_t end = u->pos;
    exdb_unflatten_backtrace(&b, u);
    exdb_buf_reset(&b);
    if (rc == 0) {
        exdb_unflatten_print_modules(&b, u);
        exdb_buf_reset(&b);
        visit v = {u, &b, 0};
        exdb_unflatten_named_modules(u, print_one, &v);
    }
    /* back to the middle, one more back, forward again */
    memset(&err, 0, sizeof err);
    if (exdb_unflatten_goto(u, end / 2, &err) == 0) {
        if (exdb_unflatten_depth(u))
            exdb_unflatten_print_frame(&b, u, exdb_unflatten_frame(u, exdb_unflatten_depth(u) - 1));
        exdb_buf_reset(&b);
        memset(&err, 0, sizeof err);
        (void)exdb_unflatten_back(u, 1, &err);
        memset(&err, 0, sizeof err);
        (void)exdb_unflatten_step(u, NULL, &err);
        memset(&err, 0, sizeof err);
        (void)exdb_step_next(u, &err);
        exdb_unflatten_dump(&b, u);
        exdb_buf_reset(&b);
    }
    exdb_buf_free(&b);
    exdb_unflatten_free(u);
    exdb_program_free(p);
    return 0;
}
