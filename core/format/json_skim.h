/* json_skim.h - finds where a JSON array or object ends without checking
 * it (simdjson's stage 1 as the model: bit masks of the structural bytes,
 * 64 at a time), for json.c's lazy elements, which are checked when they
 * are parsed. */
#ifndef EXDB_JSON_SKIM_H
#define EXDB_JSON_SKIM_H

/* s[0] is '[' or '{'. The byte after the bracket that brings the count of
 * open brackets (either kind, outside strings) back to zero, or NULL when
 * the text is not plain enough to say so: the end comes first, more than
 * maxdepth brackets are open at once, or a byte below 0x20 or above 0x7F
 * (a raw newline, tab, control character or UTF-8) sits anywhere before it
 * outside an escape. Strings run from a quote to the next quote that no
 * backslash escapes. */
const char *exdb_json_skim(const char *s, const char *end, int maxdepth);
/* exdb_json_skim with the portable block scan (SSE2 or a byte at a time)
 * even where a wider one is chosen: tests hold them to one answer. */
const char *exdb_json_skim_portable(const char *s, const char *end, int maxdepth);
/* The block scans, by level: 0 portable, 1 AVX2 (and PCLMUL), 2 AVX-512BW
 * (and PCLMUL, on a processor with VBMI2 too), each where the processor has
 * it (else the widest it has below); exdb_json_skim takes the widest (EXDB_SKIM_WIDEST). For the
 * tests, which hold every level to one answer. */
enum { EXDB_SKIM_WIDEST = 2 };
const char *exdb_json_skim_level(int level, const char *s, const char *end, int maxdepth);

/* s[0] is the '"' opening a string: its closing quote (the first quote no
 * backslash escapes), or NULL when end comes first. Nothing else is
 * checked. */
const char *exdb_json_skim_string(const char *s, const char *end);
/* exdb_json_skim_string with the portable block scan (for the tests). */
const char *exdb_json_skim_string_portable(const char *s, const char *end);
/* exdb_json_skim_string at a level of exdb_json_skim_level's. */
const char *exdb_json_skim_string_level(int level, const char *s, const char *end);

/* The value of each one-character escape by its escaped byte ('n' ->
 * '\n'), 0 for the bytes that make none ('u' among them: \u is decoded
 * apart). Its first 128 bytes are the AVX-512 decode's permute table. */
extern const unsigned char exdb_json_one_char_escape[256];

/* Decodes the string text at *rp (a byte no backslash escapes: a plain
 * one or a backslash opening an escape) to *wp, 64 bytes a step, while a
 * block holds only plain bytes and one-character escapes (\" \\ \/ \b
 * \f \n \r \t) and 64 bytes of [*rp, end) are left: it stops before the
 * closing quote, a control byte below 0x20, a backslash opening any other
 * escape (\u, an invalid one), or the last 64 bytes, and moves both past
 * what it decoded; json.c's scan goes on from there. Whole 64-byte blocks
 * are stored: *wp has room for end - *rp bytes (decoding never grows a
 * string). Decodes nothing unless exdb_json_unescape_wide_ok. */
void exdb_json_unescape_wide(const char **rp, char **wp, const char *end);
/* Whether exdb_json_unescape_wide decodes (AVX-512 with VBMI and VBMI2,
 * asked once, and not turned off by exdb_json_unescape_wide_allow(0)). */
int exdb_json_unescape_wide_ok(void);
/* For the tests, which hold the wide decode to the byte-wise one. */
void exdb_json_unescape_wide_allow(int allow);

/* Whether [s, e) is ASCII (no byte above 0x7F). */
int exdb_json_skim_ascii(const char *s, const char *e);

#endif
