/* cmd_output.c - where a session's output goes, as in gdb: a pager at a
 * terminal ("--Type <RET> for more, q to quit, c to continue without
 * paging--", `set pagination`, `set height`), a copy in a file (`set
 * logging on FILE`), and the `pipe COMMAND | SHELL` command.
 *
 * session_init puts the session's output and error streams through two
 * stdio cookie streams of this file, so every byte any command prints
 * passes here whatever function prints it: the pager counts the rows it
 * fills and asks before a screenful scrolls away, and the log gets a copy
 * (colour codes taken out). Commands that capture a command's text (JSON
 * mode, display, pipe) swap s->out for their own stream around it, and
 * what they print in the end comes back through here. */
#define _GNU_SOURCE /* fopencookie */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"
#include "core/base/outfile.h"

typedef struct exdb_output {
    session *s;
    FILE *term, *term_err; /* what the streams write to: stdout, stderr */
    FILE *out, *err;       /* the cookie streams (s->out, s->errout) */
    /* set logging */
    FILE *log;
    char *log_file;          /* set logging file (default exdb.txt, as gdb's gdb.txt) */
    char *log_path;          /* the file being written */
    int overwrite, redirect; /* set logging overwrite|redirect: settings */
    int redirecting;         /* the log being written was started with redirect on */
    int in_escape;           /* the log: inside a colour code */
    int log_errno;           /* the log's write failed (its errno): reported, log closed */
    /* the pager, for the command being run */
    int page, cols; /* rows of a page (0: no paging), columns of the terminal */
    int rows, col;  /* rows filled since the last question, column of the cursor */
    int no_more;    /* "c": no more questions for this command */
    int discard;    /* "q": the rest of the command's output goes nowhere */
} exdb_output;

/* The log's copy: colour codes (ESC [ ... letter) left out. */
static void log_write(exdb_output *o, const char *buf, size_t n) {
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        if (o->in_escape) {
            if ((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z'))
                o->in_escape = 0;
            start = i + 1;
        } else if (buf[i] == '\033') {
            fwrite(buf + start, 1, i - start, o->log);
            o->in_escape = 1;
        }
    }
    if (!o->in_escape && start < n)
        fwrite(buf + start, 1, n - start, o->log);
}

static void log_close(exdb_output *o);

/* A write to the log failed (a full disk, a quota, ulimit -f): said on the
 * real stderr (the session's streams lead here), the log closed, and the
 * command that was writing fails (its output was cut short). */
static void log_failed(exdb_output *o) {
    o->log_errno = errno ? errno : EIO;
    fprintf(o->term_err, "%s: cannot write: %s (logging stopped; the log is incomplete)\n",
            o->log_path, strerror(o->log_errno));
    fflush(o->term_err);
    if (o->redirecting)
        o->redirecting = 0; /* what follows goes to the terminal again */
    log_close(o);
    o->s->output_oom = 1;
}

/* Bytes to where they go: the terminal (unless redirected) and the log. */
static void emit(exdb_output *o, FILE *to, const char *buf, size_t n) {
    if (!n)
        return;
    if (!(o->log && o->redirecting))
        fwrite(buf, 1, n, to);
    if (o->log) {
        errno = 0;
        log_write(o, buf, n);
        if (ferror(o->log))
            log_failed(o);
    }
}

static int paging(const exdb_output *o) {
    const session *s = o->s;
    return s->interactive && s->pagination && o->page > 1 && !s->json && !o->no_more &&
           !(o->log && o->redirecting);
}

/* gdb's question when a page is full. 1 to go on, 0 after "q" (the rest of
 * the command's output is dropped and the command stopped, as Ctrl-C
 * does). */
static int ask_more(exdb_output *o) {
    fputs("--Type <RET> for more, q to quit, c to continue without paging--", o->term);
    fflush(o->term);
    char first = 0, ch;
    ssize_t r;
    while ((r = read(0, &ch, 1)) == 1 && ch != '\n')
        if (!first && ch != ' ' && ch != '\t')
            first = ch;
    o->rows = 0;
    if (r == 1 && first != 'q' && first != 'Q') {
        o->no_more = first == 'c' || first == 'C';
        return 1;
    }
    /* "q", Ctrl-C (the read interrupted) or the end of the input */
    fputs(r == 1 ? "Quit\n" : "\nQuit\n", o->term);
    fflush(o->term);
    o->discard = 1;
    exdb_interrupted = 1;
    return 0;
}

/* The output stream's write: counts the rows the text fills on the
 * terminal (a line wider than the terminal wraps; colour codes and UTF-8
 * continuation bytes take no column) and asks before the row that would
 * push the page's first line off the screen. */
static ssize_t out_write(void *cookie, const char *buf, size_t n) {
    exdb_output *o = cookie;
    if (o->discard)
        return (ssize_t)n;
    if (!paging(o)) {
        emit(o, o->term, buf, n);
        fflush(o->term);
        return (ssize_t)n;
    }
    size_t start = 0;
    int escape = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (escape) {
            escape = !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
            continue;
        }
        if (c == '\033') {
            escape = 1;
            continue;
        }
        if (c != '\n' && (c & 0xC0) == 0x80)
            continue;
        if (o->rows >= o->page - 1 && !o->no_more) {
            emit(o, o->term, buf + start, i - start);
            start = i;
            if (!ask_more(o))
                return (ssize_t)n;
        }
        if (c == '\n') {
            o->rows++;
            o->col = 0;
        } else if (++o->col > o->cols && o->cols > 0) {
            o->rows++; /* the terminal wrapped the line */
            o->col = 1;
        }
    }
    emit(o, o->term, buf + start, n - start);
    fflush(o->term);
    return (ssize_t)n;
}

static ssize_t err_write(void *cookie, const char *buf, size_t n) {
    exdb_output *o = cookie;
    emit(o, o->term_err, buf, n);
    fflush(o->term_err);
    if (o->log)
        fflush(o->log);
    return (ssize_t)n;
}

void output_init(session *s) {
    exdb_output *o = calloc(1, sizeof *o);
    if (!o)
        return;
    o->s = s;
    o->term = stdout;
    o->term_err = stderr;
    cookie_io_functions_t outf = {.write = out_write}, errf = {.write = err_write};
    o->out = fopencookie(o, "w", outf);
    o->err = fopencookie(o, "w", errf);
    if (!o->out || !o->err) {
        if (o->out)
            fclose(o->out);
        if (o->err)
            fclose(o->err);
        free(o);
        return;
    }
    setvbuf(o->out, NULL, _IOFBF, 1 << 16);
    setvbuf(o->err, NULL, _IONBF, 0);
    s->output = o;
    s->out = o->out;
    s->errout = o->err;
}

FILE *output_notes(const session *s) {
    return s->output ? s->output->err : s->errout;
}

static void log_close(exdb_output *o) {
    if (o->log)
        fclose(o->log);
    o->log = NULL;
    free(o->log_path);
    o->log_path = NULL;
}

void output_free(session *s) {
    exdb_output *o = s->output;
    if (!o)
        return;
    fflush(o->out);
    fclose(o->out);
    fclose(o->err);
    log_close(o);
    if (s->out == o->out)
        s->out = o->term;
    if (s->errout == o->err)
        s->errout = o->term_err;
    free(o->log_file);
    free(o);
    s->output = NULL;
}

void output_begin(session *s) {
    exdb_output *o = s->output;
    if (!o)
        return;
    o->rows = o->col = 0;
    o->no_more = o->discard = 0;
    o->page = s->height > 0 ? s->height : 0;
    o->cols = 0;
    struct winsize ws;
    if (isatty(fileno(o->term)) && ioctl(fileno(o->term), TIOCGWINSZ, &ws) == 0) {
        o->cols = ws.ws_col;
        if (s->height < 0)
            o->page = ws.ws_row;
    } else if (s->height < 0 || !isatty(fileno(o->term))) {
        o->page = 0; /* not a terminal: nobody to ask */
    }
}

int output_quit(const session *s) {
    return s->output && s->output->discard;
}

int output_isatty(const session *s) {
    const exdb_output *o = s->output;
    if (o && s->out == o->out)
        return !(o->log && o->redirecting) && isatty(fileno(o->term));
    return isatty(fileno(s->out));
}

/* ---- set logging */

/* "logging: on, copying to FILE (appending)" for show. */
void output_show_logging(const session *s, exdb_buf *b) {
    const exdb_output *o = s->output;
    const char *file = o && o->log_file ? o->log_file : "exdb.txt";
    if (o && o->log)
        exdb_buf_printf(b, "logging: on, %s to %s\n", o->redirecting ? "redirecting" : "copying",
                        o->log_path);
    else
        exdb_buf_printf(b, "logging: off (file %s, %s%s)\n", file,
                        o && o->overwrite ? "overwrite" : "append",
                        o && o->redirect ? ", redirect" : "");
}

static void logging_json(session *s) {
    const exdb_output *o = s->output;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "enabled", o->log != NULL);
    cJSON_AddStringToObject(j, "file", o->log_file ? o->log_file : "exdb.txt");
    cJSON_AddBoolToObject(j, "overwrite", o->overwrite);
    cJSON_AddBoolToObject(j, "redirect", o->redirect);
    cmd_json_add(s, "logging", j);
}

static int log_start(session *s, exdb_output *o, const char *file) {
    if (o->log)
        return cmd_fail(s, "Already logging to %s; \"set logging off\" first.", o->log_path);
    if (file) {
        char *f = strdup(file);
        if (!f)
            return cmd_fail(s, "out of memory");
        free(o->log_file);
        o->log_file = f;
    }
    const char *path = o->log_file ? o->log_file : "exdb.txt";
    char *copy = strdup(path);
    if (!copy)
        return cmd_fail(s, "out of memory");
    /* a regular file only, never through a symbolic link (outfile.h) */
    exdb_error err = {0};
    int fd = exdb_out_open_log(path, o->overwrite, &err);
    FILE *f = fd >= 0 ? fdopen(fd, o->overwrite ? "w" : "a") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        free(copy);
        return cmd_fail(s, "%s", fd >= 0 ? "out of memory" : err.msg);
    }
    setvbuf(f, NULL, _IONBF, 0); /* a write error shows at the write that failed */
    /* past ulimit -f a write fails with EFBIG (reported as any write error)
     * instead of SIGXFSZ ending exdb; nothing of exdb's wants that signal */
    signal(SIGXFSZ, SIG_IGN);
    /* said before the copy starts, as gdb: the log holds what follows */
    fprintf(s->out, "%s output to %s.\n", o->redirect ? "Redirecting" : "Copying", path);
    fflush(s->out);
    fflush(o->out);
    o->log = f;
    o->log_path = copy;
    o->redirecting = o->redirect;
    o->in_escape = 0;
    o->log_errno = 0;
    return 0;
}

static int log_stop(session *s, exdb_output *o) {
    if (!o->log) {
        if (o->log_errno) { /* stopped by a write error, said then */
            o->log_errno = 0;
            return cmd_fail(s, "Logging had stopped: the log could not be written.");
        }
        return cmd_fail(s, "Logging is off.");
    }
    fflush(o->out);
    if (!o->log) /* the flush's write failed: said, closed */
        return -1;
    char *path = o->log_path;
    FILE *f = o->log;
    o->log = NULL;
    o->log_path = NULL;
    int bad = ferror(f), e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        cmd_fail(s, "%s: cannot write: %s (the log is incomplete)", path, strerror(e ? e : EIO));
        free(path);
        return -1;
    }
    fprintf(s->out, "Done logging to %s.\n", path);
    free(path);
    return 0;
}

/* set logging on [FILE] | off | file FILE | overwrite on|off | redirect
 * on|off | enabled on|off, as gdb's (old and new spellings); argv[0] is
 * "logging". */
int output_set_logging(session *s, int argc, char **argv) {
    exdb_output *o = s->output;
    if (!o)
        return cmd_fail(s, "Logging needs exdb's own output streams.");
    static const char *const words[] = {"on",       "off",     "file", "overwrite",
                                        "redirect", "enabled", NULL};
    static const char *const onoff[] = {"on", "off", NULL};
    int w = argc > 1 ? cmd_pick(s, "set logging", argv[1], words) : -1;
    if (argc < 2)
        return cmd_fail(s, "Usage: set logging on [FILE] | off | file FILE | overwrite on|off | "
                           "redirect on|off");
    if (w < 0)
        return -1;
    int rc = 0, x = -1;
    if ((w == 0 || w == 1) && argc > 2 + (w == 0))
        return cmd_fail(s, "Usage: set logging %s", w == 0 ? "on [FILE]" : "off");
    if (w >= 2 && argc != 3)
        return cmd_fail(s, "Usage: set logging %s %s", words[w], w == 2 ? "FILE" : "on|off");
    if (w >= 3 && (x = cmd_pick(s, "set logging", argv[2], onoff)) < 0)
        return -1;
    if (w == 0 || (w == 5 && x == 0)) {
        rc = log_start(s, o, w == 0 && argc > 2 ? argv[2] : NULL);
    } else if (w == 1 || w == 5) {
        rc = log_stop(s, o);
    } else {
        if (w == 2) {
            char *f = strdup(argv[2]);
            if (!f)
                return cmd_fail(s, "out of memory");
            free(o->log_file);
            o->log_file = f;
        } else if (w == 3) {
            o->overwrite = x == 0;
        } else {
            o->redirect = x == 0;
        }
        if (o->log)
            fprintf(s->out,
                    "Currently logging to %s.  Turn the logging off and on to make the "
                    "new setting effective.\n",
                    o->log_path);
    }
    if (rc == 0)
        logging_json(s);
    return rc;
}

/* ---- pipe */

/* The command and the shell command of `pipe COMMAND | SHELL`, `| COMMAND
 * | SHELL` or `pipe -d DELIM COMMAND DELIM SHELL`, from the line as typed
 * (the shell gets its text untouched, as gdb's: the first DELIM splits).
 * Both malloc'd; -1 after an error. */
static int pipe_parts(session *s, char **cmd, char **shell) {
    const char *p = s->line ? s->line : "", *delim = "|";
    size_t dlen = 1;
    p += strspn(p, " \t");
    if (*p == '|')
        p++;
    else
        p += strcspn(p, " \t"); /* pipe, or a prefix or alias of it */
    p += strspn(p, " \t");
    if (strncmp(p, "-d", 2) == 0 && (p[2] == ' ' || p[2] == '\t')) {
        p += 2 + strspn(p + 2, " \t");
        delim = p;
        dlen = strcspn(p, " \t");
        p += dlen;
        if (!dlen)
            return cmd_fail(s, "pipe -d: a delimiter is missing.");
    }
    const char *at = NULL;
    for (const char *q = p; *q && !at; q++)
        if (strncmp(q, delim, dlen) == 0)
            at = q;
    if (!at)
        return cmd_fail(s, "Usage: pipe COMMAND | SHELL-COMMAND   (or pipe -d DELIM COMMAND DELIM "
                           "SHELL-COMMAND)");
    const char *c0 = p + strspn(p, " \t"), *c1 = at;
    while (c1 > c0 && (c1[-1] == ' ' || c1[-1] == '\t'))
        c1--;
    const char *sh = at + dlen;
    sh += strspn(sh, " \t");
    if (c1 == c0)
        return cmd_fail(s, "pipe: no command before \"%.*s\".", (int)dlen, delim);
    if (!*sh)
        return cmd_fail(s, "pipe: no shell command after \"%.*s\".", (int)dlen, delim);
    *cmd = strndup(c0, (size_t)(c1 - c0));
    *shell = strdup(sh);
    if (!*cmd || !*shell) {
        free(*cmd);
        free(*shell);
        return cmd_fail(s, "out of memory");
    }
    return 0;
}

/* Starts `sh -c shell` reading from a pipe, writing to outfd (-1: exdb's
 * own standard output); the write end as a stream, or NULL. */
static FILE *spawn_shell(const char *shell, int outfd, pid_t *pid) {
    int fds[2];
    if (pipe(fds) < 0)
        return NULL;
    fflush(stdout);
    *pid = fork();
    if (*pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (*pid == 0) {
        dup2(fds[0], 0);
        close(fds[0]);
        close(fds[1]);
        if (outfd >= 0)
            dup2(outfd, 1);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", shell, (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    FILE *w = fdopen(fds[1], "w");
    if (!w)
        close(fds[1]);
    return w;
}

/* What a child process wrote into tmp (pipe's shell, shell's command),
 * printed as the command's own output. */
void output_replay(session *s, FILE *tmp) {
    char chunk[4096];
    size_t n;
    rewind(tmp);
    while ((n = fread(chunk, 1, sizeof chunk, tmp)) > 0)
        fwrite(chunk, 1, n, s->out);
}

/* pipe COMMAND | SHELL-COMMAND: gdb's. COMMAND's output is the shell
 * command's input. The shell writes to exdb's standard output directly
 * (so `| less` pages at the terminal), unless exdb's output is being
 * copied or captured (set logging, JSON, display...): then what the shell
 * prints is read back and printed as the pipe's own output. */
int cmd_pipe(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    char *cmd = NULL, *shell = NULL;
    if (pipe_parts(s, &cmd, &shell) < 0)
        return -1;
    exdb_output *o = s->output;
    int direct = o && s->out == o->out && !o->log && !s->json;
    FILE *tmp = direct ? NULL : tmpfile();
    int rc = -1;
    pid_t pid = -1;
    fflush(s->out);
    FILE *w = direct || tmp ? spawn_shell(shell, tmp ? fileno(tmp) : -1, &pid) : NULL;
    if (!w) {
        cmd_fail(s, "pipe: cannot start the shell: %s", strerror(errno));
    } else {
        struct sigaction ign = {.sa_handler = SIG_IGN}, old;
        sigaction(SIGPIPE, &ign, &old); /* a shell that stops reading (head) ends nothing here */
        rc = session_run_to(s, cmd, w);
        fclose(w);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        sigaction(SIGPIPE, &old, NULL);
        if (tmp)
            output_replay(s, tmp);
        cmd_json_add(s, "shell_status",
                     cJSON_CreateNumber(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    }
    if (tmp)
        fclose(tmp);
    free(cmd);
    free(shell);
    return rc;
}
