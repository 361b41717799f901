/* fuzz_container.c - the container layer (core/format/container.c and container_save.c over libzip,
 * and core/export/statefiles.c, core/export/snapshot.c): the input is written to a scratch file,
 * opened as a .pt2 archive, legacy export zip or bare JSON, and every reader is run: kind, names,
 * version, each model's program, a member, the state configs. When a program reads, the container
 * is also saved (the program replaced by itself) and the copy must read back with the same program
 * bytes.
 *
 * A custom mutator repairs the CRC-32 of stored members after each
 * mutation (local header and central directory), or nearly every mutated
 * archive would stop at libzip's CRC check and never reach the readers
 * behind it. Compressed members keep their CRCs: mutating them tests the
 * check itself. */
#include "core/base/arena.h"
#include "core/format/container.h"
#include "core/format/container_save.h"
#include "core/fx/lint.h"
#include "core/export/siglint.h"
#include "core/export/snapshot.h"
#include "core/export/statefiles.h"
#include "fuzz_common.h"

enum { MAX_MODELS = 8, MEMBER_MAX = 1 << 20 };

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static uint32_t rd16(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t rd32(const uint8_t *p) {
    return rd16(p) | rd16(p + 2) << 16;
}
static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Sets the CRC of every stored member whose data lies inside the input, in
 * its local header and in the central directory entry pointing at it (the
 * first 256 of each, so a mutation full of signatures stays cheap). */
static void fix_crcs(uint8_t *d, size_t n) {
    size_t cen[256], ncen = 0;
    for (size_t j = 0; j + 46 <= n && ncen < 256; j++)
        if (memcmp(d + j, "PK\1\2", 4) == 0)
            cen[ncen++] = j;
    int nloc = 0;
    for (size_t i = 0; i + 30 <= n && nloc < 256; i++) {
        if (memcmp(d + i, "PK\3\4", 4) != 0)
            continue;
        nloc++;
        if (rd16(d + i + 8) != 0)
            continue;
        size_t data = i + 30 + rd16(d + i + 26) + rd16(d + i + 28);
        size_t len = rd32(d + i + 18);
        if (data > n || len > n - data)
            continue;
        uint32_t crc = crc32_of(d + data, len);
        wr32(d + i + 14, crc);
        for (size_t k = 0; k < ncen; k++)
            if (rd32(d + cen[k] + 42) == (uint32_t)i)
                wr32(d + cen[k] + 16, crc);
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    size_t n = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 8 != 0) /* one mutation in eight keeps its broken CRCs */
        fix_crcs(data, n);
    return n;
}

/* The saved copy must be the same kind of container with the same program. */
static void check_copy(const char *out, exdb_container_kind kind, const char *model,
                       const char *json, size_t len) {
    exdb_container *c;
    exdb_error err = {0};
    if (exdb_container_open(out, &c, &err) < 0)
        __builtin_trap();
    char *buf = NULL;
    size_t n = 0;
    if (exdb_container_kind_of(c) != kind ||
        exdb_container_read_program(c, model, &buf, &n, NULL, &err) < 0 || n != len ||
        memcmp(buf, json, len) != 0)
        __builtin_trap();
    exdb_mem_release(buf);
    exdb_container_close(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    const char *p = fuzz_write_file("in.pt2", data, size);
    if (!p)
        return 0;
    char path[512], out[512];
    snprintf(path, sizeof path, "%s", p);
    snprintf(out, sizeof out, "%s/out.pt2", fuzz_dir());

    exdb_container *c;
    exdb_error err = {0};
    if (exdb_container_open(path, &c, &err) < 0) {
        fuzz_check_error(err.msg, err.set);
        return 0;
    }
    exdb_container_kind kind = exdb_container_kind_of(c);
    volatile size_t h = strlen(exdb_container_kind_name(kind));
    h += strlen(exdb_container_path(c));
    h += strlen(exdb_container_archive_name(c));
    if (exdb_container_version(c))
        h += strlen(exdb_container_version(c));
    (void)h;
    size_t nmodels = exdb_container_model_count(c);
    const char *first = NULL;
    for (size_t i = 0; i < nmodels && i < MAX_MODELS; i++) {
        const char *name = exdb_container_model_name(c, i);
        if (!name)
            __builtin_trap();
        if (!first)
            first = name;
        char *buf = NULL;
        size_t len = 0;
        const char *member = NULL;
        memset(&err, 0, sizeof err);
        if (exdb_container_read_program(c, name, &buf, &len, &member, &err) == 0) {
            if (!buf || buf[len] != '\0' || !member)
                __builtin_trap();
            if (i == 0) {
                memset(&err, 0, sizeof err);
                unlink(out);
                if (exdb_container_save(c, name, buf, len, out, 0, &err) == 0)
                    check_copy(out, kind, nmodels > 1 ? name : NULL, buf, len);
                else
                    fuzz_check_error(err.msg, err.set);
            }
        } else {
            fuzz_check_error(err.msg, err.set);
        }
        exdb_mem_release(buf);
    }
    if (exdb_container_model_name(c, nmodels))
        __builtin_trap();
    /* the only model, or the "name the one to use" error */
    char *buf = NULL;
    memset(&err, 0, sizeof err);
    if (exdb_container_read_program(c, NULL, &buf, NULL, NULL, &err) < 0)
        fuzz_check_error(err.msg, err.set);
    exdb_mem_release(buf);
    buf = NULL;
    memset(&err, 0, sizeof err);
    if (exdb_container_read_program(c, "no such model", &buf, NULL, NULL, &err) == 0)
        __builtin_trap();
    exdb_mem_release(buf);
    buf = NULL;
    size_t len;
    memset(&err, 0, sizeof err);
    if (exdb_container_read_member(c, "data/weights/model_weights_config.json", MEMBER_MAX, &buf,
                                   &len, &err) < 0)
        fuzz_check_error(err.msg, err.set);
    free(buf);
    /* the payload configs as the loader's snapshot reads them, and the
     * state lint takes from them */
    char rel[600];
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_snap_member w = {0}, k = {0};
    int pt2 = exdb_container_kind_of(c) == EXDB_CONT_PT2;
    memset(&err, 0, sizeof err);
    snprintf(rel, sizeof rel, "data/weights/%s_weights_config.json", first ? first : "model");
    if (pt2 && exdb_snapshot_read_member(c, rel, &a, &w, &err) < 0)
        fuzz_check_error(err.msg, err.set);
    snprintf(rel, sizeof rel, "data/constants/%s_constants_config.json", first ? first : "model");
    if (pt2 && exdb_snapshot_read_member(c, rel, &a, &k, &err) < 0)
        fuzz_check_error(err.msg, err.set);
    exdb_container_close(c);
    exdb_lint_state st;
    memset(&err, 0, sizeof err);
    if (exdb_state_from_configs(&w, &k, &a, &st, &err) < 0)
        fuzz_check_error(err.msg, err.set);
    exdb_arena_destroy(&a);
    return 0;
}
