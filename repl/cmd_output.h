/* cmd_output.h - what cmd_output.c defines for the other commands. */
#ifndef EXDB_CMD_OUTPUT_H
#define EXDB_CMD_OUTPUT_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* pipe COMMAND | SHELL-COMMAND. */
int cmd_pipe(session *s, int argc, char **argv);

#endif
