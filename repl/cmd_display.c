/* cmd_display.c - gdb's auto-display: `display EXPR` shows EXPR every time
 * the run stops (after step, next, continue, until, goto, reverse-*...).
 *
 * An expression is what `print` or `info` shows, without the command word:
 * "node-map" (info node-map), "frame" (print frame: the graph being built),
 * "node NAME" (print node), "placeholders 1", "seen-modules"...; or a whole
 * inspecting command: "backtrace", "list", "info frame", "print module m".
 * Commands that move the run or change the program are refused. Each
 * display is shown as gdb does, "N: EXPR = VALUE", the value on the
 * following lines (an error on the same line); `display/json EXPR` shows the
 * command's JSON answer on one line instead. In JSON mode the displays go
 * into the stopping command's answer as "displays": [...]. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "commands.h"
#include "core/base/mem.h"
#include "core/unflatten/unflatten.h"

typedef struct display {
    int num;
    int enabled;
    int json;   /* display/json */
    char *expr; /* as the user typed it */
    char *line; /* the command line it runs */
} display;

typedef struct exdb_displays {
    display *v;
    uint32_t n, cap;
    int next_num;
} exdb_displays;

/* Whole commands that only look (none moves the run or edits the program). */
static const char *const looking_commands[] = {"print", "info", "backtrace", "list",
                                               "show",  "echo", NULL};

void cmd_display_free(session *s) {
    exdb_displays *t = s->displays;
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->v[i].expr);
        free(t->v[i].line);
    }
    free(t->v);
    free(t);
    s->displays = NULL;
}

static int word_in(const char *w, size_t len, const char *const *words) {
    for (int i = 0; words && words[i]; i++)
        if (strlen(words[i]) == len && strncmp(w, words[i], len) == 0)
            return 1;
    return 0;
}

/* The print or info subcommand w[0..len) names, as those commands read
 * it: the word itself (print's first: "frame" is print frame, "node" print
 * node), or with exact = 0 the one word it is a unique prefix of
 * ("node-m"). *prefix gets "print " or "info "; NULL when none, or when
 * ambiguous (*ambiguous set). */
static const char *subcommand_word(const char *w, size_t len, int exact, const char **prefix,
                                   int *ambiguous) {
    static const char *const cmds[] = {"print", "info"};
    const char *found = NULL;
    for (int c = 0; c < 2; c++) {
        const char *const *words = command_subcommands(cmds[c]);
        for (int i = 0; words && words[i]; i++) {
            if (strncmp(w, words[i], len) != 0 || (exact && words[i][len]))
                continue;
            if (found && strcmp(found, words[i]) != 0) {
                *ambiguous = 1;
                return NULL;
            }
            if (!found) {
                found = words[i];
                *prefix = c == 0 ? "print " : "info ";
            }
        }
    }
    return found;
}

/* The command line an expression runs, or NULL after an error: a print or
 * info subcommand; else an exact command name or gdb alias ("p node x",
 * "bt", "l"); else a unique prefix of a print or info subcommand; else a
 * prefix of a command name. */
static char *resolve(session *s, const char *expr) {
    const char *w = expr;
    while (*w == ' ' || *w == '\t')
        w++;
    size_t len = strcspn(w, " \t");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), w);
    const char *prefix = NULL, *sub = NULL;
    const command *c = NULL;
    int amb = 0;
    if (len && !(sub = subcommand_word(w, len, 1, &prefix, &amb)) &&
        !(c = command_lookup_exact(name)) && !(sub = subcommand_word(w, len, 0, &prefix, &amb)) &&
        !amb)
        c = command_lookup(name, &amb);
    if (!sub && (!c || !word_in(c->name, strlen(c->name), looking_commands))) {
        cmd_fail(s,
                 "Cannot display \"%s\": expected what print or info shows (node-map, frame, "
                 "node NAME, placeholders, seen-modules...) or backtrace, list%s.",
                 expr, amb ? " (an ambiguous prefix)" : "");
        return NULL;
    }
    exdb_buf line;
    exdb_buf_init(&line);
    if (sub)
        exdb_buf_printf(&line, "%s%s%s", prefix, sub, w + len);
    else
        exdb_buf_puts(&line, w);
    char *r = strdup(exdb_buf_str(&line));
    exdb_buf_free(&line);
    return r;
}

/* "1: node-map = ..." for one display; in JSON mode an object added to arr. */
static void show_one(session *s, const display *d, cJSON *arr) {
    char *text = NULL;
    cJSON *data = NULL;
    int want_json = arr != NULL || d->json;
    int rc = session_capture(s, d->line, &text, want_json ? &data : NULL);
    const char *t = text ? text : "";
    size_t len = strlen(t);
    while (len && t[len - 1] == '\n')
        len--;
    if (arr) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "number", d->num);
        cJSON_AddStringToObject(o, "expression", d->expr);
        cJSON_AddBoolToObject(o, "ok", rc == 0);
        while (data && data->child) {
            cJSON *item = cJSON_DetachItemViaPointer(data, data->child);
            cJSON_AddItemToObject(o, item->string, item);
        }
        char *c = strndup(t, len);
        cJSON_AddStringToObject(o, rc == 0 ? "output" : "error", c ? c : "");
        free(c);
        cJSON_AddItemToArray(arr, o);
    } else if (rc < 0) {
        fprintf(s->out, "%d: %s = <error: %.*s>\n", d->num, d->expr, (int)len, t);
    } else if (d->json) {
        /* the command's JSON answer, as --json would print it, on one line */
        cJSON *o = data ? data : cJSON_CreateObject();
        char *c = strndup(t, len);
        cJSON_AddStringToObject(o, "output", c ? c : "");
        free(c);
        char *j = cJSON_PrintUnformatted(o);
        fprintf(s->out, "%d: /json %s = %s\n", d->num, d->expr, j ? j : "{}");
        cJSON_free(j);
        if (o != data)
            cJSON_Delete(o);
    } else {
        /* the value always under "N: EXPR =": on that line only when it
         * was one line, a display such as node-map jumped between the two
         * as its value grew (0 entries, then several) */
        fprintf(s->out, "%d: %s =\n%.*s\n", d->num, d->expr, (int)len, t);
    }
    cJSON_Delete(data);
    free(text);
}

void cmd_display_show(session *s) {
    exdb_displays *t = s->displays;
    if (!t || !s->prog)
        return;
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->v[i].enabled)
            show_one(s, &t->v[i], arr);
    fflush(s->out);
    if (arr)
        cmd_json_add(s, "displays", arr);
}

/* display[/json] [EXPR]: adds EXPR and shows it now (gdb shows it at once
 * when it can be evaluated); without EXPR shows every display. */
static int cmd_display(session *s, int argc, char **argv) {
    int json = 0, first = 1;
    const char *fmt = strchr(argv[0], '/');
    if (fmt) {
        json = 1;
    } else if (argc > 1 && argv[1][0] == '/') {
        fmt = argv[1];
        json = 1;
        first = 2;
    }
    if (fmt && strcmp(fmt, "/json") != 0)
        return cmd_fail(s, "Unknown display format \"%s\": expected /json.", fmt);
    if (argc <= first) {
        if (fmt)
            return cmd_fail(s, "Usage: display[/json] EXPR");
        cmd_display_show(s);
        if (!s->displays || !s->displays->n || !s->prog) /* shown none: say so */
            cmd_json_add(s, "displays", cJSON_CreateArray());
        return 0;
    }
    /* the expression: the words again, quoted where they need it */
    exdb_buf e;
    exdb_buf_init(&e);
    for (int i = first; i < argc; i++) {
        int q = argv[i][strcspn(argv[i], " \t'\"\\")] != '\0' || !argv[i][0];
        exdb_buf_printf(&e, q ? "%s'%s'" : "%s%s", i > first ? " " : "", argv[i]);
    }
    char *line = resolve(s, exdb_buf_str(&e));
    if (!line) {
        exdb_buf_free(&e);
        return -1;
    }
    /* a node that does not exist is refused now, as gdb refuses a symbol */
    if (s->prog && strncmp(line, "print node ", 11) == 0)
        for (int i = first + 1; i < argc; i++)
            if (!exdb_graph_find(s->prog->graph, argv[i][0] == '%' ? argv[i] + 1 : argv[i])) {
                free(line);
                exdb_buf_free(&e);
                return cmd_node_not_found(s, argv[i][0] == '%' ? argv[i] + 1 : argv[i]);
            }
    if (!s->displays && !(s->displays = calloc(1, sizeof *s->displays))) {
        free(line);
        exdb_buf_free(&e);
        return cmd_fail(s, "out of memory");
    }
    exdb_displays *t = s->displays;
    if (t->n == t->cap) {
        display *nv = exdb_grow(t->v, &t->cap, sizeof *nv, 8);
        if (!nv) {
            free(line);
            exdb_buf_free(&e);
            return cmd_fail(s, "out of memory");
        }
        t->v = nv;
    }
    display *d = &t->v[t->n++];
    d->num = ++t->next_num;
    d->enabled = 1;
    d->json = json;
    d->expr = strdup(exdb_buf_str(&e));
    d->line = line;
    exdb_buf_free(&e);
    cmd_json_add(s, "number", cJSON_CreateNumber(d->num));
    cmd_json_add(s, "expression", cJSON_CreateString(d->expr ? d->expr : ""));
    if (s->prog) {
        cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
        show_one(s, d, arr);
        if (arr)
            cmd_json_add(s, "displays", arr);
    }
    return 0;
}

/* The index in s->displays of display number arg; fails the command when
 * arg is not a number or no display has it. */
static int display_index(session *s, const char *arg, uint32_t *k) {
    const exdb_displays *t = s->displays;
    char *end;
    long n = strtol(arg, &end, 10);
    if (!*arg || *end)
        return cmd_fail(s, "Expected a display number, found \"%s\".", arg);
    for (*k = 0; t && *k < t->n; (*k)++)
        if (t->v[*k].num == n)
            return 0;
    return cmd_fail(s, "No display number %ld.", n);
}

/* info display's JSON: one object per display expression. */
static cJSON *table_json(const exdb_displays *t) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && t && i < t->n; i++) {
        const display *d = &t->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "number", d->num);
        cJSON_AddStringToObject(o, "expression", d->expr);
        cJSON_AddStringToObject(o, "runs", d->line);
        cJSON_AddBoolToObject(o, "enabled", d->enabled);
        cJSON_AddBoolToObject(o, "json", d->json);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* JSON mode: the expressions after undisplay, delete/enable/disable
 * display changed them, as info display gives them. */
static void table_changed(session *s) {
    if (s->json)
        cmd_json_add(s, "displays", table_json(s->displays));
}

int cmd_display_delete(session *s, int argc, char **argv) {
    exdb_displays *t = s->displays;
    if (argc == 0)
        cmd_display_free(s);
    for (int i = 0; i < argc; i++) {
        uint32_t k;
        if (display_index(s, argv[i], &k) < 0)
            return -1;
        free(t->v[k].expr);
        free(t->v[k].line);
        memmove(&t->v[k], &t->v[k + 1], (t->n - k - 1) * sizeof *t->v);
        t->n--;
    }
    table_changed(s);
    return 0;
}

int cmd_display_enable(session *s, int argc, char **argv, int on) {
    exdb_displays *t = s->displays;
    for (uint32_t k = 0; argc == 0 && t && k < t->n; k++)
        t->v[k].enabled = on;
    for (int i = 0; i < argc; i++) {
        uint32_t k;
        if (display_index(s, argv[i], &k) < 0)
            return -1;
        t->v[k].enabled = on;
    }
    table_changed(s);
    return 0;
}

static int cmd_undisplay(session *s, int argc, char **argv) {
    return cmd_display_delete(s, argc - 1, argv + 1);
}

int cmd_display_info(session *s) {
    exdb_displays *t = s->displays;
    cJSON *arr = s->json ? table_json(t) : NULL;
    if (!t || !t->n) {
        fputs("There are no auto-display expressions now.\n", s->out);
        cmd_json_add(s, "displays", arr);
        return 0;
    }
    exdb_buf_puts(&s->buf, "Auto-display expressions now in effect:\nNum Enb Expression\n");
    for (uint32_t i = 0; i < t->n; i++) {
        const display *d = &t->v[i];
        exdb_buf_printf(&s->buf, "%-3d %-3s %s%s\n", d->num, d->enabled ? "y" : "n",
                        d->json ? "/json " : "", d->expr);
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "displays", arr);
    return 0;
}

#define DISPLAY_HELP                                                                               \
    "EXPR is what print or info shows, without the command word:\n"                                \
    "  display node-map        info node-map of the selected frame (#0 after a stop)\n"            \
    "  display frame           print frame: the graph the outliner is building\n"                  \
    "  display node NAME       print node NAME\n"                                                  \
    "  display placeholders 1  ... seen-nodes, seen-modules, ivals, events, module FQN\n"          \
    "or an inspecting command: backtrace, list, info ..., print ...\n"                             \
    "Shown as \"N: EXPR =\" and the value on the lines below (an error: \"N: EXPR = <error:\n"     \
    "...>\") after every command that moves the run (step, next, finish, continue, until,\n"       \
    "advance, goto, reverse-*...). display/json EXPR shows the command's JSON answer on\n"         \
    "one line. \"display\" alone shows them all now; \"info display\" lists them;\n"               \
    "\"undisplay N\" (or \"delete display N\") removes one; \"disable display N\" and\n"           \
    "\"enable display N\" keep it without showing it.\n"                                           \
    "In JSON mode they are the stopping command's \"displays\" array."

const command display_commands[] = {
    {"display", 0, -1, 0, "display[/json] [EXPR]",
     "Show EXPR (node-map, frame, node NAME, ...) every time the run stops.", DISPLAY_HELP,
     cmd_display, NULL, NULL, NULL, CMPL_DISPLAY},
    {"undisplay", 0, -1, 0, "undisplay [N...]", "Remove auto-displays N... (all without N).", NULL,
     cmd_undisplay, NULL, NULL},
};
const size_t display_ncommands = sizeof display_commands / sizeof *display_commands;
