/* fuzz_json.c - the JSON reader (core/json.c): exdb_json_parse on any bytes,
 * then every accessor over the whole DOM (member lookup, int and double
 * conversion, type names). */
#include "core/arena.h"
#include "core/json.h"
#include "fuzz_common.h"

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
    exdb_arena_destroy(&a);
    free(buf);
    return 0;
}
