/* cmd_diff.h - what cmd_diff.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_DIFF_H
#define EXDB_REPL_CMD_DIFF_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* `render diff [FILE] -o OUT` (argv as render's), and the
 * command-line mode `exdb diff A B` (argv[0] "diff"): its exit status. */
int cmd_diff_render(session *s, int argc, char **argv);
int cmd_diff_main(int argc, char **argv);

#endif
