/* commands.c - the command table and the commands. Each command declares
 * its name, arity, flags and help, as in Redis's command table; `help`
 * prints from the table and completion reads it. A unique prefix of a name
 * or of a subcommand is enough ("inf prog"), as in gdb; an exact name wins. */
#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/export/program.h"
#include "core/export/describe.h"
#include "core/export/facts.h"
#include "core/fx/print.h"
#include "core/base/sha1.h"
#include "core/unflatten/unflatten.h"
#include "cmd_code.h"
#include "command.h"
#include "json_answers.h"
#include "session.h"
#include "commands.h"
#include "settings.h"

#define MAX_ARGS 64

volatile sig_atomic_t exdb_interrupted;

/* ---- commands */

static int cmd_help(session *s, int argc, char **argv);
static int cmd_apropos(session *s, int argc, char **argv);

/* cmd_lint.c: drops the dce undo log of a program about to be freed; after
 * each command, notes module dce edits that a rebuilt unflatten run discarded. */

static int cmd_load(session *s, int argc, char **argv) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(argv[1], argc > 2 ? argv[2] : NULL, &err);
    if (!p)
        return cmd_fail(s, "%s", err.msg);
    cmd_unflatten_forget(s);
    cmd_lint_forget_program(s, s->prog);
    exdb_program_free(s->prog);
    s->prog = p;
    uint32_t user_in = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        user_in += p->inputs[i].kind == EXDB_IN_USER_INPUT;
    fprintf(s->out,
            "Loaded %s: schema %d.%d, %u node%s (%u serialized), %u input%s (%u user), %u "
            "output%s, %u module%s in the call graph.\n",
            p->path, p->schema_major, p->schema_minor, p->graph->count, cmd_s(p->graph->count),
            p->nserialized_nodes, p->ninputs, cmd_s(p->ninputs), user_in, p->noutputs,
            cmd_s(p->noutputs), p->ncalls, cmd_s(p->ncalls));
    if (s->json)
        cmd_json_add(s, "program", ja_program(p));
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
    exdb_print_program_info(&s->buf, s->prog);
    if (s->json)
        cmd_json_add(s, "program", ja_program(s->prog));
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

/* In the order help and completion list them; help info is made from the
 * rows' usage and help (info_help). */
static const subcommand info_subs[] = {
    {"program", info_program, 0, .usage = "info program",
     .help = "file, format, versions, node and input/output counts"},
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

static int cmd_info(session *s, int argc, char **argv);
static int cmd_print(session *s, int argc, char **argv);

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
        char chunk[4096];
        size_t n;
        rewind(tmp);
        while ((n = fread(chunk, 1, sizeof chunk, tmp)) > 0)
            fwrite(chunk, 1, n, s->out);
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
    {"load", 1, 2, 0, "load FILE [MODEL]", "Load a program (.pt2 archive, legacy zip, or JSON).",
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
    {"echo", 0, -1, 0, "echo TEXT", "Print TEXT.", NULL, cmd_echo, NULL, NULL},
    {"source", 1, 1, 0, "source FILE", "Run the commands in FILE.",
     "Lines starting with # are comments. A failing command stops the script unless\n"
     "\"set on-error continue\".",
     cmd_source, NULL, NULL, NULL, CMPL_FILE},
    {"set", 2, 4, 0, "set NAME VALUE", "Change a setting (see show).", NULL, cmd_set, NULL,
     settings_help, NULL, CMPL_SETTING},
    {"show", 0, 1, 0, "show [NAME|alias]", "Show the settings, or one; show alias: the aliases.",
     NULL, cmd_show, NULL, NULL, NULL, CMPL_SETTING},
    {"cd", 0, 1, 0, "cd [DIR]", "Change the working directory (relative paths start there).", NULL,
     cmd_cd, NULL, NULL},
    {"pwd", 0, 0, 0, "pwd", "Print the working directory.", NULL, cmd_pwd, NULL, NULL},
    {"help", 0, 1, 0, "help [COMMAND|aliases]", "List commands, or describe one.",
     "help aliases lists gdb's short names (p, b, bt...) and the aliases made with\n"
     "\"alias\"; help ALIAS says what the alias runs.",
     cmd_help, NULL, NULL, NULL, CMPL_COMMAND},
    {"apropos", 1, -1, 0, "apropos REGEX",
     "The commands whose name, usage or help text matches REGEX (as gdb's).",
     "REGEX is a POSIX extended regular expression; case is ignored. Each command shows\n"
     "as \"NAME, ALIASES -- SUMMARY\"; when only lines of its help match, those lines\n"
     "follow (\"apropos pagination\" finds set's line).",
     cmd_apropos, NULL, NULL},
    {"pipe", 1, -1, 0, "pipe COMMAND | SHELL-COMMAND",
     "Send COMMAND's output to a shell command (as gdb's pipe; also \"| COMMAND | ...\").",
     "\"pipe print graph | grep relu\", \"| info breakpoints | wc -l\". The first \"|\" ends\n"
     "COMMAND; when COMMAND itself holds one, name another delimiter:\n"
     "\"pipe -d XX print node x XX grep users\". The rest of the line goes to /bin/sh -c\n"
     "as typed. The shell writes to the terminal (so \"| less\" pages); when the output\n"
     "is being logged or answered as JSON, what it prints becomes the pipe's output.\n"
     "JSON: shell_status, the shell's exit status.",
     cmd_pipe, NULL, NULL},
    {"alias", 0, -1, 0, "alias [NAME = COMMAND [ARGS...]]",
     "Make NAME run COMMAND with ARGS first (as gdb's); alone: list the aliases.",
     "\"alias ib = info breakpoints\" makes \"ib\" that command; \"alias pm = print module\"\n"
     "makes \"pm encoder\" print encoder's graph (the words typed after NAME follow ARGS).\n"
     "NAME is one word (letters, digits, _ and -, first a letter); it may not be a\n"
     "command's whole name or one of gdb's short names, and wins over a command it is\n"
     "a prefix of. An alias made again is replaced. \"show alias\" and \"help aliases\"\n"
     "list them; aliases last for the session (put them in a script to keep them).",
     cmd_alias, NULL, NULL},
    {"shell", 0, -1, 0, "shell COMMAND | !COMMAND",
     "Run COMMAND with /bin/sh (as gdb's shell; also \"!COMMAND\").",
     "The rest of the line goes to /bin/sh -c as typed: \"!ls *.pt2\", \"shell git log -1\".\n"
     "At a terminal the shell has it; when the output is a pipe, logged or answered as\n"
     "JSON, what the shell prints (stdout and stderr) is the command's output. JSON:\n"
     "shell_status, its exit status (the command succeeds whatever it is, as in gdb).",
     cmd_shell, NULL, NULL, NULL, CMPL_FILE},
    {"quit", 0, 0, 0, "quit", "Leave exdb (also: Ctrl-D).", NULL, cmd_quit, NULL, NULL},
};
const size_t program_ncommands = sizeof program_commands / sizeof *program_commands;

extern const command render_commands[];
extern const size_t render_ncommands;
extern const command lint_commands[];
extern const size_t lint_ncommands;
extern const command unflatten_commands[];
extern const size_t unflatten_ncommands;
extern const command break_commands[];
extern const size_t break_ncommands;
extern const command display_commands[];
extern const size_t display_ncommands;
extern const command find_commands[];
extern const size_t find_ncommands;
extern const command diff_commands[];
extern const size_t diff_ncommands;
extern const command explain_commands[];
extern const size_t explain_ncommands;

/* Every command table, in the order `help` lists them. A subsystem's
 * commands live in its own repl/cmd_*.c file and are added here. */
static const struct {
    const char *title;
    const command *table;
    const size_t *count;
} tables[] = {
    {"Program and session", program_commands, &program_ncommands},
    {"Searching", find_commands, &find_ncommands},
    {"Running the outliner (torch.export.unflatten)", unflatten_commands, &unflatten_ncommands},
    {"Explaining decisions", explain_commands, &explain_ncommands},
    {"Breakpoints", break_commands, &break_ncommands},
    {"Auto-display", display_commands, &display_ncommands},
    {"Checks and changes", lint_commands, &lint_ncommands},
    {"Comparing programs", diff_commands, &diff_ncommands},
    {"Pictures", render_commands, &render_ncommands},
};

#define NTABLES (sizeof tables / sizeof *tables)

/* The i-th command across all tables, or NULL. */
static const command *command_at(int i) {
    for (size_t t = 0; t < NTABLES; t++) {
        if (i < (int)*tables[t].count)
            return &tables[t].table[i];
        i -= (int)*tables[t].count;
    }
    return NULL;
}

/* gdb's short names, which win over prefix matching. */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"p", "print"},
    {"i", "info"},
    {"q", "quit"},
    {"exit", "quit"},
    {"h", "help"},
    {"s", "step"},
    {"si", "stepi"},
    {"n", "next"},
    {"c", "continue"},
    {"r", "run"},
    {"bt", "backtrace"},
    {"where", "backtrace"},
    {"w", "backtrace"},
    {"f", "frame"},
    {"l", "list"},
    {"b", "break"},
    {"d", "delete"},
    {"rs", "reverse-step"},
    {"rsi", "reverse-stepi"},
    {"rn", "reverse-next"},
    {"rc", "reverse-continue"},
    {"fin", "finish"},
    {"u", "until"},
    {"|", "pipe"},
};

const command *command_lookup_exact(const char *name) {
    int amb;
    const command *c = command_lookup(name, &amb);
    if (!c || strcmp(c->name, name) == 0)
        return c;
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            return c;
    return NULL;
}

const command *command_lookup(const char *name, int *ambiguous) {
    *ambiguous = 0;
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            name = aliases[i].name;
    const command *found = NULL;
    size_t n = strlen(name);
    const command *c;
    for (int i = 0; (c = command_at(i)); i++) {
        if (strcmp(name, c->name) == 0)
            return c;
        if (n && strncmp(name, c->name, n) == 0) {
            if (found)
                *ambiguous = 1;
            found = c;
        }
    }
    return *ambiguous ? NULL : found;
}

/* Commands whose first argument not starting with '-' ("lint --json
 * module m") names a subcommand. Before such a command runs, exec_words
 * replaces a unique prefix of one of these words by the whole word, so
 * each command compares whole words ("lint modul m", "unflatten res",
 * "delete disp 1") and an exact word wins over a longer one it starts
 * ("info node" is not "info node-map"). Completion offers them. (render,
 * set and break pick their words themselves, with cmd_pick.) */
/* The words of c's subcommands, NULL-terminated (built once per command,
 * for cmd_pick, completion and help), or NULL. */
static const char *const *subcommand_words(const command *c) {
    static struct {
        const subcommand *subs;
        const char **words;
    } cache[16];
    if (!c || !c->subs)
        return NULL;
    size_t i = 0;
    while (i < 16 && cache[i].subs && cache[i].subs != c->subs)
        i++;
    assert(i < 16); /* one slot per subcommand table: the tables are few */
    if (i == 16)
        return NULL;
    if (cache[i].subs == c->subs)
        return cache[i].words;
    size_t n = 0;
    while (c->subs[n].word)
        n++;
    const char **w = malloc((n + 1) * sizeof *w);
    if (!w)
        return NULL;
    for (size_t k = 0; k < n; k++)
        w[k] = c->subs[k].word;
    w[n] = NULL;
    cache[i].subs = c->subs;
    cache[i].words = w;
    return w;
}

const char *const *command_subcommands(const char *name) {
    int amb;
    const command *c = command_lookup(name, &amb);
    return c && strcmp(c->name, name) == 0 ? subcommand_words(c) : NULL;
}

int command_run_subcommand(session *s, const command *c, int argc, char **argv) {
    int w = cmd_pick(s, c->name, argv[1], subcommand_words(c));
    if (w < 0)
        return -1;
    const subcommand *sub = &c->subs[w];
    if (sub->max_args >= 0 && argc - 2 > sub->max_args)
        return !sub->max_args ? cmd_fail(s, "%s %s takes no argument", c->name, sub->word)
               : sub->usage   ? cmd_fail(s, "Usage: %s", sub->usage)
                              : cmd_fail(s, "%s %s takes at most %d argument%s", c->name, sub->word,
                                         sub->max_args, cmd_s((uint64_t)sub->max_args));
    if (!s->prog && !sub->no_program)
        return cmd_fail(s, "No program loaded.  Use \"load FILE\".");
    return sub->fn(s, sub->word, argc - 1, argv + 1);
}

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

/* Expands a unique prefix of c's subcommand in argv (see subcommands[]);
 * -1 after an error when it is ambiguous. A word that is no subcommand's
 * prefix is left to the command (a breakpoint number, a node...). */
int command_expand_subcommand(session *s, const command *c, int argc, char **argv) {
    const char *const *words = subcommand_words(c);
    int i = 1;
    while (words && i < argc && argv[i][0] == '-')
        i++;
    if (!words || i >= argc)
        return 0;
    int w = cmd_pick_quiet(argv[i], words);
    if (w == -2)
        return cmd_pick(s, c->name, argv[i], words);
    if (w >= 0)
        argv[i] = (char *)words[w];
    return 0;
}

const char *command_name_at(int i) {
    const command *c = command_at(i);
    return c ? c->name : NULL;
}

/* The names a command also answers to, into b: gdb's short names, then
 * the session's aliases of it ("pm (print module)"). */
static void alias_names(session *s, exdb_buf *b, const command *c) {
    size_t start = b->len;
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(aliases[i].name, c->name) == 0)
            exdb_buf_printf(b, "%s%s", b->len > start ? ", " : "", aliases[i].alias);
    const char *name, *text;
    int amb;
    for (size_t i = 0; (name = session_alias_at(s, i, &text)); i++)
        if (session_line_command(s, text, &amb) == c)
            exdb_buf_printf(b, "%s%s (%s)", b->len > start ? ", " : "", name, text);
}

const char *command_subs_help(const subcommand *subs, int width, const char *tail) {
    static struct {
        const subcommand *subs;
        char *text;
    } made[8];
    size_t i = 0;
    while (i < 8 && made[i].subs && made[i].subs != subs)
        i++;
    assert(i < 8); /* one slot per table that makes its help */
    if (i < 8 && made[i].subs)
        return made[i].text;
    exdb_buf b;
    exdb_buf_init(&b);
    for (const subcommand *sub = subs; sub->word; sub++) {
        if (!sub->help)
            continue;
        int pad = width - (int)strlen(sub->usage);
        exdb_buf_printf(&b, "%s%*s", sub->usage, pad > 0 ? pad : 1, "");
        for (const char *l = sub->help; *l;) {
            size_t n = strcspn(l, "\n");
            exdb_buf_printf(&b, "%.*s\n", (int)n, l);
            l += n;
            if (*l == '\n' && *++l)
                exdb_buf_printf(&b, "%*s", width, "");
        }
    }
    exdb_buf_puts(&b, tail);
    if (b.oom || i == 8) {
        exdb_buf_free(&b);
        return tail;
    }
    made[i].subs = subs;
    made[i].text = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return made[i].text ? made[i].text : tail;
}

static int opts_name(const cmd_opt *const *opts, const char *name) {
    for (int i = 0; opts && opts[i]; i++)
        if (strcmp(opts[i]->name, name) == 0)
            return 1;
    return 0;
}

int command_takes_option(const command *c, const char *name) {
    int found = opts_name(c->opts, name);
    for (const subcommand *sub = c->subs; !found && sub && sub->word; sub++)
        found = opts_name(sub->opts, name);
    return found;
}

const char *command_help(const command *c) {
    return c->help_fn ? c->help_fn() : c->help;
}

/* help's JSON: a command from the table (its section's title, its
 * subcommand words); full adds its help text, gdb's short names for it
 * and the session's aliases of it. */
static cJSON *command_json(session *s, const command *c, const char *section, int full) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "name", c->name);
    cJSON_AddStringToObject(o, "usage", c->usage);
    cJSON_AddStringToObject(o, "summary", c->summary);
    for (size_t t = 0; !section && t < NTABLES; t++)
        if (c >= tables[t].table && c < tables[t].table + *tables[t].count)
            section = tables[t].title;
    cJSON_AddStringToObject(o, "section", section ? section : "");
    const char *const *words = subcommand_words(c);
    cJSON *sub = words ? cJSON_AddArrayToObject(o, "subcommands") : NULL;
    for (int i = 0; sub && words[i]; i++)
        cJSON_AddItemToArray(sub, cJSON_CreateString(words[i]));
    if (!words)
        cJSON_AddNullToObject(o, "subcommands");
    if (!full)
        return o;
    if (command_help(c))
        cJSON_AddStringToObject(o, "help", command_help(c));
    else
        cJSON_AddNullToObject(o, "help");
    cJSON *shorts = cJSON_AddArrayToObject(o, "short_names");
    for (size_t i = 0; shorts && i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(aliases[i].name, c->name) == 0)
            cJSON_AddItemToArray(shorts, cJSON_CreateString(aliases[i].alias));
    cJSON *mine = cJSON_AddArrayToObject(o, "aliases");
    const char *name, *text;
    int amb;
    for (size_t i = 0; mine && (name = session_alias_at(s, i, &text)); i++)
        if (session_line_command(s, text, &amb) == c)
            cJSON_AddItemToArray(mine, cJSON_CreateString(name));
    return o;
}

/* help aliases: gdb's short names and the session's aliases. */
static int help_aliases(session *s) {
    exdb_buf_puts(&s->buf, "gdb's short names:\n");
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
        exdb_buf_printf(&s->buf, "  %-10s = %s\n", aliases[i].alias, aliases[i].name);
        cJSON *o = arr ? cJSON_CreateObject() : NULL;
        if (o) {
            cJSON_AddStringToObject(o, "name", aliases[i].alias);
            cJSON_AddStringToObject(o, "command", aliases[i].name);
            cJSON_AddItemToArray(arr, o);
        }
    }
    cmd_json_add(s, "short_names", arr);
    exdb_buf_puts(&s->buf, "Aliases of this session (\"alias NAME = COMMAND [ARGS...]\"):\n");
    return cmd_alias_list(s);
}

static int cmd_help(session *s, int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "aliases") == 0)
        return help_aliases(s);
    if (argc > 1) {
        int amb;
        const char *text = session_alias(s, argv[1], strlen(argv[1]));
        const command *c =
            text ? session_line_command(s, text, &amb) : command_lookup(argv[1], &amb);
        if (!c)
            return cmd_fail(s, "%s command \"%s\".  Try \"help\".", amb ? "Ambiguous" : "Undefined",
                            argv[1]);
        if (text)
            fprintf(s->out, "%s is an alias of \"%s\".\n", argv[1], text);
        fprintf(s->out, "Usage: %s\n%s\n", c->usage, c->summary);
        exdb_buf names;
        exdb_buf_init(&names);
        alias_names(s, &names, c);
        if (names.len)
            fprintf(s->out, "Aliases: %s\n", exdb_buf_str(&names));
        exdb_buf_free(&names);
        if (command_help(c))
            fprintf(s->out, "\n%s\n", command_help(c));
        if (s->json) {
            cJSON *o = command_json(s, c, NULL, 1);
            if (o && text)
                cJSON_AddStringToObject(o, "alias_of", text);
            cmd_json_add(s, "command_help", o);
        }
        return 0;
    }
    fputs("exdb: a debugger for torch.export programs.\n", s->out);
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    cmd_json_add(s, "commands", arr);
    for (size_t t = 0; t < NTABLES; t++) {
        fprintf(s->out, "\n%s:\n", tables[t].title);
        for (size_t i = 0; i < *tables[t].count; i++) {
            const command *c = &tables[t].table[i];
            if (arr)
                cJSON_AddItemToArray(arr, command_json(s, c, tables[t].title, 0));
            if (strlen(c->usage) > 40)
                fprintf(s->out, "  %s\n  %-40s  %s\n", c->usage, "", c->summary);
            else
                fprintf(s->out, "  %-40s  %s\n", c->usage, c->summary);
        }
    }
    fputs(
        "\nA unique prefix of a command or subcommand is enough (a whole name wins: \"info node\"\n"
        "is not \"info node-map\"); s, n, c, bt, b, p, i... are gdb's short names (\"help\n"
        "aliases\" lists them and yours). \"help COMMAND\" says more; \"apropos WORD\" finds\n"
        "the commands whose help mentions WORD.\n",
        s->out);
    return 0;
}

/* One command for apropos: "NAME, ALIASES -- SUMMARY" when re matches
 * its name, usage, summary or the names it answers to, else the lines of
 * its help that match, under that line. 1 when it matched. */
static int apropos_one(session *s, const command *c, const regex_t *re, cJSON *arr) {
    exdb_buf names;
    exdb_buf_init(&names);
    alias_names(s, &names, c);
    int head = regexec(re, c->name, 0, NULL, 0) == 0 || regexec(re, c->usage, 0, NULL, 0) == 0 ||
               regexec(re, c->summary, 0, NULL, 0) == 0 ||
               (names.len && regexec(re, exdb_buf_str(&names), 0, NULL, 0) == 0);
    cJSON *lines = arr ? cJSON_CreateArray() : NULL;
    exdb_buf found;
    exdb_buf_init(&found);
    for (const char *l = command_help(c); !head && l && *l;) {
        size_t len = strcspn(l, "\n");
        char *one = strndup(l, len);
        if (one && regexec(re, one, 0, NULL, 0) == 0) {
            const char *t = one + strspn(one, " ");
            exdb_buf_printf(&found, "    %s\n", t);
            if (lines)
                cJSON_AddItemToArray(lines, cJSON_CreateString(t));
        }
        free(one);
        l += len + (l[len] == '\n');
    }
    int hit = head || found.len;
    if (hit) {
        exdb_buf_printf(&s->buf, "%s%s%s -- %s\n%s", c->name, names.len ? ", " : "",
                        exdb_buf_str(&names), c->summary, exdb_buf_str(&found));
        if (arr) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "command", c->name);
            cJSON_AddStringToObject(o, "summary", c->summary);
            cJSON_AddItemToObject(o, "lines", lines);
            lines = NULL;
            cJSON_AddItemToArray(arr, o);
        }
    }
    cJSON_Delete(lines);
    exdb_buf_free(&names);
    exdb_buf_free(&found);
    return hit;
}

/* apropos REGEX: as gdb's, every command whose help matches (a POSIX
 * extended regular expression, case ignored). */
static int cmd_apropos(session *s, int argc, char **argv) {
    exdb_buf pat;
    exdb_buf_init(&pat);
    for (int i = 1; i < argc; i++)
        exdb_buf_printf(&pat, "%s%s", i > 1 ? " " : "", argv[i]);
    regex_t re;
    int err = regcomp(&re, exdb_buf_str(&pat), REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (err) {
        char msg[256];
        regerror(err, &re, msg, sizeof msg);
        cmd_fail(s, "apropos: \"%s\": %s", exdb_buf_str(&pat), msg);
        exdb_buf_free(&pat);
        return -1;
    }
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    int n = 0;
    const command *c;
    for (int i = 0; (c = command_at(i)); i++)
        n += apropos_one(s, c, &re, arr);
    if (!n)
        exdb_buf_printf(&s->buf, "No command's help mentions \"%s\".\n", exdb_buf_str(&pat));
    regfree(&re);
    exdb_buf_free(&pat);
    cmd_flush(s, 1);
    cmd_json_add(s, "matches", arr);
    return 0;
}
