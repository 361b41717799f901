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
#ifndef EXDB_UNFLATTEN_H
#define EXDB_UNFLATTEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/fx/graph.h"
#include "core/unflatten/journal.h"
#include "core/export/program.h"
#include "core/base/strbuf.h"
#include "core/base/strmap.h"

/* ---- module objects (InterpreterModule & co.) */

typedef enum {
    EXDB_UMOD_PLAIN,    /* torch.nn.Module(): an intermediate with no graph */
    EXDB_UMOD_INTERP,   /* InterpreterModule */
    EXDB_UMOD_DISPATCH, /* InterpreterModuleDispatcher */
    EXDB_UMOD_ROOT,     /* UnflattenedModule */
    EXDB_UMOD_GRAPH,    /* a torch.fx.GraphModule: a HOP subgraph (_copy_graph_attrs) */
} exdb_umod_kind;

typedef enum {
    EXDB_UATTR_PARAM,
    EXDB_UATTR_BUFFER,
    EXDB_UATTR_CONST, /* tensor constant, custom object */
    EXDB_UATTR_SPEC,  /* a TreeSpec (_spec_N) */
    EXDB_UATTR_GRAPH, /* a HOP subgraph (_copy_graph_attrs) */
} exdb_uattr_kind;

/* An ordered name -> pointer dict with Python dict semantics: setting an
 * existing key keeps its position, pop then set moves it to the end. */
typedef struct exdb_udict {
    const char **keys;
    void **vals; /* NULL = popped */
    uint32_t n, cap, live;
    uint32_t nodd;     /* keys ever set holding '@' or '\n' (pops leave it) */
    exdb_strmap index; /* key -> (uintptr_t)(slot + 1) */
} exdb_udict;

/* One attribute value. State values are identified by the state_dict or
 * constants key they came from (exdb never has the tensors). */
typedef struct exdb_uattr {
    uint8_t kind;
    uint8_t persistent;
    const char *state;          /* PARAM/BUFFER/CONST: the key it was assigned from */
    const exdb_treespec *spec;  /* SPEC */
    const char *spec_text;      /* SPEC: str(TreeSpec) */
    const exdb_graph *subgraph; /* GRAPH */
    const void *identity;       /* same pointer = same Python object */
} exdb_uattr;

/* An attribute of the GraphModule InterpreterModule.finalize() made
 * (finalize.c): a fresh nn.Module holding the copied children (kids), or a
 * copied real object: a module (resolution goes on in it) or another
 * attribute. The top node stands for the GraphModule itself. */
typedef struct exdb_ugm {
    const char *atom; /* NULL for the top */
    struct exdb_umodule *module;
    uint8_t attr;
    struct exdb_ugm *kids, *next;
} exdb_ugm;

typedef struct exdb_umodule {
    uint32_t id; /* creation order: the object's identity */
    uint8_t kind;
    const char *type; /* _ty (type_name()), NULL when unknown */
    exdb_graph *graph;
    exdb_udict *children;               /* _modules; shared by all calls of one module */
    exdb_udict attrs;                   /* name -> exdb_uattr* */
    struct exdb_umodule **call_modules; /* DISPATCH */
    uint32_t ncall_modules;
    const exdb_ugm *gm; /* the graph's owning_module once finalized (INTERP), else NULL */
} exdb_umodule;

/* ---- the outliner's frames (_ModuleFrame) */

/* A small flat-node -> node map that remembers insertion order, as the
 * Python dicts node_map and node_to_placeholder do. */
typedef struct exdb_unodemap {
    exdb_node **keys, **vals; /* insertion order */
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: index + 1, 0 = empty */
    uint32_t nslots;
} exdb_unodemap;

typedef struct exdb_uframe {
    uint32_t index; /* creation order */
    struct exdb_uframe *parent;
    uint32_t depth;         /* len(module_stack) */
    const char **stack_fqn; /* module_stack[i] = (fqn, ty, num_calls) */
    const char **stack_ty;
    int *stack_calls;
    const char *fqn, *type;
    int num_calls;
    const char *child_fqn; /* _call_name(fqn, num_calls + 1) */
    const char *module_id; /* nn_module_stack key without "@N" */
    exdb_umodule *module;
    exdb_graph *graph;
    exdb_node *parent_call_module;
    const exdb_call_signature *sig; /* module_call_graph.get(child_fqn), non-root */
    exdb_unodemap node_map, node_to_placeholder;
    exdb_arg *pc_buf; /* parent_call_module's args, with room at the front */
    uint32_t pc_cap, pc_front;
    uint32_t ncopied; /* copy_node calls so far */
    uint8_t finalized;
} exdb_uframe;

/* _SubmoduleEntry */
typedef struct exdb_uentry {
    const char *parent_fqn;
    exdb_umodule *parent_module;
    exdb_node *parent_call_module;
    const char *fqn;
    int call_idx;
    exdb_umodule *module;
    uint32_t frame; /* index of the frame that made it */
} exdb_uentry;

/* seen_modules[module_id]: the calls of one module object. */
typedef struct exdb_upartition {
    const char *module_id;
    exdb_uentry *entries;
    uint32_t n, cap;
} exdb_upartition;

/* An ordered set of strings (seen_attrs values, _IVals names). */
typedef struct exdb_ustrset {
    const char *key; /* what the set belongs to (a child fqn) */
    const char **items;
    uint32_t n, cap;
    exdb_strmap index;
} exdb_ustrset;

typedef enum {
    EXDB_EV_COPY,
    EXDB_EV_ENTER,
    EXDB_EV_EXIT,
    EXDB_EV_IVAL,
    EXDB_EV_ATTRS,
    EXDB_EV_STATE,
    EXDB_EV_SINK,
    EXDB_EV_DEDUP,
    EXDB_EV_DISPATCH,
    EXDB_EV_REORDER,
    EXDB_EV_DONE,
} exdb_uevent_kind;

/* One logged event. Plain numbers, so the log survives rebuilding the run. */
typedef struct exdb_uevent {
    uint8_t kind;
    uint32_t depth; /* frame stack depth after the event */
    int32_t flat;   /* flat node index (COPY/ENTER/EXIT), else -1 */
    int32_t frame;  /* frame index (COPY/ENTER/EXIT), else -1 */
    int32_t item;   /* phase-specific: module id, entry index... */
    int32_t aux;    /* DEDUP: 0 no match, 1 same fqn, 2 other fqn */
} exdb_uevent;

typedef enum {
    EXDB_UPH_OUTER_PLACEHOLDERS,
    EXDB_UPH_BODY,
    EXDB_UPH_OUTER_OUTPUT,
    EXDB_UPH_IVALS,
    EXDB_UPH_GRAPH_ATTRS,
    EXDB_UPH_STATE,
    EXDB_UPH_SINK,
    EXDB_UPH_DEDUP,
    EXDB_UPH_DISPATCH,
    EXDB_UPH_REORDER,
    EXDB_UPH_FINAL,
    EXDB_UPH_DONE,
} exdb_uphase;

/* A work item of a later phase. */
typedef struct exdb_uwork {
    exdb_umodule *module;
    exdb_node *node;
    const char *name;   /* scope path / fqn */
    const char **scope; /* SINK: scope atoms */
    uint32_t nscope;
    int32_t a, b;
} exdb_uwork;

/* The whole state of one run: what is rebuilt when stepping backwards. */
typedef struct exdb_urun {
    exdb_arena arena;
    uint64_t serial; /* unique in the process: tells a rebuilt run from the one it replaced */
    const exdb_program *prog;
    exdb_graph *flat;  /* deepcopy of the program graph, after the prepasses */
    exdb_node **nodes; /* tuple(flat.nodes) */
    uint32_t nnodes;
    uint8_t *seen; /* seen_nodes, by flat node id */
    uint32_t nseen_ids;
    exdb_strmap sigs; /* fqn -> exdb_call_signature* (entries with a signature) */
    const char *root_type;
    exdb_umodule *root;
    exdb_umodule **modules; /* every module object, by id */
    uint32_t nmodules, modules_cap;

    exdb_uframe **frames; /* every frame, by index */
    uint32_t nframes, frames_cap;
    exdb_uframe **stack;
    uint32_t depth, stack_cap;

    exdb_upartition *parts; /* seen_modules, in first-seen order */
    uint32_t nparts, parts_cap;
    exdb_strmap part_index;    /* module_id -> partition index + 1 */
    exdb_ustrset **seen_attrs; /* child_fqn -> targets */
    uint32_t nseen_attrs, seen_attrs_cap;
    exdb_strmap seen_attrs_index;
    exdb_strmap created_modules; /* fqn -> exdb_umodule* */
    exdb_ustrset **ivals;        /* _IVals.node_names_by_fqn */
    uint32_t nivals, ivals_cap;
    exdb_strmap ivals_index;
    exdb_strmap redirected;      /* redirected_call_indices: child fqn -> seen fqn */
    exdb_strmap inputs_to_state; /* placeholder name -> const char ** (NULL-ended) */
    const char **consts_targets;
    uint32_t nconsts_targets;
    const char **warnings; /* _fix_nn_module_stacks warnings */
    uint32_t nwarnings, warnings_cap;

    uint8_t phase;
    uint32_t idx;     /* flat node index (outlining) */
    exdb_uwork *work; /* the current phase's work list */
    uint32_t nwork, work_pos, work_cap;
    uint8_t phase_started;
    exdb_strmap removed_by_module;            /* SINK: "id" -> ustrset of removed inputs */
    exdb_uwork *done_work[EXDB_UPH_DONE + 1]; /* finished phases' work lists (their events) */
    uint32_t done_nwork[EXDB_UPH_DONE + 1];
} exdb_urun;

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
/* Steps until the next COPY event (inclusive). 1, 0 at the end, -1. */
int exdb_unflatten_step_copy(exdb_unflatten *u, exdb_error *err);
/* Steps one event; when it is an ENTER, runs until that frame has exited
 * (gdb's `next`). */
int exdb_unflatten_next(exdb_unflatten *u, exdb_error *err);
/* Runs until the current frame exits (gdb's `finish`). */
int exdb_unflatten_finish(exdb_unflatten *u, exdb_error *err);
/* Steps until pred returns non-zero for the event just applied. */
typedef int (*exdb_unflatten_pred)(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev);
int exdb_unflatten_run_until(exdb_unflatten *u, exdb_unflatten_pred pred, void *ctx,
                             exdb_error *err);
/* Goes to the state right after k events (0 = the start): undoes or redoes
 * recorded events, runs the ones not recorded yet. 0 or -1 (k past the end:
 * stops at the end, -1). */
int exdb_unflatten_goto(exdb_unflatten *u, uint32_t k, exdb_error *err);
int exdb_unflatten_back(exdb_unflatten *u, uint32_t n, exdb_error *err);
int exdb_unflatten_done(const exdb_unflatten *u);

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
const char *exdb_uevent_kind_name(int kind);
/* The Python class of a module object: "torch.nn.Module", "InterpreterModule",
 * "InterpreterModuleDispatcher", "UnflattenedModule" or "GraphModule". */
const char *exdb_umod_kind_name(const exdb_umodule *m);
/* type(m).__name__ as Python's messages and named_modules show it: the kind
 * name, with a plain torch.nn.Module as "Module". */
const char *exdb_umod_class_name(const exdb_umodule *m);
/* How many parameters, buffers and constants m holds. */
void exdb_umod_count_state(const exdb_umodule *m, uint32_t *np, uint32_t *nb, uint32_t *nc);
/* The call sites whose call_module target resolves to m (after dedup's
 * retargeting): the calls=N `info modules` shows for an InterpreterModule. */
uint32_t exdb_umod_call_count(const exdb_urun *r, const exdb_umodule *m);
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

/* named_modules(remove_duplicate=False): calls fn for every module path in
 * pre-order (root first, fqn ""). 0, or -1 when memory ran out before
 * every path was visited. */
typedef void (*exdb_umod_visit)(void *ctx, const char *fqn, exdb_umodule *m);
int exdb_unflatten_named_modules(const exdb_unflatten *u, exdb_umod_visit fn, void *ctx);

/* ---- engine internals shared by the phase files (core/u*.c, outline.c...) */

/* module objects (modtree.c) */
exdb_umodule *exdb_umod_new(exdb_urun *r, exdb_umod_kind kind, const char *type);
void *exdb_udict_get(const exdb_udict *d, const char *key);
int exdb_udict_set(exdb_urun *r, exdb_udict *d, const char *key, void *val);
void *exdb_udict_pop(exdb_udict *d, const char *key);
/* getattr(mod, name): a child module (*is_module = 1) or an attribute. */
void *exdb_umod_getattr(exdb_umodule *m, const char *name, int *is_module);
/* _get_attr_via_attr_list(m, path.split(".")) of torch/fx/graph_module.py,
 * with torch's errors: a missing inner atom is "AssertionError: Attribute
 * 'x' not found in model", a missing last atom getattr's "AttributeError:
 * 'Class' object has no attribute 'y'" on the object that lacks it; err then
 * holds that message and " (why)". Returns the module or exdb_uattr at
 * path ("" is m itself) and says which in *is_module. */
void *exdb_umod_get_attr_list(exdb_umodule *m, const char *path, int *is_module, const char *why,
                              exdb_error *err);
/* _get_attr(root, "a.b.c"): the module at a dotted path, or NULL. */
exdb_umodule *exdb_umod_get_path(exdb_umodule *m, const char *path);
/* _add_submodule(mod, target, module_to_add, create_module) */
int exdb_umod_add_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                            const char *parent_fqn, const char *ty);
/* set_submodule(target, module) */
int exdb_umod_set_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                            exdb_error *err);
/* _add_spec: registers spec as the first free _spec_N; returns the name. */
const char *exdb_umod_add_spec(exdb_urun *r, exdb_umodule *m, const exdb_treespec *spec,
                               const char *text);
int exdb_umod_assign_state(exdb_urun *r, exdb_umodule *root, const char *target,
                           exdb_uattr_kind kind, int persistent, const void *identity,
                           exdb_error *err);
int exdb_ureorder_submodules(exdb_urun *r, exdb_error *err);
/* named_modules(remove_duplicate=False) over a run's tree */
int exdb_unflatten_named_modules_run(exdb_urun *r, exdb_umod_visit fn, void *ctx);
/* _call_name(base, n) and _compute_accessor(parent_fqn, child_fqn) */
const char *exdb_ucall_name(exdb_urun *r, const char *base, int n);
const char *exdb_ucompute_accessor(exdb_urun *r, const char *parent_fqn, const char *child_fqn);
/* ATTRS phase (_copy_graph_attrs), in outline.c */
int exdb_ugraph_attrs_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

/* ---- C helpers shared by the phases */
char *exdb_ustrdup(exdb_urun *r, const char *s);
int exdb_ustrset_add(exdb_urun *r, exdb_ustrset *s, const char *item);
int exdb_ustrset_has(const exdb_ustrset *s, const char *item);
exdb_ustrset *exdb_ustrset_get(exdb_urun *r, exdb_ustrset ***arr, uint32_t *n, uint32_t *cap,
                               exdb_strmap *index, const char *key, int create);
exdb_node *exdb_unodemap_get(const exdb_unodemap *m, const exdb_node *k);
int exdb_unodemap_put(exdb_urun *r, exdb_unodemap *m, exdb_node *k, exdb_node *v);
/* Appends a node argument at the front of n's args (insert_arg(0)) in
 * amortised O(1): avoids upstream's quadratic prepends. */
int exdb_uprepend_arg(exdb_urun *r, exdb_uframe *f, exdb_node *input);
/* user bookkeeping for args edited in place */
int exdb_uadd_user(exdb_node *in, exdb_node *user);

/* prepass.c */
int exdb_uprepass(exdb_urun *r, exdb_error *err);
/* outline.c: one outliner event. 1 event, 0 outlining finished, -1 error. */
int exdb_uoutline_step(exdb_urun *r, exdb_uevent *ev, exdb_error *err);
/* ivals.c */
int exdb_uivals_read(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out, exdb_error *err);
int exdb_uivals_plan(exdb_urun *r, exdb_error *err);
int exdb_uivals_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);
/* outline.c: _ModuleFrame.remap_input */
int exdb_uremap_input(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out, exdb_error *err);
/* sink.c */
int exdb_usink_plan(exdb_urun *r, exdb_error *err);
int exdb_usink_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);
/* finalize.c: InterpreterModule.finalize's GraphModule, as m->gm */
int exdb_ufinalize(exdb_urun *r, exdb_umodule *m, exdb_error *err);
/* state.c */
int exdb_ustate_assign(exdb_urun *r, exdb_error *err);
/* dedup.c */
int exdb_udedup_plan(exdb_urun *r, exdb_error *err);
int exdb_udedup_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err);
/* dispatch.c */
int exdb_udispatch_plan(exdb_urun *r, exdb_error *err);
int exdb_udispatch_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);
/* rootlint.c: the root graph's Graph.lint() at the end of __init__ */
int exdb_uroot_lint(exdb_urun *r, exdb_error *err);
/* Work list helper */
int exdb_uwork_push(exdb_urun *r, exdb_uwork w);

#endif
