/* save.h - write the current program back in the format it came from.
 *
 * exdb does not serialize its IR: it re-reads the program JSON the program
 * was loaded from, drops what the graph no longer has (serialized nodes whose
 * node dce removed, and their entries in the value tables), and writes the
 * rest exactly as Python's json.dumps would (", " and ": " separators,
 * ensure_ascii, every number's text as it was, keys in file order). So a
 * program saved without changes is the same JSON (byte for byte when Python
 * wrote it). Archives keep every other member byte for byte
 * (exdb_container_save).
 *
 * The file is re-read by its absolute path and used only when it is still
 * the one loaded (snapshot.h: the program text's hash, an archive's member
 * list); otherwise save fails saying so, and writes nothing. The write is
 * atomic, replaces only a regular file, and only when forced; its temporary
 * files go when a signal ends exdb (outfile.h).
 *
 * What is dropped, precisely:
 *   - graph_module.graph.nodes[i] when the node loaded from it is gone. The
 *     getitem nodes of a multi-output op are all-or-nothing: the serialized
 *     node goes only once the op's node itself is gone (which needs every
 *     getitem gone first). A dead getitem of a live op has no separate
 *     serialized form: the op's output stays in the file (PyTorch names such
 *     outputs "<op>_unused_<i>"), so reloading recreates that getitem.
 *   - the tensor_values / sym_*_values / custom_obj_values entries named by
 *     the outputs of dropped nodes (nothing else refers to them: value names
 *     are unique and a dropped node had no users; module_call_graph
 *     signatures may still name them, which unflatten tolerates).
 * Subgraphs of higher-order ops are written as they were loaded. */
#ifndef EXDB_CORE_EXPORT_SAVE_H
#define EXDB_CORE_EXPORT_SAVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/fx/dce.h"
#include "core/base/error.h"
#include "core/format/json.h"
#include "core/export/program.h"
#include "core/base/strbuf.h"

typedef struct exdb_save_stats {
    uint32_t nodes_dropped;  /* serialized nodes left out */
    uint32_t values_dropped; /* value-table entries left out */
    /* getitem nodes the graph no longer has (dce removed them) that the
     * file keeps anyway, as outputs of a multi-output op that stays: with
     * nodes_dropped 0 the program JSON is the one loaded */
    uint32_t getitems_kept;
    size_t bytes; /* program JSON bytes written */
} exdb_save_stats;

/* Writes p to out_path (same container kind as p was loaded from). force = 0
 * fails with "<out_path>: file exists (use --force to replace it)" when the
 * file exists; a target that is not a regular file is refused either way.
 * stats may be NULL. */
int exdb_program_save(const exdb_program *p, const char *out_path, int force,
                      exdb_save_stats *stats, exdb_error *err);

/* The program JSON save would write, into b (for tests and `save -`). */
int exdb_program_save_json(const exdb_program *p, exdb_buf *b, exdb_save_stats *stats,
                           exdb_error *err);

/* Of the nodes a dce of p's flat graph removed (or would remove: a dry
 * run's log), how many save keeps in the file anyway: getitems of outputs
 * of a multi-output op that the same log does not remove. The format has no
 * node for them (the op's outputs name them; the loader makes the getitems),
 * so when every removed node is one, save writes the program as loaded. */
#define EXDB_SAVE_KEPT_UNKNOWN UINT32_MAX /* out of memory counting them */
uint32_t exdb_save_kept_getitems(const exdb_program *p, const exdb_dce_log *log);

/* json.dumps(value) with default separators and ensure_ascii=True; numbers
 * are written as their source text. */
void exdb_json_dump(exdb_buf *b, const exdb_json *j);

/* Deep equality of two parsed JSON values, object keys in any order (the
 * last of repeated keys counts, as in Python); numbers compare by value. */
int exdb_json_equal(const exdb_json *a, const exdb_json *b);

#endif
