/* version.c - the version the library was built as (version.h). */
#include "core/base/version.h"

#ifndef EXDB_VERSION
#error "EXDB_VERSION is the VERSION file's number: build with make"
#endif

const char *exdb_version(void) {
    return EXDB_VERSION;
}
