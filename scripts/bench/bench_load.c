/* bench_load.c - times loading one program (container read + JSON parse +
 * IR build) and reports peak RSS, for scripts/bench.sh. One program per
 * process so peak RSS belongs to that program alone.
 *
 *   bench_load [--serial | --ahead N] FILE [REPEAT]
 *                             ->  "bytes nodes best_seconds peak_rss_kb base_rss_kb
 *                                    first_seconds"
 *
 * --serial parses the nodes in the loader's thread (no second thread:
 * exdb_program_parse_ahead), to measure what the second one gains;
 * --ahead N starts the second one from N nodes on (its threshold).
 *   bench_load --touch MIB     ->  "first_touch_GBps"
 *
 * first_seconds is the first load of the process, which takes all its
 * memory fresh from the kernel; best_seconds the best of the later loads,
 * which reuse it (what a reload in the REPL costs). On a machine where the
 * kernel hands out fresh memory slowly (a virtual machine whose host backs
 * guest pages lazily) the two differ by the cost of that memory, which
 * --touch measures on its own: malloc and write MIB fresh MiB.
 *
 * peak_rss_kb is the peak RSS after the first load. base_rss_kb is the
 * process's RSS before it (the C library, libzip, the binary): bench.sh
 * reports what the program adds on top of it, which is what grows with the
 * program. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>

#include "core/export/program.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* VmRSS of this process in KiB, or 0 when /proc is not there. */
static long rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

int main(int argc, char **argv) {
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO); /* as the REPL runs */
    if (argc < 2) {
        fprintf(stderr, "usage: bench_load FILE [REPEAT]\n");
        return 2;
    }
    if (strcmp(argv[1], "--serial") == 0) {
        exdb_program_parse_ahead(UINT32_MAX);
        argv++;
        if (--argc < 2)
            return 2;
    } else if (strcmp(argv[1], "--ahead") == 0 && argc > 3) {
        exdb_program_parse_ahead((uint32_t)strtoul(argv[2], NULL, 10));
        argv += 2;
        argc -= 2;
    }
    if (strcmp(argv[1], "--touch") == 0) {
        size_t n = (size_t)(argc > 2 ? atol(argv[2]) : 64) << 20;
        double t0 = now();
        char *m = malloc(n);
        if (!m)
            return 1;
        memset(m, 1, n);
        volatile char sink = m[n / 2]; /* keeps the writes */
        (void)sink;
        double t = now() - t0;
        printf("%.3f\n", n / t / 1e9);
        free(m);
        return 0;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 3;
    long base = rss_kb();
    double best = 1e30, first = 0;
    struct rusage ru = {0};
    size_t bytes = 0;
    unsigned nodes = 0;
    for (int i = 0; i < (repeat > 0 ? repeat : 1); i++) {
        exdb_error err = {0};
        double t0 = now();
        exdb_program *p = exdb_program_load(argv[1], NULL, &err);
        double t = now() - t0;
        if (!p) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        bytes = p->json_bytes;
        nodes = p->graph->count;
        exdb_program_free(p);
        if (i == 0) {
            first = t;
            /* the peak of one load, as a user loading the program sees it;
             * later loads reuse the cached arena blocks in another order,
             * so their pages add up to the blocks' sizes, not their use */
            getrusage(RUSAGE_SELF, &ru);
        } else if (t < best) {
            best = t;
        }
    }
    if (best > 1e29)
        best = first;
    printf("%zu %u %.6f %ld %ld %.6f\n", bytes, nodes, best, ru.ru_maxrss, base, first);
    return 0;
}
