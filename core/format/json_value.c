/* json_value.c - see json_value.h. */
#include "core/format/json_value.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const exdb_json *exdb_json_get(const exdb_json *obj, const char *key) {
    if (!obj || obj->type != EXDB_JOBJECT)
        return NULL;
    /* Objects are small (a handful of keys): compare the pointers, then the
     * first byte before calling strcmp; the loader asks for fixed keys
     * millions of times. A schema key points at json.c's static copy, which
     * the linker merges with the caller's equal literal (one copy of each
     * string constant), so most hits need no strcmp; equal pointers are
     * equal strings, so the last of repeated keys still wins. */
    for (uint32_t i = obj->len; i-- > 0;) {
        const char *k = obj->u.kids[i].key;
        if (k == key || (k[0] == key[0] && strcmp(k, key) == 0))
            return &obj->u.kids[i];
    }
    return NULL;
}

/* Integers are parsed by hand (no copy, no strtoll): the loader reads one
 * per tensor dimension and stride, millions in a large program. */
int exdb_json_int(const exdb_json *j, int64_t *out) {
    if (!j || j->type != EXDB_JNUMBER || j->len == 0 || j->len > 24)
        return -1;
    const char *s = j->u.str, *e = s + j->len;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (s == e)
        return -1;
    uint64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
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
    case EXDB_JRAW:
        break;
    }
    return "a value";
}
