/* cmd_break_check.h - what cmd_break_check.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_BREAK_CHECK_H
#define EXDB_REPL_CMD_BREAK_CHECK_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* Before the run moves forward: remembers the mappings that exist, so a
 * watchpoint only fires on new ones. */
void cmd_break_arm(session *s, const struct exdb_unflatten *u);

/* Before each command line (session_exec): forgets the last stop's
 * breakpoint commands and silence. */
void cmd_break_begin_command(session *s);

/* The commands of the breakpoints the last stop was at (`commands N`),
 * one per line, taken from the table (free it), or NULL. */
char *cmd_break_take_commands(session *s);

/* Whether the last stop was at breakpoints that are all `silent`. */
int cmd_break_silent(const session *s);

/* After an event: the number of the breakpoint or watchpoint it hits (its
 * hit count bumped, the reason in why), -1 for only a momentary one, or 0. count = 0 only tests
 * (for reverse-continue's scan): nothing is bumped. */
int cmd_break_check(session *s, const struct exdb_unflatten *u, const struct exdb_uevent *ev,
                    int count, exdb_buf *why);

#endif
