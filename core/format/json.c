/* json.c - see json.h. A recursive-descent parser with an explicit depth
 * limit; children of arrays and objects are gathered on a scratch stack and
 * copied into the arena contiguously when the container closes, so lookups
 * index an array and the DOM holds no per-value pointers.
 *
 * Deliberately lenient where Python's json is (the last of repeated keys
 * wins, lone surrogates are kept) and on bytes: invalid UTF-8 passes through
 * unchanged (PyTorch writes ASCII only; the loader refuses such strings where
 * it keeps them: tests/malformed/README.md). An object key holding \u0000
 * is refused, since keys are kept as C strings. Errors
 * say "line L, column C" (characters, as editors count) and what was found. */
#include "core/format/json.h"

#include "core/format/json_skim.h"

#include "core/base/filemap.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The string pool's chunk (exdb_jstrings): strings longer than a quarter of
 * it get a block of their own. */
#define POOL_CHUNK ((size_t)64 * 1024)

/* The bytes parsed between two calls giving their pages back: the first
 * pass over a mapped text keeps no more of it in memory than this (the
 * loader reads the lazy elements again when it parses them). */
#define DROP_STEP ((size_t)2 << 20)

typedef struct {
    const char *p, *start, *end;
    /* The line of the read position and where it starts, kept by skip_ws
     * (raw newlines only occur between tokens). */
    size_t line;
    const char *line_start;
    exdb_arena *a;
    exdb_jstrings *strs; /* where strings and keys are decoded to */
    int transient;       /* the next string goes to a instead (parse_deferring) */
    int escaped;         /* the string scan_string checked holds an escape */
    const char *fname;
    exdb_error *err;
    exdb_json *stk; /* scratch stack of children being gathered */
    size_t top, cap;
    int depth;
    /* exdb_json_parse_lazy: the members (prefix keys from the root, then
     * one of the last keys) whose elements are left unparsed, and how many
     * prefix keys the open containers match */
    const char *const *lazy;
    int nlazy, matched;
    const char *const *lazy_last;
    /* the keys of the open members matched below the prefix (a last entry
     * "graph/nodes" is matched in two steps) */
    const char *below[4];
    const exdb_json_lazy_hook *hook; /* told of each lazy element */
    const char *lazy_key;            /* the member whose elements are lazy */
    int stk_arena;                   /* the scratch stack starts in a, not malloc (see push) */
    int stk_heap;                    /* ps->stk is malloc'd (free it) */
    /* Lazy elements are only delimited (skip_lazy), not checked, while
     * the text before them is one line of ASCII: [start, ascii_upto) is
     * known to be; ascii_lost once it is not (then they are checked). */
    const char *ascii_upto;
    int ascii_lost;
    /* exdb_json_parse_lazy: the text before this has had its pages given
     * back (a mapped text: core/base/filemap.h); NULL in other parses */
    const char *dropped;
    /* a \u escape decoded to U+0000 or past U+007F (EXDB_JTEXT_CLEAN) */
    int u_beyond_ascii;
    /* exdb_json_parse_raw: characters on the line before ps->start (the
     * raw element's column in the whole text), and a failure that is
     * memory running out rather than the text */
    size_t col_base;
    int oom;
    /* exdb_json_parse_raw of an element flagged EXDB_JRAW_DEFER: its
     * "metadata" member is being parsed (in_meta) */
    int defer, in_meta;
    /* exdb_json_unescape_wide decodes (a string's one-character escapes
     * 64 bytes a step) */
    int wide;
} parser;

/* Describes what sits at the read position for "found ..." in messages:
 * a word or number as text, a punctuation character quoted, any other byte
 * in hex. */
static int is_word_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '+';
}

static void describe_here(const parser *ps, char *out, size_t cap) {
    const unsigned char *p = (const unsigned char *)ps->p;
    const unsigned char *end = (const unsigned char *)ps->end;
    size_t n = 0;
    while (p + n < end && n < 24 && is_word_byte(p[n]))
        n++;
    if (n > 0)
        snprintf(out, cap, "'%.*s%s'", (int)n, (const char *)p,
                 p + n < end && is_word_byte(p[n]) ? "..." : "");
    else if (*p >= 0x20 && *p < 0x7f)
        snprintf(out, cap, "'%c'", *p);
    else
        snprintf(out, cap, "byte 0x%02X", *p);
}

/* Reports a syntax error at the current position as line:column (both
 * 1-based; the column counts characters, not UTF-8 bytes, as editors do).
 * With found != 0 the message says what sits there instead. */
static int fail_at(parser *ps, const char *what, int found) {
    size_t line = ps->line, col = 1 + ps->col_base;
    for (const char *q = ps->line_start; q < ps->p && q < ps->end; q++)
        if (((unsigned char)*q & 0xC0) != 0x80)
            col++;
    if (ps->p >= ps->end)
        return exdb_errorf(ps->err, "%s: line %zu, column %zu: %s (the input ends here)", ps->fname,
                           line, col, what);
    if (found) {
        char here[48];
        describe_here(ps, here, sizeof here);
        return exdb_errorf(ps->err, "%s: line %zu, column %zu: %s, found %s", ps->fname, line, col,
                           what, here);
    }
    return exdb_errorf(ps->err, "%s: line %zu, column %zu: %s", ps->fname, line, col, what);
}

static int fail(parser *ps, const char *what) {
    return fail_at(ps, what, 0);
}

/* "expected X, found Y" at the read position. */
static int fail_found(parser *ps, const char *what) {
    return fail_at(ps, what, 1);
}

/* buf[len] is a NUL (exdb_json_parse's caller's): the scan stops there
 * without comparing against the end (JSON from json.dumps has one space
 * after each separator, so this runs for most values). */
static inline void skip_ws(parser *ps) {
    const char *p = ps->p;
    /* json.dumps's text: a token here, or one space before it */
    if ((unsigned char)*p > ' ')
        return;
    if (*p == ' ' && (unsigned char)p[1] > ' ') {
        ps->p = p + 1;
        return;
    }
    for (;;) {
        if (*p == ' ' || *p == '\r' || *p == '\t') {
            p++;
        } else if (*p == '\n') {
            ps->line++;
            ps->line_start = ++p;
        } else {
            break;
        }
    }
    ps->p = p;
}

/* Most arena stack slots one exdb_json_parse_raw takes before the stack
 * moves to the heap. */
#define ARENA_STACK_MAX 4096

/* Grows the scratch stack (push). exdb_json_parse_raw's
 * stack starts in the caller's arena, which is reset between elements (no
 * malloc per element); past ARENA_STACK_MAX slots it moves to the heap, since
 * every doubling in the arena leaves the old copy behind and written: a
 * node holding one 10M-element list took 3 slots of 24 bytes per element
 * (64 bytes of memory per byte of JSON in all). realloc of a big block
 * remaps pages rather than copying them, and untouched capacity is not
 * resident. */
static __attribute__((noinline)) int push_grow(parser *ps) {
    size_t ncap = ps->cap ? ps->cap * 2 : ps->stk_arena ? 64 : 1024;
    exdb_json *n;
    if (ps->stk_arena && ncap <= ARENA_STACK_MAX) {
        n = exdb_arena_alloc(ps->a, ncap * sizeof *n);
        if (n && ps->top)
            memcpy(n, ps->stk, ps->top * sizeof *n);
    } else {
        n = realloc(ps->stk_heap ? ps->stk : NULL, ncap * sizeof *n);
        if (n && !ps->stk_heap && ps->top)
            memcpy(n, ps->stk, ps->top * sizeof *n);
        if (n)
            ps->stk_heap = 1;
    }
    if (!n) {
        ps->oom = 1;
        return -1;
    }
    ps->stk = n;
    ps->cap = ncap;
    return 0;
}

/* The growth out of line: a push per member, most with room (inlined). */
static inline __attribute__((always_inline)) exdb_json *push(parser *ps) {
    if (__builtin_expect(ps->top == ps->cap, 0) && push_grow(ps) < 0)
        return NULL;
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

/* Index of the first byte (in memory order) flagged by special8. */
static inline unsigned first_flagged(uint64_t m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (unsigned)__builtin_clzll(m) >> 3;
#else
    return (unsigned)__builtin_ctzll(m) >> 3;
#endif
}

/* "invalid escape" at the backslash (ps->p), for escape character c. */
static int bad_escape(parser *ps, char c) {
    char what[128];
    if ((unsigned char)c >= 0x21 && (unsigned char)c < 0x7f)
        snprintf(what, sizeof what, "invalid escape \"\\%c\" in a string", c);
    else
        snprintf(what, sizeof what, "invalid escape (backslash, byte 0x%02X) in a string",
                 (unsigned char)c);
    return fail(ps, what);
}

/* The string's error at `at` (ps->p becomes it). The text is never
 * written, so its column is that of the text as written. */
static void string_err_at(parser *ps, const char *at) {
    ps->p = at;
}

/* The string opening at begin - 1 has no closing quote. */
__attribute__((cold)) static int unterminated(parser *ps, const char *begin) {
    string_err_at(ps, begin - 1);
    return fail(ps, "unterminated string: no closing quote before the end of the input");
}

/* The raw control character at r: JSON wants control characters escaped
 * (Python's json.loads refuses them too). */
__attribute__((cold)) static int control_char(parser *ps, const char *r) {
    char what[96];
    unsigned c = (unsigned char)*r;
    const char *esc = c == '\n'   ? " (write it as \\n)"
                      : c == '\t' ? " (write it as \\t)"
                      : c == '\r' ? " (write it as \\r)"
                                  : "";
    snprintf(what, sizeof what, "unescaped control character U+%04X inside a string%s", c, esc);
    string_err_at(ps, r);
    return fail(ps, what);
}

/* The escape at the backslash `at` is invalid: a \u without four hex
 * digits (c 'u'), or an unknown escape character c. */
__attribute__((cold)) static int bad_escape_at(parser *ps, const char *at, char c) {
    string_err_at(ps, at);
    if (c == 'u')
        return fail(ps, "invalid \\u escape in a string: expected four hex digits");
    return bad_escape(ps, c);
}

/* Moves the plain bytes at *rp (none of '"', '\\' or a control character)
 * to *wp (with write), stopping at the first other byte or the end. Eight
 * bytes a step: the lowest flagged byte of special8 is exact (false
 * positives only sit above a true one), so the plain prefix before it is
 * moved in one go and the scan lands on the quote or backslash directly.
 * Escape-dense strings (from_node holds a quote every few bytes) spend
 * their time here. */
static inline __attribute__((always_inline)) void scan_plain(const parser *ps, const char **rp,
                                                             char **wp, const int write) {
    const char *r = *rp;
    char *w = *wp;
    /* held here: a store through w (a char pointer) may alias *ps as far
     * as the compiler knows, which would load ps->end again after each */
    const char *const end = ps->end;
#ifdef __SSE2__
    /* sixteen bytes a step (x86-64's baseline): the special bytes' mask */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1F);
    while (end - r >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)r);
        if (write >= 2)
            _mm_storeu_si128((__m128i *)(void *)w, v);
        __m128i sp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                  _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
        unsigned m = (unsigned)_mm_movemask_epi8(sp);
        if (!m) {
            if (write == 1)
                _mm_storeu_si128((__m128i *)(void *)w, v);
            r += 16;
            w += 16;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctz(m);
        if (write >= 2 && r[k] == '\\' && end - r > k + 1) {
            /* a one-character escape (a stack trace's \" and \n, from_node's
             * \" every few bytes): decoded here, the scan goes on */
            char e = (char)exdb_json_one_char_escape[(unsigned char)r[k + 1]];
            if (write == 3 && e && end - r - k >= 64) {
                /* the rest 64 bytes a step (every escape here a
                 * mispredicted branch): up to the string's end, or to
                 * what the block scan leaves (\u, an error, the last 64
                 * bytes). Not at \u or an invalid escape, where it would
                 * decode nothing (a call for nothing at each \u). */
                const char *r2 = r + k;
                char *w2 = w + k;
                exdb_json_unescape_wide(&r2, &w2, end);
                if (r2 != r + k) {
                    r = r2;
                    w = w2;
                    continue;
                }
            }
            if (e) {
                w[k] = e;
                r += k + 2;
                w += k + 1;
                continue;
            }
        }
        if (write == 1)
            memcpy(w, r, k);
        *rp = r + k;
        *wp = w + k;
        return;
    }
#endif
    while (end - r >= 8) {
        uint64_t v;
        memcpy(&v, r, 8);
        uint64_t m = special8(v);
        if (write >= 2) /* room for the whole word: no copy of k bytes */
            memcpy(w, &v, 8);
        if (!m) {
            if (write == 1)
                memcpy(w, &v, 8);
            r += 8;
            w += 8;
            continue;
        }
        unsigned k = first_flagged(m); /* k plain bytes, then the special byte */
        if (write == 1)
            memcpy(w, r, k);
        *rp = r + k;
        *wp = w + k;
        return;
    }
    while (r < end && *r != '"' && *r != '\\' && (unsigned char)*r >= 0x20) {
        if (write)
            *w = *r;
        w++;
        r++;
    }
    *rp = r;
    *wp = w;
}

/* Checks the escape whose character c is at (*rp)[-1], moving *rp past it:
 * the errors unescape_at would find. */
static inline __attribute__((always_inline)) int check_escape(parser *ps, const char **rp, char c) {
    const char *r = *rp;
    if (c == 'u') {
        unsigned cp, lo;
        if (read_hex4(ps, r, &cp) < 0)
            return bad_escape_at(ps, r - 2, c);
        r += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && ps->end - r >= 6 && r[0] == '\\' && r[1] == 'u' &&
            read_hex4(ps, r + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF)
            r += 6;
    } else if (!exdb_json_one_char_escape[(unsigned char)c]) {
        return bad_escape_at(ps, r - 2, c);
    }
    *rp = r;
    return 0;
}

/* Code point cp as UTF-8 at w (a lone surrogate is kept as its 3-byte form,
 * as Python's json module keeps it); returns the byte after it. */
static inline __attribute__((always_inline)) char *put_utf8(char *w, unsigned cp) {
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
    return w;
}

/* The \uXXXX escape whose digits start at *rp (a surrogate pair taken
 * whole) decoded to *wp, both moved past it. */
static inline __attribute__((always_inline)) int unescape_u(parser *ps, const char **rp,
                                                            char **wp) {
    const char *r = *rp;
    unsigned cp;
    if (read_hex4(ps, r, &cp) < 0)
        return bad_escape_at(ps, r - 2, 'u');
    r += 4;
    if (cp >= 0xD800 && cp <= 0xDBFF && ps->end - r >= 6 && r[0] == '\\' && r[1] == 'u') {
        unsigned lo;
        if (read_hex4(ps, r + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            r += 6;
        }
    }
    ps->u_beyond_ascii |= cp == 0 || cp >= 0x80;
    *wp = put_utf8(*wp, cp);
    *rp = r;
    return 0;
}

/* The escape whose character c is at (*rp)[-1] unescaped to *wp, both moved
 * past it. */
static inline __attribute__((always_inline)) int unescape_at(parser *ps, const char **rp, char **wp,
                                                             char c) {
    if (c == 'u')
        return unescape_u(ps, rp, wp);
    char e = (char)exdb_json_one_char_escape[(unsigned char)c];
    if (!e)
        return bad_escape_at(ps, *rp - 2, c);
    *(*wp)++ = e;
    return 0;
}

/* Scans the string whose opening quote is at ps->p, leaving ps->p after
 * its closing quote. With write 0 it only checks it: *outlen is its
 * length as written and ps->escaped says whether it holds an escape. With
 * write 1 it decodes it to dst (room for its length as written, which the
 * decoded text never exceeds) and NUL-terminates it there: *out is dst.
 * Write 2 is write 1 with room at dst for the rest of the text (ps->end):
 * scan_plain stores whole words, however few of their bytes belong. Write
 * 3 is write 2 with exdb_json_unescape_wide from a string's first escape
 * on (ps->wide; its own instance, so that the other writes test nothing
 * for it). */
static inline __attribute__((always_inline)) int
scan_string(parser *ps, char *dst, const char **out, uint32_t *outlen, const int write) {
    const char *r = ps->p + 1;
    const char *begin = r;
    /* checking, w follows r and is never written through */
    char *w = write ? dst : (char *)begin;
    for (;;) {
        scan_plain(ps, &r, &w, write);
        if (r >= ps->end)
            return unterminated(ps, begin);
        if (*r == '"')
            break;
        if ((unsigned char)*r < 0x20)
            return control_char(ps, r);
        /* Backslash escape. */
        if (r + 1 >= ps->end)
            return unterminated(ps, begin);
        char c = r[1];
        r += 2;
        if (!write) {
            if (check_escape(ps, &r, c) < 0)
                return -1;
            ps->escaped = 1;
            w = (char *)r;
        } else if (unescape_at(ps, &r, &w, c) < 0) {
            return -1;
        }
    }
    size_t n = write ? (size_t)(w - dst) : (size_t)(r - begin);
    if (n > UINT32_MAX) {
        string_err_at(ps, begin);
        return fail(ps, "string longer than 4 GiB");
    }
    if (write)
        *w = '\0';
    ps->p = r + 1;
    *out = write ? dst : begin;
    *outlen = (uint32_t)n;
    return 0;
}

/* The keys of a program's JSON (serialize.py's dataclasses): a key that is
 * one of them is not copied into the string pool but points at the
 * static string (~20 keys a node: 18 MB of a 191 MB program's pool). */
static const char *const known_keys[] = {
    "name",
    "as_tensor",
    "arg",
    "kind",
    "target",
    "inputs",
    "outputs",
    "metadata",
    "stack_trace",
    "nn_module_stack",
    "torch_fn",
    "from_node",
    "is_hop_single_tensor_return",
    "source_fn_stack",
    "custom",
    "as_none",
    "as_tensors",
    "as_int",
    "as_ints",
    "as_float",
    "as_floats",
    "as_string",
    "as_strings",
    "as_sym_int",
    "as_sym_ints",
    "as_scalar_type",
    "as_memory_format",
    "as_layout",
    "as_device",
    "as_bool",
    "as_bools",
    "as_sym_bool",
    "as_sym_bools",
    "as_graph",
    "as_optional_tensors",
    "as_optional_tensor",
    "as_custom_obj",
    "as_operator",
    "as_sym_float",
    "as_sym_floats",
    "as_complex",
    "as_int_lists",
    "as_string_to_argument",
    "as_expr",
    "expr_str",
    "hint",
    "dtype",
    "sizes",
    "requires_grad",
    "device",
    "strides",
    "storage_offset",
    "layout",
    "type",
    "index",
    "tensor_values",
    "sym_int_values",
    "sym_float_values",
    "sym_bool_values",
    "custom_obj_values",
    "is_single_tensor_return",
    "nodes",
    "graph",
    "graph_module",
    "input_specs",
    "output_specs",
    "user_input",
    "parameter",
    "buffer",
    "tensor_constant",
    "custom_obj",
    "token",
    "constant_input",
    "user_output",
    "loss_output",
    "buffer_mutation",
    "gradient_to_parameter",
    "gradient_to_user_input",
    "user_input_mutation",
    "parameter_name",
    "buffer_name",
    "persistent",
    "tensor_constant_name",
    "custom_obj_name",
    "value",
    "fqn",
    "signature",
    "in_spec",
    "out_spec",
    "forward_arg_names",
    "module_call_graph",
    "schema_version",
    "major",
    "minor",
    "torch_version",
    "range_constraints",
    "min_val",
    "max_val",
    "verifiers",
    "dialect",
    "real",
    "imag",
    "class_fqn",
    "meta",
};

enum { KNOWN_SLOTS = 512, KNOWN_MAX_LEN = 32 };
static const char *known_slot[KNOWN_SLOTS];
static uint8_t known_len[KNOWN_SLOTS];
static pthread_once_t known_once = PTHREAD_ONCE_INIT;
static int known_ready; /* known_init has run (read with acquire) */
#ifdef __SSE2__
/* known_slot's keys of at most 15 bytes, NUL-padded to 16 (known_key16) */
static __m128i known16[KNOWN_SLOTS];
#endif

/* Cheap: the length and three bytes (the table is a quarter full). */
static uint32_t key_hash(const char *s, size_t n) {
    return (uint32_t)n * 131u + (unsigned char)s[0] * 31u + (unsigned char)s[n - 1] * 7u +
           (unsigned char)s[n / 2];
}

static void known_init(void) {
    for (size_t i = 0; i < sizeof known_keys / sizeof *known_keys; i++) {
        const char *k = known_keys[i];
        uint32_t h = key_hash(k, strlen(k)) & (KNOWN_SLOTS - 1);
        while (known_slot[h] && strcmp(known_slot[h], k) != 0)
            h = (h + 1) & (KNOWN_SLOTS - 1);
        known_slot[h] = k;
        known_len[h] = (uint8_t)strlen(k);
#ifdef __SSE2__
        if (known_len[h] < 16) {
            char pad[16] = {0};
            memcpy(pad, k, known_len[h]);
            known16[h] = _mm_loadu_si128((const __m128i *)(const void *)pad);
        }
#endif
    }
    __atomic_store_n(&known_ready, 1, __ATOMIC_RELEASE);
}

/* known_init run once, without a call of pthread_once per key after it. */
static inline __attribute__((always_inline)) void known_ensure(void) {
    if (!__atomic_load_n(&known_ready, __ATOMIC_ACQUIRE))
        pthread_once(&known_once, known_init);
}

/* Whether a[0..n) and b[0..n) are equal, 0 < n <= KNOWN_MAX_LEN: words
 * read inside both (the last one overlapping), no call to memcmp. */
static inline __attribute__((always_inline)) int key_eq(const char *a, const char *b, size_t n) {
    uint64_t x, y;
    uint32_t u, v;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return 0;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        if (u != v)
            return 0;
        memcpy(&u, a + n - 4, 4);
        memcpy(&v, b + n - 4, 4);
        return u == v;
    }
    return a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1];
}

/* The static copy of the key s[0..n) (no escape in it), or NULL. */
static inline __attribute__((always_inline)) const char *known_key(const char *s, size_t n) {
    if (n == 0 || n > KNOWN_MAX_LEN)
        return NULL;
    known_ensure();
    for (uint32_t h = key_hash(s, n) & (KNOWN_SLOTS - 1); known_slot[h];
         h = (h + 1) & (KNOWN_SLOTS - 1)) {
        if (known_len[h] == n && key_eq(known_slot[h], s, n))
            return known_slot[h];
    }
    return NULL;
}

#ifdef __SSE2__
/* The key at ps->p when it has at most 15 bytes and no escape (most keys
 * of a program): one of known_keys is its static string (one 16-byte load
 * and one compare), any other its copy in the string pool (when the
 * pool's chunk has 16 bytes left: the block is stored whole, as
 * scan_plain's write 2 does); its length in *outlen and ps->p past its
 * closing quote. NULL otherwise, ps->p unmoved (parse_key reads it). */
static inline __attribute__((always_inline)) const char *known_key16(parser *ps, uint32_t *outlen) {
    const char *s = ps->p + 1;
    if (ps->end - s < 16)
        return NULL;
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i sp = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
    unsigned m = (unsigned)_mm_movemask_epi8(sp);
    unsigned n = (unsigned)__builtin_ctz(m | 0x10000);
    /* the first special byte is the closing quote, after one byte or more */
    if (n == 0 || n == 16 || s[n] != '"')
        return NULL;
    known_ensure();
    unsigned want = (1u << n) - 1; /* the key's bytes */
    for (uint32_t h = key_hash(s, n) & (KNOWN_SLOTS - 1); known_slot[h];
         h = (h + 1) & (KNOWN_SLOTS - 1)) {
        if (known_len[h] != n)
            continue;
        unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, known16[h]));
        if ((eq & want) == want) {
            *outlen = n;
            ps->p = s + n + 1;
            return known_slot[h];
        }
    }
    /* what parse_key would give it, without its scan and second lookup */
    exdb_jstrings *pool = ps->strs;
    if (ps->transient || (size_t)(pool->end - pool->p) < 16)
        return NULL;
    char *d = pool->p;
    _mm_storeu_si128((__m128i *)(void *)d, v);
    d[n] = '\0';
    pool->p = d + n + 1;
    *outlen = n;
    ps->p = s + n + 1;
    return d;
}
#endif

/* n bytes of the string pool (byte-aligned), or NULL: memory ran out. */
static char *pool_take(exdb_jstrings *s, size_t n) {
    if ((size_t)(s->end - s->p) >= n) {
        char *r = s->p;
        s->p += n;
        return r;
    }
    size_t chunk = n > POOL_CHUNK / 4 ? n : POOL_CHUNK;
    if (s->mu)
        pthread_mutex_lock(s->mu);
    char *c = exdb_arena_alloc(s->a, chunk);
    if (s->mu)
        pthread_mutex_unlock(s->mu);
    if (!c)
        return NULL;
    if (chunk == n) /* a big string: the chunk in use stays */
        return c;
    s->p = c + n;
    s->end = c + chunk;
    return c;
}

/* Checks the string at ps->p, then copies it (decoded when it holds an
 * escape) into the string pool; a key (is_key) that is one of known_keys
 * is that static string instead. A string value is checked and copied in
 * one pass when the pool's chunk has room for the rest of the text. */
static inline __attribute__((always_inline)) int store_string(parser *ps, const char **out,
                                                              uint32_t *outlen, const int is_key) {
    const char *q = ps->p, *s = NULL;
    uint32_t n = 0;
    exdb_jstrings *pool = ps->strs;
    if (!is_key && !ps->transient && (size_t)(pool->end - pool->p) > (size_t)(ps->end - q)) {
        /* the pool's chunk holds the rest of the text (exdb_json_parse_raw
         * reserved its element): checked and decoded in one pass (keys,
         * mostly known_keys, are only checked) */
        char *d = pool->p;
        if ((ps->wide ? scan_string(ps, d, out, outlen, 3) : scan_string(ps, d, out, outlen, 2)) <
            0)
            return -1;
        pool->p = d + *outlen + 1;
        return 0;
    }
    ps->escaped = 0;
    if (scan_string(ps, NULL, &s, &n, 0) < 0)
        return -1;
    if (is_key && !ps->escaped) {
        const char *k = known_key(s, n);
        if (k) {
            *out = k;
            *outlen = n;
            return 0;
        }
    }
    char *d =
        ps->transient ? exdb_arena_alloc(ps->a, (size_t)n + 1) : pool_take(ps->strs, (size_t)n + 1);
    if (!d) {
        ps->oom = 1;
        ps->p = q;
        return fail(ps, "out of memory");
    }
    if (!ps->escaped) {
        memcpy(d, s, n);
        d[n] = '\0';
        *out = d;
        *outlen = n;
        return 0;
    }
    /* checked: decoding finds no error; the pool's unused tail (what the
     * escapes saved) is given back */
    const char *after = ps->p;
    ps->p = q;
    if (scan_string(ps, d, out, outlen, 1) < 0)
        return -1;
    if (!ps->transient && ps->strs->p == d + n + 1)
        ps->strs->p = d + *outlen + 1;
    ps->p = after;
    return 0;
}

static int parse_string(parser *ps, const char **out, uint32_t *outlen) {
    return store_string(ps, out, outlen, 0);
}

static int check_string(parser *ps) {
    const char *s;
    uint32_t n;
    return scan_string(ps, NULL, &s, &n, 0);
}

/* Whether the escaped string text [s, e) holds a \u0000 escape. */
static int has_nul_escape(const char *s, const char *e) {
    for (; s < e; s++) {
        if (*s != '\\')
            continue;
        if (e - s >= 6 && s[1] == 'u' && memcmp(s + 2, "0000", 4) == 0)
            return 1;
        s++; /* the escaped character; a \uXXXX's digits hold no backslash */
    }
    return 0;
}

/* An object key (parse_string / check_string) holding U+0000 is refused at
 * its opening quote: the DOM keeps keys as C strings, so "x\u0000junk" would
 * be looked up as "x" (a tensor_values entry would describe value x). */
static int key_nul(parser *ps, const char *quote) {
    ps->p = quote;
    return fail(ps, "an object key holding \\u0000 (U+0000), which exdb cannot keep");
}

/* parse_string and check_string of a key. Only a key holding an escape
 * can hold U+0000 (raw control bytes are refused): a parsed key decoded
 * shorter than written is searched, a checked one scanned for \u0000. */
static int parse_key(parser *ps, const char **out, uint32_t *outlen) {
    const char *quote = ps->p;
    if (store_string(ps, out, outlen, 1) < 0)
        return -1;
    if (*outlen == (size_t)(ps->p - quote - 2))
        return 0;
    return memchr(*out, 0, *outlen) ? key_nul(ps, quote) : 0;
}

static int check_key(parser *ps) {
    const char *quote = ps->p;
    if (check_string(ps) < 0)
        return -1;
    return has_nul_escape(quote + 1, ps->p - 1) ? key_nul(ps, quote) : 0;
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
    const char *s = ps->p, *p = s;
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
            return fail_found(ps, "expected a value");
        }
        if (*p == '0') {
            p++;
            if (p < ps->end && *p >= '0' && *p <= '9') {
                ps->p = p - 1;
                return fail(ps, "a number must not start with 0 followed by digits");
            }
        } else
            while (p < ps->end && *p >= '0' && *p <= '9')
                p++;
        if (p < ps->end && *p == '.') {
            p++;
            if (p >= ps->end || !(*p >= '0' && *p <= '9')) {
                ps->p = p;
                return fail_found(ps, "expected digits after the decimal point");
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
                return fail_found(ps, "expected digits in the exponent");
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

/* Moves the children gathered above `base` into the arena. */
static inline __attribute__((always_inline)) int close_container(parser *ps, size_t slot_idx,
                                                                 size_t base) {
    size_t n = ps->top - base;
    if (n > UINT32_MAX)
        return fail(ps, "container with more than 4 billion members");
    exdb_json *kids = NULL;
    if (n) {
        kids = exdb_arena_alloc(ps->a, n * sizeof *kids);
        if (!kids) {
            ps->oom = 1;
            return fail(ps, "out of memory");
        }
        if (n <= 4) /* most containers of a program (no call of memcpy) */
            for (size_t i = 0; i < n; i++)
                kids[i] = ps->stk[base + i];
        else
            memcpy(kids, ps->stk + base, n * sizeof *kids);
    }
    ps->top = base;
    ps->stk[slot_idx].u.kids = kids;
    ps->stk[slot_idx].len = (uint32_t)n;
    return 0;
}

/* Gives back the text read since ps->dropped (a mapped text), but what
 * the hook still holds. */
static void drop_behind(parser *ps) {
    const char *to = ps->p;
    if (ps->hook && ps->hook->held) {
        const char *h = ps->hook->held(ps->hook->ctx);
        if (h && h < to)
            to = h;
    }
    if (to > ps->dropped && (size_t)(to - ps->dropped) >= DROP_STEP) {
        exdb_filemap_drop(ps->start, ps->dropped, to);
        ps->dropped = to;
    }
}

/* What parse_container does with the elements of a container. */
enum {
    ELEMS_PARSE, /* parse each into a slot (parse_at, parse_member) */
    ELEMS_RAW,   /* check each (skip_value) and keep its text (EXDB_JRAW) */
    ELEMS_CHECK, /* check each, keep nothing (no slot for the container either) */
};

static int parse_at(parser *ps, size_t idx);
static int parse_member(parser *ps, size_t idx, const char *key);
static int parse_deferring(parser *ps, size_t idx, const char *key);
static int skip_value(parser *ps);
static int skip_lazy(parser *ps);

/* The array or object at ps->p ('[' or '{') into slot idx: one walk for
 * parsing, lazy elements and checking, so all three find the same errors
 * at the same places. Inlined with mode a constant in each caller. */
static inline __attribute__((always_inline)) int parse_container(parser *ps, size_t idx,
                                                                 const int mode) {
    if (++ps->depth > EXDB_JSON_MAX_DEPTH)
        return fail(ps, "nesting deeper than 512 levels");
    int is_obj = *ps->p == '{';
    char close = is_obj ? '}' : ']';
    if (mode != ELEMS_CHECK)
        ps->stk[idx].type = is_obj ? EXDB_JOBJECT : EXDB_JARRAY;
    ps->p++;
    size_t base = ps->top;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
    } else {
        for (;;) {
            const char *key = NULL;
            uint32_t klen;
            skip_ws(ps);
            if (is_obj) {
                if (ps->p >= ps->end || *ps->p != '"')
                    return fail_found(ps, "expected a string key in object");
                int known = 0; /* most keys: read inline, no call of parse_key */
#ifdef __SSE2__
                if (mode != ELEMS_CHECK)
                    known = (key = known_key16(ps, &klen)) != NULL;
#endif
                if (!known &&
                    (mode == ELEMS_CHECK ? check_key(ps) : parse_key(ps, &key, &klen)) < 0)
                    return -1;
                skip_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':')
                    return fail_found(ps, "expected ':' after object key");
                ps->p++;
                skip_ws(ps);
            }
            if (mode == ELEMS_CHECK) {
                if (skip_value(ps) < 0)
                    return -1;
            } else {
                if (!push(ps))
                    return fail(ps, "out of memory");
                size_t kid = ps->top - 1;
                if (mode == ELEMS_RAW) {
                    const char *start = ps->p;
                    int skimmed = skip_lazy(ps);
                    if (skimmed < 0)
                        return -1;
                    ps->stk[kid].type = EXDB_JRAW;
                    ps->stk[kid].flags = skimmed ? EXDB_JRAW_ASCII : 0;
                    ps->stk[kid].u.str = start;
                    ps->stk[kid].len = (uint32_t)(ps->p - start); /* inputs are < 4 GiB */
                    if (ps->hook)
                        ps->hook->fn(ps->hook->ctx, ps->lazy_key, (uint32_t)(kid - base),
                                     &ps->stk[kid]);
                } else if (ps->p < ps->end && *ps->p == '"' && !ps->defer) {
                    /* a string value (most of a program's): what parse_at
                     * gives it, without the call; an element flagged
                     * EXDB_JRAW_DEFER takes parse_member's way */
                    ps->stk[kid].type = EXDB_JSTRING;
                    if (store_string(ps, &ps->stk[kid].u.str, &ps->stk[kid].len, 0) < 0)
                        return -1;
                } else if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
                    /* an integer read here (a program's kinds, dtypes and
                     * sizes); parse_number takes any other number and
                     * refuses what is no number */
                    const char *s = ps->p, *p = s + 1;
                    if (*s != '0')
                        while (p < ps->end && *p >= '0' && *p <= '9')
                            p++;
                    if ((p < ps->end &&
                         (*p == '.' || (*p | 0x20) == 'e' || (*p >= '0' && *p <= '9'))) ||
                        p - s > 4096) {
                        if (parse_number(ps, &ps->stk[kid]) < 0)
                            return -1;
                    } else {
                        ps->stk[kid].type = EXDB_JNUMBER;
                        ps->stk[kid].u.str = s;
                        ps->stk[kid].len = (uint32_t)(p - s);
                        ps->p = p;
                    }
                } else if ((key ? parse_member(ps, kid, key) : parse_at(ps, kid)) < 0) {
                    return -1;
                }
                ps->stk[kid].key = key;
            }
            if (mode != ELEMS_CHECK && ps->dropped && (size_t)(ps->p - ps->dropped) >= DROP_STEP)
                drop_behind(ps);
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == close) {
                ps->p++;
                break;
            }
            return fail_found(ps, is_obj ? "expected ',' or '}' after an object member"
                                         : "expected ',' or ']' after an array element");
        }
    }
    ps->depth--;
    return mode == ELEMS_CHECK ? 0 : close_container(ps, idx, base);
}

/* Checks the value at ps->p as parse_at would parse it (the same errors at
 * the same places, the same depth limit) without building anything or
 * writing a byte. */
static int skip_value(parser *ps) {
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "expected a value");
    char c = *ps->p;
    if (c == '"')
        return check_string(ps);
    if (c == '{' || c == '[')
        return parse_container(ps, 0, ELEMS_CHECK);
    if (match_word(ps, "true") || match_word(ps, "false") || match_word(ps, "null"))
        return 0;
    exdb_json num;
    return parse_number(ps, &num);
}

/* Whether [s, e) is ASCII (exdb_json_skim_ascii): the gap between two lazy
 * elements (a comma and a tensor_values key, mostly under 64 bytes) from
 * four 16-byte loads, without the call. */
static inline int gap_ascii(const parser *ps, const char *s, const char *e) {
#ifdef __SSE2__
    size_t n = (size_t)(e - s);
    if (n <= 64 && ps->end - s >= 64) {
        uint64_t m =
            (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)s)) |
            (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + 16)))
                << 16 |
            (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + 32)))
                << 32 |
            (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + 48))) << 48;
        return !(n == 64 ? m : m & ((1ULL << n) - 1));
    }
#endif
    return exdb_json_skim_ascii(s, e);
}

/* A lazy element at ps->p, which exdb_json_parse_raw parses later: only
 * delimited (exdb_json_skim) when it is an array or object and the text
 * up to it is one line of ASCII, so that a syntax error parse_raw finds in
 * it has its line (1) and column (its offset) without counting over the
 * strings parsed in place before it; checked by skip_value otherwise.
 * 1 when delimited so (the element is ASCII: json_skim.h), 0 when checked,
 * -1 on a syntax error. */
static int skip_lazy(parser *ps) {
    const char *s = ps->p;
    if (!ps->ascii_lost && ps->line == 1 && s < ps->end && (*s == '{' || *s == '[')) {
        if (!gap_ascii(ps, ps->ascii_upto, s)) {
            ps->ascii_lost = 1;
        } else {
            const char *e = exdb_json_skim(s, ps->end, EXDB_JSON_MAX_DEPTH - ps->depth);
            ps->ascii_upto = e ? e : s;
            if (e) {
                ps->p = e;
                return 1;
            }
        }
    }
    return skip_value(ps) < 0 ? -1 : 0;
}

/* The array or object at ps->p with its elements (member values) checked
 * but left unparsed: each becomes an EXDB_JRAW slot holding its text, for
 * exdb_json_parse_raw (members keep their keys). Any other value is parsed
 * as usual. */
static int parse_lazy_value(parser *ps, size_t idx, const char *key) {
    skip_ws(ps);
    if (ps->p >= ps->end || (*ps->p != '[' && *ps->p != '{'))
        return parse_at(ps, idx);
    ps->lazy_key = key;
    int rc = parse_container(ps, idx, ELEMS_RAW);
    if (rc == 0 && ps->hook) /* its elements end */
        ps->hook->fn(ps->hook->ctx, key, ps->stk[idx].len, NULL);
    return rc;
}

/* How the member key, r levels below the prefix (its parents there
 * ps->below[0..r)), stands to the last entries ("key", or "parent/key"
 * and so on): 2 when an entry names it, 1 when an entry goes on below it,
 * else 0. */
static int lazy_last_match(const parser *ps, int r, const char *key) {
    int found = 0;
    for (const char *const *k = ps->lazy_last; *k; k++) {
        const char *e = *k;
        int i = 0;
        for (; i < r; i++) { /* the parents' components */
            size_t n = strlen(ps->below[i]);
            if (strncmp(e, ps->below[i], n) != 0 || e[n] != '/')
                break;
            e += n + 1;
        }
        if (i < r)
            continue;
        size_t n = strlen(key);
        if (strncmp(e, key, n) == 0 && e[n] == '\0')
            return 2;
        if (strncmp(e, key, n) == 0 && e[n] == '/' &&
            r + 1 < (int)(sizeof ps->below / sizeof *ps->below))
            found = 1;
    }
    return found;
}

/* Whether key is one of the metadata keys EXDB_JRAW_DEFER keeps parsing
 * (nn_module_stack: the loader splits it; custom: unflatten reads it). */
static int defer_keeps(const char *key) {
    return strcmp(key, "nn_module_stack") == 0 || strcmp(key, "custom") == 0;
}

/* The string at ps->p (its opening quote) into slot idx as EXDB_JRAW: its
 * text from the quote to the closing one (exdb_json_skim_string). The
 * element was delimited by the skim (EXDB_JRAW_ASCII), so the string is
 * closed and holds no raw control byte; what is left to check (its
 * escapes) is exdb_json_string_at's. */
static int defer_string(parser *ps, size_t idx) {
    const char *q = ps->p, *r = exdb_json_skim_string(q, ps->end);
    if (!r)
        return parse_at(ps, idx); /* not closed after all: its message */
    exdb_json *j = &ps->stk[idx];
    j->type = EXDB_JRAW;
    j->flags = 0;
    j->u.str = q;
    j->len = (uint32_t)(r + 1 - q);
    ps->p = r + 1;
    return 0;
}

/* parse_member in an element flagged EXDB_JRAW_DEFER: the string members
 * of its "metadata" object, but for defer_keeps's, are left unparsed. */
static int parse_deferring(parser *ps, size_t idx, const char *key) {
    if (ps->depth == 1 && strcmp(key, "metadata") == 0) {
        ps->in_meta = 1;
        int rc = parse_at(ps, idx);
        ps->in_meta = 0;
        return rc;
    }
    if (ps->depth == 2 && ps->in_meta && *ps->p == '"') {
        if (!defer_keeps(key))
            return defer_string(ps, idx);
        if (strcmp(key, "nn_module_stack") == 0) {
            /* without a backslash its text is its value (the element is
             * ASCII without raw control bytes): left raw, the loader
             * recognises a stack it has seen by these bytes */
            const char *q = ps->p, *r = exdb_json_skim_string(q, ps->end);
            if (r && !memchr(q + 1, '\\', (size_t)(r - q - 1)))
                return defer_string(ps, idx);
            /* read at load, kept once per distinct stack by the loader:
             * with the element's DOM, not in the string pool */
            ps->transient = 1;
            int rc = parse_at(ps, idx);
            ps->transient = 0;
            return rc;
        }
    }
    return parse_at(ps, idx);
}

/* Parses the value of the member named key at ps->p into slot idx: lazily
 * when the member ends the lazy path, following the path when it continues
 * it. Depth d is the depth of the object holding the member (root = 1). */
static int parse_member(parser *ps, size_t idx, const char *key) {
    int d = ps->depth;
    if (ps->defer)
        return parse_deferring(ps, idx, key);
    if (!ps->lazy_last || ps->matched != d - 1)
        return parse_at(ps, idx);
    if (d > ps->nlazy) { /* below the prefix */
        int r = d - ps->nlazy - 1, m = lazy_last_match(ps, r, key);
        if (m == 2)
            return parse_lazy_value(ps, idx, key);
        if (m == 0)
            return parse_at(ps, idx);
        ps->below[r] = key;
    } else if (strcmp(key, ps->lazy[d - 1]) != 0) {
        return parse_at(ps, idx);
    }
    ps->matched++;
    int rc = parse_at(ps, idx);
    ps->matched--;
    return rc;
}

/* Parses the value at ps->p into the scratch slot at index idx. Slots are
 * addressed by index because the scratch stack may move when it grows. */
static int parse_at(parser *ps, size_t idx) {
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "expected a value");
    char c = *ps->p;
    if (c == '{' || c == '[')
        return parse_container(ps, idx, ELEMS_PARSE);
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

int exdb_json_parse(const char *buf, size_t len, exdb_arena *a, const char *fname, exdb_json **out,
                    exdb_error *err) {
    exdb_jstrings strs = exdb_jstrings_on(a);
    return exdb_json_parse_lazy(buf, len, a, &strs, fname, NULL, 0, NULL, out, err);
}

int exdb_json_parse_lazy(const char *buf, size_t len, exdb_arena *a, exdb_jstrings *strs,
                         const char *fname, const char *const *prefix, int nprefix,
                         const char *const *last, exdb_json **out, exdb_error *err) {
    return exdb_json_parse_lazy_hooked(buf, len, a, strs, fname, prefix, nprefix, last, NULL, out,
                                       err);
}

int exdb_json_parse_lazy_hooked(const char *buf, size_t len, exdb_arena *a, exdb_jstrings *strs,
                                const char *fname, const char *const *prefix, int nprefix,
                                const char *const *last, const exdb_json_lazy_hook *hook,
                                exdb_json **out, exdb_error *err) {
    parser ps = {.p = buf,
                 .start = buf,
                 .end = buf + len,
                 .line = 1,
                 .line_start = buf,
                 .a = a,
                 .strs = strs,
                 .fname = fname,
                 .err = err,
                 .lazy = prefix,
                 .nlazy = prefix ? nprefix : 0,
                 .lazy_last = last,
                 .hook = hook,
                 .ascii_upto = buf,
                 .dropped = buf,
                 .wide = exdb_json_unescape_wide_ok()};
    *out = NULL;
    int rc = -1;
    if (buf[len] != '\0') { /* the sentinel skip_ws relies on */
        exdb_errorf(err, "%s: internal error: the text has no NUL after it", fname);
        goto done;
    }
    if (!push(&ps)) {
        exdb_errorf(err, "%s: out of memory", fname);
        goto done;
    }
    exdb_filemap_ahead_start(buf); /* a big mapped text: its pages mapped in ahead */
    if (parse_at(&ps, 0) < 0)
        goto done;
    skip_ws(&ps);
    if (ps.p < ps.end) {
        fail_found(&ps, "expected the end of the input after the JSON value");
        goto done;
    }
    exdb_json *root = exdb_arena_alloc(a, sizeof *root);
    if (!root) {
        exdb_errorf(err, "%s: out of memory", fname);
        goto done;
    }
    /* Number texts are not NUL-terminated in place; readers use len. */
    *root = ps.stk[0];
    /* Every string of the DOM is UTF-8 without U+0000 when the whole text
     * is ASCII ([buf, ascii_upto) was found so, the rest is scanned here
     * unless that is most of the text: a text of many lines, which
     * skip_lazy does not skim) and no \u escape decoded to U+0000 or past
     * U+007F. */
    root->flags = !ps.ascii_lost && !ps.u_beyond_ascii &&
                          (size_t)(ps.end - ps.ascii_upto) <= len / 4 + 4096 &&
                          exdb_json_skim_ascii(ps.ascii_upto, ps.end)
                      ? EXDB_JTEXT_CLEAN
                      : 0;
    *out = root;
    rc = 0;
done:
    exdb_filemap_ahead_stop(buf);
    if (ps.stk_heap)
        free(ps.stk);
    return rc;
}

/* Makes n free bytes of s contiguous (a new chunk when the current one has
 * fewer); 0, or -1 when memory runs out. */
static int pool_reserve(exdb_jstrings *s, size_t n) {
    if ((size_t)(s->end - s->p) >= n)
        return 0;
    char *c = pool_take(s, POOL_CHUNK);
    if (!c)
        return -1;
    s->p = c;
    s->end = c + POOL_CHUNK;
    return 0;
}

int exdb_json_parse_raw(const exdb_json *raw, const char *text, exdb_arena *a, exdb_jstrings *strs,
                        const char *fname, exdb_json *out, const char **lo, const char **hi,
                        exdb_error *err) {
    const char *lo0 = NULL;
    if (lo)
        *lo = *hi = NULL;
    if (!raw || raw->type != EXDB_JRAW) {
        if (raw) {
            *out = *raw;
            out->flags = 0;
        }
        return raw ? 0 : exdb_errorf(err, "%s: no value", fname);
    }
    /* The text lies inside the buffer exdb_json_parse_lazy was given.
     * Checked then, only memory can run out here; only delimited, it sits
     * on the text's first line, all ASCII before it (skip_lazy), so its
     * column is its offset. */
    const char *p = raw->u.str;
    parser ps = {.p = p,
                 .start = p,
                 .end = p + raw->len,
                 .line = 1,
                 .line_start = p,
                 .col_base = text && text <= p ? (size_t)(p - text) : 0,
                 .a = a,
                 .strs = strs,
                 .fname = fname,
                 .err = err,
                 .stk_arena = 1,
                 .defer = (raw->flags & (EXDB_JRAW_DEFER | EXDB_JRAW_ASCII)) ==
                          (EXDB_JRAW_DEFER | EXDB_JRAW_ASCII),
                 .wide = exdb_json_unescape_wide_ok()};
    int rc = 0;
    /* decoded, an element's strings and keys (a NUL each instead of two
     * quotes) take at most its length */
    if (raw->len <= EXDB_JSTRINGS_SPAN) {
        if (pool_reserve(strs, (size_t)raw->len + 1) < 0)
            return exdb_errorf(err, "%s: out of memory", fname);
        lo0 = strs->p;
    }
    if (!push(&ps))
        rc = exdb_errorf(err, "%s: out of memory", fname);
    else if (parse_at(&ps, 0) < 0)
        rc = ps.oom ? exdb_errorf(err, "%s: out of memory", fname) : -1;
    if (rc == 0) {
        const char *key = raw->key;
        *out = ps.stk[0];
        out->key = key;
        /* an ASCII text decodes to ASCII, but for the \u escapes counted
         * in u_beyond_ascii */
        out->flags = !ps.u_beyond_ascii && (raw->flags & EXDB_JRAW_ASCII) ? EXDB_JTEXT_CLEAN : 0;
        if (lo && lo0) {
            *lo = lo0;
            *hi = strs->p;
        }
    }
    if (ps.stk_heap)
        free(ps.stk);
    return rc;
}

int exdb_json_string_at(const char *quote, const char *end, const char *text, exdb_jstrings *strs,
                        const char *fname, const char **out, uint32_t *len, exdb_error *err) {
    parser ps = {.p = quote,
                 .start = quote,
                 .end = end,
                 .line = 1,
                 .line_start = quote,
                 .col_base = (size_t)(quote - text),
                 .strs = strs,
                 .fname = fname,
                 .err = err,
                 .wide = exdb_json_unescape_wide_ok()};
    if (parse_string(&ps, out, len) < 0)
        return ps.oom ? exdb_errorf(err, "%s: out of memory", fname) : -1;
    return 0;
}
