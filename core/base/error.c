/* error.c - see error.h. */
#include "core/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Newlines become spaces: a message is one line. */
static int finish(exdb_error *err) {
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    err->set = 1;
    return -1;
}

int exdb_errorf(exdb_error *err, const char *fmt, ...) {
    if (!err || err->set)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return finish(err);
}

int exdb_verrorf_at(exdb_error *err, const char *where, const char *fmt, va_list ap) {
    if (!err || err->set)
        return -1;
    int n = snprintf(err->msg, sizeof err->msg, "%s: ", where);
    if (n < 0 || (size_t)n >= sizeof err->msg)
        n = 0;
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    return finish(err);
}

void exdb_error_clear(exdb_error *err) {
    if (err) {
        err->set = 0;
        err->msg[0] = '\0';
    }
}

int exdb_error_oom(const exdb_error *err) {
    static const char *const ends[] = {"", ")", " (the input ends here)",
                                       " (the input ends here))"};
    const char *last = NULL;
    for (const char *p = err->msg; (p = strstr(p, "out of memory")); p++)
        last = p;
    for (size_t i = 0; last && i < sizeof ends / sizeof *ends; i++)
        if (strcmp(last + 13, ends[i]) == 0)
            return 1;
    /* "out of memory reading 4096 bytes" (a member), "... recording the
     * event for reverse stepping" (the journal) */
    return last && (strncmp(last + 13, " reading ", 9) == 0 ||
                    strncmp(last + 13, " recording ", 11) == 0);
}
