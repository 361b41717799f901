/* bench_diff.c - the program diff of `make bench` (scripts/bench/diff.sh):
 * loads A and B, then times exdb_diff_programs (best of 3) and, unless
 * --no-modules, the module tree diff with both programs unflattened.
 * Prints "nodes_a nodes_b added removed changed renamed diff_s unflatten_s
 * moddiff_s" on one line. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/export/diff.h"
#include "core/unflatten/moddiff.h"
#include "core/unflatten/unflatten.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO); /* as the REPL runs */
    if (argc < 3) {
        fprintf(stderr, "usage: bench_diff A B [--no-modules]\n");
        return 2;
    }
    exdb_error err = {0};
    exdb_program *a = exdb_program_load(argv[1], NULL, &err);
    exdb_program *b = a ? exdb_program_load(argv[2], NULL, &err) : NULL;
    if (!a || !b) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    double best = 1e9;
    exdb_program_diff *d = NULL;
    for (int r = 0; r < 3; r++) {
        exdb_diff_free(d);
        double t0 = now();
        d = exdb_diff_programs(a, b, &err);
        double t = now() - t0;
        if (!d) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        best = t < best ? t : best;
    }
    double tu = -1, tm = -1;
    if (!(argc > 3 && strcmp(argv[3], "--no-modules") == 0)) {
        double t0 = now();
        exdb_unflatten *ua = exdb_unflatten_new(a, &err), *ub = exdb_unflatten_new(b, &err);
        if (ua && ub && exdb_unflatten_run(ua, &err) == 0 && exdb_unflatten_run(ub, &err) == 0) {
            tu = now() - t0;
            t0 = now();
            exdb_moddiff *m = exdb_moddiff_trees(ua, ub, d, &err);
            tm = now() - t0;
            exdb_moddiff_free(m);
        }
        exdb_unflatten_free(ua);
        exdb_unflatten_free(ub);
    }
    printf("%u %u %u %u %u %u %.4f %.4f %.4f\n", a->graph->count, b->graph->count, d->nadded,
           d->nremoved, d->nchanged, d->nrenamed, best, tu, tm);
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
    return 0;
}
