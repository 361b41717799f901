/* outfile.h - writing a file the user named (`save FILE`, `render -o FILE`).
 *
 * Four rules, one place:
 *   - only a regular file is ever replaced: a device, a FIFO, a socket, a
 *     directory or a symbolic link at the target is refused (as root,
 *     renaming over /dev/null would replace the device with a file);
 *   - the data goes to a temporary file (or directory) beside the target,
 *     then is renamed over it: the target is the old file or the new one,
 *     never a part;
 *   - while such a temporary exists, SIGTERM, SIGINT and SIGHUP, when their
 *     action is the default one (ending exdb), first remove it. A handler
 *     someone else installed (the prompt's Ctrl-C) is called instead, and
 *     an ignored signal stays ignored: those do not end the write;
 *   - while such a temporary exists, SIGXFSZ (past `ulimit -f`) and SIGPIPE
 *     are ignored: a write that cannot finish fails (EFBIG, EPIPE) and is
 *     reported and cleaned up after, the session goes on.
 * exdb is single-threaded; the temporaries are tracked in a small static
 * table the signal handler reads. */
#ifndef EXDB_CORE_BASE_OUTFILE_H
#define EXDB_CORE_BASE_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/base/error.h"

/* Whether path may be written: absent, or a regular file that may be
 * replaced (replace != 0). 0, or -1 with err one of
 *   "PATH: file exists (use --force to replace it)"
 *   "PATH: is a directory"
 *   "PATH: not a regular file (a character device): refusing to replace it" */
int exdb_out_check(const char *path, int replace, exdb_error *err);

/* Opens path for a log that grows as it is written (`set logging on`):
 * appending, or emptied first (truncate != 0), created 0666 less the umask.
 * Only a regular file: a symbolic link at the last component is not
 * followed, a FIFO, a device, a socket or a directory is refused, and the
 * open never blocks (a FIFO nobody reads). The fd (O_CLOEXEC, blocking
 * writes), or -1 with err one of
 *   "PATH: not a regular file (a symbolic link): refusing to write to it"
 *   "PATH: is a directory"
 *   "PATH: REASON" (e.g. Permission denied) */
int exdb_out_open_log(const char *path, int truncate, exdb_error *err);

/* Creates a temporary file (dir == 0, *fd open for writing, mode 0600) or
 * directory (dir != 0, *fd unused: may be NULL) beside path, named
 * ".NAME.exdb-XXXXXX", and registers it for removal on a terminating
 * signal. *tmp is malloc'd; exdb_out_install or exdb_out_discard frees it.
 * -1 with "PATH: cannot create a temporary file beside it: REASON". */
int exdb_out_temp(const char *path, int dir, char **tmp, int *fd, exdb_error *err);

/* Renames the finished file src over path, after exdb_out_check's test
 * again; without replace, link() refuses atomically a file that appeared
 * meanwhile. Then syncs path's directory. Does not free anything; src is
 * left in place on failure. */
int exdb_out_install(const char *src, const char *path, int replace, exdb_error *err);

/* Removes the temporary tmp (a directory with every file in it), forgets
 * it and frees it. NULL is fine. */
void exdb_out_discard(char *tmp);

/* Forgets tmp (it was renamed away) and frees it. */
void exdb_out_forget(char *tmp);

/* Writes len bytes to path through a temporary file: checked, written,
 * fsync'd, given mode (less the umask), renamed. Errors name path and the
 * reason: "PATH: cannot write: No space left on device". */
int exdb_out_write(const char *path, const void *data, size_t len, mode_t mode, int replace,
                   exdb_error *err);

/* A file written a piece at a time through a temporary file beside path,
 * as exdb_out_write writes it whole: exdb_out_begin checks path and makes
 * the temporary, exdb_out_put appends (the first failure is remembered
 * and ends the writing), exdb_out_end gives it mode (less the umask),
 * fsyncs it and renames it over path, or removes it and says why:
 * "PATH: cannot write: REASON". exdb_out_end always finishes o. */
typedef struct exdb_outstream {
    const char *path;
    char *tmp;
    int fd, replace, errnum;
} exdb_outstream;
int exdb_out_begin(exdb_outstream *o, const char *path, int replace, exdb_error *err);
void exdb_out_put(exdb_outstream *o, const void *data, size_t len);
int exdb_out_end(exdb_outstream *o, mode_t mode, exdb_error *err);
/* Removes the temporary of a stream not to be installed (an error). */
void exdb_out_abort(exdb_outstream *o);

/* write(2) until all n bytes are written, resuming after EINTR; -1 with
 * errno on error. */
int exdb_out_write_all(int fd, const char *p, size_t n);

#endif
