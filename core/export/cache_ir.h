/* cache_ir.h - the IR image of a reopen cache entry (docs/json-reader.md,
 * "Reopen cache", "An image of the IR"): a built program's graphs, the
 * main one and its subgraphs (their nodes, args, metadata and values,
 * name tables; a subgraph's name and owner) as records with
 * offsets and one string table (cache_format.h), written after a build and
 * put back, at the next build of the same file opened from the cache,
 * instead of the first pass over the text and the build. Metadata read
 * lazily stays lazy: its fields are offsets into the program's text.
 *
 * Names: cache_ir.c defines exdb_cache_ir_*. */
#ifndef EXDB_CORE_EXPORT_CACHE_IR_H
#define EXDB_CORE_EXPORT_CACHE_IR_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/strbuf.h"
#include "core/export/cache.h"
#include "core/export/cache_format.h"
#include "core/export/program.h"

/* The image of built program p (its text p->buf, p->json_bytes) in parts:
 * its head and each section, laid out (offsets, padding) as written. */
typedef struct exdb_cache_ir_parts {
    exdb_cache_ir_head head;
    exdb_buf sect[EXDB_IR_NSECT];
    uint64_t len; /* the image's bytes */
} exdb_cache_ir_parts;
/* 0, or -1 when p is not one an image holds (a subgraph not after its
 * parent in the image's order, cache_format.h; a lazily read
 * field not in the text, a text of 4 GiB or more, users not in the order
 * the nodes' inputs make, memory). */
int exdb_cache_ir_make_parts(const exdb_program *p, exdb_cache_ir_parts *out);
void exdb_cache_ir_parts_free(exdb_cache_ir_parts *parts);
/* The image's bytes in order, as pieces (at most EXDB_CACHE_IR_PIECES):
 * their count. */
enum { EXDB_CACHE_IR_PIECES = 2 * EXDB_IR_NSECT + 2 };
int exdb_cache_ir_pieces(const exdb_cache_ir_parts *parts, exdb_cache_piece *out);
/* The image in one buffer (out): 0, or -1 as exdb_cache_ir_make_parts. */
int exdb_cache_ir_make(const exdb_program *p, exdb_buf *out);

/* The one linear pass over image[0..len) (8-aligned) before anything is
 * built from it, for a text of text_len bytes: every section inside the
 * image, every string offset inside the table (which ends with a NUL),
 * every index and range inside its array, kinds and ops in range, a
 * node's args naming earlier nodes of its own graph only, a list's items
 * after it, a value's items before it, the name tables' sizes and keys;
 * each graph the loader's shape (placeholders first, one output last),
 * each subgraph named and owned by a get_attr node of an earlier graph
 * that owns no other, nested at most EXDB_JSON_MAX_DEPTH deep. 0, or -1. */
int exdb_cache_ir_check(const char *image, size_t len, uint64_t text_len);

/* The image checked by exdb_cache_ir_check put back into p as its graph
 * and subgraphs (subgraph_names, subgraphs_by_owner indexed as the loader
 * does; p->buf the text it was made with, p->json_bytes its length;
 * nothing of the image kept): 0, or -1 when memory ran out. */
int exdb_cache_ir_install(exdb_program *p, const char *image, size_t len);

/* The size of a record of section sect (cache_format.h's EXDB_IR_*). */
size_t exdb_cache_ir_rec_size(int sect);

#endif
