/* test_json.c - the JSON reader (core/format/json.c): value kinds, escapes,
 * PyTorch's non-standard number tokens, limits and error positions. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/base/strbuf.h"
#include "core/format/json.h"
#include "core/format/json_ahead.h"
#include "core/format/json_skim.h"

static exdb_arena arena;
static char *text;          /* the buffer being parsed (never written by the parse) */
static exdb_jstrings tstrs; /* the lazy parse's string pool (on arena) */

static void setup(void) {
    exdb_arena_init(&arena);
    text = NULL;
}

static void teardown(void) {
    exdb_arena_destroy(&arena);
    free(text);
}

TestSuite(json, .init = setup, .fini = teardown);

/* s copied into text (the reader writes into its buffer); its length. */
static size_t set_text(const char *s) {
    free(text);
    size_t n = strlen(s);
    text = malloc(n + 1);
    cr_assert_not_null(text);
    memcpy(text, s, n + 1);
    return n;
}

/* Parses s as file "t.json". */
static int parse(const char *s, exdb_json **out, exdb_error *err) {
    size_t n = set_text(s);
    return exdb_json_parse(text, n, &arena, "t.json", out, err);
}

static exdb_json *ok(const char *s) {
    exdb_json *j = NULL;
    exdb_error err = {0};
    int rc = parse(s, &j, &err);
    cr_assert_eq(rc, 0, "parse of %s failed: %s", s, err.msg);
    cr_assert_not_null(j);
    return j;
}

/* The error message for s, which must not parse. */
static const char *bad(const char *s) {
    static exdb_error err;
    exdb_json *j = NULL;
    memset(&err, 0, sizeof err);
    cr_assert_eq(parse(s, &j, &err), -1, "%s parsed", s);
    cr_assert(err.set);
    return err.msg;
}

Test(json, every_value_kind) {
    exdb_json *j = ok(" {\"n\": null, \"t\": true, \"f\": false, \"i\": -12, \"x\": 1.5e3,"
                      " \"s\": \"hi\", \"a\": [1, [], {}], \"o\": {\"k\": \"v\"}} ");
    cr_assert_eq(j->type, EXDB_JOBJECT);
    cr_assert_eq(j->len, 8);
    cr_assert_eq(exdb_json_get(j, "n")->type, EXDB_JNULL);
    cr_assert_eq(exdb_json_get(j, "t")->type, EXDB_JTRUE);
    cr_assert_eq(exdb_json_get(j, "f")->type, EXDB_JFALSE);
    int64_t i;
    cr_assert_eq(exdb_json_int(exdb_json_get(j, "i"), &i), 0);
    cr_assert_eq(i, -12);
    double d;
    cr_assert_eq(exdb_json_double(exdb_json_get(j, "x"), &d), 0);
    cr_assert_float_eq(d, 1500.0, 1e-9);
    cr_assert_eq(exdb_json_int(exdb_json_get(j, "x"), &i), -1, "1.5e3 is not an integer");
    const exdb_json *s = exdb_json_get(j, "s");
    cr_assert_eq(s->type, EXDB_JSTRING);
    cr_assert_str_eq(s->u.str, "hi");
    cr_assert_eq(s->len, 2);
    const exdb_json *a = exdb_json_get(j, "a");
    cr_assert_eq(a->type, EXDB_JARRAY);
    cr_assert_eq(a->len, 3);
    cr_assert_eq(a->u.kids[1].type, EXDB_JARRAY);
    cr_assert_eq(a->u.kids[1].len, 0);
    cr_assert_eq(a->u.kids[2].type, EXDB_JOBJECT);
    cr_assert_eq(a->u.kids[2].len, 0);
    cr_assert_str_eq(exdb_json_get(exdb_json_get(j, "o"), "k")->u.str, "v");
    cr_assert_null(exdb_json_get(j, "missing"));
    cr_assert_null(exdb_json_get(a, "n"), "lookup in an array");
    /* members keep file order and their keys */
    cr_assert_str_eq(j->u.kids[0].key, "n");
    cr_assert_str_eq(j->u.kids[7].key, "o");
}

Test(json, top_level_scalars) {
    cr_assert_eq(ok("3")->type, EXDB_JNUMBER);
    cr_assert_eq(ok("\"x\"")->type, EXDB_JSTRING);
    cr_assert_eq(ok("null")->type, EXDB_JNULL);
}

Test(json, type_names) {
    exdb_json *j = ok("[null, true, 1, \"s\", [], {}]");
    cr_assert_str_eq(exdb_json_type_name(&j->u.kids[0]), "null");
    cr_assert_str_eq(exdb_json_type_name(&j->u.kids[1]), "a boolean");
    cr_assert_str_eq(exdb_json_type_name(&j->u.kids[2]), "a number");
    cr_assert_str_eq(exdb_json_type_name(&j->u.kids[3]), "a string");
    cr_assert_str_eq(exdb_json_type_name(&j->u.kids[4]), "an array");
    cr_assert_str_eq(exdb_json_type_name(&j->u.kids[5]), "an object");
    cr_assert_str_eq(exdb_json_type_name(NULL), "nothing");
}

Test(json, simple_escapes) {
    exdb_json *j = ok("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"");
    cr_assert_str_eq(j->u.str, "q\" b\\ s/ \b\f\n\r\t");
    cr_assert_eq(j->len, strlen("q\" b\\ s/ \b\f\n\r\t"));
}

Test(json, unicode_escapes_become_utf8) {
    /* A, e-acute (2 bytes), euro sign (3 bytes), U+1F600 via a surrogate pair (4 bytes) */
    exdb_json *j = ok("\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"");
    cr_assert_str_eq(j->u.str, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
    cr_assert_eq(j->len, 10);
}

Test(json, lone_surrogates_are_kept) {
    /* as Python's json keeps them: the 3-byte form of the code unit */
    exdb_json *j = ok("[\"\\ud83d\", \"\\ude00x\", \"\\ud83d\\u0041\"]");
    cr_assert_str_eq(j->u.kids[0].u.str, "\xED\xA0\xBD");
    cr_assert_str_eq(j->u.kids[1].u.str, "\xED\xB8\x80x");
    cr_assert_str_eq(j->u.kids[2].u.str, "\xED\xA0\xBD"
                                         "A");
}

Test(json, nul_escape_keeps_length) {
    exdb_json *j = ok("\"a\\u0000b\"");
    cr_assert_eq(j->len, 3);
    cr_assert_eq(memcmp(j->u.str, "a\0b", 3), 0);
}

/* A key holding U+0000 is refused at its opening quote (issue 13 item 11):
 * keys are C strings, so "x\u0000junk" would be found as "x". A value may
 * hold it (its length says where it ends; the loader decides). */
Test(json, nul_escape_in_a_key_is_refused) {
    cr_assert_str_eq(bad("{\"a\": 1,\n \"x\\u0000junk\": 2}"),
                     "t.json: line 2, column 2: an object key holding \\u0000 (U+0000), which exdb "
                     "cannot keep");
    cr_assert_str_eq(
        bad("{\"\\u00e9\\u20ac\": {\"\\u0000\": 1}}"),
        "t.json: line 1, column 19: an object key holding \\u0000 (U+0000), which exdb "
        "cannot keep");
    /* an escaped backslash before u0000 is no escape of U+0000 */
    exdb_json *j = ok("{\"a\\\\u0000\": \"v\\u0000\"}");
    cr_assert_str_eq(j->u.kids[0].key, "a\\u0000");
    cr_assert_eq(j->u.kids[0].len, 2);
}

Test(json, invalid_utf8_passes_through) {
    /* decided: not a JSON error; the loader refuses it in what it keeps
     * (tests/malformed/README.md) */
    exdb_json *j = ok("{\"k\xff\": \"\xc3\x28 \xe2\x82\"}");
    cr_assert_str_eq(j->u.kids[0].key, "k\xff");
    cr_assert_str_eq(j->u.kids[0].u.str, "\xc3\x28 \xe2\x82");
}

/* exdb_json_double gives strtod's double, bit for bit, on the numbers its
 * fast path takes (at most 15 digits, a power of ten within 1e22) and on
 * those it leaves to strtod: fixed cases at the edges, then 200,000 random
 * numbers of every shape (a fast path that rounded twice fails here). */
static void double_as_strtod(const char *txt) {
    exdb_json j = {0};
    j.type = EXDB_JNUMBER;
    j.u.str = txt;
    j.len = (uint32_t)strlen(txt);
    double got, want = strtod(txt, NULL);
    cr_assert_eq(exdb_json_double(&j, &got), 0, "%s", txt);
    cr_assert(memcmp(&got, &want, sizeof got) == 0, "%s: %.17g, strtod %.17g", txt, got, want);
}

Test(json, double_read_as_strtod_reads_it) {
    static const char *const fixed[] = {"0",
                                        "-0",
                                        "-0.0",
                                        "0.1",
                                        "1e-05",
                                        "1E-5",
                                        "1e+5",
                                        "0.001",
                                        "123456789012345",
                                        "1234567890123456",
                                        "999999999999999e22",
                                        "999999999999999e23",
                                        "1e22",
                                        "1e-22",
                                        "1e23",
                                        "1e-23",
                                        "9007199254740993",
                                        "0.30000000000000004",
                                        "2.2250738585072014e-308",
                                        "1.7976931348623157e308",
                                        "5e-324",
                                        "1e0000000000000005",
                                        "0.000000000000000000001",
                                        "100000000000000000000000",
                                        "3.141592653589793",
                                        "-2.5e-3",
                                        "7e-1"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        double_as_strtod(fixed[i]);
    uint64_t r = 0x9e3779b97f4a7c15u;
    for (int k = 0; k < 200000; k++) {
        char buf[64];
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        int nd = 1 + (int)(r % 17), fd = (int)((r >> 8) % 8), ex = (int)((r >> 16) % 61) - 30;
        size_t w = 0;
        if (r >> 63)
            buf[w++] = '-';
        uint64_t q = r >> 20;
        for (int d = 0; d < nd; d++, q /= 10)
            buf[w++] = (char)('0' + (d == 0 && nd > 1 ? 1 + q % 9 : q % 10));
        if (fd && ((r >> 24) & 1)) {
            buf[w++] = '.';
            for (int d = 0; d < fd; d++, q = q / 10 + 7)
                buf[w++] = (char)('0' + q % 10);
        }
        if ((r >> 25) & 1)
            w += (size_t)snprintf(buf + w, sizeof buf - w, "e%d", ex);
        buf[w] = '\0';
        double_as_strtod(buf);
    }
}

Test(json, infinity_and_nan_tokens) {
    exdb_json *j = ok("[Infinity, -Infinity, NaN, \"Infinity\", \"-Infinity\", \"NaN\", 1e999,"
                      " -1e999, \"1.5\"]");
    double d;
    for (int i = 0; i < 6; i += 3) {
        cr_assert_eq(exdb_json_double(&j->u.kids[i], &d), 0);
        cr_assert(isinf(d) && d > 0);
        cr_assert_eq(exdb_json_double(&j->u.kids[i + 1], &d), 0);
        cr_assert(isinf(d) && d < 0);
        cr_assert_eq(exdb_json_double(&j->u.kids[i + 2], &d), 0);
        cr_assert(isnan(d));
    }
    /* 1e999 overflows to infinity, as float("1e999") does in Python */
    cr_assert_eq(exdb_json_double(&j->u.kids[6], &d), 0);
    cr_assert(isinf(d) && d > 0);
    cr_assert_eq(exdb_json_double(&j->u.kids[7], &d), 0);
    cr_assert(isinf(d) && d < 0);
    /* other strings are not numbers */
    cr_assert_eq(exdb_json_double(&j->u.kids[8], &d), -1);
    cr_assert_eq(exdb_json_double(NULL, &d), -1);
    int64_t i;
    cr_assert_eq(exdb_json_int(&j->u.kids[0], &i), -1, "Infinity is not an integer");
}

Test(json, integers_fit_int64) {
    exdb_json *j = ok("[9223372036854775807, -9223372036854775808, 9223372036854775808,"
                      " -9223372036854775809, 0, -0, 1.0, 1e2, 99999999999999999999999999]");
    int64_t i;
    cr_assert_eq(exdb_json_int(&j->u.kids[0], &i), 0);
    cr_assert_eq(i, INT64_MAX);
    cr_assert_eq(exdb_json_int(&j->u.kids[1], &i), 0);
    cr_assert_eq(i, INT64_MIN);
    cr_assert_eq(exdb_json_int(&j->u.kids[2], &i), -1);
    cr_assert_eq(exdb_json_int(&j->u.kids[3], &i), -1);
    cr_assert_eq(exdb_json_int(&j->u.kids[4], &i), 0);
    cr_assert_eq(exdb_json_int(&j->u.kids[5], &i), 0);
    cr_assert_eq(i, 0);
    cr_assert_eq(exdb_json_int(&j->u.kids[6], &i), -1);
    cr_assert_eq(exdb_json_int(&j->u.kids[7], &i), -1);
    cr_assert_eq(exdb_json_int(&j->u.kids[8], &i), -1);
}

Test(json, number_text_is_kept) {
    exdb_json *j = ok("[-0.25e-3, 12]");
    cr_assert_eq(j->u.kids[0].len, 8);
    cr_assert_eq(memcmp(j->u.kids[0].u.str, "-0.25e-3", 8), 0);
}

Test(json, duplicate_keys_last_wins) {
    exdb_json *j = ok("{\"a\": 1, \"b\": 2, \"a\": 3}");
    int64_t i;
    cr_assert_eq(exdb_json_int(exdb_json_get(j, "a"), &i), 0);
    cr_assert_eq(i, 3);
    cr_assert_eq(j->len, 3, "both members stay in the DOM");
}

/* Schema keys are read from one 16-byte load when plain and short
 * (json.c known_key16) and looked up by pointer first (exdb_json_get):
 * every other form of the same key, a longer or shorter one, a key near
 * the end of the text, must read as the general path reads it. */
Test(json, schema_keys_read_alike_in_every_form) {
    static const char *const keys[] = {
        "name", "as_tensor", "nn_module_stack", "is_hop_single_tensor_return", "arg", "kind"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const char *key = keys[k];
        size_t n = strlen(key);
        char esc[64], shorter[64], longer[64], t[512];
        /* the key with its second letter as a \u escape */
        snprintf(esc, sizeof esc, "%c\\u%04x%s", key[0], (unsigned char)key[1], key + 2);
        snprintf(shorter, sizeof shorter, "%.*s", (int)n - 1, key);
        snprintf(longer, sizeof longer, "%sx", key);
        /* plain then escaped, escaped then plain: the last wins */
        for (int order = 0; order < 2; order++) {
            snprintf(t, sizeof t, "{\"%s\": 1, \"%s\": 2, \"%s\": 3, \"%s\": 4}", shorter,
                     order ? esc : key, longer, order ? key : esc);
            exdb_json *j = ok(t);
            int64_t v = 0;
            cr_assert_eq(exdb_json_int(exdb_json_get(j, key), &v), 0, "%s", t);
            cr_assert_eq(v, 4, "%s", t);
            cr_assert_eq(exdb_json_int(exdb_json_get(j, shorter), &v), 0, "%s", t);
            cr_assert_eq(v, 1, "%s", t);
            cr_assert_eq(exdb_json_int(exdb_json_get(j, longer), &v), 0, "%s", t);
            cr_assert_eq(v, 3, "%s", t);
            cr_assert_str_eq(j->u.kids[order ? 3 : 1].key, key);
            cr_assert_str_eq(j->u.kids[order ? 1 : 3].key, key);
        }
        /* the key at the end of the text: fewer than 16 bytes after it */
        snprintf(t, sizeof t, "{\"%s\":1}", key);
        exdb_json *j = ok(t);
        cr_assert_str_eq(j->u.kids[0].key, key);
        /* a raw control byte in it: the general path's message */
        snprintf(t, sizeof t, "{\"%.*s\t%s\": 1}", 1, key, key + 1);
        cr_assert(strstr(bad(t), "unescaped control character U+0009 inside a string"), "%s", t);
    }
}

Test(json, depth_limit) {
    char deep[2 * EXDB_JSON_MAX_DEPTH + 8];
    int n = EXDB_JSON_MAX_DEPTH;
    memset(deep, '[', (size_t)n);
    memset(deep + n, ']', (size_t)n);
    deep[2 * n] = '\0';
    ok(deep); /* exactly 512 levels is fine */
    memset(deep, '[', (size_t)n + 1);
    memset(deep + n + 1, ']', (size_t)n + 1);
    deep[2 * n + 2] = '\0';
    cr_assert_str_eq(bad(deep), "t.json: line 1, column 513: nesting deeper than 512 levels");
}

Test(json, error_line_and_column) {
    cr_assert_str_eq(bad("{\n  \"a\": tru\n}"),
                     "t.json: line 2, column 8: expected a value, found 'tru'");
    cr_assert_str_eq(bad("{\"a\": 1,\r\n \"b\" 2}"),
                     "t.json: line 2, column 6: expected ':' after object key, found '2'");
    /* columns count characters, not UTF-8 bytes */
    cr_assert_str_eq(bad("[\"\xc3\xa9\xc3\xa9\", x]"),
                     "t.json: line 1, column 8: expected a value, found 'x'");
}

Test(json, syntax_error_messages) {
    cr_assert_str_eq(bad("{\"a\": 1"), "t.json: line 1, column 8: expected ',' or '}' after an "
                                       "object member (the input ends here)");
    cr_assert_str_eq(
        bad("[1 2]"),
        "t.json: line 1, column 4: expected ',' or ']' after an array element, found '2'");
    cr_assert_str_eq(bad("[1,]"), "t.json: line 1, column 4: expected a value, found ']'");
    cr_assert_str_eq(bad("{'a': 1}"),
                     "t.json: line 1, column 2: expected a string key in object, found '''");
    cr_assert_str_eq(bad("{} x"), "t.json: line 1, column 4: expected the end of the input after "
                                  "the JSON value, found 'x'");
    cr_assert_str_eq(bad(""), "t.json: line 1, column 1: expected a value (the input ends here)");
    cr_assert_str_eq(bad("[01]"),
                     "t.json: line 1, column 2: a number must not start with 0 followed by digits");
    cr_assert_str_eq(
        bad("[1.]"),
        "t.json: line 1, column 4: expected digits after the decimal point, found ']'");
    cr_assert_str_eq(bad("[1e+]"),
                     "t.json: line 1, column 5: expected digits in the exponent, found ']'");
    cr_assert_str_eq(bad("[-]"), "t.json: line 1, column 2: expected a value, found '-'");
    cr_assert_str_eq(bad("[\x01]"), "t.json: line 1, column 2: expected a value, found byte 0x01");
}

Test(json, string_error_messages) {
    cr_assert_str_eq(bad("[\"a\\x\"]"),
                     "t.json: line 1, column 4: invalid escape \"\\x\" in a string");
    cr_assert_str_eq(bad("[\"\\u12G4\"]"),
                     "t.json: line 1, column 3: invalid \\u escape in a string: expected four hex "
                     "digits");
    cr_assert_str_eq(bad("[\"a\tb\"]"), "t.json: line 1, column 4: unescaped control character "
                                        "U+0009 inside a string (write it as \\t)");
    cr_assert_str_eq(
        bad("[\"a\x1f\"]"),
        "t.json: line 1, column 4: unescaped control character U+001F inside a string");
    cr_assert_str_eq(bad("\n [\"abc"), "t.json: line 2, column 3: unterminated string: no closing "
                                       "quote before the end of the input");
    cr_assert_str_eq(bad("[\"abc\\"), "t.json: line 1, column 2: unterminated string: no closing "
                                      "quote before the end of the input");
}

Test(json, nul_byte_in_buffer) {
    /* a raw NUL inside a string is a control character, not an end */
    char buf[] = "[\"a\0b\"]";
    exdb_json *j;
    exdb_error err = {0};
    cr_assert_eq(exdb_json_parse(buf, sizeof buf - 1, &arena, "t.json", &j, &err), -1);
    cr_assert_str_eq(err.msg, "t.json: line 1, column 4: unescaped control character U+0000 "
                              "inside a string");
}

/* The string scanner jumps 16 and 8 bytes at a time to the first quote,
 * backslash or control byte (core/format/json.c parse_string). Put an escape, a
 * run of escapes and a raw control byte at every offset across those
 * strides, after plain and after already-shifted text, and check the
 * unescaped result byte for byte against a one-byte-at-a-time reference. */
Test(json, escapes_at_every_offset_of_the_fast_scan) {
    static const char *escs[] = {"\\\"", "\\\\", "\\n", "\\u00e9", "\\/\\t"};
    static const char *outs[] = {"\"", "\\", "\n", "\xc3\xa9", "/\t"};
    for (int lead = 0; lead < 2; lead++) { /* 1: an escape first, so bytes shift */
        for (size_t e = 0; e < sizeof escs / sizeof *escs; e++) {
            for (int off = 0; off < 40; off++) {
                char src[160], want[160];
                size_t s = 0, w = 0;
                src[s++] = '"';
                if (lead) {
                    memcpy(src + s, "\\\"", 2), s += 2;
                    want[w++] = '"';
                }
                for (int i = 0; i < off; i++)
                    src[s++] = want[w++] = (char)('a' + i % 26);
                memcpy(src + s, escs[e], strlen(escs[e])), s += strlen(escs[e]);
                memcpy(want + w, outs[e], strlen(outs[e])), w += strlen(outs[e]);
                for (int i = 0; i < 37 - off; i++)
                    src[s++] = want[w++] = (char)('A' + i % 26);
                src[s++] = '"';
                src[s] = '\0';
                exdb_json *j = ok(src);
                cr_assert_eq(j->type, EXDB_JSTRING);
                cr_assert_eq(j->len, w, "lead %d esc %zu off %d: length %u, want %zu", lead, e, off,
                             j->len, w);
                cr_assert(memcmp(j->u.str, want, w) == 0 && j->u.str[w] == '\0',
                          "lead %d esc %zu off %d: got \"%s\"", lead, e, off, j->u.str);
            }
        }
    }
    /* A raw control byte is refused wherever the stride finds it. */
    for (int off = 0; off < 40; off++) {
        char src[64];
        memset(src, 'x', sizeof src);
        src[0] = '"';
        src[1 + off] = '\t';
        src[50] = '"';
        src[51] = '\0';
        cr_assert(strstr(bad(src), "unescaped control character U+0009"), "off %d", off);
    }
    /* UTF-8 bytes (>= 0x80) are plain text, not control bytes. */
    exdb_json *j =
        ok("\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"");
    cr_assert_eq(j->len, 18);
}

/* An escaped newline earlier in the file is unescaped in place into a real
 * newline byte before the error is found; it must not count as a line
 * (the error below is on line 2, as Python's json says). */
Test(json, escaped_newlines_are_not_lines) {
    cr_assert_str_eq(bad("{\"a\": \"x\\ny\\nz\",\n \"b\": flase}"),
                     "t.json: line 2, column 7: expected a value, found 'flase'");
    /* characters as written: "\u00e9" is six, though it decodes to two
     * bytes, and a raw "é" after an escape still counts once */
    cr_assert_str_eq(bad("{\"a\": \"\\u00e9\\u00e9\\u00e9\", \"b\": 1 2}"),
                     "t.json: line 1, column 36: expected ',' or '}' after an object member, "
                     "found '2'");
    cr_assert_str_eq(bad("{\"a\": \"\\\"\xc3\xa9\\ud83d\\ude00x\", \"b\": 1 2}"),
                     "t.json: line 1, column 34: expected ',' or '}' after an object member, "
                     "found '2'");
    cr_assert_str_eq(bad("[\"\\u000a\\u000A\", tru]"),
                     "t.json: line 1, column 18: expected a value, found 'tru'");
}

/* exdb_json_parse_lazy: the elements of the array at the lazy path stay
 * unparsed texts until exdb_json_parse_raw; arrays elsewhere and of the
 * same name at other paths are parsed as usual. */
static const char *const lazy_prefix[] = {"g"};
static const char *const lazy_last[] = {"nodes", "vals", NULL};

static int parse_lazy(const char *s, exdb_json **out, exdb_error *err) {
    size_t n = set_text(s);
    tstrs = exdb_jstrings_on(&arena);
    return exdb_json_parse_lazy(text, n, &arena, &tstrs, "t.json", lazy_prefix, 1, lazy_last, out,
                                err);
}

/* The root exdb_json_parse_lazy gives is EXDB_JTEXT_CLEAN when every string
 * of its DOM is UTF-8 without U+0000: its whole text ASCII (before, in and
 * after the lazy elements, on one line or more) and no \u escape decoded
 * to U+0000 or past U+007F; the loader then checks none of its strings. */
static int root_clean(const char *s) {
    exdb_json *root = NULL;
    exdb_error err = {0};
    cr_assert_eq(parse_lazy(s, &root, &err), 0, "%s: %s", s, err.msg);
    return (root->flags & EXDB_JTEXT_CLEAN) != 0;
}

Test(json, lazy_root_clean_only_when_its_strings_are) {
    const char *lazy = "\"g\": {\"nodes\": [{\"a\": \"x\"}, [1]], \"vals\": {\"v\": [2]}}";
    char t[512];
    snprintf(t, sizeof t, "{\"s\": \"a\\tb\\u0041\", %s, \"u\": \"after\"}", lazy);
    cr_assert(root_clean(t), "%s", t);
    snprintf(t, sizeof t, "{\"s\": \"a\",\n %s,\n \"u\": \"after\"}\n", lazy);
    cr_assert(root_clean(t), "a text of many lines: %s", t);
    cr_assert(root_clean("{\"nodes\": [\"x\"]}"), "no lazy element");
    /* a byte above 0x7F before, in and after the lazy elements, in a string
     * or a key; a \u escape to U+0000 or past U+007F in a value or a key */
    static const char *const dirty[] = {"\"caf\xc3\xa9\"", "\"\\u00e9\"", "\"\\ud83d\\ude00\"",
                                        "\"a\\u0000\"", "\"\\u0080\""};
    for (size_t i = 0; i < sizeof dirty / sizeof *dirty; i++) {
        snprintf(t, sizeof t, "{\"s\": %s, %s, \"u\": \"after\"}", dirty[i], lazy);
        cr_assert(!root_clean(t), "before: %s", t);
        snprintf(t, sizeof t, "{\"s\": \"x\", %s, \"u\": %s}", lazy, dirty[i]);
        cr_assert(!root_clean(t), "after: %s", t);
        snprintf(t, sizeof t, "{\"s\": \"x\",\n %s,\n \"u\": %s}", lazy, dirty[i]);
        cr_assert(!root_clean(t), "after, many lines: %s", t);
    }
    snprintf(t, sizeof t, "{%s, \"k\\u00e9\": 1}", lazy);
    cr_assert(!root_clean(t), "a key: %s", t);
    cr_assert(!root_clean("{\"g\": {\"nodes\": [{\"a\": \"caf\xc3\xa9\"}]}, \"u\": 1}"),
              "in a lazy element");
    cr_assert(!root_clean("{\"g\": {\"nodes\": [[1], {\"a\": \"\xc3\xa9\"}]}, \"u\": 1}"),
              "in the last lazy element");
}

/* The text between two lazy elements (a comma and a key) is tested for
 * bytes above 0x7F at every length around the 64 bytes read at once: a
 * key holding one, at its start or end, leaves the next element checked
 * (not EXDB_JRAW_ASCII) and the root not clean. */
Test(json, lazy_gap_bytes_above_0x7f_found_at_every_length) {
    for (int len = 1; len <= 80; len++) {
        for (int where = 0; where < 3; where++) {
            char key[96];
            memset(key, 'k', (size_t)len);
            key[len] = '\0';
            if (where == 1)
                key[0] = '\xe9';
            else if (where == 2)
                key[len - 1] = '\xe9';
            char t[256];
            snprintf(t, sizeof t, "{\"g\": {\"vals\": {\"a\": [1], \"%s\": [2], \"z\": [3]}}}",
                     key);
            exdb_json *root = NULL;
            exdb_error err = {0};
            cr_assert_eq(parse_lazy(t, &root, &err), 0, "%s: %s", t, err.msg);
            const exdb_json *vals = exdb_json_get(exdb_json_get(root, "g"), "vals");
            cr_assert_eq(vals->len, 3);
            int ascii = (vals->u.kids[1].flags & EXDB_JRAW_ASCII) != 0;
            cr_assert_eq(ascii, where == 0, "key of %d bytes, 0xE9 at %d: %d", len, where, ascii);
            cr_assert_eq((root->flags & EXDB_JTEXT_CLEAN) != 0, where == 0);
        }
    }
}

Test(json, lazy_elements_are_raw_until_parsed) {
    exdb_json *root = NULL;
    exdb_error err = {0};
    cr_assert_eq(parse_lazy("{\"nodes\": [1], \"g\": {\"nodes\": [ {\"a\": \"x\\ty\"} , [2, 3], "
                            "\"s\" ], \"h\": {\"nodes\": [4]}}}",
                            &root, &err),
                 0, "%s", err.msg);
    const exdb_json *top = exdb_json_get(root, "nodes");
    cr_assert_eq(top->u.kids[0].type, EXDB_JNUMBER, "only the path's array is lazy");
    const exdb_json *g = exdb_json_get(root, "g");
    const exdb_json *nodes = exdb_json_get(g, "nodes");
    cr_assert_eq(nodes->type, EXDB_JARRAY);
    cr_assert_eq(nodes->len, 3);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(nodes->u.kids[i].type, EXDB_JRAW);
    cr_assert_eq(nodes->u.kids[0].len, strlen("{\"a\": \"x\\ty\"}"));
    cr_assert(memcmp(nodes->u.kids[0].u.str, "{\"a\": \"x\\ty\"}", nodes->u.kids[0].len) == 0,
              "the text is left as written");
    exdb_json e;
    cr_assert_eq(exdb_json_parse_raw(&nodes->u.kids[0], text, &arena, &tstrs, "t.json", &e, NULL,
                                     NULL, &err),
                 0);
    cr_assert_eq(e.type, EXDB_JOBJECT);
    cr_assert_str_eq(exdb_json_get(&e, "a")->u.str, "x\ty");
    cr_assert_eq(exdb_json_parse_raw(&nodes->u.kids[1], text, &arena, &tstrs, "t.json", &e, NULL,
                                     NULL, &err),
                 0);
    cr_assert_eq(e.type, EXDB_JARRAY);
    cr_assert_eq(e.len, 2);
    cr_assert_eq(exdb_json_parse_raw(&nodes->u.kids[2], text, &arena, &tstrs, "t.json", &e, NULL,
                                     NULL, &err),
                 0);
    cr_assert_str_eq(e.u.str, "s");
    const exdb_json *h = exdb_json_get(exdb_json_get(g, "h"), "nodes");
    cr_assert_eq(h->u.kids[0].type, EXDB_JNUMBER, "g.h.nodes is not the lazy path");
}

/* A last entry with components below the prefix ("a/b": the member b of
 * the prefix's member a) makes that member lazy, and only that one: not b
 * elsewhere, not a itself, not a's other members, not the prefix's own b. */
Test(json, lazy_paths_below_the_prefix) {
    static const char *const prefix[] = {"g"};
    static const char *const last[] = {"a/b", "c", "d/e/f", NULL};
    static const char *src =
        "{\"b\": [1], \"g\": {\"b\": [2], \"a\": {\"b\": [{\"x\": 3}, [4]], \"z\": [5]},"
        " \"c\": [6], \"x\": {\"b\": [7]}, \"d\": {\"e\": {\"f\": [8], \"g\": [9]}, \"f\": [10]}}}";
    size_t n = set_text(src);
    tstrs = exdb_jstrings_on(&arena);
    exdb_json *root = NULL;
    exdb_error err = {0};
    cr_assert_eq(
        exdb_json_parse_lazy(text, n, &arena, &tstrs, "t.json", prefix, 1, last, &root, &err), 0,
        "%s", err.msg);
    const exdb_json *g = exdb_json_get(root, "g"), *a = exdb_json_get(g, "a");
    const exdb_json *d = exdb_json_get(g, "d"), *e = exdb_json_get(d, "e");
    const exdb_json *raw[] = {exdb_json_get(a, "b"), exdb_json_get(g, "c"), exdb_json_get(e, "f")};
    const exdb_json *parsed[] = {
        exdb_json_get(root, "b"), exdb_json_get(g, "b"),
        exdb_json_get(a, "z"),    exdb_json_get(exdb_json_get(g, "x"), "b"),
        exdb_json_get(e, "g"),    exdb_json_get(d, "f")};
    for (size_t i = 0; i < sizeof raw / sizeof *raw; i++) {
        cr_assert(exdb_json_is(raw[i], EXDB_JARRAY), "%zu", i);
        for (uint32_t k = 0; k < raw[i]->len; k++)
            cr_expect_eq(raw[i]->u.kids[k].type, EXDB_JRAW, "lazy %zu[%u]", i, k);
    }
    for (size_t i = 0; i < sizeof parsed / sizeof *parsed; i++) {
        cr_assert(exdb_json_is(parsed[i], EXDB_JARRAY), "%zu", i);
        cr_expect_eq(parsed[i]->u.kids[0].type, EXDB_JNUMBER, "parsed %zu", i);
    }
    cr_expect_eq(a->type, EXDB_JOBJECT);
}

/* exdb_json_ahead_peek: an element of the batch (64 elements) the reader
 * is in, parsed, of the next batch when that is parsed (by the thread: it
 * may not be yet), and nothing else. */
Test(json, ahead_peek_sees_the_readers_batch_and_the_next) {
    char src[200 * 8 + 64];
    size_t w = (size_t)snprintf(src, sizeof src, "{\"g\": {\"nodes\": [");
    for (int i = 0; i < 200; i++)
        w += (size_t)snprintf(src + w, sizeof src - w, "%s[%d]", i ? "," : "", i);
    snprintf(src + w, sizeof src - w, "]}}");
    exdb_json *root = NULL;
    exdb_error err = {0};
    int64_t v;
    const char *lo, *hi;
    cr_assert_eq(parse_lazy(src, &root, &err), 0, "%s", err.msg);
    const exdb_json *nodes = exdb_json_get(exdb_json_get(root, "g"), "nodes");
    const exdb_json *tables[1] = {nodes};
    exdb_json_ahead *h = exdb_json_ahead_start(tables, 1, text, &tstrs, "t.json", 0);
    cr_assert_not_null(h);
    cr_assert_null(exdb_json_ahead_peek(h, &nodes->u.kids[0]), "no batch before the first get");
    cr_assert_not_null(exdb_json_ahead_get(h, &nodes->u.kids[3], &lo, &hi, &err), "%s", err.msg);
    const exdb_json *p = exdb_json_ahead_peek(h, &nodes->u.kids[63]);
    cr_assert_not_null(p);
    cr_assert(exdb_json_int(&p->u.kids[0], &v) == 0 && v == 63);
    p = exdb_json_ahead_peek(h, &nodes->u.kids[64]);
    cr_assert(!p || (exdb_json_int(&p->u.kids[0], &v) == 0 && v == 64), "the next batch");
    cr_assert_null(exdb_json_ahead_peek(h, &nodes->u.kids[128]), "the batch after it");
    cr_assert_not_null(exdb_json_ahead_get(h, &nodes->u.kids[130], &lo, &hi, &err), "%s", err.msg);
    cr_assert_null(exdb_json_ahead_peek(h, &nodes->u.kids[63]), "a batch left behind");
    p = exdb_json_ahead_peek(h, &nodes->u.kids[191]);
    cr_assert_not_null(p);
    cr_assert(exdb_json_int(&p->u.kids[0], &v) == 0 && v == 191);
    cr_assert_null(exdb_json_ahead_peek(h, &root->u.kids[0]), "not an element");
    cr_assert_null(exdb_json_ahead_peek(NULL, &nodes->u.kids[0]));
    exdb_json_ahead_stop(h);
}

/* A lazy object keeps its keys; its member values are the raw texts. */
Test(json, lazy_object_members) {
    exdb_json *root = NULL;
    exdb_error err = {0};
    cr_assert_eq(
        parse_lazy("{\"g\": {\"vals\": {\"a\": {\"x\": [1]}, \"b\\u0021\": 2}, \"c\": {}}}", &root,
                   &err),
        0, "%s", err.msg);
    const exdb_json *vals = exdb_json_get(exdb_json_get(root, "g"), "vals");
    cr_assert_eq(vals->type, EXDB_JOBJECT);
    cr_assert_eq(vals->len, 2);
    const exdb_json *a = exdb_json_get(vals, "a");
    cr_assert_not_null(a);
    cr_assert_eq(a->type, EXDB_JRAW);
    cr_assert_not_null(exdb_json_get(vals, "b!"), "keys are unescaped as usual");
    exdb_json e;
    cr_assert_eq(exdb_json_parse_raw(a, text, &arena, &tstrs, "t.json", &e, NULL, NULL, &err), 0);
    cr_assert_eq(e.type, EXDB_JOBJECT);
    cr_assert_str_eq(e.key, "a");
    cr_assert_eq(exdb_json_get(&e, "x")->len, 1);
    cr_assert_eq(exdb_json_get(exdb_json_get(root, "g"), "c")->type, EXDB_JOBJECT);
    cr_assert_str_eq(bad("{\"g\": {\"vals\": {\"a\": 1,}}}"),
                     "t.json: line 1, column 24: expected a string key in object, found '}'");
    root = NULL;
    cr_assert_eq(parse_lazy("{\"g\": {\"vals\": {\"a\": 1,}}}", &root, &err), -1);
    cr_assert_str_eq(err.msg,
                     "t.json: line 1, column 24: expected a string key in object, found '}'");
}

/* Inside a lazy array every syntax error is still found, with the message
 * and position the full parse gives, and nothing after it is parsed. */
/* The first error of a lazy parse of s with its raw elements (under g's
 * nodes) parsed in order after it, as the loader parses them; NULL when
 * there is none. */
static const char *lazy_error(const char *s) {
    static exdb_error err;
    exdb_json *root = NULL;
    memset(&err, 0, sizeof err);
    if (parse_lazy(s, &root, &err) < 0)
        return err.msg;
    const exdb_json *nodes = exdb_json_get(exdb_json_get(root, "g"), "nodes");
    for (uint32_t i = 0; nodes && i < nodes->len; i++) {
        exdb_json e;
        if (exdb_json_parse_raw(&nodes->u.kids[i], text, &arena, &tstrs, "t.json", &e, NULL, NULL,
                                &err) < 0)
            return err.msg;
    }
    return NULL;
}

/* A lazy element is checked at the latest when exdb_json_parse_raw parses
 * it: with the same message, line and column as the full parse. */
Test(json, lazy_elements_are_checked) {
    const char *cases[] = {
        "{\"g\": {\"nodes\": [{\"a\": \"\\u00e9\\u00e9\"}, {\"b\": tru}], \"c\": 1}}",
        "{\"g\": {\"nodes\": [{\"a\": \"\\n\\\"\\u00e9\"}, {\"b\": \"\\u00e9x\\z\"}]}}",
        "{\"g\": {\"nodes\": [{\"a\": 1},\n {\"b\": tru}]}}",
        "{\"g\": {\"nodes\": [{\"a\": \"\xc3\xa9\"}, {\"b\": tru}]}}",
        "{\"g\": {\"nodes\": [{\"a\": 1\t}, {\"b\": \"\\u00e9\"}, {\"b\": [1,]}]}}",
        "{\"g\": {\"nodes\": [{\"a\": tru}]}}",
        "{\"g\": {\"nodes\": [{\"a\": \"x\\qy\"}]}}",
        "{\"g\": {\"nodes\": [{\"a\": \"x\\u12g4\"}]}}",
        "{\"g\": {\"nodes\": [{\"a\": 1.}]}}",
        "{\"g\": {\"nodes\": [{\"a\": 01}]}}",
        "{\"g\": {\"nodes\": [{\"a\" 1}]}}",
        "{\"g\": {\"nodes\": [{\"a\": 1,}]}}",
        "{\"g\": {\"nodes\": [1 2]}}",
        "{\"g\": {\"nodes\": [1,]}}",
        "{\"g\": {\"nodes\": [\"abc",
        "{\"g\": {\"nodes\": [\"a\tb\"]}}",
        "{\"g\": {\"nodes\": [[[[1]]]}}",
        "{\"g\": {\"nodes\": [{\"\\u00e9a\\u0000b\": 1}]}}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char full[256];
        snprintf(full, sizeof full, "%s", bad(cases[i]));
        const char *lazy = lazy_error(cases[i]);
        cr_assert_not_null(lazy, "%s parsed lazily", cases[i]);
        cr_assert_str_eq(lazy, full, "case %zu", i);
    }
    /* the depth limit counts the levels above the lazy array */
    int n = 512;
    char *deep = malloc((size_t)n * 2 + 64);
    cr_assert_not_null(deep);
    strcpy(deep, "{\"g\": {\"nodes\": [");
    size_t k = strlen(deep);
    for (int i = 0; i < n; i++)
        deep[k++] = '[';
    for (int i = 0; i < n; i++)
        deep[k++] = ']';
    strcpy(deep + k, "]}}");
    char full[256];
    snprintf(full, sizeof full, "%s", bad(deep));
    exdb_json *root = NULL;
    exdb_error err = {0};
    cr_assert_eq(parse_lazy(deep, &root, &err), -1);
    cr_assert_str_eq(err.msg, full);
    cr_assert(strstr(full, "nesting deeper than 512 levels"));
    free(deep);
}

/* exdb_buf_json_str writes what Python's json.dumps writes (ASCII only:
 * control characters, non-ASCII as \uXXXX, astral ones as surrogate pairs);
 * bytes that are not UTF-8 become U+FFFD. */
Test(json, string_literal_as_python_dumps) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_json_str(&b, "a\"b\\c\n\r\t\x01\x1f\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80 z");
    cr_assert_str_eq(exdb_buf_str(&b),
                     "\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u001f\\u00e9\\u4e2d\\ud83d\\ude00 z\"");
    exdb_buf_reset(&b);
    exdb_buf_json_str(&b, "x\xff\xc3(\xe4\xb8");
    cr_assert_str_eq(exdb_buf_str(&b), "\"x\\ufffd\\ufffd(\\ufffd\\ufffd\"");
    exdb_buf_free(&b);
}

/* The skim's answer by its definition, a byte at a time: the end of the
 * value s opens (after its closing bracket), NULL when the text ends first,
 * nests past maxdepth or holds a control byte or a byte above 0x7F that no
 * backslash escapes. */
static const char *skim_reference(const char *s, const char *end, int maxdepth) {
    int depth = 0, in_str = 0, esc = 0;
    for (const char *p = s; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (esc) {
            esc = 0;
        } else if (c == '\\') {
            esc = 1;
        } else if (c == '"') {
            in_str = !in_str;
        } else if (c < 0x20 || c > 0x7F) {
            return NULL;
        } else if (!in_str && (c | 0x20) == '{') {
            if (++depth > maxdepth)
                return NULL;
        } else if (!in_str && (c | 0x20) == '}' && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

/* The skim's block scans (AVX-512BW or AVX2, with PCLMUL, where the
 * processor has them, and the portable one) give one answer on texts dense
 * in what they look for: quotes, backslash runs, brackets, control bytes
 * and bytes above 0x7F, at every offset of a 64-byte block, with a depth
 * limit. */
Test(json, skim_block_scans_agree) {
    static const char structural[] = "\"\"\\\\[]{}";
    char buf[300];
    uint64_t x = 88172645463325252ULL;
    int found = 0;
    for (int t = 0; t < 20000; t++) {
        size_t n = 1 + t % 290;
        buf[0] = t & 1 ? '[' : '{';
        for (size_t i = 1; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned r = (unsigned)(x % 1000);
            /* mostly plain bytes, so that strings and nesting run long */
            buf[i] = r < 700   ? 'a'
                     : r < 995 ? structural[(x >> 16) % (sizeof structural - 1)]
                     : r < 997 ? '\x01'
                               : '\xc3';
        }
        int maxdepth = 1 + t % 7;
        const char *b = exdb_json_skim_portable(buf, buf + n, maxdepth);
        cr_assert_eq(b, skim_reference(buf, buf + n, maxdepth), "text %d: not the reference's", t);
        for (int level = 1; level <= EXDB_SKIM_WIDEST; level++) {
            const char *a = exdb_json_skim_level(level, buf, buf + n, maxdepth);
            cr_assert_eq(a, b, "text %d (%zu bytes), level %d: %td vs %td", t, n, level,
                         a ? a - buf : -1, b ? b - buf : -1);
        }
        cr_assert_eq(exdb_json_skim(buf, buf + n, maxdepth), b);
        found += b && b - buf >= 64;
    }
    cr_assert_gt(found, 500, "only %d texts ended past their first block", found);
}

/* Every block scan gives the reference's answer on texts that nest deep
 * and run long (many 64-byte blocks a value), with depth limits around
 * their depth, and on the texts of skim_block_scans_agree. */
Test(json, skim_block_scans_give_the_reference_answer) {
    static const char pieces[][8] = {"{\"a\":", "[", "1,", "]", "}", "\"x\\\"\"", "\"[{\"", "\\\\"};
    static char buf[4096];
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    int ended = 0, counted = 0;
    for (int t = 0; t < 4000; t++) {
        size_t n = 0;
        buf[n++] = '[';
        size_t want = 64 + (size_t)(t * 37) % 3900;
        while (n + 8 < want) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned r = (unsigned)(x % 100);
            /* opening more than closing at first, then closing */
            unsigned k = r < 45   ? (n < want / 2 ? 0 : 3)
                         : r < 60 ? 1
                         : r < 80 ? 2
                         : r < 88 ? 4
                         : r < 94 ? 5
                         : r < 99 ? 6
                                  : 7;
            size_t len = strlen(pieces[k]);
            memcpy(buf + n, pieces[k], len);
            n += len;
        }
        if (t % 97 == 0)
            buf[n / 2] = t % 2 ? '\x01' : '\xc3';
        int maxdepth = t % 3 == 0 ? 1000 : 1 + t % 200;
        const char *want_end = skim_reference(buf, buf + n, maxdepth);
        for (int level = 0; level <= EXDB_SKIM_WIDEST; level++) {
            const char *a = level ? exdb_json_skim_level(level, buf, buf + n, maxdepth)
                                  : exdb_json_skim_portable(buf, buf + n, maxdepth);
            cr_assert_eq(a, want_end, "text %d (%zu bytes), level %d: %td vs %td", t, n, level,
                         a ? a - buf : -1, want_end ? want_end - buf : -1);
        }
        ended += want_end != NULL;
        counted += want_end && want_end - buf > 256;
    }
    cr_assert_gt(ended, 400, "only %d texts ended", ended);
    cr_assert_gt(counted, 200, "only %d texts ended past 256 bytes", counted);
}

/* The closing quote of a string found alike by every block scan: texts of
 * quotes and backslash runs at every offset of a 64-byte block. */
/* The end of a readable page followed by a PROT_NONE one (a read past it
 * crashes); given back by guarded_page_free. */
static char *guarded_page_end(void) {
    long page = sysconf(_SC_PAGESIZE);
    char *map =
        mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    return map + page;
}

static void guarded_page_free(char *end) {
    long page = sysconf(_SC_PAGESIZE);
    munmap(end - page, 2 * (size_t)page);
}

/* A text that ends where an inaccessible page begins: every block scan
 * reads none of it (the last block of fewer than 64 bytes is loaded masked
 * or a byte at a time), for every length of that block, values and
 * strings alike. */
Test(json, skim_reads_nothing_past_the_text) {
    char *end = guarded_page_end();
    for (int len = 2; len <= 200; len++) {
        char *s = end - len; /* [ "x..." ] with the string running to the end */
        memset(s, 'a', (size_t)len);
        s[0] = '[';
        s[1] = '"';
        s[len - 2] = '"';
        s[len - 1] = ']';
        const char *want = len >= 4 ? end : NULL;
        for (int level = 0; level <= EXDB_SKIM_WIDEST; level++) {
            const char *a =
                level ? exdb_json_skim_level(level, s, end, 4) : exdb_json_skim_portable(s, end, 4);
            cr_assert_eq(a, want, "length %d, level %d", len, level);
            const char *q = level ? exdb_json_skim_string_level(level, s + 1, end)
                                  : exdb_json_skim_string_portable(s + 1, end);
            cr_assert_eq(q, len >= 4 ? end - 2 : NULL, "string, length %d, level %d", len, level);
        }
    }
    guarded_page_free(end);
}

Test(json, skim_string_scans_agree) {
    static const char special[] = "\"\\\\\\";
    char buf[300];
    uint64_t x = 2463534242ULL;
    int found = 0;
    for (int t = 0; t < 20000; t++) {
        size_t n = 2 + t % 290;
        buf[0] = '"';
        for (size_t i = 1; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned r = (unsigned)(x % 1000);
            buf[i] = r < 985 ? (char)('a' + r % 26) : special[(x >> 16) % (sizeof special - 1)];
        }
        const char *b = exdb_json_skim_string_portable(buf, buf + n);
        for (int level = 1; level <= EXDB_SKIM_WIDEST; level++) {
            const char *a = exdb_json_skim_string_level(level, buf, buf + n);
            cr_assert_eq(a, b, "text %d (%zu bytes), level %d: %td vs %td", t, n, level,
                         a ? a - buf : -1, b ? b - buf : -1);
        }
        cr_assert_eq(exdb_json_skim_string(buf, buf + n), b);
        found += b && b - buf >= 64;
    }
    cr_assert_gt(found, 500, "only %d strings ended past their first block", found);
}

/* A string's special byte (an escape, a quote, a raw control byte) at
 * every offset of the scan's 16- and 8-byte steps, after plain bytes that
 * include DEL and bytes above 0x7F (never special): the same string from
 * the whole parse (checked, then copied) and from a lazy element's parse
 * (checked and copied in one pass), the same refusal. */
Test(json, strings_decode_alike_at_every_offset) {
    static const unsigned char plain[] = {'a', 0xC3, 0xA9, 0x7F, '~', 0xFF, ' ', 0x80};
    static const char *const esc[][2] = {{"\\n", "\n"}, {"\\\"", "\""}, {"\\u00e9", "\xc3\xa9"}};
    for (size_t k = 0; k < 48; k++) {
        char pre[64];
        for (size_t i = 0; i < k; i++)
            pre[i] = (char)plain[i % sizeof plain];
        pre[k] = '\0';
        for (size_t e = 0; e < sizeof esc / sizeof *esc; e++) {
            char doc[256], want[160];
            snprintf(doc, sizeof doc, "{\"g\": {\"nodes\": [{\"a\": \"%s%s%s\"}]}}", pre, esc[e][0],
                     pre);
            snprintf(want, sizeof want, "%s%s%s", pre, esc[e][1], pre);
            const exdb_json *whole =
                exdb_json_get(exdb_json_get(exdb_json_get(ok(doc), "g"), "nodes")->u.kids, "a");
            cr_assert_str_eq(whole->u.str, want, "offset %zu, escape %zu", k, e);
            exdb_json *root = NULL, el;
            exdb_error err = {0};
            cr_assert_eq(parse_lazy(doc, &root, &err), 0, "%s", err.msg);
            const exdb_json *nodes = exdb_json_get(exdb_json_get(root, "g"), "nodes");
            cr_assert_eq(exdb_json_parse_raw(&nodes->u.kids[0], text, &arena, &tstrs, "t.json", &el,
                                             NULL, NULL, &err),
                         0, "%s", err.msg);
            const exdb_json *a = exdb_json_get(&el, "a");
            cr_assert_eq(a->len, strlen(want));
            cr_assert_str_eq(a->u.str, want, "offset %zu, escape %zu (lazy)", k, e);
        }
        char doc[256];
        snprintf(doc, sizeof doc, "{\"g\": {\"nodes\": [{\"a\": \"%s\x01%s\"}]}}", pre, pre);
        cr_assert(strstr(bad(doc), "unescaped control character U+0001"), "offset %zu", k);
        exdb_json *root = NULL;
        exdb_error err = {0};
        cr_assert_lt(parse_lazy(doc, &root, &err), 0);
        cr_assert(strstr(err.msg, "U+0001"), "%s", err.msg);
    }
}

/* One random string's text for strings_decode_alike_wide_and_bytewise:
 * plain bytes (some above 0x7F), one-character escapes, runs of
 * backslashes, \u escapes (a pair, U+0000) and, in about one string in
 * four, an error (an invalid escape, a raw control byte, bad hex digits,
 * a backslash before a byte above 0x7F). */
static size_t random_string_text(char *s, size_t cap, uint64_t *x) {
    static const char *const pieces[] = {"\\\"",         "\\\\",    "\\/",     "\\b",
                                         "\\f",          "\\n",     "\\r",     "\\t",
                                         "\\\\\\\\\\\"", "\\u0041", "\\u00e9", "\\ud83d\\ude00",
                                         "\\u0000",      "\xc3\xa9"};
    static const char *const errors[] = {"\\x", "\\\x01", "\x01", "\\u12G4", "\\\xe9", "\n"};
    size_t n = 0, want = (size_t)(*x % 300);
    int error = *x % 4 == 0;
    while (n + 16 < cap && n < want) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        unsigned r = (unsigned)(*x % 100);
        const char *add;
        char one[2] = {(char)('a' + (*x >> 20) % 26), '\0'};
        if (r < 60)
            add = one;
        else if (r < 99 || !error)
            add = pieces[(*x >> 24) % (sizeof pieces / sizeof *pieces)];
        else
            add = errors[(*x >> 24) % (sizeof errors / sizeof *errors)];
        size_t k = strlen(add);
        memcpy(s + n, add, k);
        n += k;
    }
    s[n] = '\0';
    return n;
}

/* s parsed whole and as a lazy element, with the 64-byte decode of
 * one-character escapes (exdb_json_unescape_wide) allowed or not: the
 * string "a" (or the message) of each. */
static void decode_both_ways(const char *doc, int wide, char *whole, size_t *wlen, char *lazy,
                             size_t *llen) {
    exdb_json_unescape_wide_allow(wide);
    exdb_json *root = NULL;
    exdb_error err = {0};
    if (parse(doc, &root, &err) == 0) {
        const exdb_json *a =
            exdb_json_get(exdb_json_get(exdb_json_get(root, "g"), "nodes")->u.kids, "a");
        memcpy(whole, a->u.str, a->len);
        *wlen = a->len;
    } else {
        *wlen = (size_t)snprintf(whole, 512, "error %s", err.msg);
    }
    memset(&err, 0, sizeof err);
    exdb_json el;
    if (parse_lazy(doc, &root, &err) == 0) {
        const exdb_json *nodes = exdb_json_get(exdb_json_get(root, "g"), "nodes");
        if (exdb_json_parse_raw(&nodes->u.kids[0], text, &arena, &tstrs, "t.json", &el, NULL, NULL,
                                &err) == 0) {
            const exdb_json *a = exdb_json_get(&el, "a");
            memcpy(lazy, a->u.str, a->len);
            *llen = a->len;
            exdb_json_unescape_wide_allow(1);
            return;
        }
    }
    *llen = (size_t)snprintf(lazy, 512, "error %s", err.msg);
    exdb_json_unescape_wide_allow(1);
}

/* The 64-byte decode of a string's one-character escapes (AVX-512, where
 * the processor has it) gives the byte-wise scan's string or message: 6,000
 * random strings dense in escapes, each at 0-69 bytes from the end of its
 * element (the decode leaves the last 64 bytes to the byte-wise scan) and
 * after 0-69 bytes of plain text (every offset within a block). */
Test(json, strings_decode_alike_wide_and_bytewise) {
    uint64_t x = 88172645463325252ULL;
    static char str[1200], doc[2400], w1[2400], w2[2400], l1[2400], l2[2400];
    int wide_used = 0;
    for (int t = 0; t < 6000; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        random_string_text(str, 900, &x);
        int pre = t % 70, pad = (t / 70) % 70;
        snprintf(doc, sizeof doc,
                 "{\"g\": {\"nodes\": [{\"p\": \"%.*s\", \"a\": \"%s\", \"z\": \"%.*s\"}]}}", pre,
                 "0123456789012345678901234567890123456789012345678901234567890123456789", str, pad,
                 "0123456789012345678901234567890123456789012345678901234567890123456789");
        size_t n1, n2, m1, m2;
        decode_both_ways(doc, 0, w1, &n1, l1, &m1);
        decode_both_ways(doc, 1, w2, &n2, l2, &m2);
        cr_assert(n1 == n2 && memcmp(w1, w2, n1) == 0, "text %d, whole: %.*s / %.*s", t, (int)n1,
                  w1, (int)n2, w2);
        cr_assert(m1 == m2 && memcmp(l1, l2, m1) == 0, "text %d, lazy: %.*s / %.*s", t, (int)m1, l1,
                  (int)m2, l2);
        wide_used += strstr(str, "\\n") && n1 > 100 && strncmp(w1, "error", 5) != 0;
    }
    cr_assert_gt(wide_used, 1000, "only %d long strings decoded", wide_used);
}

/* The reference for unescape_wide_decodes_what_it_may: [s, e) decoded
 * byte-wise to out when it holds only plain bytes and one-character
 * escapes (the length), else -1. */
static long one_char_decode(const char *s, const char *e, char *out) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    long k = 0;
    for (const char *p = s; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c < 0x20)
            return -1;
        if (c == '\\') {
            const char *f = p + 1 < e && p[1] ? strchr(from, p[1]) : NULL;
            if (!f)
                return -1;
            out[k++] = to[f - from];
            p++;
            continue;
        }
        out[k++] = (char)c;
    }
    return k;
}

/* exdb_json_unescape_wide called directly, its input and output exactly
 * as long as it may use (ASan sees a byte read or stored past them):
 * 20,000 random texts from their first backslash, dense in escapes and
 * runs of backslashes (any length: across the 64-byte blocks' edges; some
 * followed by a byte above 0x7F), with
 * \u escapes, bytes above 0x7F, control bytes and invalid escapes. What it
 * decodes is the byte-wise decode of what it passed, and it stops only at
 * what it may not pass (a quote, a control byte, a backslash opening
 * anything but a one-character escape) or in the last 64 bytes. */
Test(json, unescape_wide_decodes_what_it_may) {
    uint64_t x = 0x2545F4914F6CDD1DULL;
    static char str[1200], ref[1200];
    long passed = 0, stopped = 0;
    for (int t = 0; t < 20000; t++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = random_string_text(str, 900, &x);
        if (t % 3 == 0) { /* a run of backslashes somewhere */
            size_t at = n ? (size_t)(x >> 32) % n : 0, run = 1 + (x >> 8) % 140;
            if (n + run < sizeof str) {
                memmove(str + at + run, str + at, n - at);
                memset(str + at, '\\', run);
                n += run;
                if (at + run < n && (x >> 20) % 2) /* then a byte above 0x7F */
                    str[at + run] = (char)(0x80 | (x >> 24));
            }
        }
        const char *bs = memchr(str, '\\', n);
        size_t from = bs ? (size_t)(bs - str) : 0;
        char *in = malloc(n - from + 1), *out = malloc(n - from + 1);
        cr_assert(in && out);
        memcpy(in, str + from, n - from);
        const char *r = in, *end = in + (n - from);
        char *w = out;
        exdb_json_unescape_wide(&r, &w, end);
        if (!exdb_json_unescape_wide_ok()) {
            cr_assert(r == in && w == out, "decoded without AVX-512");
        } else {
            long k = one_char_decode(in, r, ref);
            cr_assert(k >= 0 && k == w - out && memcmp(ref, out, (size_t)k) == 0,
                      "text %d: what it passed is not its decode", t);
            if (end - r >= 64) {
                unsigned char c = (unsigned char)*r;
                cr_assert(c == '"' || c < 0x20 ||
                              (c == '\\' && (!r[1] || !strchr("\"\\/bfnrt", r[1]))),
                          "text %d: stopped at byte %td, %c, for nothing", t, r - in, c);
                stopped++;
            }
            passed += r - in;
        }
        free(in);
        free(out);
    }
    if (exdb_json_unescape_wide_ok())
        cr_assert(passed > 150000 && stopped > 2000, "%ld bytes decoded, %ld stops", passed,
                  stopped);
}

/* exdb_json_string_at of a string that ends its text at a PROT_NONE page,
 * into a string pool of exactly the room the one-pass decode asks for
 * (ASan and the page see a byte past either): a run of 1-5 backslashes
 * then '"', 'n', 'u', 'x', a control byte or a byte above 0x7F (some
 * whose low seven bits make a one-character escape), at every
 * offset 0-130 of the string and 0-2 or 62-66 bytes before its end; the
 * wide decode gives the byte-wise one's string or message. */
Test(json, strings_at_block_edges_decode_alike) {
    char *end = guarded_page_end();
    /* above 0x7F: 0xEE, 0xA2 and 0xDC are 'n', '"' and '\\' | 0x80 */
    static const char after[] = {'"',        'n',        'u',        'x',       0x01,
                                 (char)0xE9, (char)0xEE, (char)0xA2, (char)0xDC};
    static const int tails[] = {0, 1, 2, 62, 63, 64, 65, 66};
    char got[2][600];
    size_t gotn[2];
    int cases = 0;
    for (int at = 0; at <= 130; at++)
        for (int run = 1; run <= 5; run++)
            for (size_t a = 0; a < sizeof after; a++)
                for (size_t ti = 0; ti < sizeof tails / sizeof *tails; ti++) {
                    size_t len = 1 + (size_t)at + (size_t)run + 1 + (size_t)tails[ti] + 1;
                    char *q = end - len;
                    memset(q, 'a', len);
                    q[0] = '"';
                    memset(q + 1 + at, '\\', (size_t)run);
                    q[1 + at + run] = after[a];
                    for (int i = 0; i < tails[ti]; i += 7) /* escapes after it too */
                        if (i + 1 < tails[ti])
                            q[1 + at + run + 1 + i] = '\\', q[1 + at + run + 2 + i] = 'n';
                    q[len - 1] = '"';
                    for (int wide = 0; wide < 2; wide++) {
                        exdb_json_unescape_wide_allow(wide);
                        char *pool = malloc(len + 1);
                        cr_assert_not_null(pool);
                        exdb_jstrings strs = {&arena, NULL, pool, pool + len + 1};
                        exdb_error err = {0};
                        const char *s;
                        uint32_t n;
                        if (exdb_json_string_at(q, end, q, &strs, "t.json", &s, &n, &err) == 0) {
                            cr_assert(s >= pool && s + n < pool + len + 1, "not in the pool");
                            memcpy(got[wide], s, n);
                            gotn[wide] = n;
                        } else {
                            gotn[wide] =
                                (size_t)snprintf(got[wide], sizeof got[wide], "error %s", err.msg);
                        }
                        free(pool);
                    }
                    exdb_json_unescape_wide_allow(1);
                    cr_assert(gotn[0] == gotn[1] && memcmp(got[0], got[1], gotn[0]) == 0,
                              "at %d, %d backslashes, then 0x%02x, %d bytes before the end: "
                              "%.*s / %.*s",
                              at, run, (unsigned char)after[a], tails[ti], (int)gotn[0], got[0],
                              (int)gotn[1], got[1]);
                    cases++;
                }
    guarded_page_free(end);
    cr_assert_eq(cases, 131 * 5 * 9 * 8);
}
