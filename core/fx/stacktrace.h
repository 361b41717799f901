/* stacktrace.h - a node's stack_trace read as source lines: the one-line
 * summary print_readable writes above its code ("File: F:N in NAME, code:
 * ..."), every frame of the trace, and the frame where each module of the
 * node's nn_module_stack was called. */
#ifndef EXDB_CORE_FX_STACKTRACE_H
#define EXDB_CORE_FX_STACKTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/strbuf.h"
#include "core/fx/graph.h"

/* One 'File "F", line N, in NAME' line of a trace and the code line after
 * it (pointers into the trace text, not NUL-terminated). */
typedef struct exdb_stack_frame {
    const char *file, *func, *code;
    uint32_t file_len, func_len, code_len;
    uint32_t line;
} exdb_stack_frame;

/* _parse_stack_trace(st).get_summary_str() appended to b: the innermost
 * 'File "F", line N, in NAME' line and the code line after it. Returns 0
 * (nothing appended) when the trace has no such line. */
int exdb_stack_summary(exdb_buf *b, const char *st);

/* _parse_stack_trace(st): the innermost frame (the last File line that has
 * a line after it), as print_readable and `info line` take a node's source
 * line. 1 with *f filled, 0 when the trace (or st NULL) has none. */
int exdb_stack_innermost(const char *st, exdb_stack_frame *f);

/* Every frame of the trace, outermost first: the first max in out (out may
 * be NULL to count). Returns how many the trace has. A File line's code is
 * the next line unless that is another File line (then empty). */
uint32_t exdb_stack_frames(const char *st, exdb_stack_frame *out, uint32_t max);

/* Whether a frame's file is `want` or ends in "/" + want: a file suffix
 * names it as gdb's `break resnet.py:148` does ("net.py" is not
 * "resnet.py"). */
int exdb_stack_file_matches(const exdb_stack_frame *f, const char *want, size_t want_len);

/* "FILE:LINE" (the last ':' splits): 0 with the file part and the line, -1
 * when spec is not of that form (no ':', no file, a line not a positive
 * number). */
int exdb_stack_parse_location(const char *spec, size_t *file_len, uint32_t *line);

/* Whether some frame of st (any, not only the innermost: a model line that
 * calls a module owns the nodes made inside the call) is at FILE:LINE,
 * FILE a suffix as exdb_stack_file_matches takes it. */
int exdb_stack_at(const char *st, const char *file, size_t file_len, uint32_t line);

/* The call sites of a node's modules: for each nn_module_stack entry i of
 * meta, sites[i] gets the index in frames[0..n) of the frame that called
 * that module, -1 for the root (path "") and when the trace has no frames.
 * The frames of a node's trace run through the calls of its modules,
 * outermost first, so the walk goes down the stack: the call of entry i is
 * the first frame after its parent's call whose code calls the attribute
 * (".conv1(" for layer1.0.conv1), else the frame right after the parent's
 * call (a Sequential's "input = module(input)", a loop over a ModuleList),
 * never past the innermost frame. */
void exdb_stack_call_sites(const exdb_meta *meta, const exdb_stack_frame *frames, uint32_t n,
                           int32_t *sites);

/* The path of a file with the first `set substitute-path` rule that
 * applies: rule FROM matches a path equal to it or starting with FROM
 * followed by '/', and is replaced by TO (gdb's rule). from/to hold nrules
 * rules. The result goes in b; 1 when a rule applied. */
int exdb_stack_substitute(exdb_buf *b, const char *path, size_t len, const char *const *from,
                          const char *const *to, uint32_t nrules);

#endif
