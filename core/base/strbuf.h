/* strbuf.h - a growable text buffer. core/ renders everything it shows into
 * one of these; the REPL decides where the text goes. */
#ifndef EXDB_CORE_BASE_STRBUF_H
#define EXDB_CORE_BASE_STRBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct exdb_buf {
    char *s; /* NUL-terminated; NULL until something is appended */
    size_t len, cap;
    int oom; /* set when an append failed; the text is then truncated */
} exdb_buf;

void exdb_buf_init(exdb_buf *b);
void exdb_buf_free(exdb_buf *b);
void exdb_buf_reset(exdb_buf *b);
/* Grows b for extra more bytes; -1 (and b->oom) when that fails or b->oom
 * was already set. Used by the inline appends below. */
int exdb_buf_grow(exdb_buf *b, size_t extra);

/* The appends are inline: texts are built from many short pieces (a DOT
 * tooltip per node of a 100k-node graph), and a call per piece showed. */
static inline void exdb_buf_put(exdb_buf *b, const char *s, size_t n) {
    if ((b->oom || b->len + n + 1 > b->cap) && exdb_buf_grow(b, n) < 0)
        return;
    if (n) /* s may be an empty buffer's NULL text */
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}
static inline void exdb_buf_puts(exdb_buf *b, const char *s) {
    exdb_buf_put(b, s, strlen(s));
}
static inline void exdb_buf_putc(exdb_buf *b, char c) {
    if ((b->oom || b->len + 2 > b->cap) && exdb_buf_grow(b, 1) < 0)
        return;
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}
/* Decimal text of v (what printf's %lld gives, without printf). */
void exdb_buf_put_i64(exdb_buf *b, long long v);
void exdb_buf_put_u32(exdb_buf *b, unsigned v);
void exdb_buf_printf(exdb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* JSON string literal with escapes (ASCII-only output like Python's json). */
void exdb_buf_json_str(exdb_buf *b, const char *s);
static inline const char *exdb_buf_str(const exdb_buf *b) {
    return b->s ? b->s : "";
}
/* "st", "nd", "rd" or "th" after n, as in "the 21st frame created"
 * ("11th", "12th", "13th"). */
static inline const char *exdb_ordinal_suffix(uint64_t n) {
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* Whether a and b are the same string, or both NULL. */
static inline int exdb_str_same(const char *a, const char *b) {
    return (!a && !b) || (a && b && __builtin_strcmp(a, b) == 0);
}

#endif
