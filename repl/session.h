/* session.h - one exdb session: the loaded program, settings, and the
 * command interpreter shared by the interactive prompt, -ex, -x scripts and
 * commands piped on stdin (the same program, the same output, as jq). */
#ifndef EXDB_REPL_SESSION_H
#define EXDB_REPL_SESSION_H

#include <signal.h>
#include <stdio.h>

#include "core/export/program.h"
#include "core/base/strbuf.h"
#include "viz/render.h"

struct exdb_unflatten;
struct exdb_bptable;
struct cJSON;

/* Set by the SIGINT handler of the prompt (main.c); long stepping commands
 * (continue, run, next, finish, reverse-continue) poll it between events and
 * stop there. Defined in commands.c so the library links without main.c. */
extern volatile sig_atomic_t exdb_interrupted;

/* The last dce, for undo (cmd_lint.c): of the flat graph (one log), or of
 * module graphs (one log per graph of the module tree it edited), tied to
 * the program it ran on and, for module graphs, to the unflatten run whose
 * arena holds them (by serial: a rebuilt run has a new one, and the old
 * graphs are gone). */
struct session_dce_undo {
    const exdb_program *prog; /* NULL: nothing to undo */
    uint64_t serial;          /* module dce: the run it edited; 0 for the flat graph */
    struct exdb_dce_log *logs;
    uint32_t nlogs;
    uint32_t removed;
};

typedef struct session session;
struct session {
    exdb_program *prog;
    struct exdb_unflatten *run;   /* the unflatten run of prog, NULL until needed */
    struct session_dce_undo undo; /* the last dce (cmd_lint.c) */
    exdb_viz_settings render;     /* set layout|render-limit|render-dup-fanout|render-dup-span */
    FILE *out, *errout;
    int interactive;    /* reading from a terminal */
    int trace_commands; /* echo script commands ("set trace-commands on") */
    int echo;           /* --echo: "(exdb) LINE" before each command read (session_echo) */
    int on_error_continue;
    int quit_requested;
    int source_depth;
    exdb_buf buf;   /* scratch output */
    int output_oom; /* cmd_flush found buf cut short by a failed allocation */

    /* output */
    int json;           /* "set output json" / --json: one JSON object per command */
    int color;          /* "set color": -1 auto (a terminal without NO_COLOR), 0 off, 1 on */
    int color_now;      /* resolved for the command being run */
    int max_lines;      /* listings longer than this are cut with "(N more lines)"; 0 = all */
    int width;          /* "set width": listing lines cut at this many columns; 0 = never */
    int listsize;       /* lines `list` shows */
    int show_all;       /* the running command was given --all: never cut */
    int timing;         /* "set timing": 2 on (every command), 1 render (the default), 0 off */
    struct cJSON *data; /* JSON mode: the running command's structured answer, or NULL */
    FILE *json_sink;    /* JSON mode: where the answers go while commands' text is captured */
    int capture_depth;  /* commands being captured (source nests them) */

    /* stepping */
    struct exdb_bptable *bps;       /* breakpoints and watchpoints (breakpoint.h) */
    unsigned selected_frame;        /* `frame N`, `up`, `down`: a backtrace level */
    long list_next;                 /* flat node index a repeated `list` continues from, -1 none */
    int last_was_list;              /* the previous command was `list` */
    int list_decisions;             /* ... and it listed later-phase decisions, not flat nodes */
    char *repeat;                   /* what an empty line at the prompt runs again, or NULL */
    char *last_error;               /* the last failing command's message (JSON mode), or NULL */
    struct exdb_displays *displays; /* `display` expressions (cmd_display.c) */

    /* gdb habits */
    const char *line;             /* the command line being run (aliases expanded), as typed */
    int in_bp_commands;           /* running a breakpoint's commands (session_exec) */
    int control_depth;            /* running an if/while body (cmd_control.c) */
    int last_flags;               /* the flags of the last command run */
    struct exdb_aliases *aliases; /* `alias NAME = COMMAND` (cmd_alias.c) */
    /* Where a command's further lines come from (`commands N` ... `end`):
     * the script being sourced, standard input or the prompt; NULL when
     * there is none (-ex). Returns the next line (malloc'd; free it), or
     * NULL at the end of the input. */
    char *(*read_line)(struct session *s, const char *prompt);
    void *read_ctx;

    /* where output goes (cmd_output.c): the pager and `set logging` */
    struct exdb_output *output; /* the streams s->out and s->errout are at the top level */
    int pagination;             /* "set pagination": page at a terminal (default on) */
    int height;                 /* "set height": rows of a page; -1 the terminal's, 0 never */

    struct exdb_source_paths *source_paths; /* `set substitute-path` rules (cmd_source.c) */
    char *diff_file; /* the program the last `diff FILE` compared with (render diff) */
};

void session_init(session *s);
void session_free(session *s);
/* Runs one command line. Returns 0 on success, -1 when the command failed
 * (its one-line error is already printed). Blank lines and # comments succeed. */
int session_exec(session *s, const char *line);
/* Builds the IR of a program opened shape first (exdb_program_build):
 * 0, or -1 after the load's one-line error, the program then dropped (as a
 * load that failed: "No program loaded."), or after "out of memory" (kept:
 * the next command tries again). */
int session_build(session *s);
/* Whether command line `line` (a user alias expanded) runs on a program's
 * shape alone (command_on_shape); 0 for a line that names no command. */
int session_line_on_shape(session *s, const char *line);
/* --echo: writes "(exdb) LINE" to standard output before a command read
 * from -ex, a script, standard input or a body (if, while, commands, a
 * breakpoint's commands), so a transcript shows each command above its
 * answer (the golden tests); blank and comment lines are not echoed. Not
 * in the JSON answer's "output". */
void session_echo(session *s, const char *line);
/* Runs every line of a script file; stops at the first failure unless
 * on-error is continue. */
int session_source(session *s, const char *path);
/* A command line from a script or a pipe: its length, -1 at the end of the
 * input, -2 with a one-line message in err (a read error, a NUL byte, a line
 * over SESSION_MAX_LINE bytes). */
enum { SESSION_MAX_LINE = 16 << 20 };
long session_getline(char **line, size_t *cap, FILE *f, const char *name, int lineno, char *err,
                     size_t errlen);

/* JSON mode: one object saying that a script (or the -ex list, or the
 * commands on stdin) stops at its first failing command, so a tool sees why
 * the rest did not run: {"stopped": "on-error", "script", "line", "command",
 * "error", ["remaining"]}. remaining < 0: unknown (stdin). */
void session_json_stopped(session *s, const char *script, int line, const char *cmdline,
                          int remaining);

/* Runs one command line with its output captured (not echoed, not
 * remembered for repeating): *out gets the text, or the error message when
 * it fails (free both). With data != NULL the command runs in JSON mode and
 * *data gets its structured answer (or NULL). Returns 0 or -1. */
int session_capture(session *s, const char *line, char **out, struct cJSON **data);

/* line with its first word replaced by its user alias's text (malloc'd),
 * or NULL when that word is no alias (cmd_alias.h has the aliases). */
char *session_expand_alias(const session *s, const char *line);

/* Runs one command line with its output going to out (pipe). */
int session_run_to(session *s, const char *line, FILE *out);

/* Command table access for help and completion. */
typedef struct command command;
/* The command a line would run (a user alias expanded), NULL when none
 * (*ambiguous set when the word is an ambiguous prefix): for lines kept
 * to run later, as a breakpoint's commands. */
const command *session_line_command(session *s, const char *line, int *ambiguous);

#endif
