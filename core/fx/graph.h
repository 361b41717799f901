/* graph.h - the graph IR: the C twin of torch.fx.Graph and torch.fx.Node.
 *
 * A graph is an ordered, doubly linked list of nodes owned by an arena.
 * Names follow FX's _Namespace rules (names.c); lookup by name is O(1).
 * Every node keeps its users in the order they were added, as FX's
 * Node.users dict does, so `num_users` and printing match PyTorch. */
#ifndef EXDB_CORE_FX_GRAPH_H
#define EXDB_CORE_FX_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/base/strmap.h"

struct exdb_node;
struct exdb_graph;

/* ---- values ("val" metadata: what the deserializer makes a fake value of) */

/* A SymInt/SymFloat/SymBool: concrete (expr == NULL, value in v) or symbolic
 * (sympy text in expr, example value in v when has_hint). */
typedef struct exdb_sym {
    const char *expr;
    uint8_t has_hint;
    union {
        int64_t i;
        double f;
        int b;
    } v;
} exdb_sym;

typedef struct exdb_tensor_meta {
    int dtype;  /* ScalarType code (docs/pt2-format.md §6) */
    int layout; /* Layout code; 7 = strided */
    int requires_grad;
    const char *device_type; /* "cpu", "cuda", "meta" */
    int device_index;        /* -1 when none */
    uint32_t ndim;
    exdb_sym *sizes, *strides;
    exdb_sym storage_offset;
} exdb_tensor_meta;

typedef enum {
    EXDB_VAL_NONE,
    EXDB_VAL_TENSOR,
    EXDB_VAL_SYMINT,
    EXDB_VAL_SYMFLOAT,
    EXDB_VAL_SYMBOOL,
    EXDB_VAL_CUSTOM_OBJ, /* u.s = class fqn */
    EXDB_VAL_TUPLE,      /* u.items[0..n) */
    EXDB_VAL_CONST,      /* a constant input: u.arg */
} exdb_val_kind;

typedef struct exdb_val {
    uint8_t kind;
    uint32_t n;
    union {
        const exdb_tensor_meta *t;
        exdb_sym sym;
        const char *s;
        const struct exdb_val **items;
        const struct exdb_arg *arg;
    } u;
} exdb_val;

/* ---- arguments (FX args/kwargs trees) */

typedef enum {
    EXDB_ARG_NONE,
    EXDB_ARG_NODE,  /* u.node */
    EXDB_ARG_INT,   /* u.i */
    EXDB_ARG_FLOAT, /* u.f */
    EXDB_ARG_BOOL,  /* u.i (0/1) */
    EXDB_ARG_STR,   /* u.s */
    EXDB_ARG_LIST,  /* u.items[0..n) */
    EXDB_ARG_TUPLE, /* u.items[0..n) */
    EXDB_ARG_DICT,  /* keys[0..n) -> u.items[0..n) */
    EXDB_ARG_DTYPE, /* u.i = ScalarType code */
    EXDB_ARG_LAYOUT,
    EXDB_ARG_MEMFMT,
    EXDB_ARG_DEVICE,   /* u.s = "cpu", "cuda:0" */
    EXDB_ARG_COMPLEX,  /* u.c[0] real, u.c[1] imag */
    EXDB_ARG_OPERATOR, /* u.s = an operator passed as a value */
} exdb_arg_kind;

typedef struct exdb_arg {
    uint8_t kind;
    uint32_t n;
    union {
        struct exdb_node *node;
        int64_t i;
        double f;
        const char *s;
        struct exdb_arg *items;
        double *c;
    } u;
    const char **keys;
} exdb_arg;

/* ---- metadata */

/* One nn_module_stack entry "key,path,type". call_idx is the N of a key
 * ending in "@N" (a repeated call of the same module), else 0. */
typedef struct exdb_stack_entry {
    const char *key;
    const char *path;
    const char *type;
    int call_idx;
} exdb_stack_entry;

typedef struct exdb_kv {
    const char *key;
    const char *value;
} exdb_kv;

/* A metadata string found malformed when read (exdb_meta_defer's fails). */
typedef struct exdb_meta_fail {
    const char *quote;
    exdb_error err;
    struct exdb_meta_fail *next;
} exdb_meta_fail;

/* A metadata string read so far (exdb_meta_defer's memo): the string whose
 * opening quote is at quote, decoded, or NULL when it was refused. */
typedef struct exdb_meta_memo {
    const char *quote;
    const char *s;
} exdb_meta_memo;

/* Where the text fields of big programs' metadata are read from when first
 * read (docs/json-reader.md): the loader's (core/export/load_meta.c). read
 * gives the string whose opening quote is at quote, metadata key `key` of
 * serialized node src, or NULL when it is malformed (its one-line message
 * then in err, and pending set: exdb_program_meta_error). */
typedef struct exdb_meta_defer {
    const char *(*read)(struct exdb_meta_defer *d, const char *quote, int32_t src, const char *key);
    int pending;
    exdb_error err;
    /* the loader's: the text (buffer, end, name in messages), never
     * written, and the first string found to hold U+0000 or not UTF-8 */
    const char *text;
    const char *end;
    const char *fname;
    const char *failed;
    exdb_error failed_err;
    /* each refused string's own message (malloc'd; the program frees
     * it), failed_err for one not found there (out of memory) */
    exdb_meta_fail *fails;
    /* the strings read so far, by their quote (open addressing, malloc'd;
     * the program frees it), decoded into chunks [pool, pool_end) of
     * arena */
    exdb_meta_memo *memo;
    uint32_t nmemo, memo_cap;
    uint32_t reads; /* first reads since the text's pages were last given back */
    exdb_arena *arena;
    char *pool, *pool_end;
} exdb_meta_defer;

/* Node metadata. Immutable once attached: node_copy shares the pointer as
 * FX's shallow meta copy does; a pass that edits one makes a new one.
 * The lazy_* fields and the values of lazy_extra are read through the
 * accessors below (exdb_meta_stack_trace ...): with defer set they point at
 * their strings' opening quotes in the program's text, parsed on first
 * read (and remembered: defer's memo). */
typedef struct exdb_meta {
    const exdb_stack_entry *stack;
    uint32_t nstack;
    uint8_t has_stack;           /* the key was present (an empty stack is possible) */
    const char *nn_module_stack; /* the raw text, as written */
    const char *lazy_stack_trace;
    const char *lazy_source_fn_stack;
    const char *lazy_torch_fn;
    const char *custom;
    const char *lazy_from_node;
    const exdb_kv *lazy_extra; /* any other keys, in file order */
    uint32_t nextra;
    int32_t defer_src;      /* the serialized node whose metadata this is */
    exdb_meta_defer *defer; /* NULL: the lazy_* fields are plain strings */
    const exdb_val *val;
    /* The schema's names of the node's positional args, in order (the
     * serialized inputs' "name": "stride"); NULL when the file had none.
     * They name the args of a node whose target is arg_names_target (a
     * copy sharing this meta may call something else). */
    const char *const *arg_names;
    const char *arg_names_target;
    uint32_t narg_names;
} exdb_meta;

/* A text field v (key: its metadata key) of m, parsed on first read. */
static inline const char *exdb_meta_read(const exdb_meta *m, const char *v, const char *key) {
    if (!v || !m->defer)
        return v;
    return m->defer->read(m->defer, v, m->defer_src, key);
}
static inline const char *exdb_meta_stack_trace(const exdb_meta *m) {
    return m ? exdb_meta_read(m, m->lazy_stack_trace, "stack_trace") : NULL;
}
static inline const char *exdb_meta_source_fn_stack(const exdb_meta *m) {
    return m ? exdb_meta_read(m, m->lazy_source_fn_stack, "source_fn_stack") : NULL;
}
static inline const char *exdb_meta_torch_fn(const exdb_meta *m) {
    return m ? exdb_meta_read(m, m->lazy_torch_fn, "torch_fn") : NULL;
}
static inline const char *exdb_meta_from_node(const exdb_meta *m) {
    return m ? exdb_meta_read(m, m->lazy_from_node, "from_node") : NULL;
}
/* The value of m's extra key i (i < m->nextra). */
static inline const char *exdb_meta_extra(const exdb_meta *m, uint32_t i) {
    return exdb_meta_read(m, m->lazy_extra[i].value, m->lazy_extra[i].key);
}

/* ---- nodes and graphs */

typedef enum {
    EXDB_OP_PLACEHOLDER,
    EXDB_OP_GET_ATTR,
    EXDB_OP_CALL_FUNCTION,
    EXDB_OP_CALL_METHOD,
    EXDB_OP_CALL_MODULE,
    EXDB_OP_OUTPUT,
} exdb_op;

/* What a call_function target is, since exdb keeps targets as text. */
typedef enum {
    EXDB_T_STR,  /* placeholder/get_attr/call_module/call_method: a name */
    EXDB_T_OP,   /* an OpOverload: torch.ops.<ns>.<op>.<overload> */
    EXDB_T_HOP,  /* a higher-order op: torch.ops.higher_order.<name> */
    EXDB_T_PYFN, /* a Python function: operator.getitem, torch.sym_max... */
} exdb_target_kind;

typedef struct exdb_node {
    /* The first 64 bytes hold what lint and dce read for every node (list
     * links, graph, name and its cached hash, id, user count, opcode), so a
     * walk over a graph bigger than the cache misses once per node. */
    struct exdb_node *prev, *next;
    struct exdb_graph *graph;
    const char *name;
    uint32_t id;                /* creation order within its graph; dense-map key */
    uint32_t stamp;             /* scratch for walks (see graph.c) */
    uint32_t nusers, users_cap; /* users_cap: slots from users on */
    uint32_t name_hash;         /* exdb_strmap_hash(hashed_name) */
    uint8_t op;
    uint8_t tkind;
    uint8_t erased;
    struct exdb_node **users; /* users[0..nusers), FX's Node.users order */
    const char *hashed_name;  /* the name name_hash is of (see exdb_node_name_hash) */
    const char *target;       /* as FX prints it (_pretty_print_target) */
    exdb_arg args;            /* always a TUPLE */
    exdb_arg kwargs;          /* always a DICT */
    const exdb_meta *meta;
    int32_t src; /* index in the serialized nodes array, -1 if none */
    /* 144 bytes: a module graph's node, allocated alone under the journal,
     * takes no 16-byte rounding (a scratch pointer no pass used went) */
} exdb_node;

/* The hash of n's name in its graph's name table: cached when the graph
 * named the node (create_node, the loader's renames), recomputed when the
 * name was assigned some other way since. */
static inline uint32_t exdb_node_name_hash(const exdb_node *n) {
    return n->hashed_name == n->name ? n->name_hash : exdb_strmap_hash(n->name);
}

/* Caches the hash of n's current name (after assigning n->name). */
static inline void exdb_node_hash_name(exdb_node *n) {
    n->name_hash = exdb_strmap_hash(n->name);
    n->hashed_name = n->name;
}

typedef enum { EXDB_INSERT_APPEND, EXDB_INSERT_BEFORE, EXDB_INSERT_AFTER } exdb_insert_mode;

typedef struct exdb_graph {
    exdb_arena *arena;
    exdb_node *head, *tail;
    uint32_t count;         /* live nodes */
    uint32_t next_id;       /* ids handed out so far */
    exdb_strmap names;      /* every name ever used -> live node or NULL */
    exdb_strmap base_count; /* _Namespace._base_count: base -> (uintptr_t)n */
    exdb_insert_mode insert_mode;
    exdb_node *insert_ref; /* NULL: FX's root sentinel (see exdb_graph_insert_before) */
    uint32_t stamp;        /* walk generation counter */
    exdb_node *slab;       /* nodes are carved from slabs (see exdb_graph_create_node) */
    uint32_t slab_left, slab_size;
    /* The slab exdb_graph_reserve made (NULL if none): nodes[0..nreserved)
     * in creation order, so a node's index there is arithmetic on its
     * address (lint checks the name table that way: see lint.c). */
    exdb_node *reserved;
    uint32_t nreserved;
} exdb_graph;

exdb_graph *exdb_graph_new(exdb_arena *a);
/* Sizes g for about n more nodes with about nbases new name bases (the
 * part of a name before its _N suffix: every parameter placeholder has its
 * own): the name tables once, and one node slab for all n, so a loader that
 * knows the counts wastes neither rehashed tables nor half-empty slabs. A
 * hint: -1 only when memory is exhausted. */
int exdb_graph_reserve(exdb_graph *g, uint32_t n, uint32_t nbases);

/* Graph._graph_namespace.create_name: a new name in g made from candidate
 * by _Namespace's rules (exdb_names_create, names.c). The name is reserved
 * for good, even after its node is erased. NULL when out of memory. */
const char *exdb_graph_create_name(exdb_graph *g, const char *candidate);
/* Graph._target_to_str: the default name candidate of a node with this op
 * and target (the callable's __name__ or the string, snake-cased), in a. */
const char *exdb_target_to_str(exdb_arena *a, exdb_op op, const char *target,
                               exdb_target_kind tkind);

/* Graph.create_node. name may be NULL (FX derives it from the target, as
 * _target_to_str does). args must be a TUPLE and kwargs a DICT, or NULL for
 * empty ones; they are stored as given (not copied), as target is (it must
 * outlive g; a name with its text shares it). The node is placed at the
 * insertion point. Returns NULL only when memory is exhausted. */
exdb_node *exdb_graph_create_node(exdb_graph *g, exdb_op op, const char *target,
                                  exdb_target_kind tkind, const exdb_arg *args,
                                  const exdb_arg *kwargs, const char *name);
/* exdb_graph_create_node with a name that outlives g too: the node's name,
 * when it comes out as name's text, is name itself, not a copy (the
 * loader's names live with the program's strings). */
exdb_node *exdb_graph_create_node_kept(exdb_graph *g, exdb_op op, const char *target,
                                       exdb_target_kind tkind, const exdb_arg *args,
                                       const exdb_arg *kwargs, const char *name);

/* Insertion point, as Graph.inserting_before/inserting_after, which stays set
 * until changed. Like FX: successive nodes inserted before n keep their order,
 * successive nodes inserted after n come out reversed (each goes right after
 * n); insert_before(NULL) is the start of the graph (FX's inserting_before(None),
 * so reversed too) and insert_after(NULL) the end. insert_append restores the
 * default (the end). */
void exdb_graph_insert_before(exdb_graph *g, exdb_node *n);
void exdb_graph_insert_after(exdb_graph *g, exdb_node *n);
void exdb_graph_insert_append(exdb_graph *g);

exdb_node *exdb_graph_find(const exdb_graph *g, const char *name);
/* The last output node, or NULL. */
exdb_node *exdb_graph_output(const exdb_graph *g);

/* Graph.erase_node: refuses (-1, FX's message "Tried to erase Node x but it
 * still had 2 users in the graph: {a: None, b: None}!") while the node still
 * has users, and a node of another graph; erasing an erased node does nothing.
 * The node's node arguments become None (as in FX) and its name stays used,
 * though exdb_graph_find no longer finds it. */
int exdb_graph_erase_node(exdb_graph *g, exdb_node *n, exdb_error *err);

/* Node.replace_all_uses_with: every use of n becomes a use of repl; n's
 * users move to the end of repl's users, in their order (one that used both
 * moves too). Returns the number of user nodes changed, or -1 when memory
 * ran out (the users before the one it ran out at are changed, the rest
 * are not). */
int exdb_node_replace_all_uses_with(exdb_node *n, exdb_node *repl);

/* Node.replace_input_with: in n's args/kwargs, old becomes new (new trees;
 * the old ones are not edited). As in FX, n moves to the end of the users of
 * each of its inputs. 0, or -1 when memory ran out (n is left as it was). */
int exdb_node_replace_input_with(exdb_node *n, exdb_node *old, exdb_node *repl);

/* Node.insert_arg: inserts a at position idx of n's args tuple; -1 when
 * idx > number of args (FX asserts). n joins the users of a's nodes that
 * were not inputs yet; other users lists keep their order. */
int exdb_node_insert_arg(exdb_node *n, uint32_t idx, exdb_arg a);

/* Replaces n's args/kwargs (NULL: keep), as assigning node.args does: n
 * leaves its old inputs' users and is appended to its new inputs' users. */
int exdb_node_set_args(exdb_node *n, const exdb_arg *args, const exdb_arg *kwargs);

/* Maps a node of another graph to one of this graph (node_copy's arg_transform). */
typedef exdb_node *(*exdb_node_map_fn)(void *ctx, exdb_node *n);

/* Graph.node_copy: a copy of n (from any graph) at g's insertion point, its
 * node arguments mapped through fn, its name n->name made unique in g, its
 * meta shared, and its name too when it stays as it is (n's graph must
 * outlive g). Returns NULL when fn fails (returns NULL) or memory runs out. */
exdb_node *exdb_graph_node_copy(exdb_graph *g, const exdb_node *n, exdb_node_map_fn fn, void *ctx);

/* Copy of an argument tree into arena a, mapping nodes through fn (fn
 * NULL: nodes kept): every list, tuple and dict that holds a node is new,
 * one that holds none is shared with src (argument trees are never edited
 * in place). Returns -1 when fn returns NULL for some node. */
int exdb_arg_copy(exdb_arena *a, const exdb_arg *src, exdb_arg *dst, exdb_node_map_fn fn,
                  void *ctx);

/* Calls fn for each distinct node referenced by n's args then kwargs, in
 * first-appearance order (FX's Node._input_nodes order). */
typedef void (*exdb_node_visit_fn)(void *ctx, exdb_node *input);
void exdb_node_foreach_input(exdb_node *n, exdb_node_visit_fn fn, void *ctx);

/* Argument constructors (sequences are allocated from a, items zeroed). */
static inline exdb_arg exdb_arg_none(void) {
    exdb_arg a = {0};
    return a;
}
static inline exdb_arg exdb_arg_node(exdb_node *n) {
    exdb_arg a = {.kind = EXDB_ARG_NODE};
    a.u.node = n;
    return a;
}
static inline exdb_arg exdb_arg_int(int64_t i) {
    exdb_arg a = {.kind = EXDB_ARG_INT};
    a.u.i = i;
    return a;
}
static inline exdb_arg exdb_arg_str(const char *s) {
    exdb_arg a = {.kind = EXDB_ARG_STR};
    a.u.s = s;
    return a;
}
/* kind LIST, TUPLE or DICT with n zeroed items (and keys for DICT). */
int exdb_arg_seq(exdb_arena *a, exdb_arg_kind kind, uint32_t n, exdb_arg *out);

const char *exdb_op_name(exdb_op op);
/* "placeholder" -> EXDB_OP_PLACEHOLDER; -1 when unknown. */
int exdb_op_from_name(const char *s);

#endif
