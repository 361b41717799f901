/* container_map.c - a program member stored uncompressed in a zip, mapped
 * at its offset in the archive instead of read into a buffer (filemap.h;
 * docs/json-reader.md "The text as a read-only mapping"). libzip 1.7.3
 * gives no member's data offset, so it is found here: the member's central
 * directory entry (the index-th, as libzip numbers them) gives its local
 * header's offset, and the local header's own length fields the data's.
 * Everything read is checked against what libzip says of the member (name,
 * method, sizes, CRC-32); anything odd means "not mapped" and the caller
 * reads the member through libzip as before (so does an archive comment
 * over 4,074 bytes or a directory entry's name and extra field over 4 KiB:
 * the buffers here are small, on the stack). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(__x86_64__) || defined(__i386__)
/* XXH3 on the widest vector unit the processor has (AVX2, AVX-512), chosen
 * at run time by libxxhash's x86 build; the plain calls run its SSE2 code.
 * The value is the same either way (XXH3 is defined by its output). */
#include <xxh_x86dispatch.h>
#endif
#include <zlib.h>

#include "core/base/filemap.h"
#include "core/format/container_impl.h"

#define EOCD_LEN      22
#define EOCD64_LOC    20
#define EOCD64_LEN    56
#define CDIR_LEN      46
#define TAIL_MAX      4096 /* the end record and a comment of up to 4,074 bytes */
#define NAMES_MAX     4096 /* a directory entry's name and extra field */
#define ZIP64_EXTRA   0x0001
#define FLAG_ENCRYPT  0x0001
#define FLAG_DESCRIPT 0x0008
#define U32_MAX       0xFFFFFFFFu
/* Bytes of a mapped text checked (CRC-32) and hashed (XXH3) at a time,
 * the pages then given back. */
#define PASS_CHUNK ((size_t)4 << 20)

static unsigned get16(const unsigned char *p) {
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const unsigned char *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* pread of exactly n bytes at off: 0, or -1. */
static int read_at(int fd, uint64_t off, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

typedef struct {
    uint64_t off, size, count; /* the central directory */
} cdir;

/* The central directory's place from the end of central directory record
 * (and its ZIP64 twin when the record says so). 0, or -1 (odd archive). */
static int find_cdir(int fd, uint64_t fsize, cdir *cd) {
    unsigned char tail[TAIL_MAX];
    size_t n = fsize < TAIL_MAX ? (size_t)fsize : TAIL_MAX;
    uint64_t at = fsize - n;
    if (n < EOCD_LEN || read_at(fd, at, tail, n) < 0)
        return -1;
    const unsigned char *e = NULL;
    for (size_t i = n - EOCD_LEN + 1; i-- > 0 && !e;)
        if (memcmp(tail + i, "PK\5\6", 4) == 0 && i + EOCD_LEN + get16(tail + i + 20) == n)
            e = tail + i;
    if (!e)
        return -1;
    uint64_t eocd = at + (uint64_t)(e - tail);
    cd->count = get16(e + 10);
    cd->size = get32(e + 12);
    cd->off = get32(e + 16);
    if (cd->count == 0xFFFF || cd->size == U32_MAX || cd->off == U32_MAX) {
        unsigned char loc[EOCD64_LOC], r[EOCD64_LEN];
        if (eocd < EOCD64_LOC || read_at(fd, eocd - EOCD64_LOC, loc, sizeof loc) < 0 ||
            memcmp(loc, "PK\6\7", 4) != 0 || get64(loc + 8) > eocd ||
            read_at(fd, get64(loc + 8), r, sizeof r) < 0 || memcmp(r, "PK\6\6", 4) != 0)
            return -1;
        cd->count = get64(r + 32);
        cd->size = get64(r + 40);
        cd->off = get64(r + 48);
        eocd = get64(loc + 8);
    }
    return cd->off <= eocd && cd->size <= eocd - cd->off ? 0 : -1;
}

/* The ZIP64 extra field's values for the 0xFFFFFFFF fields of an entry, in
 * the order the format gives them (sizes, then the offset). */
static int zip64_fields(const unsigned char *x, size_t xlen, uint64_t *usize, uint64_t *csize,
                        uint64_t *lho) {
    uint64_t *want[3] = {*usize == U32_MAX ? usize : NULL, *csize == U32_MAX ? csize : NULL,
                         *lho == U32_MAX ? lho : NULL};
    for (size_t i = 0; i + 4 <= xlen;) {
        size_t id = get16(x + i), len = get16(x + i + 2), at = i + 4;
        if (at + len > xlen)
            return -1;
        if (id == ZIP64_EXTRA)
            for (int k = 0; k < 3; k++)
                if (want[k]) {
                    if (at + 8 > i + 4 + len)
                        return -1;
                    *want[k] = get64(x + at);
                    at += 8;
                    want[k] = NULL;
                }
        i += 4 + len;
    }
    return want[0] || want[1] || want[2] ? -1 : 0;
}

/* The offset of member idx's data (name, sizes and CRC as libzip says in
 * st, method STORE, not encrypted), or 0 when it cannot be trusted. */
static uint64_t data_offset(int fd, uint64_t fsize, zip_uint64_t idx, const char *name,
                            const zip_stat_t *st) {
    cdir cd;
    unsigned char h[CDIR_LEN];
    size_t nlen = strlen(name);
    if (find_cdir(fd, fsize, &cd) < 0 || idx >= cd.count)
        return 0;
    uint64_t at = cd.off, end = cd.off + cd.size;
    for (zip_uint64_t i = 0;; i++) {
        if (end - at < CDIR_LEN || read_at(fd, at, h, CDIR_LEN) < 0 || memcmp(h, "PK\1\2", 4))
            return 0;
        size_t n = get16(h + 28), x = get16(h + 30), cm = get16(h + 32);
        if (end - at - CDIR_LEN < (uint64_t)n + x + cm)
            return 0;
        if (i == idx)
            break;
        at += CDIR_LEN + n + x + cm;
    }
    size_t x = get16(h + 30);
    unsigned char more[NAMES_MAX];
    uint64_t usize = get32(h + 24), csize = get32(h + 20), lho = get32(h + 42);
    if (get16(h + 28) != nlen || nlen + x > NAMES_MAX || get16(h + 10) != ZIP_CM_STORE ||
        (get16(h + 8) & FLAG_ENCRYPT) || get32(h + 16) != st->crc ||
        read_at(fd, at + CDIR_LEN, more, nlen + x) < 0 || memcmp(more, name, nlen) != 0 ||
        zip64_fields(more + nlen, x, &usize, &csize, &lho) < 0 || usize != st->size ||
        csize != st->comp_size || lho >= cd.off)
        return 0;
    /* the local header: its own name and extra lengths place the data */
    unsigned char l[LOCAL_HEADER_LEN];
    if (cd.off - lho < LOCAL_HEADER_LEN || read_at(fd, lho, l, sizeof l) < 0 ||
        memcmp(l, "PK\3\4", 4) != 0 || get16(l + 8) != ZIP_CM_STORE ||
        (get16(l + 6) & FLAG_ENCRYPT) || get16(l + 26) != nlen)
        return 0;
    uint32_t lc = get32(l + 18), lu = get32(l + 22);
    if (!(get16(l + 6) & FLAG_DESCRIPT) &&
        ((lc != U32_MAX && lc != st->comp_size) || (lu != U32_MAX && lu != st->size) ||
         get32(l + 14) != st->crc))
        return 0;
    uint64_t data = lho + LOCAL_HEADER_LEN + nlen + get16(l + 28);
    if (read_at(fd, lho + LOCAL_HEADER_LEN, more, nlen) < 0 || memcmp(more, name, nlen) != 0 ||
        data > cd.off || st->size > cd.off - data)
        return 0;
    return data;
}

uint32_t exdb_container_text_pass(const char *p, size_t n, int crc_too, uint64_t *hash) {
    XXH3_state_t *hs = hash ? XXH3_createState() : NULL;
    if (hs)
        XXH3_64bits_reset(hs);
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < n; at += PASS_CHUNK) {
        size_t k = n - at < PASS_CHUNK ? n - at : PASS_CHUNK;
#ifdef MADV_POPULATE_READ
        madvise((void *)((uintptr_t)(p + at) & ~(uintptr_t)4095), k + 4096, MADV_POPULATE_READ);
#endif
        if (crc_too)
            crc = crc32(crc, (const Bytef *)p + at, (uInt)k);
        if (hs)
            XXH3_64bits_update(hs, p + at, k);
        exdb_filemap_drop(p, p + at, p + at + k);
    }
    if (hash)
        *hash = hs ? XXH3_64bits_digest(hs) : XXH3_64bits(p, n);
    XXH3_freeState(hs);
    return (uint32_t)crc;
}

int exdb_container_map_member(exdb_container *c, zip_uint64_t idx, size_t max, char **buf,
                              size_t *len, uint64_t *hash) {
    zip_stat_t st;
    const char *name = zip_get_name(c->za, idx, ZIP_FL_ENC_RAW);
    zip_uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC;
    zip_stat_init(&st);
    if (!name || zip_stat_index(c->za, idx, 0, &st) != 0 || (st.valid & need) != need ||
        st.comp_method != ZIP_CM_STORE || st.size != st.comp_size || st.size == 0 ||
        st.size > max ||
        ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE))
        return 1;
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    struct stat fs;
    if (fd < 0)
        return 1;
    uint64_t off = fstat(fd, &fs) == 0 ? data_offset(fd, (uint64_t)fs.st_size, idx, name, &st) : 0;
    const char *p;
    int rc = off ? exdb_filemap_map_at(fd, off, (size_t)st.size, &p) : -1;
    close(fd);
    if (rc != 0)
        return 1;
    uint64_t h;
    if (exdb_container_text_pass(p, (size_t)st.size, 1, hash ? &h : NULL) != st.crc) {
        exdb_mem_release((void *)p); /* the read reports libzip's CRC error */
        return 1;
    }
    if (hash)
        *hash = h;
    *buf = (char *)p; /* never written: the reader leaves texts as they are */
    *len = (size_t)st.size;
    return 0;
}
