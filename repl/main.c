/* main.c - the exdb program: options, the interactive prompt (libedit:
 * history in ~/.exdb_history, tab completion) and batch mode. Everything a
 * command does goes through session_exec, so a script, -ex, stdin and the
 * prompt give the same output. */
#include <editline/readline.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "complete.h"
#include "complete_list.h"
#include "core/base/version.h"
#include "core/export/cache.h"
#include "core/export/program.h"
#include "session.h"
#include "commands.h"
#include "settings.h"

static session S;

/* Under LeakSanitizer (make test), the suppressed leaks of libgvc and
 * fontconfig (tests/lsan.supp) would end every transcript that renders
 * with a "Suppressions used" table; a real leak is still reported. A
 * no-op in builds without the sanitizer. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
    return "print_suppressions=0";
}

static void usage(FILE *f) {
    fputs(
        "Usage: exdb [OPTIONS] [FILE [MODEL]]\n"
        "A debugger for torch.export programs (.pt2 archives, legacy export zips, program JSON).\n"
        "\n"
        "  -ex CMD     run CMD after loading FILE (repeatable; runs in order with -x)\n"
        "  -x SCRIPT   run the commands in SCRIPT\n"
        "  -batch      exit after the commands; status 1 at the first failing command\n"
        "  -q          no banner\n"
        "  --json      every command answers one JSON object per line (set output json)\n"
        "  --echo      print \"(exdb) CMD\" before each command read (a transcript)\n"
        "  --no-cache  neither read nor write the reopen cache (also EXDB_CACHE=0)\n"
        "  --help      this text;  --version  the version\n"
        "\n"
        "Without -batch, exdb opens a prompt when standard input is a terminal, and\n"
        "otherwise reads commands from standard input. Type \"help\" at the prompt.\n",
        f);
}

/* ---- completion: commands, then what the command table says the command
 * takes (complete.c: subcommands, options, settings, node names, module
 * fqns, op names, files) */

static char **cands; /* what the word being completed may become */
static size_t ncands, cands_cap;

/* complete_args's callback: keeps w (static or the session's). */
static void cand_add(void *ctx, const char *w) {
    (void)ctx;
    if (ncands == cands_cap) {
        size_t ncap = cands_cap ? cands_cap * 2 : 64;
        char **nc = realloc(cands, ncap * sizeof *nc);
        if (!nc)
            return;
        cands = nc;
        cands_cap = ncap;
    }
    cands[ncands++] = (char *)w;
}

static char *cand_next(const char *text, int state) {
    static size_t i, len;
    if (!state) {
        i = 0;
        len = strlen(text);
    }
    while (i < ncands) {
        const char *w = cands[i++];
        if (strncmp(w, text, len) == 0)
            return strdup(w);
    }
    return NULL;
}

/* Command names, then the session's aliases. */
static char *complete_command(const char *text, int state) {
    static int i;
    static size_t len, a;
    if (!state) {
        i = 0;
        a = 0;
        len = strlen(text);
    }
    const char *name;
    while ((name = command_name_at(i)) && ++i)
        if (strncmp(name, text, len) == 0)
            return strdup(name);
    while ((name = session_alias_at(&S, a++, NULL)))
        if (strncmp(name, text, len) == 0)
            return strdup(name);
    return NULL;
}

/* File names, as gdb completes them: a directory that is the only match
 * ends in '/' with no space after it, so the next Tab goes on inside it
 * (libedit's rl_complete always appends rl_completion_append_character). */
static char **complete_file(const char *text) {
    char **m = rl_completion_matches(text, rl_filename_completion_function);
    /* one match: libedit gives it as m[0] and m[1] (GNU readline as m[0]) */
    if (!m || !m[0] || (m[1] && m[2]))
        return m;
    const char *name = m[0];
    char *home = NULL;
    if (name[0] == '~' && (name[1] == '/' || !name[1]) && getenv("HOME")) {
        size_t n = strlen(getenv("HOME")) + strlen(name);
        if ((home = malloc(n)))
            snprintf(home, n, "%s%s", getenv("HOME"), name + 1);
    }
    struct stat st;
    size_t len = strlen(name);
    if (stat(home ? home : name, &st) == 0 && S_ISDIR(st.st_mode) && len && name[len - 1] != '/') {
        for (int i = 0; i < 2 && m[i]; i++) {
            char *d = realloc(m[i], strlen(m[i]) + 2);
            if (!d)
                break;
            strcat(d, "/");
            m[i] = d;
        }
        rl_completion_append_character = '\0';
    }
    free(home);
    return m;
}

/* The matches of the word being completed: the command names for the
 * first word, else what complete_args offers for the command typed (an
 * alias expanded). */
static char **complete_matches(const char *text, int start) {
    char line[1024];
    size_t n = (size_t)start < sizeof line - 1 ? (size_t)start : sizeof line - 1;
    memcpy(line, rl_line_buffer, n);
    line[n] = '\0';
    char *expanded = session_expand_alias(&S, line); /* "pm " completes as "print module " */
    if (expanded) {
        snprintf(line, sizeof line, "%s", expanded);
        free(expanded);
    }
    char *w[8];
    int nw = 0;
    for (char *t = strtok(line, " \t"); t && nw < 8; t = strtok(NULL, " \t"))
        w[nw++] = t;
    rl_attempted_completion_over = 1; /* no file names unless asked for below */
    rl_completion_append_character = ' ';
    if (nw == 0)
        return rl_completion_matches(text, complete_command);
    ncands = 0;
    if (complete_args(&S, w, nw, cand_add, NULL)) /* what the command table says (complete.c) */
        return complete_file(text);
    return rl_completion_matches(text, cand_next);
}

/* Whether the list of `n` matches is to be shown: asked first when there
 * are more than rl_completion_query_items, as libedit and readline ask. */
static int list_wanted(size_t n) {
    if (rl_completion_query_items <= 0 || n <= (size_t)rl_completion_query_items)
        return 1;
    fprintf(rl_outstream, "\nDisplay all %zu possibilities? (y or n) ", n);
    fflush(rl_outstream);
    for (;;) { /* libedit's rl_read_key returns el_getc's count, not the key */
        unsigned char c;
        if (read(fileno(rl_instream ? rl_instream : stdin), &c, 1) != 1)
            return 0;
        if (c == 'y' || c == 'Y' || c == ' ')
            return 1;
        if (c == 'n' || c == 'N' || c == 0x7f || c == 3 || c == 7)
            return 0;
    }
}

/* A second Tab lists the matches: exdb prints them itself in natural
 * order (convolution_2 before convolution_10; libedit's own listing sorts
 * them with strcmp), after putting their common prefix in the line, and
 * gives libedit no matches, so it only redraws the line. m[0] is the
 * common prefix, m[1..] the matches (one match: m[1] is m[0]). */
static char **list_natural(const char *text, char **m) {
    if (rl_completion_type != '?' || !m || !m[0] || !m[1] || !m[2])
        return m;
    size_t n = 0;
    while (m[n + 1])
        n++;
    size_t typed = strlen(text);
    if (strlen(m[0]) > typed && strncmp(m[0], text, typed) == 0)
        rl_insert_text(m[0] + typed);
    if (list_wanted(n)) {
        int rows = 0, cols = 0;
        rl_get_screen_size(&rows, &cols);
        fputc('\n', rl_outstream);
        complete_list_show(rl_outstream, m + 1, n, cols > 0 ? cols : 80);
    } else {
        fputc('\n', rl_outstream);
    }
    for (size_t i = 0; m[i]; i++)
        free(m[i]);
    free(m);
    rl_forced_update_display();
    return NULL;
}

/* readline's attempted completion (see complete_matches, list_natural). */
static char **complete(const char *text, int start, int end) {
    (void)end;
    return list_natural(text, complete_matches(text, start));
}

static char *history_path(void) {
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + 32;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.exdb_history", home);
    return p;
}

/* The reopen cache's folder (core/export/cache.h): $XDG_CACHE_HOME/exdb,
 * else $HOME/.cache/exdb (absolute paths only, as the XDG base directory
 * specification asks); none with --no-cache or EXDB_CACHE=0, nor when the
 * path is too long (cut short, it would name another folder). */
static void cache_setup(int off) {
    const char *env = getenv("EXDB_CACHE");
    if (off || (env && strcmp(env, "0") == 0))
        return;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096];
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(dir, sizeof dir, "%s/exdb", xdg);
    else if (home && home[0] == '/')
        n = snprintf(dir, sizeof dir, "%s/.cache/exdb", home);
    else
        return;
    if (n > 0 && (size_t)n < sizeof dir)
        exdb_cache_use(dir);
    /* the IR entry written by a process of its own (EXDB_CACHE_SYNC=1: by
     * the build, before it returns) */
    const char *sync = getenv("EXDB_CACHE_SYNC");
    exdb_cache_ir_async(!(sync && strcmp(sync, "1") == 0));
}

static void on_sigint(int sig) {
    (void)sig;
    exdb_interrupted = 1;
}

/* Ctrl-C sets a flag that long stepping commands poll (session.h); it does
 * not kill exdb. At the prompt the handler has no SA_RESTART, so readline
 * returns and run_prompt cancels the line. Commands from a pipe or a file
 * are read with SA_RESTART: there an interrupted read would look like the
 * end of the input (getline returns -1, or half a line), and a SIGINT must
 * only stop the command it lands in, the session going on. */
static void catch_sigint(int restart) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

/* `commands N` at the prompt: its lines are asked for with ">", as gdb. */
static char *prompt_read_line(session *s, const char *prompt) {
    (void)s;
    exdb_interrupted = 0;
    return readline(prompt);
}

/* `commands N` on standard input: the next lines. */
static char *stdin_read_line(session *s, const char *prompt) {
    (void)prompt;
    char *line = NULL;
    size_t cap = 0;
    char rerr[512];
    long got =
        session_getline(&line, &cap, stdin, "<stdin>", *(int *)s->read_ctx, rerr, sizeof rerr);
    if (got < 0) { /* the end of the input, or a read error said here */
        if (got == -2)
            fprintf(s->errout, "%s\n", rerr);
        free(line);
        return NULL;
    }
    ++*(int *)s->read_ctx;
    return line;
}

static int run_prompt(void) {
    char *hist = history_path();
    using_history();
    stifle_history(1000);
    if (hist)
        read_history(hist);
    rl_attempted_completion_function = complete;
    S.read_line = prompt_read_line;
    char *line;
    while (!S.quit_requested) {
        exdb_interrupted = 0;
        if (!(line = readline("(exdb) "))) {
            if (!exdb_interrupted)
                break; /* Ctrl-D */
            /* Ctrl-C: the read was interrupted (the handler has no
             * SA_RESTART). As gdb does, cancel the line and prompt again:
             * breakpoints, the position and the displays stay. */
            fputs("\nQuit\n", stdout);
            fflush(stdout);
            continue;
        }
        const char *t = line;
        while (*t == ' ' || *t == '\t')
            t++;
        exdb_interrupted = 0; /* a Ctrl-C at the prompt does not stop the next command */
        if (*t) {
            add_history(line);
            /* Rewritten after every command so a killed session keeps it
             * (libedit's append_history duplicates entries). */
            if (hist)
                write_history(hist);
            session_exec(&S, line);
        } else if (S.repeat) {
            /* gdb: an empty line repeats the last stepping command */
            char *again = strdup(S.repeat);
            if (again)
                session_exec(&S, again);
            free(again);
        }
        free(line);
    }
    if (!S.quit_requested)
        fputc('\n', stdout);
    free(hist);
    return 0;
}

/* Commands from a pipe: like a script, status 1 at the first failure. */
static int run_stdin(void) {
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, lineno = 0;
    S.read_line = stdin_read_line;
    S.read_ctx = &lineno;
    long got;
    char rerr[512];
    while (!S.quit_requested && (got = session_getline(&line, &cap, stdin, "<stdin>", lineno, rerr,
                                                       sizeof rerr)) != -1) {
        if (got == -2) { /* a read error is an error, not the end of the input */
            fprintf(S.errout, "%s\n", rerr);
            rc = 1;
            break;
        }
        exdb_interrupted = 0; /* a SIGINT between commands stops none */
        session_echo(&S, line);
        if (S.trace_commands && line[0] != '\n' && line[0] != '#')
            fprintf(S.out, "+%s", line);
        lineno++;
        int r = session_exec(&S, line);
        /* the program on the other end of the pipe may wait for this
         * answer before it sends the next command ("echo" and the trace
         * line write to the stream without flushing it) */
        fflush(S.out);
        if (r < 0) {
            rc = 1;
            if (!S.on_error_continue) {
                session_json_stopped(&S, "<stdin>", lineno, line, -1);
                break;
            }
        }
    }
    free(line);
    return rc;
}

/* The command line. */
typedef struct options {
    const char *file, *model;
    int batch, quiet, json, echo, no_cache;
    const char **cmds; /* -ex and -x, in order */
    int *is_script;    /* cmds[i] is a -x script */
    int ncmds;
} options;

/* Reads the options into *o. -1 to go on, else the exit status (--help,
 * --version: 0; a bad option: 2). */
static int parse_options(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-ex") || !strcmp(a, "--ex") || !strcmp(a, "-x") || !strcmp(a, "--x"))) {
            if (i + 1 >= argc) {
                fprintf(stderr, "exdb: option %s needs an argument\n", a);
                return 2;
            }
            o->is_script[o->ncmds] = a[strlen(a) - 1] == 'x' && a[strlen(a) - 2] == '-';
            o->cmds[o->ncmds++] = argv[++i];
        } else if (!strcmp(a, "-batch") || !strcmp(a, "--batch")) {
            o->batch = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "-quiet") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--json") || !strcmp(a, "-json")) {
            o->json = 1;
        } else if (!strcmp(a, "--echo") || !strcmp(a, "-echo")) {
            o->echo = 1;
        } else if (!strcmp(a, "--no-cache")) {
            o->no_cache = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("exdb %s\n", exdb_version());
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "exdb: unknown option %s (try --help)\n", a);
            return 2;
        } else if (!o->file) {
            o->file = a;
        } else if (!o->model) {
            o->model = a;
        } else {
            fprintf(stderr, "exdb: too many arguments (try --help)\n");
            return 2;
        }
    }
    return -1;
}

/* Loads FILE [MODEL] as the command `load 'FILE' 'MODEL'` would. 1 when it
 * failed. */
static int load_file(const options *o) {
    int rc = 0;
    size_t n = strlen(o->file) + (o->model ? strlen(o->model) : 0) + 16;
    char *line = malloc(n);
    /* quote the path so spaces survive the command splitter */
    if (line) {
        snprintf(line, n, "load '%s'%s%s%s", o->file, o->model ? " '" : "",
                 o->model ? o->model : "", o->model ? "'" : "");
        if (strchr(o->file, '\'') || (o->model && strchr(o->model, '\''))) {
            /* rare: fall back to the API directly */
            exdb_error err = {0};
            S.prog = exdb_program_load(o->file, o->model, &err);
            if (!S.prog) {
                fprintf(stderr, "%s\n", err.msg);
                rc = 1;
            }
        } else {
            /* a first -ex command that needs the IR would build it at once:
             * the shape read would be thrown away (docs/json-reader.md); a
             * batch session of no command is the load's verdict alone */
            int whole = (o->batch && o->ncmds == 0) || (o->ncmds > 0 && !o->is_script[0] &&
                                                        !session_line_on_shape(&S, o->cmds[0]));
            /* but a file with an IR entry in the reopen cache: opened from
             * the cache, the command builds the graph from the entry */
            if (whole && o->ncmds > 0 && exdb_cache_ir_present(o->file, o->model))
                whole = 0;
            uint32_t was = whole ? exdb_program_shape_first(UINT32_MAX) : 0;
            if (session_exec(&S, line) < 0)
                rc = 1;
            if (whole)
                exdb_program_shape_first(was);
        }
    }
    free(line);
    return rc;
}

/* The -ex list as the lines an if/while/commands body reads (up to the
 * next -x script or the end of the list: never standard input). */
typedef struct ex_reader {
    const options *o;
    int *i;
} ex_reader;

static char *ex_read_line(session *s, const char *prompt) {
    (void)prompt;
    ex_reader *r = s->read_ctx;
    if (*r->i + 1 >= r->o->ncmds || r->o->is_script[*r->i + 1])
        return NULL;
    ++*r->i;
    session_echo(s, r->o->cmds[*r->i]);
    if (s->trace_commands && !s->json)
        fprintf(s->out, "+%s\n", r->o->cmds[*r->i]);
    return strdup(r->o->cmds[*r->i]);
}

/* Runs the -ex commands and -x scripts in order. 1 when one failed. */
static int run_commands(const options *o) {
    int rc = 0, i;
    ex_reader reader = {o, &i};
    for (i = 0; i < o->ncmds && !S.quit_requested; i++) {
        S.read_line = o->is_script[i] ? NULL : ex_read_line;
        S.read_ctx = &reader;
        if (!o->is_script[i])
            session_echo(&S, o->cmds[i]);
        int r = o->is_script[i] ? session_source(&S, o->cmds[i]) : session_exec(&S, o->cmds[i]);
        if (r < 0) {
            rc = 1;
            if (!S.on_error_continue) {
                /* a -x script has said where it stopped; the -ex list says it
                 * here (line: which -ex/-x option, counted from 1) */
                if (!o->is_script[i])
                    session_json_stopped(&S, "-ex", i + 1, o->cmds[i], o->ncmds - i - 1);
                break;
            }
        }
    }
    S.read_line = NULL;
    S.read_ctx = NULL;
    return rc;
}

int main(int argc, char **argv) {
    /* Buffers of 1 MB and more (listings, DOT text, save's output) are
     * mapped and given back when freed. glibc's default raises its
     * threshold to the largest buffer freed, after which big buffers come
     * from the heap and stay in the process for the session (issue 22:
     * a session's bytes per input byte). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    if (argc > 1 && strcmp(argv[1], "diff") == 0) /* exdb diff A B (cmd_diff.c) */
        return cmd_diff_main(argc - 1, argv + 1);
    options o = {0};
    o.cmds = calloc((size_t)argc + 1, sizeof *o.cmds);
    o.is_script = calloc((size_t)argc + 1, sizeof *o.is_script);
    int rc = !o.cmds || !o.is_script ? 2 : parse_options(argc, argv, &o);
    if (rc >= 0)
        goto out;
    session_init(&S);
    cache_setup(o.no_cache);
    int interactive = !o.batch && isatty(0);
    S.interactive = interactive;
    S.json = o.json;
    S.echo = o.echo;
    catch_sigint(!interactive);
    rc = 0;
    if (interactive && !o.quiet && !o.json)
        printf("exdb %s, a debugger for torch.export programs. Type \"help\".\n", exdb_version());
    if (o.file && load_file(&o)) {
        rc = 1;
        if (o.batch || !interactive)
            goto done;
    }
    if (run_commands(&o))
        rc = 1;
    if (!o.batch && !S.quit_requested && (rc == 0 || interactive)) {
        if (interactive)
            rc = run_prompt();
        else if (o.ncmds == 0)
            rc = run_stdin();
    }
done:
    session_free(&S);
out:
    free(o.cmds);
    free(o.is_script);
    return rc;
}
