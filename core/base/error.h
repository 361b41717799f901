/* error.h - the one error type core/ hands back to its callers.
 *
 * core/ never prints and never exits: every fallible function takes an
 * exdb_error * and fills it with a one-line message of the form
 *     FILE: WHERE: what was expected
 * where WHERE is a JSON path ($.graph_module.graph.nodes[12].inputs[0].arg),
 * a zip member (models/model.json) or a node name. */
#ifndef EXDB_CORE_BASE_ERROR_H
#define EXDB_CORE_BASE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define EXDB_ERROR_MAX 1024

typedef struct exdb_error {
    int set;                  /* non-zero once a message was recorded */
    char msg[EXDB_ERROR_MAX]; /* one line, no trailing newline */
} exdb_error;

/* Records a printf-style message (the first one wins; later calls are
 * ignored so the innermost, most precise message survives unwinding).
 * Always returns -1 so callers can write `return exdb_errorf(err, ...)`.
 * Newlines in the formatted text are replaced by spaces. err may be NULL. */
int exdb_errorf(exdb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "WHERE: message": the form of every error that names a place (a file
 * and its JSON path, a TreeSpec's child); the formatters that build WHERE
 * end here. */
int exdb_verrorf_at(exdb_error *err, const char *where, const char *fmt, va_list ap);

/* Whether err says memory ran out ("FILE: out of memory", or a part's
 * message that ends in its reason: "... (context: line 1, column 2: out
 * of memory)", "line 3, column 9: out of memory (the input ends here)",
 * "out of memory reading 4096 bytes"): the last of the words in it ends it
 * or is followed by one of those endings. A message that only quotes
 * them from the file (`found "out of memory \xff" (not UTF-8 from byte
 * 14)`, a folder so named) is the file's fault, not memory's. */
int exdb_error_oom(const exdb_error *err);

/* Clears err for reuse. */
void exdb_error_clear(exdb_error *err);

#endif
