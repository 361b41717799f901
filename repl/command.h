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
};

typedef int (*command_fn)(session *s, int argc, char **argv);

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
};

/* Prints a one-line error to the session's error stream; returns -1. */
int cmd_fail(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes s->buf to the output (adding a final newline when asked) and
 * empties it. A listing longer than `set max-lines` is cut there with a
 * "(N more lines ...)" line, unless the command was given --all. */
void cmd_flush(session *s, int newline);
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
