/* urun.h - the state of one unflatten run (exdb_urun) and the objects it
 * builds: module objects (InterpreterModule & co.), the outliner's frames
 * (_ModuleFrame), the seen_modules entries, events and the later phases'
 * work items. Every phase file works on these; none includes the driver
 * (unflatten.h). urun.c has the run's small helpers. */
#ifndef EXDB_CORE_UNFLATTEN_URUN_H
#define EXDB_CORE_UNFLATTEN_URUN_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/base/strmap.h"
#include "core/export/program.h"
#include "core/fx/graph.h"

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
    uint32_t nodd; /* keys ever set holding '@' or '\n' (pops leave it) */
    /* the index once the dict outgrows linear search: open addressing,
     * each key's latest slot + 1 (0 empty), 4 bytes a slot */
    uint32_t *index;
    uint32_t nindex;   /* a power of two, or 0 */
    exdb_strmap calls; /* with the index: item -> the slots of the other keys that
                          are call names of item (item@1, item\n: udict.c) */
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
    struct exdb_ugm *last; /* the last of kids (appends are O(1)) */
    uint32_t nkids;
    exdb_strmap *index; /* atom -> kid, once there are many kids */
} exdb_ugm;

/* 64 bytes: _reorder_submodules makes one per module_call_graph entry no
 * node runs (40k of them in `make bench`'s mcg shape). */
typedef struct exdb_umodule {
    uint32_t id; /* creation order: the object's identity */
    uint8_t kind;
    uint32_t ncall_modules;
    const char *type; /* _ty (type_name()), NULL when unknown */
    exdb_graph *graph;
    /* _modules, shared by all calls of one module; a plain module's starts
     * as the run's no_entries (exdb_modtree_own_dict makes its own) */
    exdb_udict *children;
    exdb_udict *attrs; /* name -> exdb_uattr*; starts as the run's no_entries */
    union {
        struct exdb_umodule **call_modules; /* DISPATCH (ncall_modules of them) */
        const exdb_graph *src;              /* GRAPH: the program subgraph its graph was copied from
                                               (read it with exdb_umodule_src) */
    };
    const exdb_ugm *gm; /* the graph's owning_module once finalized (INTERP), else NULL */
} exdb_umodule;

/* The program subgraph a GRAPH module's graph was copied from, else NULL. */
static inline const exdb_graph *exdb_umodule_src(const exdb_umodule *m) {
    return m->kind == EXDB_UMOD_GRAPH ? m->src : NULL;
}

/* ---- the outliner's frames (_ModuleFrame) */

/* A small flat-node -> node map that remembers insertion order, as the
 * Python dicts node_map and node_to_placeholder do. A key and its value
 * side by side: a put's one record in the run's journal (not two), a
 * lookup's one cache line. */
typedef struct exdb_unodemap_entry {
    exdb_node *key, *val;
} exdb_unodemap_entry;

typedef struct exdb_unodemap {
    exdb_unodemap_entry *e; /* insertion order */
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
    /* module_call_graph.get(fqn), which remap_input asks for every input the
     * frame has not mapped yet: looked up once, when the frame is made (the
     * signatures are fixed before outlining) */
    const exdb_call_signature *fqn_sig;
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
    exdb_udict *no_entries; /* the empty dict modules share until they hold something: never
                               written (exdb_modtree_own_dict) */
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
    const char **warnings;  /* _fix_nn_module_stacks warnings */
    const char *init_error; /* what UnflattenedModule.__init__ raises before outlining
                               (_fix_nn_module_stacks): the first step fails with it */
    uint32_t nwarnings, warnings_cap;

    uint8_t phase;
    uint32_t idx;     /* flat node index (outlining) */
    exdb_uwork *work; /* the current phase's work list */
    uint32_t nwork, work_pos, work_cap;
    uint8_t phase_started;
    exdb_strmap removed_by_module;            /* SINK: "id" -> ustrset of removed inputs */
    exdb_uwork *done_work[EXDB_UPH_DONE + 1]; /* finished phases' work lists (their events) */
    uint32_t done_nwork[EXDB_UPH_DONE + 1];
    struct exdb_reorder_move *reorder_moves; /* REORDER: parents whose children moved */
    uint32_t nreorder_moves;
    const char **reorder_added; /* REORDER: call-graph fqns added as empty modules */
    uint32_t nreorder_added;
} exdb_urun;

/* named_modules' visitor (modtree.h). */
typedef void (*exdb_umod_visit)(void *ctx, const char *fqn, struct exdb_umodule *m);

/* A copy of s in the run's arena. */
char *exdb_urun_strdup(exdb_urun *r, const char *s);
/* "<root>" for the root frame, else its call name. */
const char *exdb_urun_frame_name(const exdb_uframe *f);
/* Whether flat node n is in seen_nodes; seen_nodes[name], or NULL. */
int exdb_urun_is_seen(const exdb_urun *r, const exdb_node *n);
exdb_node *exdb_urun_seen_by_name(const exdb_urun *r, const char *name);
/* Appends w to the current phase's work list, which its plan builds in
 * malloc'd memory. 0 or -1 (out of memory). */
int exdb_urun_work_push(exdb_urun *r, exdb_uwork w);
/* Once the plan is made: the work list moves into the arena at its exact
 * size (its growth left no copies behind there). 0, or -1 when out of
 * memory (the list is then empty). */
int exdb_urun_work_seal(exdb_urun *r);

#endif
