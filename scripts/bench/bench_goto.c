/* bench_goto.c - the cost of reverse stepping, for scripts/bench/goto.sh:
 * unflatten to the end with and without recording events, then going to
 * the middle, the end and event 0, and a series of random events. Times are
 * CPU seconds (the machine is shared; wall time is noisy), best of REPS.
 * The first recorded run of the process is timed on its own (cold): it
 * gets fresh pages from the kernel, later runs reuse the arena blocks the
 * earlier ones freed (arena.c), as `run`/`restart` in one session do.
 *
 *   bench_goto FILE [REPS]
 *   -> "nodes events unrecorded_s recorded_s journal_bytes arena_bytes
 *       goto_mid_s goto_end_s goto_0_s goto_random_max_s cold_recorded_s" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/export/program.h"
#include "core/unflatten/unflatten.h"

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double min_d(double a, double b) {
    return a < 0 || b < a ? b : a;
}

/* Seconds for exdb_unflatten_new + run to the end. */
static double full_run(const exdb_program *p, int record, exdb_unflatten **keep) {
    exdb_error err = {0};
    double t0 = cpu();
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    if (!u || (!record && exdb_unflatten_set_recording(u, 0) < 0) ||
        exdb_unflatten_run(u, &err) < 0) {
        fprintf(stderr, "unflatten: %s\n", err.msg);
        exit(1);
    }
    double t = cpu() - t0;
    if (keep)
        *keep = u;
    else
        exdb_unflatten_free(u);
    return t;
}

static double go(exdb_unflatten *u, uint32_t k) {
    exdb_error err = {0};
    double t0 = cpu();
    if (exdb_unflatten_goto(u, k, &err) < 0) {
        fprintf(stderr, "goto %u: %s\n", k, err.msg);
        exit(1);
    }
    return cpu() - t0;
}

int main(int argc, char **argv) {
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO); /* as the REPL runs */
    if (argc < 2) {
        fprintf(stderr, "usage: bench_goto FILE [REPS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(argv[1], NULL, &err);
    if (!p) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double unrec = -1, rec = -1, mid = -1, end = -1, zero = -1, rnd = 0;
    size_t jbytes = 0, abytes = 0;
    uint32_t events = 0;
    double cold = full_run(p, 1, NULL);
    for (int i = 0; i < reps; i++) {
        unrec = min_d(unrec, full_run(p, 0, NULL));
        exdb_unflatten *u;
        rec = min_d(rec, full_run(p, 1, &u));
        events = u->pos;
        jbytes = exdb_journal_bytes(&u->journal);
        abytes = u->run->arena.used;
        mid = min_d(mid, go(u, events / 2));
        end = min_d(end, go(u, events));
        zero = min_d(zero, go(u, 0));
        srand(1);
        for (int t = 0; t < 20; t++) {
            double s = go(u, (uint32_t)rand() % (events + 1));
            if (s > rnd)
                rnd = s;
        }
        exdb_unflatten_free(u);
    }
    printf("%u %u %.6f %.6f %zu %zu %.6f %.6f %.6f %.6f %.6f\n", p->graph->count, events, unrec,
           rec, jbytes, abytes, mid, end, zero, rnd, cold);
    exdb_program_free(p);
    return 0;
}
