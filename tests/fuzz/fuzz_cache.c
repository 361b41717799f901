/* fuzz_cache.c - the reopen cache's entries (core/export/cache.c's
 * read_entry and head_ok, cache_image.c's install, program_cache.c's open
 * from an entry and the build's checks; docs/json-reader.md "Reopen
 * cache"): the input is an entry's bytes for one of a few small programs
 * (copied once into a private folder), put where the cache looks for that
 * program's entry. The program is opened through the cache, its `info
 * program`, signature and call graph printed from the shape, and built. An
 * entry is input exdb reads back, so whatever it holds:
 *   - the open succeeds (a wrong entry is dropped and the file read);
 *   - the build succeeds with the whole load's IR: `info program`, the
 *     signature, the call graph and the main graph print as the whole
 *     load's (exdb_program_load) do; a forged entry may change the prompt's
 *     counts before the build, never what the build makes;
 *   - or the build is refused with "FILE changed on disk since it was
 *     loaded; load it again" (the build found the entry lying), again on
 *     every later build, and the entry is gone.
 * A difference traps.
 *
 * The entry's machine-bound fields are the harness's, not the input's, so
 * that seeds and regression files work on any machine and in any folder:
 * the program's canonical path, its device, inode, size and times, the
 * entry's creation time and exdb's version are written into the head
 * (keeping the checksum right when the input's was right, wrong when it
 * was wrong). Which program: the one whose file name ends the input's
 * path, else one chosen by the input's size. The custom mutator mutates
 * the whole entry or one of its sections (the head, the strings, the slim
 * text, the image), mends the lengths the head gives and repairs the
 * XXH3 at its end, so that most mutations get past the checksum into the
 * records. tests/fuzz/seeds.sh makes the seeds: the entries exdb writes
 * for these programs.
 *
 * An input that starts with EXDBIR01 is an IR entry (cache_ir.h): it goes
 * beside the shape entry exdb wrote for the program, and the build is
 * made from its image when the checks pass. Then the graph may be another
 * than the file's (an image with a right checksum is trusted: docs/
 * json-reader.md), so it is not compared but read by every command
 * (print, tabular, code with its lazily read comments, lint, dce and
 * undo); a build from the file (the image refused) must still be the
 * whole load's. Its mutator keeps the image's size (its sections' offsets
 * are inside it) and mutates the head, the image's section table or a
 * window of the image. */
#define _GNU_SOURCE
#include <dirent.h>
#include <xxhash.h>

#include "core/base/strbuf.h"
#include "core/base/version.h"
#include "core/export/cache.h"
#include "core/export/cache_format.h"
#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/fx/codegen.h"
#include "core/fx/dce.h"
#include "core/fx/lint.h"
#include "core/fx/print.h"
#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
int LLVMFuzzerInitialize(int *argc, char ***argv);

typedef exdb_cache_head head; /* cache_format.h */

/* The programs: small fixtures with constants, a text entry (a key
 * repeated on the way to the specs), an archive. */
static const char *const fixture_names[] = {
    "const_output.json",       "const_inputs_multi_out.json",
    "repeated_key.json",       "sig_names_targets.json",
    "in_spec_flat_tuple.json", "tied_embeddings.json",
    "arg_kinds.json",          "kwargs.pt2"};
enum { NFIX = sizeof fixture_names / sizeof *fixture_names };

typedef struct fixture {
    const char *name;
    char *path; /* the copy's canonical path (realpath) */
    uint64_t dev, ino, size, mtime_ns, ctime_ns;
    char entry[600]; /* where the cache looks for its entry */
    char ir[600];    /* and for its IR entry (cache_ir.h) */
    char *shape;     /* the shape entry exdb wrote for it (an IR input's) */
    size_t shape_len;
    char label[700]; /* what messages call it: the path, "PATH: MEMBER" for an archive */
    char *want;      /* the whole load's answers (answers()) */
    size_t want_len;
} fixture;

static fixture fix[NFIX];
static int nfix;
static char cache_dir[300];
static int verbose; /* FUZZ_CACHE_VERBOSE set: each input's fate on stderr */

static uint64_t ts_ns(struct timespec t) {
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* What the program answers once built: `info program`, the signature,
 * the call graph, the main graph. */
static void answers(exdb_buf *b, const exdb_program *p) {
    exdb_print_program_info(b, p);
    exdb_print_signature(b, p);
    exdb_print_call_graph(b, p);
    exdb_print_graph(b, p->graph);
}

static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[8192];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* The one entry in the cache folder into f->entry: 0, or -1. */
static int find_entry(fixture *f) {
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".shape") == 0) {
            snprintf(f->entry, sizeof f->entry, "%s/%s", cache_dir, e->d_name);
            n++;
        }
    }
    if (d)
        closedir(d);
    return n == 1 ? 0 : -1;
}

static char *fuzz_slurp(const char *path, size_t *n);

/* Fixture name copied into the private folder, its identity taken, its
 * entry's name found (an open through the cache writes it) and removed,
 * the whole load's answers kept: 0, or -1. */
static int fixture_setup(fixture *f, const char *name) {
    char from[512], to[512];
    snprintf(from, sizeof from, "tests/fixtures/%s", name);
    snprintf(to, sizeof to, "%s/%s", fuzz_dir(), name);
    struct stat st;
    if (copy_file(from, to) < 0 || !(f->path = realpath(to, NULL)) || stat(f->path, &st) != 0)
        return -1;
    f->name = name;
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    f->size = (uint64_t)st.st_size;
    f->mtime_ns = ts_ns(st.st_mtim);
    f->ctime_ns = ts_ns(st.st_ctim);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(f->path, NULL, &err);
    int built = p && exdb_program_build(p, &err) == 0; /* the IR entry written too */
    exdb_program_free(p);
    if (!built || find_entry(f) < 0 || !(f->shape = fuzz_slurp(f->entry, &f->shape_len)))
        return -1;
    snprintf(f->ir, sizeof f->ir, "%.*s.ir", (int)(strlen(f->entry) - 6), f->entry);
    unlink(f->entry);
    unlink(f->ir);
    p = exdb_program_load(f->path, NULL, &err);
    if (!p)
        return -1;
    if (p->container_kind)
        snprintf(f->label, sizeof f->label, "%s: %s", f->path, p->member);
    else
        snprintf(f->label, sizeof f->label, "%s", f->path);
    exdb_buf b;
    exdb_buf_init(&b);
    answers(&b, p);
    exdb_program_free(p);
    if (b.oom)
        return -1;
    f->want = b.s; /* kept for the process */
    f->want_len = b.len;
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    snprintf(cache_dir, sizeof cache_dir, "%s/xdg/exdb", fuzz_dir());
    exdb_cache_use(cache_dir);
    exdb_cache_racy(0); /* the copies are fresh: the harness writes the entries' times */
    exdb_program_shape_first(0);
    verbose = getenv("FUZZ_CACHE_VERBOSE") != NULL;
    for (int i = 0; i < NFIX; i++) {
        if (fixture_setup(&fix[nfix], fixture_names[i]) < 0) {
            fprintf(stderr,
                    "fuzz_cache: cannot set up tests/fixtures/%s (run from the "
                    "repository's root)\n",
                    fixture_names[i]);
            exit(2);
        }
        nfix++;
    }
    return 0;
}

/* ---- the entry: its sections, its checksum */

/* The sections of data[0..n): the strings (path, model, member), the
 * slim text (its NUL after), the image: 0 when the head's lengths tile
 * the entry, -1 when not. */
typedef struct layout {
    head hd;
    size_t strs, text, image, end; /* offsets; end: where the checksum starts */
} layout;

static int layout_of(const uint8_t *d, size_t n, layout *l) {
    if (n < sizeof l->hd + 8)
        return -1;
    memcpy(&l->hd, d, sizeof l->hd);
    const head *h = &l->hd;
    uint64_t strs = (uint64_t)h->path_len + h->model_len + h->member_len + 3;
    if (h->payload_len > n || strs > n || h->image_len > n ||
        sizeof *h + strs + h->payload_len + 1 + h->image_len + 8 != n)
        return -1;
    l->strs = sizeof *h;
    l->text = l->strs + (size_t)strs;
    l->image = l->text + (size_t)h->payload_len + 1;
    l->end = n - 8;
    return 0;
}

static int sum_right(const uint8_t *d, size_t n) {
    uint64_t sum;
    if (n < 8)
        return 0;
    memcpy(&sum, d + n - 8, 8);
    return XXH3_64bits(d, n - 8) == sum;
}

/* The checksum of d[0..n) made right, or wrong when !right. */
static void sum_set(uint8_t *d, size_t n, int right) {
    if (n < 8)
        return;
    uint64_t sum = XXH3_64bits(d, n - 8) ^ (right ? 0 : 1);
    memcpy(d + n - 8, &sum, 8);
}

/* ---- an IR entry (cache_ir.h): the same head, magic EXDBIR01, its
 * strings, then the image 8-aligned, then the checksum */

#define IR_MAGIC "EXDBIR01"

static int is_ir(const uint8_t *d, size_t n) {
    return n >= 8 && memcmp(d, IR_MAGIC, 8) == 0;
}

static size_t ir_at(const head *h, size_t plen) {
    return (sizeof *h + plen + h->model_len + h->member_len + 3 + 7) & ~(size_t)7;
}

/* The image's offset in an IR entry d[0..n) (its head in *h): 0 when the
 * head's lengths do not tile it. */
static size_t ir_layout(const uint8_t *d, size_t n, head *h) {
    if (n < sizeof *h + 8)
        return 0;
    memcpy(h, d, sizeof *h);
    uint64_t strs = (uint64_t)h->path_len + h->model_len + h->member_len + 3;
    if (strs > n || h->payload_len > n)
        return 0;
    size_t at = ir_at(h, h->path_len);
    return at + h->payload_len + 8 == n ? at : 0;
}

/* The IR entry d[0..n) for f (as relocate: f's path, identity, version;
 * the image moved to its alignment after the new path). */
static uint8_t *relocate_ir(const uint8_t *d, size_t n, const fixture *f, size_t *outn) {
    head h;
    size_t at = ir_layout(d, n, &h);
    if (!at) /* lengths wrong: as any entry whose lengths are */
        return NULL;
    int right = sum_right(d, n);
    size_t plen = strlen(f->path), to = ir_at(&h, plen);
    size_t m = to + (size_t)h.payload_len + 8;
    uint8_t *o = calloc(1, m);
    if (!o)
        return NULL;
    const uint8_t *model = d + sizeof h + h.path_len + 1;
    head nh = h;
    memset(nh.version, 0, sizeof nh.version);
    snprintf(nh.version, sizeof nh.version, "%s", exdb_version());
    nh.dev = f->dev, nh.ino = f->ino, nh.size = f->size;
    nh.mtime_ns = f->mtime_ns, nh.ctime_ns = f->ctime_ns;
    nh.created_ns = f->mtime_ns > f->ctime_ns ? f->mtime_ns : f->ctime_ns;
    nh.path_len = (uint32_t)plen;
    memcpy(o, &nh, sizeof nh);
    memcpy(o + sizeof nh, f->path, plen + 1);
    memcpy(o + sizeof nh + plen + 1, model, (size_t)h.model_len + 1 + h.member_len + 1);
    memcpy(o + to, d + at, (size_t)h.payload_len);
    sum_set(o, m, right);
    *outn = m;
    return o;
}

/* The fixture the entry is for: the one whose name ends its path, else
 * one chosen by its size. */
static fixture *fixture_of(const uint8_t *d, size_t n) {
    layout l;
    head ih;
    if (is_ir(d, n) && ir_layout(d, n, &ih)) {
        const char *path = (const char *)d + sizeof ih;
        size_t len = ih.path_len;
        for (int i = 0; i < nfix; i++) {
            size_t k = strlen(fix[i].name);
            if (len > k && path[len - k - 1] == '/' && memcmp(path + len - k, fix[i].name, k) == 0)
                return &fix[i];
        }
    } else if (layout_of(d, n, &l) == 0) {
        const char *path = (const char *)d + l.strs;
        size_t len = l.hd.path_len;
        for (int i = 0; i < nfix; i++) {
            size_t k = strlen(fix[i].name);
            if (len > k && path[len - k - 1] == '/' && memcmp(path + len - k, fix[i].name, k) == 0)
                return &fix[i];
        }
    }
    return &fix[n % (size_t)nfix];
}

/* The entry d[0..n) for f into a malloc'd buffer (*out, *outn): f's path,
 * identity and exdb's version in it, the checksum right when d's was. */
static uint8_t *relocate(const uint8_t *d, size_t n, const fixture *f, size_t *outn) {
    int right = sum_right(d, n);
    layout l;
    size_t plen = strlen(f->path);
    if (layout_of(d, n, &l) < 0) { /* its lengths are wrong: the head's fields alone */
        uint8_t *o = malloc(n ? n : 1);
        if (!o)
            return NULL;
        memcpy(o, d, n);
        *outn = n;
        if (n >= sizeof(head)) {
            head h;
            memcpy(&h, o, sizeof h);
            memset(h.version, 0, sizeof h.version);
            snprintf(h.version, sizeof h.version, "%s", exdb_version());
            h.dev = f->dev, h.ino = f->ino, h.size = f->size;
            h.mtime_ns = f->mtime_ns, h.ctime_ns = f->ctime_ns;
            h.created_ns = f->mtime_ns > f->ctime_ns ? f->mtime_ns : f->ctime_ns;
            memcpy(o, &h, sizeof h);
            sum_set(o, n, right);
        }
        return o;
    }
    size_t rest = n - (l.strs + l.hd.path_len); /* from the path's NUL on */
    size_t m = l.strs + plen + rest;
    uint8_t *o = malloc(m);
    if (!o)
        return NULL;
    head h = l.hd;
    memset(h.version, 0, sizeof h.version);
    snprintf(h.version, sizeof h.version, "%s", exdb_version());
    h.dev = f->dev, h.ino = f->ino, h.size = f->size;
    h.mtime_ns = f->mtime_ns, h.ctime_ns = f->ctime_ns;
    h.created_ns = f->mtime_ns > f->ctime_ns ? f->mtime_ns : f->ctime_ns;
    h.path_len = (uint32_t)plen;
    memcpy(o, &h, sizeof h);
    memcpy(o + l.strs, f->path, plen);
    memcpy(o + l.strs + plen, d + l.strs + l.hd.path_len, rest);
    sum_set(o, m, right);
    *outn = m;
    return o;
}

/* The bytes of file path (malloc'd, *n), or NULL. */
static char *fuzz_slurp(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    char *s = NULL;
    long len;
    if (fp && fseek(fp, 0, SEEK_END) == 0 && (len = ftell(fp)) >= 0 &&
        fseek(fp, 0, SEEK_SET) == 0 && (s = malloc((size_t)len + 1)) &&
        fread(s, 1, (size_t)len, fp) == (size_t)len) {
        *n = (size_t)len;
    } else {
        free(s);
        s = NULL;
    }
    if (fp)
        fclose(fp);
    return s;
}

static int write_entry(const char *path, const uint8_t *d, size_t n) {
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, d + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd);
    return off == n ? 0 : -1;
}

/* ---- the input */

/* A finding: what went wrong, then the trap libFuzzer reports. */
static void fail(const fixture *f, const char *why, const char *detail) {
    fprintf(stderr, "fuzz_cache: %s: %s%s%s\n", f->name, why, detail ? ": " : "",
            detail ? detail : "");
    __builtin_trap();
}

/* What the commands read of a graph built from an image: printed,
 * its code (with the lazily read comments), linted, dce'd. */
static void exercise(exdb_program *p) {
    exdb_buf b;
    exdb_buf_init(&b);
    answers(&b, p);
    exdb_print_tabular(&b, p->graph);
    exdb_codegen_opts code = {.verbose = 1, .include_stride = 1, .include_device = 1};
    exdb_python_code(&b, p->graph, &code, NULL);
    exdb_error err = {0};
    exdb_program_meta_error(p, &err);
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_graph(&r, p->graph, NULL, NULL);
    exdb_lint_format(&b, &r);
    exdb_lint_report_free(&r);
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_dce_opts o = {.impure_random = 1};
    if (exdb_dce_run(p->graph, &o, &log, &err) > 0)
        exdb_dce_undo(&log, &err);
    exdb_dce_log_free(&log);
    exdb_buf_free(&b);
}

/* Whether p (built) answers as the whole load of f did. */
static int same_answers(const exdb_program *p, const fixture *f) {
    exdb_buf b;
    exdb_buf_init(&b);
    answers(&b, p);
    int same = b.oom || (b.len == f->want_len && memcmp(b.s, f->want, b.len) == 0);
    if (!same)
        fprintf(stderr, "fuzz_cache: the whole load's answers:\n%s\nthe build's:\n%s\n", f->want,
                b.s);
    exdb_buf_free(&b);
    return same;
}

/* The refusal of a build whose entry lied: the message, and the entry
 * gone. */
static int lied(const exdb_error *e, const fixture *f) {
    char want[800];
    snprintf(want, sizeof want, "%s changed on disk since it was loaded; load it again", f->label);
    struct stat st;
    return strcmp(e->msg, want) == 0 && stat(f->entry, &st) != 0 && errno == ENOENT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    fixture *f = fixture_of(data, size);
    size_t n = 0;
    /* an IR entry: beside the shape entry exdb wrote (the build is then
     * made from the image, or from the file when the image goes) */
    int ir = is_ir(data, size);
    uint8_t *entry = ir ? relocate_ir(data, size, f, &n) : relocate(data, size, f, &n);
    if (!entry && ir) /* lengths wrong: the bytes as they are */
        entry = relocate(data, size, f, &n);
    if (!entry)
        return 0;
    if (write_entry(ir ? f->ir : f->entry, entry, n) < 0 ||
        (ir && write_entry(f->entry, (const uint8_t *)f->shape, f->shape_len) < 0)) {
        free(entry);
        return 0;
    }
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(f->path, NULL, &err);
    if (!p) { /* the file is a good one: only memory may fail */
        free(entry);
        fuzz_check_error(err.msg, err.set);
        if (!exdb_error_oom(&err))
            fail(f, "the open refused a good file", err.msg);
        unlink(f->entry);
        return 0;
    }
    /* the entry used (left as written) or dropped (the file's written instead) */
    int used = 0;
    if (verbose) {
        size_t m;
        char *now = fuzz_slurp(ir ? f->ir : f->entry, &m);
        used = now && m == n && memcmp(now, entry, n) == 0;
        free(now);
    }
    /* the prompt, from the shape (whatever counts the entry gave) */
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_print_program_info(&b, p);
    exdb_print_signature(&b, p);
    exdb_print_call_graph(&b, p);
    exdb_buf_free(&b);
    if (size % 3 == 1) { /* the build in a thread of its own, as the REPL starts it */
        exdb_program_build_start(p);
        exdb_buf_init(&b);
        exdb_print_program_info(&b, exdb_program_shape_view(p));
        exdb_buf_free(&b);
    }
    int rc = exdb_program_build(p, &err);
    if (rc == -1) { /* the entry lied: refused as a file changed on disk, again, the entry gone */
        fuzz_check_error(err.msg, err.set);
        exdb_error again = {0};
        if (!lied(&err, f))
            fail(f, "the build refused otherwise, or the entry stayed", err.msg);
        if (exdb_program_build(p, &again) != -1 || strcmp(again.msg, err.msg))
            fail(f, "a second build said otherwise", again.msg);
    } else if (rc == 0 && !p->graph) {
        fail(f, "a build without a graph", NULL);
    } else if (rc == 0 && p->cache_kept) {
        /* built from the image: an image with a right checksum that passes
         * the checks may show another graph (docs/json-reader.md); every
         * command reads it safely */
        exercise(p);
    } else if (rc == 0 && !same_answers(p, f)) {
        fail(f, "the build's answers are not the whole load's", NULL); /* the IR is the file's */
    }
    if (verbose)
        fprintf(stderr, "fuzz_cache: %s: %sentry %s, build %s\n", f->name,
                ir ? (rc == 0 && p->cache_kept ? "IR image used, " : "IR image not used, ") : "",
                used ? "used" : "dropped",
                rc == 0    ? "ok"
                : rc == -1 ? "refused"
                           : "out of memory");
    free(entry);
    exdb_program_free(p);
    unlink(f->entry); /* the next input starts without one */
    unlink(f->ir);
    return 0;
}

/* ---- the mutator */

/* d[0..n) (whose lengths tile it: l) with section [lo, hi) mutated, the
 * head's length of it mended: the new size, or 0 when it does not fit. */
static size_t mutate_section(uint8_t *d, size_t n, size_t max, const layout *l, int which) {
    size_t lo, hi;
    switch (which) {
    case 0: /* the head, in place */
        LLVMFuzzerMutate(d, sizeof(head), sizeof(head));
        return n;
    case 1: /* the member string (the path is the harness's, the model empty) */
        lo = l->strs + l->hd.path_len + 1 + l->hd.model_len + 1;
        hi = l->text - 1;
        break;
    case 2: /* the slim text */
        lo = l->text;
        hi = l->image - 1;
        break;
    default: /* the image */
        lo = l->image;
        hi = l->end;
        break;
    }
    size_t len = hi - lo, tail = n - hi;
    if (max < n || max - (n - len) < len)
        return 0;
    size_t cap = max - (n - len);
    uint8_t *s = malloc(cap ? cap : 1);
    if (!s)
        return 0;
    memcpy(s, d + lo, len);
    size_t m = cap ? LLVMFuzzerMutate(s, len, cap) : len;
    memmove(d + lo + m, d + hi, tail);
    memcpy(d + lo, s, m);
    free(s);
    head h;
    memcpy(&h, d, sizeof h);
    if (which == 1)
        h.member_len = (uint32_t)m;
    else if (which == 2)
        h.payload_len = m;
    else
        h.image_len = m;
    memcpy(d, &h, sizeof h);
    return n - len + m;
}

/* An IR entry mutated in place, the image's size kept (its sections'
 * offsets are inside it): the head's fields, the image's head (the
 * section table), or anywhere in the image. */
static size_t mutate_ir(uint8_t *d, size_t n, unsigned seed) {
    head h;
    size_t at = ir_layout(d, n, &h);
    if (!at || !h.payload_len)
        return 0;
    size_t len = (size_t)h.payload_len;
    switch (seed / 8 % 4) {
    case 0:
        LLVMFuzzerMutate(d, sizeof h, sizeof h);
        break;
    case 1: {
        size_t k = len < 256 ? len : 256;
        LLVMFuzzerMutate(d + at, k, k);
        break;
    }
    default: { /* a window of the image */
        size_t k = len < 64 ? len : 64, from = (seed / 32) % (len - k + 1);
        LLVMFuzzerMutate(d + at + from, k, k);
    }
    }
    return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    layout l;
    unsigned how = seed % 8;
    if (how >= 1 && is_ir(data, size)) {
        size_t m = mutate_ir(data, size, seed);
        if (m) {
            sum_set(data, m, 1);
            return m;
        }
    }
    if (how >= 2 && layout_of(data, size, &l) == 0) { /* one section, the lengths mended */
        size_t m = mutate_section(data, size, max_size, &l, (int)(seed / 8 % 4));
        if (m) {
            sum_set(data, m, 1);
            return m;
        }
    }
    size_t m = LLVMFuzzerMutate(data, size, max_size);
    if (how != 0) /* one mutation in eight keeps its broken checksum */
        sum_set(data, m, 1);
    return m;
}
