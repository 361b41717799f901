/* strbuf.h - a growable text buffer. core/ renders everything it shows into
 * one of these; the REPL decides where the text goes. */
#ifndef EXDB_STRBUF_H
#define EXDB_STRBUF_H

#include <stddef.h>

typedef struct exdb_buf {
    char *s; /* NUL-terminated; NULL until something is appended */
    size_t len, cap;
    int oom; /* set when an append failed; the text is then truncated */
} exdb_buf;

void exdb_buf_init(exdb_buf *b);
void exdb_buf_free(exdb_buf *b);
void exdb_buf_reset(exdb_buf *b);
void exdb_buf_put(exdb_buf *b, const char *s, size_t n);
void exdb_buf_puts(exdb_buf *b, const char *s);
void exdb_buf_putc(exdb_buf *b, char c);
void exdb_buf_printf(exdb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* JSON string literal with escapes (ASCII-only output like Python's json). */
void exdb_buf_json_str(exdb_buf *b, const char *s);
static inline const char *exdb_buf_str(const exdb_buf *b) {
    return b->s ? b->s : "";
}

#endif
