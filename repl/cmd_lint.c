/* cmd_lint.c - lint, dce, undo and save, on the flat graph and on the
 * graphs of the unflattened module tree (lint module/all, dce module/all). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_code.h"
#include "cmd_control.h"
#include "command.h"
#include "json_answers.h"
#include "core/export/program.h"
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/fx/lintchecks.h"
#include "core/unflatten/preflight.h"
#include "core/unflatten/modgraphs.h"
#include "core/export/statefiles.h"
#include "core/unflatten/unflatten.h"
#include "core/export/save.h"
#include "session.h"

static void free_logs(exdb_dce_log *logs, uint32_t n);

/* Forgets the session's undo log (s->undo). */
static void last_free(session *s) {
    free_logs(s->undo.logs, s->undo.nlogs);
    memset(&s->undo, 0, sizeof s->undo);
}

/* Keeps logs[0..n) for undo (takes them). */
static void last_set(session *s, uint64_t serial, exdb_dce_log *logs, uint32_t n,
                     uint32_t removed) {
    last_free(s);
    s->undo.prog = s->prog;
    s->undo.serial = serial;
    s->undo.logs = logs;
    s->undo.nlogs = n;
    s->undo.removed = removed;
}

static void free_logs(exdb_dce_log *logs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        exdb_dce_log_free(&logs[i]);
    free(logs);
}

static void forget_stale_dce(session *s) {
    if (s->undo.prog && s->undo.prog != s->prog)
        last_free(s);
}

/* Called by commands.c before it frees a program (load, session_free).
 * forget_stale_dce alone compares addresses, and a freed program's address
 * can come back for a program loaded later: `dce`, two `load`s, `undo`
 * would then replay the log into the freed graph (use after free). */
void cmd_lint_forget_program(session *s, const exdb_program *p) {
    if (p && s->undo.prog == p)
        last_free(s);
}

/* Whether the module graphs a module dce edited are still the session's:
 * stepping back, goto, restart, run, a flat dce or undo rebuild or drop the
 * run (it is replayed from the flat graph), which discards the edits. */
static int module_edits_live(const session *s) {
    return s->run && s->run->run && s->run->run->serial == s->undo.serial;
}

/* Called by commands.c after every command: when the run a module dce
 * edited is gone, says so once and drops the undo log (its nodes lived in
 * the run's arena). */
void cmd_lint_after_command(session *s) {
    if (!s->undo.prog || !s->undo.serial || module_edits_live(s))
        return;
    fprintf(s->out,
            "note: the unflatten run was rebuilt from the flat graph: the %u node%s module dce "
            "removed %s back, and there is nothing left to undo.\n",
            s->undo.removed, s->undo.removed == 1 ? "" : "s", s->undo.removed == 1 ? "is" : "are");
    last_free(s);
}

/* dce and undo edit the flat graph an unflatten run was built from: the
 * run (and going back in it, which replays from the graph) is stale. */
static void forget_unflatten_run(session *s) {
    cmd_unflatten_forget(s);
}

/* ---- the finished module tree */

/* The module tree `lint module/all` reads: the session's run when it is
 * complete (with any module dce edits) or its recorded events reach the
 * end; otherwise a complete run built beside it (exdb_unflatten_finished),
 * so lint never moves the stepping position once *h is ended, as gdb's
 * commands that only look do not. NULL when unflatten itself fails (err
 * says why; nothing is printed). */
static exdb_unflatten *tree_to_read(session *s, exdb_ufinished *h, exdb_error *err) {
    return exdb_unflatten_finished(s->run, s->prog, h, err);
}

/* The module tree `dce module/all` edits: the session's run, which `print
 * module` and `info modules` show, complete. With no run yet it is created
 * and run to the end (as `print module` does); a run stopped part way is
 * left alone (editing a finished tree would mean moving the position). */
static exdb_unflatten *tree_to_edit(session *s) {
    if (s->run && s->run->failed)
        return cmd_fail(s,
                        "dce: the unflatten run stopped at an error after event %u: %s  (module "
                        "dce edits the finished module tree)",
                        s->run->pos, s->run->err.msg),
               NULL;
    if (s->run && !exdb_unflatten_done(s->run))
        return cmd_fail(s,
                        "dce: the unflatten run is at event %u, not finished; module dce edits the "
                        "finished module tree, which \"print module\" then shows: \"continue\" to "
                        "the end first (\"lint module\" needs no finished run).",
                        s->run->pos),
               NULL;
    if (!s->run) {
        exdb_unflatten *u = cmd_unflatten_run(s);
        exdb_error err = {0};
        if (!u)
            return NULL;
        if (exdb_unflatten_run(u, &err) < 0)
            return cmd_fail(s, "dce: unflatten fails, so there are no module graphs: %s", err.msg),
                   NULL;
    }
    return s->run;
}

/* ---- lint */

static void lint_output(session *s, exdb_lint_report *r, int json, uint32_t errors) {
    cmd_control_note_lint(errors, r->count[EXDB_SEV_WARNING]);
    if (json)
        exdb_lint_format_json(&s->buf, r);
    else
        exdb_lint_format(&s->buf, r);
    if (s->json) { /* set output json: the findings as data, not only as text */
        exdb_buf j;
        exdb_buf_init(&j);
        exdb_lint_format_json(&j, r);
        cmd_json_add(s, "findings", cJSON_Parse(exdb_buf_str(&j)));
        cmd_json_add(s, "errors", cJSON_CreateNumber(errors));
        cJSON *counts = cJSON_CreateObject();
        for (int k = EXDB_SEV_ERROR; counts && k <= EXDB_SEV_NOTE; k++)
            cJSON_AddNumberToObject(counts, exdb_severity_name((exdb_severity)k), r->count[k]);
        cmd_json_add(s, "counts", counts);
        exdb_buf_free(&j);
    }
    cmd_flush(s, 1);
}

/* The flat checks: Graph.lint on the graph and its subgraphs, the verifier's
 * signature checks (against a pt2 archive's weights/constants configs, which
 * name the state), unflatten pre-flight. -1 after printing an error. */
static int lint_flat(session *s, exdb_lint_report *r, uint32_t *errors) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_lint_state st;
    exdb_error err = {0};
    if (exdb_state_from_program(s->prog, &a, &st, &err) < 0) {
        exdb_arena_destroy(&a);
        return cmd_fail(s, "%s", err.msg);
    }
    *errors += exdb_lint_program(r, s->prog, st.have_state_dict || st.have_constants ? &st : NULL);
    exdb_arena_destroy(&a);
    return 0;
}

/* Graph.lint with its owning module on the graphs of module fqn (NULL:
 * every module). -1 after printing an error; for every module, an unflatten
 * that fails is a finding instead (lint all still reports the rest). */
static int lint_modules(session *s, exdb_lint_report *r, const char *fqn, uint32_t *errors) {
    exdb_ufinished temp;
    exdb_error err = {0};
    exdb_unflatten *u = tree_to_read(s, &temp, &err);
    if (!u && exdb_error_oom(&err)) /* not a finding about the program */
        return cmd_fail(s, "lint: %s", err.msg);
    if (!u) {
        if (fqn)
            return cmd_fail(s, "lint module: unflatten fails, so there are no modules: %s",
                            err.msg);
        *errors += exdb_lint_unflatten_failed(r, err.msg);
        return 0;
    }
    exdb_modgraphs gs;
    exdb_modgraphs_init(&gs);
    int rc = exdb_modgraphs_collect(&gs, u, fqn, &err);
    for (uint32_t i = 0; rc == 0 && i < gs.n; i++)
        *errors += exdb_modgraph_lint(r, u, &gs.items[i]);
    exdb_modgraphs_free(&gs);
    exdb_unflatten_finished_end(&temp);
    if (rc < 0)
        return cmd_fail(s, "%s", err.msg);
    return 0;
}

extern const command lint_commands[];

/* lint's and dce's options (their table rows are at the end of the file). */
static const cmd_opt opt_json = {.name = "--json", .help = "the findings as one JSON array"};
static const cmd_opt opt_list = {.name = "--list", .help = "the checks lint makes (the catalog)"};
static const char *const severities[] = {"error", "warning", "note", NULL};
static const cmd_opt opt_fail_on = {.name = "--fail-on",
                                    .kind = OPT_VALUE,
                                    .arg = "error|warning|note",
                                    .values = severities,
                                    .help = "fail (exit status 1 in batch mode) on a finding this "
                                            "severe or more (default error)"};
static const cmd_opt *const lint_opts[] = {&opt_json, &opt_list, &opt_fail_on, NULL};
static const cmd_opt opt_dry_run = {
    .name = "--dry-run", .alias = "-n", .help = "only list what would go"};
static const cmd_opt *const dce_opts[] = {&opt_dry_run, NULL};

/* The words after lint or dce once its options are out: none (the flat
 * graph), "module FQN" or "all" into *what (0, 1, 2) and *fqn. -1 after
 * the usage error. */
static int lint_target(session *s, const command *c, const cmd_parsed *p, int *what,
                       const char **fqn) {
    char **w = p->rest;
    *what = p->nrest == 0 ? 0 : strcmp(w[0], "module") == 0 ? 1 : strcmp(w[0], "all") == 0 ? 2 : -1;
    *fqn = *what == 1 && p->nrest == 2 ? w[1] : NULL;
    if (*what < 0 || (*what == 1 && !*fqn) || p->nrest > (*what == 1 ? 2 : 1))
        return cmd_fail(s, "Usage: %s", c->usage);
    return 0;
}

/* lint --list: the check catalog (core/fx/lintchecks.c), one line each. */
static int lint_list(session *s) {
    size_t n;
    const exdb_lint_check *c = exdb_lintchecks_all(&n);
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; i < n; i++) {
        exdb_buf_printf(&s->buf, "%-31s %-12s %s\n%-44s (%s)\n", c[i].id, c[i].severities,
                        c[i].summary, "", c[i].upstream);
        cJSON *o = arr ? cJSON_CreateObject() : NULL;
        if (o) {
            cJSON_AddStringToObject(o, "check", c[i].id);
            cJSON_AddStringToObject(o, "severities", c[i].severities);
            cJSON_AddStringToObject(o, "upstream", c[i].upstream);
            cJSON_AddStringToObject(o, "summary", c[i].summary);
            cJSON_AddItemToArray(arr, o);
        }
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "checks", arr);
    return 0;
}

static int cmd_lint(session *s, int argc, char **argv) {
    int what;
    const char *fqn;
    cmd_parsed p;
    if (cmd_opts_parse(s, "lint", NULL, lint_opts, argc, argv, 1, &p) < 0)
        return -1;
    if (cmd_opt_val(&p, lint_opts, &opt_list))
        return lint_list(s);
    if (!s->prog)
        return cmd_fail(s, "No program loaded.  Use \"load FILE\".");
    if (lint_target(s, &lint_commands[0], &p, &what, &fqn) < 0)
        return -1;
    int json = cmd_opt_val(&p, lint_opts, &opt_json) != NULL;
    const char *fail_on = cmd_opt_val(&p, lint_opts, &opt_fail_on);
    int worst = fail_on ? cmd_pick(s, "--fail-on", fail_on, severities) : EXDB_SEV_ERROR;
    if (worst < 0)
        return -1;
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    uint32_t errors = 0;
    int rc = 0;
    if (what != 1)
        rc = lint_flat(s, &r, &errors);
    if (rc == 0 && what)
        rc = lint_modules(s, &r, fqn, &errors);
    if (rc == 0)
        lint_output(s, &r, json, errors);
    int oom = r.oom;
    uint32_t warnings = r.count[EXDB_SEV_WARNING], notes = r.count[EXDB_SEV_NOTE];
    exdb_lint_report_free(&r);
    if (rc < 0)
        return -1;
    if (oom)
        return cmd_fail(s, "lint: out of memory; the findings are incomplete");
    if (errors)
        return cmd_fail(s, "lint: %u error%s.", errors, errors == 1 ? "" : "s");
    if (worst >= EXDB_SEV_WARNING && warnings)
        return cmd_fail(s, "lint: %u warning%s (--fail-on %s).", warnings, cmd_s(warnings),
                        fail_on);
    if (worst >= EXDB_SEV_NOTE && notes)
        return cmd_fail(s, "lint: %u note%s (--fail-on note).", notes, cmd_s(notes));
    return 0;
}

/* ---- dce */

static void json_removed(session *s, cJSON *arr, const char *module, const char *graph,
                         const exdb_dce_log *log) {
    for (uint32_t i = 0; arr && i < log->n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return;
        if (module)
            cJSON_AddStringToObject(o, "module", module);
        if (graph)
            cJSON_AddStringToObject(o, "graph", graph);
        cJSON_AddStringToObject(o, "node", log->items[i].node->name);
        cJSON_AddStringToObject(o, "target", log->items[i].node->target);
        cJSON_AddItemToArray(arr, o);
    }
    (void)s;
}

/* A dead getitem of a multi-output op that stays is gone from the graph but
 * not from the file: the format writes the op with all its outputs (PyTorch
 * names unused ones <op>_unused_<i>) and the loader makes a getitem of each,
 * so save keeps it and a reload brings it back. Said here, since otherwise
 * "Removed N nodes" then "save" reads as a smaller file. */
static void note_kept_getitems(session *s, uint32_t kept, uint32_t n) {
    if (!kept)
        return;
    if (kept == EXDB_SAVE_KEPT_UNKNOWN) {
        exdb_buf_puts(&s->buf, "note: out of memory counting the getitems \"save\" keeps.\n");
        return;
    }
    int one = kept == 1;
    if (kept == n)
        exdb_buf_printf(&s->buf,
                        "note: %s that stay%s. The program format stores an op with all its "
                        "outputs and has no node for such getitems (the loader makes them), so "
                        "\"save\" writes the program as loaded, and a reload has %s again.\n",
                        one ? "it is a getitem of a multi-output op"
                            : "these are all getitems of multi-output ops",
                        one ? "s" : "", one ? "it" : "them");
    else
        exdb_buf_printf(
            &s->buf,
            "note: %u of these %s that stay%s. The program format stores an op with "
            "all its outputs, so \"save\" leaves %s in the file, and a reload has %s "
            "again.\n",
            kept, one ? "is a getitem of a multi-output op" : "are getitems of multi-output ops",
            one ? "s" : "", one ? "it" : "them", one ? "it" : "them");
}

static int dce_flat(session *s, const exdb_dce_opts *o) {
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_error err = {0};
    int n = exdb_dce_run(s->prog->graph, o, &log, &err);
    if (n < 0) {
        exdb_dce_log_free(&log);
        return cmd_fail(s, "%s", err.msg);
    }
    if (n == 0)
        exdb_buf_printf(&s->buf, "Nothing to remove: every node has users or is impure.\n");
    else
        exdb_buf_printf(&s->buf, "%s %d node%s%s:\n", o->dry_run ? "Would remove" : "Removed", n,
                        n == 1 ? "" : "s", o->dry_run ? "" : " (\"undo\" puts them back)");
    for (uint32_t i = 0; i < log.n; i++)
        exdb_buf_printf(&s->buf, "  %s = %s\n", log.items[i].node->name, log.items[i].node->target);
    uint32_t kept = exdb_save_kept_getitems(s->prog, &log);
    note_kept_getitems(s, kept, (uint32_t)log.n);
    cmd_flush(s, 0);
    if (s->json) {
        cJSON *arr = cJSON_CreateArray();
        json_removed(s, arr, NULL, NULL, &log);
        cmd_json_add(s, "removed", arr);
        cmd_json_add(s, "kept_in_file",
                     kept == EXDB_SAVE_KEPT_UNKNOWN ? cJSON_CreateNull()
                                                    : cJSON_CreateNumber(kept));
    }
    if (o->dry_run || n == 0) {
        exdb_dce_log_free(&log);
        return 0;
    }
    exdb_dce_log *keep = malloc(sizeof *keep);
    if (!keep) { /* the graph is edited, but cannot be restored */
        exdb_dce_log_free(&log);
        last_free(s);
        forget_unflatten_run(s);
        return cmd_fail(s, "dce: out of memory: \"undo\" cannot restore this one");
    }
    *keep = log;
    if (s->undo.serial && module_edits_live(s))
        fprintf(s->out, "note: the module dce edits go with the unflatten run, which is rebuilt "
                        "from the edited graph.\n");
    last_set(s, 0, keep, 1, (uint32_t)n);
    forget_unflatten_run(s);
    return 0;
}

/* Lists the nodes removed (would be removed) from each graph, and their
 * JSON in arr (when not NULL). */
static void list_removed(session *s, const exdb_modgraphs *gs, const exdb_dce_log *logs,
                         cJSON *arr) {
    for (uint32_t i = 0; i < gs->n; i++) {
        const exdb_modgraph *g = &gs->items[i];
        if (!logs[i].n)
            continue;
        exdb_buf_printf(&s->buf, "module %s%s%s:\n", g->module[0] ? g->module : "<root>",
                        g->subgraph ? ", subgraph " : "", g->subgraph ? g->subgraph : "");
        for (uint32_t k = 0; k < logs[i].n; k++) {
            const exdb_node *d = logs[i].items[k].node;
            exdb_buf_printf(&s->buf, "  %s = %s%s\n", d->name, d->target,
                            d->op == EXDB_OP_CALL_MODULE
                                ? "  (a submodule call: its module keeps its graph, but this "
                                  "call no longer runs)"
                                : "");
        }
        json_removed(s, arr, g->module, g->subgraph, &logs[i]);
    }
}

/* The graphs FX's eliminate_dead_code raises on (Graph.lint first): one
 * line each, and their JSON in refused (when not NULL). How many. */
static uint32_t list_refused(session *s, const exdb_modgraphs *gs, cJSON *refused) {
    uint32_t nrefused = 0;
    for (uint32_t i = 0; i < gs->n; i++) {
        const exdb_modgraph *g = &gs->items[i];
        if (!g->refused)
            continue;
        nrefused++;
        exdb_buf_printf(&s->buf, "module %s%s%s: not touched, its graph does not lint: %s\n",
                        g->module[0] ? g->module : "<root>", g->subgraph ? ", subgraph " : "",
                        g->subgraph ? g->subgraph : "", g->refused);
        if (refused) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "module", g->module);
            if (g->subgraph)
                cJSON_AddStringToObject(e, "graph", g->subgraph);
            else
                cJSON_AddNullToObject(e, "graph");
            cJSON_AddStringToObject(e, "error", g->refused);
            cJSON_AddItemToArray(refused, e);
        }
    }
    return nrefused;
}

/* A dce that failed (refused before any change by lint, or out of memory
 * part way): what it did remove stays undoable, else the logs go. */
static void keep_failed(session *s, const exdb_unflatten *u, exdb_dce_log *logs, uint32_t nlogs) {
    int edited = 0;
    for (uint32_t i = 0; i < nlogs; i++)
        edited |= logs[i].applied && logs[i].n > 0;
    if (edited) {
        uint32_t removed = 0;
        for (uint32_t i = 0; i < nlogs; i++)
            removed += logs[i].applied ? logs[i].n : 0;
        last_set(s, u->run->serial, logs, nlogs, removed);
    } else {
        free_logs(logs, nlogs);
    }
}

/* eliminate_dead_code on the graphs of module fqn (NULL: every module) of
 * the finished module tree, in place. */
static int dce_modules(session *s, const char *fqn, const exdb_dce_opts *o) {
    exdb_unflatten *u = tree_to_edit(s);
    if (!u)
        return -1;
    exdb_modgraphs gs;
    exdb_modgraphs_init(&gs);
    exdb_error err = {0};
    if (exdb_modgraphs_collect(&gs, u, fqn, &err) < 0) {
        exdb_modgraphs_free(&gs);
        return cmd_fail(s, "%s", err.msg);
    }
    exdb_dce_log *logs = calloc(gs.n ? gs.n : 1, sizeof *logs);
    if (!logs) {
        exdb_modgraphs_free(&gs);
        return cmd_fail(s, "out of memory");
    }
    int n = exdb_modgraphs_dce(&gs, u, o, logs, &err);
    uint32_t ngraphs = 0;
    for (uint32_t i = 0; i < gs.n; i++)
        ngraphs += logs[i].n > 0;
    if (ngraphs && !o->dry_run)
        exdb_unflatten_mark_edited(u); /* stepping now rebuilds the run (no journal of this) */
    if (n == 0)
        exdb_buf_printf(&s->buf, "Nothing to remove: every node has users or is impure.\n");
    else if (n > 0)
        exdb_buf_printf(&s->buf, "%s %d node%s from %u graph%s%s:\n",
                        o->dry_run ? "Would remove" : "Removed", n, n == 1 ? "" : "s", ngraphs,
                        ngraphs == 1 ? "" : "s", o->dry_run ? "" : " (\"undo\" puts them back)");
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    if (n > 0)
        list_removed(s, &gs, logs, arr);
    cJSON *refused = s->json ? cJSON_CreateArray() : NULL;
    uint32_t nrefused = n >= 0 ? list_refused(s, &gs, refused) : 0;
    cmd_flush(s, 0);
    if (arr)
        cmd_json_add(s, "removed", arr);
    if (refused && nrefused)
        cmd_json_add(s, "refused", refused);
    else
        cJSON_Delete(refused);
    uint32_t nlogs = gs.n;
    exdb_modgraphs_free(&gs);
    if (n < 0) {
        keep_failed(s, u, logs, nlogs);
        return cmd_fail(s, "%s", err.msg);
    }
    if (o->dry_run || n == 0)
        free_logs(logs, nlogs);
    else
        last_set(s, u->run->serial, logs, nlogs, (uint32_t)n);
    if (nrefused)
        return cmd_fail(s, "dce: %u graph%s not lint, so FX's eliminate_dead_code raises on %s",
                        nrefused, nrefused == 1 ? " does" : "s do", nrefused == 1 ? "it" : "them");
    return 0;
}
static int cmd_dce(session *s, int argc, char **argv) {
    exdb_dce_opts o = {0, 1, NULL, NULL};
    int what;
    const char *fqn;
    cmd_parsed p;
    if (cmd_opts_parse(s, "dce", NULL, dce_opts, argc, argv, 1, &p) < 0 ||
        lint_target(s, &lint_commands[1], &p, &what, &fqn) < 0)
        return -1;
    o.dry_run = cmd_opt_val(&p, dce_opts, &opt_dry_run) != NULL;
    forget_stale_dce(s);
    return what ? dce_modules(s, fqn, &o) : dce_flat(s, &o);
}

static int cmd_undo(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    forget_stale_dce(s);
    if (!s->undo.prog)
        return cmd_fail(s, "Nothing to undo.");
    if (s->undo.serial && !module_edits_live(s)) { /* after-command note not shown yet */
        last_free(s);
        return cmd_fail(s, "Nothing to undo: the unflatten run module dce edited was rebuilt.");
    }
    /* newest graph first, each log newest removal first */
    exdb_error err = {0};
    for (uint32_t i = s->undo.nlogs; i-- > 0;) {
        if (!s->undo.logs[i].applied || !s->undo.logs[i].n)
            continue;
        /* a failed undo changed nothing in its graph (those after it are
         * undone and cleared): "undo" again goes on where it stopped */
        if (exdb_dce_undo(&s->undo.logs[i], &err) < 0)
            return cmd_fail(s, "%s", err.msg);
    }
    uint32_t n = s->undo.removed;
    int module = s->undo.serial != 0;
    last_free(s);
    if (!module) /* the run was built from the graph as dce left it */
        forget_unflatten_run(s);
    fprintf(s->out, "Restored %u node%s removed by the last dce.\n", n, n == 1 ? "" : "s");
    cmd_json_add(s, "restored", cJSON_CreateNumber(n));
    return 0;
}

/* What save wrote, or would write: the nodes left out, and whether the
 * program is the one loaded although dce removed getitems from the graph. */
static void save_report(session *s, const exdb_save_stats *st, int paren) {
    uint32_t k = st->getitems_kept;
    exdb_buf_printf(&s->buf, "%s%zu bytes of program JSON", paren ? "(" : "", st->bytes);
    if (st->nodes_dropped)
        exdb_buf_printf(&s->buf, "; %u serialized node%s and %u value%s left out",
                        st->nodes_dropped, st->nodes_dropped == 1 ? "" : "s", st->values_dropped,
                        st->values_dropped == 1 ? "" : "s");
    if (paren)
        exdb_buf_puts(&s->buf, ")");
    if (k && !st->nodes_dropped)
        exdb_buf_printf(&s->buf,
                        ", the program as loaded: the %u getitem%s dce removed belong%s to "
                        "%s that stay%s, which the format stores with all %s outputs, so a "
                        "reload makes %s again",
                        k, k == 1 ? "" : "s", k == 1 ? "s" : "",
                        k == 1 ? "a multi-output op" : "multi-output ops", k == 1 ? "s" : "",
                        k == 1 ? "its" : "their", k == 1 ? "it" : "them");
    else if (k)
        exdb_buf_printf(&s->buf,
                        ". %u getitem%s dce removed stay%s in the file: %s to %s that stay%s, "
                        "which the format stores with all %s outputs",
                        k, k == 1 ? "" : "s", k == 1 ? "s" : "",
                        k == 1 ? "it belongs" : "they belong",
                        k == 1 ? "a multi-output op" : "multi-output ops", k == 1 ? "s" : "",
                        k == 1 ? "its" : "their");
    exdb_buf_puts(&s->buf, ".\n");
    cmd_flush(s, 0);
}

static int cmd_save(session *s, int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "code") == 0) /* save code ...: cmd_code.c */
        return cmd_code_save(s, argc - 1, argv + 1);
    int force = 0, dry = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0 || strcmp(argv[i], "-f") == 0)
            force = 1;
        else if (strcmp(argv[i], "--dry-run") == 0 || strcmp(argv[i], "-n") == 0)
            dry = 1;
        else if (!file)
            file = argv[i];
        else
            return cmd_fail(s, "Usage: save [--force] FILE | save --dry-run");
    }
    if (dry == !!file || (dry && force))
        return cmd_fail(s, "Usage: save [--force] FILE | save --dry-run");
    exdb_save_stats st;
    exdb_error err = {0};
    /* save reads the program text again, as big as the file: the arena
     * blocks earlier commands freed (lint's, render's) rarely fit it, so
     * they are given back rather than kept beside it */
    exdb_arena_trim();
    if (dry) { /* what save would write, written nowhere */
        exdb_buf b;
        exdb_buf_init(&b);
        int rc = exdb_program_save_json(s->prog, &b, &st, &err);
        exdb_buf_free(&b);
        if (rc < 0)
            return cmd_fail(s, "%s", err.msg);
        exdb_buf_puts(&s->buf, "Would save ");
    } else {
        if (exdb_program_save(s->prog, file, force, &st, &err) < 0)
            return cmd_fail(s, "%s", err.msg);
        exdb_buf_printf(&s->buf, "Saved %s ", file);
    }
    save_report(s, &st, !dry);
    if (s->json)
        cmd_json_add(s, "file", ja_saved_file(dry ? NULL : file, &st));
    return 0;
}

/* ---- scripts */

/* Scripts have no if: one that runs to a stop and inspects it would, on a
 * program where the run completes instead, go on to dump the finished tree
 * and fail at its first stepping command (exit status 1). */
static int cmd_quit_if_complete(session *s, int argc, char **argv) {
    int complete = s->run && !s->run->failed && exdb_unflatten_done(s->run);
    cmd_json_add(s, "complete", cJSON_CreateBool(complete));
    if (!complete)
        return 0;
    for (int i = 1; i < argc; i++)
        exdb_buf_printf(&s->buf, "%s%s", i > 1 ? " " : "", argv[i]);
    cmd_flush(s, argc > 1);
    cmd_json_add(s, "quit", cJSON_CreateTrue());
    s->quit_requested = 1;
    return 0;
}

/* The subcommand words lint reads itself (a unique prefix names one). */
static const subcommand lint_subs[] = {
    {"module", NULL, -1, 1, NULL, CMPL_MODULE}, {"all", NULL, -1, 1, NULL, CMPL_NONE}, {NULL}};

const command lint_commands[] = {
    {"lint", 0, 3, 0, "lint [module FQN|all] [--json]",
     "Check the graph, the signature, and what unflatten would trip on.",
     "One line per finding: severity, node, module, what is wrong -- fix: what to do [check].\n"
     "  fx.*         torch.fx Graph.lint(): opcodes, ownership, topological order, names;\n"
     "               on module graphs also get_attr/call_module targets against the module\n"
     "  sig.*        torch/_export/verifier.py: input/output specs, mutation targets, the\n"
     "               root call signature's in_spec/out_spec against the user inputs/outputs\n"
     "  unflatten.*  nodes without nn_module_stack, stacks unflatten truncates, modules\n"
     "               entered twice, repeated calls (name@N), preserved signatures, state used\n"
     "               outside its owner module\n"
     "lint                the flat graph (and its higher-order ops' subgraphs), the signature,\n"
     "                    the unflatten pre-flight\n"
     "lint module FQN     Graph.lint() of that unflattened module's graph (\"\" = the root; a\n"
     "                    dispatcher: each call's graph) and of its higher-order ops' subgraphs,\n"
     "                    with torch.fx's target checks against the module's attributes\n"
     "lint all            lint, then every module graph\n"
     "Module graphs are those of the finished unflatten: the session's run when it is\n"
     "complete (with any \"dce module\" edits), else a complete run built aside, so lint\n"
     "never moves the stepping position. A finding in a subgraph names it (\"subgraph G\").\n"
     "--json prints one JSON array with one object per finding: {\"severity\", \"check\",\n"
     "\"node\", \"module\", \"graph\", \"message\", \"fix\"} (null when not applicable).\n"
     "Fails (exit status 1 in batch mode) when there is a finding of severity error;\n"
     "--fail-on warning|note fails on those too (CI), --fail-on error is the default.\n"
     "lint --list prints every check id with its severities, what it finds and the\n"
     "PyTorch code it mirrors (core/fx/lintchecks.c, one row each).",
     cmd_lint, lint_subs, NULL, lint_opts, CMPL_NONE},
    {"dce", 0, 3, CMD_NEEDS_PROGRAM, "dce [module FQN|all] [--dry-run]",
     "Remove nodes without users that have no side effects (Graph.eliminate_dead_code).",
     "One reverse pass, as torch.fx does: a dead chain goes at once. Kept: placeholders,\n"
     "output, side-effectful functions (asserts, sym_constrain_range, profiler ranges,\n"
     "setitem...), in-place (op_) and out= overloads, random ops. Operators are recognised\n"
     "by name (see core/fx/dce.h). --dry-run only lists. \"undo\" restores the graph.\n"
     "dce                 the flat graph; the unflatten run, built from it, is dropped\n"
     "dce module FQN      that module's graph in the finished module tree, then the subgraphs\n"
     "                    its get_attr nodes still name (as FX recurses into GraphModule\n"
     "                    children); a dead call_module goes too (InterpreterModule has no\n"
     "                    _is_impure)\n"
     "dce all             every module graph of the finished module tree (not the flat graph:\n"
     "                    run \"dce\" first for that, which rebuilds the tree from it)\n"
     "Module dce edits the session's finished unflatten run, which \"print module\" and\n"
     "\"lint module\" then show; with no run yet one is run to the end first; a run stopped\n"
     "part way is refused (\"continue\" first). Going back (reverse-*, goto, restart, run) or\n"
     "a flat dce/undo rebuilds the run from the flat graph, which discards the module edits\n"
     "(a note says so); \"save\" writes the flat program, never module edits.",
     cmd_dce, lint_subs, NULL, dce_opts, CMPL_NONE},
    {"undo", 0, 0, CMD_NEEDS_PROGRAM, "undo",
     "Put back what the last dce (flat, module or all) removed.", NULL, cmd_undo, NULL, NULL},
    {"save", 1, -1, CMD_NEEDS_PROGRAM, "save [--force] FILE | save --dry-run",
     "Write the current program (e.g. after dce) in the format it was loaded from.",
     "Bare JSON stays bare JSON; a .pt2 or legacy zip is copied member for member with the\n"
     "program replaced. Serialized nodes removed by dce are left out with their values.\n"
     "A getitem dce removed while its multi-output op stays is not left out: the format\n"
     "keeps an op's outputs with the op (the loader makes the getitems), so the file has it\n"
     "and a reload brings it back; save says so (dce too).\n"
     "The program is written from the file it was loaded from, found again by its absolute\n"
     "path (a cd does not matter); if that file changed, moved or is gone since the load,\n"
     "save refuses and writes nothing (load it again). The write is atomic (temporary\n"
     "file, then rename); an existing FILE is only replaced with --force, and never when\n"
     "it is not a regular file (a device, a FIFO, a link). --dry-run says what would be\n"
     "written, and writes nothing.\n"
     "save code [--force] [module [FQN]] FILE writes print code's Python instead (module\n"
     "FQN: that module's, \"\" the root; module alone: ep.module()'s).",
     cmd_save, NULL, NULL, NULL, CMPL_FILE},
    {"quit-if-complete", 0, -1, 0, "quit-if-complete [TEXT]",
     "In a script: if the unflatten run is complete, print TEXT and quit (status 0).",
     "For scripts that run to a stop (a breakpoint, unflatten's error) and then inspect it:\n"
     "when the run did not stop but completed, there is nothing to inspect, and the next\n"
     "commands would show the finished tree or fail. This quits exdb there, as quit does,\n"
     "after printing TEXT (say what that means: \"no buffer mutations\", \"unflatten\n"
     "succeeds\"). Otherwise (stopped part way, failed, or no run yet) it does nothing.\n"
     "Example (scripts/buffer-mutation.exdb; \"break op\" would refuse a program without\n"
     "a copy_, where this form of breakpoint is accepted and never hit):\n"
     "  break event copy if target ~ torch.ops.aten.copy_.*\n"
     "  run\n"
     "  quit-if-complete No buffer mutations.",
     cmd_quit_if_complete, NULL, NULL},
};
const size_t lint_ncommands = sizeof lint_commands / sizeof *lint_commands;
