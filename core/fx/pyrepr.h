/* pyrepr.h - Python's repr() and str() of JSON values, as a JSON text that
 * PyTorch's deserializer json.loads()-ed prints in Python (the "custom"
 * node metadata FX writes into print_readable's "# Annotation:" lines). */
#ifndef EXDB_CORE_FX_PYREPR_H
#define EXDB_CORE_FX_PYREPR_H

#include "core/base/strbuf.h"

/* The " Annotation: {...}" part of FX's stack trace summary for a node
 * whose meta["custom"] is the JSON text custom: each value as is, or when
 * str(value) is over 40 characters, its first 40 and "...". Nothing for
 * an empty or unreadable text. -1 when memory ran out. */
int exdb_fx_annotation(exdb_buf *b, const char *custom);

#endif
