/* cmd_output.h - what cmd_output.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_OUTPUT_H
#define EXDB_REPL_CMD_OUTPUT_H

#include "session.h"

/* pipe COMMAND | SHELL-COMMAND. */
int cmd_pipe(session *s, int argc, char **argv);

/* What a child process wrote into tmp, printed as the command's output
 * (pipe's shell when output is captured, shell's command). */
void output_replay(session *s, FILE *tmp);

/* session_init's output streams, through the pager and the
 * log; output_begin before each command typed (the pager's page starts);
 * output_quit: "q" was answered to the pager (a script stops); whether the
 * output reaches a terminal (for colour). */
void output_init(session *s);
void output_free(session *s);
void output_begin(session *s);
int output_quit(const session *s);
int output_isatty(const session *s);
/* Where notes go (standard error, and the log): the session's own error
 * stream even while a command's output is being captured (display). */
FILE *output_notes(const session *s);

/* set logging ... (argv[0] is "logging"), and show's line for it. */
int output_set_logging(session *s, int argc, char **argv);
void output_show_logging(const session *s, exdb_buf *b);

#endif
