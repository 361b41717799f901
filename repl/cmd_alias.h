/* cmd_alias.h - what cmd_alias.c defines for the other commands. */
#ifndef EXDB_CMD_ALIAS_H
#define EXDB_CMD_ALIAS_H

#include "session.h"

/* `alias NAME = COMMAND [ARGS...]` (alone: the list), and
 * the list of user aliases (show alias, help aliases). */
int cmd_alias(session *s, int argc, char **argv);
int cmd_alias_list(session *s);

void session_aliases_free(session *s);

#endif
