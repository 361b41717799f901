/* json_value.h - the DOM json.h's reader builds (a value is 24 bytes:
 * arrays and objects hold their children contiguously, strings and numbers
 * point into the parsed buffer) and the accessors that read values out of
 * it, as Python's json module would see them. */
#ifndef EXDB_CORE_FORMAT_JSON_VALUE_H
#define EXDB_CORE_FORMAT_JSON_VALUE_H

#include <stdint.h>
#include <string.h>

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
    /* Set only on EXDB_JRAW values (EXDB_JRAW_ASCII), on what
     * exdb_json_parse_raw gives and on the root exdb_json_parse_lazy gives
     * (EXDB_JTEXT_CLEAN), 0 there otherwise; not meaningful on other
     * values. */
    uint8_t flags;
} exdb_json;

/* exdb_json_parse_raw's element, or exdb_json_parse_lazy's root: every
 * string and key in it (the root: outside its lazy elements) is UTF-8
 * without U+0000 (its text is ASCII and no \u escape in it decodes to
 * U+0000 or past U+007F), so a reader need not check them again. */
#define EXDB_JTEXT_CLEAN 1
/* An EXDB_JRAW element exdb_json_parse_lazy delimited with json_skim.h,
 * which found no byte above 0x7F in it. */
#define EXDB_JRAW_ASCII 2
/* Set by the reader on an EXDB_JRAW element (with EXDB_JRAW_ASCII) before
 * it is parsed: exdb_json_parse_raw leaves the string members of the
 * element's "metadata" object (but nn_module_stack and custom) unparsed,
 * each an EXDB_JRAW holding the string's text with its quotes, for
 * exdb_json_string_at (a node's metadata parsed when first read); its
 * nn_module_stack string is decoded with the element's DOM (the arena it
 * is parsed into), not into the string pool. */
#define EXDB_JRAW_DEFER 4

/* Member lookup; NULL when obj is not an object or has no such key. When a
 * key repeats, the last one wins, as in Python's json module. */
const exdb_json *exdb_json_get(const exdb_json *obj, const char *key);

/* An integral number that fits int64 (no fraction/exponent) -> 0, else -1. */
int exdb_json_int(const exdb_json *j, int64_t *out);
/* A number, or one of the strings/tokens "Infinity", "-Infinity", "NaN". */
int exdb_json_double(const exdb_json *j, double *out);
/* Human name of a type for messages: "an object", "a string"... */
const char *exdb_json_type_name(const exdb_json *j);

/* Whether the DOM key k is the schema key lit: json.c's static copy of a
 * schema key is the caller's literal (the linker keeps one copy of each), so
 * mostly one pointer compare; strcmp otherwise. */
static inline int exdb_json_key_is(const char *k, const char *lit) {
    return k == lit || strcmp(k, lit) == 0;
}

static inline int exdb_json_is(const exdb_json *j, exdb_jtype t) {
    return j && j->type == t;
}

#endif
