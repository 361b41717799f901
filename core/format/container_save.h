/* container_save.h - a copy of a container (container.h) with the program
 * replaced, and what such a copy takes from the original. */
#ifndef EXDB_CORE_FORMAT_CONTAINER_SAVE_H
#define EXDB_CORE_FORMAT_CONTAINER_SAVE_H

#include <stddef.h>

#include "core/base/error.h"
#include "core/format/container.h"

/* Writes a copy of the container to out_path with the program member of
 * `model` replaced by json/len (bare JSON: just the text). Every other member
 * is copied byte for byte, in the same order, stored (method 0); PT2 members
 * get their data aligned to 64 bytes the way PyTorch writes them. Atomic
 * (temporary file in the same directory, fsync, rename). If out_path exists
 * and force == 0, fails with "<out_path>: file exists (use --force to replace
 * it)". */
int exdb_container_save(exdb_container *c, const char *model, const char *json, size_t len,
                        const char *out_path, int force, exdb_error *err);

/* Appends to b what exdb_container_save copies of a zip besides the
 * program: every member's name, size, CRC-32, modification time and
 * attributes, in order, and the archive comment (nothing for bare JSON).
 * Two opens of an unchanged file describe it alike (snapshot.c hashes it
 * to tell that the archive save copies from is the one loaded). */
struct exdb_buf;
int exdb_container_describe(exdb_container *c, struct exdb_buf *b, exdb_error *err);

#endif
