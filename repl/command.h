/* command.h - what a command is, and the helpers commands share. A
 * subsystem (lint, unflatten, render...) defines its commands in its own
 * repl/cmd_*.c as a table `const command NAME_commands[]` with
 * `const size_t NAME_ncommands`, and commands.c lists the table. */
#ifndef EXDB_REPL_COMMAND_H
#define EXDB_REPL_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

struct exdb_unflatten;
struct exdb_uevent;
struct exdb_uframe;

enum {
    CMD_NEEDS_PROGRAM = 1, /* refused with "No program loaded." otherwise */
    CMD_REPEAT = 2,        /* an empty line at the prompt runs it again (stepping, list) */
    CMD_STOPS = 4,         /* moves the run: the auto-displays are shown after it */
    CMD_REPEAT_BARE = 8,   /* repeated by an empty line only when given no argument */
    /* runs on a program opened shape first (exdb_program_open) without
     * building its IR: it reads none of the program, or only its shape,
     * through exdb_program_shape_view (a build may run in the background);
     * every other command has the IR built first (session.c) */
    CMD_SHAPE = 16,
};

typedef int (*command_fn)(session *s, int argc, char **argv);

/* What completes a word at the prompt: a positional argument of a command
 * or subcommand, or an option's value (main.c offers the candidates). */
typedef enum {
    CMPL_DEFAULT, /* a subcommand: its command's; a command: node names */
    CMPL_NODE,    /* the flat graph's node names */
    CMPL_NONE,    /* nothing offered */
    CMPL_MODULE,  /* the module call graph's fqns */
    CMPL_OP,      /* call_function targets, without "torch.ops." */
    CMPL_FILE,    /* file names, as gdb completes them */
    CMPL_COMMAND, /* command names and the session's aliases */
    CMPL_SETTING, /* set/show: the settings, then a setting's values */
    CMPL_BREAK,   /* break locations: module, exit, op, event, node names */
    CMPL_DISPLAY, /* what display shows */
} cmd_completer;

/* One option of a command or subcommand, declared once: the parser
 * (cmd_opts_parse), help, completion and docs read the row. */
typedef enum {
    OPT_FLAG,  /* no value */
    OPT_VALUE, /* one word (values: the words completion offers) */
    OPT_COUNT, /* a whole number in [min, max] */
    OPT_FILE,  /* a file name */
} cmd_opt_kind;

typedef struct cmd_opt {
    const char *name;  /* "--layout" */
    const char *alias; /* another spelling ("--output" of -o), or NULL */
    cmd_opt_kind kind;
    const char *arg;           /* the value in usage lines: "dot|sfdp|auto", "N", "FILE" */
    const char *const *values; /* OPT_VALUE: the words completion offers, or NULL */
    long min, max;             /* OPT_COUNT: the range */
    const char *need;          /* what "NAME needs ..." says instead of the kind's own words */
    const char *help;          /* one line for help and docs */
} cmd_opt;

/* cmd_opts_parse's result: the value of each option given (by its index
 * in the list; "" for a flag, NULL when not given), its number for a
 * count, and the words that are no option, in order. */
enum { CMD_MAX_OPTS = 24 };
typedef struct cmd_parsed {
    const char *val[CMD_MAX_OPTS];
    long num[CMD_MAX_OPTS];
    char **rest;
    int nrest;
} cmd_parsed;

/* A subcommand word of a command ("info frame", "lint module"): a unique
 * prefix of it names it (the command sees the whole word), completion and
 * help offer it. fn (NULL when the command reads the word itself: lint,
 * dce...) runs it through command_run_subcommand, with argv[0] the word;
 * max_args words may follow it (-1: any); it needs a loaded program unless
 * no_program. */
typedef int (*subcommand_fn)(session *s, const char *word, int argc, char **argv);
typedef struct subcommand {
    const char *word;
    subcommand_fn fn;
    int max_args;
    int no_program;
    const cmd_opt *const *opts; /* its options (NULL-ended), or NULL */
    cmd_completer complete;     /* what its arguments are */
    const char *usage;          /* "info frame [N]": help, and the arity error */
    const char *help;           /* its help after the usage (lines: "\n"), or NULL */
    int kind;                   /* what fn does for this word, when one fn serves several
                                   (render: the exdb_view_kind it draws) */
    int shape;                  /* reads only the program's shape (CMD_SHAPE) */
} subcommand;

struct command {
    const char *name;
    int min_args, max_args; /* words after the name; -1 = no limit */
    int flags;
    const char *usage;            /* "print graph|tabular|node NAME..." */
    const char *summary;          /* one line for `help` */
    const char *help;             /* more lines for `help NAME`, or NULL */
    command_fn fn;                /* argv[0] is the command name; returns 0 or -1 */
    const subcommand *subs;       /* its subcommand words ({NULL} ends them), or NULL */
    const char *(*help_fn)(void); /* the help when it is built from a table (set) */
    const cmd_opt *const *opts;   /* options of every subcommand (NULL-ended), or NULL */
    cmd_completer complete;       /* what its arguments are (after a subcommand: the sub's) */
};

/* The options of argv[first..argc) against opts (NULL-ended), into *p:
 * "-o FILE", "--limit N"... in any order among the other words (left in
 * p->rest). One error text for all: "CMD: NAME needs a value|a file
 * name|a number >= MIN|<need>", and for a word starting with '-' that is
 * no option "CMD: unknown option "W" for WHAT.  Try "help CMD"." (WHAT:
 * the subcommand, or without it "CMD: unknown option "W".  Try ...").
 * Returns 0, or -1 after the error. */
int cmd_opts_parse(session *s, const char *cmd, const char *what, const cmd_opt *const *opts,
                   int argc, char **argv, int first, cmd_parsed *p);
/* The value of option o in *p (NULL when not given); a count's number. */
const char *cmd_opt_val(const cmd_parsed *p, const cmd_opt *const *opts, const cmd_opt *o);
long cmd_opt_num(const cmd_parsed *p, const cmd_opt *const *opts, const cmd_opt *o);

/* Prints a one-line error to the session's error stream; returns -1. */
int cmd_fail(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes s->buf to the output (adding a final newline when asked) and
 * empties it. A listing longer than `set max-lines` is cut there with a
 * "(N more lines ...)" line, unless the command was given --all. */
void cmd_flush(session *s, int newline);
/* A listing written as it is made (print code of a big graph), so its
 * text is never held whole: what cmd_flush(s, 0) writes for all of it,
 * given a piece at a time (max-lines, width; no check of deferred node
 * metadata, so only for text that reads none). begin takes what s->buf
 * holds first; put has exdb_code_write's form; end writes the rest. */
typedef struct cmd_stream {
    session *s;
    exdb_buf line;  /* the last line, not ended yet */
    exdb_buf held;  /* past max-lines: the text after the cut while one line */
    size_t lines;   /* lines written */
    size_t more;    /* lines past the cut */
    int limit, cut; /* max-lines applies; more than one line past it */
} cmd_stream;
void cmd_stream_begin(session *s, cmd_stream *st);
int cmd_stream_put(void *st, const char *t, size_t n);
/* -1 after saying the text is incomplete (out of memory). */
int cmd_stream_end(cmd_stream *st);
/* Index of the choice that word is or uniquely starts: -1 none, -2 several
 * (nothing printed). */
int cmd_pick_quiet(const char *word, const char *const *choices);
/* Index of the choice that word is (a unique prefix of); prints an error
 * and returns a negative number otherwise. */
int cmd_pick(session *s, const char *what, const char *word, const char *const *choices);
/* "No node "x" in the graph. Did you mean "y"?" */
int cmd_node_not_found(session *s, const char *name);
/* "s" after a count other than 1: "%u node%s", n, cmd_s(n). */
static inline const char *cmd_s(uint64_t n) {
    return n == 1 ? "" : "s";
}
/* A count argument: 0 with *n set, or -1 after printing an error. */
int cmd_parse_count(session *s, const char *word, uint32_t *n);

/* Terminal colours, "" when colour is off (not a terminal, NO_COLOR, JSON). */
typedef enum { C_RESET, C_BOLD, C_DIM, C_RED, C_GREEN, C_YELLOW, C_BLUE, C_CYAN } cmd_color_t;
const char *cmd_color(const session *s, cmd_color_t c);

/* JSON mode: adds key = val to the running command's answer (takes val). */
void cmd_json_add(session *s, const char *key, struct cJSON *val);

/* Every command file's own header: a command file includes this one. */
#include "cmd_alias.h"
#include "cmd_break.h"
#include "cmd_break_check.h"
#include "cmd_diff.h"
#include "cmd_display.h"
#include "cmd_explain.h"
#include "cmd_find.h"
#include "cmd_frames.h"
#include "cmd_lint.h"
#include "cmd_list.h"
#include "cmd_modules.h"
#include "cmd_output.h"
#include "cmd_source.h"
#include "cmd_unflatten.h"

extern const command program_commands[];
extern const size_t program_ncommands;

#endif
