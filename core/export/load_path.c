/* load_path.c - see load_path.h. */
#include "core/export/load_path.h"

#include <stdio.h>
#include <string.h>

static int is_ident(const char *k) {
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'))
        return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_'))
            return 0;
    return 1;
}

/* Quotes s[0..n) for a message: "text" with quotes, backslashes and
 * control characters escaped, cut to about 80 characters, so a hostile name
 * cannot break the one-line format or flood the terminal. With raw, also
 * U+0000 (as \u0000) and every byte above 0x7f (as \xNN), so that the
 * message about a string that is not UTF-8 text is. Returns out. */
static const char *quote(char *out, size_t cap, const char *s, size_t n, int raw) {
    size_t w = 0;
    out[w++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= 80 || w + 8 >= cap) {
            memcpy(out + w, "...", 3);
            w += 3;
            break;
        }
        if (c == '"' || c == '\\') {
            out[w++] = '\\';
            out[w++] = (char)c;
        } else if (raw && c == 0) {
            w += (size_t)snprintf(out + w, cap - w, "\\u0000");
        } else if (c < 0x20 || c == 0x7f || (raw && c > 0x7f)) {
            w += (size_t)snprintf(out + w, cap - w, "\\x%02x", c);
        } else {
            out[w++] = (char)c;
        }
    }
    out[w++] = '"';
    out[w] = '\0';
    return out;
}

/* quote() of bytes that may not be text */
const char *exdb_load_path_quote_raw(char *out, size_t cap, const char *s, size_t n) {
    return quote(out, cap, s, n, 1);
}

/* quote() of a C string as it is */
const char *exdb_load_path_qs(char *out, size_t cap, const char *s) {
    return quote(out, cap, s, strlen(s), 0);
}

/* "$.graph_module.graph.nodes[3].inputs[0].arg": keys that are not
 * identifiers are written ["like this"]. When the path is deeper than the
 * step buffer, its outer part is elided as "$..." (the innermost steps are
 * the informative ones). */
void exdb_load_path_fmt(const jpath *p, char *buf, size_t cap) {
    const jpath *steps[256];
    int n = 0;
    const jpath *q = p;
    for (; q && n < 256; q = q->up)
        steps[n++] = q;
    size_t off = (size_t)snprintf(buf, cap, q ? "$..." : "$");
    for (int i = n - 1; i >= 0 && off < cap; i--) {
        const jpath *st = steps[i];
        char qk[QS];
        if (st->key && is_ident(st->key))
            off += (size_t)snprintf(buf + off, cap - off, ".%s", st->key);
        else if (st->key)
            off += (size_t)snprintf(buf + off, cap - off, "[%s]",
                                    exdb_load_path_qs(qk, sizeof qk, st->key));
        else
            off += (size_t)snprintf(buf + off, cap - off, "[%ld]", st->idx);
    }
}
