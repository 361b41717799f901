/* program.h - an ExportedProgram in memory: the flat graph plus everything
 * torch.export.save writes beside it (graph signature, module_call_graph
 * with parsed TreeSpecs, range constraints, versions). One arena owns it all.
 * Loading lives in program.c (the top level) and the load_*.c files it
 * drives (load.h); the container (zip/JSON) layer in core/format/container.c. */
#ifndef EXDB_CORE_EXPORT_PROGRAM_H
#define EXDB_CORE_EXPORT_PROGRAM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/format/schema.h"
#include "core/format/treespec.h"
#include "core/fx/graph.h"

typedef struct exdb_input_spec {
    exdb_input_kind kind;
    const char *name;      /* the placeholder's name (NULL for a constant input with none) */
    const char *target;    /* state FQN: parameter_name, buffer_name, ... or NULL */
    int persistent;        /* buffers: 1/0; -1 otherwise */
    const char *class_fqn; /* custom objects */
    exdb_arg value;        /* constant inputs: the value; user inputs that are constants */
} exdb_input_spec;

typedef struct exdb_output_spec {
    exdb_output_kind kind;
    const char *name;   /* the output value's name, NULL for a constant output */
    const char *target; /* buffer/parameter/user-input name for mutations and gradients */
    exdb_arg value;     /* constant outputs */
} exdb_output_spec;

/* ModuleCallSignature. inputs/outputs: value names (NULL for a constant,
 * a ConstantArgument: its value in input_values/output_values, which hold
 * None beside a name). */
typedef struct exdb_call_signature {
    const char **inputs;
    uint32_t ninputs;
    const char **outputs;
    uint32_t noutputs;
    exdb_arg *input_values, *output_values;
    exdb_treespec *in_spec, *out_spec;
    const char *in_spec_text, *out_spec_text;
    const char **forward_arg_names; /* NULL when absent */
    uint32_t nforward_arg_names;
} exdb_call_signature;

typedef struct exdb_module_call {
    const char *fqn;
    exdb_call_signature *sig; /* NULL unless the root or a preserved module */
} exdb_module_call;

typedef struct exdb_range {
    const char *symbol;
    uint8_t has_min, has_max; /* 0 = unbounded */
    int64_t min, max;
    /* when unbounded, which infinity: min_val null or -Infinity is -int_oo
     * (-1), Infinity is int_oo (+1, as torch reads it); max_val null or
     * Infinity is int_oo (+1), -Infinity -int_oo (-1) */
    int8_t min_inf, max_inf;
} exdb_range;

/* A bound of r as torch prints it in VR[lo, hi]: the integer, "int_oo" or
 * "-int_oo" (upper: the max). */
void exdb_range_bound(const exdb_range *r, int upper, char *out, size_t n);
/* lower <= upper, as torch's ValueRanges requires (else ValueRangeError). */
int exdb_range_valid(const exdb_range *r);

/* How many nodes of each op the main graph has (exdb_program_node_counts). */
typedef struct exdb_node_counts {
    uint32_t nodes;
    uint32_t ops[6];   /* by exdb_op */
    uint32_t getitems; /* call_function operator.getitem, of ops[EXDB_OP_CALL_FUNCTION] */
} exdb_node_counts;

struct exdb_program_pending;

typedef struct exdb_program {
    exdb_arena arena;
    /* The main graph's argument trees, in node order and nothing else
     * between them: every pass over the graph (lint, dce, unflatten,
     * print) reads each node's args, and on a graph bigger than the cache
     * reading them scattered among the loader's other allocations cost a
     * cache miss per node (a bare walk of 141k nodes' inputs: 57 ns per
     * node, 13 ns at 14k nodes). */
    exdb_arena args_arena;
    /* The strings decoded from the text that the IR keeps (the JSON
     * reader's pool, core/format/json.h's exdb_jstrings). */
    exdb_arena text_arena;
    char *buf; /* the program JSON text (never written after it is read) */
    size_t json_bytes;
    const char *path;   /* the file it came from */
    const char *member; /* the zip member, or the path for bare JSON */
    const char *model;  /* model name inside a pt2 archive ("model") */
    int container_kind; /* exdb_container_kind */

    int schema_major, schema_minor; /* schema 2: major 2, minor 0 */
    const char *torch_version;      /* NULL when absent ("<= 2.4") */
    const char *dialect;            /* 5.x "dialect" */
    const char **verifiers;
    uint32_t nverifiers;
    exdb_kv *opset;
    uint32_t nopset;

    exdb_graph *graph;
    /* Subgraphs of higher-order ops (as_graph arguments), by attribute name. */
    struct exdb_subgraph {
        const char *name;
        exdb_graph *graph;
        exdb_node *owner; /* the get_attr node in its parent graph */
    } * subgraphs;
    uint32_t nsubgraphs;
    exdb_strmap subgraph_names; /* name -> its last struct exdb_subgraph (exdb_program_subgraph) */
    struct exdb_subgraph **subgraphs_by_owner; /* sorted by owner (exdb_program_subgraph_owned) */

    exdb_input_spec *inputs;
    uint32_t ninputs;
    exdb_output_spec *outputs;
    uint32_t noutputs;
    exdb_module_call *calls;
    uint32_t ncalls;
    exdb_range *ranges;
    uint32_t nranges;
    exdb_kv *gm_metadata; /* graph_module.metadata */
    uint32_t ngm_metadata;

    uint32_t nserialized_nodes; /* len(graph.nodes) in the file */
    /* (the fields from schema_major to here are what the loader writes:
     * program.c saves and restores them around a build) */
    /* How the main graph's node metadata left unparsed at load is read
     * (exdb_meta's defer; exdb_program_meta_error). */
    exdb_meta_defer meta_defer;
    /* What later commands need from the file, read when it was loaded
     * (snapshot.h); NULL for exdb_program_from_json's programs. */
    struct exdb_snapshot *snapshot;
    /* Opened shape first (exdb_program_open): until exdb_program_build,
     * graph is NULL, subgraphs none, and shape holds the main graph's node
     * counts (shape_nsubgraphs the subgraphs the build will make);
     * everything else above is loaded. NULL once built. */
    struct exdb_program_pending *pending;
    exdb_node_counts shape;
    uint32_t shape_nsubgraphs;
    /* Built from the reopen cache's IR entry (cache_ir.h): the shape
     * entry and the DOM of its text, which the signature's and the call
     * graph's strings still point into (program_cache.c); else NULL. */
    struct exdb_cache_kept *cache_kept;
} exdb_program;

/* Loads PATH (a .pt2 archive, a legacy export zip, or bare program JSON).
 * model selects a program inside a multi-model archive (NULL: the only one).
 * On error returns NULL with a one-line message in err. */
exdb_program *exdb_program_load(const char *path, const char *model, exdb_error *err);

/* exdb_program_load, except that a program whose main graph has at least
 * the exdb_program_shape_first threshold of nodes may be opened shape
 * first: its top, signature, module call graph, range constraints and node
 * counts are read (what `info program` and the load line print), and its
 * IR (the graph, the node metadata, the value tables) is built by
 * exdb_program_build, which every reader of p->graph must call first. A
 * file malformed in a part the shape read does not reach is refused by
 * exdb_program_build (docs/json-reader.md, "Shape first"). */
exdb_program *exdb_program_open(const char *path, const char *model, exdb_error *err);
/* Builds the IR of a program opened shape first (nothing when built): 0;
 * -1 with the one-line message the load would have given (the same again
 * on every later call: the program has only its shape, and should be
 * dropped as a load that failed); -2 when memory ran out (a later call
 * tries again). */
int exdb_program_build(exdb_program *p, exdb_error *err);
/* Starts exdb_program_build in a thread of its own (gdb reads symbols so,
 * after the prompt): until exdb_program_wait, exdb_program_build or
 * exdb_program_free, which wait for it, nothing may read or change p but
 * through exdb_program_shape_view.
 * Nothing when built, refused, or under fault injection (the build then
 * happens in exdb_program_build); an out-of-memory build there is tried
 * again by exdb_program_build. Meanwhile exdb_program_shape_view(p) is
 * what may be read of it. */
void exdb_program_build_start(exdb_program *p);
/* Waits for the build exdb_program_build_start started, if any (p may be
 * NULL). */
void exdb_program_wait(exdb_program *p);
/* Whether the build exdb_program_build_start started still runs (a wait
 * would wait; p may be NULL). */
int exdb_program_building(const exdb_program *p);
/* exdb_program_wait, given up when *stop is set (by a signal's handler:
 * Ctrl-C): 0 when no build runs any more, 1 when stopped first (the build
 * goes on). */
int exdb_program_wait_or(exdb_program *p, const volatile sig_atomic_t *stop);
/* A function the build's thread calls before it builds (NULL: none): the
 * tests hold a build there to stop a wait for it (EXDB_TEST_BUILD_GATE). */
void exdb_program_build_gate(void (*gate)(void));
/* What may be read of p while its build runs in a thread: a copy of p as
 * opened (its shape: everything but the graph, the counts in shape; its
 * arenas not to be used), else p itself. Valid until the next call that
 * waits for the build. */
const exdb_program *exdb_program_shape_view(const exdb_program *p);
/* Whether p's IR is built (p->graph is there). */
static inline int exdb_program_built(const exdb_program *p) {
    return p->graph != NULL;
}
/* Programs whose main graph has at least min_nodes serialized nodes are
 * opened shape first by exdb_program_open; EXDB_SHAPE_FIRST_MIN unless
 * changed (tests pass 0: always, or UINT32_MAX: never). Returns the
 * threshold it replaces. */
enum { EXDB_SHAPE_FIRST_MIN = 32768 };
uint32_t exdb_program_shape_first(uint32_t min_nodes);
/* The main graph's node counts: from the graph when built, else the
 * shape's. */
void exdb_program_node_counts(const exdb_program *p, exdb_node_counts *c);
/* The subgraphs, nested ones too: the built program's, else the shape's. */
uint32_t exdb_program_subgraph_count(const exdb_program *p);

/* Builds a program from JSON text already in memory (buf is modified and
 * adopted: freed with the program). name is used in messages. */
exdb_program *exdb_program_from_json(char *buf, size_t len, const char *name, exdb_error *err);
/* exdb_program_from_json, opened shape first when shape_first and the
 * program is big enough (exdb_program_open). */
exdb_program *exdb_program_open_json(char *buf, size_t len, const char *name, int shape_first,
                                     exdb_error *err);
/* Programs with at least min_elements nodes and tensor_values entries in
 * their main graph have them parsed in a second thread while the loader
 * builds the IR (core/format/json_ahead.h); EXDB_JSON_AHEAD_MIN (4096)
 * unless changed. Tests pass 0 (always) or UINT32_MAX (never). */
void exdb_program_parse_ahead(uint32_t min_elements);

/* Programs with at least min_nodes nodes in their main graph leave the
 * text fields of the nodes' metadata (stack_trace, source_fn_stack,
 * torch_fn, from_node, keys PyTorch does not read) unparsed at load; each
 * is parsed when first read (exdb_meta_stack_trace ...; docs/json-reader.md).
 * EXDB_LAZY_META_MIN unless changed; tests pass 0 (always) or UINT32_MAX
 * (never). */
enum { EXDB_LAZY_META_MIN = 4096 };
void exdb_program_lazy_meta(uint32_t min_nodes);

/* -1 with its one-line message when a metadata field read since the last
 * call was malformed (the reader saw it as absent): the command that read
 * it fails with this message. 0 otherwise. */
int exdb_program_meta_error(exdb_program *p, exdb_error *err);

void exdb_program_free(exdb_program *p);
/* Reaps the reopen cache's IR writers (exdb_cache_ir_async: a process each,
 * forked after a build) that have ended, so that none stays a zombie while
 * the session goes on (the REPL calls it after each command; a build reaps
 * them too). */
void exdb_program_cache_reap(void);

/* The subgraph registered under attribute name `name` of the top-level
 * GraphModule (the last one when several share it, as getattr on the
 * GraphModule would see), or NULL: a hash lookup, so callers resolving
 * every get_attr stay linear. */
const struct exdb_subgraph *exdb_program_subgraph(const exdb_program *p, const char *name);
/* The same for the GraphModule whose graph is g (a subgraph's own
 * subgraphs, which reuse the names true_graph_0, ...): a scan. */
const struct exdb_subgraph *exdb_program_subgraph_in(const exdb_program *p, const exdb_graph *g,
                                                     const char *name);
/* The subgraph whose get_attr node in its parent graph is owner (each
 * as_graph argument gets a get_attr of its own), or NULL: a binary search,
 * so walking a graph's subgraphs in node order stays O(n log n). */
const struct exdb_subgraph *exdb_program_subgraph_owned(const exdb_program *p,
                                                        const exdb_node *owner);

/* ---- limits (README "Limits"): a program beyond one is refused with a
 * one-line error naming the file, the JSON path and the limit, before it can
 * exhaust memory or the C stack. Real programs are far below them: resnet152
 * has 1,600 nodes, names under 100 bytes, 6 levels of modules. */
enum {
    /* graph inputs plus serialized nodes, over the graph and its subgraphs
     * (a 1M-node program is 1.9 GB of JSON) */
    EXDB_MAX_NODES = 4000000,
    /* a value or node name, an op target, a module fqn, an nn_module_stack
     * key or type */
    EXDB_MAX_NAME_BYTES = 4096,
    /* nn_module_stack entries, and the components of a module fqn: unflatten
     * builds one module per level (and each fqn repeats its parents') */
    EXDB_MAX_MODULE_DEPTH = 64,
    /* distinct module fqns, their parents included, in the nn_module_stacks
     * and module_call_graph */
    EXDB_MAX_MODULES = 1000000,
};
/* The text of those fqns together: a 4 KB path of 64 components names 64
 * modules of up to 4 KB each, so fqns could otherwise cost 64 times the
 * file (the 1M-node synthetic program needs 5 MB). */
#define EXDB_MAX_MODULE_BYTES ((size_t)64 << 20)

#endif
