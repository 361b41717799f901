/* cmd_lint.c - lint, dce, undo and save. */
#include <cjson/cJSON.h>
#include <string.h>

#include "command.h"
#include "core/dce.h"
#include "core/lint.h"
#include "core/statefiles.h"
#include "core/unflatten.h"
#include "core/save.h"
#include "session.h"

/* The last dce, for undo. The session has no slot for it, so it lives here,
 * tied to the program it ran on (a new `load` makes it stale: forgotten). */
static exdb_dce_log last_dce;
static const exdb_program *last_dce_prog;

static void forget_stale_dce(session *s) {
    if (last_dce_prog && last_dce_prog != s->prog) {
        exdb_dce_log_free(&last_dce);
        last_dce_prog = NULL;
    }
}

/* Called by commands.c before it frees a program (load, session_free).
 * forget_stale_dce alone compares addresses, and a freed program's address
 * can come back for a program loaded later: `dce`, two `load`s, `undo`
 * would then replay the log into the freed graph (use after free). */
void cmd_lint_forget_program(const exdb_program *p);
void cmd_lint_forget_program(const exdb_program *p) {
    if (p && last_dce_prog == p) {
        exdb_dce_log_free(&last_dce);
        last_dce_prog = NULL;
    }
}

/* dce and undo edit the flat graph an unflatten run was built from: the
 * run (and going back in it, which replays from the graph) is stale. */
static void forget_unflatten_run(session *s) {
    exdb_unflatten_free(s->run);
    s->run = NULL;
}

static int cmd_lint(session *s, int argc, char **argv) {
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else
            return cmd_fail(s, "Usage: lint [--json]");
    }
    /* A pt2 archive names its state in its payload configs: check the
     * signature's parameters and buffers against them. */
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_lint_state st;
    exdb_error err = {0};
    if (exdb_state_from_archive(s->prog->path, s->prog->model, &a, &st, &err) < 0) {
        exdb_arena_destroy(&a);
        return cmd_fail(s, "%s", err.msg);
    }
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    uint32_t errors =
        exdb_lint_program(&r, s->prog, st.have_state_dict || st.have_constants ? &st : NULL);
    if (json)
        exdb_lint_format_json(&s->buf, &r);
    else
        exdb_lint_format(&s->buf, &r);
    if (s->json) { /* set output json: the findings as data, not only as text */
        exdb_buf j;
        exdb_buf_init(&j);
        exdb_lint_format_json(&j, &r);
        cmd_json_add(s, "findings", cJSON_Parse(exdb_buf_str(&j)));
        cmd_json_add(s, "errors", cJSON_CreateNumber(errors));
        exdb_buf_free(&j);
    }
    cmd_flush(s, 1);
    int oom = r.oom;
    exdb_lint_report_free(&r);
    exdb_arena_destroy(&a);
    if (oom)
        return cmd_fail(s, "lint: out of memory; the findings are incomplete");
    if (errors)
        return cmd_fail(s, "lint: %u error%s.", errors, errors == 1 ? "" : "s");
    return 0;
}

static int cmd_dce(session *s, int argc, char **argv) {
    exdb_dce_opts o = {0, 1, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dry-run") == 0 || strcmp(argv[i], "-n") == 0)
            o.dry_run = 1;
        else
            return cmd_fail(s, "Usage: dce [--dry-run]");
    }
    forget_stale_dce(s);
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    int n = exdb_dce_run(s->prog->graph, &o, &log, &err);
    if (n < 0) {
        exdb_dce_log_free(&log);
        return cmd_fail(s, "%s", err.msg);
    }
    if (n == 0)
        exdb_buf_printf(&s->buf, "Nothing to remove: every node has users or is impure.\n");
    else
        exdb_buf_printf(&s->buf, "%s %d node%s%s:\n", o.dry_run ? "Would remove" : "Removed", n,
                        n == 1 ? "" : "s", o.dry_run ? "" : " (\"undo\" puts them back)");
    for (uint32_t i = 0; i < log.n; i++)
        exdb_buf_printf(&s->buf, "  %s = %s\n", log.items[i].node->name, log.items[i].node->target);
    cmd_flush(s, 0);
    if (o.dry_run || n == 0) {
        exdb_dce_log_free(&log);
        return 0;
    }
    exdb_dce_log_free(&last_dce);
    last_dce = log;
    last_dce_prog = s->prog;
    forget_unflatten_run(s);
    return 0;
}

static int cmd_undo(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    forget_stale_dce(s);
    if (!last_dce_prog)
        return cmd_fail(s, "Nothing to undo.");
    uint32_t n = last_dce.n;
    exdb_error err = {0};
    if (exdb_dce_undo(&last_dce, &err) < 0)
        return cmd_fail(s, "%s", err.msg);
    exdb_dce_log_free(&last_dce);
    last_dce_prog = NULL;
    forget_unflatten_run(s);
    fprintf(s->out, "Restored %u node%s removed by the last dce.\n", n, n == 1 ? "" : "s");
    return 0;
}

static int cmd_save(session *s, int argc, char **argv) {
    int force = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0 || strcmp(argv[i], "-f") == 0)
            force = 1;
        else if (!file)
            file = argv[i];
        else
            return cmd_fail(s, "Usage: save [--force] FILE");
    }
    if (!file)
        return cmd_fail(s, "Usage: save [--force] FILE");
    exdb_save_stats st;
    exdb_error err = {0};
    if (exdb_program_save(s->prog, file, force, &st, &err) < 0)
        return cmd_fail(s, "%s", err.msg);
    fprintf(s->out, "Saved %s (%zu bytes of program JSON", file, st.bytes);
    if (st.nodes_dropped)
        fprintf(s->out, "; %u serialized node%s and %u value%s left out", st.nodes_dropped,
                st.nodes_dropped == 1 ? "" : "s", st.values_dropped,
                st.values_dropped == 1 ? "" : "s");
    fputs(").\n", s->out);
    return 0;
}

const command lint_commands[] = {
    {"lint", 0, 1, CMD_NEEDS_PROGRAM, "lint [--json]",
     "Check the graph, the signature, and what unflatten would trip on.",
     "One line per finding: severity, node, module, what is wrong -- fix: what to do [check].\n"
     "  fx.*         torch.fx Graph.lint(): opcodes, ownership, topological order, names\n"
     "  sig.*        torch/_export/verifier.py: input/output specs, mutation targets, the\n"
     "               root call signature's in_spec/out_spec against the user inputs/outputs\n"
     "  unflatten.*  nodes without nn_module_stack, stacks unflatten truncates, modules\n"
     "               entered twice, repeated calls (name@N), preserved signatures, state used\n"
     "               outside its owner module\n"
     "--json prints one JSON array with one object per finding: {\"severity\", \"check\",\n"
     "\"node\", \"module\", \"message\", \"fix\"} (node/module null when not applicable).\n"
     "Fails (exit status 1 in batch mode) when there is a finding of severity error.",
     cmd_lint},
    {"dce", 0, 1, CMD_NEEDS_PROGRAM, "dce [--dry-run]",
     "Remove nodes without users that have no side effects (Graph.eliminate_dead_code).",
     "One reverse pass, as torch.fx does: a dead chain goes at once. Kept: placeholders,\n"
     "output, side-effectful functions (asserts, sym_constrain_range, profiler ranges,\n"
     "setitem...), in-place (op_) and out= overloads, random ops. Operators are recognised\n"
     "by name (see core/dce.h). --dry-run only lists. \"undo\" restores the graph.",
     cmd_dce},
    {"undo", 0, 0, CMD_NEEDS_PROGRAM, "undo", "Put back what the last dce removed.", NULL,
     cmd_undo},
    {"save", 1, 2, CMD_NEEDS_PROGRAM, "save [--force] FILE",
     "Write the current program (e.g. after dce) in the format it was loaded from.",
     "Bare JSON stays bare JSON; a .pt2 or legacy zip is copied member for member with the\n"
     "program replaced. Serialized nodes removed by dce are left out with their values.\n"
     "The write is atomic (temporary file, then rename); an existing FILE is only replaced\n"
     "with --force.",
     cmd_save},
};
const size_t lint_ncommands = sizeof lint_commands / sizeof *lint_commands;
