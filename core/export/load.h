/* load.h - the loader's state, shared by the files that turn ExportedProgram
 * JSON into an exdb_program (program.c drives them), and its vocabulary:
 * errors naming the file and the JSON path, the text checks PyTorch's
 * loader makes on strings it keeps, the limits of program.h, and typed
 * accessors. Each accessor takes the value (NULL when the key is absent) and
 * its path; a missing key is reported at the parent as `missing key "k"`, a
 * wrong type as "expected X, found Y".
 *
 * Names: the loader is split by what it loads (docs/pt2-format.md), one file
 * each: load_path.c (exdb_load_path_*), load_value.c (exdb_load_value_*),
 * load_meta.c (exdb_load_meta*), load_arg.c (exdb_load_arg*), load_node.c
 * (exdb_load_node*), load_graph.c (exdb_load_graph*), load_signature.c
 * (exdb_load_signature*, the module_call_graph too); any other exdb_load_*
 * name is load.c's (the loader's state, messages, text checks and typed
 * accessors); program.c is the top level (exdb_program_*, program.h). Each
 * load_X.h declares what load_X.c defines; they are private to core/export
 * (not libexdb's API). */
#ifndef EXDB_CORE_EXPORT_LOAD_H
#define EXDB_CORE_EXPORT_LOAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/base/strmap.h"
#include "core/export/load_path.h"
#include "core/export/program.h"
#include "core/format/json.h"
#include "core/format/json_ahead.h"

typedef struct parsed_stack {
    const char *text; /* the nn_module_stack string, in the program's arena */
    exdb_stack_entry *entries;
    uint32_t n;
    uint32_t len; /* strlen(text) */
} parsed_stack;

/* JSON bytes per node a graph may reserve room for ahead (a node is
 * ~200 bytes of IR; the smallest one PyTorch could load is ~40 bytes of
 * JSON, a real one ~2 KB). */
#define RESERVE_BYTES 64

typedef struct loader {
    exdb_program *prog;
    exdb_arena *a;
    exdb_arena *args;  /* where node argument trees go (exdb_program.args_arena) */
    const char *fname; /* what messages call the input */
    exdb_error *err;
    int legacy_unions; /* schema < 5: unions list every alternative */
    /* Parsed nn_module_stack strings by their text: consecutive nodes of a
     * module share one string, so each distinct stack is parsed once. */
    exdb_strmap stacks;
    const parsed_stack *last_stack; /* the previous node's, checked first */
    /* Module fqns seen (with their parents), for EXDB_MAX_MODULES; keys are
     * copies in the DOM's arena. */
    exdb_strmap modules;
    size_t module_bytes;    /* their text, for EXDB_MAX_MODULE_BYTES */
    uint64_t nnodes;        /* graph inputs and nodes so far, for EXDB_MAX_NODES */
    uint32_t subgraphs_cap; /* room in prog->subgraphs */
    /* Nodes the graphs may still reserve room for ahead (exdb_load_graph): one
     * per RESERVE_BYTES of JSON, all graphs together. Real programs take
     * ~2 KB per node and never reach it; without it 3.9M empty `{}` nodes
     * (11.7 MB) reserved 891 MB before the first was refused. */
    uint64_t reserve_left;
    /* The DOM of one node or tensor_values entry of the main graph at a
     * time (parsed lazily: see exdb_program_from_json). */
    exdb_arena node_dom;
    /* The decoded strings of the table entry being loaded when its parse
     * found it clean (EXDB_JTEXT_CLEAN): the strings in [clean_lo,
     * clean_hi) need no exdb_load_check_text (exdb_load_table_entry sets
     * it). */
    const char *clean_lo, *clean_hi;
    /* The first pass found its whole text ASCII, with no \u escape to
     * U+0000 or past U+007F (the root's EXDB_JTEXT_CLEAN): every string of
     * its DOM is clean (exdb_load_root_begin). */
    int root_clean;
    /* Where the JSON reader decodes the strings the IR keeps (the
     * program's text_arena; strs_mu held around its chunk allocations
     * while the parse-ahead thread runs). */
    exdb_jstrings strs;
    pthread_mutex_t strs_mu;
    /* The table entries' text before this has had its pages given back
     * (exdb_load_table_entry). */
    const char *dropped;
    /* Those entries parsed in a second thread ahead of the loader, or NULL
     * (exdb_program_from_json). */
    exdb_json_ahead *ahead;
} loader;

/* A graph being rebuilt: its value-name scope (serialized_name_to_node). */
typedef struct gscope {
    exdb_graph *g;
    exdb_strmap values; /* value name -> exdb_node* */
    /* The value tables' entries in file order: mkey[i]'s meta["val"] is
     * mval[i] (exdb_load_value_find). PyTorch writes tensor_values in the
     * order the nodes define them, so the next entry (mnext) is almost
     * always the one asked for; metas (value name -> index + 1, the last
     * of repeated names) is built only on the first lookup that is not, or
     * from the start when a name may repeat (mdup). */
    const char **mkey;
    exdb_val **mval;
    uint32_t mcount, mnext;
    int mdup, mindexed;
    exdb_strmap metas;
    const exdb_json *jgraph;
} gscope;

/* "FILE: PATH: message": the load's error, returns -1. */
__attribute__((format(printf, 3, 4))) int exdb_load_fail(loader *L, const jpath *p, const char *fmt,
                                                         ...);
/* "FILE: out of memory", returns -1. */
int exdb_load_oom(loader *L);

/* Refuses a string the loader keeps that holds U+0000 or is not UTF-8. */
int exdb_load_check_text(loader *L, const char *s, size_t n, const jpath *p);
/* exdb_load_check_text of a JSON string value. */
int exdb_load_check_str(loader *L, const exdb_json *v, const jpath *p);
/* exdb_load_check_text of an object key, reported at the object p. */
int exdb_load_check_key(loader *L, const char *k, const jpath *p);
/* A name within EXDB_MAX_NAME_BYTES; what names it in the message. */
int exdb_load_check_name(loader *L, const char *s, const jpath *p, const char *what);
/* Counts module fqn[0..len) and its parents against EXDB_MAX_MODULES and
 * EXDB_MAX_MODULE_BYTES. An fqn that ends at len (a program's string) must
 * outlive the loader: its table keeps it as the key, not a copy. */
int exdb_load_count_module(loader *L, const char *fqn, size_t len, const jpath *p);

/* obj[key], NULL when absent or null. */
const exdb_json *exdb_load_get_opt(const exdb_json *obj, const char *key);
/* The message for a required value that is absent (v NULL) or of the wrong
 * type. */
int exdb_load_type_fail(loader *L, const exdb_json *v, const jpath *p, const char *what);
int exdb_load_need_obj(loader *L, const exdb_json *j, const jpath *p);
int exdb_load_need_arr(loader *L, const exdb_json *j, const jpath *p);
/* A required string member (checked as text). */
int exdb_load_get_str(loader *L, const exdb_json *obj, const char *key, const jpath *p,
                      const char **out);
/* An integer that fits int64. */
int exdb_load_as_int(loader *L, const exdb_json *v, const jpath *p, int64_t *out);
/* A number, or Infinity / -Infinity / NaN. */
int exdb_load_as_double(loader *L, const exdb_json *v, const jpath *p, double *out);
int exdb_load_as_bool(loader *L, const exdb_json *v, const jpath *p, int *out);
/* A union (single-key object, or schema <= 4's object of every alternative):
 * *tag gets the variant's name, *val its payload. */
int exdb_load_get_union(loader *L, const exdb_json *u, const jpath *p, const char *what,
                        const char **tag, const exdb_json **val);
/* An array of strings (checked as text) into *out. */
int exdb_load_str_list(loader *L, const exdb_json *j, const jpath *p, const char ***out,
                       uint32_t *n);
/* An entry of a table left unparsed by the lazy parse (nodes,
 * tensor_values), parsed into *parsed in L->node_dom (or taken from
 * L->ahead's thread); other values as they are. NULL when the parse fails.
 * Valid until the next call. */
/* The pages of a mapped text (core/base/filemap.h) that the table entries
 * loaded before at (in the same table, read in file order) sat in are
 * given back, DROP_STEP bytes at a time: the load keeps no more of the
 * text in memory than that and what the parse-ahead thread has parsed
 * (exdb_load_table_entry calls it; a reader of entries off their text
 * too). */
void exdb_load_drop_behind(loader *L, const char *at);
const exdb_json *exdb_load_table_entry(loader *L, const exdb_json *e, exdb_json *parsed);
/* A lazy element of the root DOM (the main graph's inputs, the input
 * specs: program.c) that was not read off its text, parsed into *parsed
 * (L->node_dom, its strings into strs); any other value as it is. The
 * clean range is then the element's own (none unless its parse found it
 * clean): the caller puts the one before back. NULL with L->err set when
 * the text is malformed or memory runs out. */
const exdb_json *exdb_load_root_entry(loader *L, const exdb_json *e, exdb_jstrings *strs,
                                      exdb_json *parsed);

/* While the loader reads strings of the root DOM only (root: the
 * signature, the main graph's inputs, the module call graph; not a
 * subgraph's inputs): when root_clean, every string is taken as clean (the
 * whole address range), the table entry's range saved in saved and put
 * back by exdb_load_root_end. */
static inline void exdb_load_root_begin(loader *L, int root, const char *saved[2]) {
    saved[0] = L->clean_lo;
    saved[1] = L->clean_hi;
    if (root && L->root_clean) {
        L->clean_lo = (const char *)0;
        L->clean_hi = (const char *)UINTPTR_MAX;
    }
}

static inline void exdb_load_root_end(loader *L, const char *const saved[2]) {
    L->clean_lo = saved[0];
    L->clean_hi = saved[1];
}

#endif
