/* cmd_control.h - if/else/while/end and convenience variables (cmd_control.c). */
#ifndef EXDB_REPL_CMD_CONTROL_H
#define EXDB_REPL_CMD_CONTROL_H

#include <stdint.h>

#include "session.h"

/* `set $NAME = EXPR` (the line being run). 0, or -1 after an error. */
int cmd_control_set(session *s);
/* `print $NAME` or `print EXPR` with variables. 0, or -1. */
int cmd_control_print(session *s);
/* What $lint_errors and $lint_warnings say after a lint. */
void cmd_control_note_lint(uint32_t errors, uint32_t warnings);

#endif
