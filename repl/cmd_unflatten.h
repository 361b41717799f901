/* cmd_unflatten.h - what cmd_unflatten.c defines for the other commands. */
#ifndef EXDB_REPL_CMD_UNFLATTEN_H
#define EXDB_REPL_CMD_UNFLATTEN_H

#include "session.h"

struct exdb_unflatten;
struct exdb_uframe;
struct exdb_node;
struct exdb_uentry;
struct exdb_uwork;
struct exdb_uevent;
struct cJSON;

void cmd_unflatten_forget(session *s); /* the program is about to change */
/* The session's run (created at event 0 when there is none), or NULL after
 * an error was printed. */
struct exdb_unflatten *cmd_unflatten_run(session *s);

/* Event k of u as `info events` shows it: the line, and the JSON object. */
void cmd_unflatten_event_text(session *s, exdb_buf *b, const struct exdb_unflatten *u, uint32_t k,
                              const struct exdb_uevent *ev);

struct cJSON *cmd_unflatten_event_json(session *s, const struct exdb_unflatten *u, uint32_t k,
                                       const struct exdb_uevent *ev);
/* "<root>" for "", else fqn; frame (by creation index) and flat node (by
 * index) of the run, or NULL. */
const char *cmd_unflatten_label(const char *fqn);
const struct exdb_uframe *cmd_unflatten_frame_by_index(const struct exdb_unflatten *u,
                                                       int32_t index);
const struct exdb_node *cmd_unflatten_flat_at(const struct exdb_unflatten *u, int32_t index);

/* The call a DEDUP work item compares with the earlier calls of its
 * module (a seen_modules entry), or NULL. */
const struct exdb_uentry *cmd_unflatten_dedup_call(const struct exdb_unflatten *u,
                                                   const struct exdb_uwork *w);
/* A command's optional count argument (argv[1], at least 1; 1 without):
 * 0, or -1 after an error. */
int cmd_unflatten_optional_count(session *s, int argc, char **argv, uint32_t *n);

#endif
