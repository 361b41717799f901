/* cmd_modules.h - what cmd_modules.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_MODULES_H
#define EXDB_REPL_CMD_MODULES_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* `info modules` and `print module FQN` (they unflatten the program first
 * when it has not been run yet). */
/* info modules [FQN] [--full] (under: the subtree's root, NULL for all;
 * full: whole fqns) and info module FQN (one). */
int cmd_modules_info(session *s, const char *under, int full, int one);
int cmd_modules_print(session *s, const char *fqn);
/* The run to show: the one being stepped, or, when there is none yet, a
 * complete run (what torch.export.unflatten returns); NULL after an error
 * was printed. */
struct exdb_unflatten *cmd_modules_shown_run(session *s);

#endif
