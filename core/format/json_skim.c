/* json_skim.c - see json_skim.h. */
#include "core/format/json_skim.h"

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The structural bytes of one block of up to 64 bytes, a bit each (bit i
 * for s[i]). */
typedef struct {
    uint64_t quote, bslash, open, close, odd;
} skim_masks;

#ifdef __SSE2__
/* One 16-byte lane's masks into bits [at, at + 16) of m. */
static inline __attribute__((always_inline)) void lane(const char *s, unsigned at, skim_masks *m) {
    __m128i v = _mm_loadu_si128((const __m128i *)s);
    /* '[' | 0x20 is '{' and ']' | 0x20 is '}': one compare each */
    __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));
    m->quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))) << at;
    m->bslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))
                 << at;
    m->open |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(low, _mm_set1_epi8('{'))) << at;
    m->close |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(low, _mm_set1_epi8('}')))
                << at;
    /* signed: the bytes below 0x20 and those above 0x7F */
    m->odd |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))) << at;
}
#endif

/* The masks of s[0..n), n <= 64. */
static inline skim_masks masks_of(const char *s, unsigned n) {
    skim_masks m = {0, 0, 0, 0, 0};
    unsigned i = 0;
#ifdef __SSE2__
    if (n == 64) {
        lane(s, 0, &m);
        lane(s + 16, 16, &m);
        lane(s + 32, 32, &m);
        lane(s + 48, 48, &m);
        return m;
    }
#endif
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        uint64_t bit = 1ULL << i;
        if (c == '"')
            m.quote |= bit;
        else if (c == '\\')
            m.bslash |= bit;
        else if ((c | 0x20) == '{')
            m.open |= bit;
        else if ((c | 0x20) == '}')
            m.close |= bit;
        else if (c < 0x20 || c > 0x7F)
            m.odd |= bit;
    }
    return m;
}

/* The bytes a backslash escapes (simdjson's json_escape_scanner): a run of
 * backslashes escapes every second one and the byte after an odd run.
 * *carry says the block's first byte is escaped (set for the next). */
static inline uint64_t escaped_of(uint64_t bslash, uint64_t *carry) {
    const uint64_t odd_bits = 0xAAAAAAAAAAAAAAAAULL;
    if (!bslash) {
        uint64_t e = *carry;
        *carry = 0;
        return e;
    }
    uint64_t potential = bslash & ~*carry;
    uint64_t code = (((potential << 1) | odd_bits) - potential) ^ odd_bits;
    uint64_t escaped = code ^ (bslash | *carry);
    *carry = (code & bslash) >> 63;
    return escaped;
}

/* Bit i set when an odd number of the bits 0..i of x are (the bytes from an
 * opening quote up to, not including, its closing one). */
static inline uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* A block of 64 bytes at a time: the quotes that open or close strings,
 * then the brackets outside them, one by one (a few per block). */
const char *exdb_json_skim(const char *s, const char *end, int maxdepth) {
    const char *p = s;
    int depth = 0;
    uint64_t esc_carry = 0, in_str = 0;
    while (p < end) {
        size_t avail = (size_t)(end - p);
        unsigned n = avail >= 64 ? 64 : (unsigned)avail;
        skim_masks m = masks_of(p, n);
        uint64_t escaped = escaped_of(m.bslash, &esc_carry);
        uint64_t str = prefix_xor(m.quote & ~escaped) ^ in_str;
        in_str = (uint64_t)((int64_t)str >> 63);
        uint64_t plain = ~str & ~escaped;
        uint64_t open = m.open & plain, odd = m.odd & ~escaped;
        for (uint64_t bits = open | (m.close & plain) | odd; bits; bits &= bits - 1) {
            unsigned b = (unsigned)__builtin_ctzll(bits);
            uint64_t bit = 1ULL << b;
            if (odd & bit)
                return NULL;
            if (open & bit) {
                if (++depth > maxdepth)
                    return NULL;
            } else if (--depth == 0) {
                return p + b + 1;
            }
        }
        p += n;
    }
    return NULL;
}

int exdb_json_skim_ascii(const char *s, const char *e) {
#ifdef __SSE2__
    for (; e - s >= 16; s += 16)
        if (_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)s)))
            return 0;
#endif
    for (; s < e; s++)
        if ((unsigned char)*s > 0x7F)
            return 0;
    return 1;
}
