/* fuzz_shape.c - the shape-first open (exdb_program_open with
 * exdb_program_shape_first(0): core/export/program.c's shape read and
 * load_shape.c's node counts; docs/json-reader.md "Shape first") against
 * the whole load (exdb_program_load) of the same file. What a user sees
 * must not depend on which one ran:
 *   - a file the whole load refuses is refused shape first with the same
 *     one-line message, at the open or by exdb_program_build (and by every
 *     later build again);
 *   - a file the whole load accepts opens shape first, its build succeeds,
 *     the shape's node counts and `info program` before the build are the
 *     whole load's, and the built graph prints as the whole load's does.
 * A difference traps. The build runs one of three ways, chosen by the
 * input's size: in the caller's thread, in a thread of its own
 * (exdb_program_build_start, as the REPL does) joined by the build, or in
 * a thread the program is freed during (`quit` while the IR is built).
 * The shape read's node tally hands batches of 256 nodes to a thread of
 * its own: inputs of more nodes exercise it (tests/fuzz/seeds.sh seeds
 * real programs of 262 to 297 nodes and a synthetic one of 344). The
 * nodes from which a program is opened shape first (0, 1, 255 or 257: the
 * first ones are walked after the first pass, the rest tallied) is chosen
 * by the input's size too. */
#include "core/base/strbuf.h"
#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/fx/print.h"
#include "fuzz_common.h"

/* Whether a and b print the same `info program`. */
static int same_info(const exdb_program *a, const exdb_program *b) {
    exdb_buf x, y;
    exdb_buf_init(&x);
    exdb_buf_init(&y);
    exdb_print_program_info(&x, a);
    exdb_print_program_info(&y, b);
    int same = x.oom || y.oom || (x.len == y.len && memcmp(x.s, y.s, x.len) == 0);
    exdb_buf_free(&x);
    exdb_buf_free(&y);
    return same;
}

/* Whether the main graphs of a and b print the same. */
static int same_graph(const exdb_program *a, const exdb_program *b) {
    exdb_buf x, y;
    exdb_buf_init(&x);
    exdb_buf_init(&y);
    exdb_print_graph(&x, a->graph);
    exdb_print_graph(&y, b->graph);
    int same = x.oom || y.oom || (x.len == y.len && memcmp(x.s, y.s, x.len) == 0);
    exdb_buf_free(&x);
    exdb_buf_free(&y);
    return same;
}

static int same_counts(const exdb_node_counts *a, const exdb_node_counts *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    const char *path = fuzz_write_file("program.json", data, size);
    if (!path)
        return 0;
    /* shape first from 0 nodes (every node tallied as the first pass
     * delimits it), or from 1, 255 or 257: those before are walked after
     * the first pass, the rest tallied (load_shape.c) */
    static const uint32_t mins[] = {0, 0, 1, 255, 257};
    exdb_program_shape_first(mins[(size / 3) % 5]);
    exdb_error ew = {0}, es = {0};
    exdb_program *w = exdb_program_load(path, NULL, &ew);
    if (!w)
        fuzz_check_error(ew.msg, ew.set);
    exdb_program *s = exdb_program_open(path, NULL, &es);
    if (!s) { /* refused at the open: the whole load's refusal */
        fuzz_check_error(es.msg, es.set);
        if (w || strcmp(ew.msg, es.msg) != 0)
            __builtin_trap();
        return 0;
    }
    exdb_node_counts sc, wc;
    exdb_program_node_counts(s, &sc);
    if (w) {
        exdb_program_node_counts(w, &wc);
        if (!same_counts(&sc, &wc) || !same_info(s, w))
            __builtin_trap(); /* the prompt before the build says what the load says */
    }
    int how = (int)(size % 3);
    if (how > 0) {
        exdb_program_build_start(s);
        if (w && !same_info(exdb_program_shape_view(s), w))
            __builtin_trap(); /* info program while the build runs */
    }
    if (how == 2) { /* freed while the build runs */
        exdb_program_free(s);
        exdb_program_free(w);
        return 0;
    }
    exdb_error eb = {0};
    int rc = exdb_program_build(s, &eb);
    if (rc == -2) { /* out of memory: no verdict */
        exdb_program_free(s);
        exdb_program_free(w);
        return 0;
    }
    if (rc < 0) { /* refused by the build: the load's message, again on every call */
        fuzz_check_error(eb.msg, eb.set);
        exdb_error again = {0};
        if (w || strcmp(ew.msg, eb.msg) != 0 || exdb_program_build(s, &again) != -1 ||
            strcmp(again.msg, eb.msg) != 0)
            __builtin_trap();
        exdb_program_free(s);
        return 0;
    }
    if (!w || !s->graph)
        __builtin_trap(); /* built what the whole load refuses */
    exdb_program_node_counts(s, &sc);
    if (!same_counts(&sc, &wc) || !same_graph(s, w) || !same_info(s, w))
        __builtin_trap();
    exdb_program_free(s);
    exdb_program_free(w);
    return 0;
}
