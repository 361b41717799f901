/* commands.c - the command table and the commands. Each command declares
 * its name, arity, flags and help, as in Redis's command table; `help`
 * prints from the table and completion reads it. A unique prefix of a name
 * is enough ("inf prog"), as in gdb. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/print.h"
#include "core/sha1.h"
#include "core/unflatten.h"
#include "command.h"
#include "session.h"

#define MAX_ARGS 64

int cmd_fail(session *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->errout, fmt, ap);
    va_end(ap);
    fputc('\n', s->errout);
    fflush(s->errout);
    return -1;
}

void cmd_flush(session *s, int newline) {
    fputs(exdb_buf_str(&s->buf), s->out);
    if (newline && s->buf.len && s->buf.s[s->buf.len - 1] != '\n')
        fputc('\n', s->out);
    fflush(s->out);
    exdb_buf_reset(&s->buf);
}

/* Picks the subcommand that `word` is a unique prefix of. */
int cmd_pick(session *s, const char *what, const char *word, const char *const *choices) {
    int found = -1, exact = -1;
    size_t n = strlen(word);
    for (int i = 0; choices[i]; i++) {
        if (strcmp(word, choices[i]) == 0)
            exact = i;
        if (strncmp(word, choices[i], n) == 0) {
            if (found >= 0 && exact < 0) {
                found = -2;
            } else if (found != -2) {
                found = i;
            }
        }
    }
    if (exact >= 0)
        return exact;
    if (found >= 0)
        return found;
    char list[512] = "";
    for (int i = 0; choices[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[i], sizeof list - strlen(list) - 1);
    }
    return cmd_fail(s, "%s \"%s\" of %s: expected one of %s", found == -2 ? "Ambiguous" : "Unknown",
                    word, what, list) -
           1;
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

static int cmd_load(session *s, int argc, char **argv) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(argv[1], argc > 2 ? argv[2] : NULL, &err);
    if (!p)
        return cmd_fail(s, "%s", err.msg);
    exdb_unflatten_free(s->run);
    s->run = NULL;
    exdb_program_free(s->prog);
    s->prog = p;
    uint32_t user_in = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        user_in += p->inputs[i].kind == EXDB_IN_USER_INPUT;
    fprintf(s->out,
            "Loaded %s: schema %d.%d, %u nodes (%u serialized), %u inputs (%u user), %u outputs, "
            "%u modules in the call graph.\n",
            p->path, p->schema_major, p->schema_minor, p->graph->count, p->nserialized_nodes,
            p->ninputs, user_in, p->noutputs, p->ncalls);
    return 0;
}

static int cmd_info(session *s, int argc, char **argv) {
    static const char *const what[] = {"program", "signature", "module-call-graph", "facts",
                                       "modules", NULL};
    int w = cmd_pick(s, "info", argv[1], what);
    if (w < 0)
        return -1;
    switch (w) {
    case 0:
        exdb_print_program_info(&s->buf, s->prog);
        break;
    case 1:
        exdb_print_signature(&s->buf, s->prog);
        break;
    case 2:
        exdb_print_call_graph(&s->buf, s->prog);
        break;
    case 3:
        exdb_print_facts(&s->buf, s->prog);
        exdb_print_name_digest(&s->buf, s->prog);
        break;
    case 4:
        return cmd_unflatten_info_modules(s);
    }
    (void)argc;
    cmd_flush(s, 1);
    return 0;
}

static int cmd_print(session *s, int argc, char **argv) {
    static const char *const what[] = {"graph", "tabular", "node", "module", NULL};
    int w = cmd_pick(s, "print", argv[1], what);
    if (w < 0)
        return -1;
    if (w == 3) {
        if (argc != 3)
            return cmd_fail(s, "Usage: print module FQN   (\"\" is the root)");
        return cmd_unflatten_print_module(s, argv[2]);
    }
    if (w == 2) {
        if (argc < 3)
            return cmd_fail(s, "Usage: print node NAME");
        for (int i = 2; i < argc; i++) {
            const exdb_node *n = exdb_graph_find(s->prog->graph, argv[i]);
            if (!n)
                return cmd_node_not_found(s, argv[i]);
            exdb_print_node_info(&s->buf, s->prog, n);
        }
    } else if (argc > 2) {
        return cmd_fail(s, "print %s takes no argument", what[w]);
    } else if (w == 0) {
        exdb_print_graph(&s->buf, s->prog->graph);
    } else {
        exdb_print_tabular(&s->buf, s->prog->graph);
    }
    cmd_flush(s, 1);
    return 0;
}

static int cmd_echo(session *s, int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        fprintf(s->out, "%s%s", i > 1 ? " " : "", argv[i]);
    fputc('\n', s->out);
    return 0;
}

static int cmd_source(session *s, int argc, char **argv) {
    (void)argc;
    return session_source(s, argv[1]);
}

/* set NAME VALUE: the session's own settings, then the render settings
 * (viz/render.h), so `set layout sfdp` works like `set on-error continue`. */
static int cmd_set(session *s, int argc, char **argv) {
    const char *what[16];
    int n = 0;
    what[n++] = "trace-commands";
    what[n++] = "on-error";
    for (int i = 0; exdb_viz_setting_names[i] && n < 15; i++)
        what[n++] = exdb_viz_setting_names[i];
    what[n] = NULL;
    int w = cmd_pick(s, "set", argv[1], what);
    if (w < 0)
        return -1;
    if (argc < 3)
        return cmd_fail(s, "Usage: set %s VALUE", what[w]);
    if (w == 0) {
        static const char *const v[] = {"on", "off", NULL};
        int x = cmd_pick(s, "set trace-commands", argv[2], v);
        if (x < 0)
            return -1;
        s->trace_commands = x == 0;
    } else if (w == 1) {
        static const char *const v[] = {"stop", "continue", NULL};
        int x = cmd_pick(s, "set on-error", argv[2], v);
        if (x < 0)
            return -1;
        s->on_error_continue = x == 1;
    } else {
        exdb_error err = {0};
        if (exdb_viz_set(&s->render, what[w], argv[2], &err) < 0)
            return cmd_fail(s, "%s", err.msg);
    }
    return 0;
}

static int cmd_show(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(s->out, "trace-commands: %s\non-error: %s\n", s->trace_commands ? "on" : "off",
            s->on_error_continue ? "continue" : "stop");
    exdb_viz_settings_show(&s->buf, &s->render);
    cmd_flush(s, 1);
    return 0;
}

static int cmd_quit(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    s->quit_requested = 1;
    return 0;
}

const command program_commands[] = {
    {"load", 1, 2, 0, "load FILE [MODEL]", "Load a program (.pt2 archive, legacy zip, or JSON).",
     "FILE is a .pt2 written by torch.export.save (2.8+ archive or the older zip with\n"
     "serialized_exported_program.json) or bare program JSON. MODEL picks one program of a\n"
     "multi-model archive. Weights are never read.",
     cmd_load},
    {"info", 1, 1, CMD_NEEDS_PROGRAM, "info program|signature|module-call-graph|modules|facts",
     "Describe the loaded program.",
     "info program            file, format, versions, node and input/output counts\n"
     "info signature          the graph signature as ExportGraphSignature prints it\n"
     "info module-call-graph  module_call_graph entries with preserved signatures\n"
     "info modules            the unflattened module tree: types, calls, graphs' sizes\n"
     "info facts              counts in the stable format of scripts/real_expect.py",
     cmd_info},
    {"print", 1, -1, CMD_NEEDS_PROGRAM, "print graph|tabular|node NAME...|module FQN",
     "Print the flat graph, or nodes.",
     "print graph        the graph exactly as str(torch.fx.Graph) prints it\n"
     "print tabular      as Graph.print_tabular() prints it\n"
     "print node NAME    one node: op, target, args, users, value, module stack, stack trace\n"
     "print module FQN   one unflattened module's graph, as str(graph) prints it (\"\" = root)",
     cmd_print},
    {"echo", 0, -1, 0, "echo TEXT", "Print TEXT.", NULL, cmd_echo},
    {"source", 1, 1, 0, "source FILE", "Run the commands in FILE.",
     "Lines starting with # are comments. A failing command stops the script unless\n"
     "\"set on-error continue\".",
     cmd_source},
    {"set", 2, 2, 0, "set NAME VALUE", "Change a setting (see show).",
     "set trace-commands on|off      echo script commands as they run\n"
     "set on-error stop|continue     whether a failing command stops a script\n"
     "set layout dot|sfdp|auto       the Graphviz engine for render (auto: by size)\n"
     "set render-limit N             refuse image layout above N nodes (DOT is never refused)\n"
     "set render-dup-fanout N        draw a value with more than N far uses once per use\n"
     "set render-dup-span N          ... when a use is more than N nodes away",
     cmd_set},
    {"show", 0, 1, 0, "show", "Show the settings.", NULL, cmd_show},
    {"help", 0, 1, 0, "help [COMMAND]", "List commands, or describe one.", NULL, cmd_help},
    {"quit", 0, 0, 0, "quit", "Leave exdb (also: Ctrl-D).", NULL, cmd_quit},
};
const size_t program_ncommands = sizeof program_commands / sizeof *program_commands;

extern const command render_commands[];
extern const size_t render_ncommands;
extern const command lint_commands[];
extern const size_t lint_ncommands;
extern const command unflatten_commands[];
extern const size_t unflatten_ncommands;

/* Every command table, in the order `help` lists them. A subsystem's
 * commands live in its own repl/cmd_*.c file and are added here. */
static const struct {
    const command *table;
    const size_t *count;
} tables[] = {
    {program_commands, &program_ncommands},
    {render_commands, &render_ncommands},
    {lint_commands, &lint_ncommands},
    {unflatten_commands, &unflatten_ncommands},
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

/* gdb-style short names that win over prefix matching. */
static const struct {
    const char *alias, *name;
} aliases[] = {{"p", "print"}, {"i", "info"}, {"q", "quit"}, {"exit", "quit"}, {"h", "help"}};

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

const char *command_name_at(int i) {
    const command *c = command_at(i);
    return c ? c->name : NULL;
}

static int cmd_help(session *s, int argc, char **argv) {
    if (argc > 1) {
        int amb;
        const command *c = command_lookup(argv[1], &amb);
        if (!c)
            return cmd_fail(s, "%s command \"%s\".  Try \"help\".", amb ? "Ambiguous" : "Undefined",
                            argv[1]);
        fprintf(s->out, "Usage: %s\n%s\n", c->usage, c->summary);
        if (c->help)
            fprintf(s->out, "\n%s\n", c->help);
        return 0;
    }
    fputs("exdb: a debugger for torch.export programs. Commands:\n", s->out);
    const command *c;
    for (int i = 0; (c = command_at(i)); i++)
        fprintf(s->out, "  %-48s %s\n", c->usage, c->summary);
    fputs("A unique prefix of a command is enough. \"help COMMAND\" says more.\n", s->out);
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

int session_exec(session *s, const char *line) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || *p == '#' || *p == '\n')
        return 0;
    char *copy = strdup(p);
    if (!copy)
        return cmd_fail(s, "out of memory");
    size_t l = strlen(copy);
    while (l && (copy[l - 1] == '\n' || copy[l - 1] == '\r'))
        copy[--l] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = split_words(copy, argv, MAX_ARGS);
    int rc;
    if (argc == -1) {
        rc = cmd_fail(s, "Too many words in the command (at most %d).", MAX_ARGS);
    } else if (argc == -2) {
        rc = cmd_fail(s, "Unterminated quote in the command.");
    } else if (argc == 0) {
        rc = 0;
    } else {
        argv[argc] = NULL;
        int amb;
        const command *c = command_lookup(argv[0], &amb);
        int nargs = argc - 1;
        if (!c)
            rc = cmd_fail(s, "%s command: \"%s\".  Try \"help\".", amb ? "Ambiguous" : "Undefined",
                          argv[0]);
        else if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args))
            rc = cmd_fail(s, "Usage: %s", c->usage);
        else if ((c->flags & CMD_NEEDS_PROGRAM) && !s->prog)
            rc = cmd_fail(s, "No program loaded.  Use \"load FILE\".");
        else
            rc = c->fn(s, argc, argv);
    }
    free(copy);
    return rc;
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
    while (!s->quit_requested && getline(&line, &cap, f) != -1) {
        lineno++;
        if (s->trace_commands) {
            const char *t = line;
            while (*t == ' ' || *t == '\t')
                t++;
            if (*t && *t != '\n' && *t != '#')
                fprintf(s->out, "+%s%s", line, strchr(line, '\n') ? "" : "\n");
        }
        if (session_exec(s, line) < 0) {
            rc = -1;
            if (!s->on_error_continue) {
                fprintf(s->errout, "%s:%d: the script stops here.\n", path, lineno);
                break;
            }
        }
    }
    free(line);
    fclose(f);
    s->source_depth--;
    return rc;
}

void session_init(session *s) {
    memset(s, 0, sizeof *s);
    s->out = stdout;
    s->errout = stderr;
    exdb_buf_init(&s->buf);
    exdb_viz_settings_default(&s->render);
}

void session_free(session *s) {
    exdb_unflatten_free(s->run);
    s->run = NULL;
    exdb_program_free(s->prog);
    exdb_buf_free(&s->buf);
    s->prog = NULL;
}
