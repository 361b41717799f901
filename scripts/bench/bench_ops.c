/* bench_ops.c - times what exdb does to a loaded program, for
 * scripts/bench.sh: lint, dce (dry run: the graph stays as loaded),
 * unflatten to the end (every event recorded), going back to the middle
 * and forward to the end again, and DOT emission of the flat view and of
 * `modules --depth 2` (an SVG of the latter when asked).
 *
 *   bench_ops FILE [--svg OUT.svg]
 *   -> "nodes lint_s dce_s unflatten_s events back_mid_s fwd_end_s dot_s mod2_dot_s [mod2_svg_s]"
 *
 *   bench_ops FILE --peer [REPS]
 *   -> "nodes lint_s dce_s removed walk_s": what torch.fx's Graph.lint() and
 *   Graph.eliminate_dead_code() do, for scripts/bench_peer.sh: Graph.lint of
 *   the flat graph alone (exdb_lint_graph, no signature or unflatten checks),
 *   and a dce that really removes (it lints first, as FX's does), undone
 *   between runs; each the best of REPS (default 5), in CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/unflatten/preflight.h"
#include "core/export/program.h"
#include "core/base/strbuf.h"
#include "core/unflatten/unflatten.h"
#include "viz/render.h"

/* CPU time of this thread for the --peer rows: on the shared machine the
 * wall clock also counts the time other processes hold the core. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile uint64_t walk_sink;

static void sum_input(void *ctx, exdb_node *in) {
    *(uint64_t *)ctx += in->id;
}

/* --peer: the FX-equivalent work only, best of reps. */
static int peer(exdb_program *p, int reps) {
    double lint_s = -1, dce_s = -1;
    int removed = 0;
    exdb_error err = {0};
    /* Reading this thread's CPU clock is a system call here (~0.5 us): a
     * lint of a few hundred nodes takes a few us, so lint and the walk are
     * timed over `batch` runs in a row and divided (torch.fx's runs take
     * 100x longer, so one run each is exact enough there). */
    int batch = p->graph->count < 50000 ? 50000 / (p->graph->count + 1) + 1 : 1;
    for (int i = 0; i < reps; i++) {
        exdb_lint_report r;
        exdb_lint_report_init(&r);
        double t0 = cpu_now();
        for (int b = 0; b < batch; b++)
            exdb_lint_graph(&r, p->graph, NULL, NULL);
        double dt = (cpu_now() - t0) / batch;
        exdb_lint_report_free(&r);
        lint_s = lint_s < 0 || dt < lint_s ? dt : lint_s;
    }
    for (int i = 0; i < reps; i++) {
        exdb_dce_log log;
        exdb_dce_log_init(&log);
        exdb_dce_opts opts = {.dry_run = 0, .impure_random = 1};
        double t0 = cpu_now();
        removed = exdb_dce_run(p->graph, &opts, &log, &err);
        double dt = cpu_now() - t0;
        if (removed < 0 || exdb_dce_undo(&log, &err) < 0) {
            fprintf(stderr, "dce: %s\n", err.msg);
            exdb_dce_log_free(&log);
            return 1;
        }
        exdb_dce_log_free(&log);
        dce_s = dce_s < 0 || dt < dce_s ? dt : dce_s;
    }
    /* The least any pass over the graph does: every node and each of its
     * input nodes read once. Its time per node shows what the memory
     * hierarchy alone adds as the graph outgrows the caches. */
    double walk_s = -1;
    for (int i = 0; i < reps; i++) {
        uint64_t acc = 0;
        double t0 = cpu_now();
        for (int b = 0; b < batch; b++)
            for (exdb_node *n = p->graph->head; n; n = n->next) {
                acc += n->op;
                exdb_node_foreach_input(n, sum_input, &acc);
            }
        double dt = (cpu_now() - t0) / batch;
        walk_sink = acc;
        walk_s = walk_s < 0 || dt < walk_s ? dt : walk_s;
    }
    printf("%u %.9f %.9f %d %.9f\n", p->graph->count, lint_s, dce_s, removed, walk_s);
    return 0;
}

int main(int argc, char **argv) {
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO); /* as the REPL runs */
    if (argc < 2) {
        fprintf(stderr, "usage: bench_ops FILE [--svg OUT.svg | --peer [REPS]]\n");
        return 2;
    }
    const char *svg = argc > 3 && strcmp(argv[2], "--svg") == 0 ? argv[3] : NULL;
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(argv[1], NULL, &err);
    if (!p) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    if (argc > 2 && strcmp(argv[2], "--peer") == 0) {
        int rc = peer(p, argc > 3 ? atoi(argv[3]) : 5);
        exdb_program_free(p);
        return rc;
    }
    double t0 = now();
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_program(&r, p, NULL);
    exdb_lint_report_free(&r);
    double lint_s = now() - t0;

    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_dce_opts opts = {.dry_run = 1, .impure_random = 1};
    t0 = now();
    exdb_dce_run(p->graph, &opts, &log, &err);
    double dce_s = now() - t0;
    exdb_dce_log_free(&log);

    double unf_s = -1, back_s = -1, fwd_s = -1;
    unsigned events = 0;
    t0 = now();
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    if (u && exdb_unflatten_run(u, &err) == 0) {
        unf_s = now() - t0;
        events = u->pos;
        t0 = now();
        if (exdb_unflatten_goto(u, events / 2, &err) == 0)
            back_s = now() - t0;
        t0 = now();
        if (exdb_unflatten_goto(u, events, &err) == 0)
            fwd_s = now() - t0;
    } else {
        fprintf(stderr, "unflatten: %s\n", err.msg);
    }
    exdb_unflatten_free(u);

    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_viz_source src = {.prog = p};
    exdb_viz_view flat = {.kind = EXDB_VIEW_FLAT};
    exdb_viz_view mod2 = {.kind = EXDB_VIEW_MODULES, .depth = 2};
    exdb_buf b;
    exdb_buf_init(&b);
    t0 = now();
    int rc = exdb_viz_dot(&src, &flat, &set, &b, NULL, &err);
    double dot_s = rc == 0 ? now() - t0 : -1;
    exdb_buf_reset(&b);
    t0 = now();
    rc = exdb_viz_dot(&src, &mod2, &set, &b, NULL, &err);
    double mod_s = rc == 0 ? now() - t0 : -1;
    exdb_buf_free(&b);
    printf("%u %.6f %.6f %.6f %u %.6f %.6f %.6f %.6f", p->graph->count, lint_s, dce_s, unf_s,
           events, back_s, fwd_s, dot_s, mod_s);
    if (svg) {
        t0 = now();
        rc = exdb_viz_render(&src, &mod2, &set, svg, NULL, &err);
        printf(" %.6f", rc == 0 ? now() - t0 : -1.0);
        if (rc)
            fprintf(stderr, "render: %s\n", err.msg);
    }
    printf("\n");
    exdb_program_free(p);
    return 0;
}
