/* commands.h - the command table (commands.c): looking commands up, their
 * subcommands and help. */
#ifndef EXDB_REPL_COMMANDS_H
#define EXDB_REPL_COMMANDS_H

#include "session.h"

typedef struct command command;
typedef struct subcommand subcommand;

const command *command_lookup(const char *name, int *ambiguous);
/* Only a command's whole name or one of gdb's short names, no prefix. */
const command *command_lookup_exact(const char *name);
const char *command_name_at(int i); /* NULL past the end */
/* The subcommand words of command name (info, print, lint...), NULL-ended,
 * or NULL when it takes none. */
const char *const *command_subcommands(const char *name);
/* A help text made from subcommand rows: each row with help as its usage
 * padded to width columns, then its help (further lines indented as
 * much); then tail. Built once per table (the text lives on). */
const char *command_subs_help(const subcommand *subs, int width, const char *tail);
/* Whether a row of c's options, or of its subcommands', is named name. */
int command_takes_option(const command *c, const char *name);
/* c's help text (help_fn's or help), or NULL. */
const char *command_help(const command *c);
/* Runs the subcommand argv[1] names (a unique prefix of a word of c's
 * subs): checks its arguments and the program, then calls its fn with
 * argc - 1, argv + 1. */
int command_run_subcommand(session *s, const command *c, int argc, char **argv);
/* Replaces a unique prefix of c's subcommand in argv by the whole word
 * (before c runs); -1 after an error when it is ambiguous. */
int command_expand_subcommand(session *s, const command *c, int argc, char **argv);

/* Whether the command line argv (c, its subcommand word expanded) runs
 * on a program's shape alone (CMD_SHAPE, subcommand.shape): the one place
 * that says which commands need the IR built. */
int command_on_shape(const command *c, int argc, char **argv);

/* help [COMMAND|aliases] and apropos REGEX (their rows are cmd_program.c's). */
int cmd_help(session *s, int argc, char **argv);
int cmd_apropos(session *s, int argc, char **argv);

#endif
