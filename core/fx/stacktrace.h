/* stacktrace.h - the one-line summary of a node's stack_trace that
 * print_readable writes above its code ("File: F:N in NAME, code: ..."). */
#ifndef EXDB_FX_STACKTRACE_H
#define EXDB_FX_STACKTRACE_H

#include "core/base/strbuf.h"

/* _parse_stack_trace(st).get_summary_str() appended to b: the innermost
 * 'File "F", line N, in NAME' line and the code line after it. Returns 0
 * (nothing appended) when the trace has no such line. */
int exdb_stack_summary(exdb_buf *b, const char *st);

#endif
