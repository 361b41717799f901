/* container_impl.h - the insides of an exdb_container, shared by
 * container.c (which opens and reads containers and defines the functions
 * below) and container_save.c (which writes copies of them). Not part of
 * libexdb's API. */
#ifndef EXDB_CORE_FORMAT_CONTAINER_IMPL_H
#define EXDB_CORE_FORMAT_CONTAINER_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zip.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/format/container.h"

#define SMALL_MEMBER_MAX 256    /* archive_format, archive_version, version */
#define PT2_ALIGN        64     /* PyTorch's kFieldAlignment */
#define FB_EXTRA_ID      0x4246 /* the bytes 'F','B' read as a little-endian u16 */
#define LOCAL_HEADER_LEN 30
#define ZIP64_LOCAL_LEN  20                /* id, length, uncompressed and compressed size */
#define READ_STEP        ((size_t)1 << 20) /* first buffer for a member; doubles */

typedef struct cont_model {
    const char *name;   /* model name: "model" for models/model.json */
    const char *member; /* member name relative to the archive folder */
    zip_uint64_t index; /* zip index of the member; unused for bare JSON */
} cont_model;

struct exdb_container {
    exdb_arena arena; /* every string and array below */
    const char *path;
    exdb_container_kind kind;
    zip_t *za;          /* NULL for bare JSON */
    const char *folder; /* "model" for model/archive_format, else "" */
    const char *base;   /* prefix the program members were found under: "model/" or "" */
    cont_model *models;
    size_t nmodels;
    const char *version;
    mode_t mode; /* permission bits, given to saved copies */
    /* bare JSON: the descriptor exdb_container_open sniffed the file
     * through, plus 1 (0: none), which the first read of the program takes
     * instead of opening the file again */
    int json_fd1;
    uint64_t dev, ino; /* the file's, at open (its stat) */
};

/* The name shown for a member in messages: relative to the archive folder,
 * the way docs/pt2-format.md and PyTorch name them. */
const char *exdb_container_member_display(const exdb_container *c, const char *name);

/* libzip's text for an error code from zip_open. */
void exdb_container_zip_code_text(int code, char *out, size_t n);

/* The model a read or save is about (NULL: the only one), or NULL with err
 * set, listing the models. */
const cont_model *exdb_container_resolve_model(const exdb_container *c, const char *model,
                                               exdb_error *err);

/* One pass over a mapped text p[0..n) (filemap.h), a chunk at a time: each
 * chunk's pages populated in one call, read, then given back (the loader
 * faults them in again as it reads them), so the pass keeps no more than a
 * chunk of the file in memory. Returns the CRC-32 when crc_too (else the
 * CRC of nothing) and puts the XXH3 into *hash when hash is not NULL. */
uint32_t exdb_container_text_pass(const char *p, size_t n, int crc_too, uint64_t *hash);

/* Maps the program member idx when it is stored uncompressed (filemap.h,
 * container_map.c), its CRC-32 checked and its XXH3 taken into *hash (when
 * not NULL) in one pass: 0 with *buf (released with exdb_mem_release) and
 * *len set, or 1 when it is not mapped (compressed, empty, over max, an odd
 * archive, a failed mapping or a CRC that does not match): the caller then
 * reads it through libzip, which reports what is wrong. */
int exdb_container_map_member(exdb_container *c, zip_uint64_t idx, size_t max, char **buf,
                              size_t *len, uint64_t *hash);

#endif
