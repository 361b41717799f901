/* bench_repl.c - interactive latency for scripts/bench.sh: the time each
 * command a user types takes at a program stopped mid-run, measured through
 * session_exec exactly as the prompt runs it (output to /dev/null).
 *
 * The stop is a COPY event halfway through outlining, inside a module frame
 * at least two deep (so finish has a frame to leave). Before every timed
 * command the run goes back there (untimed); each command is timed REPS
 * times and the median is printed.
 *
 *   bench_repl FILE [REPS]
 *   -> "nodes events stop step next finish bt node-map print-frame list
 *       print-node reverse-step goto-back goto-fwd" (times in seconds) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/unflatten/unflatten.h"
#include "repl/session.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static session S;

/* Runs a command, or exits: a failing command would time an error path. */
static void must(const char *line) {
    if (session_exec(&S, line) < 0) {
        fprintf(stderr, "bench_repl: \"%s\" failed\n", line);
        exit(1);
    }
}

/* The median time of `line` run reps times, each from event `stop`. */
static double timed(const char *line, uint32_t stop, int reps) {
    char at[32];
    snprintf(at, sizeof at, "goto %u", stop);
    double t[64];
    if (reps > 64)
        reps = 64;
    for (int i = 0; i < reps; i++) {
        must(at);
        double t0 = now();
        must(line);
        t[i] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_repl FILE [REPS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1)
        reps = 1;
    session_init(&S);
    S.out = fopen("/dev/null", "w");
    if (!S.out)
        return 1;
    char line[4096];
    snprintf(line, sizeof line, "load '%s'", argv[1]);
    must(line);
    must("unflatten run");
    const exdb_unflatten *u = S.run;
    uint32_t events = u->pos, outline_end = 0;
    for (uint32_t k = 0; k < u->pos; k++)
        if (u->log[k].kind <= EXDB_EV_EXIT)
            outline_end = k + 1;
    /* halfway through outlining, a COPY in a frame two deep or more */
    uint32_t stop = 0;
    for (uint32_t k = outline_end / 2; k < outline_end && !stop; k++)
        if (u->log[k].kind == EXDB_EV_COPY && u->log[k].depth >= 2)
            stop = k + 1;
    if (!stop) {
        fprintf(stderr, "bench_repl: no COPY inside a module frame\n");
        return 1;
    }
    const char *node = u->run->nodes[u->log[stop - 1].flat]->name;
    char print_node[600], back[32], fwd[32];
    snprintf(print_node, sizeof print_node, "print node %s", node);
    snprintf(back, sizeof back, "goto %u", stop / 2);
    snprintf(fwd, sizeof fwd, "goto %u", stop + (outline_end - stop) / 2);
    const char *cmds[] = {"step",          "next",        "finish", "backtrace",
                          "info node-map", "print frame", "list",   print_node,
                          "reverse-step",  back,          fwd};
    printf("%u %u %u", S.prog->graph->count, events, stop);
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        printf(" %.6f", timed(cmds[i], stop, reps));
    printf("\n");
    fclose(S.out);
    S.out = stdout;
    session_free(&S);
    return 0;
}
