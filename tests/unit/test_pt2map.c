/* test_pt2map.c - a .pt2 archive's program member stored uncompressed is
 * mapped at its offset (core/format/container_map.c, core/base/filemap.c):
 * the text read equals the member with a NUL after it wherever it ends in
 * its page, the CRC-32 is still checked, a compressed or odd member is read
 * as before, a truncated archive under a loaded program gives the one-line
 * "changed on disk" error, and the SIGBUS guard hands other SIGBUSes on. */
#define _GNU_SOURCE
#include <criterion/criterion.h>

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>
#include <zip.h>

#include "core/base/arena.h"
#include "core/base/filemap.h"
#include "core/base/strbuf.h"
#include "core/export/program.h"
#include "core/format/container.h"

#include "testutil.h"

static void setup(void) {
    test_tmpdir_make("pt2map");
}

TestSuite(pt2map, .init = setup, .fini = test_tmpdir_remove);

/* A pt2 archive "m/..." whose program member holds text (stored unless
 * deflate), with members after it: the byte after the member's data is
 * not a NUL in the file. */
static void make_pt2(const char *path, const char *text, size_t len, int deflate) {
    static const char *const names[] = {"m/archive_format", "m/models/model.json",
                                        "m/archive_version", "m/extra/notes.txt"};
    const char *data[] = {"pt2", text, "0", "hello"};
    int code = 0;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    cr_assert_not_null(za, "zip_open %s: %d", path, code);
    for (int i = 0; i < 4; i++) {
        zip_source_t *s = zip_source_buffer(za, data[i], i == 1 ? len : strlen(data[i]), 0);
        cr_assert_not_null(s);
        zip_int64_t idx = zip_file_add(za, names[i], s, 0);
        cr_assert(idx >= 0, "%s", zip_strerror(za));
        cr_assert_eq(zip_set_file_compression(za, (zip_uint64_t)idx,
                                              i == 1 && deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0),
                     0);
    }
    cr_assert_eq(zip_close(za), 0, "%s", zip_strerror(za));
}

/* The offset of the first occurrence of needle in the file path. */
static long offset_of(const char *path, const char *needle) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char *at = memmem(buf, n, needle, strlen(needle));
    cr_assert_not_null(at, "%s not in %s", needle, path);
    return (long)(at - buf);
}

/* Reads the program of path: its text, length and hash; whether mapped. */
static int read_prog(const char *path, char **buf, size_t *len, uint64_t *hash, exdb_error *err) {
    exdb_container *c = NULL;
    cr_assert_eq(exdb_container_open(path, &c, err), 0, "%s", err->msg);
    int rc = exdb_container_read_program_hashed(c, NULL, buf, len, NULL, hash, err);
    exdb_container_close(c);
    return rc;
}

/* A program text of exactly n bytes (n >= 64): JSON padded with spaces. */
static char *program_text(size_t n) {
    static const char head[] = "{\"schema_version\": {\"major\": 8, \"minor\": 20}";
    char *t = malloc(n + 1);
    cr_assert_not_null(t);
    memcpy(t, head, sizeof head - 1);
    memset(t + sizeof head - 1, ' ', n - sizeof head);
    t[n - 1] = '}';
    t[n] = '\0';
    return t;
}

/* The program of file p read mapped, text[0..n) followed by a NUL, its
 * hash the text's. */
static void expect_mapped(const char *p, const char *text, size_t n) {
    char *buf = NULL;
    size_t len = 0;
    uint64_t h = 0;
    exdb_error err = {0};
    cr_assert_eq(read_prog(p, &buf, &len, &h, &err), 0, "%s", err.msg);
    cr_expect(exdb_filemap_is(buf), "length %zu: mapped", n);
    cr_assert_eq(len, n);
    cr_expect_eq(memcmp(buf, text, len), 0);
    cr_expect_eq(buf[len], '\0', "length %zu: a NUL after the text", n);
    cr_expect_eq(h, XXH3_64bits(text, len));
    exdb_mem_release(buf);
}

/* Whatever page the member's text ends in (mid-page, at a page's end, one
 * byte into the next), the mapped text is the member, a NUL follows it, and
 * the hash is the text's. */
Test(pt2map, stored_member_is_mapped_with_a_nul_after_it) {
    const char *p = test_tpath("a.pt2");
    char *probe = program_text(64);
    make_pt2(p, probe, 64, 0);
    long data = offset_of(p, "{\"schema_version\"");
    free(probe);
    long pg = sysconf(_SC_PAGESIZE);
    size_t lens[] = {100,
                     (size_t)(pg - data),
                     (size_t)(pg - data + 1),
                     (size_t)(3 * pg - data),
                     (size_t)(3 * pg - data - 1),
                     70000};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        char *text = program_text(lens[k]);
        make_pt2(p, text, lens[k], 0);
        cr_assert_eq(offset_of(p, "{\"schema_version\""), data);
        expect_mapped(p, text, lens[k]);
        free(text);
    }
}

/* A bare JSON file of any length (inside a page: the kernel's zeros after
 * the file's last byte are the NUL, one mapping; a whole number of pages:
 * a page of zeros after them) is mapped, a NUL follows its text, and a
 * byte read up to that NUL needs no page past the mapping. */
Test(pt2map, bare_json_is_mapped_with_a_nul_after_it) {
    const char *p = test_tpath("a.json");
    long pg = sysconf(_SC_PAGESIZE);
    size_t lens[] = {100, (size_t)pg - 1, (size_t)pg, (size_t)pg + 1, (size_t)(3 * pg), 70001};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        char *text = program_text(lens[k]);
        FILE *f = fopen(p, "wb");
        cr_assert_not_null(f);
        cr_assert_eq(fwrite(text, 1, lens[k], f), lens[k]);
        cr_assert_eq(fclose(f), 0);
        expect_mapped(p, text, lens[k]);
        free(text);
    }
}

/* A torch-written archive (torch.export.save: stored members padded to 64
 * bytes with an FB extra field, ZIP64): its program is mapped, and equals
 * the member as libzip reads it. */
Test(pt2map, torch_written_archive_is_mapped) {
    const char *p = "tests/fixtures/kwargs.pt2";
    char *buf = NULL;
    size_t len = 0;
    uint64_t h = 0;
    exdb_error err = {0};
    cr_assert_eq(read_prog(p, &buf, &len, &h, &err), 0, "%s", err.msg);
    cr_expect(exdb_filemap_is(buf));
    int code = 0;
    zip_t *za = zip_open(p, ZIP_RDONLY, &code);
    cr_assert_not_null(za);
    zip_stat_t st;
    cr_assert_eq(zip_stat(za, "kwargs/models/model.json", 0, &st), 0);
    cr_assert_eq(st.size, len);
    char *want = malloc(len);
    zip_file_t *zf = zip_fopen(za, "kwargs/models/model.json", 0);
    cr_assert_not_null(zf);
    cr_assert_eq(zip_fread(zf, want, len), (zip_int64_t)len);
    zip_fclose(zf);
    zip_discard(za);
    cr_expect_eq(memcmp(buf, want, len), 0);
    cr_expect_eq(buf[len], '\0');
    cr_expect_eq(h, XXH3_64bits(want, len));
    free(want);
    exdb_mem_release(buf);
}

static void put16(unsigned char *p, unsigned v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v) {
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* The archive's end record turned into a ZIP64 one (its fields 0xFFFF...,
 * a ZIP64 end record and locator before it, as a writer does past 65,535
 * members or 4 GiB): the central directory is found through the locator
 * and the member is still mapped. */
Test(pt2map, zip64_end_record_is_followed) {
    const char *p = test_tpath("z64.pt2");
    char *text = program_text(20000);
    make_pt2(p, text, 20000, 0);
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f);
    static unsigned char z[1 << 16];
    size_t n = fread(z, 1, sizeof z - 200, f);
    fclose(f);
    cr_assert(n > 22 && n < sizeof z - 200);
    unsigned char *e = z + n - 22;
    cr_assert_eq(memcmp(e, "PK\5\6", 4), 0, "no comment: the end record is last");
    unsigned count = (unsigned)(e[10] | e[11] << 8);
    uint32_t size = (uint32_t)(e[12] | e[13] << 8 | e[14] << 16 | (uint32_t)e[15] << 24);
    uint32_t off = (uint32_t)(e[16] | e[17] << 8 | e[18] << 16 | (uint32_t)e[19] << 24);
    uint64_t at = n - 22;
    unsigned char *r = z + at, *loc = r + 56, *end = loc + 20;
    memcpy(r, "PK\6\6", 4);
    put64(r + 4, 44);
    put16(r + 12, 45);
    put16(r + 14, 45);
    put32(r + 16, 0);
    put32(r + 20, 0);
    put64(r + 24, count);
    put64(r + 32, count);
    put64(r + 40, size);
    put64(r + 48, off);
    memcpy(loc, "PK\6\7", 4);
    put32(loc + 4, 0);
    put64(loc + 8, at);
    put32(loc + 16, 1);
    memcpy(end, "PK\5\6", 4);
    memset(end + 4, 0, 18);
    put16(end + 8, 0xFFFF);
    put16(end + 10, 0xFFFF);
    put32(end + 12, 0xFFFFFFFF);
    put32(end + 16, 0xFFFFFFFF);
    f = fopen(p, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(z, 1, (size_t)(end + 22 - z), f), (size_t)(end + 22 - z));
    cr_assert_eq(fclose(f), 0);
    char *buf = NULL;
    size_t len = 0;
    exdb_error err = {0};
    cr_assert_eq(read_prog(p, &buf, &len, NULL, &err), 0, "%s", err.msg);
    cr_expect(exdb_filemap_is(buf));
    cr_expect_eq(len, 20000);
    cr_expect_str_eq(buf, text);
    exdb_mem_release(buf);
    free(text);
}

Test(pt2map, deflated_member_is_read) {
    const char *p = test_tpath("d.pt2");
    char *text = program_text(5000);
    make_pt2(p, text, 5000, 1);
    char *buf = NULL;
    size_t len = 0;
    uint64_t h = 0;
    exdb_error err = {0};
    cr_assert_eq(read_prog(p, &buf, &len, &h, &err), 0, "%s", err.msg);
    cr_expect_not(exdb_filemap_is(buf));
    cr_expect_str_eq(buf, text);
    cr_expect_eq(h, XXH3_64bits(text, len));
    exdb_mem_release(buf);
    free(text);
}

/* Flips one byte of the file at off. */
static void flip(const char *path, long off, char to) {
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, off, SEEK_SET), 0);
    cr_assert_eq(fputc(to, f), to);
    cr_assert_eq(fclose(f), 0);
}

/* A byte of the stored member changed: the CRC-32 that libzip checks on a
 * read is checked over the mapping too. */
Test(pt2map, stored_member_with_a_wrong_crc_is_refused) {
    const char *p = test_tpath("crc.pt2");
    char *text = program_text(9000);
    make_pt2(p, text, 9000, 0);
    flip(p, offset_of(p, "{\"schema_version\"") + 100, 'x');
    char *buf = (char *)1;
    exdb_error err = {0};
    cr_assert_eq(read_prog(p, &buf, NULL, NULL, &err), -1);
    cr_assert_null(buf);
    char want[1024];
    snprintf(want, sizeof want, "%s: models/model.json: cannot read member: CRC error", p);
    cr_expect_str_eq(err.msg, want);
    free(text);
}

/* A local header that does not agree with the central directory: not
 * mapped (libzip reads it, or refuses it, as before). The local header
 * comes first in the file, so the first copy of the name is its own. */
Test(pt2map, odd_local_header_is_not_mapped) {
    const char *p = test_tpath("odd.pt2");
    char *text = program_text(3000);
    for (int k = 0; k < 2; k++) {
        make_pt2(p, text, 3000, 0);
        long name = offset_of(p, "m/models/model.json");
        if (k == 0)
            flip(p, name + 2, 'M'); /* another name */
        else
            flip(p, name - 30 + 8, 8); /* another method (8, deflate) */
        char *buf = NULL;
        size_t len = 0;
        exdb_error err = {0};
        if (read_prog(p, &buf, &len, NULL, &err) == 0) {
            cr_expect_not(exdb_filemap_is(buf), "case %d", k);
            exdb_mem_release(buf);
        }
    }
    free(text);
}

/* A relu chain of 4 nodes with a stack trace each, padded so that the last
 * node's metadata is pages away from the first page. */
static char *padded_chain(void) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "{\"schema_version\": {\"major\": 8, \"minor\": 20}, "
                        "\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": "
                        "{\"name\": \"x\"}}], \"nodes\": [");
    for (int i = 0; i < 4; i++) {
        char prev[16];
        snprintf(prev, sizeof prev, i ? "r%d" : "x", i - 1);
        exdb_buf_printf(&b,
                        "%s{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": "
                        "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": "
                        "\"%s\"}}, \"kind\": 1}], \"outputs\": [{\"as_tensor\": "
                        "{\"name\": \"r%d\"}}], \"metadata\": {\"nn_module_stack\": "
                        "\"L__self__,,m.M\", \"stack_trace\": \"line %d\"}}%s",
                        i ? ", " : "", prev, i, i, i == 2 ? "%*s" : "");
    }
    exdb_buf_printf(&b, "], \"outputs\": [{\"as_tensor\": {\"name\": \"r3\"}}]}, "
                        "\"signature\": {\"input_specs\": [{\"user_input\": {\"arg\": "
                        "{\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": "
                        "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": "
                        "\"r3\"}}}}]}, \"module_call_graph\": []}}");
    const char *s = exdb_buf_str(&b);
    size_t n = strlen(s) + 4 * 4096;
    char *t = malloc(n);
    cr_assert_not_null(t);
    snprintf(t, n, s, 4 * 4096, "");
    exdb_buf_free(&b);
    return t;
}

/* The archive truncated in place while a program loaded from it is held
 * (torch.export.save truncates with "wb"): a later metadata read from a
 * page past the new end gives the one-line error, nothing crashes, what
 * was read before keeps its answer. */
Test(pt2map, metadata_read_after_the_archive_was_truncated) {
    const char *p = test_tpath("t.pt2");
    char *text = padded_chain();
    make_pt2(p, text, strlen(text), 0);
    free(text);
    exdb_error err = {0};
    exdb_program_lazy_meta(0);
    exdb_program *prog = exdb_program_load(p, NULL, &err);
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    cr_assert_not_null(prog, "%s", err.msg);
    cr_assert(exdb_filemap_is(prog->buf), "the program member is mapped");
    const exdb_meta *m0 = exdb_graph_find(prog->graph, "r0")->meta;
    const exdb_meta *m3 = exdb_graph_find(prog->graph, "r3")->meta;
    cr_assert_str_eq(exdb_meta_stack_trace(m0), "line 0");
    cr_assert_eq(truncate(p, 10), 0);
    for (int round = 0; round < 2; round++) {
        cr_expect_null(exdb_meta_stack_trace(m3));
        cr_expect_eq(exdb_program_meta_error(prog, &err), -1);
        char want[600];
        snprintf(want, sizeof want,
                 "%s: models/model.json changed on disk since it was loaded; load it again", p);
        cr_expect_str_eq(err.msg, want);
    }
    cr_expect_str_eq(exdb_meta_stack_trace(m0), "line 0", "read before: remembered");
    exdb_program_free(prog);
}

static sigjmp_buf jump;
static volatile sig_atomic_t seen;

static void mine(int sig, siginfo_t *si, void *uc) {
    (void)sig, (void)uc;
    seen = si->si_code <= 0 ? 1 : 2;
    if (si->si_code > 0)
        siglongjmp(jump, 1);
}

/* The guard installed by a mapping hands a SIGBUS that is not about a
 * mapped text to the handler there was before (a host program's, Python's
 * faulthandler): one sent by kill(), and a fault on another mapping. */
Test(pt2map, sigbus_elsewhere_goes_to_the_previous_handler) {
    struct sigaction sa = {0}, old;
    sa.sa_sigaction = mine;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGBUS, &sa, &old), 0);
    const char *p = test_tpath("g.pt2");
    char *text = program_text(10000);
    make_pt2(p, text, 10000, 0);
    free(text);
    char *buf = NULL;
    exdb_error err = {0};
    cr_assert_eq(read_prog(p, &buf, NULL, NULL, &err), 0, "%s", err.msg);
    cr_assert(exdb_filemap_is(buf));
    raise(SIGBUS);
    cr_expect_eq(seen, 1, "kill(): the previous handler");
    /* a fault on a mapping of exdb's own making that is not a text */
    const char *q = test_tpath("other");
    FILE *f = fopen(q, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite("x", 1, 1, f), 1);
    cr_assert_eq(fclose(f), 0);
    int fd = open(q, O_RDONLY);
    cr_assert(fd >= 0);
    volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    cr_assert(m != MAP_FAILED);
    seen = 0;
    if (sigsetjmp(jump, 1) == 0)
        (void)m[4096]; /* past the file's last page: SIGBUS */
    cr_expect_eq(seen, 2, "a fault elsewhere: the previous handler");
    munmap((void *)m, 8192);
    exdb_mem_release(buf);
    sigaction(SIGBUS, &old, NULL);
}

/* With no handler before exdb's, a SIGBUS sent by kill() still ends the
 * process as SIGBUS does (it is not swallowed). */
Test(pt2map, sigbus_sent_with_no_previous_handler_kills) {
    const char *p = test_tpath("k.pt2");
    char *text = program_text(10000);
    make_pt2(p, text, 10000, 0);
    free(text);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL);
        char *buf = NULL;
        exdb_error err = {0};
        exdb_container *c = NULL;
        if (exdb_container_open(p, &c, &err) != 0 ||
            exdb_container_read_program(c, NULL, &buf, NULL, NULL, &err) != 0 ||
            !exdb_filemap_is(buf))
            _exit(3);
        raise(SIGBUS);
        _exit(0);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS, "status %d", st);
}
