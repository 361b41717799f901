/* cmd_explain.h - what cmd_explain.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_EXPLAIN_H
#define EXDB_REPL_CMD_EXPLAIN_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

int cmd_explain_info_event(session *s, int argc, char **argv);

/* An event's detail as JSON (NULL when it has none). */
struct cJSON *cmd_explain_detail_json(const struct exdb_unflatten *u, const struct exdb_uevent *ev);

#endif
