/* container_save.c - see container_save.h: a copy of a container with the
 * program replaced, every other member copied byte for byte
 * (docs/pt2-format.md section 1), and the description of what such a copy
 * takes from the archive. */
#include "core/format/container_save.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "core/base/outfile.h"
#include "core/base/strbuf.h"
#include "core/format/container_impl.h"

/* A libzip source that streams one member of the open archive, uncompressed,
 * into the archive being written. Unlike zip_source_zip, whose treatment of
 * compressed members changed across libzip versions, it always yields the
 * plain bytes, and it holds the data to its declared size the way
 * read_member does. */
typedef struct copy_src {
    exdb_container *c;
    zip_uint64_t index;
    const char *shown; /* member name for messages */
    zip_uint64_t size, got;
    time_t mtime;
    int has_mtime;
    zip_file_t *zf;
    zip_error_t error;
    exdb_error *err;
} copy_src;

/* Records why a copy failed (the first reason wins) and tells libzip. */
static zip_int64_t copy_fail(copy_src *s, int code, const char *why) {
    exdb_errorf(s->err, "%s: %s: cannot copy member: %s", s->c->path, s->shown, why);
    zip_error_set(&s->error, code, 0);
    return -1;
}

static zip_int64_t copy_src_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd) {
    copy_src *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        s->zf = zip_fopen_index(s->c->za, s->index, 0);
        if (!s->zf)
            return copy_fail(s, ZIP_ER_READ, zip_strerror(s->c->za));
        s->got = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        if (s->got == s->size) {
            char extra;
            zip_int64_t n = zip_fread(s->zf, &extra, 1);
            if (n > 0)
                return copy_fail(s, ZIP_ER_INCONS, "member data is longer than its declared size");
            if (n < 0)
                return copy_fail(s, ZIP_ER_READ, zip_file_strerror(s->zf));
            return 0;
        }
        zip_uint64_t want = s->size - s->got < len ? s->size - s->got : len;
        zip_int64_t n = zip_fread(s->zf, data, want);
        if (n < 0)
            return copy_fail(s, ZIP_ER_READ, zip_file_strerror(s->zf));
        if (n == 0)
            return copy_fail(s, ZIP_ER_INCONS, "member data is shorter than its declared size");
        s->got += (zip_uint64_t)n;
        return n;
    }
    case ZIP_SOURCE_CLOSE:
        if (s->zf)
            zip_fclose(s->zf);
        s->zf = NULL;
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        if (len < sizeof *st) {
            zip_error_set(&s->error, ZIP_ER_INVAL, 0);
            return -1;
        }
        zip_stat_init(st);
        st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_METHOD;
        st->size = s->size;
        st->comp_method = ZIP_CM_STORE;
        if (s->has_mtime) {
            st->valid |= ZIP_STAT_MTIME;
            st->mtime = s->mtime;
        }
        return (zip_int64_t)sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&s->error, data, len);
    case ZIP_SOURCE_FREE:
        if (s->zf)
            zip_fclose(s->zf);
        zip_error_fini(&s->error);
        free(s);
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              -1);
    default:
        zip_error_set(&s->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* Adds one entry to dst and returns its index, or -1 with err set. */
static zip_int64_t add_entry(exdb_container *c, zip_t *dst, zip_uint64_t i, const char *name,
                             const zip_stat_t *st, const char *json, size_t len,
                             const char *out_path, exdb_error *err) {
    zip_source_t *src;
    if (json) {
        src = zip_source_buffer(dst, json, len, 0);
    } else {
        copy_src *s = calloc(1, sizeof *s);
        if (!s)
            return exdb_errorf(err, "%s: out of memory", out_path);
        s->c = c;
        s->index = i;
        s->shown = exdb_container_member_display(c, name);
        s->size = st->size;
        s->has_mtime = (st->valid & ZIP_STAT_MTIME) != 0;
        s->mtime = st->mtime;
        s->err = err;
        zip_error_init(&s->error);
        src = zip_source_function(dst, copy_src_cb, s);
        if (!src) {
            zip_error_fini(&s->error);
            free(s);
        }
    }
    if (!src)
        return exdb_errorf(err, "%s: %s: %s", out_path, exdb_container_member_display(c, name),
                           zip_strerror(dst));
    zip_int64_t idx = zip_file_add(dst, name, src, ZIP_FL_ENC_GUESS);
    if (idx < 0) {
        zip_source_free(src);
        return exdb_errorf(err, "%s: %s: %s", out_path, exdb_container_member_display(c, name),
                           zip_strerror(dst));
    }
    return idx;
}

/* Writes the copy of a zip container to tmp with libzip.
 *
 * PyTorch's writer starts every member's data on a 64-byte boundary by
 * padding the local header with an extra field 'F','B' (u16 length, then
 * 'Z' bytes; inline_container.cc getPadding), so that weights can be
 * mmapped. libzip does not align, but for entries it writes itself (fresh
 * sources, stored, known size) the layout is fixed: each local header is 30
 * bytes + name + its local extra fields (+ a 20-byte ZIP64 field when the
 * size reaches 4 GiB), followed directly by the data, starting at offset 0.
 * So the offsets are predicted here and the FB field sized to land each
 * data start on the boundary. The central directory carries no FB field,
 * like PyTorch's. Legacy zips (Python's zipfile) were never aligned and get
 * no padding. */
static int write_zip(exdb_container *c, const cont_model *m, const char *json, size_t len,
                     const char *tmp, const char *out_path, exdb_error *err) {
    static const char zpad[PT2_ALIGN + 1] =
        "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ";
    int code = 0;
    char why[256];
    zip_t *dst = zip_open(tmp, ZIP_TRUNCATE, &code);
    if (!dst) {
        exdb_container_zip_code_text(code, why, sizeof why);
        return exdb_errorf(err, "%s: cannot write zip archive: %s", out_path, why);
    }

    zip_int64_t n = zip_get_num_entries(c->za, 0);
    zip_uint64_t off = 0; /* where the next local header will start */
    for (zip_int64_t i = 0; i < n; i++) {
        zip_uint64_t ui = (zip_uint64_t)i;
        const char *name = zip_get_name(c->za, ui, ZIP_FL_ENC_RAW);
        zip_stat_t st;
        zip_stat_init(&st);
        if (!name || zip_stat_index(c->za, ui, 0, &st) != 0) {
            exdb_errorf(err, "%s: member %jd: %s", c->path, (intmax_t)i, zip_strerror(c->za));
            goto fail;
        }
        if (!(st.valid & ZIP_STAT_SIZE)) {
            exdb_errorf(err, "%s: %s: member has no declared size", c->path,
                        exdb_container_member_display(c, name));
            goto fail;
        }
        int is_prog = ui == m->index;
        zip_uint64_t size = is_prog ? (zip_uint64_t)len : st.size;
        zip_int64_t idx =
            add_entry(c, dst, ui, name, &st, is_prog ? json : NULL, len, out_path, err);
        if (idx < 0)
            goto fail;
        zip_uint64_t di = (zip_uint64_t)idx;
        zip_uint8_t opsys;
        zip_uint32_t attr;
        if (zip_set_file_compression(dst, di, ZIP_CM_STORE, 0) != 0 ||
            ((st.valid & ZIP_STAT_MTIME) && zip_file_set_mtime(dst, di, st.mtime, 0) != 0) ||
            (zip_file_get_external_attributes(c->za, ui, 0, &opsys, &attr) == 0 &&
             zip_file_set_external_attributes(dst, di, 0, opsys, attr) != 0)) {
            exdb_errorf(err, "%s: %s: %s", out_path, exdb_container_member_display(c, name),
                        zip_strerror(dst));
            goto fail;
        }
        zip_uint64_t header = LOCAL_HEADER_LEN + strlen(name);
        if (size >= 0xffffffffu)
            header += ZIP64_LOCAL_LEN;
        if (c->kind == EXDB_CONT_PT2) {
            zip_uint16_t pad =
                (zip_uint16_t)((PT2_ALIGN - (off + header + 4) % PT2_ALIGN) % PT2_ALIGN);
            if (zip_file_extra_field_set(dst, di, FB_EXTRA_ID, ZIP_EXTRA_FIELD_NEW,
                                         (const zip_uint8_t *)zpad, pad, ZIP_FL_LOCAL) != 0) {
                exdb_errorf(err, "%s: %s: %s", out_path, exdb_container_member_display(c, name),
                            zip_strerror(dst));
                goto fail;
            }
            header += 4 + pad;
        }
        off += header + size;
    }

    int clen = 0;
    const char *comment = zip_get_archive_comment(c->za, &clen, ZIP_FL_ENC_RAW);
    if (comment && clen > 0 && zip_set_archive_comment(dst, comment, (zip_uint16_t)clen) != 0) {
        exdb_errorf(err, "%s: %s", out_path, zip_strerror(dst));
        goto fail;
    }
    if (zip_close(dst) != 0) {
        /* A failing copy source has already recorded the precise reason. */
        exdb_errorf(err, "%s: cannot write zip archive: %s", out_path, zip_strerror(dst));
        goto fail;
    }
    return 0;

fail:
    zip_discard(dst);
    return -1;
}

int exdb_container_save(exdb_container *c, const char *model, const char *json, size_t len,
                        const char *out_path, int force, exdb_error *err) {
    const cont_model *m = exdb_container_resolve_model(c, model, err);
    if (!m)
        return -1;
    if (len > EXDB_MAX_PROGRAM_BYTES)
        return exdb_errorf(err, "%s: program of %zu bytes exceeds the %zu-byte limit", out_path,
                           len, EXDB_MAX_PROGRAM_BYTES);
    /* outfile.c: only an absent or regular target, a temporary beside it
     * that a terminating signal removes, installed atomically */
    if (exdb_out_check(out_path, force, err) < 0)
        return -1;
    char *tmp;
    int fd;
    if (exdb_out_temp(out_path, 0, &tmp, &fd, err) < 0)
        return -1;

    if (c->kind == EXDB_CONT_JSON) {
        if (exdb_out_write_all(fd, json, len) != 0) {
            exdb_errorf(err, "%s: %s", out_path, strerror(errno));
            goto fail;
        }
    } else {
        /* libzip writes its own temporary file and renames it over tmp. */
        close(fd);
        fd = -1;
        if (write_zip(c, m, json, len, tmp, out_path, err) != 0)
            goto fail;
        fd = open(tmp, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            exdb_errorf(err, "%s: %s", out_path, strerror(errno));
            goto fail;
        }
    }
    if (fchmod(fd, c->mode) != 0 || fsync(fd) != 0) {
        exdb_errorf(err, "%s: %s", out_path, strerror(errno));
        goto fail;
    }
    int rc = close(fd);
    fd = -1;
    if (rc != 0) {
        exdb_errorf(err, "%s: %s", out_path, strerror(errno));
        goto fail;
    }
    if (exdb_out_install(tmp, out_path, force, err) != 0)
        goto fail;
    exdb_out_forget(tmp);
    return 0;

fail:
    if (fd >= 0)
        close(fd);
    exdb_out_discard(tmp);
    return -1;
}

/* For snapshot.c. */
int exdb_container_describe(exdb_container *c, exdb_buf *b, exdb_error *err) {
    if (c->kind == EXDB_CONT_JSON)
        return 0;
    zip_int64_t n = zip_get_num_entries(c->za, 0);
    for (zip_int64_t i = 0; i < n; i++) {
        zip_uint64_t ui = (zip_uint64_t)i;
        const char *name = zip_get_name(c->za, ui, ZIP_FL_ENC_RAW);
        zip_stat_t st;
        zip_stat_init(&st);
        zip_uint8_t opsys = 0;
        zip_uint32_t attr = 0;
        if (!name || zip_stat_index(c->za, ui, 0, &st) != 0)
            return exdb_errorf(err, "%s: member %jd: %s", c->path, (intmax_t)i,
                               zip_strerror(c->za));
        zip_file_get_external_attributes(c->za, ui, 0, &opsys, &attr);
        exdb_buf_printf(b, "%s%c%llu %lx %lld %u %lx\n", name, 0, (unsigned long long)st.size,
                        (unsigned long)st.crc, (long long)st.mtime, (unsigned)opsys,
                        (unsigned long)attr);
    }
    int clen = 0;
    const char *comment = zip_get_archive_comment(c->za, &clen, ZIP_FL_ENC_RAW);
    if (comment && clen > 0)
        exdb_buf_put(b, comment, (size_t)clen);
    return b->oom ? exdb_errorf(err, "%s: out of memory", c->path) : 0;
}
