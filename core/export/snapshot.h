/* snapshot.h - a loaded program is a snapshot of its file.
 *
 * After loading, exdb never reads the file again for what it shows: the
 * STATE phase of every unflatten run and lint's state checks take a pt2
 * archive's payload configs (data/weights/<model>_weights_config.json,
 * data/constants/<model>_constants_config.json) from what was read at load
 * time. A `cd`, or the file changed, moved or removed, changes nothing.
 *
 * `save` is different: it writes the file back with dce's removals left
 * out, re-serializing the program JSON from its original bytes (the text
 * in memory may be a mapping of a file changed since, docs/json-reader.md) and,
 * for an archive, copying every other member (the weights) byte for byte.
 * Two ways to have those bytes: keep them, or go back to the file and make
 * sure it is still the one loaded. exdb keeps a content hash and the
 * absolute path (the second way), because keeping the JSON would add the
 * file's size to every session's memory (the largest allocation there is)
 * only for save, and an archive's weights, which save copies too, could
 * not be kept anyway. So save re-reads the file by its absolute path (a
 * `cd` does not matter) and proceeds only when the program JSON hashes to
 * what was loaded and, for a zip, the list of members (names, sizes,
 * CRC-32s, times, attributes; libzip checks each member's data against its
 * CRC as it copies) is the one loaded. A file edited, replaced by another
 * of the same name, moved or removed is refused with a message saying so
 * and what to do (load it again); nothing is written.
 *
 * The hash is XXH3 (64-bit): it detects a changed file, it is not meant to resist
 * someone forging a collision (who could as well edit the file before
 * exdb loads it), and it costs a fraction of the load (GB/s). */
#ifndef EXDB_CORE_EXPORT_SNAPSHOT_H
#define EXDB_CORE_EXPORT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/format/container.h"
#include "core/base/error.h"
#include "core/export/program.h"

/* A member read at load time: its text, or why it could not be read (the
 * error is reported when something needs the member, as before). */
typedef struct exdb_snap_member {
    const char *label; /* "FILE: MEMBER", for messages */
    const char *bytes; /* NUL-terminated; NULL when absent or unreadable */
    size_t len;
    const char *error; /* the read's message, or NULL */
} exdb_snap_member;

typedef struct exdb_snapshot {
    const char *given;                   /* the path loaded, made absolute (the working
                                          * directory then joined to a relative one) */
    char *real;                          /* PATH_MAX bytes: exdb_snapshot_abs_path's, once */
    int real_taken;                      /* whether real holds it (snapshot.c's lock) */
    uint64_t dev, ino;                   /* its identity at load (render never writes over it) */
    int kind;                            /* exdb_container_kind */
    const char *model;                   /* the model save names to the container, or NULL */
    uint64_t program_hash;               /* XXH3 (64-bit) of the program JSON as read */
    size_t program_len;                  /* its length */
    uint64_t members_hash;               /* zips: XXH3 of exdb_container_describe; 0 for JSON */
    exdb_snap_member weights, constants; /* pt2 payload configs (else absent) */
} exdb_snapshot;

/* The loader's last step (exdb_program_load, program.c): builds the
 * program with exdb_program_open_json (shape first when shape_first:
 * program.h), and records in it (p->snapshot) what run and save need from
 * the open container c, with hash, the XXH3 of the program text buf as read
 * (exdb_container_read_program_to_load; for a mapped text whose hash that
 * left to the load, the hash exdb_filemap_hash gives after it instead).
 * model as given to
 * exdb_program_load. */
exdb_program *exdb_snapshot_load(exdb_container *c, const char *model, char *buf, size_t len,
                                 uint64_t hash, const char *label, int shape_first,
                                 exdb_error *err);

/* Records in p (p->snapshot) what run and save need from the open
 * container c, the program text being len bytes of XXH3 hash (a program
 * opened from the reopen cache: the entry's, checked by its build). */
int exdb_snapshot_attach(exdb_program *p, exdb_container *c, const char *model, uint64_t hash,
                         size_t len, exdb_error *err);

/* Reads member rel of c into m (arena strings): its text, or absent, or
 * the error. -1 only when out of memory. */
int exdb_snapshot_read_member(exdb_container *c, const char *rel, exdb_arena *a,
                              exdb_snap_member *m, exdb_error *err);

/* The file s was loaded from, absolute, symbolic links resolved: realpath
 * of the path given, made absolute at load (a `cd` since does not matter),
 * resolved the first time it is asked for (save, render's check, a program
 * opened from the reopen cache), not during the load, where realpath's
 * system calls (a readlink per component, a stat) cost ~2% of a small
 * program's warm load. A symbolic link on the way retargeted in between
 * leads to the file it names then, which save checks against the hash
 * (another file is refused as changed on disk). The path as given when
 * realpath fails (the file gone). Safe from any thread. */
const char *exdb_snapshot_abs_path(const exdb_snapshot *s);

/* For save: opens the file p was loaded from (by its absolute path), checks
 * that it is the one loaded, and returns it open with the program JSON in
 * *buf (released with exdb_mem_release). -1 with a message saying what
 * changed and what to do; p without a snapshot (exdb_program_from_json) has
 * no file to go back to. */
int exdb_snapshot_reopen(const exdb_program *p, exdb_container **c, char **buf, size_t *len,
                         exdb_error *err);

/* XXH3_64bits (no seed): the hash of the program text and of the members. */
uint64_t exdb_hash64(const void *data, size_t len);

#endif
