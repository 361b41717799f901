/* fuzz_unflatten.c - the unflatten engine (core/unflatten.c and the phase
 * files) on any program the loader accepts: run to the end, print the
 * module tree and every module's graph, then travel back and forth through
 * the event log (goto, back, step) and dump the state. An extra harness
 * beyond the loader's: unflatten is what a user runs next on a file.
 *
 * With EXDB_FUZZ_SKIP_KNOWN set in the environment, programs that would
 * only hit a known, not yet fixed bug (tests/fuzz/regressions/KNOWN) are
 * skipped, so a long run can look past it. Replays never skip. */
#include "core/program.h"
#include "core/strbuf.h"
#include "core/unflatten.h"
#include "fuzz_common.h"

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

/* KNOWN unflatten/stack_not_rooted.json: a node whose nn_module_stack does
 * not start at the root (path "", no call index) makes core/outline.c pop
 * the root frame. */
static int hits_known_bug(const exdb_program *p) {
    static int skip = -1;
    if (skip < 0)
        skip = getenv("EXDB_FUZZ_SKIP_KNOWN") != NULL;
    if (!skip)
        return 0;
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        const exdb_meta *m = n->meta;
        if (m && m->has_stack && m->nstack &&
            !(m->nstack == 1 && strcmp(m->stack[0].key,
                                       "_empty_nn_module_stack_from_metadata_hook") == 0) &&
            (m->stack[0].path[0] != '\0' || m->stack[0].call_idx != 0))
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *buf = fuzz_dup(data, size);
    if (!buf)
        return 0;
    exdb_error err = {0};
    exdb_program *p = exdb_program_from_json(buf, size, "fuzz.json", &err);
    if (!p)
        return 0;
    if (hits_known_bug(p)) {
        exdb_program_free(p);
        return 0;
    }
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
        (void)exdb_unflatten_next(u, &err);
        exdb_unflatten_dump(&b, u);
        exdb_buf_reset(&b);
    }
    exdb_buf_free(&b);
    exdb_unflatten_free(u);
    exdb_program_free(p);
    return 0;
}
