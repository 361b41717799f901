/* cmd_program.c - the "Program and session" commands: load, info and
 * print (their subcommand rows), echo, source, set, show, cd, pwd, shell,
 * quit; help, apropos, pipe and alias are in their own files (commands.c,
 * cmd_output.c, cmd_alias.c). The table that lists every command's table
 * is commands.c's. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/export/cache.h"
#include "core/export/describe.h"
#include "core/export/facts.h"
#include "core/export/program.h"
#include "core/fx/print.h"
#include "core/unflatten/unflatten.h"
#include "cmd_code.h"
#include "cmd_control.h"
#include "command.h"
#include "cmd_output.h"
#include "commands.h"
#include "json_answers.h"
#include "session.h"
#include "settings.h"

/* ---- commands */

/* cmd_lint.c: drops the dce undo log of a program about to be freed; after
 * each command, notes module dce edits that a rebuilt unflatten run discarded. */

static int cmd_load(session *s, int argc, char **argv) {
    exdb_error err = {0};
    /* shape first when big: the IR is built for the first command that
     * needs it (session.c) */
    exdb_program *p = exdb_program_open(argv[1], argc > 2 ? argv[2] : NULL, &err);
    if (!p)
        return cmd_fail(s, "%s", err.msg);
    cmd_unflatten_forget(s);
    cmd_lint_forget_program(s, s->prog);
    exdb_program_free(s->prog);
    s->prog = p;
    uint32_t user_in = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        user_in += p->inputs[i].kind == EXDB_IN_USER_INPUT;
    exdb_node_counts nc;
    exdb_program_node_counts(p, &nc);
    fprintf(s->out,
            "Loaded %s: schema %d.%d, %u node%s (%u serialized), %u input%s (%u user), %u "
            "output%s, %u module%s in the call graph.\n",
            p->path, p->schema_major, p->schema_minor, nc.nodes, cmd_s(nc.nodes),
            p->nserialized_nodes, p->ninputs, cmd_s(p->ninputs), user_in, p->noutputs,
            cmd_s(p->noutputs), p->ncalls, cmd_s(p->ncalls));
    if (s->json)
        cmd_json_add(s, "program", ja_program(p));
    if (s->interactive) /* the IR built while the user reads the prompt */
        exdb_program_build_start(p);
    return 0;
}

/* Whether glob (a name with *, ? or [) matches some node's name. */
static int glob_matches_some(session *s, const char *glob) {
    for (const exdb_node *n = s->prog->graph->head; n && cmd_find_is_glob(glob); n = n->next)
        if (fnmatch(glob, n->name, 0) == 0)
            return 1;
    return 0;
}

/* print node NAME... (and info node, as display's "node NAME" reads it):
 * argv[0] is "node". */
static int print_nodes(session *s, const char *cmd, int argc, char **argv) {
    if (argc < 2)
        return cmd_fail(s, "Usage: %s node NAME...", cmd);
    for (int i = 1; i < argc; i++)
        if (!exdb_graph_find(s->prog->graph, argv[i]) && !glob_matches_some(s, argv[i]))
            return cmd_find_is_glob(argv[i])
                       ? cmd_fail(s, "No node's name matches \"%s\".", argv[i])
                       : cmd_node_not_found(s, argv[i]);
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (int i = 1; i < argc; i++) {
        const exdb_node *n = exdb_graph_find(s->prog->graph, argv[i]);
        /* a name first; else a glob: every node it matches */
        for (const exdb_node *m = n ? n : s->prog->graph->head; m; m = n ? NULL : m->next) {
            if (!n && fnmatch(argv[i], m->name, 0) != 0)
                continue;
            exdb_print_node_info(&s->buf, s->prog, m);
            cJSON *nj = arr ? ja_node(s->prog, m) : NULL;
            cmd_code_node_line(s, m, nj);
            if (nj)
                cJSON_AddItemToArray(arr, nj);
        }
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "nodes", arr);
    return 0;
}

/* ---- info WHAT: the program's facts here; the outliner's state (frames,
 * maps, seen sets) in cmd_unflatten.c; breakpoints in cmd_break.c */

static int info_program(session *s, const char *word, int argc, char **argv) {
    const exdb_program *p = exdb_program_shape_view(s->prog); /* CMD_SHAPE */
    exdb_print_program_info(&s->buf, p);
    if (s->json)
        cmd_json_add(s, "program", ja_program(p));
    cmd_flush(s, 1);
    return 0;
}

/* info cache: the reopen cache's folder, entries and bounds
 * (core/export/cache.h). */
static int info_cache(session *s, const char *word, int argc, char **argv) {
    exdb_cache_info ci;
    exdb_cache_stat(&ci);
    if (!ci.dir)
        exdb_buf_puts(&s->buf, "Reopen cache: off (--no-cache, EXDB_CACHE=0, or no usable "
                               "XDG_CACHE_HOME or HOME).\n");
    else
        exdb_buf_printf(&s->buf,
                        "Reopen cache: %s\n%u entr%s, %llu bytes (at most %zu MiB in all, %zu MiB "
                        "an entry; the oldest go first).\n",
                        ci.dir, ci.entries, ci.entries == 1 ? "y" : "ies",
                        (unsigned long long)ci.bytes, ci.total_max >> 20, ci.entry_max >> 20);
    if (s->json) {
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddItemToObject(o, "dir",
                                  ci.dir ? cJSON_CreateString(ci.dir) : cJSON_CreateNull());
            cJSON_AddNumberToObject(o, "entries", ci.entries);
            cJSON_AddNumberToObject(o, "bytes", (double)ci.bytes);
            cJSON_AddNumberToObject(o, "entry_max", (double)ci.entry_max);
            cJSON_AddNumberToObject(o, "total_max", (double)ci.total_max);
        }
        cmd_json_add(s, "cache", o);
    }
    cmd_flush(s, 1);
    return 0;
}

static int info_signature(session *s, const char *word, int argc, char **argv) {
    size_t from = s->buf.len;
    exdb_print_signature(&s->buf, s->prog);
    /* str(ExportGraphSignature) starts with a blank line; the command does not */
    if (s->buf.len > from && s->buf.s[from] == '\n') {
        memmove(s->buf.s + from, s->buf.s + from + 1, s->buf.len - from); /* with the NUL */
        s->buf.len--;
    }
    if (s->json)
        cmd_json_add(s, "signature", ja_signature(s->prog));
    cmd_flush(s, 1);
    return 0;
}

static int info_call_graph(session *s, const char *word, int argc, char **argv) {
    exdb_print_call_graph(&s->buf, s->prog);
    if (s->json)
        cmd_json_add(s, "module_call_graph", ja_call_graph(s->prog));
    cmd_flush(s, 1);
    return 0;
}

static int info_facts(session *s, const char *word, int argc, char **argv) {
    exdb_print_facts(&s->buf, s->prog);
    exdb_print_name_digest(&s->buf, s->prog);
    if (s->json)
        cmd_json_add(s, "facts", ja_facts(exdb_buf_str(&s->buf)));
    cmd_flush(s, 1);
    return 0;
}

static const cmd_opt opt_full = {.name = "--full", .help = "whole fqns, not the last name"};
static const cmd_opt *const modules_opts[] = {&opt_full, NULL};

static int info_modules(session *s, const char *word, int argc, char **argv) {
    cmd_parsed p;
    if (cmd_opts_parse(s, "info", word, modules_opts, argc, argv, 1, &p) < 0)
        return -1;
    if (p.nrest > 1)
        return cmd_fail(s, "Usage: info modules [FQN] [--full]");
    return cmd_modules_info(s, p.nrest ? p.rest[0] : NULL,
                            cmd_opt_val(&p, modules_opts, &opt_full) != NULL, 0);
}

static int info_module(session *s, const char *word, int argc, char **argv) {
    if (argc != 2)
        return cmd_fail(s, "Usage: info module FQN   (\"\" is the root)");
    return cmd_modules_info(s, argv[1], 1, 1);
}

static int info_breakpoints(session *s, const char *word, int argc, char **argv) {
    return cmd_break_info(s);
}

static int info_display(session *s, const char *word, int argc, char **argv) {
    return cmd_display_info(s);
}

static int info_node(session *s, const char *word, int argc, char **argv) {
    return print_nodes(s, "info", argc, argv);
}

static int info_source(session *s, const char *word, int argc, char **argv) {
    return cmd_source_info(s, word, argc, argv);
}

static int info_nodes(session *s, const char *word, int argc, char **argv) {
    return cmd_find(s, argc, argv);
}

static int info_event(session *s, const char *word, int argc, char **argv) {
    return cmd_explain_info_event(s, argc, argv);
}

static const cmd_opt opt_depth = {.name = "--depth",
                                  .kind = OPT_COUNT,
                                  .arg = "N",
                                  .min = 1,
                                  .max = 1000,
                                  .help = "their users too, N levels down (default 1)"};
static const cmd_opt *const users_opts[] = {&opt_depth, NULL};

/* info users NODE [--depth N]: FX's node.users, and with --depth N their
 * users down to N levels, breadth first, each node once, a level's nodes
 * indented under the last; each as find prints it (its answer too). */
static int info_users(session *s, const char *word, int argc, char **argv) {
    cmd_parsed p;
    if (cmd_opts_parse(s, "info", word, users_opts, argc, argv, 1, &p) < 0)
        return -1;
    if (p.nrest != 1)
        return cmd_fail(s, "Usage: info users NODE [--depth N]");
    const exdb_graph *g = s->prog->graph;
    const exdb_node *from = exdb_graph_find(g, p.rest[0]);
    if (!from)
        return cmd_node_not_found(s, p.rest[0]);
    long depth = cmd_opt_num(&p, users_opts, &opt_depth);
    const exdb_node **queue = malloc(((size_t)g->count + 1) * sizeof *queue);
    char *seen = calloc((size_t)g->next_id + 1, 1);
    if (!queue || !seen) {
        free(queue);
        free(seen);
        return cmd_fail(s, "info users: out of memory");
    }
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    char indent[2 * 16 + 1] = "";
    uint32_t head = 0, tail = 0;
    queue[tail++] = from;
    seen[from->id] = 1;
    for (long level = 1; level <= (depth ? depth : 1) && head < tail; level++) {
        uint32_t end = tail;
        for (; head < end; head++)
            for (uint32_t u = 0; u < queue[head]->nusers; u++) {
                const exdb_node *n = queue[head]->users[u];
                if (seen[n->id])
                    continue;
                seen[n->id] = 1;
                queue[tail++] = n;
                cmd_find_match(s, n, indent, arr);
            }
        if (level < 16)
            strcat(indent, "  ");
    }
    uint32_t count = tail - 1;
    exdb_buf_printf(&s->buf, "%u user%s of %%%s", count, cmd_s(count), from->name);
    if (depth > 1)
        exdb_buf_printf(&s->buf, ", %ld levels down", depth);
    exdb_buf_puts(&s->buf, ".\n");
    free(queue);
    free(seen);
    cmd_flush(s, 1);
    cmd_json_add(s, "count", cJSON_CreateNumber(count));
    cmd_json_add(s, "matches", arr);
    return 0;
}

/* In the order help and completion list them; help info is made from the
 * rows' usage and help (info_help). */
static const subcommand info_subs[] = {
    {"program", info_program, 0, .shape = 1, .usage = "info program",
     .help = "file, format, versions, node and input/output counts"},
    {"cache", info_cache, 0, 1, .shape = 1, .usage = "info cache",
     .help = "the reopen cache: its folder, entries and bounds"},
    {"signature", info_signature, 0, .usage = "info signature",
     .help = "the graph signature as ExportGraphSignature prints it"},
    {"module-call-graph", info_call_graph, 0, .usage = "info module-call-graph",
     .help = "module_call_graph entries with preserved signatures"},
    {"modules", info_modules, -1, .opts = modules_opts, .complete = CMPL_MODULE,
     .usage = "info modules [FQN]",
     .help = "the unflattened module tree (FQN: its subtree): types, calls,\n"
             "graphs' sizes; --full names each module by its whole fqn"},
    {"module", info_module, 1, .complete = CMPL_MODULE, .usage = "info module FQN",
     .help = "that module's line of info modules, by its whole fqn"},
    {"facts", info_facts, 0, .usage = "info facts",
     .help = "counts in the stable format of scripts/real_expect.py"},
    {"breakpoints", info_breakpoints, -1, 1, .usage = "info breakpoints",
     .help = "breakpoints and watchpoints, with their hit counts"},
    {"watchpoints", info_breakpoints, -1, 1},
    {"frame", cmd_frames_info_frame, 1, .usage = "info frame [N]",
     .help = "the selected frame (or frame N): module, call, stack, signature"},
    {"node-map", cmd_frames_info_frame, 1, .usage = "info node-map [N]",
     .help = "its node_map: flat node -> node of the frame's graph"},
    {"placeholders", cmd_frames_info_frame, 1, .usage = "info placeholders [N]",
     .help = "its node_to_placeholder: flat node -> placeholder"},
    {"seen-nodes", cmd_frames_info_seen_nodes, 0, .usage = "info seen-nodes",
     .help = "seen_nodes: the flat nodes copied so far, and into which frame"},
    {"seen-modules", cmd_frames_info_seen_modules, 0, .usage = "info seen-modules",
     .help = "seen_modules: every module id and its calls (fqn, call index)"},
    {"ivals", cmd_frames_info_ivals, 0, .usage = "info ivals",
     .help = "_IVals: mutated buffers' intermediate values, by module"},
    {"events", cmd_frames_info_events, -1, .usage = "info events [A-B] [KIND]",
     .help = "the event log up to the cursor (a range, a kind, or \"later\":\n"
             "the decisions after outlining: IVAL ... DONE)"},
    {"event", info_event, -1, .usage = "info event [K]",
     .help = "event K (the cursor's by default) with its detail: what SINK\n"
             "sunk, erased or kept as input and why, where DEDUP's graphs\n"
             "first differ, what DISPATCH and REORDER moved (\"explain K\"\n"
             "says it in words)"},
    {"display", info_display, 0, 1, .usage = "info display",
     .help = "the auto-display expressions"},
    {"node", info_node, -1, .complete = CMPL_NODE, .usage = "info node NAME...",
     .help = "as print node (\"info node\" is not \"info node-map\")"},
    {"line", info_source, -1, .usage = "info line NODE",
     .help = "its source line (the innermost stack_trace frame), the file,\n"
             "and its module stack with the line each module was called at"},
    {"lines", info_source, -1, .usage = "info lines [FQN]",
     .help = "the module's nodes grouped by their line in its code (first\n"
             "appearance order); without FQN every node by its source line"},
    {"calls", info_source, -1, .usage = "info calls FQN",
     .help = "every call of the module (an nn_module_stack key each) and\n"
             "the line it was called at: the frame of the call's first node\n"
             "that calls the attribute (\".conv1(\"), else the frame below\n"
             "the parent's call (a Sequential's \"input = module(input)\")"},
    {"nodes", info_nodes, -1, .usage = "info nodes [FILTERS]",
     .help = "as find (the nodes matching the filters)"},
    {"users", info_users, -1, .opts = users_opts, .complete = CMPL_NODE, .usage = "info users NODE",
     .help = "the nodes that use NODE (FX's node.users); --depth N: theirs\n"
             "too, N levels down, breadth first; one line each, as find"},
    {NULL},
};

static const char *info_help(void) {
    return command_subs_help(info_subs, 24,
                             "Add --all to see a listing longer than \"set max-lines\".");
}

/* ---- print WHAT */

static int print_graph(session *s, const char *word, int argc, char **argv) {
    if (strcmp(word, "graph") == 0)
        exdb_print_graph(&s->buf, s->prog->graph);
    else
        exdb_print_tabular(&s->buf, s->prog->graph);
    if (s->json)
        cmd_json_add(s, "graph", ja_graph(s->prog, s->prog->graph));
    cmd_flush(s, 1);
    return 0;
}

static int print_node(session *s, const char *word, int argc, char **argv) {
    return print_nodes(s, "print", argc, argv);
}

static int print_module(session *s, const char *word, int argc, char **argv) {
    if (argc != 2)
        return cmd_fail(s, "Usage: print module FQN   (\"\" is the root)");
    return cmd_modules_print(s, argv[1]);
}

static int print_frame(session *s, const char *word, int argc, char **argv) {
    return cmd_frames_print(s, argc, argv);
}

static int print_code(session *s, const char *word, int argc, char **argv) {
    return cmd_code_print(s, strcmp(word, "readable") == 0, argc, argv);
}

static const subcommand print_subs[] = {
    {"graph", print_graph, 0, 0},
    {"tabular", print_graph, 0, 0},
    {"node", print_node, -1, 0, NULL, CMPL_NODE},
    {"module", print_module, -1, 0, NULL, CMPL_MODULE},
    {"frame", print_frame, -1, 0},
    {"code", print_code, -1, 0},
    {"readable", print_code, -1, 0},
    {NULL, NULL, 0, 0},
};

static int cmd_info(session *s, int argc, char **argv) {
    int amb;
    return command_run_subcommand(s, command_lookup("info", &amb), argc, argv);
}

/* print EXPR: a subcommand word, else what the word names, as gdb's print
 * of an expression: a node (or a glob of nodes), a module of the call
 * graph (print module FQN). */
static int cmd_print(session *s, int argc, char **argv) {
    int amb;
    const command *c = command_lookup("print", &amb);
    if (argv[1][0] == '$' || argv[1][0] == '(') /* a convenience variable (cmd_control.c) */
        return cmd_control_print(s);
    if (cmd_pick_quiet(argv[1], command_subcommands("print")) == -1) {
        if (exdb_graph_find(s->prog->graph, argv[1]) || glob_matches_some(s, argv[1]))
            return print_nodes(s, "print", argc, argv);
        for (uint32_t i = 0; argc == 2 && i < s->prog->ncalls; i++)
            if (argv[1][0] && strcmp(s->prog->calls[i].fqn, argv[1]) == 0)
                return cmd_modules_print(s, argv[1]);
        for (uint32_t i = 0; argc == 2 && i < s->prog->ninputs; i++)
            if (s->prog->inputs[i].target && s->prog->inputs[i].name &&
                strcmp(s->prog->inputs[i].target, argv[1]) == 0) { /* a state name */
                char *words[] = {argv[0], (char *)s->prog->inputs[i].name, NULL};
                return print_nodes(s, "print", 2, words);
            }
        char *end;
        strtol(argv[1], &end, 10);
        if (argc == 2 && *argv[1] && !*end) /* an event number: info event K */
            return cmd_explain_info_event(s, argc, argv);
    }
    return command_run_subcommand(s, c, argc, argv);
}

static int cmd_echo(session *s, int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        exdb_buf_printf(&s->buf, "%s%s", i > 1 ? " " : "", argv[i]);
    if (s->json)
        cmd_json_add(s, "text", cJSON_CreateString(exdb_buf_str(&s->buf)));
    exdb_buf_putc(&s->buf, '\n');
    fputs(exdb_buf_str(&s->buf), s->out);
    exdb_buf_reset(&s->buf);
    return 0;
}

static int cmd_source(session *s, int argc, char **argv) {
    (void)argc;
    int rc = session_source(s, argv[1]);
    cmd_json_add(s, "script", cJSON_CreateString(argv[1]));
    return rc;
}

static void settings_json(session *s, const setting *st);

static int cmd_set(session *s, int argc, char **argv) {
    if (argv[1][0] == '$') /* set $NAME = EXPR (cmd_control.c) */
        return cmd_control_set(s);
    if (argc > 5) /* at most 4 words after "set" */
        return cmd_fail(s, "Usage: set NAME VALUE");
    const setting *st = settings_pick(s, "set", argv[1]);
    if (!st || st->set(s, st, argc, argv) < 0)
        return -1;
    settings_json(s, st); /* the value the setting has now */
    return 0;
}

/* JSON mode: "settings" with every setting, or only st's. */
static void settings_json(session *s, const setting *st) {
    if (!s->json)
        return;
    exdb_buf b;
    exdb_buf_init(&b);
    settings_show(s, st, &b);
    if (!b.oom)
        cmd_json_add(s, "settings", ja_settings(exdb_buf_str(&b)));
    exdb_buf_free(&b);
}

static int cmd_show(session *s, int argc, char **argv) {
    if (argc > 1 && (strcmp(argv[1], "alias") == 0 || strcmp(argv[1], "aliases") == 0))
        return cmd_alias_list(s);
    /* show NAME (or a unique prefix of it, as set takes): only that line */
    const setting *st = NULL;
    if (argc > 1) {
        size_t n = strlen(argv[1]), hits = 0;
        for (const setting *t = settings; t->name; t++)
            hits += strncmp(t->name, argv[1], n) == 0;
        if (!hits)
            return cmd_fail(s, "No setting \"%s\".  Try \"show\".", argv[1]);
        if (!(st = settings_pick(s, "show", argv[1])))
            return -1;
        exdb_buf_reset(&s->buf); /* only that line */
    }
    settings_show(s, st, &s->buf);
    cmd_flush(s, 1);
    settings_json(s, st);
    return 0;
}

/* cd DIR: where relative paths (load, source, save, render -o) go, as
 * gdb's cd; scripts that write files use it. */
static int cmd_cd(session *s, int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : getenv("HOME");
    if (!dir || chdir(dir) < 0)
        return cmd_fail(s, "%s: %s", dir ? dir : "cd", dir ? strerror(errno) : "HOME is not set");
    char *d = s->json ? getcwd(NULL, 0) : NULL;
    if (d)
        cmd_json_add(s, "directory", cJSON_CreateString(d));
    free(d);
    return 0;
}

static int cmd_pwd(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    char *d = getcwd(NULL, 0);
    if (!d)
        return cmd_fail(s, "pwd: %s", strerror(errno));
    fprintf(s->out, "Working directory %s.\n", d);
    cmd_json_add(s, "directory", cJSON_CreateString(d));
    free(d);
    return 0;
}

/* shell COMMAND, !COMMAND: the rest of the line as typed to /bin/sh -c, as
 * gdb's shell. At a terminal the shell has it; else (a pipe, a log, JSON,
 * pipe's capture) what it prints, stdout and stderr, becomes the command's
 * output. Its exit status is the JSON answer's shell_status; it does not
 * fail the command (as in gdb). */
static int cmd_shell(session *s, int argc, char **argv) {
    const char *cmd = s->line ? s->line : "";
    cmd += strspn(cmd, " \t");
    cmd += strcspn(cmd, " \t"); /* the command's own word */
    cmd += strspn(cmd, " \t");
    int direct = s->out == stdout && !s->json && isatty(STDOUT_FILENO);
    FILE *tmp = direct ? NULL : tmpfile();
    if (!direct && !tmp)
        return cmd_fail(s, "shell: %s", strerror(errno));
    fflush(s->out);
    fflush(s->errout);
    pid_t pid = fork();
    if (pid == 0) {
        if (tmp) {
            dup2(fileno(tmp), STDOUT_FILENO);
            dup2(fileno(tmp), STDERR_FILENO);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (tmp) {
        output_replay(s, tmp);
        fclose(tmp);
    }
    if (pid < 0)
        return cmd_fail(s, "shell: cannot start /bin/sh: %s", strerror(errno));
    cmd_json_add(s, "shell_status",
                 cJSON_CreateNumber(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    return 0;
}

static int cmd_quit(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    s->quit_requested = 1;
    cmd_json_add(s, "quit", cJSON_CreateTrue());
    return 0;
}

const command program_commands[] = {
    {"load", 1, 2, CMD_SHAPE, "load FILE [MODEL]",
     "Load a program (.pt2 archive, legacy zip, or JSON).",
     "FILE is a .pt2 written by torch.export.save (2.8+ archive or the older zip with\n"
     "serialized_exported_program.json) or bare program JSON. MODEL picks one program of a\n"
     "multi-model archive. Weights are never read.",
     cmd_load, NULL, NULL, NULL, CMPL_FILE},
    {"info", 1, -1, 0,
     "info program|signature|module-call-graph|modules|facts|breakpoints|frame|node-map|node|...",
     "Describe the loaded program, the outliner's state, or the breakpoints.", NULL, cmd_info,
     info_subs, info_help},
    {"print", 1, -1, CMD_NEEDS_PROGRAM,
     "print graph|tabular|node NAME...|module FQN|frame [N]|code|readable",
     "Print the flat graph, nodes, a module's graph, or a frame's partial graph.",
     "print graph        the graph exactly as str(torch.fx.Graph) prints it\n"
     "print tabular      as Graph.print_tabular() prints it\n"
     "print node NAME    one node: op, target, args, users, value, module stack, stack trace\n"
     "print node GLOB    every node whose name matches (fnmatch: relu*, conv?_[0-9])\n"
     "print NAME         what NAME names, as gdb's print: a node (or GLOB), a module, a\n"
     "                   state name (its placeholder), an event number (info event K)\n"
     "print module FQN   one unflattened module's graph, as str(graph) prints it (\"\" = root)\n"
     "print frame [N]    the graph the outliner is building in frame N (default: selected)\n"
     "print code         the Python FX generates: ep.graph_module.code\n"
     "print readable     ep.graph_module.print_readable(); options --stride, --device,\n"
     "                   --color (include_stride, include_device, colored)\n"
     "print code|readable module [FQN] that module's code / print_readable() (\"\" = root;\n"
     "                   without FQN: ep.module()'s)\n"
     "print code|readable frame [N]    the code of the graph frame N is building\n"
     "Add --all to see a listing longer than \"set max-lines\".",
     cmd_print, print_subs, NULL},
    {"echo", 0, -1, CMD_SHAPE, "echo TEXT", "Print TEXT.", NULL, cmd_echo, NULL, NULL},
    {"source", 1, 1, CMD_SHAPE, "source FILE", "Run the commands in FILE.",
     "Lines starting with # are comments. A failing command stops the script unless\n"
     "\"set on-error continue\".",
     cmd_source, NULL, NULL, NULL, CMPL_FILE},
    {"set", 2, -1, CMD_SHAPE, "set NAME VALUE",
     "Change a setting (see show); set $NAME = EXPR: a variable (help if).", NULL, cmd_set, NULL,
     settings_help, NULL, CMPL_SETTING},
    {"show", 0, 1, CMD_SHAPE, "show [NAME|alias]",
     "Show the settings, or one; show alias: the aliases.", NULL, cmd_show, NULL, NULL, NULL,
     CMPL_SETTING},
    {"cd", 0, 1, CMD_SHAPE, "cd [DIR]",
     "Change the working directory (relative paths start there).", NULL, cmd_cd, NULL, NULL},
    {"pwd", 0, 0, CMD_SHAPE, "pwd", "Print the working directory.", NULL, cmd_pwd, NULL, NULL},
    {"help", 0, 1, CMD_SHAPE, "help [COMMAND|aliases]", "List commands, or describe one.",
     "help aliases lists gdb's short names (p, b, bt...) and the aliases made with\n"
     "\"alias\"; help ALIAS says what the alias runs.",
     cmd_help, NULL, NULL, NULL, CMPL_COMMAND},
    {"apropos", 1, -1, CMD_SHAPE, "apropos REGEX",
     "The commands whose name, usage or help text matches REGEX (as gdb's).",
     "REGEX is a POSIX extended regular expression; case is ignored. Each command shows\n"
     "as \"NAME, ALIASES -- SUMMARY\"; when only lines of its help match, those lines\n"
     "follow (\"apropos pagination\" finds set's line).",
     cmd_apropos, NULL, NULL},
    {"pipe", 1, -1, CMD_SHAPE, "pipe COMMAND | SHELL-COMMAND",
     "Send COMMAND's output to a shell command (as gdb's pipe; also \"| COMMAND | ...\").",
     "\"pipe print graph | grep relu\", \"| info breakpoints | wc -l\". The first \"|\" ends\n"
     "COMMAND; when COMMAND itself holds one, name another delimiter:\n"
     "\"pipe -d XX print node x XX grep users\". The rest of the line goes to /bin/sh -c\n"
     "as typed. The shell writes to the terminal (so \"| less\" pages); when the output\n"
     "is being logged or answered as JSON, what it prints becomes the pipe's output.\n"
     "JSON: shell_status, the shell's exit status.",
     cmd_pipe, NULL, NULL},
    {"alias", 0, -1, CMD_SHAPE, "alias [NAME = COMMAND [ARGS...]]",
     "Make NAME run COMMAND with ARGS first (as gdb's); alone: list the aliases.",
     "\"alias ib = info breakpoints\" makes \"ib\" that command; \"alias pm = print module\"\n"
     "makes \"pm encoder\" print encoder's graph (the words typed after NAME follow ARGS).\n"
     "NAME is one word (letters, digits, _ and -, first a letter); it may not be a\n"
     "command's whole name or one of gdb's short names, and wins over a command it is\n"
     "a prefix of. An alias made again is replaced. \"show alias\" and \"help aliases\"\n"
     "list them; aliases last for the session (put them in a script to keep them).",
     cmd_alias, NULL, NULL},
    {"shell", 0, -1, CMD_SHAPE, "shell COMMAND | !COMMAND",
     "Run COMMAND with /bin/sh (as gdb's shell; also \"!COMMAND\").",
     "The rest of the line goes to /bin/sh -c as typed: \"!ls *.pt2\", \"shell git log -1\".\n"
     "At a terminal the shell has it; when the output is a pipe, logged or answered as\n"
     "JSON, what the shell prints (stdout and stderr) is the command's output. JSON:\n"
     "shell_status, its exit status (the command succeeds whatever it is, as in gdb).",
     cmd_shell, NULL, NULL, NULL, CMPL_FILE},
    {"quit", 0, 0, CMD_SHAPE, "quit", "Leave exdb (also: Ctrl-D).", NULL, cmd_quit, NULL, NULL},
};
const size_t program_ncommands = sizeof program_commands / sizeof *program_commands;
