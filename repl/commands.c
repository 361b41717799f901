/* commands.c - the command table: every subsystem's table (each command
 * declares its name, arity, flags, options, completer and help, as in
 * Redis's command table), looking a command up (a unique prefix of a name or
 * of a subcommand is enough, "inf prog", as in gdb; an exact name wins),
 * running a subcommand row, and help and apropos, which print from the
 * table. The program and session commands are in cmd_program.c. */
#include <assert.h>
#include <cjson/cJSON.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "commands.h"
#include "session.h"

volatile sig_atomic_t exdb_interrupted;

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
extern const command control_commands[];
extern const size_t control_ncommands;
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
    {"Scripts (gdb's if, while and convenience variables)", control_commands, &control_ncommands},
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

int command_on_shape(const command *c, int argc, char **argv) {
    if (c->flags & CMD_SHAPE)
        return 1;
    const char *const *words = subcommand_words(c);
    int i = 1;
    while (words && i < argc && argv[i][0] == '-')
        i++;
    for (int w = 0; words && i < argc && words[w]; w++)
        if (strcmp(argv[i], words[w]) == 0)
            return c->subs[w].shape;
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

int cmd_help(session *s, int argc, char **argv) {
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
int cmd_apropos(session *s, int argc, char **argv) {
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
