/* unflatten.h - torch.export.unflatten replayed in C, as a machine that is
 * stepped one event at a time.
 *
 * The pipeline is UnflattenedModule.__init__ of the newest upstream
 * torch/export/unflatten.py (docs/unflatten-notes.md §5): the prepasses
 * (_inplace_buffer_and_input_mutations, _fix_nn_module_stacks) run when a
 * run is created; then every decision is one event:
 *
 *   COPY   a flat node copied into the current frame (_ModuleFrame.copy_node)
 *   ENTER  a new _ModuleFrame for a module fqn and call index
 *   EXIT   a frame finalised (finalize_outputs): outputs wired into the parent
 *   IVAL   one aten.copy_ re-inserted by _IVals.update
 *   ATTRS  one module's HOP graph attributes (_copy_graph_attrs)
 *   STATE  parameters, buffers and constants assigned (_assign_attr)
 *   SINK   one module's placeholders sunk into get_attr nodes (_sink_params)
 *   DEDUP  one call entry compared with earlier calls (_deduplicate_modules)
 *   DISPATCH one preserved multiply-called fqn replaced by a dispatcher, or
 *          the call indices elided (_dispatch_modules)
 *   REORDER submodules re-registered in call-graph order (_reorder_submodules)
 *   DONE   the root graph linted (self.graph.lint()): the unflattened
 *          module is complete
 *
 * The outliner keeps an explicit stack of frames (no C recursion over
 * modules). Every event is logged, and so is every store an event makes
 * into memory that existed before it (journal.h): going back to event k
 * undoes the later events' stores, going forward again over recorded
 * events redoes them, in time proportional to the stores in between. One
 * arena per run holds everything the run makes; it is never rebuilt.
 *
 * Where PyTorch raises, the step fails with PyTorch's condition in the
 * error, naming the node and the module; the run then stays at that event. */
#ifndef EXDB_CORE_UNFLATTEN_UNFLATTEN_H
#define EXDB_CORE_UNFLATTEN_UNFLATTEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/base/strbuf.h"
#include "core/unflatten/journal.h"
#include "core/unflatten/urun.h"

/* ---- the run handle the REPL drives */

typedef struct exdb_unflatten {
    const exdb_program *prog;
    exdb_urun *run;
    exdb_uevent *log; /* every event ever reached (survives going back) */
    uint32_t nlog, log_cap;
    uint32_t pos;         /* events applied in the current run */
    int failed;           /* the current run stopped at an error */
    exdb_error err;       /* that error */
    exdb_journal journal; /* undo/redo records of every logged event */
    int recording;        /* journal in use (exdb_unflatten_set_recording) */
    int edited;           /* edited outside its events (exdb_unflatten_mark_edited) */
} exdb_unflatten;

/* Creates a run at event 0 (the prepasses done). NULL with err on failure
 * (not a torch.export program unflatten accepts, or out of memory). */
exdb_unflatten *exdb_unflatten_new(const exdb_program *p, exdb_error *err);
void exdb_unflatten_free(exdb_unflatten *u);

/* Recording for reverse stepping is on by default; turning it off (only at
 * event 0, for measurements) makes going back rebuild the run from the start
 * and replay. 0, or -1 when not at event 0. */
int exdb_unflatten_set_recording(exdb_unflatten *u, int on);

/* The finished run's module graphs were edited outside its events (dce
 * module): the journal no longer matches its memory, so the next goto that
 * moves rebuilds the run from the flat graph and replays, which drops the
 * edits (a new serial tells the REPL so). */
void exdb_unflatten_mark_edited(exdb_unflatten *u);

/* Applies one event. Returns 1 when an event happened (*ev filled when not
 * NULL), 0 when the run is complete, -1 on an error (u->err, also err). */
int exdb_unflatten_step(exdb_unflatten *u, exdb_uevent *ev, exdb_error *err);
/* Runs to the end. 0 or -1. */
int exdb_unflatten_run(exdb_unflatten *u, exdb_error *err);
/* Goes to the state right after k events (0 = the start): undoes or redoes
 * recorded events, runs the ones not recorded yet. 0 or -1 (k past the end:
 * stops at the end, -1). */
int exdb_unflatten_goto(exdb_unflatten *u, uint32_t k, exdb_error *err);
int exdb_unflatten_back(exdb_unflatten *u, uint32_t n, exdb_error *err);
int exdb_unflatten_done(const exdb_unflatten *u);

/* A finished run for a command that only reads the module tree and leaves
 * the stepping position where it is (render, lint module, diff module). */
typedef struct exdb_ufinished {
    exdb_unflatten *fresh; /* a run of its own, without a journal */
    exdb_unflatten *moved; /* the session's run, brought to its end by its journal */
    uint32_t back;         /* the position moved returns to */
} exdb_ufinished;
/* run (the session's run of p, or NULL) when it is at its end, or when its recorded
 * events reach the end (it is moved there: undo and redo records only, no
 * event runs); else a fresh run of p to the end that records nothing (a
 * second journal would double the memory of the largest programs). NULL
 * with err when p does not unflatten. exdb_unflatten_finished_end puts
 * everything back. */
exdb_unflatten *exdb_unflatten_finished(exdb_unflatten *run, const exdb_program *p,
                                        exdb_ufinished *h, exdb_error *err);
void exdb_unflatten_finished_end(exdb_ufinished *h);

/* ---- inspection */

/* The frame stack, innermost last. */
uint32_t exdb_unflatten_depth(const exdb_unflatten *u);
/* The class a frame's module has, as bt shows it: its nn_module_stack
 * type, the root's the program's root class ("" when unknown). */
const char *exdb_unflatten_frame_type(const exdb_unflatten *u, const exdb_uframe *f);
const exdb_uframe *exdb_unflatten_frame(const exdb_unflatten *u, uint32_t level);
/* The module at FQN (call names like "n@1" allowed; "" = root), or NULL. */
exdb_umodule *exdb_unflatten_module(const exdb_unflatten *u, const char *fqn);
/* "n@K": call K (>= 1) of the InterpreterModuleDispatcher at n, as bt, dce
 * and render name it, when no module sits at that path; its module, else
 * NULL. */
exdb_umodule *exdb_unflatten_dispatch_call(const exdb_unflatten *u, const char *name);

/* named_modules(remove_duplicate=False): calls fn for every module path in
 * pre-order (root first, fqn ""; the string lives until fn returns). 0, -1
 * when memory ran out before every path was visited, or the flags of
 * exdb_modtree_named_modules (a cycle not entered, a walk cut short). */
int exdb_unflatten_named_modules(const exdb_unflatten *u, exdb_umod_visit fn, void *ctx);

#endif
