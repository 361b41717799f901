/* command.h - what a command is, and the helpers commands share. A
 * subsystem (lint, unflatten, render...) defines its commands in its own
 * repl/cmd_*.c as a table `const command NAME_commands[]` with
 * `const size_t NAME_ncommands`, and commands.c lists the table. */
#ifndef EXDB_COMMAND_H
#define EXDB_COMMAND_H

#include <stddef.h>

#include "session.h"

enum {
    CMD_NEEDS_PROGRAM = 1, /* refused with "No program loaded." otherwise */
};

typedef int (*command_fn)(session *s, int argc, char **argv);

struct command {
    const char *name;
    int min_args, max_args; /* words after the name; -1 = no limit */
    int flags;
    const char *usage;   /* "print graph|tabular|node NAME..." */
    const char *summary; /* one line for `help` */
    const char *help;    /* more lines for `help NAME`, or NULL */
    command_fn fn;       /* argv[0] is the command name; returns 0 or -1 */
};

/* Prints a one-line error to the session's error stream; returns -1. */
int cmd_fail(session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes s->buf to the output (adding a final newline when asked) and empties it. */
void cmd_flush(session *s, int newline);
/* Index of the choice that word is (a unique prefix of); prints an error
 * and returns a negative number otherwise. */
int cmd_pick(session *s, const char *what, const char *word, const char *const *choices);
/* "No node "x" in the graph. Did you mean "y"?" */
int cmd_node_not_found(session *s, const char *name);

/* cmd_unflatten.c: `info modules` and `print module FQN` (they unflatten
 * the program first when it has not been run yet). */
int cmd_unflatten_info_modules(session *s);
int cmd_unflatten_print_module(session *s, const char *fqn);

extern const command program_commands[];
extern const size_t program_ncommands;

#endif
