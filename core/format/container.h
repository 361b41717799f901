/* container.h - find the ExportedProgram JSON inside a file.
 *
 * A torch.export program arrives in one of three containers
 * (docs: docs/pt2-format.md section 1):
 *   - a PT2 archive (torch >= 2.8): a zip with archive_format = "pt2" and one
 *     program per model name in models/<name>.json, all members usually under
 *     one top-level folder;
 *   - a legacy export zip (torch 2.2-2.7): serialized_exported_program.json
 *     plus a version member;
 *   - a bare JSON file holding the program itself.
 * This layer only locates and reads the program text (never extracting to
 * disk); container_save.h writes a copy of the container with the program
 * replaced. */
#ifndef EXDB_CORE_FORMAT_CONTAINER_H
#define EXDB_CORE_FORMAT_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/error.h"

typedef enum { EXDB_CONT_JSON, EXDB_CONT_PT2, EXDB_CONT_LEGACY_ZIP } exdb_container_kind;

typedef struct exdb_container exdb_container;

#define EXDB_MAX_PROGRAM_BYTES                                                                     \
    ((size_t)2 << 30) /* 2 GiB; larger program members/files are refused */

/* A compressed member may inflate to at most this many times its
 * compressed size (once it inflates past EXDB_INFLATE_RATIO_FLOOR bytes):
 * a zip bomb check, as zip readers of browsers and archivers make one.
 * Deflate can reach ~1032:1; torch writes its members stored, and program
 * JSON deflates ~10-50:1. */
#define EXDB_MAX_INFLATE_RATIO   200
#define EXDB_INFLATE_RATIO_FLOOR ((size_t)1 << 20)

/* Opens path and decides what it is. 0 on success, -1 with err set. */
int exdb_container_open(const char *path, exdb_container **out, exdb_error *err);

exdb_container_kind exdb_container_kind_of(const exdb_container *c);

/* "json", "pt2" or "zip" - for messages and `info`. */
const char *exdb_container_kind_name(exdb_container_kind kind);

const char *exdb_container_path(const exdb_container *c);
/* The device and inode numbers of the file opened (its stat at open). */
void exdb_container_identity(const exdb_container *c, uint64_t *dev, uint64_t *ino);

/* Bare JSON and legacy zip: 1 ("model"). */
size_t exdb_container_model_count(const exdb_container *c);

/* NULL when i is out of range. */
const char *exdb_container_model_name(const exdb_container *c, size_t i);

/* The archive_version text of a PT2 archive, the version member of a legacy
 * zip (trailing whitespace removed), or NULL (bare JSON, member absent). */
const char *exdb_container_version(const exdb_container *c);

/* The top-level folder all members of a zip sit under ("model" for
 * model/archive_format), or "" when they sit at the root or for bare JSON. */
const char *exdb_container_archive_name(const exdb_container *c);

/* The member model's program is read from (NULL: the only model's), as
 * exdb_container_read_program names it, without reading it; NULL when
 * there is no such model. */
const char *exdb_container_program_member(const exdb_container *c, const char *model);

/* Reads the program JSON of model `model` (NULL = the only model; if there
 * are several, fails with a message listing the model names). *buf is
 * NUL-terminated and the caller's, released with exdb_mem_release (arena.h:
 * a bare JSON file's text comes from the arena block cache, so a reload
 * reuses its memory); *member gets the member name
 * (e.g. "models/model.json" or "serialized_exported_program.json"; the file
 * path itself for bare JSON), owned by c. len and member may be NULL. */
int exdb_container_read_program(exdb_container *c, const char *model, char **buf, size_t *len,
                                const char **member, exdb_error *err);
/* exdb_container_read_program, and the XXH3 (64-bit, no seed) of the text read
 * into *hash: taken as a bare JSON file is read, a chunk at a time while
 * it is in the cache, not in a second pass over the text. */
int exdb_container_read_program_hashed(exdb_container *c, const char *model, char **buf,
                                       size_t *len, const char **member, uint64_t *hash,
                                       exdb_error *err);
/* exdb_container_read_program_hashed for a text about to be loaded: when it
 * is a mapped bare JSON file (core/base/filemap.h), its hash is not taken
 * now but as the loader gives its pages back (exdb_filemap_hash_start;
 * exdb_filemap_hash gives it after the load) and *hash is 0: the hash then
 * costs no pass of its own over the file's pages. */
int exdb_container_read_program_to_load(exdb_container *c, const char *model, char **buf,
                                        size_t *len, const char **member, uint64_t *hash,
                                        exdb_error *err);

/* Reads member rel (relative to the archive folder, e.g.
 * "data/weights/model_weights_config.json") into a malloc'd NUL-terminated
 * buffer, refusing members declared larger than max. Returns 0, 1 when the
 * container has no such member (or is bare JSON), -1 on error. */
int exdb_container_read_member(exdb_container *c, const char *rel, size_t max, char **buf,
                               size_t *len, exdb_error *err);

/* NULL is fine. */
void exdb_container_close(exdb_container *c);

#endif
