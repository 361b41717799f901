/* json_skim.c - see json_skim.h. */
#include "core/format/json_skim.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* x86-64 with GCC or Clang: an AVX2 and PCLMUL version of the block scan,
 * chosen at run time (exdb_json_skim) where the processor has both. */
#if defined(__x86_64__) && defined(__GNUC__)
#define SKIM_X86 1
#include <immintrin.h>
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

/* The bits of a block's first n bytes, 0 < n <= 64: a last block's masks
 * are cut to them. */
static inline uint64_t first_bits(unsigned n) {
    return ~0ULL >> (64 - n);
}

#ifndef __SSE2__
/* The masks of s[0..n), n <= 64, a byte at a time (without SSE2). */
static inline __attribute__((always_inline)) skim_masks masks_bytes(const char *s, unsigned n) {
    skim_masks m = {0, 0, 0, 0, 0};
    for (unsigned i = 0; i < n; i++) {
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
#endif

#ifdef __SSE2__
/* The n < 64 bytes at s copied into a block of 64 whose other bytes are 0
 * (odd, below 0x20: the caller cuts the odd mask to n bytes), so that the
 * last block is scanned as a whole one without reading past the text. */
static inline __attribute__((always_inline)) const char *padded(const char *s, unsigned n,
                                                                char block[64]) {
    memset(block, 0, 64);
    memcpy(block, s, n);
    return block;
}
#endif

/* The masks of s[0..n), n <= 64. */
static inline __attribute__((always_inline)) skim_masks masks_of(const char *s, unsigned n) {
#ifdef __SSE2__
    char block[64];
    const char *b = n == 64 ? s : padded(s, n, block);
    skim_masks m = {0, 0, 0, 0, 0};
    lane(b, 0, &m);
    lane(b + 16, 16, &m);
    lane(b + 32, 32, &m);
    lane(b + 48, 48, &m);
    m.odd &= first_bits(n);
    return m;
#else
    return masks_bytes(s, n);
#endif
}

#ifdef SKIM_X86
/* masks_of with 32-byte compares (AVX2). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) uint64_t
mask32(__m256i lo, __m256i hi, __m256i c) {
    uint32_t a = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, c));
    uint32_t b = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, c));
    return (uint64_t)a | (uint64_t)b << 32;
}

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) skim_masks
masks_avx2(const char *s, unsigned n) {
    char block[64];
    const char *b = n == 64 ? s : padded(s, n, block);
    skim_masks m;
    __m256i lo = _mm256_loadu_si256((const __m256i *)b);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(b + 32));
    __m256i sp = _mm256_set1_epi8(0x20);
    m.quote = mask32(lo, hi, _mm256_set1_epi8('"'));
    m.bslash = mask32(lo, hi, _mm256_set1_epi8('\\'));
    m.open = mask32(_mm256_or_si256(lo, sp), _mm256_or_si256(hi, sp), _mm256_set1_epi8('{'));
    m.close = mask32(_mm256_or_si256(lo, sp), _mm256_or_si256(hi, sp), _mm256_set1_epi8('}'));
    /* signed: the bytes below 0x20 and those above 0x7F */
    uint32_t a = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(sp, lo));
    uint32_t c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(sp, hi));
    m.odd = ((uint64_t)a | (uint64_t)c << 32) & first_bits(n);
    return m;
}

/* masks_of with 64-byte compares into mask registers (AVX-512BW): one
 * compare a mask where AVX2 takes two compares, two movemasks and a merge.
 * A last block of n < 64 bytes is loaded masked (the bytes past n read as
 * 0, never touched: no fault past the text's end), not a byte at a time:
 * a node's text parsed on its own ends in one within 64 bytes of every
 * value skimmed near its end. A 0 byte is odd (below 0x20): the odd mask
 * is cut to n bytes. */
__attribute__((target("avx512bw"))) static inline __attribute__((always_inline)) skim_masks
masks_avx512(const char *s, unsigned n) {
    skim_masks m;
    uint64_t keep = first_bits(n);
    __m512i v = n == 64 ? _mm512_loadu_si512((const void *)s)
                        : _mm512_maskz_loadu_epi8(keep, (const void *)s);
    __m512i sp = _mm512_set1_epi8(0x20);
    __m512i low = _mm512_or_si512(v, sp);
    m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m.bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m.open = _mm512_cmpeq_epi8_mask(low, _mm512_set1_epi8('{'));
    m.close = _mm512_cmpeq_epi8_mask(low, _mm512_set1_epi8('}'));
    /* signed: the bytes below 0x20 and those above 0x7F */
    m.odd = _mm512_cmplt_epi8_mask(v, sp) & keep;
    return m;
}

/* prefix_xor in one carry-less multiply by all ones. */
__attribute__((target("pclmul"))) static inline __attribute__((always_inline)) uint64_t
prefix_xor_clmul(uint64_t x) {
    __m128i v = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(v);
}
#endif

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
 * then the brackets outside them, one by one (a few per block); MASKS and
 * PXOR are masks_of and prefix_xor or their AVX2 and PCLMUL versions. */
#define SKIM_BODY(MASKS, PXOR)                                                                     \
    {                                                                                              \
        const char *p = s;                                                                         \
        int depth = 0;                                                                             \
        uint64_t esc_carry = 0, in_str = 0;                                                        \
        while (p < end) {                                                                          \
            size_t avail = (size_t)(end - p);                                                      \
            unsigned n = avail >= 64 ? 64 : (unsigned)avail;                                       \
            skim_masks m = MASKS(p, n);                                                            \
            uint64_t escaped = escaped_of(m.bslash, &esc_carry);                                   \
            uint64_t str = PXOR(m.quote & ~escaped) ^ in_str;                                      \
            in_str = (uint64_t)((int64_t)str >> 63);                                               \
            uint64_t plain = ~str & ~escaped;                                                      \
            uint64_t open = m.open & plain, odd = m.odd & ~escaped;                                \
            for (uint64_t bits = open | (m.close & plain) | odd; bits; bits &= bits - 1) {         \
                unsigned b = (unsigned)__builtin_ctzll(bits);                                      \
                uint64_t bit = 1ULL << b;                                                          \
                if (odd & bit)                                                                     \
                    return NULL;                                                                   \
                if (open & bit) {                                                                  \
                    if (++depth > maxdepth)                                                        \
                        return NULL;                                                               \
                } else if (--depth == 0) {                                                         \
                    return p + b + 1;                                                              \
                }                                                                                  \
            }                                                                                      \
            p += n;                                                                                \
        }                                                                                          \
        return NULL;                                                                               \
    }

static const char *skim_base(const char *s, const char *end, int maxdepth) {
    SKIM_BODY(masks_of, prefix_xor)
}

#ifdef SKIM_X86
__attribute__((target("avx2,pclmul"))) static const char *skim_avx2(const char *s, const char *end,
                                                                    int maxdepth) {
    SKIM_BODY(masks_avx2, prefix_xor_clmul)
}

__attribute__((target("avx512bw,pclmul"))) static const char *
skim_avx512(const char *s, const char *end, int maxdepth) {
    SKIM_BODY(masks_avx512, prefix_xor_clmul)
}
#endif

/* The widest block scan the processor has (0 portable, 1 AVX2 and
 * PCLMUL, 2 AVX-512BW and PCLMUL). AVX-512 only where the
 * processor also has VBMI2 (Ice Lake, Zen 4 and later), as simdjson
 * chooses: the first AVX-512 processors (Skylake-SP) lower their clock
 * for 512-bit work, which would slow what runs after the scan. */
static int widest_level(void) {
#ifdef SKIM_X86
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2") &&
        __builtin_cpu_supports("pclmul"))
        return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul"))
        return 1;
#endif
    return 0;
}

/* widest_level, asked once (every thread finds the same answer); level
 * max when the processor has it, else the widest it has below. */
static atomic_int widest = -1;

static inline int scan_level(int max) {
    int w = atomic_load_explicit(&widest, memory_order_relaxed);
    if (w < 0) {
        w = widest_level();
        atomic_store_explicit(&widest, w, memory_order_relaxed);
    }
    return max < w ? max : w;
}

const char *exdb_json_skim_level(int level, const char *s, const char *end, int maxdepth) {
    switch (scan_level(level)) {
#ifdef SKIM_X86
    case 2:
        return skim_avx512(s, end, maxdepth);
    case 1:
        return skim_avx2(s, end, maxdepth);
#endif
    default:
        return skim_base(s, end, maxdepth);
    }
}

const char *exdb_json_skim(const char *s, const char *end, int maxdepth) {
    return exdb_json_skim_level(EXDB_SKIM_WIDEST, s, end, maxdepth);
}

const char *exdb_json_skim_portable(const char *s, const char *end, int maxdepth) {
    return skim_base(s, end, maxdepth);
}

/* The first quote no backslash escapes in [s, end), 64 bytes a step. */
#define STRING_END_BODY(MASKS)                                                                     \
    {                                                                                              \
        uint64_t esc_carry = 0;                                                                    \
        for (const char *p = s; p < end;) {                                                        \
            size_t avail = (size_t)(end - p);                                                      \
            unsigned n = avail >= 64 ? 64 : (unsigned)avail;                                       \
            skim_masks m = MASKS(p, n);                                                            \
            uint64_t q = m.quote & ~escaped_of(m.bslash, &esc_carry);                              \
            if (q)                                                                                 \
                return p + __builtin_ctzll(q);                                                     \
            p += n;                                                                                \
        }                                                                                          \
        return NULL;                                                                               \
    }

static const char *string_end_base(const char *s, const char *end) {
    STRING_END_BODY(masks_of)
}

#ifdef SKIM_X86
__attribute__((target("avx2"))) static const char *string_end_avx2(const char *s, const char *end) {
    STRING_END_BODY(masks_avx2)
}

__attribute__((target("avx512bw"))) static const char *string_end_avx512(const char *s,
                                                                         const char *end) {
    STRING_END_BODY(masks_avx512)
}
#endif

const char *exdb_json_skim_string_level(int level, const char *s, const char *end) {
    switch (scan_level(level)) {
#ifdef SKIM_X86
    case 2:
        return string_end_avx512(s + 1, end);
    case 1:
        return string_end_avx2(s + 1, end);
#endif
    default:
        return string_end_base(s + 1, end);
    }
}

const char *exdb_json_skim_string(const char *s, const char *end) {
    return exdb_json_skim_string_level(EXDB_SKIM_WIDEST, s, end);
}

const char *exdb_json_skim_string_portable(const char *s, const char *end) {
    return string_end_base(s + 1, end);
}

int exdb_json_skim_ascii(const char *s, const char *e) {
#ifdef __SSE2__
    for (; e - s >= 64; s += 64) { /* four blocks, one test */
        __m128i v = _mm_or_si128(_mm_or_si128(_mm_loadu_si128((const __m128i *)s),
                                              _mm_loadu_si128((const __m128i *)(s + 16))),
                                 _mm_or_si128(_mm_loadu_si128((const __m128i *)(s + 32)),
                                              _mm_loadu_si128((const __m128i *)(s + 48))));
        if (_mm_movemask_epi8(v))
            return 0;
    }
    for (; e - s >= 16; s += 16)
        if (_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)s)))
            return 0;
#endif
    for (; s < e; s++)
        if ((unsigned char)*s > 0x7F)
            return 0;
    return 1;
}

/* json_skim.h: the one table of one-character escapes, json.c's and the
 * wide decode's */
const unsigned char exdb_json_one_char_escape[256] = {
    ['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
    ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};

#ifdef SKIM_X86

/* exdb_json_unescape_wide with AVX-512 VBMI and VBMI2: per 64-byte block
 * the escaped bytes (escaped_of: the block starts at a byte no backslash
 * escapes), their values from one two-table permute, the first byte the
 * block may not pass (the closing quote, a control byte, the backslash of
 * an escape that is not a one-character one), and the block's bytes before
 * it but for the backslashes that open escapes compressed into one store.
 * A backslash opening an escape at the block's last byte is left to the
 * next block, so no escape straddles two. */
__attribute__((target("avx512bw,avx512vbmi,avx512vbmi2,popcnt"))) static void
unescape_avx512(const char **rp, char **wp, const char *end) {
    const char *r = *rp;
    char *w = *wp;
    /* the table's ASCII half: the permute indexes it by a byte's low 7 bits */
    const __m512i lo = _mm512_loadu_si512((const void *)exdb_json_one_char_escape);
    const __m512i hi = _mm512_loadu_si512((const void *)(exdb_json_one_char_escape + 64));
    while (end - r >= 64) {
        __m512i v = _mm512_loadu_si512((const void *)r);
        uint64_t bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
        uint64_t quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
        uint64_t ctl = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
        uint64_t carry = 0;
        uint64_t esc = escaped_of(bslash, &carry); /* the escaped bytes */
        uint64_t opens = bslash & ~esc;            /* the backslashes opening them */
        __m512i val = _mm512_permutex2var_epi8(lo, v, hi);
        /* an escaped byte with no one-character value (or above 0x7F,
         * which the permute reads by its low 7 bits): its backslash stops */
        uint64_t other = esc & (_mm512_testn_epi8_mask(val, val) | _mm512_movepi8_mask(v));
        uint64_t stop = (quote & ~esc) | ctl | (other >> 1);
        unsigned n = stop ? (unsigned)__builtin_ctzll(stop) : 64;
        if (n == 64 && opens >> 63)
            n = 63; /* its escaped byte is the next block's first */
        uint64_t take = n == 64 ? ~0ULL : (1ULL << n) - 1;
        __m512i out = _mm512_mask_mov_epi8(v, esc & take, val);
        uint64_t keep = take & ~opens;
        _mm512_storeu_si512((void *)w, _mm512_maskz_compress_epi8(keep, out));
        w += __builtin_popcountll(keep);
        r += n;
        if (stop)
            break;
    }
    *rp = r;
    *wp = w;
}

static int wide_unescape_level(void) {
    return scan_level(EXDB_SKIM_WIDEST) == 2 && __builtin_cpu_supports("avx512vbmi");
}
#endif

/* 1 when unescape_avx512 runs (asked once), 0 when the processor lacks it
 * or a test turned it off (exdb_json_unescape_wide_allow). */
static atomic_int wide_on = -1, wide_allowed = 1;

int exdb_json_unescape_wide_ok(void) {
    int on = atomic_load_explicit(&wide_on, memory_order_relaxed);
    if (on < 0) {
#ifdef SKIM_X86
        on = wide_unescape_level();
#else
        on = 0;
#endif
        atomic_store_explicit(&wide_on, on, memory_order_relaxed);
    }
    return on && atomic_load_explicit(&wide_allowed, memory_order_relaxed);
}

void exdb_json_unescape_wide_allow(int allow) {
    atomic_store_explicit(&wide_allowed, allow != 0, memory_order_relaxed);
}

void exdb_json_unescape_wide(const char **rp, char **wp, const char *end) {
#ifdef SKIM_X86
    if (exdb_json_unescape_wide_ok())
        unescape_avx512(rp, wp, end);
#else
    (void)rp;
    (void)wp;
    (void)end;
#endif
}
