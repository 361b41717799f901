/* commands.c - the command table and the commands. Each command declares
 * its name, arity, flags and help, as in Redis's command table; `help`
 * prints from the table and completion reads it. A unique prefix of a name
 * or of a subcommand is enough ("inf prog"), as in gdb; an exact name wins. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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
#include "settings.h"

#define MAX_ARGS 64

volatile sig_atomic_t exdb_interrupted;

int cmd_fail(session *s, const char *fmt, ...) {
    fflush(s->out); /* what the command printed comes first */
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->errout, fmt, ap);
    va_end(ap);
    fputc('\n', s->errout);
    fflush(s->errout);
    return -1;
}

/* Writes n bytes of a listing; with `set width N`, a line wider than N
 * columns (colour codes take none, a UTF-8 character one) is cut to N-1
 * and ends with "…". */
static void put_listing(session *s, const char *t, size_t n) {
    if (s->width <= 0 || s->show_all || s->json) {
        fwrite(t, 1, n, s->out);
        return;
    }
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - t) : n, cols = 0, j = i, cut = (size_t)-1;
        while (j < end) {
            if (t[j] == '\033') { /* an escape sequence: up to its final letter */
                while (j < end && !((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z')))
                    j++;
                j++;
                continue;
            }
            if (((unsigned char)t[j] & 0xC0) != 0x80) {
                cols++;
                if (cols == (size_t)s->width && cut == (size_t)-1)
                    cut = j; /* the N-th column: "…" goes there if the line is wider */
                if (cols > (size_t)s->width)
                    break;
            }
            j++;
        }
        if (cols > (size_t)s->width) {
            fwrite(t + i, 1, cut - i, s->out);
            fputs(cmd_color(s, C_RESET), s->out);
            fputs("\xe2\x80\xa6", s->out);
        } else {
            fwrite(t + i, 1, end - i, s->out);
        }
        if (nl)
            fputc('\n', s->out);
        i = end + (nl != NULL);
    }
}

void cmd_flush(session *s, int newline) {
    const char *t = exdb_buf_str(&s->buf);
    size_t len = s->buf.len;
    if (s->buf.oom) {
        /* an append ran out of memory: the text is cut short, and the
         * command fails saying so rather than look complete */
        put_listing(s, t, len);
        exdb_buf_reset(&s->buf);
        s->buf.oom = 0;
        s->output_oom = 1;
        cmd_fail(s, "%sout of memory: the output is incomplete", len ? "\n" : "");
        return;
    }
    if (s->max_lines > 0 && !s->show_all && !s->json) {
        /* cut after max_lines lines, but never to hide a single line */
        size_t lines = 0, cut = 0;
        for (size_t i = 0; i < len; i++)
            if (t[i] == '\n' || i + 1 == len) {
                lines++;
                if (lines == (size_t)s->max_lines)
                    cut = i + 1;
            }
        if (lines > (size_t)s->max_lines + 1) {
            put_listing(s, t, cut);
            fprintf(s->out,
                    "(%zu more lines: add --all to see them, or \"set max-lines unlimited\")\n",
                    lines - (size_t)s->max_lines);
            fflush(s->out);
            exdb_buf_reset(&s->buf);
            return;
        }
    }
    put_listing(s, t, len);
    if (newline && len && t[len - 1] != '\n')
        fputc('\n', s->out);
    fflush(s->out);
    exdb_buf_reset(&s->buf);
}

int cmd_parse_count(session *s, const char *word, uint32_t *n) {
    char *end;
    long v = strtol(word, &end, 10);
    if (!*word || *end || v < 0 || v > 100000000)
        return cmd_fail(s, "Expected a count, found \"%s\".", word);
    *n = (uint32_t)v;
    return 0;
}

const char *cmd_color(const session *s, cmd_color_t c) {
    static const char *const codes[] = {"\033[0m",  "\033[1m",  "\033[2m",  "\033[31m",
                                        "\033[32m", "\033[33m", "\033[34m", "\033[36m"};
    return s->color_now ? codes[c] : "";
}

void cmd_json_add(session *s, const char *key, cJSON *val) {
    if (!val)
        return;
    if (!s->json || (!s->data && !(s->data = cJSON_CreateObject()))) {
        cJSON_Delete(val);
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(s->data, key);
    cJSON_AddItemToObject(s->data, key, val);
}

/* The choice word is, or the one it is a unique prefix of: an exact name
 * wins over a longer one it starts ("node" is not "node-map"). -1 when
 * none, -2 when ambiguous. */
static int pick_quiet(const char *word, const char *const *choices) {
    int found = -1;
    size_t n = strlen(word);
    for (int i = 0; choices[i]; i++) {
        if (strcmp(word, choices[i]) == 0)
            return i;
        if (n && strncmp(word, choices[i], n) == 0)
            found = found == -1 ? i : -2;
    }
    return found;
}

int cmd_pick(session *s, const char *what, const char *word, const char *const *choices) {
    int found = pick_quiet(word, choices);
    if (found >= 0)
        return found;
    /* ambiguous: the words it starts; unknown: every word */
    char list[512] = "";
    size_t n = found == -2 ? strlen(word) : 0;
    for (int i = 0; choices[i]; i++)
        if (strncmp(word, choices[i], n) == 0) {
            strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, choices[i], sizeof list - strlen(list) - 1);
        }
    if (found == -2)
        return cmd_fail(s, "Ambiguous \"%s\" of %s: could be %s", word, what, list) - 1;
    return cmd_fail(s, "Unknown \"%s\" of %s: expected one of %s", word, what, list) - 1;
}

/* ---- did-you-mean for node names: the closest by edit distance */

static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    return row[lb];
}

int cmd_node_not_found(session *s, const char *name) {
    const exdb_node *best = NULL;
    size_t bd = (size_t)-1;
    for (const exdb_node *n = s->prog->graph->head; n; n = n->next) {
        size_t d = edit_distance(name, n->name);
        if (d < bd) {
            bd = d;
            best = n;
        }
    }
    if (best && bd <= 3 + strlen(name) / 4)
        return cmd_fail(s, "No node \"%s\" in the graph. Did you mean \"%s\"?", name, best->name);
    return cmd_fail(s, "No node \"%s\" in the graph.", name);
}

/* ---- commands */

static int cmd_help(session *s, int argc, char **argv);
static int cmd_apropos(session *s, int argc, char **argv);

/* cmd_lint.c: drops the dce undo log of a program about to be freed; after
 * each command, notes module dce edits that a rebuilt unflatten run discarded. */
void cmd_lint_forget_program(const exdb_program *p);
void cmd_lint_after_command(session *s);

static int cmd_load(session *s, int argc, char **argv) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(argv[1], argc > 2 ? argv[2] : NULL, &err);
    if (!p)
        return cmd_fail(s, "%s", err.msg);
    cmd_unflatten_forget(s);
    cmd_lint_forget_program(s->prog);
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

/* The subcommands of info and print, in the order help and completion
 * list them; the index is what cmd_info and cmd_print switch on. */
enum {
    INFO_PROGRAM,
    INFO_SIGNATURE,
    INFO_CALL_GRAPH,
    INFO_FACTS,
    INFO_MODULES,
    INFO_BREAKPOINTS,
    INFO_FRAME,
    INFO_NODE_MAP,
    INFO_PLACEHOLDERS,
    INFO_SEEN_NODES,
    INFO_SEEN_MODULES,
    INFO_IVALS,
    INFO_WATCHPOINTS,
    INFO_DISPLAY,
    INFO_EVENTS,
    INFO_EVENT,
    INFO_NODE,
    INFO_LINE,
    INFO_LINES,
    INFO_CALLS,
    INFO_NODES,
};
static const char *const info_words[] = {"program",     "signature",    "module-call-graph",
                                         "facts",       "modules",      "breakpoints",
                                         "frame",       "node-map",     "placeholders",
                                         "seen-nodes",  "seen-modules", "ivals",
                                         "watchpoints", "display",      "events",
                                         "event",       "node",        "line",         "lines",
                                         "calls",       "nodes",        NULL};
enum {
    PRINT_GRAPH,
    PRINT_TABULAR,
    PRINT_NODE,
    PRINT_MODULE,
    PRINT_FRAME,
    PRINT_CODE,
    PRINT_READABLE
};
static const char *const print_words[] = {"graph", "tabular", "node",     "module",
                                          "frame", "code",    "readable", NULL};

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

/* info WHAT: the program's facts here; the outliner's state (frames,
 * maps, seen sets) in cmd_unflatten.c; breakpoints in cmd_break.c. */
static int cmd_info(session *s, int argc, char **argv) {
    int w = cmd_pick(s, "info", argv[1], info_words);
    if (w < 0)
        return -1;
    if (w == INFO_DISPLAY)
        return argc > 2 ? cmd_fail(s, "info display takes no argument") : cmd_display_info(s);
    if (w <= INFO_MODULES && argc > 2)
        return cmd_fail(s, "info %s takes no argument", info_words[w]);
    if (!s->prog && w != INFO_BREAKPOINTS && w != INFO_WATCHPOINTS)
        return cmd_fail(s, "No program loaded.  Use \"load FILE\".");
    switch (w) {
    case INFO_PROGRAM:
        exdb_print_program_info(&s->buf, s->prog);
        if (s->json)
            cmd_json_add(s, "program", ja_program(s->prog));
        break;
    case INFO_SIGNATURE:
        exdb_print_signature(&s->buf, s->prog);
        if (s->json)
            cmd_json_add(s, "signature", ja_signature(s->prog));
        break;
    case INFO_CALL_GRAPH:
        exdb_print_call_graph(&s->buf, s->prog);
        if (s->json)
            cmd_json_add(s, "module_call_graph", ja_call_graph(s->prog));
        break;
    case INFO_FACTS:
        exdb_print_facts(&s->buf, s->prog);
        exdb_print_name_digest(&s->buf, s->prog);
        if (s->json)
            cmd_json_add(s, "facts", ja_facts(exdb_buf_str(&s->buf)));
        break;
    case INFO_MODULES:
        return cmd_unflatten_info_modules(s);
    case INFO_BREAKPOINTS:
    case INFO_WATCHPOINTS:
        return cmd_break_info(s);
    case INFO_NODE:
        return print_nodes(s, "info", argc - 1, argv + 1);
    case INFO_LINE:
    case INFO_LINES:
    case INFO_CALLS:
        return cmd_source_info(s, info_words[w], argc - 1, argv + 1);
    case INFO_NODES:
        return cmd_find(s, argc - 1, argv + 1);
    case INFO_EVENT:
        return cmd_explain_info_event(s, argc - 1, argv + 1);
    default:
        return cmd_unflatten_info(s, info_words[w], argc - 1, argv + 1);
    }
    cmd_flush(s, 1);
    return 0;
}

static int cmd_print(session *s, int argc, char **argv) {
    int w = cmd_pick(s, "print", argv[1], print_words);
    if (w < 0)
        return -1;
    if (w == PRINT_FRAME)
        return cmd_unflatten_print_frame(s, argc - 1, argv + 1);
    if (w == PRINT_MODULE) {
        if (argc != 3)
            return cmd_fail(s, "Usage: print module FQN   (\"\" is the root)");
        return cmd_unflatten_print_module(s, argv[2]);
    }
    if (w == PRINT_NODE)
        return print_nodes(s, "print", argc - 1, argv + 1);
    if (w == PRINT_CODE || w == PRINT_READABLE)
        return cmd_code_print(s, w == PRINT_READABLE, argc - 1, argv + 1);
    if (argc > 2)
        return cmd_fail(s, "print %s takes no argument", print_words[w]);
    if (w == PRINT_GRAPH)
        exdb_print_graph(&s->buf, s->prog->graph);
    else
        exdb_print_tabular(&s->buf, s->prog->graph);
    if (s->json)
        cmd_json_add(s, "graph", ja_graph(s->prog, s->prog->graph));
    cmd_flush(s, 1);
    return 0;
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
     cmd_load, NULL, NULL},
    {"info", 1, -1, 0,
     "info program|signature|module-call-graph|modules|facts|breakpoints|frame|node-map|node|...",
     "Describe the loaded program, the outliner's state, or the breakpoints.",
     "info program            file, format, versions, node and input/output counts\n"
     "info signature          the graph signature as ExportGraphSignature prints it\n"
     "info module-call-graph  module_call_graph entries with preserved signatures\n"
     "info modules            the unflattened module tree: types, calls, graphs' sizes\n"
     "info facts              counts in the stable format of scripts/real_expect.py\n"
     "info breakpoints        breakpoints and watchpoints, with their hit counts\n"
     "info frame [N]          the selected frame (or frame N): module, call, stack, signature\n"
     "info node-map [N]       its node_map: flat node -> node of the frame's graph\n"
     "info placeholders [N]   its node_to_placeholder: flat node -> placeholder\n"
     "info seen-nodes         seen_nodes: the flat nodes copied so far, and into which frame\n"
     "info seen-modules       seen_modules: every module id and its calls (fqn, call index)\n"
     "info ivals              _IVals: mutated buffers' intermediate values, by module\n"
     "info events [A-B] [KIND] the event log up to the cursor (a range, a kind, or \"later\":\n"
     "                        the decisions after outlining: IVAL ... DONE)\n"
     "info event [K]          event K (the cursor's by default) with its detail: what SINK\n"
     "                        sunk, erased or kept as input and why, where DEDUP's graphs\n"
     "                        first differ, what DISPATCH and REORDER moved (\"explain K\"\n"
     "                        says it in words)\n"
     "info display            the auto-display expressions\n"
     "info node NAME...       as print node (\"info node\" is not \"info node-map\")\n"
     "info line NODE          its source line (the innermost stack_trace frame), the file,\n"
     "                        and its module stack with the line each module was called at\n"
     "info lines [FQN]        the module's nodes grouped by their line in its code (first\n"
     "                        appearance order); without FQN every node by its source line\n"
     "info calls FQN          every call of the module (an nn_module_stack key each) and\n"
     "                        the line it was called at: the frame of the call's first node\n"
     "                        that calls the attribute (\".conv1(\"), else the frame below\n"
     "                        the parent's call (a Sequential's \"input = module(input)\")\n"
     "info nodes [FILTERS]    as find (the nodes matching the filters)\n"
     "Add --all to see a listing longer than \"set max-lines\".",
     cmd_info, NULL, NULL},
    {"print", 1, -1, CMD_NEEDS_PROGRAM,
     "print graph|tabular|node NAME...|module FQN|frame [N]|code|readable",
     "Print the flat graph, nodes, a module's graph, or a frame's partial graph.",
     "print graph        the graph exactly as str(torch.fx.Graph) prints it\n"
     "print tabular      as Graph.print_tabular() prints it\n"
     "print node NAME    one node: op, target, args, users, value, module stack, stack trace\n"
     "print node GLOB    every node whose name matches (fnmatch: relu*, conv?_[0-9])\n"
     "print module FQN   one unflattened module's graph, as str(graph) prints it (\"\" = root)\n"
     "print frame [N]    the graph the outliner is building in frame N (default: selected)\n"
     "print code         the Python FX generates: ep.graph_module.code\n"
     "print readable     ep.graph_module.print_readable(); options --stride, --device,\n"
     "                   --color (include_stride, include_device, colored)\n"
     "print code|readable module [FQN] that module's code / print_readable() (\"\" = root;\n"
     "                   without FQN: ep.module()'s)\n"
     "print code|readable frame [N]    the code of the graph frame N is building\n"
     "Add --all to see a listing longer than \"set max-lines\".",
     cmd_print, NULL, NULL},
    {"echo", 0, -1, 0, "echo TEXT", "Print TEXT.", NULL, cmd_echo, NULL, NULL},
    {"source", 1, 1, 0, "source FILE", "Run the commands in FILE.",
     "Lines starting with # are comments. A failing command stops the script unless\n"
     "\"set on-error continue\".",
     cmd_source, NULL, NULL},
    {"set", 2, 4, 0, "set NAME VALUE", "Change a setting (see show).", NULL, cmd_set, NULL,
     settings_help},
    {"show", 0, 1, 0, "show [NAME|alias]", "Show the settings, or one; show alias: the aliases.",
     NULL, cmd_show, NULL, NULL},
    {"cd", 0, 1, 0, "cd [DIR]", "Change the working directory (relative paths start there).", NULL,
     cmd_cd, NULL, NULL},
    {"pwd", 0, 0, 0, "pwd", "Print the working directory.", NULL, cmd_pwd, NULL, NULL},
    {"help", 0, 1, 0, "help [COMMAND|aliases]", "List commands, or describe one.",
     "help aliases lists gdb's short names (p, b, bt...) and the aliases made with\n"
     "\"alias\"; help ALIAS says what the alias runs.",
     cmd_help, NULL, NULL},
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
    {"p", "print"},         {"i", "info"},
    {"q", "quit"},          {"exit", "quit"},
    {"h", "help"},          {"s", "step"},
    {"si", "stepi"},        {"n", "next"},
    {"c", "continue"},      {"r", "run"},
    {"bt", "backtrace"},    {"where", "backtrace"},
    {"f", "frame"},         {"l", "list"},
    {"b", "break"},         {"d", "delete"},
    {"rs", "reverse-step"}, {"rsi", "reverse-stepi"},
    {"rn", "reverse-next"}, {"rc", "reverse-continue"},
    {"fin", "finish"},      {"u", "until"},
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
static const char *const lint_words[] = {"module", "all", NULL};
static const char *const unflatten_words[] = {"run", "restart", NULL};
static const char *const watch_words[] = {"node-map", NULL};
static const char *const display_word[] = {"display", NULL};
static const struct {
    const char *cmd;
    const char *const *words;
} subcommands[] = {
    {"info", info_words},     {"print", print_words},         {"lint", lint_words},
    {"dce", lint_words},      {"unflatten", unflatten_words}, {"watch", watch_words},
    {"delete", display_word}, {"enable", display_word},       {"disable", display_word},
};

const char *const *command_subcommands(const char *name) {
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        if (strcmp(subcommands[i].cmd, name) == 0)
            return subcommands[i].words;
    return NULL;
}

/* Expands a unique prefix of c's subcommand in argv (see subcommands[]);
 * -1 after an error when it is ambiguous. A word that is no subcommand's
 * prefix is left to the command (a breakpoint number, a node...). */
static int expand_subcommand(session *s, const command *c, int argc, char **argv) {
    const char *const *words = command_subcommands(c->name);
    int i = 1;
    while (words && i < argc && argv[i][0] == '-')
        i++;
    if (!words || i >= argc)
        return 0;
    int w = pick_quiet(argv[i], words);
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
    const char *const *words = command_subcommands(c->name);
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

/* ---- the interpreter */

/* Splits a line into words: whitespace separated, '...' and "..." quote,
 * backslash escapes the next character outside single quotes. */
static int split_words(char *line, char **argv, int max) {
    int argc = 0;
    char *r = line, *w = line;
    while (*r) {
        while (*r == ' ' || *r == '\t')
            r++;
        if (!*r)
            break;
        if (argc == max)
            return -1;
        argv[argc++] = w;
        char q = 0;
        while (*r && (q || (*r != ' ' && *r != '\t'))) {
            if (q && *r == q) {
                q = 0;
                r++;
            } else if (!q && (*r == '\'' || *r == '"')) {
                q = *r++;
            } else if (*r == '\\' && q != '\'' && r[1]) {
                *w++ = r[1];
                r += 2;
            } else {
                *w++ = *r++;
            }
        }
        if (q)
            return -2;
        if (*r)
            r++;
        *w++ = '\0';
    }
    return argc;
}

/* Runs a command line already stripped of its line end: split, look up,
 * check arity and the program, strip a final --all, run. *cp is the
 * command found (NULL when none). */
static int exec_split(session *s, char *copy, const command **cp) {
    char *argv[MAX_ARGS + 1];
    int argc = split_words(copy, argv, MAX_ARGS);
    *cp = NULL;
    if (argc == -1)
        return cmd_fail(s, "Too many words in the command (at most %d).", MAX_ARGS);
    if (argc == -2)
        return cmd_fail(s, "Unterminated quote in the command.");
    if (argc == 0)
        return 0;
    argv[argc] = NULL;
    int amb;
    const command *c = command_lookup(argv[0], &amb);
    char *slash = strchr(argv[0], '/');
    if (!c && slash && slash != argv[0]) {
        /* gdb's display/FMT: the command sees the whole word */
        *slash = '\0';
        c = command_lookup(argv[0], &amb);
        *slash = '/';
        if (c && strcmp(c->name, "display") != 0)
            c = NULL;
    }
    if (!c)
        return cmd_fail(s, "%s command: \"%s\".  Try \"help\".", amb ? "Ambiguous" : "Undefined",
                        argv[0]);
    *cp = c;
    s->show_all = 0;
    if (argc > 1 && strcmp(argv[argc - 1], "--all") == 0) {
        s->show_all = 1;
        argv[--argc] = NULL;
    }
    int nargs = argc - 1;
    if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args))
        return cmd_fail(s, "Usage: %s", c->usage);
    if (expand_subcommand(s, c, argc, argv) < 0)
        return -1;
    if ((c->flags & CMD_NEEDS_PROGRAM) && !s->prog)
        return cmd_fail(s, "No program loaded.  Use \"load FILE\".");
    s->color_now = !s->json && (s->color == 1 || (s->color < 0 && output_isatty(s) &&
                                                  !(getenv("NO_COLOR") && *getenv("NO_COLOR"))));
    long before = s->run ? (long)s->run->pos : -1;
    s->output_oom = 0;
    if (s->buf.oom) { /* an earlier command's cut-short text (oom sticks to a buffer) */
        exdb_buf_reset(&s->buf);
        s->buf.oom = 0;
    }
    int rc = c->fn(s, argc, argv);
    if (s->output_oom)
        rc = -1; /* its output was cut short (cmd_flush said so) */
    cmd_lint_after_command(s);
    s->show_all = 0;
    s->color_now = 0;
    /* gdb shows the auto-displays whenever the program stops: here after a
     * moving command that moved the run (or succeeded) */
    if ((c->flags & CMD_STOPS) && s->displays && s->run &&
        (rc == 0 || before != (long)s->run->pos) && !cmd_break_silent(s))
        cmd_display_show(s);
    return rc;
}

char *session_expand_alias(const session *s, const char *line) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strcspn(p, " \t");
    const char *text = n ? session_alias(s, p, n) : NULL;
    if (!text)
        return NULL;
    size_t tl = strlen(text), rl = strlen(p + n);
    char *e = malloc(tl + rl + 1);
    if (e) {
        memcpy(e, text, tl);
        memcpy(e + tl, p + n, rl + 1);
    }
    return e;
}

/* Runs one command line (its line end stripped): a user alias expanded,
 * s->line set to the text for the commands that read it raw (alias,
 * pipe), then split and run. */
static int exec_line(session *s, const char *line, const command **cp) {
    char *expanded = session_expand_alias(s, line);
    const char *text = expanded ? expanded : line;
    char *copy = strdup(text);
    *cp = NULL;
    if (!copy) {
        free(expanded);
        return cmd_fail(s, "out of memory");
    }
    const char *saved = s->line;
    s->line = text;
    int rc = exec_split(s, copy, cp);
    s->line = saved;
    free(copy);
    free(expanded);
    return rc;
}

int session_run_to(session *s, const char *line, FILE *out) {
    FILE *saved = s->out;
    s->out = out;
    const command *c;
    int rc = exec_line(s, line, &c);
    fflush(out);
    s->out = saved;
    return rc;
}

const command *session_line_command(session *s, const char *line, int *ambiguous) {
    *ambiguous = 0;
    char *expanded = session_expand_alias(s, line);
    char *copy = strdup(expanded ? expanded : line), *argv[MAX_ARGS + 1];
    free(expanded);
    if (!copy)
        return NULL;
    const command *c = NULL;
    if (split_words(copy, argv, MAX_ARGS) > 0) {
        c = command_lookup(argv[0], ambiguous);
        char *slash = strchr(argv[0], '/');
        if (!c && slash && slash != argv[0]) { /* display/json */
            *slash = '\0';
            c = command_lookup(argv[0], ambiguous);
            if (c && strcmp(c->name, "display") != 0)
                c = NULL;
        }
    }
    free(copy);
    return c;
}

int session_capture(session *s, const char *line, char **out, cJSON **data) {
    FILE *saved_out = s->out, *saved_err = s->errout;
    cJSON *saved_data = s->data;
    int saved_json = s->json, saved_all = s->show_all;
    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, elen = 0;
    FILE *o = open_memstream(&obuf, &olen);
    FILE *e = open_memstream(&ebuf, &elen);
    *out = NULL;
    if (data)
        *data = NULL;
    if (!o || !e) {
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        free(obuf);
        free(ebuf);
        return cmd_fail(s, "out of memory");
    }
    s->out = o;
    s->errout = e;
    s->data = NULL;
    s->json = data != NULL;
    const command *c;
    int rc = exec_line(s, line, &c);
    fclose(o);
    fclose(e);
    s->out = saved_out;
    s->errout = saved_err;
    s->json = saved_json;
    s->show_all = saved_all;
    if (data)
        *data = s->data;
    else
        cJSON_Delete(s->data);
    s->data = saved_data;
    /* the text, or the error without its line end */
    if (rc < 0) {
        free(obuf);
        while (elen && ebuf[elen - 1] == '\n')
            ebuf[--elen] = '\0';
        *out = ebuf;
    } else {
        free(ebuf);
        *out = obuf;
    }
    return rc;
}

/* Text of a memstream, without its final newline, as a JSON string. */
static cJSON *json_text(const char *t, size_t n) {
    while (n && t[n - 1] == '\n')
        n--;
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, t, n);
    c[n] = '\0';
    cJSON *j = cJSON_CreateString(c);
    free(c);
    return j;
}

/* JSON mode: the command's text output and error are captured, and one
 * object goes out instead: {"command", "ok", <the command's data>,
 * "output", "error"}. A sourced script's commands nest: each answers its
 * own line on the sink the outermost command wrote to. */
/* Writes o as one line of JSON to sink, flushed (a tool reads line by
 * line), and frees it. */
static void emit_json_line(FILE *sink, cJSON *o) {
    char *text = cJSON_PrintUnformatted(o);
    if (text) {
        fprintf(sink, "%s\n", text);
        fflush(sink);
        cJSON_free(text);
    }
    cJSON_Delete(o);
}

static int exec_json(session *s, const char *line, const command **cp) {
    FILE *saved_out = s->out, *saved_err = s->errout;
    FILE *sink = s->capture_depth ? s->json_sink : s->out;
    cJSON *saved_data = s->data;
    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, elen = 0;
    FILE *o = open_memstream(&obuf, &olen);
    FILE *e = open_memstream(&ebuf, &elen);
    if (!o || !e) {
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        free(obuf);
        free(ebuf);
        return exec_line(s, line, cp);
    }
    s->data = NULL;
    s->json_sink = sink;
    s->capture_depth++;
    s->out = o;
    s->errout = e;
    int rc = exec_line(s, line, cp);
    fclose(o);
    fclose(e);
    s->out = saved_out;
    s->errout = saved_err;
    s->capture_depth--;
    cJSON *obj = cJSON_CreateObject();
    if (obj) {
        cJSON_AddStringToObject(obj, "command", line);
        if (s->in_bp_commands) /* not a command the tool sent: a breakpoint's */
            cJSON_AddTrueToObject(obj, "breakpoint_commands");
        cJSON_AddBoolToObject(obj, "ok", rc == 0);
        while (s->data && s->data->child) {
            cJSON *item = cJSON_DetachItemViaPointer(s->data, s->data->child);
            cJSON_AddItemToObject(obj, item->string, item);
        }
        cJSON_AddItemToObject(obj, "output", json_text(obuf, olen));
        if (rc < 0) {
            cJSON *err = json_text(ebuf, elen);
            free(s->last_error);
            s->last_error = err && cJSON_IsString(err) ? strdup(err->valuestring) : NULL;
            cJSON_AddItemToObject(obj, "error", err);
        }
        emit_json_line(sink, obj);
    }
    cJSON_Delete(s->data);
    s->data = saved_data;
    free(obuf);
    free(ebuf);
    return rc;
}

/* gdb runs a breakpoint's commands after the command that stopped there.
 * A command among them that moves the run (continue, step...) ends them,
 * and the commands of the breakpoint it stops at run next: in this loop,
 * not nested, so a breakpoint whose commands continue can stop any number
 * of times. -1 when one of them failed (the rest are not run). */
static int run_bp_commands(session *s) {
    char *body;
    int rc = 0;
    s->in_bp_commands = 1;
    while (rc == 0 && !exdb_interrupted && (body = cmd_break_take_commands(s))) {
        for (char *l = body, *nl; *l && !exdb_interrupted && !s->quit_requested && !output_quit(s);
             l = nl + 1) {
            nl = strchr(l, '\n');
            *nl = '\0';
            if (s->trace_commands && !s->json)
                fprintf(s->out, "+%s\n", l);
            if (session_exec(s, l) < 0) {
                rc = -1;
                break;
            }
            if (s->last_flags & CMD_STOPS)
                break;
        }
        free(body);
    }
    s->in_bp_commands = 0;
    return rc;
}

int session_exec(session *s, const char *line) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || *p == '#' || *p == '\n')
        return 0;
    char *text = strdup(p);
    if (!text)
        return cmd_fail(s, "out of memory");
    size_t l = strlen(text);
    while (l && (text[l - 1] == '\n' || text[l - 1] == '\r'))
        text[--l] = '\0';
    const command *c;
    if (!s->in_bp_commands)
        cmd_break_begin_command(s);
    if (!s->in_bp_commands && !s->source_depth)
        output_begin(s); /* a new page for the pager */
    int rc = s->json ? exec_json(s, text, &c) : exec_line(s, text, &c);
    s->last_flags = c ? c->flags : 0;
    if (!s->in_bp_commands && run_bp_commands(s) < 0)
        rc = -1;
    exdb_interrupted = 0;
    /* an empty line at the prompt runs the last stepping command again
     * (main.c); a repeated `list` goes on where it stopped */
    if (c && ((c->flags & CMD_REPEAT) || ((c->flags & CMD_REPEAT_BARE) && !strpbrk(text, " \t"))) &&
        s->source_depth == 0 && rc == 0) {
        free(s->repeat);
        s->repeat = strdup(strcmp(c->name, "list") == 0 ? "list" : text);
    }
    if (c)
        s->last_was_list = strcmp(c->name, "list") == 0 && rc == 0;
    free(text);
    fflush(s->out);
    return rc;
}

void session_json_stopped(session *s, const char *script, int line, const char *cmdline,
                          int remaining) {
    if (!s->json)
        return;
    FILE *sink = s->capture_depth ? s->json_sink : s->out;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddStringToObject(o, "stopped", "on-error");
    cJSON_AddStringToObject(o, "script", script);
    cJSON_AddNumberToObject(o, "line", line);
    size_t n = strlen(cmdline);
    while (n && (cmdline[n - 1] == '\n' || cmdline[n - 1] == '\r'))
        n--;
    cJSON_AddItemToObject(o, "command", json_text(cmdline, n));
    cJSON_AddStringToObject(o, "error", s->last_error ? s->last_error : "");
    if (remaining >= 0)
        cJSON_AddNumberToObject(o, "remaining", remaining);
    emit_json_line(sink, o);
}

/* getline with the end of input told apart from a read error and a line
 * bounded in length: a directory, an unreadable device or /dev/zero is an
 * error with a message, not the end of a script (or 4 GB of one line).
 * Returns the line's length, -1 at the end of input, -2 with err set. */
long session_getline(char **line, size_t *cap, FILE *f, const char *name, int lineno, char *err,
                     size_t errlen) {
    size_t n = 0;
    for (;;) {
        if (*cap - n < 2) {
            size_t ncap = *cap ? *cap * 2 : 256;
            if (ncap > SESSION_MAX_LINE + 2) {
                snprintf(err, errlen, "%s:%d: a line longer than %d bytes", name, lineno + 1,
                         SESSION_MAX_LINE);
                return -2;
            }
            char *nl = realloc(*line, ncap);
            if (!nl) {
                snprintf(err, errlen, "%s:%d: out of memory", name, lineno + 1);
                return -2;
            }
            *line = nl;
            *cap = ncap;
        }
        errno = 0;
        int c = getc(f);
        if (c == EOF && ferror(f) && errno == EINTR) { /* a signal, not the input */
            clearerr(f);
            continue;
        }
        if (c == EOF) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: cannot read: %s", name, strerror(errno));
                clearerr(f);
                return -2;
            }
            if (n == 0)
                return -1;
            break;
        }
        if (c == '\0') {
            snprintf(err, errlen, "%s:%d: a NUL byte: commands are text", name, lineno + 1);
            return -2;
        }
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    (*line)[n] = '\0';
    return (long)n;
}

/* Commands left in a script after a stop: lines that are not blank or
 * comments (what session_exec would have run). */
static int count_commands(FILE *f) {
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    while (getline(&line, &cap, f) != -1) {
        const char *t = line;
        while (*t == ' ' || *t == '\t')
            t++;
        n += *t && *t != '\n' && *t != '\r' && *t != '#';
    }
    free(line);
    return n;
}

/* A script's lines for a command that reads more of them (commands N). */
typedef struct {
    FILE *f;
    const char *path;
    int *lineno;
    char err[512]; /* a read error met there, "" if none: it ends the script */
} source_reader;

static char *source_read_line(session *s, const char *prompt) {
    (void)prompt;
    source_reader *r = s->read_ctx;
    char *line = NULL;
    size_t cap = 0;
    long got = session_getline(&line, &cap, r->f, r->path, *r->lineno, r->err, sizeof r->err);
    if (got < 0) { /* the end of the script, or a read error session_source reports */
        if (got == -1)
            r->err[0] = '\0';
        free(line);
        return NULL;
    }
    ++*r->lineno;
    if (s->trace_commands && !s->json)
        fprintf(s->out, "+%s%s", line, strchr(line, '\n') ? "" : "\n");
    return line;
}

int session_source(session *s, const char *path) {
    if (s->source_depth >= 16)
        return cmd_fail(s, "%s: scripts nested deeper than 16 levels", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return cmd_fail(s, "%s: %s", path, strerror(errno));
    s->source_depth++;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, lineno = 0;
    source_reader reader = {f, path, &lineno, ""};
    char *(*saved_read)(session *, const char *) = s->read_line;
    void *saved_ctx = s->read_ctx;
    s->read_line = source_read_line;
    s->read_ctx = &reader;
    long got;
    char rerr[512];
    while (!s->quit_requested && !output_quit(s) &&
           (got = session_getline(&line, &cap, f, path, lineno, rerr, sizeof rerr)) != -1) {
        if (got == -2) {
            rc = cmd_fail(s, "%s", rerr);
            break;
        }
        lineno++;
        if (s->trace_commands && !s->json) {
            const char *t = line;
            while (*t == ' ' || *t == '\t')
                t++;
            if (*t && *t != '\n' && *t != '#')
                fprintf(s->out, "+%s%s", line, strchr(line, '\n') ? "" : "\n");
        }
        int failed = session_exec(s, line) < 0;
        if (reader.err[0]) { /* a command that read more lines met a read error */
            rc = cmd_fail(s, "%s", reader.err);
            break;
        }
        if (failed) {
            rc = -1;
            if (!s->on_error_continue) {
                if (s->json)
                    session_json_stopped(s, path, lineno, line, count_commands(f));
                /* in JSON mode, the text only when a `source` command
                 * captures it as its error */
                if (!s->json || s->capture_depth)
                    fprintf(s->errout, "%s:%d: the script stops here.\n", path, lineno);
                break;
            }
        }
    }
    free(line);
    fclose(f);
    s->read_line = saved_read;
    s->read_ctx = saved_ctx;
    s->source_depth--;
    return rc;
}

void session_init(session *s) {
    memset(s, 0, sizeof *s);
    s->out = stdout;
    s->errout = stderr;
    s->pagination = 1;
    s->height = -1;
    output_init(s);
    s->color = -1;
    s->listsize = 10;
    s->timing = 1;
    s->list_next = -1;
    exdb_buf_init(&s->buf);
    exdb_viz_settings_default(&s->render);
}

void session_free(session *s) {
    cmd_unflatten_forget(s);
    cmd_break_free(s);
    cmd_display_free(s);
    cmd_source_free(s);
    cmd_lint_forget_program(s->prog);
    exdb_program_free(s->prog);
    exdb_buf_free(&s->buf);
    session_aliases_free(s);
    s->prog = NULL;
    free(s->repeat);
    s->repeat = NULL;
    free(s->diff_file);
    s->diff_file = NULL;
    free(s->last_error);
    s->last_error = NULL;
    cJSON_Delete(s->data);
    s->data = NULL;
    output_free(s);
}
