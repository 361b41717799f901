/* json.h - a small, strict JSON reader that builds a compact DOM in an arena.
 *
 * Why not cJSON for loading (docs/json-reader.md has the measurements):
 * cJSON rejects the bare NaN/Infinity tokens PyTorch writes, reads integers
 * as doubles (2^53 + 1 comes back wrong), keeps the first of repeated keys
 * where Python's json keeps the last, and takes 3x the time and ~3x the
 * memory (a tree of ~64-byte values, a malloc each). This reader parses in
 * situ: strings are unescaped inside the caller's buffer and NUL-terminated
 * there, so a value costs 24 bytes and the buffer doubles as the string
 * pool (it must outlive the DOM and anything pointing into it).
 *
 * Accepted beyond RFC 8259, because PyTorch writes them (docs/pt2-format.md §2):
 * the bare tokens Infinity, -Infinity and NaN (schema 5.x files). */
#ifndef EXDB_JSON_H
#define EXDB_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"

enum { EXDB_JSON_MAX_DEPTH = 512 };

typedef enum {
    EXDB_JNULL,
    EXDB_JFALSE,
    EXDB_JTRUE,
    EXDB_JNUMBER, /* u.str holds the number's text (also Infinity/NaN tokens) */
    EXDB_JSTRING, /* u.str, len bytes, NUL-terminated (may hold \0 inside) */
    EXDB_JARRAY,  /* u.kids[0..len) */
    EXDB_JOBJECT, /* u.kids[0..len), each with .key set, in file order */
    EXDB_JRAW,    /* an element of a lazy array or object (exdb_json_parse_lazy):
                     its text, u.str[0..len), checked but not parsed yet */
} exdb_jtype;

typedef struct exdb_json {
    union {
        const char *str;
        struct exdb_json *kids;
    } u;
    const char *key; /* the member name when this value sits in an object */
    uint32_t len;
    uint8_t type;
} exdb_json;

/* Parses buf[0..len) (modifying it) into a DOM allocated from a. buf must have
 * one spare byte at buf[len] (set to NUL by the caller or not: it is written).
 * fname names the input in errors: "FILE: line L, column C: what". */
int exdb_json_parse(char *buf, size_t len, exdb_arena *a, const char *fname, exdb_json **out,
                    exdb_error *err);

/* exdb_json_parse, except that the members reached by the keys prefix[0..
 * nprefix) from the root and then one of the keys in last (NULL-ended),
 * e.g. {"graph_module", "graph"} then {"nodes", "tensor_values", NULL},
 * have their elements (array elements, object member values) checked, so
 * every syntax error is still found in file order, but left as EXDB_JRAW
 * texts for exdb_json_parse_raw to parse one at a time into an arena that
 * can be reset in between. A program's nodes and tensor metadata are most
 * of its JSON and most of its DOM: this way that DOM never exists all at
 * once. */
int exdb_json_parse_lazy(char *buf, size_t len, exdb_arena *a, const char *fname,
                         const char *const *prefix, int nprefix, const char *const *last,
                         exdb_json **out, exdb_error *err);
/* Parses a lazy element into *out (kids from a; the element's bytes in the
 * buffer are modified as exdb_json_parse modifies them, so once only). A
 * value that is not EXDB_JRAW is copied as it is. -1 only when memory runs
 * out. */
int exdb_json_parse_raw(const exdb_json *raw, exdb_arena *a, const char *fname, exdb_json *out,
                        exdb_error *err);

/* Member lookup; NULL when obj is not an object or has no such key. When a
 * key repeats, the last one wins, as in Python's json module. */
const exdb_json *exdb_json_get(const exdb_json *obj, const char *key);

/* An integral number that fits int64 (no fraction/exponent) -> 0, else -1. */
int exdb_json_int(const exdb_json *j, int64_t *out);
/* A number, or one of the strings/tokens "Infinity", "-Infinity", "NaN". */
int exdb_json_double(const exdb_json *j, double *out);
/* Human name of a type for messages: "an object", "a string"... */
const char *exdb_json_type_name(const exdb_json *j);

static inline int exdb_json_is(const exdb_json *j, exdb_jtype t) {
    return j && j->type == t;
}

#endif
