/* cmd_find.h - what cmd_find.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_FIND_H
#define EXDB_REPL_CMD_FIND_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* find / info nodes, and print node GLOB's matching. */
int cmd_find(session *s, int argc, char **argv);

/* One match of find into s->buf: "INDENT%name  target  value  in module
 * (N users)", and its JSON object (name, op, target, value, module, users)
 * into arr when arr is not NULL (find's "matches"). */
struct exdb_node;
void cmd_find_match(session *s, const struct exdb_node *n, const char *indent, struct cJSON *arr);

/* Whether word is a glob (has *, ? or [) rather than a node name. */
int cmd_find_is_glob(const char *word);

#endif
