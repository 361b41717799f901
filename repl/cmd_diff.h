/* cmd_diff.h - what cmd_diff.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_DIFF_H
#define EXDB_REPL_CMD_DIFF_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* `render diff [FILE] -o OUT` (its options parsed by render), and the
 * command-line mode `exdb diff A B` (argv[0] "diff"): its exit status. */
int cmd_diff_render(session *s, const char *file, const char *out, exdb_viz_view *view,
                    exdb_viz_settings *set);
int cmd_diff_main(int argc, char **argv);

#endif
