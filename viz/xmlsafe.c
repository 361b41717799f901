/* xmlsafe.c - names and labels made XML-safe for SVG (see xmlsafe.h). */
#include <stdio.h>
#include <string.h>

#include "viz/xmlsafe.h"

/* The bytes of a forbidden character at s: 1 (a C0 control), 3 (U+FFFE,
 * U+FFFF: EF BF BE/BF in UTF-8), or 0. */
static size_t forbidden(const unsigned char *s) {
    if (*s < 0x20)
        return *s == '\t' || *s == '\n' || *s == '\r' ? 0 : 1;
    if (s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF))
        return 3;
    return 0;
}

/* The replacement of the forbidden character at s (n bytes), in UTF-8. */
static void replacement(const unsigned char *s, size_t n, char out[4]) {
    unsigned cp = n == 1 ? 0x2400u + *s : 0xFFFDu; /* Control Pictures; the replacement char */
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    out[3] = '\0';
}

const char *vz_xml_safe(const char *s, exdb_buf *b) {
    if (!s)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    for (;;) { /* the common bytes in a tight loop: every DOT value passes here */
        while (*p >= 0x20 && *p != 0xEF)
            p++;
        if (!*p || forbidden(p))
            break;
        p++;
    }
    if (!*p)
        return s;
    exdb_buf_reset(b);
    exdb_buf_put(b, s, (size_t)((const char *)p - s));
    while (*p) {
        size_t n = forbidden(p);
        if (n) {
            char r[4];
            replacement(p, n, r);
            exdb_buf_puts(b, r);
            p += n;
        } else {
            exdb_buf_putc(b, (char)*p++);
        }
    }
    return exdb_buf_str(b);
}

void vz_xml_escape(FILE *f, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = forbidden(p);
        if (n) {
            char r[4];
            replacement(p, n, r);
            fputs(r, f);
            p += n;
        } else if (*p == '<') {
            fputs("&lt;", f), p++;
        } else if (*p == '>') {
            fputs("&gt;", f), p++;
        } else if (*p == '&') {
            fputs("&amp;", f), p++;
        } else {
            putc(*p++, f);
        }
    }
}
