/* filemap.h - a program's text as a read-only mapping of its file, and the
 * guard that keeps a file truncated under the mapping from killing exdb.
 *
 * The JSON reader never writes into the text (core/format/json.h), so the
 * text of a bare JSON program is mapped rather than read: no copy out of
 * the page cache, no fresh pages to zero, and the pages count once, in the
 * page cache (docs/json-reader.md measured it). A mapping keeps showing
 * the file as it is on disk: a file truncated while exdb holds it mapped
 * (torch.export.save opens with "wb", which truncates in place) makes a
 * later read of a page past the new end raise SIGBUS. The guard catches
 * it: for an address inside a mapped text it maps a zero page over the
 * page (the read then sees NULs and the reader refuses the text) and marks
 * the text changed (exdb_filemap_changed), so that the command that read
 * it fails with "FILE changed on disk since it was loaded; load it again"
 * and the REPL goes on. A SIGBUS anywhere else goes to the handler there
 * was before, or kills the process as before (one sent with kill() is
 * raised again under the default action). A file rewritten in place shows its new bytes: a
 * reader asks exdb_filemap_changed (the file's size and modification time)
 * before it trusts what it read. A file replaced by another (renamed over
 * it) is not a change: the mapping keeps the old file. */
#ifndef EXDB_CORE_BASE_FILEMAP_H
#define EXDB_CORE_BASE_FILEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Maps len bytes of the open file fd from offset 0, read-only, with a NUL
 * at (*out)[len] (the zeros the kernel puts after a file's last byte in its
 * last page, or an anonymous zero page after it when len ends a page), and
 * puts it under the guard. 0, or -1 with errno set (the caller reads the
 * file instead). len 0 is refused (EINVAL). */
int exdb_filemap_map(int fd, size_t len, const char **out);
/* exdb_filemap_map for a caller that has just taken st, fd's fstat, and
 * hands fd over: on success the text keeps fd itself (no copy of it, no
 * second fstat; the caller no longer closes it), on failure fd is still the
 * caller's. Two system calls fewer a load. */
int exdb_filemap_map_taking(int fd, const struct stat *st, size_t len, const char **out);
/* exdb_filemap_map for the len bytes at offset off of the file (a member
 * stored inside an archive): the pages holding them mapped, *out pointing
 * at the first, and (*out)[len] a NUL (when a byte of the file follows the
 * text, the page holding it is a private copy of the file's page with that
 * byte made a NUL; it is never given back). The range must lie inside the
 * file (else EINVAL). The guard and exdb_filemap_changed hold as for a
 * whole file: the file's size and modification time at map time. */
int exdb_filemap_map_at(int fd, uint64_t off, size_t len, const char **out);
/* Whether p is the start of a text exdb_filemap_map gave (and not
 * released yet). */
int exdb_filemap_is(const void *p);
/* Unmaps the text p and takes it from the guard; 0 when p is not one
 * (nothing done). */
int exdb_filemap_release(const void *p);
/* Whether the file under the text p (or any pointer into it) changed since
 * it was mapped: a read met the end of a truncated file (the guard mapped
 * zeros there), or the file (kept open) has another size or modification
 * time now. Once changed, changed for good. A system call (fstat). */
int exdb_filemap_changed(const void *p);
/* The whole pages of text p inside [from, upto) are given back (a later
 * read faults them in again from the page cache): a loader done with a
 * part of the text keeps the process's memory below the file's size. A
 * no-op when p is not a mapped text. */
void exdb_filemap_drop(const void *p, const void *from, const void *upto);
/* Texts under this many bytes keep their pages (exdb_filemap_drop only
 * moves the hash along): the load's peak held them all anyway, they are
 * page cache, shared, and the madvise giving them back cost ~1-2% of a
 * small program's warm load (docs/json-reader.md). */
#define EXDB_FILEMAP_GIVE_BACK_MIN ((size_t)2 << 20)
/* Texts of at least this many bytes get exdb_filemap_ahead_start's thread
 * (below, a thread costs more than the page faults it spares). */
#define EXDB_FILEMAP_AHEAD_MIN ((size_t)32 << 20)
/* Starts a thread that maps the pages of text p in (MADV_POPULATE_READ),
 * 2 MiB at a time, up to 8 MiB past the end of what the reader last gave
 * back with exdb_filemap_drop, for a reader that reads the text in order
 * and gives it back behind itself (the JSON reader's first pass): on two
 * cores the reader then finds its pages mapped rather than taking a fault
 * per 16 of them, at the cost of at most 10 MiB more of the text mapped
 * at once. The reader never waits for it: a page not mapped yet is
 * faulted in by the read as before. A no-op for a text under
 * EXDB_FILEMAP_AHEAD_MIN bytes, not mapped, or under fault injection. */
void exdb_filemap_ahead_start(const void *p);
/* Stops the thread of exdb_filemap_ahead_start (no-op without one). */
void exdb_filemap_ahead_stop(const void *p);
/* Starts taking the XXH3 (64-bit, no seed) of text p as its pages are
 * given back: each exdb_filemap_drop first hashes the text from where the
 * hash stopped up to the end of what it gives back, so a loader that gives
 * the text back in order as it reads it (the JSON reader's first pass) has
 * the hash taken from pages it mapped in anyway, while they are still in
 * the cache, instead of in a pass of its own that maps every page in and
 * out once more. A no-op when p is not a mapped text or its hash was
 * started already. */
void exdb_filemap_hash_start(const void *p);
/* The hash exdb_filemap_hash_start started, the rest of the text hashed
 * now (the first call; later ones give the same value): 1 and *out, or 0
 * when p is not a mapped text whose hash was started. */
int exdb_filemap_hash(const void *p, uint64_t *out);

#endif
