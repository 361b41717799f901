/* cmd_break.h - what cmd_break.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_BREAK_H
#define EXDB_REPL_CMD_BREAK_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* the breakpoint table of a session (the table itself:
 * breakpoint.h); cmd_break_arm, _check and the last stop's commands and
 * silence: cmd_break_check.c. */
int cmd_break_info(session *s);
void cmd_break_free(session *s);

/* until/advance LOCATION: a silent breakpoint from the words of a break
 * location (NODE, module FQN, exit FQN, op GLOB, event KIND); max_depth > 0
 * limits it to frames no deeper than that. cmd_break_check returns -1 when
 * only it is hit. Cleared by cmd_break_clear_momentary. */
int cmd_break_momentary(session *s, uint32_t max_depth, int argc, char **argv);
void cmd_break_clear_momentary(session *s);

/* break (temporary = 0) or tbreak: argv as the command's (start uses it). */
int cmd_break_add(session *s, int temporary, int argc, char **argv);

#endif
