/* main.c - the exdb program: options, the interactive prompt (libedit:
 * history in ~/.exdb_history, tab completion) and batch mode. Everything a
 * command does goes through session_exec, so a script, -ex, stdin and the
 * prompt give the same output. */
#include <editline/readline.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

#define EXDB_VERSION "0.1.0"

static session S;

static void usage(FILE *f) {
    fputs(
        "Usage: exdb [OPTIONS] [FILE [MODEL]]\n"
        "A debugger for torch.export programs (.pt2 archives, legacy export zips, program JSON).\n"
        "\n"
        "  -ex CMD     run CMD after loading FILE (repeatable; runs in order with -x)\n"
        "  -x SCRIPT   run the commands in SCRIPT\n"
        "  -batch      exit after the commands; status 1 at the first failing command\n"
        "  -q          no banner\n"
        "  --help      this text;  --version  the version\n"
        "\n"
        "Without -batch, exdb opens a prompt when standard input is a terminal, and\n"
        "otherwise reads commands from standard input. Type \"help\" at the prompt.\n",
        f);
}

/* ---- completion: command names first, then node names and files */

static char *complete_command(const char *text, int state) {
    static int i;
    static size_t len;
    if (!state) {
        i = 0;
        len = strlen(text);
    }
    const char *name;
    while ((name = command_name_at(i++)))
        if (strncmp(name, text, len) == 0)
            return strdup(name);
    return NULL;
}

static char *complete_word(const char *text, int state) {
    static const char *const words[] = {
        "graph",          "tabular",  "node", "program", "signature", "module-call-graph", "facts",
        "trace-commands", "on-error", "on",   "off",     "stop",      "continue",          NULL};
    static int i;
    static const exdb_node *n;
    static size_t len;
    if (!state) {
        i = 0;
        len = strlen(text);
        n = S.prog ? S.prog->graph->head : NULL;
    }
    while (words[i]) {
        const char *w = words[i++];
        if (strncmp(w, text, len) == 0)
            return strdup(w);
    }
    while (n) {
        const exdb_node *c = n;
        n = n->next;
        if (strncmp(c->name, text, len) == 0)
            return strdup(c->name);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end) {
    (void)end;
    int first = 1;
    for (int i = 0; i < start; i++)
        if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t')
            first = 0;
    if (first)
        return rl_completion_matches(text, complete_command);
    if (strncmp(rl_line_buffer, "load", 4) == 0 || strncmp(rl_line_buffer, "source", 6) == 0)
        return NULL; /* libedit's file name completion */
    return rl_completion_matches(text, complete_word);
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

static int run_prompt(void) {
    char *hist = history_path();
    using_history();
    stifle_history(1000);
    if (hist)
        read_history(hist);
    rl_attempted_completion_function = complete;
    char *line;
    while (!S.quit_requested && (line = readline("(exdb) ")) != NULL) {
        const char *t = line;
        while (*t == ' ')
            t++;
        if (*t) {
            add_history(line);
            /* Rewritten after every command so a killed session keeps it
             * (libedit's append_history duplicates entries). */
            if (hist)
                write_history(hist);
        }
        session_exec(&S, line);
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
    int rc = 0;
    while (!S.quit_requested && getline(&line, &cap, stdin) != -1) {
        if (S.trace_commands && line[0] != '\n' && line[0] != '#')
            fprintf(S.out, "+%s", line);
        if (session_exec(&S, line) < 0) {
            rc = 1;
            if (!S.on_error_continue)
                break;
        }
    }
    free(line);
    return rc;
}

int main(int argc, char **argv) {
    const char *file = NULL, *model = NULL;
    int batch = 0, quiet = 0;
    /* -ex and -x, in order */
    const char **cmds = calloc((size_t)argc + 1, sizeof *cmds);
    int *is_script = calloc((size_t)argc + 1, sizeof *is_script);
    int ncmds = 0;
    if (!cmds || !is_script)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-ex") || !strcmp(a, "--ex") || !strcmp(a, "-x") || !strcmp(a, "--x"))) {
            if (i + 1 >= argc) {
                fprintf(stderr, "exdb: option %s needs an argument\n", a);
                return 2;
            }
            is_script[ncmds] = a[strlen(a) - 1] == 'x' && a[strlen(a) - 2] == '-';
            cmds[ncmds++] = argv[++i];
        } else if (!strcmp(a, "-batch") || !strcmp(a, "--batch")) {
            batch = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "-quiet") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("exdb %s\n", EXDB_VERSION);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "exdb: unknown option %s (try --help)\n", a);
            return 2;
        } else if (!file) {
            file = a;
        } else if (!model) {
            model = a;
        } else {
            fprintf(stderr, "exdb: too many arguments (try --help)\n");
            return 2;
        }
    }
    session_init(&S);
    int interactive = !batch && isatty(0);
    S.interactive = interactive;
    int rc = 0;
    if (interactive && !quiet)
        printf("exdb %s, a debugger for torch.export programs. Type \"help\".\n", EXDB_VERSION);
    if (file) {
        char *line = NULL;
        size_t n = strlen(file) + (model ? strlen(model) : 0) + 16;
        line = malloc(n);
        /* quote the path so spaces survive the command splitter */
        if (line) {
            snprintf(line, n, "load '%s'%s%s%s", file, model ? " '" : "", model ? model : "",
                     model ? "'" : "");
            if (strchr(file, '\'') || (model && strchr(model, '\''))) {
                /* rare: fall back to the API directly */
                exdb_error err = {0};
                S.prog = exdb_program_load(file, model, &err);
                if (!S.prog) {
                    fprintf(stderr, "%s\n", err.msg);
                    rc = 1;
                }
            } else if (session_exec(&S, line) < 0) {
                rc = 1;
            }
        }
        free(line);
        if (rc && (batch || !interactive)) {
            session_free(&S);
            free(cmds);
            free(is_script);
            return 1;
        }
    }
    for (int i = 0; i < ncmds && !S.quit_requested; i++) {
        int r = is_script[i] ? session_source(&S, cmds[i]) : session_exec(&S, cmds[i]);
        if (r < 0) {
            rc = 1;
            if (!S.on_error_continue)
                break;
        }
    }
    if (!batch && !S.quit_requested && (rc == 0 || interactive)) {
        if (interactive)
            rc = run_prompt();
        else if (ncmds == 0)
            rc = run_stdin();
    }
    session_free(&S);
    free(cmds);
    free(is_script);
    return rc;
}
