/* stacktrace.c - see stacktrace.h. Mirrors torch/fx/graph.py's
 * _parse_stack_trace and _ParsedStackTrace.get_summary_str. */
#include "core/fx/stacktrace.h"

#include <stdio.h>
#include <string.h>

static int is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* [*s, *e) without the blanks around it. */
static void strip(const char **s, const char **e) {
    while (*s < *e && is_space(**s))
        ++*s;
    while (*e > *s && is_space((*e)[-1]))
        --*e;
}

/* ^File "(.+)", line (\d+), in (.+)$ on the stripped line [s, e), with
 * the file greedy as Python's regex takes it: the last '", line ' that the
 * rest matches after. 1 with f's file, line and func set. */
static int parse_file_line(const char *s, const char *e, exdb_stack_frame *f) {
    if (e - s < 7 || strncmp(s, "File \"", 6) != 0)
        return 0;
    for (const char *q = e - 1; q > s + 6; q--) {
        if (q + 8 > e || strncmp(q, "\", line ", 8) != 0)
            continue;
        const char *d = q + 8, *de = d;
        uint64_t line = 0;
        while (de < e && *de >= '0' && *de <= '9' && line < 0xffffffffu)
            line = line * 10 + (uint64_t)(*de++ - '0');
        if (de == d || e - de < 6 || strncmp(de, ", in ", 5) != 0 || line > 0xffffffffu)
            continue;
        f->file = s + 6;
        f->file_len = (uint32_t)(q - s - 6);
        f->line = (uint32_t)line;
        f->func = de + 5;
        f->func_len = (uint32_t)(e - de - 5);
        return 1;
    }
    return 0;
}

/* _parse_stack_trace: lines = st.strip().split("\n"); from the one before
 * last back to the first, the first File line wins and the next line is
 * its code. */
int exdb_stack_innermost(const char *st, exdb_stack_frame *f) {
    if (!st)
        return 0;
    const char *s = st, *e = st + strlen(st);
    strip(&s, &e);
    /* next_start: the start of the line after the one being looked at */
    const char *last = e;
    while (last > s && last[-1] != '\n')
        last--;
    const char *code_s = last, *code_e = e; /* the line after the candidate */
    while (code_s > s) {
        const char *le = code_s - 1, *ls = le; /* the candidate: [ls, le) */
        while (ls > s && ls[-1] != '\n')
            ls--;
        const char *a = ls, *b = le;
        strip(&a, &b);
        if (parse_file_line(a, b, f)) {
            strip(&code_s, &code_e);
            f->code = code_s;
            f->code_len = (uint32_t)(code_e - code_s);
            return 1;
        }
        code_e = le;
        code_s = ls;
    }
    return 0;
}

int exdb_stack_summary(exdb_buf *b, const char *st) {
    exdb_stack_frame f;
    if (!exdb_stack_innermost(st, &f))
        return 0;
    exdb_buf_printf(b, "File: %.*s:%u in %.*s, code: %.*s", (int)f.file_len, f.file, f.line,
                    (int)f.func_len, f.func, (int)f.code_len, f.code);
    return 1;
}

uint32_t exdb_stack_frames(const char *st, exdb_stack_frame *out, uint32_t max) {
    uint32_t n = 0;
    exdb_stack_frame f;
    int pending = 0; /* f is a File line waiting for its code line */
    for (const char *p = st; p && *p;) {
        const char *e = strchr(p, '\n');
        const char *next = e ? e + 1 : p + strlen(p);
        if (!e)
            e = next;
        const char *a = p, *b = e;
        strip(&a, &b);
        exdb_stack_frame g;
        int file = parse_file_line(a, b, &g);
        if (pending) {
            f.code = a;
            f.code_len = file ? 0 : (uint32_t)(b - a);
            if (n < max && out)
                out[n] = f;
            n++;
            pending = 0;
        }
        if (file) {
            f = g;
            pending = 1;
        }
        p = next;
    }
    if (pending) {
        f.code = f.func + f.func_len;
        f.code_len = 0;
        if (n < max && out)
            out[n] = f;
        n++;
    }
    return n;
}

int exdb_stack_file_matches(const exdb_stack_frame *f, const char *want, size_t want_len) {
    if (!want_len || want_len > f->file_len)
        return 0;
    const char *tail = f->file + f->file_len - want_len;
    return memcmp(tail, want, want_len) == 0 &&
           (want_len == f->file_len || tail[-1] == '/' || want[0] == '/');
}

int exdb_stack_parse_location(const char *spec, size_t *file_len, uint32_t *line) {
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1])
        return -1;
    uint64_t v = 0;
    for (const char *d = colon + 1; *d; d++) {
        if (*d < '0' || *d > '9' || v > 0xffffffffu)
            return -1;
        v = v * 10 + (uint64_t)(*d - '0');
    }
    if (v == 0 || v > 0xffffffffu)
        return -1;
    *file_len = (size_t)(colon - spec);
    *line = (uint32_t)v;
    return 0;
}

int exdb_stack_at(const char *st, const char *file, size_t file_len, uint32_t line) {
    /* most traces do not hold the line number at all: one strstr rejects
     * them (find --line over 100k traces) */
    char needle[32];
    snprintf(needle, sizeof needle, "\", line %u, in ", line);
    if (!st || !strstr(st, needle))
        return 0;
    for (const char *p = st; p && *p;) {
        const char *e = strchr(p, '\n');
        const char *next = e ? e + 1 : p + strlen(p);
        const char *a = p, *b = e ? e : next;
        strip(&a, &b);
        exdb_stack_frame f;
        if (parse_file_line(a, b, &f) && f.line == line &&
            exdb_stack_file_matches(&f, file, file_len))
            return 1;
        p = next;
    }
    return 0;
}

/* Whether code calls attribute atom: ".atom(" in it. */
static int calls_attr(const exdb_stack_frame *f, const char *atom, size_t alen) {
    if (!alen)
        return 0;
    for (uint32_t i = 0; i + alen + 2 <= f->code_len; i++)
        if (f->code[i] == '.' && memcmp(f->code + i + 1, atom, alen) == 0 &&
            f->code[i + 1 + alen] == '(')
            return 1;
    return 0;
}

void exdb_stack_call_sites(const exdb_meta *meta, const exdb_stack_frame *frames, uint32_t n,
                           int32_t *sites) {
    int32_t parent = -1;
    for (uint32_t i = 0; meta && i < meta->nstack; i++) {
        const char *path = meta->stack[i].path ? meta->stack[i].path : "";
        if (!*path || !n) {
            sites[i] = -1;
            continue;
        }
        const char *dot = strrchr(path, '.');
        const char *atom = dot ? dot + 1 : path;
        size_t alen = strlen(atom);
        int32_t start = parent + 1 < (int32_t)n ? parent + 1 : (int32_t)n - 1, at = start;
        for (int32_t j = start; j < (int32_t)n; j++)
            if (calls_attr(&frames[j], atom, alen)) {
                at = j;
                break;
            }
        sites[i] = parent = at;
    }
}

int exdb_stack_substitute(exdb_buf *b, const char *path, size_t len, const char *const *from,
                          const char *const *to, uint32_t nrules) {
    for (uint32_t i = 0; i < nrules; i++) {
        size_t fl = strlen(from[i]);
        while (fl > 1 && from[i][fl - 1] == '/')
            fl--; /* "/a/" is the rule "/a" */
        if (fl > len || memcmp(path, from[i], fl) != 0 || (fl < len && path[fl] != '/'))
            continue;
        exdb_buf_puts(b, to[i]);
        exdb_buf_printf(b, "%.*s", (int)(len - fl), path + fl);
        return 1;
    }
    exdb_buf_printf(b, "%.*s", (int)len, path);
    return 0;
}
