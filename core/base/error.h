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

/* Clears err for reuse. */
void exdb_error_clear(exdb_error *err);

#endif
