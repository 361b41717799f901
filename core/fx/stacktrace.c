/* stacktrace.c - see stacktrace.h. Mirrors torch/fx/graph.py's
 * _parse_stack_trace and _ParsedStackTrace.get_summary_str. */
#include "core/fx/stacktrace.h"

#include <stdlib.h>
#include <string.h>

static int is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* _parse_stack_trace(stack_trace).get_summary_str() into b: the innermost
 * 'File "F", line N, in NAME' line and the code line after it. 0 when the
 * trace has no such line. */
int exdb_stack_summary(exdb_buf *b, const char *st) {
    while (is_space(*st))
        st++;
    size_t len = strlen(st);
    while (len && is_space(st[len - 1]))
        len--;
    /* lines = stack_trace.strip().split("\n"): line starts */
    size_t nl = 1;
    for (size_t i = 0; i < len; i++)
        nl += st[i] == '\n';
    size_t *start = malloc((nl + 1) * sizeof *start);
    if (!start) {
        b->oom = 1;
        return 0;
    }
    size_t k = 0;
    start[k++] = 0;
    for (size_t i = 0; i < len; i++)
        if (st[i] == '\n')
            start[k++] = i + 1;
    start[nl] = len + 1;
    int found = 0;
    for (size_t idx = nl >= 2 ? nl - 1 : 0; idx-- > 0 && !found;) {
        const char *s = st + start[idx], *e = st + start[idx + 1] - 1;
        while (s < e && is_space(*s))
            s++;
        while (e > s && is_space(e[-1]))
            e--;
        if (e - s < 7 || strncmp(s, "File \"", 6) != 0)
            continue;
        /* ^File "(.+)", line (\d+), in (.+)$ with a greedy file: the last
         * '", line ' that the rest matches after */
        for (const char *q = e - 1; q > s + 6 && !found; q--) {
            if (strncmp(q, "\", line ", 8) != 0 || q + 8 > e)
                continue;
            const char *d = q + 8, *de = d;
            while (de < e && *de >= '0' && *de <= '9')
                de++;
            if (de == d || e - de < 6 || strncmp(de, ", in ", 5) != 0)
                continue;
            const char *cs = st + start[idx + 1], *ce = st + start[idx + 2] - 1;
            while (cs < ce && is_space(*cs))
                cs++;
            while (ce > cs && is_space(ce[-1]))
                ce--;
            exdb_buf_printf(b, "File: %.*s:%.*s in %.*s, code: %.*s", (int)(q - s - 6), s + 6,
                            (int)(de - d), d, (int)(e - de - 5), de + 5, (int)(ce - cs), cs);
            found = 1;
        }
    }
    free(start);
    return found;
}
