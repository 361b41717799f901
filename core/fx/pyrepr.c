/* pyrepr.c - see pyrepr.h. Mirrors Python's repr() of what json.loads
 * returns (dict, list, str, int, float, bool, None) and torch/fx/graph.py's
 * append_stacktrace_summary annotation text. */
#include "core/fx/pyrepr.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/arena.h"
#include "core/format/json.h"
#include "core/fx/print.h"

/* repr(str): single quotes unless the text holds ' and no ", as Python
 * picks; backslash, the quote, \t \n \r and other control bytes escaped;
 * other characters (UTF-8) as they are, as Python keeps printable ones. */
static void repr_str(exdb_buf *b, const char *s, size_t n) {
    char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    exdb_buf_putc(b, q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == (unsigned char)q)
            exdb_buf_printf(b, "\\%c", c);
        else if (c == '\t')
            exdb_buf_puts(b, "\\t");
        else if (c == '\n')
            exdb_buf_puts(b, "\\n");
        else if (c == '\r')
            exdb_buf_puts(b, "\\r");
        else if (c < 0x20 || c == 0x7f)
            exdb_buf_printf(b, "\\x%02x", c);
        else
            exdb_buf_putc(b, (char)c);
    }
    exdb_buf_putc(b, q);
}

/* repr() of a number's JSON text: ints as written (json.loads makes an
 * int of any size from a text without '.', 'e' or 'E'), floats as Python
 * prints them (1e-05, 0.1, inf). */
static void repr_number(exdb_buf *b, const exdb_json *j) {
    double d;
    if (!memchr(j->u.str, '.', j->len) && !memchr(j->u.str, 'e', j->len) &&
        !memchr(j->u.str, 'E', j->len)) {
        if (j->len == 2 && memcmp(j->u.str, "-0", 2) == 0)
            exdb_buf_putc(b, '0'); /* int("-0") is 0 */
        else
            exdb_buf_put(b, j->u.str, j->len);
        return;
    }
    if (exdb_json_double(j, &d) != 0) {
        exdb_buf_put(b, j->u.str, j->len);
        return;
    }
    char out[32];
    exdb_py_float(d, out);
    exdb_buf_puts(b, out);
}

static void repr(exdb_buf *b, const exdb_json *j) {
    switch (j->type) {
    case EXDB_JNULL:
        exdb_buf_puts(b, "None");
        break;
    case EXDB_JFALSE:
        exdb_buf_puts(b, "False");
        break;
    case EXDB_JTRUE:
        exdb_buf_puts(b, "True");
        break;
    case EXDB_JNUMBER:
        repr_number(b, j);
        break;
    case EXDB_JSTRING:
        repr_str(b, j->u.str, j->len);
        break;
    case EXDB_JARRAY:
    case EXDB_JOBJECT:
        exdb_buf_putc(b, j->type == EXDB_JARRAY ? '[' : '{');
        for (uint32_t k = 0; k < j->len; k++) {
            if (k)
                exdb_buf_puts(b, ", ");
            if (j->type == EXDB_JOBJECT) {
                repr_str(b, j->u.kids[k].key, strlen(j->u.kids[k].key));
                exdb_buf_puts(b, ": ");
            }
            repr(b, &j->u.kids[k]);
        }
        exdb_buf_putc(b, j->type == EXDB_JARRAY ? ']' : '}');
        break;
    default:
        break;
    }
}

/* The byte length of the first `chars` code points of s[0..n) (Python
 * slices str by code point). */
static size_t utf8_prefix(const char *s, size_t n, size_t chars) {
    size_t i = 0;
    while (i < n && chars) {
        i++;
        while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        chars--;
    }
    return i;
}

static size_t utf8_len(const char *s, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

int exdb_fx_annotation(exdb_buf *b, const char *custom) {
    if (!custom || !*custom)
        return 0;
    size_t n = strlen(custom);
    char *text = malloc(n + 1);
    if (!text)
        return -1;
    memcpy(text, custom, n + 1);
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_error err = {0};
    exdb_json *j = NULL;
    exdb_buf v, t;
    exdb_buf_init(&v);
    exdb_buf_init(&t);
    int rc = 0;
    /* `if annotation:` - an empty dict (or anything else) adds nothing */
    if (exdb_json_parse(text, n, &a, "custom", &j, &err) == 0 && j->type == EXDB_JOBJECT &&
        j->len) {
        exdb_buf_puts(b, " Annotation: {");
        for (uint32_t k = 0; k < j->len; k++) {
            const exdb_json *x = &j->u.kids[k];
            if (k)
                exdb_buf_puts(b, ", ");
            repr_str(b, x->key, strlen(x->key));
            exdb_buf_puts(b, ": ");
            exdb_buf_reset(&v); /* str(value): a string as it is, else its repr */
            if (x->type == EXDB_JSTRING)
                exdb_buf_put(&v, x->u.str, x->len);
            else
                repr(&v, x);
            if (utf8_len(exdb_buf_str(&v), v.len) > 40) {
                size_t cut = utf8_prefix(v.s, v.len, 40);
                exdb_buf_reset(&t); /* value_str[:40] + "...", a str */
                exdb_buf_put(&t, v.s, cut);
                exdb_buf_puts(&t, "...");
                repr_str(b, exdb_buf_str(&t), t.len);
            } else {
                repr(b, x);
            }
        }
        exdb_buf_putc(b, '}');
    }
    /* text that is not JSON adds nothing: PyTorch's json.loads refuses it */
    if (v.oom || t.oom || b->oom || exdb_error_oom(&err))
        rc = -1;
    exdb_buf_free(&v);
    exdb_buf_free(&t);
    exdb_arena_destroy(&a);
    free(text);
    return rc;
}
