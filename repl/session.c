/* session.c - the interpreter: a line split into words, aliases expanded,
 * the command run (text or one JSON answer per line), breakpoint command
 * lists, scripts, and the session's life (see session.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/mem.h"
#include "core/export/program.h"
#include "core/fx/print.h"
#include "core/unflatten/unflatten.h"
#include "command.h"
#include "json_answers.h"
#include "session.h"
#include "commands.h"

#define MAX_ARGS 64

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
    if (strcmp(argv[0], "end") == 0) /* gdb 13: an "end" outside an if/while/commands body */
        return cmd_fail(s, "This command cannot be used at the top level.");
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
    if (command_expand_subcommand(s, c, argc, argv) < 0)
        return -1;
    if ((c->flags & CMD_NEEDS_PROGRAM) && !s->prog)
        return cmd_fail(s, "No program loaded.  Use \"load FILE\".");
    /* the shape commands read exdb_program_shape_view(s->prog) while a
     * build runs in the background; the others wait for it */
    if (!command_on_shape(c, argc, argv) && session_build(s) < 0)
        return -1;
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
    exdb_error merr;
    if (exdb_program_meta_error(s->prog, &merr) < 0) { /* read at first use: docs/json-reader.md */
        /* its answer goes as its text does (cmd_flush): a field it could
         * not read would show as null, "absent" */
        cJSON_Delete(s->data);
        s->data = NULL;
        rc = cmd_fail(s, "%s", merr.msg);
    }
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

int session_build(session *s) {
    exdb_error err = {0};
    if (exdb_program_building(s->prog)) {
        /* the IR still built in the background (cmd_program.c): say why
         * the answer waits, and let Ctrl-C stop the wait, as gdb's Quit
         * stops a command; the build goes on */
        fprintf(s->errout, "Reading the nodes of %s... (Ctrl-C to stop waiting)\n",
                exdb_program_shape_view(s->prog)->path);
        fflush(s->errout);
        if (exdb_program_wait_or(s->prog, &exdb_interrupted))
            return cmd_fail(s, "Quit");
    }
    int rc = s->prog ? exdb_program_build(s->prog, &err) : 0;
    if (rc == 0)
        return 0;
    if (rc == -1) { /* refused: as a load that failed */
        cmd_lint_forget_program(s, s->prog);
        exdb_program_free(s->prog);
        s->prog = NULL;
    } /* else out of memory: the next command tries again */
    return cmd_fail(s, "%s", err.msg);
}

int session_line_on_shape(session *s, const char *line) {
    char *expanded = session_expand_alias(s, line);
    char *copy = strdup(expanded ? expanded : line), *argv[MAX_ARGS + 1];
    free(expanded);
    int amb, on_shape = 0, argc = copy ? split_words(copy, argv, MAX_ARGS) : 0;
    const command *c = argc > 0 ? command_lookup(argv[0], &amb) : NULL;
    if (c) {
        argv[argc] = NULL;
        on_shape = command_on_shape(c, argc, argv);
    }
    free(copy);
    return on_shape;
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
    if (!expanded && line[0] == '!' && (expanded = malloc(strlen(line) + 7)))
        sprintf(expanded, "shell %s", line + 1); /* gdb's !COMMAND */
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
            session_echo(s, l);
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

/* `COMMAND ... --json`: that one command answers as JSON (as with `set
 * output json`), unless a row of the command's options declares --json
 * (lint: its findings as a JSON array). Strips the word; 1 when found. */
static int json_word(session *s, char *text) {
    size_t l = strlen(text);
    if (s->json || l < 7 || strcmp(text + l - 6, "--json") != 0 ||
        (text[l - 7] != ' ' && text[l - 7] != '\t'))
        return 0;
    int amb;
    const command *c = session_line_command(s, text, &amb);
    if (!c || command_takes_option(c, "--json"))
        return 0;
    l -= 7;
    while (l && (text[l - 1] == ' ' || text[l - 1] == '\t'))
        l--;
    text[l] = '\0';
    return 1;
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
    int json_once = json_word(s, text);
    s->json |= json_once;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = s->json ? exec_json(s, text, &c) : exec_line(s, text, &c);
    s->json &= !json_once;
    exdb_program_cache_reap();             /* the reopen cache's writers that ended: no zombie */
    if (s->timing == 2 && c && !s->json) { /* set timing on: every command's time */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        fflush(s->out);
        fprintf(s->errout, "time: %.3f s\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        fflush(s->errout);
    }
    s->last_flags = c ? c->flags : 0;
    if (!s->in_bp_commands && run_bp_commands(s) < 0)
        rc = -1;
    if (!s->control_depth) /* a while loop sees a Ctrl-C met in its body */
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

void session_echo(session *s, const char *line) {
    const char *t = line;
    while (*t == ' ' || *t == '\t')
        t++;
    if (!s->echo || !*t || *t == '\n' || *t == '#')
        return;
    fflush(s->out);
    printf("(exdb) %s%s", line, strchr(line, '\n') ? "" : "\n");
    fflush(stdout);
}

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
    session_echo(s, line);
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
        session_echo(s, line);
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

/* EXDB_TEST_BUILD_GATE=FIFO: a build in the background (program.h) first
 * reads a byte from FIFO, for a test to hold it while a command waits. */
static const char *build_gate_path;

static void build_gate(void) {
    int fd = open(build_gate_path, O_RDONLY | O_CLOEXEC);
    char byte;
    if (fd >= 0) {
        while (read(fd, &byte, 1) < 0 && errno == EINTR)
            ;
        close(fd);
    }
}

void session_init(session *s) {
    /* a session reloads programs and rebuilds runs of the same sizes: keep
     * freed arena blocks mapped for them (core/base/arena.h) */
    exdb_arena_cache(EXDB_ARENA_CACHE_AUTO);
    /* transparent huge pages for big buffers only when asked (core/base/mem.h) */
    const char *huge = getenv("EXDB_HUGEPAGES");
    exdb_mem_hugepages(huge && strcmp(huge, "1") == 0);
    /* the nodes from which load opens a program shape first (program.h;
     * 0: always, to run a suite that way) */
    const char *shape = getenv("EXDB_SHAPE_FIRST_MIN");
    if (shape && *shape)
        exdb_program_shape_first((uint32_t)strtoul(shape, NULL, 10));
    build_gate_path = getenv("EXDB_TEST_BUILD_GATE");
    if (build_gate_path && *build_gate_path)
        exdb_program_build_gate(build_gate);
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
    cmd_lint_forget_program(s, s->prog);
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
