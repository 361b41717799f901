/* cmd_alias.h - what cmd_alias.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_ALIAS_H
#define EXDB_REPL_CMD_ALIAS_H

#include "session.h"

/* `alias NAME = COMMAND [ARGS...]` (alone: the list), and
 * the list of user aliases (show alias, help aliases). */
int cmd_alias(session *s, int argc, char **argv);
int cmd_alias_list(session *s);

void session_aliases_free(session *s);

/* User aliases (`alias NAME = COMMAND`): the text the len bytes at name
 * stand for, or NULL; the i-th alias's name (and text), NULL past the end. */
const char *session_alias(const session *s, const char *name, size_t len);
const char *session_alias_at(const session *s, size_t i, const char **text);

#endif
