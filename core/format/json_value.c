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

/* s[0..n) as strtod reads it when it is [-]digits[.digits][(e|E)[+-]digits]
 * with at most 15 digits and a power of ten within 1e22 of them (Clinger's
 * fast path: the digits and the power are exact doubles, so one multiply
 * or divide rounds as strtod does); 0 otherwise, for strtod. Most floats of
 * a program (eps 1e-05, momentum 0.1) are such. */
static int fast_double(const char *s, size_t n, double *out) {
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *e = s + n;
    int neg = s < e && *s == '-';
    s += neg;
    uint64_t m = 0;
    int digits = 0, frac = 0;
    const char *d0 = s;
    for (; s < e && *s >= '0' && *s <= '9'; s++, digits++)
        m = m * 10 + (uint64_t)(*s - '0');
    if (s == d0)
        return 0;
    if (s < e && *s == '.') {
        const char *f0 = ++s;
        for (; s < e && *s >= '0' && *s <= '9'; s++, digits++)
            m = m * 10 + (uint64_t)(*s - '0');
        frac = (int)(s - f0);
        if (!frac)
            return 0;
    }
    if (digits > 15)
        return 0;
    int x = 0;
    if (s < e && (*s == 'e' || *s == 'E')) {
        s++;
        int xneg = s < e && *s == '-';
        s += s < e && (*s == '-' || *s == '+');
        const char *x0 = s;
        for (; s < e && *s >= '0' && *s <= '9' && x < 1000; s++)
            x = x * 10 + (*s - '0');
        if (s == x0)
            return 0;
        x = xneg ? -x : x;
    }
    if (s != e)
        return 0;
    int p = x - frac;
    if (p < -22 || p > 22)
        return 0;
    double v = (double)m;
    v = p < 0 ? v / pow10[-p] : v * pow10[p];
    *out = neg ? -v : v;
    return 1;
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
    if (fast_double(s, n, out))
        return 0;
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
