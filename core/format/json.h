/* json.h - a small, strict JSON reader that builds a compact DOM in an arena.
 *
 * Why not cJSON for loading (docs/json-reader.md has the measurements):
 * cJSON rejects the bare NaN/Infinity tokens PyTorch writes, reads integers
 * as doubles (2^53 + 1 comes back wrong), keeps the first of repeated keys
 * where Python's json keeps the last, and takes 3x the time and ~3x the
 * memory (a tree of ~64-byte values, a malloc each). This reader never
 * writes into the text (a program's text may be a read-only mapping of its
 * file): strings and keys are decoded into a string pool (exdb_jstrings,
 * byte-aligned chunks of an arena that may outlive the DOM), numbers and
 * lazy elements point into the text, and a value costs 24 bytes.
 *
 * Accepted beyond RFC 8259, because PyTorch writes them (docs/pt2-format.md §2):
 * the bare tokens Infinity, -Infinity and NaN (schema 5.x files). */
#ifndef EXDB_CORE_FORMAT_JSON_H
#define EXDB_CORE_FORMAT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/format/json_value.h"

enum { EXDB_JSON_MAX_DEPTH = 512 };

/* Where a parse puts the strings and keys it decodes (NUL-terminated): the
 * free bytes [p, end) of a chunk taken from a, a new chunk when they run
 * out. Several pools may share one arena from several threads when each
 * holds mu (or NULL: one thread) around the chunk allocations. Start one
 * with p = end = NULL; it must not outlive a reset of a. */
typedef struct exdb_jstrings {
    exdb_arena *a;
    void *mu; /* a pthread_mutex_t *, or NULL */
    char *p, *end;
} exdb_jstrings;

static inline exdb_jstrings exdb_jstrings_on(exdb_arena *a) {
    exdb_jstrings s = {a, NULL, NULL, NULL};
    return s;
}

/* Parses buf[0..len) into a DOM allocated from a (strings too). buf[len]
 * must be a NUL (the caller's: nothing is written into buf). fname names
 * the input in errors: "FILE: line L, column C: what". */
int exdb_json_parse(const char *buf, size_t len, exdb_arena *a, const char *fname, exdb_json **out,
                    exdb_error *err);

/* exdb_json_parse, except that the members reached by the keys prefix[0..
 * nprefix) from the root and then one of the keys in last (NULL-ended),
 * e.g. {"graph_module", "graph"} then {"nodes", "tensor_values", NULL},
 * have their elements (an entry of last may go on below the prefix, its
 * keys split by '/': {"graph_module"} then {"graph/nodes",
 * "signature/input_specs", NULL}; at most 4 keys) (array elements, object member values) left as
 * EXDB_JRAW texts for exdb_json_parse_raw to parse one at a time into an
 * arena that can be reset in between. The elements are delimited in one
 * fast pass (json_skim.h) and checked when parsed, so a syntax error in
 * one is found by exdb_json_parse_raw; where that could not give its line
 * and column exactly (the text has more than one line, or bytes above
 * 0x7F), they are checked here, in file order. A program's nodes and tensor metadata are most
 * of its JSON and most of its DOM: this way that DOM never exists all at
 * once. */
int exdb_json_parse_lazy(const char *buf, size_t len, exdb_arena *a, exdb_jstrings *strs,
                         const char *fname, const char *const *prefix, int nprefix,
                         const char *const *last, exdb_json **out, exdb_error *err);
/* What exdb_json_parse_lazy_hooked tells of each lazy element as soon as
 * it has delimited it (its text still in the cache): fn(ctx, key, i, e),
 * key the member whose elements are lazy (one of last), i the element's
 * index in it (0 starts another such member: a repeated key), e the
 * element as the DOM keeps it; then fn(ctx, key, n, NULL) when the
 * member's n elements end. The hook must not fail the parse. held
 * (or NULL) says where the text the parse may give back as it goes
 * (filemap.h) ends: NULL anywhere, else before what it returns (the hook
 * still reads the text after it). */
typedef struct exdb_json_lazy_hook {
    void (*fn)(void *ctx, const char *key, uint32_t i, const exdb_json *e);
    const char *(*held)(void *ctx);
    void *ctx;
} exdb_json_lazy_hook;

/* exdb_json_parse_lazy, telling hook (or nobody: NULL) of each lazy element. */
int exdb_json_parse_lazy_hooked(const char *buf, size_t len, exdb_arena *a, exdb_jstrings *strs,
                                const char *fname, const char *const *prefix, int nprefix,
                                const char *const *last, const exdb_json_lazy_hook *hook,
                                exdb_json **out, exdb_error *err);

/* Parses a lazy element into *out (kids from a, strings and keys from
 * strs; an element of at most EXDB_JSTRINGS_SPAN bytes has all of them in
 * one span [*lo, *hi) of strs's chunk, else *lo = *hi = NULL; lo and hi may
 * be NULL). A value that is not EXDB_JRAW is copied as it is. text is the buffer
 * exdb_json_parse_lazy parsed (the element's column in messages counts
 * from it). An element exdb_json_parse_lazy only delimited (one on the
 * text's first line with ASCII before it: json_skim.h) is checked here,
 * so -1 is a syntax error in it (its one-line message, line and column as
 * exdb_json_parse gives them), or memory running out. */
enum { EXDB_JSTRINGS_SPAN = 16384 };
int exdb_json_parse_raw(const exdb_json *raw, const char *text, exdb_arena *a, exdb_jstrings *strs,
                        const char *fname, exdb_json *out, const char **lo, const char **hi,
                        exdb_error *err);

/* The string whose opening quote is at quote (in the buffer text, which
 * ends at end), an EXDB_JRAW string an EXDB_JRAW_DEFER element left:
 * checked, then decoded as exdb_json_parse decodes it into strs, into *out
 * and *len. -1 with its one-line message ("FILE: line 1, column C: ...",
 * as the element's parse would have given it) on a syntax error or when
 * memory runs out ("FILE: out of memory"). */
int exdb_json_string_at(const char *quote, const char *end, const char *text, exdb_jstrings *strs,
                        const char *fname, const char **out, uint32_t *len, exdb_error *err);

#endif
