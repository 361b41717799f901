/* sha1.h - SHA-1 (FIPS 180-4), only to fingerprint text in `info facts`
 * the way scripts/real_expect.py does with Python's hashlib. */
#ifndef EXDB_CORE_BASE_SHA1_H
#define EXDB_CORE_BASE_SHA1_H

#include <stddef.h>
#include <stdint.h>

typedef struct exdb_sha1 {
    uint32_t h[5];
    uint64_t len;
    unsigned char block[64];
    size_t fill;
} exdb_sha1;

void exdb_sha1_init(exdb_sha1 *s);
void exdb_sha1_update(exdb_sha1 *s, const void *data, size_t n);
/* Writes 40 lowercase hex digits and a NUL. */
void exdb_sha1_hex(exdb_sha1 *s, char out[41]);

#endif
