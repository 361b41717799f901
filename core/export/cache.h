/* cache.h - the reopen cache (docs/json-reader.md, "Reopen cache"): what a
 * program opened shape first needs for its prompt, kept in a small entry
 * under a folder of the user's cache ($XDG_CACHE_HOME/exdb, chosen by the
 * REPL: core uses none unless told), so that opening the same file again
 * neither hashes its text nor makes the first pass over it.
 *
 * An entry is looked up by the file's identity (its canonical path, device,
 * inode, size, modification and change times, and the model asked for, as
 * git's index looks a file up) and holds the program's JSON text with the
 * main graph's lazy members ("nodes", "tensor_values") emptied, read back
 * by the same shape-mode loader as the text it came from, plus the node
 * counts and the whole text's XXH3 and length, which the build checks
 * against the file (program.c). Nothing in an entry is trusted before its
 * own XXH3, magic, versions and sizes are checked: a wrong entry is removed
 * and the open goes on without it. */
#ifndef EXDB_CORE_EXPORT_CACHE_H
#define EXDB_CORE_EXPORT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/export/program.h"
#include "core/format/json_value.h"

/* Uses the folder dir for the cache (created 0700 when missing, with its
 * parent; refused when it is a symbolic link, not a folder, not the user's
 * or open to others), or none (NULL: the default). */
void exdb_cache_use(const char *dir);
/* The folder exdb_cache_use set, or NULL. */
const char *exdb_cache_dir(void);
/* The bounds (bytes): an entry larger than entry_max is not written, and
 * the oldest entries go once all of them pass total_max. */
enum { EXDB_CACHE_ENTRY_MAX = 128 << 20, EXDB_CACHE_TOTAL_MAX = 256 << 20 };
void exdb_cache_limits(size_t entry_max, size_t total_max);
/* A file changed less than ns ago (modified or its inode changed: 2 s
 * unless changed; tests pass 0 or an hour) gets no entry, and an entry
 * made less than ns after its file changed is not trusted: a file
 * rewritten within the same clock tick as the entry could keep its size
 * and times (git's "racy clean"). */
#define EXDB_CACHE_RACY_NS 2000000000ull
void exdb_cache_racy(uint64_t ns);
/* The IR entry written after a build by a process of its own (fork: the
 * built program as it is then, copy on write), so that the build returns
 * without waiting for it (~3.5 s at 1M nodes): on for the REPL, off (the
 * default: written before the build returns) for the library and the
 * tests, and always off in the fault-injection build. */
void exdb_cache_ir_async(int on);
int exdb_cache_ir_async_on(void);

/* An entry as read back. */
typedef struct exdb_cache_hit {
    char *data; /* the entry's bytes (mapped or malloc'd): text and member point into it */
    int mapped;
    const char *text;   /* the program JSON, its lazy members emptied, NUL-ended */
    size_t len;         /* its bytes */
    const char *member; /* the archive member it was read from */
    const char *image;  /* cache_image.h's records and strings, or none (image_len 0) */
    size_t image_len;
    uint32_t image_inputs, image_outputs, image_calls;
    uint64_t text_hash;   /* XXH3 of the whole program text */
    uint64_t text_len;    /* its length */
    uint32_t nserialized; /* len(graph.nodes) */
    uint32_t nsubgraphs;  /* the program's subgraphs, nested ones too */
    exdb_node_counts counts;
    char name[48]; /* the entry's file name in the folder */
} exdb_cache_hit;

/* The entry for file path (model: as given to exdb_program_open, or NULL):
 * 1 with it in *h (exdb_cache_hit_free), 0 when there is none that may be
 * trusted (a wrong one is removed). */
int exdb_cache_find(const char *path, const char *model, exdb_cache_hit *h);
void exdb_cache_hit_free(exdb_cache_hit *h);
/* The IR entry of path (model) (cache_ir.h): 1 with it in *h (its image
 * and image_len the IR image, 8-aligned; text NULL; its head's counts and
 * the text's hash and length), 0 when there is none to trust (a wrong one
 * is removed). exdb_cache_drop removes it. */
int exdb_cache_ir_find(const char *path, const char *model, exdb_cache_hit *h);
/* Whether path (model) has an IR entry (not read: a file of its name). */
int exdb_cache_ir_present(const char *path, const char *model);
/* The folder opened (made 0700 with its parent when missing): a
 * descriptor for exdb_cache_ir_put, or -1 (none set, or refused). */
int exdb_cache_dir_open(void);
/* Writes the IR entry of path (model, member) for built program p:
 * image[0..len) (exdb_cache_ir_make) into the folder open at dfd (the
 * caller's: never made again here, so a folder removed since is not), or
 * when dfd is -1 the folder opened here. Nothing when there is no folder, the
 * file changed within the last seconds, or the entry would pass the bound
 * (an IR entry: the file's size, unless exdb_cache_limits was called); the
 * oldest entries go while all pass the total (unless exdb_cache_limits was
 * called: up to 4 GiB or a tenth of the free space when that is more),
 * nor when it passes the soft RLIMIT_FSIZE (exdb_cache_fits). */
typedef struct exdb_cache_piece {
    const void *p;
    size_t n;
} exdb_cache_piece;
void exdb_cache_ir_put(int dfd, const char *path, const char *model, const char *member,
                       const exdb_program *p, const exdb_cache_piece *pieces, int npieces);
/* Removes the entry h was read from (the build found it lying). */
void exdb_cache_drop(const exdb_cache_hit *h);

/* Writes the entry of path (model) for program p, opened shape first from
 * member (its text p->buf, whose first pass gave root; its snapshot's hash,
 * its node counts): its image (cache_image.h), else its text with the main
 * graph's lazy members emptied. Nothing when there is no folder, the file
 * changed within the last seconds, the text is not in the expected form,
 * or the entry would pass the bound. Then the oldest entries go while all
 * pass the total. */
void exdb_cache_put(const char *path, const char *model, const char *member, const exdb_program *p,
                    const exdb_json *root);

/* What `info cache` says: the folder (or NULL), its entries and bytes. */
typedef struct exdb_cache_info {
    const char *dir;
    uint32_t entries;
    uint64_t bytes;
    size_t entry_max, total_max;
} exdb_cache_info;
void exdb_cache_stat(exdb_cache_info *info);
/* Removes every entry: the count removed. */
uint32_t exdb_cache_clear(void);

#endif
