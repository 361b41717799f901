/* container.c - locate the ExportedProgram JSON inside a .pt2 archive, a
 * legacy export zip or a bare JSON file and read it (docs/pt2-format.md
 * section 1); container_save.c writes copies of the container with the
 * program replaced.
 *
 * Everything read from the file is treated as hostile: declared sizes are
 * checked before allocating, member data must be exactly as long as
 * declared, and member names are only ever compared, never used as paths. */
#include "core/format/container.h"
#include "core/format/container_impl.h"
#include "core/base/mem.h"

#include "core/base/arena.h"
#include "core/base/filemap.h"
#include "core/base/strmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(__x86_64__) || defined(__i386__)
/* XXH3 on the widest vector unit the processor has (AVX2, AVX-512), chosen
 * at run time by libxxhash's x86 build; the plain calls run its SSE2 code.
 * The value is the same either way (XXH3 is defined by its output). */
#include <xxh_x86dispatch.h>
#endif
#include <zip.h>

/* ---- small helpers ------------------------------------------------------ */

static int is_json_space(int ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* libzip's text for an error code from zip_open. */
void exdb_container_zip_code_text(int code, char *out, size_t n) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    snprintf(out, n, "%s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
}

/* Copies untrusted member text into out for an error message: printable
 * ASCII as is, everything else as \xNN, cut with "..." when too long. */
static void quote_text(char *out, size_t n, const char *s, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        char tmp[8];
        int k = (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
                    ? snprintf(tmp, sizeof tmp, "%c", ch)
                    : snprintf(tmp, sizeof tmp, "\\x%02x", ch);
        if (o + (size_t)k + 4 >= n) {
            snprintf(out + o, n - o, "...");
            return;
        }
        memcpy(out + o, tmp, (size_t)k);
        o += (size_t)k;
    }
    out[o] = '\0';
}

/* Drops trailing whitespace: "pt2\n" and "8.6\n" are what writers produce. */
static size_t trim_right(const char *s, size_t len) {
    while (len > 0 && (is_json_space((unsigned char)s[len - 1]) || s[len - 1] == '\0'))
        len--;
    return len;
}

/* The name shown for a member in messages: relative to the archive folder,
 * the way docs/pt2-format.md and PyTorch name them. */
const char *exdb_container_member_display(const exdb_container *c, const char *name) {
    size_t n = strlen(c->base);
    return (n && strncmp(name, c->base, n) == 0) ? name + n : name;
}

/* "a, b, c" into out, cut with "..." when the list is long. */
static void join_model_names(const exdb_container *c, char *out, size_t n) {
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < c->nmodels; i++) {
        int k = snprintf(out + o, n - o, "%s%s", i ? ", " : "", c->models[i].name);
        if (k < 0 || (size_t)k >= n - o || n - o - (size_t)k < 8) {
            snprintf(out + o, n - o, "%s...", i ? ", " : "");
            return;
        }
        o += (size_t)k;
    }
}

/* ---- reading ------------------------------------------------------------ */

/* Reads the size bytes of member zf (shown in messages) into *pp, a
 * buffer of cap + 1 bytes grown as the data arrives, and checks that the
 * member ends there. On error (-1, err set) *pp is still the caller's to
 * free. */
static int read_exact(const exdb_container *c, zip_file_t *zf, const char *shown, size_t size,
                      char **pp, size_t cap, exdb_error *err) {
    char *p = *pp;
    size_t got = 0, populated = 0;
    while (got < size) {
        if (got == cap) {
            size_t ncap = cap > size / 2 ? size : cap * 2;
            char *np = realloc(p, ncap + 1);
            if (!np) {
                exdb_errorf(err, "%s: %s: out of memory reading %zu bytes", c->path, shown, size);
                return -1;
            }
            p = *pp = np;
            cap = ncap;
        }
        if (cap > populated) {
            /* fresh room: populate it in bulk rather than fault per page */
            exdb_mem_hugepage(p, cap + 1);
            exdb_mem_populate(p + got, cap - got);
            populated = cap;
        }
        zip_int64_t n = zip_fread(zf, p + got, cap - got);
        if (n < 0) {
            exdb_errorf(err, "%s: %s: cannot read member: %s", c->path, shown,
                        zip_file_strerror(zf));
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (got < size) {
        exdb_errorf(err, "%s: %s: member data is shorter than its declared size (%zu of %zu bytes)",
                    c->path, shown, got, size);
        return -1;
    }
    /* One more byte must hit the end: this also makes libzip check the CRC. */
    char extra;
    zip_int64_t n = zip_fread(zf, &extra, 1);
    if (n > 0) {
        exdb_errorf(err, "%s: %s: member data is longer than its declared size of %zu bytes",
                    c->path, shown, size);
        return -1;
    }
    if (n < 0) {
        exdb_errorf(err, "%s: %s: cannot read member: %s", c->path, shown, zip_file_strerror(zf));
        return -1;
    }
    return 0;
}

/* Reads member idx into a malloc'd NUL-terminated buffer. The declared size
 * is checked against max before anything is allocated, and the data must be
 * exactly that long: a lying header cannot make us allocate or read more.
 * `what` names the limit in the message ("a program"). */
static int read_member(exdb_container *c, zip_uint64_t idx, size_t max, const char *what,
                       char **buf, size_t *len, exdb_error *err) {
    zip_stat_t st;
    const char *name = zip_get_name(c->za, idx, ZIP_FL_ENC_RAW);
    const char *shown = name ? exdb_container_member_display(c, name) : "?";

    zip_stat_init(&st);
    if (zip_stat_index(c->za, idx, 0, &st) != 0)
        return exdb_errorf(err, "%s: %s: cannot read member: %s", c->path, shown,
                           zip_strerror(c->za));
    if (!(st.valid & ZIP_STAT_SIZE))
        return exdb_errorf(err, "%s: %s: member has no declared size", c->path, shown);
    if (st.size > max)
        return exdb_errorf(err,
                           "%s: %s: declared size %llu bytes exceeds the %zu-byte limit for %s",
                           c->path, shown, (unsigned long long)st.size, max, what);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        return exdb_errorf(err, "%s: %s: member is encrypted", c->path, shown);
    /* a zip bomb: a 1 MB member inflating to 1 GiB cost 2.1 GB and 15 s */
    if ((st.valid & ZIP_STAT_COMP_SIZE) && (st.valid & ZIP_STAT_COMP_METHOD) &&
        st.comp_method != ZIP_CM_STORE && st.size > EXDB_INFLATE_RATIO_FLOOR &&
        st.size / (st.comp_size ? st.comp_size : 1) >= EXDB_MAX_INFLATE_RATIO)
        return exdb_errorf(err,
                           "%s: %s: declared to inflate from %llu to %llu bytes (%llu:1), over "
                           "the %d:1 limit for a compressed member (a zip bomb?)",
                           c->path, shown, (unsigned long long)st.comp_size,
                           (unsigned long long)st.size,
                           (unsigned long long)(st.size / (st.comp_size ? st.comp_size : 1)),
                           EXDB_MAX_INFLATE_RATIO);

    /* The buffer grows with the data actually read, up to the declared size,
     * instead of being allocated at the declared size up front: a 249-byte
     * archive can declare a 1.75 GiB member (under the program limit) and
     * hold none of it (fuzz_container; tests/fuzz/regressions/container/
     * declared_size_1750mb.pt2). Memory now follows the bytes the file
     * really yields, at most twice over. */
    size_t size = (size_t)st.size;
    size_t cap = size < READ_STEP ? size : READ_STEP;
    char *p = malloc(cap + 1);
    if (!p)
        return exdb_errorf(err, "%s: %s: out of memory reading %zu bytes", c->path, shown, size);
    zip_file_t *zf = zip_fopen_index(c->za, idx, 0);
    if (!zf) {
        free(p);
        return exdb_errorf(err, "%s: %s: cannot read member: %s", c->path, shown,
                           zip_strerror(c->za));
    }
    if (read_exact(c, zf, shown, size, &p, cap, err) < 0) {
        zip_fclose(zf);
        free(p);
        return -1;
    }
    zip_fclose(zf);
    p[size] = '\0';
    *buf = p;
    *len = size;
    return 0;
}

/* Looks rel up under the archive folder first, then at the root: PyTorch
 * only looks under the folder, but zips made by hand often have none.
 * Sets *base to the prefix it was found under. 0 when found, 1 when not,
 * -1 (err set) when memory ran out: not finding is then no answer. */
static int find_member(exdb_container *c, const char *rel, const char **base, zip_uint64_t *idx,
                       exdb_error *err) {
    if (c->folder[0]) {
        char *full = exdb_arena_printf(&c->arena, "%s/%s", c->folder, rel);
        if (!full)
            return exdb_errorf(err, "%s: out of memory", c->path);
        zip_int64_t i = zip_name_locate(c->za, full, ZIP_FL_ENC_RAW);
        if (i >= 0) {
            *base = exdb_arena_printf(&c->arena, "%s/", c->folder);
            *idx = (zip_uint64_t)i;
            return *base ? 0 : exdb_errorf(err, "%s: out of memory", c->path);
        }
    }
    zip_int64_t i = zip_name_locate(c->za, rel, ZIP_FL_ENC_RAW);
    if (i < 0)
        return 1;
    *base = "";
    *idx = (zip_uint64_t)i;
    return 0;
}

/* Reads a short text member (version strings) into the arena, trailing
 * whitespace removed and control bytes replaced by '?'. */
static int read_small_text(exdb_container *c, zip_uint64_t idx, const char **out, size_t *outlen,
                           exdb_error *err) {
    char *buf;
    size_t len;
    if (read_member(c, idx, SMALL_MEMBER_MAX, "this member", &buf, &len, err) != 0)
        return -1;
    len = trim_right(buf, len);
    char *s = exdb_arena_strndup(&c->arena, buf, len);
    free(buf);
    if (!s)
        return exdb_errorf(err, "%s: out of memory", c->path);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
            s[i] = '?';
    *out = s;
    if (outlen)
        *outlen = len;
    return 0;
}

/* A model name taken from models/<name>.json must be something a user can
 * type back: no path separators, not "." or "..", no control bytes. */
static int valid_model_name(const char *s, size_t n) {
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '/' || ch == '\\' || ch < 0x20 || ch == 0x7f)
            return 0;
    }
    return 1;
}

/* Refuses an archive in which two members share a name. libzip opens it
 * and its lookups find the first, but `save` cannot write such a copy
 * (libzip: "File already exists"), and which of the two PyTorch would read
 * is not exdb's to guess. One pass with a hash map (an archive may hold
 * 100k members). */
static int check_unique_names(exdb_container *c, exdb_error *err) {
    zip_int64_t n = zip_get_num_entries(c->za, 0);
    exdb_arena a;
    exdb_strmap seen;
    int rc = 0;
    exdb_arena_init(&a);
    exdb_strmap_init(&seen, &a);
    if (n > 0 && n < ((zip_int64_t)1 << 30) && exdb_strmap_reserve(&seen, (uint32_t)n) < 0)
        rc = exdb_errorf(err, "%s: out of memory", c->path);
    for (zip_int64_t i = 0; i < n && rc == 0; i++) {
        const char *name = zip_get_name(c->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        if (!name)
            continue;
        int fresh;
        void **slot = exdb_strmap_put(&seen, name, &fresh);
        if (!slot) {
            rc = exdb_errorf(err, "%s: out of memory", c->path);
        } else if (!fresh) {
            char q[300];
            quote_text(q, sizeof q, name, strlen(name));
            rc = exdb_errorf(err,
                             "%s: %s: two members have this name (entries %jd and %jd), expected "
                             "each member name once",
                             c->path, q, (intmax_t)((uintptr_t)*slot - 1), (intmax_t)i);
        } else {
            *slot = (void *)(uintptr_t)(i + 1);
        }
    }
    exdb_arena_destroy(&a);
    return rc;
}

/* Collects every models/<name>.json under c->base, in archive order.
 * Member names are unique (check_unique_names), so model names are too. */
static int list_models(exdb_container *c, exdb_error *err) {
    static const char pre[] = "models/", suf[] = ".json";
    size_t blen = strlen(c->base);
    zip_int64_t n = zip_get_num_entries(c->za, 0);
    if (n <= 0)
        return 0;
    c->models = exdb_arena_calloc(&c->arena, (size_t)n, sizeof *c->models);
    if (!c->models)
        return exdb_errorf(err, "%s: out of memory", c->path);
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(c->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        if (!name || strncmp(name, c->base, blen) != 0)
            continue;
        const char *rel = name + blen;
        size_t rlen = strlen(rel);
        if (rlen <= strlen(pre) + strlen(suf) || strncmp(rel, pre, strlen(pre)) != 0 ||
            strcmp(rel + rlen - strlen(suf), suf) != 0)
            continue;
        const char *mname = rel + strlen(pre);
        size_t mlen = rlen - strlen(pre) - strlen(suf);
        if (!valid_model_name(mname, mlen))
            continue;
        cont_model *m = &c->models[c->nmodels];
        m->name = exdb_arena_strndup(&c->arena, mname, mlen);
        m->member = exdb_arena_strdup(&c->arena, rel);
        m->index = (zip_uint64_t)i;
        if (!m->name || !m->member)
            return exdb_errorf(err, "%s: out of memory", c->path);
        c->nmodels++;
    }
    return 0;
}

/* Sets c->models to the single program of a bare JSON file or legacy zip. */
static int one_model(exdb_container *c, const char *member, zip_uint64_t index, exdb_error *err) {
    c->models = exdb_arena_calloc(&c->arena, 1, sizeof *c->models);
    if (!c->models)
        return exdb_errorf(err, "%s: out of memory", c->path);
    c->models[0].name = "model";
    c->models[0].member = member;
    c->models[0].index = index;
    c->nmodels = 1;
    return 0;
}

/* c->folder: the text before the first '/' of the first member ("" when
 * none). A leading '/', "." or ".." is not a folder we would ever trust. */
static int find_folder(exdb_container *c, exdb_error *err) {
    c->folder = "";
    c->base = "";
    const char *first =
        zip_get_num_entries(c->za, 0) > 0 ? zip_get_name(c->za, 0, ZIP_FL_ENC_RAW) : NULL;
    const char *slash = first ? strchr(first, '/') : NULL;
    if (slash && slash != first) {
        size_t n = (size_t)(slash - first);
        if (!(n == 1 && first[0] == '.') && !(n == 2 && first[0] == '.' && first[1] == '.')) {
            c->folder = exdb_arena_strndup(&c->arena, first, n);
            if (!c->folder)
                return exdb_errorf(err, "%s: out of memory", c->path);
        }
    }
    return 0;
}

/* A PT2 archive, its archive_format member at idx under base: checks the
 * format, reads archive_version and lists the models. */
static int open_pt2(exdb_container *c, const char *base, zip_uint64_t idx, exdb_error *err) {
    const char *fmt;
    size_t flen;
    c->kind = EXDB_CONT_PT2;
    c->base = base;
    if (read_small_text(c, idx, &fmt, &flen, err) != 0)
        return -1;
    if (strcmp(fmt, "pt2") != 0) {
        char q[64];
        quote_text(q, sizeof q, fmt, flen);
        return exdb_errorf(err, "%s: archive_format: expected \"pt2\", found \"%s\"", c->path, q);
    }
    int found = find_member(c, "archive_version", &base, &idx, err);
    if (found < 0)
        return -1;
    if (found == 0 && strcmp(base, c->base) == 0 &&
        read_small_text(c, idx, &c->version, NULL, err) != 0)
        return -1;
    if (list_models(c, err) != 0)
        return -1;
    if (c->nmodels == 0)
        return exdb_errorf(err, "%s: no program in archive (expected models/<name>.json)", c->path);
    return 0;
}

/* Opens the zip and classifies it (docs/pt2-format.md 1.1): archive_format means
 * a PT2 archive, serialized_exported_program.json a legacy export zip,
 * anything else is refused with the best guess of what it is. */
static int open_zip(exdb_container *c, exdb_error *err) {
    int code = 0;
    char why[256];
    c->za = zip_open(c->path, ZIP_RDONLY, &code);
    if (!c->za) {
        exdb_container_zip_code_text(code, why, sizeof why);
        if (code == ZIP_ER_NOZIP || code == ZIP_ER_INCONS)
            return exdb_errorf(err, "%s: truncated or corrupt zip archive: %s", c->path, why);
        /* the file was read already: libzip's "No such file" is its lookup
         * of a ZIP64 extra field that a 0xFFFFFFFF size or offset calls for */
        if (code == ZIP_ER_NOENT)
            return exdb_errorf(err,
                               "%s: corrupt zip archive: a member's size or offset is 0xFFFFFFFF "
                               "(\"see its ZIP64 extra field\") but it has no ZIP64 extra field",
                               c->path);
        return exdb_errorf(err, "%s: cannot open zip archive: %s", c->path, why);
    }
    if (check_unique_names(c, err) != 0 || find_folder(c, err) < 0)
        return -1;
    const char *base;
    zip_uint64_t idx;
    int found = find_member(c, "archive_format", &base, &idx, err);
    if (found < 0)
        return -1;
    if (found == 0)
        return open_pt2(c, base, idx, err);
    if ((found = find_member(c, "serialized_exported_program.json", &base, &idx, err)) < 0)
        return -1;
    if (found == 0) {
        zip_uint64_t vidx;
        c->kind = EXDB_CONT_LEGACY_ZIP;
        c->base = base;
        if ((found = find_member(c, "version", &base, &vidx, err)) < 0)
            return -1;
        if (found == 0 && strcmp(base, c->base) == 0 &&
            read_small_text(c, vidx, &c->version, NULL, err) != 0)
            return -1;
        return one_model(c, "serialized_exported_program.json", idx, err);
    }
    if ((found = find_member(c, "data.pkl", &base, &idx, err)) < 0)
        return -1;
    if (found == 0)
        return exdb_errorf(err,
                           "%s: data.pkl: this is a TorchScript (or torch.save) archive, not a "
                           "torch.export program",
                           c->path);
    return exdb_errorf(err,
                       "%s: zip archive holds no torch.export program (expected archive_format or "
                       "serialized_exported_program.json)",
                       c->path);
}

/* Decides zip or JSON from the first bytes of the file. A JSON program must
 * start with '{' after optional whitespace; anything else is refused here
 * rather than producing a confusing parse error later. Returns 1 for zip,
 * 0 for JSON, -1 on error. */
static int sniff(int fd, const char *path, off_t size, exdb_error *err) {
    unsigned char buf[4096];
    off_t off = 0;
    if (size == 0) {
        /* /proc and /sys files report size 0 and still have text: say what
         * they are rather than calling them empty. */
        ssize_t n;
        while ((n = pread(fd, buf, 1, 0)) < 0 && errno == EINTR)
            ;
        if (n > 0)
            return exdb_errorf(err,
                               "%s: the file reports a size of 0 but is not empty (a /proc or "
                               "/sys file?): copy it to a regular file and load that",
                               path);
        if (n < 0) /* /proc/self/mem: size 0, and reading offset 0 fails */
            return exdb_errorf(err, "%s: cannot read: %s", path, strerror(errno));
        return exdb_errorf(
            err, "%s: empty file: expected a .pt2/zip archive or JSON starting with '{'", path);
    }
    for (;;) {
        ssize_t n = pread(fd, buf, sizeof buf, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return exdb_errorf(err, "%s: %s", path, strerror(errno));
        if (n == 0)
            break;
        if (off == 0 && n >= 4 && buf[0] == 'P' && buf[1] == 'K' &&
            ((buf[2] == 3 && buf[3] == 4) || (buf[2] == 5 && buf[3] == 6)))
            return 1;
        for (ssize_t i = 0; i < n; i++) {
            if (is_json_space(buf[i]))
                continue;
            if (buf[i] == '{')
                return 0;
            goto not_program;
        }
        off += n;
    }
not_program:
    return exdb_errorf(err,
                       "%s: not a torch.export program: expected a .pt2/zip archive or JSON "
                       "starting with '{'",
                       path);
}

/* Why path is no program: a directory or not a regular file (-1). */
static int not_regular(const char *path, mode_t mode, exdb_error *err) {
    if (S_ISDIR(mode))
        return exdb_errorf(err, "%s: is a directory, expected a .pt2/zip archive or a JSON file",
                           path);
    return exdb_errorf(err, "%s: not a regular file, expected a .pt2/zip archive or a JSON file",
                       path);
}

int exdb_container_open(const char *path, exdb_container **out, exdb_error *err) {
    struct stat st;
    *out = NULL;
    /* opened first, then its type, size and identity from the descriptor
     * read: a file put at the path between a stat and the open is never
     * read under the other's identity (the reopen cache's key), and a FIFO
     * put there opens without waiting for a writer (O_NONBLOCK, which a
     * regular file's reads ignore) and is refused */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        int e = errno; /* a socket: ENXIO, said by its type as before */
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return not_regular(path, st.st_mode, err);
        return exdb_errorf(err, "%s: %s", path, strerror(e));
    }
    int e = fstat(fd, &st) != 0 ? errno : 0;
    if (e || !S_ISREG(st.st_mode)) {
        close(fd);
        return e ? exdb_errorf(err, "%s: %s", path, strerror(e))
                 : not_regular(path, st.st_mode, err);
    }
    int is_zip = sniff(fd, path, st.st_size, err);
    if (is_zip != 0)
        close(fd); /* libzip opens the archive itself */
    if (is_zip < 0)
        return -1;
    if (!is_zip && (uintmax_t)st.st_size > EXDB_MAX_PROGRAM_BYTES) {
        close(fd);
        return exdb_errorf(err, "%s: file size %jd bytes exceeds the %zu-byte limit for a program",
                           path, (intmax_t)st.st_size, EXDB_MAX_PROGRAM_BYTES);
    }

    exdb_container *c = calloc(1, sizeof *c);
    if (!c) {
        if (!is_zip)
            close(fd);
        return exdb_errorf(err, "%s: out of memory", path);
    }
    if (!is_zip)
        c->json_fd1 = fd + 1; /* the program's read takes it (read_json_file) */
    exdb_arena_init(&c->arena);
    c->dev = (uint64_t)st.st_dev;
    c->ino = (uint64_t)st.st_ino;
    c->mode = st.st_mode & 0777;
    c->folder = "";
    c->base = "";
    c->path = exdb_arena_strdup(&c->arena, path);
    if (!c->path) {
        exdb_container_close(c);
        return exdb_errorf(err, "%s: out of memory", path);
    }
    int rc;
    if (is_zip) {
        rc = open_zip(c, err);
    } else {
        c->kind = EXDB_CONT_JSON;
        rc = one_model(c, c->path, 0, err);
    }
    if (rc != 0) {
        exdb_container_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

exdb_container_kind exdb_container_kind_of(const exdb_container *c) {
    return c->kind;
}

const char *exdb_container_kind_name(exdb_container_kind kind) {
    switch (kind) {
    case EXDB_CONT_JSON:
        return "json";
    case EXDB_CONT_PT2:
        return "pt2";
    case EXDB_CONT_LEGACY_ZIP:
        return "zip";
    }
    return "?";
}

const char *exdb_container_path(const exdb_container *c) {
    return c->path;
}

void exdb_container_identity(const exdb_container *c, uint64_t *dev, uint64_t *ino) {
    *dev = c->dev;
    *ino = c->ino;
}

size_t exdb_container_model_count(const exdb_container *c) {
    return c->nmodels;
}

const char *exdb_container_model_name(const exdb_container *c, size_t i) {
    return i < c->nmodels ? c->models[i].name : NULL;
}

const char *exdb_container_version(const exdb_container *c) {
    return c->version;
}

const char *exdb_container_archive_name(const exdb_container *c) {
    return c->folder;
}

/* Picks the model a read or save is about; with several models the caller
 * must name one, and the message lists them so the user can. */
const cont_model *exdb_container_resolve_model(const exdb_container *c, const char *model,
                                               exdb_error *err) {
    char names[600];
    if (!model) {
        if (c->nmodels == 1)
            return &c->models[0];
        join_model_names(c, names, sizeof names);
        exdb_errorf(err, "%s: archive holds %zu models (%s): name the one to use", c->path,
                    c->nmodels, names);
        return NULL;
    }
    for (size_t i = 0; i < c->nmodels; i++)
        if (strcmp(c->models[i].name, model) == 0)
            return &c->models[i];
    join_model_names(c, names, sizeof names);
    exdb_errorf(err, "%s: no model named \"%s\" (models: %s)", c->path, model, names);
    return NULL;
}

const char *exdb_container_program_member(const exdb_container *c, const char *model) {
    exdb_error e = {0};
    const cont_model *m = exdb_container_resolve_model(c, model, &e);
    return m ? m->member : NULL;
}

/* Bytes a read() of a bare JSON file asks for: the hash of what it read
 * is taken while the bytes are still in the cache. */
#define READ_CHUNK ((size_t)2 << 20)

/* Reads a bare JSON file whole, and its XXH3 into *hash (when not NULL).
 * The text is a read-only mapping of the file (filemap.h) when the system
 * gives one, else it is read into a buffer (later: a mapped text's hash is
 * taken as its pages are given back, exdb_filemap_hash_start; *hash 0).
 * The size is checked again (the file may have changed since open) and the
 * read stops at that size. */
static int read_json_file(exdb_container *c, char **buf, size_t *len, uint64_t *hash, int later,
                          exdb_error *err) {
    struct stat st;
    /* the descriptor the container was sniffed through, the first time */
    int fd = c->json_fd1 ? c->json_fd1 - 1 : open(c->path, O_RDONLY | O_CLOEXEC);
    c->json_fd1 = 0;
    if (fd < 0)
        return exdb_errorf(err, "%s: %s", c->path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        exdb_errorf(err, "%s: %s", c->path, strerror(errno));
        close(fd);
        return -1;
    }
    if ((uintmax_t)st.st_size > EXDB_MAX_PROGRAM_BYTES) {
        close(fd);
        return exdb_errorf(err, "%s: file size %jd bytes exceeds the %zu-byte limit for a program",
                           c->path, (intmax_t)st.st_size, EXDB_MAX_PROGRAM_BYTES);
    }
    size_t size = (size_t)st.st_size, got = 0;
    const char *mapped;
    if (size > 0 && exdb_filemap_map_taking(fd, &st, size, &mapped) == 0) {
        if (hash && later) {
            exdb_filemap_hash_start(mapped);
            *hash = 0;
        } else if (hash) {
            exdb_container_text_pass(mapped, size, 0, hash);
        }
        *buf = (char *)mapped; /* never written: the reader leaves texts as they are */
        *len = size;
        return 0;
    }
    char *p = exdb_mem_take(size + 1); /* reloads reuse it (arena.h) */
    if (!p) {
        close(fd);
        return exdb_errorf(err, "%s: out of memory reading %zu bytes", c->path, size);
    }
    /* read() into fresh pages faults once per page; populate them first. */
    exdb_mem_hugepage(p, size + 1);
    exdb_mem_populate(p, size + 1);
    XXH3_state_t *hs = hash ? XXH3_createState() : NULL;
    if (hs)
        XXH3_64bits_reset(hs);
    while (got < size) {
        ssize_t n = read(fd, p + got, size - got < READ_CHUNK ? size - got : READ_CHUNK);
        if (n > 0 && hs)
            XXH3_64bits_update(hs, p + got, (size_t)n);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            exdb_errorf(err, "%s: %s", c->path, strerror(errno));
            break;
        }
        if (n == 0) {
            exdb_errorf(err, "%s: file shrank while being read (%zu of %zu bytes)", c->path, got,
                        size);
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    if (hash)
        *hash = hs ? XXH3_64bits_digest(hs) : XXH3_64bits(p, got);
    XXH3_freeState(hs);
    if (got < size) {
        exdb_mem_release(p);
        return -1;
    }
    p[size] = '\0';
    *buf = p;
    *len = size;
    return 0;
}

int exdb_container_read_program(exdb_container *c, const char *model, char **buf, size_t *len,
                                const char **member, exdb_error *err) {
    return exdb_container_read_program_hashed(c, model, buf, len, member, NULL, err);
}

static int read_program(exdb_container *c, const char *model, char **buf, size_t *len,
                        const char **member, uint64_t *hash, int later, exdb_error *err) {
    size_t n;
    *buf = NULL;
    const cont_model *m = exdb_container_resolve_model(c, model, err);
    if (!m)
        return -1;
    int rc;
    if (c->kind == EXDB_CONT_JSON)
        rc = read_json_file(c, buf, &n, hash, later, err);
    else if ((rc = exdb_container_map_member(c, m->index, EXDB_MAX_PROGRAM_BYTES, buf, &n, hash)) ==
                 1 &&
             (rc = read_member(c, m->index, EXDB_MAX_PROGRAM_BYTES, "a program", buf, &n, err)) ==
                 0 &&
             hash)
        *hash = XXH3_64bits(*buf, n);
    if (rc != 0)
        return -1;
    if (len)
        *len = n;
    if (member)
        *member = m->member;
    return 0;
}

int exdb_container_read_program_hashed(exdb_container *c, const char *model, char **buf,
                                       size_t *len, const char **member, uint64_t *hash,
                                       exdb_error *err) {
    return read_program(c, model, buf, len, member, hash, 0, err);
}

int exdb_container_read_program_to_load(exdb_container *c, const char *model, char **buf,
                                        size_t *len, const char **member, uint64_t *hash,
                                        exdb_error *err) {
    return read_program(c, model, buf, len, member, hash, 1, err);
}

int exdb_container_read_member(exdb_container *c, const char *rel, size_t max, char **buf,
                               size_t *len, exdb_error *err) {
    *buf = NULL;
    if (c->kind == EXDB_CONT_JSON)
        return 1;
    const char *base;
    zip_uint64_t idx;
    int found = find_member(c, rel, &base, &idx, err);
    if (found != 0)
        return found;
    size_t n;
    if (read_member(c, idx, max, "a member", buf, &n, err) != 0)
        return -1;
    if (len)
        *len = n;
    return 0;
}

void exdb_container_close(exdb_container *c) {
    if (!c)
        return;
    if (c->za)
        zip_discard(c->za);
    if (c->json_fd1)
        close(c->json_fd1 - 1);
    exdb_arena_destroy(&c->arena);
    free(c);
}
