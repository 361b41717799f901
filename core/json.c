/* json.c - see json.h. A recursive-descent parser with an explicit depth
 * limit; children of arrays and objects are gathered on a scratch stack and
 * copied into the arena contiguously when the container closes, so lookups
 * index an array and the DOM holds no per-value pointers. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *p, *start, *end;
    exdb_arena *a;
    const char *fname;
    exdb_error *err;
    exdb_json *stk; /* scratch stack of children being gathered */
    size_t top, cap;
    int depth;
} parser;

/* Reports a syntax error at the current position as line:column. */
static int fail(parser *ps, const char *what) {
    size_t line = 1, col = 1;
    for (const char *q = ps->start; q < ps->p && q < ps->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (ps->p >= ps->end)
        return exdb_errorf(ps->err, "%s: line %zu, column %zu: %s (the input ends here)", ps->fname,
                           line, col, what);
    return exdb_errorf(ps->err, "%s: line %zu, column %zu: %s", ps->fname, line, col, what);
}

static void skip_ws(parser *ps) {
    char *p = ps->p;
    while (p < ps->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    ps->p = p;
}

static exdb_json *push(parser *ps) {
    if (ps->top == ps->cap) {
        size_t ncap = ps->cap ? ps->cap * 2 : 1024;
        exdb_json *n = realloc(ps->stk, ncap * sizeof *n);
        if (!n)
            return NULL;
        ps->stk = n;
        ps->cap = ncap;
    }
    exdb_json *j = &ps->stk[ps->top++];
    memset(j, 0, sizeof *j);
    return j;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(parser *ps, const char *q, unsigned *out) {
    if (ps->end - q < 4)
        return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)q[i]);
        if (h < 0)
            return -1;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return 0;
}

/* Non-zero when one of the 8 bytes in v is '"', '\\' or a control
 * character (< 0x20): the classic has-zero-byte bit trick. */
static inline uint64_t special8(uint64_t v) {
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v)) & highs;
}

/* Parses a string starting at the opening quote and unescapes it in place.
 * The unescaped text is never longer than the escaped one, so writing behind
 * the read position is safe; the closing quote's byte becomes the NUL. */
static int parse_string(parser *ps, const char **out, uint32_t *outlen) {
    char *r = ps->p + 1, *w = r;
    char *begin = r;
    for (;;) {
        /* Fast path: eight plain bytes at a time, copied only once an
         * escape has opened a gap between the read and write positions. */
        while (ps->end - r >= 8) {
            uint64_t v;
            memcpy(&v, r, 8);
            if (special8(v))
                break;
            if (w != r)
                memcpy(w, &v, 8); /* v is already loaded: no overlap issue */
            r += 8;
            w += 8;
        }
        while (r < ps->end && *r != '"' && *r != '\\' && (unsigned char)*r >= 0x20)
            *w++ = *r++;
        if (r >= ps->end) {
            ps->p = r;
            return fail(ps, "unterminated string");
        }
        if (*r == '"')
            break;
        if ((unsigned char)*r < 0x20) {
            ps->p = r;
            return fail(ps, "control character inside a string");
        }
        /* Backslash escape. */
        if (r + 1 >= ps->end) {
            ps->p = r;
            return fail(ps, "unterminated string");
        }
        char c = r[1];
        r += 2;
        switch (c) {
        case '"':
            *w++ = '"';
            break;
        case '\\':
            *w++ = '\\';
            break;
        case '/':
            *w++ = '/';
            break;
        case 'b':
            *w++ = '\b';
            break;
        case 'f':
            *w++ = '\f';
            break;
        case 'n':
            *w++ = '\n';
            break;
        case 'r':
            *w++ = '\r';
            break;
        case 't':
            *w++ = '\t';
            break;
        case 'u': {
            unsigned cp;
            if (read_hex4(ps, r, &cp) < 0) {
                ps->p = r - 2;
                return fail(ps, "bad \\u escape: expected four hex digits");
            }
            r += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && ps->end - r >= 6 && r[0] == '\\' && r[1] == 'u') {
                unsigned lo;
                if (read_hex4(ps, r + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    r += 6;
                }
            }
            /* UTF-8 encode (a lone surrogate is kept as its 3-byte form,
             * as Python's json module keeps it). */
            if (cp < 0x80) {
                *w++ = (char)cp;
            } else if (cp < 0x800) {
                *w++ = (char)(0xC0 | (cp >> 6));
                *w++ = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *w++ = (char)(0xE0 | (cp >> 12));
                *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *w++ = (char)(0x80 | (cp & 0x3F));
            } else {
                *w++ = (char)(0xF0 | (cp >> 18));
                *w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
                *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *w++ = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default:
            ps->p = r - 2;
            return fail(ps, "unknown escape in string");
        }
    }
    size_t n = (size_t)(w - begin);
    if (n > UINT32_MAX) {
        ps->p = begin;
        return fail(ps, "string longer than 4 GiB");
    }
    *w = '\0'; /* w <= r, and r points at the closing quote */
    ps->p = r + 1;
    *out = begin;
    *outlen = (uint32_t)n;
    return 0;
}

static int match_word(parser *ps, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, w, n) == 0) {
        ps->p += n;
        return 1;
    }
    return 0;
}

/* Validates a JSON number (or Infinity/-Infinity/NaN) and records its text. */
static int parse_number(parser *ps, exdb_json *j) {
    char *s = ps->p, *p = s;
    if (p < ps->end && *p == '-')
        p++;
    ps->p = p;
    if (match_word(ps, "Infinity")) {
        p = ps->p;
    } else if (p == s && match_word(ps, "NaN")) {
        p = ps->p;
    } else {
        if (p >= ps->end || !(*p >= '0' && *p <= '9')) {
            ps->p = s;
            return fail(ps, "expected a value");
        }
        if (*p == '0')
            p++;
        else
            while (p < ps->end && *p >= '0' && *p <= '9')
                p++;
        if (p < ps->end && *p == '.') {
            p++;
            if (p >= ps->end || !(*p >= '0' && *p <= '9')) {
                ps->p = p;
                return fail(ps, "expected digits after the decimal point");
            }
            while (p < ps->end && *p >= '0' && *p <= '9')
                p++;
        }
        if (p < ps->end && (*p == 'e' || *p == 'E')) {
            p++;
            if (p < ps->end && (*p == '+' || *p == '-'))
                p++;
            if (p >= ps->end || !(*p >= '0' && *p <= '9')) {
                ps->p = p;
                return fail(ps, "expected digits in the exponent");
            }
            while (p < ps->end && *p >= '0' && *p <= '9')
                p++;
        }
    }
    if (p - s > 4096) {
        ps->p = s;
        return fail(ps, "number longer than 4096 characters");
    }
    j->type = EXDB_JNUMBER;
    j->u.str = s;
    j->len = (uint32_t)(p - s);
    ps->p = p;
    return 0;
}

static int parse_value(parser *ps, exdb_json *j);

/* Moves the children gathered above `base` into the arena. */
static int close_container(parser *ps, exdb_json *slot_ref, size_t slot_idx, size_t base) {
    (void)slot_ref;
    size_t n = ps->top - base;
    if (n > UINT32_MAX)
        return fail(ps, "container with more than 4 billion members");
    exdb_json *kids = NULL;
    if (n) {
        kids = exdb_arena_alloc(ps->a, n * sizeof *kids);
        if (!kids)
            return fail(ps, "out of memory");
        memcpy(kids, ps->stk + base, n * sizeof *kids);
    }
    ps->top = base;
    ps->stk[slot_idx].u.kids = kids;
    ps->stk[slot_idx].len = (uint32_t)n;
    return 0;
}

/* Parses the value at ps->p into the scratch slot at index idx. Slots are
 * addressed by index because the scratch stack may move when it grows. */
static int parse_at(parser *ps, size_t idx) {
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "expected a value");
    char c = *ps->p;
    if (c == '{' || c == '[') {
        if (++ps->depth > EXDB_JSON_MAX_DEPTH)
            return fail(ps, "nesting deeper than 512 levels");
        int is_obj = c == '{';
        ps->stk[idx].type = is_obj ? EXDB_JOBJECT : EXDB_JARRAY;
        ps->p++;
        size_t base = ps->top;
        skip_ws(ps);
        char close = is_obj ? '}' : ']';
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
        } else {
            for (;;) {
                const char *key = NULL;
                uint32_t klen;
                if (is_obj) {
                    skip_ws(ps);
                    if (ps->p >= ps->end || *ps->p != '"')
                        return fail(ps, "expected a string key in object");
                    if (parse_string(ps, &key, &klen) < 0)
                        return -1;
                    skip_ws(ps);
                    if (ps->p >= ps->end || *ps->p != ':')
                        return fail(ps, "expected ':' after object key");
                    ps->p++;
                }
                if (!push(ps))
                    return fail(ps, "out of memory");
                size_t kid = ps->top - 1;
                if (parse_at(ps, kid) < 0)
                    return -1;
                ps->stk[kid].key = key;
                skip_ws(ps);
                if (ps->p < ps->end && *ps->p == ',') {
                    ps->p++;
                    continue;
                }
                if (ps->p < ps->end && *ps->p == close) {
                    ps->p++;
                    break;
                }
                return fail(ps, is_obj ? "expected ',' or '}' after object member"
                                       : "expected ',' or ']' after array element");
            }
        }
        ps->depth--;
        return close_container(ps, NULL, idx, base);
    }
    exdb_json *j = &ps->stk[idx];
    if (c == '"') {
        j->type = EXDB_JSTRING;
        return parse_string(ps, &j->u.str, &j->len);
    }
    if (match_word(ps, "true")) {
        j->type = EXDB_JTRUE;
        return 0;
    }
    if (match_word(ps, "false")) {
        j->type = EXDB_JFALSE;
        return 0;
    }
    if (match_word(ps, "null")) {
        j->type = EXDB_JNULL;
        return 0;
    }
    return parse_number(ps, j);
}

static int parse_value(parser *ps, exdb_json *j) {
    (void)j;
    return parse_at(ps, ps->top - 1);
}

int exdb_json_parse(char *buf, size_t len, exdb_arena *a, const char *fname, exdb_json **out,
                    exdb_error *err) {
    parser ps = {.p = buf, .start = buf, .end = buf + len, .a = a, .fname = fname, .err = err};
    *out = NULL;
    int rc = -1;
    if (!push(&ps)) {
        exdb_errorf(err, "%s: out of memory", fname);
        goto done;
    }
    if (parse_value(&ps, NULL) < 0)
        goto done;
    skip_ws(&ps);
    if (ps.p < ps.end) {
        fail(&ps, "unexpected data after the JSON value");
        goto done;
    }
    exdb_json *root = exdb_arena_alloc(a, sizeof *root);
    if (!root) {
        exdb_errorf(err, "%s: out of memory", fname);
        goto done;
    }
    /* Number texts are not NUL-terminated in place; readers use len. */
    *root = ps.stk[0];
    *out = root;
    rc = 0;
done:
    free(ps.stk);
    return rc;
}

const exdb_json *exdb_json_get(const exdb_json *obj, const char *key) {
    if (!obj || obj->type != EXDB_JOBJECT)
        return NULL;
    for (uint32_t i = obj->len; i-- > 0;)
        if (strcmp(obj->u.kids[i].key, key) == 0)
            return &obj->u.kids[i];
    return NULL;
}

int exdb_json_int(const exdb_json *j, int64_t *out) {
    if (!j || j->type != EXDB_JNUMBER || j->len == 0 || j->len > 24)
        return -1;
    char tmp[32];
    memcpy(tmp, j->u.str, j->len);
    tmp[j->len] = '\0';
    for (uint32_t i = 0; i < j->len; i++)
        if (!(tmp[i] == '-' || (tmp[i] >= '0' && tmp[i] <= '9')))
            return -1;
    errno = 0;
    char *e;
    long long v = strtoll(tmp, &e, 10);
    if (errno || *e)
        return -1;
    *out = v;
    return 0;
}

int exdb_json_double(const exdb_json *j, double *out) {
    if (!j)
        return -1;
    const char *s;
    size_t n;
    if (j->type == EXDB_JNUMBER || j->type == EXDB_JSTRING) {
        s = j->u.str;
        n = j->len;
    } else {
        return -1;
    }
    if (n == 8 && memcmp(s, "Infinity", 8) == 0) {
        *out = INFINITY;
        return 0;
    }
    if (n == 9 && memcmp(s, "-Infinity", 9) == 0) {
        *out = -INFINITY;
        return 0;
    }
    if (n == 3 && memcmp(s, "NaN", 3) == 0) {
        *out = NAN;
        return 0;
    }
    if (j->type != EXDB_JNUMBER || n > 4096)
        return -1;
    char tmp[4100];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e;
    *out = strtod(tmp, &e);
    return *e ? -1 : 0;
}

const char *exdb_json_type_name(const exdb_json *j) {
    if (!j)
        return "nothing";
    switch ((exdb_jtype)j->type) {
    case EXDB_JNULL:
        return "null";
    case EXDB_JFALSE:
    case EXDB_JTRUE:
        return "a boolean";
    case EXDB_JNUMBER:
        return "a number";
    case EXDB_JSTRING:
        return "a string";
    case EXDB_JARRAY:
        return "an array";
    case EXDB_JOBJECT:
        return "an object";
    }
    return "a value";
}
