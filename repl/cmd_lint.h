/* cmd_lint.h - what cmd_lint.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_LINT_H
#define EXDB_REPL_CMD_LINT_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* after every command, the dce undo log of a run that was
 * rebuilt is dropped (with a note); before a program is freed, its log. */
void cmd_lint_after_command(session *s);
void cmd_lint_forget_program(session *s, const exdb_program *p);

#endif
