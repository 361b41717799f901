/* cmd_frames.h - what cmd_frames.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_FRAMES_H
#define EXDB_REPL_CMD_FRAMES_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_uevent;
struct cJSON;

/* The frame at backtrace level `level` (0 = innermost) of u, or NULL
 * after an error was printed (no frames, or no such level). */
const struct exdb_uframe *cmd_frames_at(session *s, const struct exdb_unflatten *u, uint32_t level);

/* The frame inspection reached through `info` (commands.c's info rows:
 * frame, node-map and placeholders [N]; seen-nodes, seen-modules, ivals;
 * events [A-B] [KIND]) and `print frame`. */
int cmd_frames_info_frame(session *s, const char *word, int argc, char **argv);
int cmd_frames_info_seen_nodes(session *s, const char *word, int argc, char **argv);
int cmd_frames_info_seen_modules(session *s, const char *word, int argc, char **argv);
int cmd_frames_info_ivals(session *s, const char *word, int argc, char **argv);
int cmd_frames_info_events(session *s, const char *word, int argc, char **argv);
int cmd_frames_print(session *s, int argc, char **argv);
/* backtrace, frame, up, down */
int cmd_frames_backtrace(session *s, int argc, char **argv);
int cmd_frames_frame(session *s, int argc, char **argv);
int cmd_frames_up(session *s, int argc, char **argv);
int cmd_frames_down(session *s, int argc, char **argv);

/* Each flat node's frame index by when it was copied (-1: not yet), for
 * list; malloc'd, NULL when out of memory. */
int32_t *cmd_frames_copy(const struct exdb_unflatten *u);

#endif
