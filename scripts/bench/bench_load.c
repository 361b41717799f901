/* bench_load.c - times loading one program (container read + JSON parse +
 * IR build) and reports peak RSS, for scripts/bench.sh. One program per
 * process so peak RSS belongs to that program alone.
 *
 *   bench_load FILE [REPEAT]   ->  "bytes nodes best_seconds peak_rss_kb base_rss_kb"
 *
 * base_rss_kb is the process's RSS before the first load (the C library,
 * libzip, the binary): bench.sh reports what the program adds on top of it,
 * which is what grows with the program. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <time.h>

#include "core/program.h"

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
    if (argc < 2) {
        fprintf(stderr, "usage: bench_load FILE [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 3;
    long base = rss_kb();
    double best = 1e30;
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
        if (t < best)
            best = t;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%zu %u %.6f %ld %ld\n", bytes, nodes, best, ru.ru_maxrss, base);
    return 0;
}
