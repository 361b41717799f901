/* version.h - exdb's version: the VERSION file at the top of the source
 * tree, the one number of the exdb binary, libexdb.a, the Python wheel and
 * `make install` (the Makefile passes it as EXDB_VERSION). */
#ifndef EXDB_VERSION_H
#define EXDB_VERSION_H

/* "0.2.0": the version this libexdb.a was built as. */
const char *exdb_version(void);

#endif
