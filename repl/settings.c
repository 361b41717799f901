/* settings.c - the session's settings table (see settings.h): what gdb's
 * set and show do, with exdb's own settings and viz/'s render settings. */
#include "settings.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "viz/render.h"

static const char *const onoff[] = {"on", "off", NULL};
static const char *const onoffauto[] = {"on", "off", "auto", NULL};
static const char *const stopcont[] = {"stop", "continue", NULL};
static const char *const outputs[] = {"text", "json", NULL};
static const char *const limits[] = {"unlimited", NULL};
static const char *const heights[] = {"unlimited", "auto", NULL};
static const char *const logging[] = {"on", "off", "file", "overwrite", "redirect", NULL};
static const char *const layouts[] = {"dot", "sfdp", "auto", NULL};
static const char *const rankdirs[] = {"TB", "LR", "auto", NULL};

/* "unlimited"/"0" or a number up to 1e9: 0 or -1 after an error. */
static int parse_limit(session *s, const char *name, const char *v, int *out) {
    if (strcmp(v, "unlimited") == 0) {
        *out = 0;
        return 0;
    }
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 1000000000)
        return cmd_fail(s, "set %s: expected a number or \"unlimited\", found \"%s\"", name, v);
    *out = (int)n;
    return 0;
}

/* The value word of a one-value setting, picked from its values: its
 * index, or -1 after an error. */
static int pick_value(session *s, const setting *st, int argc, char **argv) {
    if (argc != 3)
        return cmd_fail(s, "Usage: set %s %s", st->name, st->usage);
    char what[64];
    snprintf(what, sizeof what, "set %s", st->name);
    int x = cmd_pick(s, what, argv[2], st->values);
    return x < 0 ? -1 : x;
}

static int number_value(session *s, const setting *st, int argc, char **argv, int *x) {
    if (argc != 3)
        return cmd_fail(s, "Usage: set %s %s", st->name, st->usage);
    return parse_limit(s, st->name, argv[2], x);
}

/* ---- each setting's set and show */

static int set_trace(session *s, const setting *st, int argc, char **argv) {
    int x = pick_value(s, st, argc, argv);
    if (x >= 0)
        s->trace_commands = x == 0;
    return x < 0 ? -1 : 0;
}

static void show_trace(const session *s, const setting *st, exdb_buf *b) {
    exdb_buf_printf(b, "%s: %s\n", st->name, s->trace_commands ? "on" : "off");
}

static int set_on_error(session *s, const setting *st, int argc, char **argv) {
    int x = pick_value(s, st, argc, argv);
    if (x >= 0)
        s->on_error_continue = x == 1;
    return x < 0 ? -1 : 0;
}

static void show_on_error(const session *s, const setting *st, exdb_buf *b) {
    exdb_buf_printf(b, "%s: %s\n", st->name, s->on_error_continue ? "continue" : "stop");
}

static int set_output(session *s, const setting *st, int argc, char **argv) {
    int x = pick_value(s, st, argc, argv);
    if (x >= 0)
        s->json = x == 1;
    return x < 0 ? -1 : 0;
}

static void show_output(const session *s, const setting *st, exdb_buf *b) {
    exdb_buf_printf(b, "%s: %s\n", st->name, s->json ? "json" : "text");
}

static int set_color(session *s, const setting *st, int argc, char **argv) {
    int x = pick_value(s, st, argc, argv);
    if (x >= 0)
        s->color = x == 0 ? 1 : x == 1 ? 0 : -1;
    return x < 0 ? -1 : 0;
}

static void show_color(const session *s, const setting *st, exdb_buf *b) {
    exdb_buf_printf(b, "%s: %s\n", st->name, s->color < 0 ? "auto" : s->color ? "on" : "off");
}

static int set_listsize(session *s, const setting *st, int argc, char **argv) {
    int x;
    if (number_value(s, st, argc, argv, &x) < 0)
        return -1;
    s->listsize = x ? x : 1000000000;
    return 0;
}

static void show_listsize(const session *s, const setting *st, exdb_buf *b) {
    if (s->listsize >= 1000000000)
        exdb_buf_printf(b, "%s: unlimited\n", st->name);
    else
        exdb_buf_printf(b, "%s: %d\n", st->name, s->listsize);
}

static int set_max_lines(session *s, const setting *st, int argc, char **argv) {
    return number_value(s, st, argc, argv, &s->max_lines);
}

static void show_max_lines(const session *s, const setting *st, exdb_buf *b) {
    if (s->max_lines)
        exdb_buf_printf(b, "%s: %d\n", st->name, s->max_lines);
    else
        exdb_buf_printf(b, "%s: unlimited\n", st->name);
}

/* timing: 2 on (every command, and render's stages), 1 render (its stages
 * only: the default), 0 off. */
static const char *const timings[] = {"on", "off", "render", NULL};

static int set_timing(session *s, const setting *st, int argc, char **argv) {
    int x = pick_value(s, st, argc, argv);
    if (x >= 0)
        s->timing = x == 0 ? 2 : x == 1 ? 0 : 1;
    return x < 0 ? -1 : 0;
}

static void show_timing(const session *s, const setting *st, exdb_buf *b) {
    exdb_buf_printf(b, "%s: %s\n", st->name, timings[s->timing == 2 ? 0 : s->timing ? 2 : 1]);
}

static int set_width(session *s, const setting *st, int argc, char **argv) {
    int x;
    if (number_value(s, st, argc, argv, &x) < 0)
        return -1;
    if (x && x < 8)
        return cmd_fail(s, "set width: at least 8 columns, or \"unlimited\".");
    s->width = x;
    return 0;
}

static void show_width(const session *s, const setting *st, exdb_buf *b) {
    if (s->width)
        exdb_buf_printf(b, "%s: %d\n", st->name, s->width);
    else
        exdb_buf_printf(b, "%s: unlimited\n", st->name);
}

static int set_pagination(session *s, const setting *st, int argc, char **argv) {
    int x = pick_value(s, st, argc, argv);
    if (x < 0)
        return -1;
    s->pagination = x == 0;
    cmd_json_add(s, "pagination", cJSON_CreateBool(s->pagination));
    return 0;
}

static void show_pagination(const session *s, const setting *st, exdb_buf *b) {
    exdb_buf_printf(b, "%s: %s\n", st->name, s->pagination ? "on" : "off");
}

static int set_height(session *s, const setting *st, int argc, char **argv) {
    if (argc != 3)
        return cmd_fail(s, "Usage: set %s %s", st->name, st->usage);
    int x;
    if (strcmp(argv[2], "auto") == 0)
        x = -1;
    else if (parse_limit(s, st->name, argv[2], &x) < 0)
        return -1;
    s->height = x;
    /* JSON: the rows, 0 for unlimited, null for the terminal's */
    cmd_json_add(s, "height", x < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(x));
    return 0;
}

static void show_height(const session *s, const setting *st, exdb_buf *b) {
    if (s->height > 0)
        exdb_buf_printf(b, "%s: %d\n", st->name, s->height);
    else
        exdb_buf_printf(b, "%s: %s\n", st->name, s->height ? "auto (the terminal's)" : "unlimited");
}

/* set logging on [FILE] | off | file FILE | overwrite on|off | redirect on|off */
static int set_logging(session *s, const setting *st, int argc, char **argv) {
    (void)st;
    return output_set_logging(s, argc - 1, argv + 1);
}

static void show_logging(const session *s, const setting *st, exdb_buf *b) {
    (void)st;
    output_show_logging(s, b);
}

/* set substitute-path FROM TO | FROM (cmd_source.c keeps the rules) */
static int set_substitute(session *s, const setting *st, int argc, char **argv) {
    (void)st;
    return cmd_source_set_substitute(s, argc - 1, argv + 1);
}

static void show_substitute(const session *s, const setting *st, exdb_buf *b) {
    (void)st;
    cmd_source_show_substitute(s, b);
}

/* viz/'s render settings: viz parses and shows them. */
static int set_render(session *s, const setting *st, int argc, char **argv) {
    if (argc != 3)
        return cmd_fail(s, "Usage: set %s %s", st->name, st->usage);
    exdb_error err = {0};
    if (exdb_viz_set(&s->render, st->name, argv[2], &err) < 0)
        return cmd_fail(s, "%s", err.msg);
    return 0;
}

static void show_render(const session *s, const setting *st, exdb_buf *b) {
    exdb_viz_setting_show(b, &s->render, st->name);
}

const setting settings[] = {
    {"trace-commands", "on|off", "echo script commands as they run (+cmd)", onoff, set_trace,
     show_trace},
    {"on-error", "stop|continue", "whether a failing command stops a script", stopcont,
     set_on_error, show_on_error},
    {"output", "text|json",
     "json: every command answers one JSON object per line:\n"
     "{\"command\", \"ok\", [data...], \"output\", [\"error\"]}",
     outputs, set_output, show_output},
    {"color", "on|off|auto", "auto: on a terminal, unless NO_COLOR is set", onoffauto, set_color,
     show_color},
    {"listsize", "N|unlimited", "lines `list` shows (default 10)", limits, set_listsize,
     show_listsize},
    {"max-lines", "N|unlimited",
     "cut longer listings with \"(N more lines)\" (default\nunlimited; --all overrides)", limits,
     set_max_lines, show_max_lines},
    {"timing", "on|off|render", "on: every command's time too (stderr); render: render's (default)",
     timings, set_timing, show_timing},
    {"width", "N|unlimited",
     "cut listing lines wider than N columns with \"…\"\n(default unlimited; --all shows them "
     "whole)",
     limits, set_width, show_width},
    {"pagination", "on|off",
     "at a terminal, stop each screenful of output and ask\n\"--Type <RET> for more, q to quit, "
     "c to continue\nwithout paging--\" (as gdb; never in batch mode or\nwith commands on a pipe; "
     "default on)",
     onoff, set_pagination, show_pagination},
    {"height", "N|unlimited|auto", "rows of a page (auto, the default: the terminal's)", heights,
     set_height, show_height},
    {"logging", "on [FILE]",
     "copy the output (and errors) to FILE (default exdb.txt;\nappended to, as gdb's), colour "
     "left out\n"
     "set logging off\tstop copying\n"
     "set logging file FILE\tthe file for the next \"set logging on\"\n"
     "set logging overwrite on|off\ttruncate the file instead of appending to it\n"
     "set logging redirect on|off\tsend the output to the file only, not the terminal",
     logging, set_logging, show_logging},
    {"substitute-path", "FROM TO",
     "list source reads a stack trace's file under FROM (a\npath or its leading directories) "
     "from TO instead, as\ngdb's; FROM alone removes its rule",
     NULL, set_substitute, show_substitute},
    {"layout", "dot|sfdp|auto", "the Graphviz engine for render (auto: by size)", layouts,
     set_render, show_render},
    {"rankdir", "TB|LR|auto", "render top to bottom or left to right (auto: the view's)", rankdirs,
     set_render, show_render},
    {"render-limit", "N", "refuse image layout above N nodes (DOT is never refused)", NULL,
     set_render, show_render},
    {"render-dup-fanout", "N", "draw a value with more than N far uses once per use", NULL,
     set_render, show_render},
    {"render-dup-span", "N", "... when a use is more than N nodes away", NULL, set_render,
     show_render},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

#define NSETTINGS (sizeof settings / sizeof *settings - 1)

const char *const *settings_names(void) {
    static const char *names[NSETTINGS + 1];
    if (!names[0])
        for (size_t i = 0; i < NSETTINGS; i++)
            names[i] = settings[i].name;
    return names;
}

const setting *settings_pick(session *s, const char *what, const char *word) {
    int w = cmd_pick(s, what, word, settings_names());
    return w < 0 ? NULL : &settings[w];
}

void settings_show(const session *s, const setting *st, exdb_buf *b) {
    for (size_t i = 0; i < NSETTINGS; i++)
        if (!st || st == &settings[i])
            settings[i].show(s, &settings[i], b);
}

/* "set NAME USAGE" padded to 31 columns, then the help, its later lines
 * under its first; a help line "USAGE\tTEXT" is a usage row of its own
 * ("set logging off\tstop copying"). */
const char *settings_help(void) {
    static char *text;
    if (text)
        return text;
    exdb_buf b;
    exdb_buf_init(&b);
    for (size_t i = 0; i < NSETTINGS; i++) {
        const setting *st = &settings[i];
        exdb_buf_printf(&b, "set %s %s", st->name, st->usage);
        size_t head = strlen(st->name) + strlen(st->usage) + 5;
        for (const char *l = st->help; *l;) {
            size_t len = strcspn(l, "\n");
            const char *tab = memchr(l, '\t', len);
            if (tab) {
                exdb_buf_printf(&b, "%.*s", (int)(tab - l), l);
                head = (size_t)(tab - l);
                len -= head + 1;
                l = tab + 1;
            }
            exdb_buf_printf(&b, "%*s%.*s\n", head < 31 ? (int)(31 - head) : 1, "", (int)len, l);
            head = 0;
            l += len + (l[len] == '\n');
        }
    }
    if (b.len && exdb_buf_str(&b)[b.len - 1] == '\n')
        b.len--;
    text = b.oom ? NULL : strndup(exdb_buf_str(&b), b.len);
    exdb_buf_free(&b);
    return text ? text : "";
}
