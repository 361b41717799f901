/* error.c - see error.h. */
#include "core/base/error.h"

#include <stdarg.h>
#include <stdio.h>

int exdb_errorf(exdb_error *err, const char *fmt, ...) {
    if (!err || err->set)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    err->set = 1;
    return -1;
}

void exdb_error_clear(exdb_error *err) {
    if (err) {
        err->set = 0;
        err->msg[0] = '\0';
    }
}
