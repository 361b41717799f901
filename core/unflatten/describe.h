/* describe.h - an unflatten run in words: events, the backtrace, frames,
 * `info modules`, `print module`, and the full dumps tests compare. */
#ifndef EXDB_CORE_UNFLATTEN_DESCRIBE_H
#define EXDB_CORE_UNFLATTEN_DESCRIBE_H

#include "core/base/strbuf.h"
#include "core/unflatten/unflatten.h"

/* "COPY", "ENTER", ... */
/* The node a frame's node_map or node_to_placeholder maps flat node k to,
 * or NULL: the read side of those maps for the REPL and viz/ (unodemap.h,
 * internal, keeps the writer). */
exdb_node *exdb_unflatten_mapped(const exdb_unodemap *m, const exdb_node *k);
const char *exdb_unflatten_event_kind_name(int kind);
/* The work item a later-phase event (IVAL, ATTRS, SINK, DEDUP, DISPATCH)
 * at or before the cursor was about (its name: a module fqn, a scope), or
 * NULL: the work lists of finished phases are kept for describing them. */
const exdb_uwork *exdb_unflatten_event_work(const exdb_unflatten *u, const exdb_uevent *ev);
/* "COPY %add into layer1.0 (frame 3)" */
void exdb_unflatten_describe(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev);
/* The frame stack as a gdb backtrace: "#0 layer1.0.relu@1 (call 2, module L__self__...) 3 nodes" */
void exdb_unflatten_backtrace(exdb_buf *b, const exdb_unflatten *u);
/* node_map and node_to_placeholder of a frame. */
void exdb_unflatten_print_frame(exdb_buf *b, const exdb_unflatten *u, const exdb_uframe *f);
/* `info modules`: the module tree with type names and call counts. */
void exdb_unflatten_print_modules(exdb_buf *b, const exdb_unflatten *u);
/* `print module FQN`: str(graph) of that module (a dispatcher prints each
 * call module's graph). -1 with err when there is no such module. */
int exdb_unflatten_print_module(exdb_buf *b, const exdb_unflatten *u, const char *fqn,
                                exdb_error *err);
/* Everything (frames, maps, seen sets, ivals, module tree, graphs): two
 * runs at the same event give the same dump. */
void exdb_unflatten_dump(exdb_buf *b, const exdb_unflatten *u);

#endif
