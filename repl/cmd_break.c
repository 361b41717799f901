/* cmd_break.c - breakpoints and watchpoints on the unflatten run, as gdb's.
 *
 * A breakpoint is tested after every event a moving command applies
 * (cmd_unflatten.c's drive): a flat node copied, a module frame entered or
 * exited, a node whose target matches a glob copied, an event of a kind;
 * a watchpoint fires when a flat node gets a new entry in some frame's
 * node_map or node_to_placeholder. Each may carry a condition on the event
 * ("if call == 2", "if fqn ~ encoder.*"). The table lives in the session,
 * so a fresh session (the fuzz harness makes one per input) starts empty.
 *
 * This file has the commands (break, tbreak, watch, delete, enable,
 * disable, condition, ignore, commands, info breakpoints); breakpoint.c
 * the table, locations and conditions; cmd_break_check.c the test after
 * each event. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "breakpoint.h"
#include "command.h"

static const char *const kind_words[] = {"node",  "enter",    "exit", "op",
                                         "event", "node-map", "line"};

void cmd_break_free(session *s) {
    exdb_bptable *t = s->bps;
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++)
        breakpoint_clear(&t->v[i]);
    free(t->v);
    free(t->pending);
    free(t);
    s->bps = NULL;
}

/* break/tbreak/watch: the words after the command, up to "if". A
 * momentary breakpoint (until/advance) is silent and unnumbered. */
static int add_bp_ex(session *s, int temporary, int watch, int momentary, uint32_t max_depth,
                     int argc, char **argv) {
    bp b = {0};
    b.enabled = 1;
    b.temporary = temporary;
    b.momentary = momentary;
    b.max_depth = max_depth;
    if (breakpoint_parse(s, &b, watch, momentary, argc, argv) < 0)
        return -1;
    exdb_bptable *t = breakpoint_table(s);
    if (!t) {
        breakpoint_clear(&b);
        return cmd_fail(s, "out of memory");
    }
    if (t->n == t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : 8;
        bp *nv = realloc(t->v, ncap * sizeof *nv);
        if (!nv) {
            breakpoint_clear(&b);
            return cmd_fail(s, "out of memory");
        }
        t->v = nv;
        t->cap = ncap;
    }
    b.num = momentary ? 0 : ++t->next_num;
    t->v[t->n++] = b;
    t->armed = NULL; /* a new watchpoint arms at the next move */
    if (momentary)
        return 0;
    exdb_buf_printf(&s->buf, "%s %d: ",
                    watch       ? "Watchpoint"
                    : temporary ? "Temporary breakpoint"
                                : "Breakpoint",
                    b.num);
    breakpoint_describe(&s->buf, &b);
    if (b.cond)
        exdb_buf_printf(&s->buf, " if %s", b.cond);
    cmd_flush(s, 1);
    cmd_json_add(s, "number", cJSON_CreateNumber(b.num));
    return 0;
}

static int add_bp(session *s, int temporary, int watch, int argc, char **argv) {
    return add_bp_ex(s, temporary, watch, 0, 0, argc, argv);
}

int cmd_break_add(session *s, int temporary, int argc, char **argv) {
    return add_bp(s, temporary, 0, argc, argv);
}

int cmd_break_momentary(session *s, uint32_t max_depth, int argc, char **argv) {
    return add_bp_ex(s, 0, 0, 1, max_depth, argc, argv);
}

void cmd_break_clear_momentary(session *s) {
    exdb_bptable *t = s->bps;
    for (uint32_t i = 0; t && i < t->n;) {
        if (t->v[i].momentary) {
            breakpoint_clear(&t->v[i]);
            memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
            t->n--;
        } else {
            i++;
        }
    }
}

static int cmd_break(session *s, int argc, char **argv) {
    return add_bp(s, 0, 0, argc, argv);
}

static int cmd_tbreak(session *s, int argc, char **argv) {
    return add_bp(s, 1, 0, argc, argv);
}

static int cmd_watch(session *s, int argc, char **argv) {
    return add_bp(s, 0, 1, argc, argv);
}

static bp *find_num(exdb_bptable *t, int num) {
    for (uint32_t i = 0; t && i < t->n; i++)
        if (t->v[i].num == num && !t->v[i].momentary)
            return &t->v[i];
    return NULL;
}

/* "a\nb\n" as ["a", "b"]. */
static cJSON *lines_json(const char *text) {
    cJSON *arr = cJSON_CreateArray();
    for (const char *l = text; arr && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char *one = strndup(l, len);
        if (one)
            cJSON_AddItemToArray(arr, cJSON_CreateString(one));
        free(one);
        l += len + (nl != NULL);
    }
    return arr;
}

/* info breakpoints' JSON: one object per breakpoint shown (momentary
 * ones, made by until/advance, are not). */
static cJSON *breakpoints_json(const exdb_bptable *t) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && t && i < t->n; i++) {
        const bp *b = &t->v[i];
        if (b->momentary)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "number", b->num);
        cJSON_AddStringToObject(o, "type", b->kind == BP_WATCH ? "watchpoint" : "breakpoint");
        cJSON_AddStringToObject(o, "on", kind_words[b->kind]);
        cJSON_AddStringToObject(o, "what", b->arg);
        cJSON_AddBoolToObject(o, "enabled", b->enabled);
        cJSON_AddBoolToObject(o, "temporary", b->temporary);
        cJSON_AddNumberToObject(o, "hits", b->hits);
        cJSON_AddNumberToObject(o, "ignore", b->ignore);
        cJSON_AddItemToObject(o, "commands", lines_json(b->commands ? b->commands : ""));
        if (b->cond)
            cJSON_AddStringToObject(o, "condition", b->cond);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* JSON mode: the table after a command changed it (delete, enable,
 * disable, condition), as info breakpoints gives it. */
static void table_changed(session *s) {
    if (s->json)
        cmd_json_add(s, "breakpoints", breakpoints_json(s->bps));
}

/* The breakpoint numbered by word, or NULL after an error. */
static bp *find_bp(session *s, const char *word) {
    char *end;
    long n = strtol(word, &end, 10);
    if (!*word || *end)
        return cmd_fail(s, "Expected a breakpoint number, found \"%s\".", word), NULL;
    for (uint32_t i = 0; s->bps && i < s->bps->n; i++)
        if (s->bps->v[i].num == n)
            return &s->bps->v[i];
    cmd_fail(s, "No breakpoint number %ld.", n);
    return NULL;
}

static int cmd_delete(session *s, int argc, char **argv) {
    exdb_bptable *t = s->bps;
    if (argc > 1 && strcmp(argv[1], "display") == 0) /* gdb's delete display N */
        return cmd_display_delete(s, argc - 2, argv + 2);
    if (argc == 1) {
        cmd_break_free(s);
        table_changed(s);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        bp *b = find_bp(s, argv[i]);
        if (!b)
            return -1;
        breakpoint_clear(b);
        size_t at = (size_t)(b - t->v);
        memmove(b, b + 1, (t->n - at - 1) * sizeof *b);
        t->n--;
    }
    table_changed(s);
    return 0;
}

static int set_enabled(session *s, int argc, char **argv, int on) {
    if (argc > 1 && strcmp(argv[1], "display") == 0) /* gdb's enable/disable display N */
        return cmd_display_enable(s, argc - 2, argv + 2, on);
    for (uint32_t i = 0; argc == 1 && s->bps && i < s->bps->n; i++)
        s->bps->v[i].enabled = on;
    for (int i = 1; i < argc; i++) {
        bp *b = find_bp(s, argv[i]);
        if (!b)
            return -1;
        b->enabled = on;
    }
    table_changed(s);
    return 0;
}

static int cmd_enable(session *s, int argc, char **argv) {
    return set_enabled(s, argc, argv, 1);
}

static int cmd_disable(session *s, int argc, char **argv) {
    return set_enabled(s, argc, argv, 0);
}

static int cmd_condition(session *s, int argc, char **argv) {
    bp *b = find_bp(s, argv[1]);
    if (!b)
        return -1;
    if (argc == 2) {
        free(b->cond);
        free(b->value);
        b->cond = b->value = NULL;
        fprintf(s->out, "Breakpoint %d now unconditional.\n", b->num);
    } else if (breakpoint_parse_cond(s, b, argc - 2, argv + 2) < 0) {
        return -1;
    }
    cmd_json_add(s, "breakpoint", cJSON_CreateNumber(b->num));
    table_changed(s);
    return 0;
}

/* ignore N COUNT: gdb's ignore counts. The next COUNT times breakpoint N
 * is reached (its condition true) it does not stop; each still counts as
 * a hit. */
static int cmd_ignore(session *s, int argc, char **argv) {
    (void)argc;
    bp *b = find_bp(s, argv[1]);
    uint32_t n;
    if (!b || cmd_parse_count(s, argv[2], &n) < 0)
        return -1;
    b->ignore = n;
    if (n == 0)
        fprintf(s->out, "Will stop next time breakpoint %d is reached.\n", b->num);
    else if (n == 1)
        fprintf(s->out, "Will ignore next crossing of breakpoint %d.\n", b->num);
    else
        fprintf(s->out, "Will ignore next %u crossings of breakpoint %d.\n", n, b->num);
    cmd_json_add(s, "breakpoint", cJSON_CreateNumber(b->num));
    cmd_json_add(s, "ignore", cJSON_CreateNumber(n));
    return 0;
}

/* Reads the lines of a `commands` body up to "end" from where the command
 * came from (trimmed, blank lines and # comments dropped) into body; 0, or
 * -1 after an error (a line that is no command: the rest up to "end" is
 * still read, so a script does not run it). */
static int read_body(session *s, exdb_buf *body) {
    int rc = 0, nlines = 0;
    char *line;
    while ((line = s->read_line(s, ">"))) {
        char *t = line, *e = line + strlen(line);
        while (*t == ' ' || *t == '\t')
            t++;
        while (e > t && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
            *--e = '\0';
        if (strcmp(t, "end") == 0) {
            free(line);
            return rc;
        }
        if (!*t || *t == '#') {
            free(line);
            continue;
        }
        if (rc == 0 && !(nlines == 0 && strcmp(t, "silent") == 0)) {
            int amb = 0;
            const command *c = session_line_command(s, t, &amb);
            if (!c)
                rc = cmd_fail(s, "%s command in the breakpoint's commands: \"%s\".",
                              amb ? "Ambiguous" : "Undefined", t);
            else if (strcmp(c->name, "commands") == 0)
                rc = cmd_fail(s, "\"commands\" cannot be nested in a breakpoint's commands.");
        }
        exdb_buf_printf(body, "%s\n", t);
        nlines++;
        free(line);
    }
    if (exdb_interrupted)
        return cmd_fail(s, "Quit");
    return rc; /* the end of the input ends the list, as gdb takes it */
}

/* commands [N...] ... end: what gdb's does. The lines after the command,
 * up to "end", run each time one of the breakpoints stops the run (after
 * the stopping command, its stop message and the auto-displays); a first
 * line "silent" leaves out the stop message and the displays. No lines:
 * the breakpoints' commands are removed. Without N: the last breakpoint
 * made. */
static int cmd_commands(session *s, int argc, char **argv) {
    int nums[64], n = 0;
    exdb_bptable *t = s->bps;
    for (int i = 1; i < argc && n < 64; i++) {
        bp *b = find_bp(s, argv[i]);
        if (!b)
            return -1;
        nums[n++] = b->num;
    }
    if (argc == 1) {
        if (!t || !t->next_num || !find_num(t, t->next_num))
            return cmd_fail(s, "No breakpoints specified.");
        nums[n++] = t->next_num;
    }
    if (!s->read_line)
        return cmd_fail(s, "\"commands\" reads its lines from a script, standard input or the "
                           "prompt (not from -ex).");
    if (s->interactive && s->source_depth == 0 && !s->in_bp_commands) {
        exdb_buf_puts(&s->buf, "Type commands for breakpoint(s) ");
        for (int i = 0; i < n; i++)
            exdb_buf_printf(&s->buf, "%s%d", i ? ", " : "", nums[i]);
        exdb_buf_puts(&s->buf, ", one per line.\nEnd with a line saying just \"end\".\n");
        cmd_flush(s, 1);
    }
    exdb_buf body;
    exdb_buf_init(&body);
    if (read_body(s, &body) < 0) {
        exdb_buf_free(&body);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        bp *b = find_num(s->bps, nums[i]);
        if (!b)
            continue; /* deleted by nothing here, but stay safe */
        free(b->commands);
        b->commands = body.len ? strdup(exdb_buf_str(&body)) : NULL;
    }
    if (s->json) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(nums[i]));
        cmd_json_add(s, "breakpoints", arr);
        cmd_json_add(s, "commands", lines_json(body.len ? exdb_buf_str(&body) : ""));
    }
    exdb_buf_free(&body);
    return 0;
}

int cmd_break_info(session *s) {
    exdb_bptable *t = s->bps;
    cJSON *arr = s->json ? breakpoints_json(t) : NULL;
    uint32_t shown = 0;
    for (uint32_t i = 0; t && i < t->n; i++)
        shown += !t->v[i].momentary;
    if (!shown) {
        fputs("No breakpoints or watchpoints.\n", s->out);
        cmd_json_add(s, "breakpoints", arr);
        return 0;
    }
    exdb_buf_puts(&s->buf, "Num  Type        Disp  Enb  Hits  What\n");
    exdb_buf w;
    exdb_buf_init(&w);
    for (uint32_t i = 0; i < t->n; i++) {
        const bp *b = &t->v[i];
        if (b->momentary)
            continue;
        exdb_buf_reset(&w);
        breakpoint_describe(&w, b);
        if (b->cond)
            exdb_buf_printf(&w, " if %s", b->cond);
        exdb_buf_printf(&s->buf, "%-4d %-11s %-5s %-4s %-5u %s\n", b->num,
                        b->kind == BP_WATCH ? "watchpoint" : "breakpoint",
                        b->temporary ? "del" : "keep", b->enabled ? "y" : "n", b->hits,
                        exdb_buf_str(&w));
        /* as gdb, under the breakpoint: its ignore count and commands */
        if (b->ignore == 1)
            exdb_buf_puts(&s->buf, "        Will ignore next crossing of breakpoint.\n");
        else if (b->ignore)
            exdb_buf_printf(&s->buf, "        Will ignore next %u crossings of breakpoint.\n",
                            b->ignore);
        for (const char *l = b->commands; l && *l;) {
            const char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) : strlen(l);
            exdb_buf_printf(&s->buf, "        %.*s\n", (int)len, l);
            l += len + (nl != NULL);
        }
    }
    exdb_buf_free(&w);
    cmd_flush(s, 1);
    cmd_json_add(s, "breakpoints", arr);
    return 0;
}

#define BREAK_HELP                                                                                 \
    "break NODE           after the flat node NODE is copied into a frame\n"                       \
    "break module FQN     when a frame for module FQN is created (FQN@N: only that call;\n"        \
    "                     globs: encoder.layers.*.attn)\n"                                         \
    "break exit FQN       when a frame for FQN is finalized (outlining)\n"                         \
    "break op GLOB        after a node whose target matches GLOB is copied (aten.relu*;\n"         \
    "                     torch.ops. may be left out)\n"                                           \
    "break event KIND     at an event of that kind: sink, dedup, dispatch, ival, attrs,\n"         \
    "                     state, reorder, done, copy, enter, exit\n"                               \
    "break line FILE:LINE after the first node made at that line of the Python is copied\n"        \
    "                     (a frame of its stack_trace is there: the innermost, or a call\n"        \
    "                     of a module at that line); FILE may be a suffix (resnet.py:92)\n"        \
    "Any of them may end with \"if VAR OP VALUE\": VAR is call (the frame's call number,\n"        \
    "as backtrace shows it), depth, step (flat node index), event, fqn, node or target;\n"         \
    "OP is == != < <= > >= for numbers, == != or ~ (glob) for names. continue, next, finish\n"     \
    "and run stop at them; \"info breakpoints\" lists them."

/* The subcommand words watch reads itself (a unique prefix names one). */
static const subcommand watch_subs[] = {{"node-map", NULL, -1, 1}, {NULL, NULL, 0, 0}};

/* The subcommand words delete reads itself (a unique prefix names one). */
static const subcommand display_subs[] = {{"display", NULL, -1, 1}, {NULL, NULL, 0, 0}};

const command break_commands[] = {
    {"break", 1, -1, CMD_NEEDS_PROGRAM,
     "break NODE|module FQN|exit FQN|op GLOB|event KIND|line FILE:LINE [if C]",
     "Stop the unflatten run at a node, a module call, an op, an event or a source line.",
     BREAK_HELP, cmd_break, NULL, NULL, NULL, CMPL_BREAK},
    {"tbreak", 1, -1, CMD_NEEDS_PROGRAM, "tbreak ...", "A breakpoint deleted when first hit.",
     BREAK_HELP, cmd_tbreak, NULL, NULL, NULL, CMPL_BREAK},
    {"watch", 2, -1, CMD_NEEDS_PROGRAM, "watch node-map NODE [if COND]",
     "Stop when NODE gets mapped in a frame (node_map or node_to_placeholder).",
     "Fires once per frame that maps the flat node: where it is copied, where a child\n"
     "frame makes a placeholder for it, where an exiting frame hands its output back to\n"
     "the parent. Conditions as for break (\"help break\").",
     cmd_watch, watch_subs, NULL},
    {"delete", 0, -1, 0, "delete [N...]|display [N...]",
     "Delete breakpoints N... (all without N), or auto-displays.", NULL, cmd_delete, display_subs,
     NULL, NULL, CMPL_NONE},
    {"disable", 0, -1, 0, "disable [N...]|display [N...]",
     "Disable breakpoints N... (all without N), or auto-displays.", NULL, cmd_disable, display_subs,
     NULL, NULL, CMPL_NONE},
    {"enable", 0, -1, 0, "enable [N...]|display [N...]",
     "Enable breakpoints N... (all without N), or auto-displays.", NULL, cmd_enable, display_subs,
     NULL, NULL, CMPL_NONE},
    {"ignore", 2, 2, 0, "ignore N COUNT",
     "Pass breakpoint N the next COUNT times it is reached (0: stop again).",
     "As gdb's ignore counts: each crossing passed still counts as a hit; \"info\n"
     "breakpoints\" shows the count left. reverse-continue passes a breakpoint whose\n"
     "count is not 0 (and does not use it up).",
     cmd_ignore, NULL, NULL},
    {"commands", 0, -1, 0, "commands [N...]",
     "Commands to run when breakpoint N stops the run, up to a line \"end\".",
     "As gdb's: the lines after \"commands N\" (in a script, on standard input or at the\n"
     "prompt, which asks with \">\"), up to a line \"end\", run each time breakpoint N\n"
     "stops the run, after the stop message and the auto-displays. A first line\n"
     "\"silent\" leaves both out. A command that moves the run (continue, step, run...)\n"
     "ends the list: the commands after it do not run, those of the breakpoint it stops\n"
     "at do. Without N: the last breakpoint made. \"commands N\" and \"end\" alone remove\n"
     "N's commands. \"info breakpoints\" lists them under each breakpoint.",
     cmd_commands, NULL, NULL},
    {"condition", 1, 4, 0, "condition N [VAR OP VALUE]",
     "Stop at breakpoint N only when the condition holds (none: always).",
     "See \"help break\" for the variables.", cmd_condition, NULL, NULL},
};
const size_t break_ncommands = sizeof break_commands / sizeof *break_commands;
