/* fuzz_load.c - the program loader (core/export/program.c and its load_*.c) on program JSON, and on
 * success what a user does next: every printer (graph, tabular, signature,
 * info, call graph, facts, node info), lint, dce (dry run, run, save JSON,
 * undo) and the check that undo restores the graph exactly.
 *
 * The input is written to a scratch file and loaded from there, because
 * exdb_program_save_json goes back to the file the program was loaded from
 * (core/export/snapshot.h); when the file cannot be written, from memory, without
 * the save. */
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/unflatten/preflight.h"
#include "core/export/describe.h"
#include "core/export/facts.h"
#include "core/fx/print.h"
#include "core/export/program.h"
#include "core/export/save.h"
#include "core/base/sha1.h"
#include "core/base/strbuf.h"
#include "fuzz_common.h"

enum { MAX_NODE_INFO = 64, MAX_SUBGRAPHS = 16 };

static void print_all(exdb_buf *b, const exdb_program *p) {
    exdb_print_graph(b, p->graph);
    exdb_buf_reset(b);
    exdb_print_tabular(b, p->graph);
    exdb_buf_reset(b);
    exdb_print_signature(b, p);
    exdb_buf_reset(b);
    exdb_print_program_info(b, p);
    exdb_buf_reset(b);
    exdb_print_call_graph(b, p);
    exdb_buf_reset(b);
    exdb_print_facts(b, p);
    exdb_print_name_digest(b, p);
    exdb_buf_reset(b);
    int k = 0;
    for (const exdb_node *n = p->graph->head; n && k < MAX_NODE_INFO; n = n->next, k++) {
        exdb_print_node_info(b, p, n);
        exdb_format_node(b, n);
        exdb_buf_reset(b);
    }
    for (uint32_t i = 0; i < p->nsubgraphs && i < MAX_SUBGRAPHS; i++) {
        exdb_print_graph(b, p->subgraphs[i].graph);
        exdb_buf_reset(b);
    }
}

static void lint_all(exdb_buf *b, const exdb_program *p) {
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_program(&r, p, NULL);
    for (uint32_t i = 0; i < p->nsubgraphs && i < MAX_SUBGRAPHS; i++)
        exdb_lint_graph(&r, p->subgraphs[i].graph, NULL, p->subgraphs[i].name);
    exdb_lint_format(b, &r);
    exdb_buf_reset(b);
    exdb_lint_format_json(b, &r);
    exdb_buf_reset(b);
    exdb_lint_report_free(&r);
}

static void dce_all(exdb_buf *b, exdb_program *p, int can_save) {
    exdb_dce_log log;
    exdb_dce_opts o = {.dry_run = 1, .impure_random = 1};
    exdb_error err = {0};
    exdb_dce_log_init(&log);
    int n = exdb_dce_run(p->graph, &o, &log, &err);
    if (n < 0)
        fuzz_check_error(err.msg, err.set);
    exdb_dce_log_free(&log);
    if (n <= 0)
        return;

    /* The graph before, to compare with the graph after dce + undo. */
    exdb_buf before;
    exdb_buf_init(&before);
    exdb_print_graph(&before, p->graph);

    o.dry_run = 0;
    exdb_dce_log_init(&log);
    memset(&err, 0, sizeof err);
    int m = exdb_dce_run(p->graph, &o, &log, &err);
    if (m != n) /* a dry run says what a run removes */
        __builtin_trap();
    exdb_print_graph(b, p->graph);
    exdb_buf_reset(b);
    if (can_save) {
        exdb_save_stats st;
        memset(&err, 0, sizeof err);
        if (exdb_program_save_json(p, b, &st, &err) < 0)
            fuzz_check_error(err.msg, err.set);
        exdb_buf_reset(b);
    }
    memset(&err, 0, sizeof err);
    if (exdb_dce_undo(&log, &err) < 0)
        __builtin_trap(); /* nothing changed the graph since the run */
    exdb_dce_log_free(&log);
    exdb_print_graph(b, p->graph);
    if (b->len != before.len || memcmp(exdb_buf_str(b), exdb_buf_str(&before), b->len) != 0)
        __builtin_trap(); /* undo must restore the graph exactly */
    exdb_buf_reset(b);
    exdb_buf_free(&before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    const char *path = fuzz_write_file("program.json", data, size);
    exdb_error err = {0};
    exdb_program *p;
    if (path) { /* from the file, as a user loads it: save goes back to it */
        p = exdb_program_load(path, NULL, &err);
    } else {
        char *buf = fuzz_dup(data, size);
        if (!buf)
            return 0;
        p = exdb_program_from_json(buf, size, "fuzz.json", &err);
    }
    if (!p) {
        fuzz_check_error(err.msg, err.set);
        return 0;
    }
    exdb_buf b;
    exdb_buf_init(&b);
    print_all(&b, p);
    lint_all(&b, p);
    dce_all(&b, p, path != NULL);
    exdb_buf_free(&b);
    exdb_program_free(p);
    return 0;
}
