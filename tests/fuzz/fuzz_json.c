/* fuzz_json.c - the JSON reader (core/format/json.c): exdb_json_parse on any bytes,
 * then every accessor over the whole DOM (member lookup, int and double
 * conversion, type names); and exdb_json_parse_lazy on the same bytes, which
 * with exdb_json_parse_raw of its raw elements in file order must accept
 * exactly what the full parse accepts, and when the lazy parse succeeds
 * the first raw element that fails must fail with the full parse's message
 * (line and column included: the full parse counts them over strings it
 * has already unescaped in place, parse_raw from the element's offset);
 * once with lazy members at the root, once under a root member "a" (the
 * key-prefix path exdb's loader uses). Where the 64-byte escape decode
 * runs (json_skim.h exdb_json_unescape_wide: AVX-512 VBMI2), each parse
 * is done again without it and must give the same DOM, byte for byte, or
 * the same message; the raw elements' strings go to a pool of exactly the
 * element's length plus one, so that ASan sees a store past it. */
#include <string.h>

#include "core/base/arena.h"
#include "core/format/json.h"
#include "core/format/json_skim.h"
#include "fuzz_common.h"

#define FUZZ_ASSERT(c)                                                                             \
    do {                                                                                           \
        if (!(c))                                                                                  \
            __builtin_trap();                                                                      \
    } while (0)

/* Whether a and b are the same value: kinds, lengths, flags, keys, and
 * strings and numbers byte for byte (their NUL too). */
static int same_value(const exdb_json *a, const exdb_json *b, int depth) {
    if (a->type != b->type || a->len != b->len || a->flags != b->flags)
        return 0;
    if ((a->key == NULL) != (b->key == NULL) || (a->key && strcmp(a->key, b->key) != 0))
        return 0;
    if (a->type == EXDB_JSTRING)
        return memcmp(a->u.str, b->u.str, (size_t)a->len + 1) == 0;
    if (a->type == EXDB_JNUMBER || a->type == EXDB_JRAW)
        return memcmp(a->u.str, b->u.str, a->len) == 0;
    if ((a->type == EXDB_JARRAY || a->type == EXDB_JOBJECT) && depth < EXDB_JSON_MAX_DEPTH + 2)
        for (uint32_t k = 0; k < a->len; k++)
            if (!same_value(&a->u.kids[k], &b->u.kids[k], depth + 1))
                return 0;
    return 1;
}

/* exdb_json_parse_raw of c with the 64-byte escape decode allowed or not
 * (wide), its strings in pool (c->len + 1 bytes: room for all of them). */
static int parse_raw_pooled(const exdb_json *c, const char *text, exdb_arena *a, char *pool,
                            int wide, exdb_json *e, exdb_error *err) {
    exdb_jstrings strs = {a, NULL, pool, pool + c->len + 1};
    exdb_json_unescape_wide_allow(wide);
    int rc = exdb_json_parse_raw(c, text, a, &strs, "fuzz.json", e, NULL, NULL, err);
    exdb_json_unescape_wide_allow(1);
    return rc;
}

/* Parses every raw element under j (the lazy members are at the root) in
 * file order, up to the first that fails; -1 then with its message in
 * *err. Where the 64-byte escape decode runs, each element is parsed
 * without it too: the same element or message. */
static int parse_raws(const exdb_json *j, const char *text, exdb_arena *a, exdb_error *err) {
    if (j->type != EXDB_JARRAY && j->type != EXDB_JOBJECT)
        return 0;
    for (uint32_t k = 0; k < j->len; k++) {
        const exdb_json *c = &j->u.kids[k];
        if (c->type == EXDB_JRAW) {
            exdb_json e, e2;
            char *pool = malloc((size_t)c->len + 1), *pool2 = malloc((size_t)c->len + 1);
            int rc = -1;
            if (pool && pool2) {
                rc = parse_raw_pooled(c, text, a, pool, 1, &e, err);
                if (exdb_json_unescape_wide_ok()) {
                    exdb_error err2 = {0};
                    int rc2 = parse_raw_pooled(c, text, a, pool2, 0, &e2, &err2);
                    FUZZ_ASSERT(rc == rc2);
                    if (rc == 0)
                        FUZZ_ASSERT(same_value(&e, &e2, 0));
                    else if (strstr(err->msg, "out of memory") == NULL)
                        FUZZ_ASSERT(strcmp(err->msg, err2.msg) == 0);
                }
            }
            free(pool);
            free(pool2);
            if (rc < 0)
                return -1;
        } else if (parse_raws(c, text, a, err) < 0) {
            return -1;
        }
    }
    return 0;
}

static unsigned walk(const exdb_json *j, int depth) {
    unsigned h = j->type + j->len;
    int64_t i;
    double d;
    (void)exdb_json_type_name(j);
    if (exdb_json_int(j, &i) == 0)
        h += (unsigned)i;
    if (exdb_json_double(j, &d) == 0)
        h += d > 0;
    if (j->type == EXDB_JSTRING || j->type == EXDB_JNUMBER) {
        /* the text is NUL-terminated at len */
        h += j->u.str[j->len] == '\0';
    } else if (j->type == EXDB_JARRAY || j->type == EXDB_JOBJECT) {
        for (uint32_t k = 0; k < j->len; k++) {
            const exdb_json *c = &j->u.kids[k];
            if (j->type == EXDB_JOBJECT)
                h += exdb_json_get(j, c->key) != NULL;
            if (depth < EXDB_JSON_MAX_DEPTH + 2)
                h += walk(c, depth + 1);
        }
    }
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    char *buf = fuzz_dup(data, size);
    if (!buf)
        return 0;
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json *root = NULL;
    exdb_error err = {0};
    if (exdb_json_parse(buf, size, &a, "fuzz.json", &root, &err) == 0) {
        volatile unsigned h = walk(root, 0);
        (void)h;
        (void)exdb_json_get(root, "schema_version");
    } else {
        fuzz_check_error(err.msg, err.set);
    }
    if (exdb_json_unescape_wide_ok()) {
        /* without the 64-byte escape decode: the same DOM or message */
        char *bufb = fuzz_dup(data, size);
        if (bufb) {
            exdb_arena ab;
            exdb_arena_init(&ab);
            exdb_json *rootb = NULL;
            exdb_error errb = {0};
            exdb_json_unescape_wide_allow(0);
            int rcb = exdb_json_parse(bufb, size, &ab, "fuzz.json", &rootb, &errb);
            exdb_json_unescape_wide_allow(1);
            FUZZ_ASSERT((rcb == 0) == (root != NULL));
            if (root)
                FUZZ_ASSERT(same_value(root, rootb, 0));
            else if (strstr(err.msg, "out of memory") == NULL)
                FUZZ_ASSERT(strcmp(err.msg, errb.msg) == 0);
            exdb_arena_destroy(&ab);
            free(bufb);
        }
    }
    /* the lazy parse of the same bytes: members named "", "a", "b" or
     * "nodes" of the root object, then of its member "a", are lazy */
    static const char *const last[] = {"", "a", "b", "nodes", NULL};
    static const char *const prefix[] = {"a"};
    for (int np = 0; np < 2; np++) {
        char *buf2 = fuzz_dup(data, size);
        if (!buf2)
            break;
        exdb_arena a2;
        exdb_arena_init(&a2);
        exdb_json *root2 = NULL;
        exdb_error err2 = {0};
        exdb_jstrings strs2 = exdb_jstrings_on(&a2);
        int rc2 = exdb_json_parse_lazy(buf2, size, &a2, &strs2, "fuzz.json", np ? prefix : NULL, np,
                                       last, &root2, &err2);
        /* a lazy element only delimited is checked by parse_raw: the
         * first that fails gives the full parse's message; else the lazy
         * parse fails (with it, or with a later error when an element
         * before that one holds the first) */
        if (root)
            FUZZ_ASSERT(rc2 == 0);
        if (rc2 == 0) {
            exdb_error err3 = {0};
            int rc3 = parse_raws(root2, buf2, &a2, &err3);
            FUZZ_ASSERT((rc3 == 0) == (root != NULL));
            if (rc3 < 0 && err.set && err3.set && strstr(err3.msg, "out of memory") == NULL)
                FUZZ_ASSERT(strcmp(err.msg, err3.msg) == 0);
        }
        exdb_arena_destroy(&a2);
        free(buf2);
    }
    exdb_arena_destroy(&a);
    free(buf);
    return 0;
}
