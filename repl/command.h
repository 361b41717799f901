/* command.h - what a command is, and the helpers commands share. A
 * subsystem (lint, unflatten, render...) defines its commands in its own
 * repl/cmd_*.c as a table `const command NAME_commands[]` with
 * `const size_t NAME_ncommands`, and commands.c lists the table. */
#ifndef EXDB_COMMAND_H
#define EXDB_COMMAND_H

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

/* c's help text (help_fn's or help), or NULL. */
const char *command_help(const command *c);
/* Runs the subcommand argv[1] names (a unique prefix of a word of c's
 * subs): checks its arguments and the program, then calls its fn with
 * argc - 1, argv + 1. */
int command_run_subcommand(session *s, const command *c, int argc, char **argv);
/* Replaces a unique prefix of c's subcommand in argv by the whole word
 * (before c runs); -1 after an error when it is ambiguous. */
int command_expand_subcommand(session *s, const command *c, int argc, char **argv);

/* cmd_lint.c: after every command, the dce undo log of a run that was
 * rebuilt is dropped (with a note); before a program is freed, its log. */
void cmd_lint_after_command(session *s);
void cmd_lint_forget_program(session *s, const exdb_program *p);

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

/* cmd_unflatten.c: `info modules` and `print module FQN` (they unflatten
 * the program first when it has not been run yet), and the frame
 * inspection reached through `info` and `print frame`. */
int cmd_unflatten_info_modules(session *s);
int cmd_unflatten_print_module(session *s, const char *fqn);
int cmd_unflatten_info(session *s, const char *what, int argc, char **argv);
int cmd_unflatten_print_frame(session *s, int argc, char **argv);
void cmd_unflatten_forget(session *s); /* the program is about to change */
/* The session's run (created at event 0 when there is none), or NULL after
 * an error was printed. */
struct exdb_unflatten *cmd_unflatten_run(session *s);
/* The run to show: the one being stepped, or, when there is none yet, a
 * complete run (what torch.export.unflatten returns); NULL after an error
 * was printed. */
struct exdb_unflatten *cmd_unflatten_shown_run(session *s);
/* The frame at backtrace level `level` (0 = innermost) of u, or NULL
 * after an error was printed (no frames, or no such level). */
const struct exdb_uframe *cmd_unflatten_frame_at(session *s, const struct exdb_unflatten *u,
                                                 uint32_t level);

/* Event k of u as `info events` shows it: the line, and the JSON object. */
void cmd_unflatten_event_text(session *s, exdb_buf *b, const struct exdb_unflatten *u, uint32_t k,
                              const struct exdb_uevent *ev);
struct cJSON *cmd_unflatten_event_json(session *s, const struct exdb_unflatten *u, uint32_t k,
                                       const struct exdb_uevent *ev);

/* cmd_explain.c: an event's detail as JSON (NULL when it has none), and
 * `info event [K]`. */
struct cJSON *cmd_explain_detail_json(const struct exdb_unflatten *u, const struct exdb_uevent *ev);
int cmd_explain_info_event(session *s, int argc, char **argv);

/* cmd_break.c: the breakpoint table of a session (the table itself:
 * breakpoint.h); cmd_break_arm, _check and the last stop's commands and
 * silence: cmd_break_check.c. */
int cmd_break_info(session *s);
void cmd_break_free(session *s);
/* Before the run moves forward: remembers the mappings that exist, so a
 * watchpoint only fires on new ones. */
void cmd_break_arm(session *s, const struct exdb_unflatten *u);
/* until/advance LOCATION: a silent breakpoint from the words of a break
 * location (NODE, module FQN, exit FQN, op GLOB, event KIND); max_depth > 0
 * limits it to frames no deeper than that. cmd_break_check returns -1 when
 * only it is hit. Cleared by cmd_break_clear_momentary. */
int cmd_break_momentary(session *s, uint32_t max_depth, int argc, char **argv);
void cmd_break_clear_momentary(session *s);
/* break (temporary = 0) or tbreak: argv as the command's (start uses it). */
int cmd_break_add(session *s, int temporary, int argc, char **argv);
/* Before each command line (session_exec): forgets the last stop's
 * breakpoint commands and silence. */
void cmd_break_begin_command(session *s);
/* The commands of the breakpoints the last stop was at (`commands N`),
 * one per line, taken from the table (free it), or NULL. */
char *cmd_break_take_commands(session *s);
/* Whether the last stop was at breakpoints that are all `silent`. */
int cmd_break_silent(const session *s);
/* After an event: the number of the breakpoint or watchpoint it hits (its
 * hit count bumped, the reason in why), -1 for only a momentary one, or 0. count = 0 only tests
 * (for reverse-continue's scan): nothing is bumped. */
int cmd_break_check(session *s, const struct exdb_unflatten *u, const struct exdb_uevent *ev,
                    int count, exdb_buf *why);

/* cmd_display.c: auto-display expressions (display, undisplay, info display). */
/* Shows every enabled display (after a stop, or `display` alone). In JSON
 * mode they go into the running command's answer as "displays". */
void cmd_display_show(session *s);
int cmd_display_info(session *s);
int cmd_display_delete(session *s, int argc, char **argv); /* argv: numbers only */
int cmd_display_enable(session *s, int argc, char **argv, int on);
void cmd_display_free(session *s);

/* cmd_alias.c: `alias NAME = COMMAND [ARGS...]` (alone: the list), and
 * the list of user aliases (show alias, help aliases). */
int cmd_alias(session *s, int argc, char **argv);
int cmd_alias_list(session *s);

/* cmd_output.c: pipe COMMAND | SHELL-COMMAND. */
int cmd_pipe(session *s, int argc, char **argv);

/* cmd_source.c: source lines from the nodes' stack traces. */
int cmd_source_info(session *s, const char *what, int argc, char **argv); /* line, lines, calls */
int cmd_source_list(session *s, int argc, char **argv);                   /* argv[0] "source" */
int cmd_source_set_substitute(session *s, int argc, char **argv); /* argv[0] "substitute-path" */
void cmd_source_show_substitute(const session *s, exdb_buf *b);
void cmd_source_free(session *s);
/* " at FILE:LINE" for a STEP line or a frame: a node's source line; the
 * line frame f (entered at flat node n) was called from; a frame's call
 * line found from the events so far. Nothing when there is no trace. */
void cmd_source_node_at(session *s, exdb_buf *b, const exdb_node *n);
void cmd_source_enter_at(session *s, exdb_buf *b, const struct exdb_uframe *f, const exdb_node *n);
void cmd_source_frame_at(session *s, exdb_buf *b, const struct exdb_unflatten *u,
                         const struct exdb_uframe *f);

/* cmd_find.c: find / info nodes, and print node GLOB's matching. */
int cmd_find(session *s, int argc, char **argv);
/* Whether word is a glob (has *, ? or [) rather than a node name. */
int cmd_find_is_glob(const char *word);

/* cmd_diff.c: `render diff [FILE] -o OUT` (argv as render's), and the
 * command-line mode `exdb diff A B` (argv[0] "diff"): its exit status. */
int cmd_diff_render(session *s, int argc, char **argv);
int cmd_diff_main(int argc, char **argv);

extern const command program_commands[];
extern const size_t program_ncommands;

#endif
