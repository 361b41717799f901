/* cmd_source.h - what cmd_source.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_SOURCE_H
#define EXDB_REPL_CMD_SOURCE_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* source lines from the nodes' stack traces. */
int cmd_source_info(session *s, const char *what, int argc, char **argv); /* line, lines, calls */
int cmd_source_list(session *s, int argc, char **argv);                   /* argv[0] "source" */
int cmd_source_set_substitute(session *s, int argc, char **argv); /* argv[0] "substitute-path" */
void cmd_source_show_substitute(const session *s, exdb_buf *b);
void cmd_source_free(session *s);

/* " at FILE:LINE" for a STEP line or a frame: a node's source line; the
 * line frame f (entered at flat node n) was called from; a frame's call
 * line found from the events so far. Nothing when there is no trace. */
void cmd_source_node_at(session *s, exdb_buf *b, const exdb_node *n);
void cmd_source_enter_at(session *s, exdb_buf *b, const struct exdb_uframe *f, const exdb_node *n);
void cmd_source_frame_at(session *s, exdb_buf *b, const struct exdb_unflatten *u,
                         const struct exdb_uframe *f);

#endif
