/* cmd_display.h - what cmd_display.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_DISPLAY_H
#define EXDB_REPL_CMD_DISPLAY_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* Shows every enabled display (after a stop, or `display` alone). In JSON
 * mode they go into the running command's answer as "displays". */
void cmd_display_show(session *s);
int cmd_display_info(session *s);
int cmd_display_delete(session *s, int argc, char **argv); /* argv: numbers only */
int cmd_display_enable(session *s, int argc, char **argv, int on);
void cmd_display_free(session *s);

#endif
