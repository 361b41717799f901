/* cache_format.h - the layout of a reopen cache entry (cache.h;
 * docs/json-reader.md, "Reopen cache"): its head (cache.c) and the image's
 * records (cache_image.c), in one place for the code that writes and reads
 * them and for the tests that forge entries (tests/unit/test_cache.c,
 * tests/fuzz/fuzz_cache.c). Native byte order: another machine's entry
 * fails its magic or its hash. Internal to core/export and its tests. */
#ifndef EXDB_CORE_EXPORT_CACHE_FORMAT_H
#define EXDB_CORE_EXPORT_CACHE_FORMAT_H

#include <stdint.h>

/* The head of an entry; then path, model, member and the program text
 * (the file's, its lazy members emptied; or the slim text of an image),
 * each followed by a NUL, then the image (none when image_len is 0), then
 * the XXH3 of all before. */
typedef struct exdb_cache_head {
    char magic[8];
    uint32_t format, head_size;
    char version[32];
    uint64_t dev, ino, size, mtime_ns, ctime_ns, created_ns; /* the file's, the entry's */
    uint64_t text_len, text_hash, payload_len;
    uint32_t path_len, model_len, member_len, nserialized;
    uint32_t counts[8]; /* nodes, ops[6], getitems */
    uint64_t image_len;
    uint32_t image_inputs, image_outputs, image_calls;
    uint32_t nsubgraphs; /* the program's (exdb_program_subgraph_count) */
} exdb_cache_head;

/* The image's records (read with memcpy), then its strings. A string is
 * an offset into them, EXDB_CACHE_NONE for none. A spec with a value (a
 * constant input or output, a user input that is a constant) stays in the
 * slim text with its graph input or output: json is its index among the
 * slim text's specs (EXDB_CACHE_NONE: the record is the spec); likewise a
 * call graph entry with a signature among the slim text's entries. */
#define EXDB_CACHE_NONE UINT32_MAX
typedef struct exdb_cache_in_rec {
    uint8_t kind;
    int8_t persistent;
    uint8_t pad[2];
    uint32_t name, target, class_fqn, json;
} exdb_cache_in_rec;
typedef struct exdb_cache_out_rec {
    uint8_t kind;
    uint8_t pad[3];
    uint32_t name, target, json;
} exdb_cache_out_rec;
typedef struct exdb_cache_call_rec {
    uint32_t fqn, json;
} exdb_cache_call_rec;

/* ---- the IR image (cache_ir.h): an entry of its own beside the shape
 * entry (the same head, magic EXDBIR01), its payload 8-aligned after the
 * strings. Every section an array of the fixed-size records below; an
 * index into an array is a uint32 (EXDB_CACHE_NONE: none), a string an
 * offset into the STRS section (NUL-ended), a text reference (a lazily
 * read metadata field: a bit of the record's textmask) an offset into the
 * program's text. */
enum {
    EXDB_IR_NODES,
    EXDB_IR_ARGS,
    EXDB_IR_STRREFS,
    EXDB_IR_DOUBLES,
    EXDB_IR_METAS,
    EXDB_IR_STACKS,
    EXDB_IR_KVS,
    EXDB_IR_VALS,
    EXDB_IR_VALREFS,
    EXDB_IR_TMETAS,
    EXDB_IR_SYMS,
    EXDB_IR_NAMES,
    EXDB_IR_BASES,
    EXDB_IR_GRAPHS,
    EXDB_IR_STRS,
    EXDB_IR_NSECT
};
typedef struct exdb_cache_ir_sect {
    uint64_t off, count; /* from the image's start (8-aligned), records */
} exdb_cache_ir_sect;
typedef struct exdb_cache_ir_head {
    uint32_t nsect, flags; /* flags bit 0: lazily read metadata (meta_defer) */
    uint64_t text_len;
    exdb_cache_ir_sect sect[EXDB_IR_NSECT];
} exdb_cache_ir_head;
/* A graph: the main one first, then the subgraphs parent first (the
 * program's subgraphs list backwards: the loader lists a subgraph after
 * the subgraphs inside it). Its nodes, name slots and base slots start
 * where the graph before it ends and end where the next starts (the last
 * at its section's end); name slots hold its own nodes only. A name
 * table's records are its used slots alone, each with its place in the
 * table of names_cap (bases_cap) slots: a subgraph of three nodes keeps
 * three, not the sixteen of its table. */
typedef struct exdb_cache_ir_graph {
    uint32_t nodes, names, bases; /* the first of its NODES, NAMES, BASES records */
    uint32_t next_id;
    uint32_t name;                 /* a subgraph's attribute name; NONE: the main graph */
    uint32_t owner;                /* a subgraph's get_attr node (NODES) in an earlier graph */
    uint32_t names_cap, bases_cap; /* its tables' sizes: 0, or a power of two */
} exdb_cache_ir_graph;
typedef struct exdb_cache_ir_node {
    uint32_t name, target, meta, args, kwargs, id, stamp, name_hash;
    int32_t src;
    uint8_t op, tkind, erased, hashed; /* hashed: name_hash is the name's */
} exdb_cache_ir_node;
typedef struct exdb_cache_ir_arg {
    uint8_t kind;
    uint8_t pad[3];
    uint32_t n;
    uint64_t u;    /* a node index, int64, double's bits, string, ARGS start, DOUBLES index */
    uint32_t keys; /* STRREFS start (a dict's keys) */
    uint32_t pad2;
} exdb_cache_ir_arg;
typedef struct exdb_cache_ir_meta {
    uint32_t stack, nstack; /* STACKS */
    uint8_t has_stack, textmask, has_defer, pad;
    uint32_t strs[6];       /* nn_module_stack, stack_trace, source_fn_stack, torch_fn, custom,
                               from_node */
    uint32_t extra, nextra; /* KVS */
    int32_t defer_src;
    uint32_t val;
    uint32_t arg_names, narg_names, arg_names_target; /* STRREFS */
} exdb_cache_ir_meta;
typedef struct exdb_cache_ir_stack {
    uint32_t key, path, type;
    int32_t call_idx;
} exdb_cache_ir_stack;
typedef struct exdb_cache_ir_kv {
    uint32_t key, value, text, pad; /* text: value is a text reference */
} exdb_cache_ir_kv;
typedef struct exdb_cache_ir_sym {
    uint32_t expr;
    uint8_t has_hint;
    uint8_t pad[3];
    uint64_t v;
} exdb_cache_ir_sym;
typedef struct exdb_cache_ir_val {
    uint8_t kind;
    uint8_t pad[3];
    uint32_t n;
    uint64_t u; /* TMETAS index, a string, VALREFS start, ARGS index; a sym's value */
    uint32_t expr;
    uint8_t has_hint;
    uint8_t pad2[3];
} exdb_cache_ir_val;
typedef struct exdb_cache_ir_tmeta {
    int32_t dtype, layout, requires_grad, device_index;
    uint32_t device_type, ndim, sizes, strides; /* SYMS */
    exdb_cache_ir_sym storage_offset;
} exdb_cache_ir_tmeta;
typedef struct exdb_cache_ir_slot {
    uint32_t key; /* a string */
    uint32_t at;  /* its place in the table: above the graph's slot before it */
    uint32_t val; /* names: a node index (EXDB_CACHE_NONE: NULL); bases: the count */
    uint16_t hi;  /* the key's hash bits the slot keeps (strmap.h) */
    uint16_t pad;
} exdb_cache_ir_slot;

#endif
