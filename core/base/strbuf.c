/* strbuf.c - see strbuf.h. */
#include "core/base/strbuf.h"

#include "core/base/mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void exdb_buf_init(exdb_buf *b) {
    memset(b, 0, sizeof *b);
}

void exdb_buf_free(exdb_buf *b) {
    free(b->s);
    memset(b, 0, sizeof *b);
}

void exdb_buf_reset(exdb_buf *b) {
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

int exdb_buf_grow(exdb_buf *b, size_t extra) {
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->len + extra + 1) {
        if (nc > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        nc *= 2;
    }
    /* Big texts (the flat DOT of the 100k-node synthetic program is 68 MB)
     * get huge pages (see exdb_mem_grow). */
    char *ns = exdb_mem_grow(b->s, b->s ? b->len + 1 : 0, nc);
    if (!ns) {
        b->oom = 1;
        return -1;
    }
    b->s = ns;
    b->cap = nc;
    return 0;
}

void exdb_buf_put_u32(exdb_buf *b, unsigned v) {
    char d[16];
    int n = 0;
    do
        d[sizeof d - ++n] = (char)('0' + v % 10);
    while ((v /= 10) && n < (int)sizeof d);
    exdb_buf_put(b, d + sizeof d - n, (size_t)n);
}

void exdb_buf_put_i64(exdb_buf *b, long long v) {
    char d[24];
    int n = 0;
    /* in unsigned arithmetic, so LLONG_MIN negates without overflow */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        d[sizeof d - ++n] = (char)('0' + u % 10);
    while ((u /= 10) && n < (int)sizeof d - 1);
    if (v < 0)
        d[sizeof d - ++n] = '-';
    exdb_buf_put(b, d + sizeof d - n, (size_t)n);
}

/* Formats straight into the free space when the text fits (the usual
 * case), so most calls run vsnprintf once; otherwise grows and formats
 * again. */
void exdb_buf_printf(exdb_buf *b, const char *fmt, ...) {
    if (b->oom)
        return;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    size_t room = b->s ? b->cap - b->len : 0;
    int n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n >= room && exdb_buf_grow(b, (size_t)n) == 0)
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (n > 0 && !b->oom)
        b->len += (size_t)n;
    if (b->s)
        b->s[b->len] = '\0';
}

/* Decodes one UTF-8 sequence; returns its length, or 1 (as U+FFFD) when invalid. */
static int utf8_decode(const unsigned char *s, unsigned *cp) {
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n) {
        *cp = 0xFFFD;
        return 1;
    }
    unsigned v = s[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        v = (v << 6) | (s[i] & 0x3F);
    }
    *cp = v;
    return n;
}

void exdb_buf_json_str(exdb_buf *b, const char *s) {
    exdb_buf_putc(b, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            exdb_buf_put(b, e, 2);
            p++;
        } else if (c == '\n') {
            exdb_buf_puts(b, "\\n");
            p++;
        } else if (c == '\r') {
            exdb_buf_puts(b, "\\r");
            p++;
        } else if (c == '\t') {
            exdb_buf_puts(b, "\\t");
            p++;
        } else if (c < 0x20) {
            exdb_buf_printf(b, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            exdb_buf_putc(b, (char)c);
            p++;
        } else {
            unsigned cp;
            p += utf8_decode(p, &cp);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                exdb_buf_printf(b, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
            } else {
                exdb_buf_printf(b, "\\u%04x", cp);
            }
        }
    }
    exdb_buf_putc(b, '"');
}
