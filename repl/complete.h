/* complete.h - what Tab offers after the words typed, read from the
 * command table (command.h: each command's and subcommand's options and
 * completer), as gdb's set_cmd_completer does at registration. main.c
 * hands the candidates to libedit. */
#ifndef EXDB_REPL_COMPLETE_H
#define EXDB_REPL_COMPLETE_H

#include "session.h"

/* Called for each candidate word (static or owned by the session: the
 * caller copies what it keeps). */
typedef void (*complete_add_fn)(void *ctx, const char *word);

/* The candidates for the word after w[0..nw) (nw >= 1: the command and
 * the words typed after it), passed to add. Returns 1 when that word is a
 * file name instead (the caller completes files), else 0. */
int complete_args(session *s, char **w, int nw, complete_add_fn add, void *ctx);

#endif
