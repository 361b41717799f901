/* load_sigtext.c - see load_sigtext.h. */
#include "core/export/load_sigtext.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The text [*p, end) starts with lit: *p moved past it, 1; else 0
 * (inlined: n a constant, the compare is a few loads). */
static inline __attribute__((always_inline)) int lit(const char **p, const char *end,
                                                     const char *lit, size_t n) {
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return 0;
    *p += n;
    return 1;
}
#define LIT(p, end, s) lit(p, end, s, sizeof s - 1)

/* A string's text from *p (after its opening quote) to its closing quote,
 * which holds no backslash: *s, *n, *p past the quote, 1; else 0. */
static inline int plain(const char **p, const char *end, const char **s, size_t *n) {
    const char *q = *p;
#ifdef __SSE2__
    /* 16 bytes a step while they are in the element, then the 16 ending
     * at its end (an element here is longer: its keys come before) with
     * the bytes before q left out */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    for (;; q += 16) {
        int tail = end - q < 16;
        const char *at = tail ? end - 16 : q;
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)at);
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)));
        if (tail)
            m &= 0xFFFFu << (q - at);
        if (m) {
            q = at + __builtin_ctz(m);
            break;
        }
        if (tail) {
            q = end;
            break;
        }
    }
#else
    while (q < end && *q != '"' && *q != '\\')
        q++;
#endif
    if (q >= end || *q != '"')
        return 0;
    *s = *p;
    *n = (size_t)(q - *p);
    *p = q + 1;
    return 1;
}

/* The rest of a spec of kind k from its argument's name (open read): its
 * target after the key tkey (of tn bytes), then for a buffer whether it
 * is persistent. */
static inline __attribute__((always_inline)) int spec_rest(const char *p, const char *end,
                                                           exdb_input_kind k, const char *tkey,
                                                           size_t tn, exdb_sigtext_spec *s) {
    s->kind = k;
    if (!plain(&p, end, &s->name, &s->nlen) || !LIT(&p, end, "}") || !lit(&p, end, tkey, tn) ||
        !plain(&p, end, &s->target, &s->tlen))
        return 0;
    if (k == EXDB_IN_BUFFER) {
        s->persistent = 1; /* load_input_spec's default */
        if (LIT(&p, end, ", \"persistent\": false"))
            s->persistent = 0;
        else if (!LIT(&p, end, ", \"persistent\": true") && !(p < end && *p == '}'))
            return 0;
    }
    return LIT(&p, end, "}}") && p == end;
}

int exdb_load_sigtext_spec(const exdb_json *e, exdb_sigtext_spec *s) {
    if (!e || e->type != EXDB_JRAW || !(e->flags & EXDB_JRAW_ASCII))
        return 0;
    const char *p = e->u.str, *end = p + e->len;
    s->persistent = -1;
    s->target = NULL;
    s->tlen = 0;
#define OPEN(tag)   "{\"" tag "\": {\"arg\": {\"name\": \""
#define TARGET(key) ", \"" key "\": \""
#define KIND(tag, key, k)                                                                          \
    (LIT(&p, end, OPEN(tag)) && spec_rest(p, end, k, TARGET(key), sizeof TARGET(key) - 1, s))
    /* the kind by its tag's first letter, then its whole text */
    switch (e->len > 2 ? p[2] : 0) {
    case 'p':
        return KIND("parameter", "parameter_name", EXDB_IN_PARAMETER);
    case 'b':
        return KIND("buffer", "buffer_name", EXDB_IN_BUFFER);
    case 't':
        return KIND("tensor_constant", "tensor_constant_name", EXDB_IN_TENSOR_CONSTANT);
    case 'u':
        s->kind = EXDB_IN_USER_INPUT;
        return LIT(&p, end, "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"") &&
               plain(&p, end, &s->name, &s->nlen) && LIT(&p, end, "}}}}") && p == end;
    }
    return 0;
#undef KIND
#undef TARGET
#undef OPEN
}

int exdb_load_sigtext_input(const exdb_json *e, const char **name, size_t *n) {
    if (!e || e->type != EXDB_JRAW || !(e->flags & EXDB_JRAW_ASCII))
        return 0;
    const char *p = e->u.str, *end = p + e->len;
    return LIT(&p, end, "{\"as_tensor\": {\"name\": \"") && plain(&p, end, name, n) &&
           LIT(&p, end, "}}") && p == end;
}
