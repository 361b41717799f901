/* cache_format.h - the layout of a reopen cache entry (cache.h;
 * docs/json-reader.md, "Reopen cache"): its head (cache.c) and the image's
 * records (cache_image.c), in one place for the code that writes and reads
 * them and for the tests that forge entries (tests/unit/test_cache.c,
 * tests/fuzz/fuzz_cache.c). Native byte order: another machine's entry
 * fails its magic or its hash. Internal to core/export and its tests. */
#ifndef EXDB_CORE_EXPORT_CACHE_FORMAT_H
#define EXDB_CORE_EXPORT_CACHE_FORMAT_H

#include <stdint.h>

/* The head of an entry; then path, model, member and the program text
 * (the file's, its lazy members emptied; or the slim text of an image),
 * each followed by a NUL, then the image (none when image_len is 0), then
 * the XXH3 of all before. */
typedef struct exdb_cache_head {
    char magic[8];
    uint32_t format, head_size;
    char version[32];
    uint64_t dev, ino, size, mtime_ns, ctime_ns, created_ns; /* the file's, the entry's */
    uint64_t text_len, text_hash, payload_len;
    uint32_t path_len, model_len, member_len, nserialized;
    uint32_t counts[8]; /* nodes, ops[6], getitems */
    uint64_t image_len;
    uint32_t image_inputs, image_outputs, image_calls, pad;
} exdb_cache_head;

/* The image's records (read with memcpy), then its strings. A string is
 * an offset into them, EXDB_CACHE_NONE for none. A spec with a value (a
 * constant input or output, a user input that is a constant) stays in the
 * slim text with its graph input or output: json is its index among the
 * slim text's specs (EXDB_CACHE_NONE: the record is the spec); likewise a
 * call graph entry with a signature among the slim text's entries. */
#define EXDB_CACHE_NONE UINT32_MAX
typedef struct exdb_cache_in_rec {
    uint8_t kind;
    int8_t persistent;
    uint8_t pad[2];
    uint32_t name, target, class_fqn, json;
} exdb_cache_in_rec;
typedef struct exdb_cache_out_rec {
    uint8_t kind;
    uint8_t pad[3];
    uint32_t name, target, json;
} exdb_cache_out_rec;
typedef struct exdb_cache_call_rec {
    uint32_t fqn, json;
} exdb_cache_call_rec;

#endif
