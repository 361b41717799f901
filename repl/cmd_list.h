/* cmd_list.h - what cmd_list.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_LIST_H
#define EXDB_REPL_CMD_LIST_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* list: flat nodes around the cursor while outlining, the later phases'
 * decisions after it. */
int cmd_list(session *s, int argc, char **argv);
/* info events [RANGE] [KIND] */
int cmd_list_info_events(session *s, struct exdb_unflatten *u, int argc, char **argv);

#endif
