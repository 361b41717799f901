/* test_container.c - the container layer on zips built at test time with
 * libzip (no binary fixtures): PT2 archives, legacy zips, bare JSON, hostile
 * files, and save round trips. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zip.h>

#include "core/base/arena.h"
#include "core/format/container.h"
#include "core/format/container_save.h"

#include "testutil.h"

#define PROG  "{\"schema_version\": {\"major\": 8, \"minor\": 20}}"
#define PROG2 "{\"graph_module\": {}, \"schema_version\": {\"major\": 8, \"minor\": 14}}"

static void setup(void) {
    test_tmpdir_make("container");
}

TestSuite(container, .init = setup, .fini = test_tmpdir_remove);

typedef struct entry {
    const char *name;
    const char *data;
    size_t len; /* 0: strlen(data) */
    int deflate;
} entry;

static size_t entry_len(const entry *e) {
    return e->len ? e->len : strlen(e->data);
}

static void make_zip(const char *path, const entry *e, size_t n) {
    int code = 0;
    zip_t *za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    cr_assert_not_null(za, "zip_open %s: %d", path, code);
    for (size_t i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(za, e[i].data, entry_len(&e[i]), 0);
        cr_assert_not_null(s);
        zip_int64_t idx = zip_file_add(za, e[i].name, s, 0);
        cr_assert(idx >= 0, "%s", zip_strerror(za));
        cr_assert_eq(zip_set_file_compression(za, (zip_uint64_t)idx,
                                              e[i].deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0),
                     0);
    }
    cr_assert_eq(zip_close(za), 0, "%s", zip_strerror(za));
}

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n + 1);
    cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static uint32_t rd16(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p) {
    return rd16(p) | rd16(p + 2) << 16;
}

static void wr32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Rewrites the uncompressed size of member `name` in its local header and
 * its central directory record. */
static void patch_uncompressed_size(const char *path, const char *name, uint32_t size) {
    size_t len, nlen = strlen(name);
    int local = 0, central = 0;
    unsigned char *p = slurp(path, &len);
    for (size_t i = 0; i + 46 <= len; i++) {
        if (rd32(p + i) == 0x04034b50 && rd16(p + i + 26) == nlen &&
            memcmp(p + i + 30, name, nlen) == 0) {
            wr32(p + i + 22, size);
            local++;
        }
        if (rd32(p + i) == 0x02014b50 && rd16(p + i + 28) == nlen &&
            memcmp(p + i + 46, name, nlen) == 0) {
            wr32(p + i + 24, size);
            central++;
        }
    }
    cr_assert_eq(local, 1);
    cr_assert_eq(central, 1);
    write_file(path, p, len);
    free(p);
}

/* Renames member `from` to `to` (the same length) in its local header and
 * central directory record: libzip refuses to write two members of one name,
 * so an archive holding them is made by renaming one. */
static void rename_member(const char *path, const char *from, const char *to) {
    size_t len, nlen = strlen(from);
    int local = 0, central = 0;
    cr_assert_eq(strlen(to), nlen);
    unsigned char *p = slurp(path, &len);
    for (size_t i = 0; i + 46 <= len; i++) {
        if (rd32(p + i) == 0x04034b50 && rd16(p + i + 26) == nlen &&
            memcmp(p + i + 30, from, nlen) == 0) {
            memcpy(p + i + 30, to, nlen);
            local++;
        }
        if (rd32(p + i) == 0x02014b50 && rd16(p + i + 28) == nlen &&
            memcmp(p + i + 46, from, nlen) == 0) {
            memcpy(p + i + 46, to, nlen);
            central++;
        }
    }
    cr_assert_eq(local, 1);
    cr_assert_eq(central, 1);
    write_file(path, p, len);
    free(p);
}

/* Opens path expecting failure and checks the message exactly; %s in fmt is
 * the path. */
static void expect_open_error(const char *path, const char *fmt) {
    exdb_container *c = (exdb_container *)1;
    exdb_error err = {0};
    char want[EXDB_ERROR_MAX];
    snprintf(want, sizeof want, fmt, path);
    cr_assert_eq(exdb_container_open(path, &c, &err), -1);
    cr_assert_null(c);
    cr_assert_str_eq(err.msg, want);
}

static exdb_container *open_ok(const char *path) {
    exdb_container *c = NULL;
    exdb_error err = {0};
    cr_assert_eq(exdb_container_open(path, &c, &err), 0, "%s", err.msg);
    cr_assert_not_null(c);
    return c;
}

static void expect_program(exdb_container *c, const char *model, const char *want,
                           const char *want_member) {
    char *buf = NULL;
    size_t len = 0;
    const char *member = NULL;
    exdb_error err = {0};
    cr_assert_eq(exdb_container_read_program(c, model, &buf, &len, &member, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(len, strlen(want));
    cr_assert_str_eq(buf, want);
    cr_assert_str_eq(member, want_member);
    exdb_mem_release(buf);
}

static void expect_read_error(exdb_container *c, const char *model, const char *fmt) {
    char *buf = (char *)1;
    char want[EXDB_ERROR_MAX];
    exdb_error err = {0};
    snprintf(want, sizeof want, fmt, exdb_container_path(c));
    cr_assert_eq(exdb_container_read_program(c, model, &buf, NULL, NULL, &err), -1);
    cr_assert_null(buf);
    cr_assert_str_eq(err.msg, want);
}

static const entry pt2_entries[] = {
    {"mymodel/archive_format", "pt2", 0, 0},
    {"mymodel/archive_version", "0", 0, 0},
    {"mymodel/byteorder", "little", 0, 0},
    {"mymodel/.data/version", "6\n", 0, 0},
    {"mymodel/models/model.json", PROG, 0, 0},
    {"mymodel/data/weights/model_weights_config.json", "{\"config\": {}}", 0, 1},
    {"mymodel/data/weights/weight_0", "\x00\x01\x02\x00\xff\xfe", 6, 0},
    {"mymodel/extra/notes.txt", "hello", 0, 0},
};
#define NPT2 (sizeof pt2_entries / sizeof pt2_entries[0])

Test(container, pt2_with_folder) {
    const char *p = test_tpath("model.pt2");
    make_zip(p, pt2_entries, NPT2);
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_kind_of(c), EXDB_CONT_PT2);
    cr_assert_str_eq(exdb_container_kind_name(EXDB_CONT_PT2), "pt2");
    cr_assert_str_eq(exdb_container_path(c), p);
    cr_assert_str_eq(exdb_container_archive_name(c), "mymodel");
    cr_assert_str_eq(exdb_container_version(c), "0");
    cr_assert_eq(exdb_container_model_count(c), 1);
    cr_assert_str_eq(exdb_container_model_name(c, 0), "model");
    cr_assert_null(exdb_container_model_name(c, 1));
    expect_program(c, NULL, PROG, "models/model.json");
    expect_program(c, "model", PROG, "models/model.json");
    expect_read_error(c, "other", "%s: no model named \"other\" (models: model)");
    exdb_container_close(c);
}

Test(container, pt2_at_root_with_trailing_whitespace) {
    const entry e[] = {{"archive_format", "pt2\r\n", 0, 0}, {"models/net.json", PROG, 0, 1}};
    const char *p = test_tpath("root.pt2");
    make_zip(p, e, 2);
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_kind_of(c), EXDB_CONT_PT2);
    cr_assert_str_eq(exdb_container_archive_name(c), "");
    cr_assert_null(exdb_container_version(c));
    cr_assert_str_eq(exdb_container_model_name(c, 0), "net");
    expect_program(c, NULL, PROG, "models/net.json");
    exdb_container_close(c);
}

Test(container, pt2_two_models) {
    const entry e[] = {
        {"archive/archive_format", "pt2", 0, 0},
        {"archive/models/encoder.json", PROG, 0, 0},
        {"archive/models/decoder.json", PROG2, 0, 0},
    };
    const char *p = test_tpath("two.pt2");
    make_zip(p, e, 3);
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_model_count(c), 2);
    cr_assert_str_eq(exdb_container_model_name(c, 0), "encoder");
    cr_assert_str_eq(exdb_container_model_name(c, 1), "decoder");
    expect_read_error(c, NULL,
                      "%s: archive holds 2 models (encoder, decoder): name the one to use");
    expect_program(c, "decoder", PROG2, "models/decoder.json");
    expect_program(c, "encoder", PROG, "models/encoder.json");
    expect_read_error(c, "nope", "%s: no model named \"nope\" (models: encoder, decoder)");
    exdb_container_close(c);
}

/* Entries in directory d other than "." and "..". */
static int dir_entries(const char *d) {
    DIR *dir = opendir(d);
    struct dirent *de;
    int n = 0;
    cr_assert_not_null(dir);
    while ((de = readdir(dir)))
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(dir);
    return n;
}

/* Names with "..", absolute paths, members outside the folder, empty model
 * names and duplicates are never listed as models; and nothing is extracted:
 * run from the scratch directory, opening and reading the archive leaves the
 * archive alone there and creates none of the paths the names point to. */
Test(container, pt2_hostile_member_names) {
    const entry e[] = {
        {"pkg/archive_format", "pt2", 0, 0},     {"pkg/models/../evil.json", "x", 0, 0},
        {"/pkg/models/abs.json", "x", 0, 0},     {"../pkg/models/up.json", "x", 0, 0},
        {"pkg/models/..json", "x", 0, 0},        {"pkg/models/.json", "x", 0, 0},
        {"pkg/models/sub/deep.json", "x", 0, 0}, {"other/models/foreign.json", "x", 0, 0},
        {"pkg/models/model.json", PROG, 0, 0},
    };
    const char *p = test_tpath("names.pt2");
    make_zip(p, e, sizeof e / sizeof e[0]);
    char here[4096];
    cr_assert_not_null(getcwd(here, sizeof here));
    cr_assert_eq(chdir(test_tdir), 0);
    exdb_container *c = open_ok("names.pt2");
    cr_assert_eq(exdb_container_model_count(c), 1);
    cr_assert_str_eq(exdb_container_model_name(c, 0), "model");
    expect_program(c, NULL, PROG, "models/model.json");
    exdb_container_close(c);
    cr_assert_eq(dir_entries("."), 1, "only the archive is in the directory");
    cr_assert_neq(access("../pkg", F_OK), 0);
    cr_assert_neq(access("/pkg", F_OK), 0);
    cr_assert_eq(chdir(here), 0);
}

/* Two members of one name (issue 13 item 9): libzip opens the archive and
 * finds the first, but save could not write the copy ("File already
 * exists"). Refused on open, naming the member; legacy zips too. */
Test(container, duplicate_member_names) {
    const entry e[] = {
        {"pkg/archive_format", "pt2", 0, 0},
        {"pkg/models/model.json", PROG, 0, 0},
        {"pkg/byteorder", "little", 0, 0},
        {"pkg/models/mode2.json", PROG2, 0, 0},
    };
    const char *p = test_tpath("dup.pt2");
    make_zip(p, e, 4);
    rename_member(p, "pkg/models/mode2.json", "pkg/models/model.json");
    expect_open_error(p, "%s: pkg/models/model.json: two members have this name (entries 1 and "
                         "3), expected each member name once");
    const entry l[] = {
        {"serialized_exported_program.json", PROG, 0, 0},
        {"version", "8.20", 0, 0},
        {"versioX", "1", 0, 0},
    };
    p = test_tpath("dup.zip");
    make_zip(p, l, 3);
    rename_member(p, "versioX", "version");
    expect_open_error(p, "%s: version: two members have this name (entries 1 and 2), expected "
                         "each member name once");
}

/* 20,000 models, listed in archive order (issue 13 item 7: each name was
 * compared with every earlier one; tests/malformed zip_many_models holds
 * 300,000, which took minutes). */
Test(container, pt2_many_models) {
    enum { N = 20000 };
    const char *p = test_tpath("many.pt2");
    int code = 0;
    zip_t *za = zip_open(p, ZIP_CREATE | ZIP_TRUNCATE, &code);
    cr_assert_not_null(za);
    zip_source_t *s = zip_source_buffer(za, "pt2", 3, 0);
    cr_assert(s && zip_file_add(za, "a/archive_format", s, 0) >= 0);
    for (int i = 0; i < N; i++) {
        char name[64];
        snprintf(name, sizeof name, "a/models/m%d.json", i);
        s = zip_source_buffer(za, PROG, strlen(PROG), 0);
        cr_assert(s && zip_file_add(za, name, s, 0) >= 0, "%s", zip_strerror(za));
    }
    cr_assert_eq(zip_close(za), 0, "%s", zip_strerror(za));
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_model_count(c), N);
    cr_assert_str_eq(exdb_container_model_name(c, 0), "m0");
    cr_assert_str_eq(exdb_container_model_name(c, N - 1), "m19999");
    expect_program(c, "m19999", PROG, "models/m19999.json");
    exdb_container_close(c);
}

Test(container, legacy_zip) {
    const entry e[] = {
        {"serialized_exported_program.json", PROG, 0, 0},
        {"serialized_state_dict.pt", "PK\x03\x04junk", 0, 0},
        {"serialized_constants.pt", "", 0, 0},
        {"version", "8.6\n", 0, 0},
    };
    const char *p = test_tpath("legacy.pt2");
    make_zip(p, e, 4);
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_kind_of(c), EXDB_CONT_LEGACY_ZIP);
    cr_assert_str_eq(exdb_container_version(c), "8.6");
    cr_assert_eq(exdb_container_model_count(c), 1);
    cr_assert_str_eq(exdb_container_model_name(c, 0), "model");
    expect_program(c, NULL, PROG, "serialized_exported_program.json");
    expect_program(c, "model", PROG, "serialized_exported_program.json");
    exdb_container_close(c);
}

Test(container, bare_json) {
    const char *p = test_tpath("prog.json");
    write_file(p, " \n\t" PROG "\n", strlen(PROG) + 4);
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_kind_of(c), EXDB_CONT_JSON);
    cr_assert_eq(exdb_container_model_count(c), 1);
    cr_assert_str_eq(exdb_container_model_name(c, 0), "model");
    cr_assert_null(exdb_container_version(c));
    expect_program(c, NULL, " \n\t" PROG "\n", p);
    expect_read_error(c, "enc", "%s: no model named \"enc\" (models: model)");
    exdb_container_close(c);
}

Test(container, not_a_program) {
    const char *p = test_tpath("text.txt");
    write_file(p, "  hello {", 9);
    expect_open_error(
        p, "%s: not a torch.export program: expected a .pt2/zip archive or JSON starting with '{'");
    write_file(p, "\x00\x01\x02\x03", 4);
    expect_open_error(
        p, "%s: not a torch.export program: expected a .pt2/zip archive or JSON starting with '{'");
    write_file(p, " \n\n ", 4);
    expect_open_error(
        p, "%s: not a torch.export program: expected a .pt2/zip archive or JSON starting with '{'");
}

Test(container, empty_file) {
    const char *p = test_tpath("empty.pt2");
    write_file(p, "", 0);
    expect_open_error(p, "%s: empty file: expected a .pt2/zip archive or JSON starting with '{'");
}

Test(container, missing_file_and_directory) {
    expect_open_error(test_tpath("nope.pt2"), "%s: No such file or directory");
    expect_open_error(test_tdir, "%s: is a directory, expected a .pt2/zip archive or a JSON file");
}

/* A FIFO, a socket and a character device are refused by their type,
 * at once: the FIFO is opened without waiting for a writer (none comes),
 * the socket cannot be opened at all (its type said all the same). */
Test(container, not_regular_files) {
    const char *const msg = "%s: not a regular file, expected a .pt2/zip archive or a JSON file";
    const char *fifo = test_tpath("prog.fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    expect_open_error(fifo, msg);
    const char *sock = test_tpath("prog.sock");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    cr_assert_lt(strlen(sock), sizeof a.sun_path);
    strcpy(a.sun_path, sock);
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_eq(bind(sfd, (struct sockaddr *)&a, sizeof a), 0);
    expect_open_error(sock, msg);
    close(sfd);
    expect_open_error("/dev/null", msg);
}

Test(container, wrong_archive_format) {
    const entry e[] = {{"m/archive_format", "pt3\x01", 0, 0}, {"m/models/model.json", PROG, 0, 0}};
    const char *p = test_tpath("fmt.pt2");
    make_zip(p, e, 2);
    expect_open_error(p, "%s: archive_format: expected \"pt2\", found \"pt3?\"");
}

Test(container, oversized_archive_format) {
    static char big[1000];
    memset(big, 'x', sizeof big);
    const entry e[] = {{"m/archive_format", big, sizeof big, 0}};
    const char *p = test_tpath("bigfmt.pt2");
    make_zip(p, e, 1);
    expect_open_error(
        p,
        "%s: archive_format: declared size 1000 bytes exceeds the 256-byte limit for this member");
}

Test(container, pt2_without_models) {
    const entry e[] = {{"m/archive_format", "pt2", 0, 0}, {"m/models/readme.txt", "x", 0, 0}};
    const char *p = test_tpath("nomodel.pt2");
    make_zip(p, e, 2);
    expect_open_error(p, "%s: no program in archive (expected models/<name>.json)");
}

Test(container, torchscript_zip) {
    const entry e[] = {
        {"archive/data.pkl", "\x80\x02}q\x00.", 0, 0},
        {"archive/constants.pkl", "\x80\x02).", 0, 0},
        {"archive/version", "3\n", 0, 0},
    };
    const char *p = test_tpath("script.pt");
    make_zip(p, e, 3);
    expect_open_error(
        p,
        "%s: data.pkl: this is a TorchScript (or torch.save) archive, not a torch.export program");
}

Test(container, zip_without_program) {
    const entry e[] = {{"readme.txt", "hello", 0, 0}};
    const char *p = test_tpath("other.zip");
    make_zip(p, e, 1);
    expect_open_error(p, "%s: zip archive holds no torch.export program (expected archive_format "
                         "or serialized_exported_program.json)");
    /* The 22-byte empty archive. */
    const char *q = test_tpath("empty.zip");
    write_file(q, "PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 22);
    expect_open_error(q, "%s: zip archive holds no torch.export program (expected archive_format "
                         "or serialized_exported_program.json)");
}

Test(container, truncated_zip) {
    const char *p = test_tpath("trunc.pt2");
    size_t len;
    make_zip(p, pt2_entries, NPT2);
    unsigned char *d = slurp(p, &len);
    write_file(p, d, len / 2);
    free(d);
    expect_open_error(p, "%s: truncated or corrupt zip archive: Not a zip archive");
    write_file(p, "PK\x03\x04garbage", 11);
    expect_open_error(p, "%s: truncated or corrupt zip archive: Not a zip archive");
}

Test(container, huge_declared_size) {
    const entry e[] = {{"m/archive_format", "pt2", 0, 0}, {"m/models/model.json", PROG, 0, 1}};
    const char *p = test_tpath("huge.pt2");
    make_zip(p, e, 2);
    patch_uncompressed_size(p, "m/models/model.json", 0xF0000000u);
    exdb_container *c = open_ok(p);
    expect_read_error(c, NULL,
                      "%s: models/model.json: declared size 4026531840 bytes exceeds the "
                      "2147483648-byte limit for a program");
    exdb_container_close(c);
}

Test(container, deflated_member) {
    static char big[100000];
    for (size_t i = 0; i < sizeof big - 1; i++)
        big[i] = i == 0 ? '{' : "abc \n"[i % 5];
    const entry e[] = {{"m/archive_format", "pt2", 0, 1}, {"m/models/model.json", big, 0, 1}};
    const char *p = test_tpath("deflate.pt2");
    make_zip(p, e, 2);
    exdb_container *c = open_ok(p);
    expect_program(c, NULL, big, "models/model.json");
    exdb_container_close(c);
}

/* A deflated member whose real data is longer or shorter than declared. */
Test(container, deflated_member_wrong_size) {
    const entry e[] = {{"m/archive_format", "pt2", 0, 0}, {"m/models/model.json", PROG, 0, 1}};
    const char *p = test_tpath("liar.pt2");
    make_zip(p, e, 2);
    patch_uncompressed_size(p, "m/models/model.json", (uint32_t)strlen(PROG) - 5);
    exdb_container *c = open_ok(p);
    expect_read_error(c, NULL,
                      "%s: models/model.json: member data is longer than its declared size of 40 "
                      "bytes");
    exdb_container_close(c);

    make_zip(p, e, 2);
    patch_uncompressed_size(p, "m/models/model.json", (uint32_t)strlen(PROG) + 5);
    c = open_ok(p);
    expect_read_error(c, NULL,
                      "%s: models/model.json: member data is shorter than its declared size (45 "
                      "of 50 bytes)");
    exdb_container_close(c);
}

Test(container, json_file_over_limit) {
    const char *p = test_tpath("big.json");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "{", 1), 1);
    cr_assert_eq(ftruncate(fd, (off_t)EXDB_MAX_PROGRAM_BYTES + 1), 0);
    close(fd);
    expect_open_error(
        p, "%s: file size 2147483649 bytes exceeds the 2147483648-byte limit for a program");
}

/* ---- save --------------------------------------------------------------- */

static size_t count_dir_entries(void) {
    size_t n = 0;
    DIR *d = opendir(test_tdir);
    struct dirent *de;
    cr_assert_not_null(d);
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static char *read_member(zip_t *za, zip_uint64_t i, size_t *len) {
    zip_stat_t st;
    cr_assert_eq(zip_stat_index(za, i, 0, &st), 0);
    char *p = malloc(st.size + 1);
    zip_file_t *f = zip_fopen_index(za, i, 0);
    cr_assert_not_null(f);
    cr_assert_eq(zip_fread(f, p, st.size), (zip_int64_t)st.size);
    zip_fclose(f);
    *len = st.size;
    return p;
}

/* Walks the local headers of a saved PT2 archive: every member's data must
 * start on a 64-byte boundary, padded by an 'FB' extra field of 'Z's. */
static void check_alignment(const char *path, size_t members) {
    size_t len, off = 0, seen = 0;
    unsigned char *p = slurp(path, &len);
    while (off + 30 <= len && rd32(p + off) == 0x04034b50) {
        size_t nlen = rd16(p + off + 26), xlen = rd16(p + off + 28);
        size_t data = off + 30 + nlen + xlen;
        cr_assert_eq(rd16(p + off + 8), 0, "stored");
        cr_assert_eq(data % 64, 0, "member %zu data at %zu", seen, data);
        cr_assert_geq(xlen, 4);
        cr_assert_eq(memcmp(p + off + 30 + nlen, "FB", 2), 0);
        cr_assert_eq(rd16(p + off + 30 + nlen + 2), xlen - 4);
        for (size_t k = 4; k < xlen; k++)
            cr_assert_eq(p[off + 30 + nlen + k], 'Z');
        off = data + rd32(p + off + 18);
        seen++;
    }
    cr_assert_eq(seen, members);
    free(p);
}

Test(container, save_pt2_round_trip) {
    const char *in = test_tpath("in.pt2"), *out = test_tpath("out.pt2");
    exdb_error err = {0};
    make_zip(in, pt2_entries, NPT2);
    exdb_container *c = open_ok(in);
    cr_assert_eq(exdb_container_save(c, NULL, PROG2, strlen(PROG2), out, 0, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(count_dir_entries(), 2, "no temporary file left behind");
    check_alignment(out, NPT2);

    exdb_container *d = open_ok(out);
    cr_assert_eq(exdb_container_kind_of(d), EXDB_CONT_PT2);
    cr_assert_str_eq(exdb_container_archive_name(d), "mymodel");
    expect_program(d, NULL, PROG2, "models/model.json");
    exdb_container_close(d);

    /* Every other member: same name, same order, same bytes, stored. */
    int code;
    zip_t *za = zip_open(out, ZIP_RDONLY, &code);
    cr_assert_not_null(za);
    cr_assert_eq(zip_get_num_entries(za, 0), (zip_int64_t)NPT2);
    for (size_t i = 0; i < NPT2; i++) {
        zip_stat_t st;
        cr_assert_eq(zip_stat_index(za, i, 0, &st), 0);
        cr_assert_str_eq(st.name, pt2_entries[i].name);
        cr_assert_eq(st.comp_method, ZIP_CM_STORE);
        size_t len;
        char *data = read_member(za, i, &len);
        if (strcmp(st.name, "mymodel/models/model.json") == 0) {
            cr_assert_eq(len, strlen(PROG2));
            cr_assert_eq(memcmp(data, PROG2, len), 0);
        } else {
            cr_assert_eq(len, entry_len(&pt2_entries[i]));
            cr_assert_eq(memcmp(data, pt2_entries[i].data, len), 0, "%s", st.name);
        }
        free(data);
    }
    zip_discard(za);

    /* force semantics */
    char want[EXDB_ERROR_MAX];
    snprintf(want, sizeof want, "%s: file exists (use --force to replace it)", out);
    cr_assert_eq(exdb_container_save(c, "model", PROG, strlen(PROG), out, 0, &err), -1);
    cr_assert_str_eq(err.msg, want);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_container_save(c, "model", PROG, strlen(PROG), out, 1, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(count_dir_entries(), 2);
    d = open_ok(out);
    expect_program(d, NULL, PROG, "models/model.json");
    exdb_container_close(d);

    /* an unknown model is refused before anything is written */
    snprintf(want, sizeof want, "%s: no model named \"x\" (models: model)", in);
    cr_assert_eq(exdb_container_save(c, "x", PROG, strlen(PROG), test_tpath("x.pt2"), 0, &err), -1);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(count_dir_entries(), 2);
    exdb_container_close(c);
}

/* Saving over the file the container was opened from works: the open
 * archive keeps reading the old inode. */
Test(container, save_in_place) {
    const char *p = test_tpath("self.pt2");
    exdb_error err = {0};
    make_zip(p, pt2_entries, NPT2);
    exdb_container *c = open_ok(p);
    cr_assert_eq(exdb_container_save(c, NULL, PROG2, strlen(PROG2), p, 1, &err), 0, "%s", err.msg);
    exdb_container_close(c);
    c = open_ok(p);
    expect_program(c, NULL, PROG2, "models/model.json");
    exdb_container_close(c);
    check_alignment(p, NPT2);
}

Test(container, save_two_models_keeps_the_other) {
    const entry e[] = {
        {"archive/archive_format", "pt2", 0, 0},
        {"archive/models/encoder.json", PROG, 0, 0},
        {"archive/models/decoder.json", PROG, 0, 1},
    };
    const char *in = test_tpath("two.pt2"), *out = test_tpath("two-out.pt2");
    exdb_error err = {0};
    make_zip(in, e, 3);
    exdb_container *c = open_ok(in);
    cr_assert_eq(exdb_container_save(c, "decoder", PROG2, strlen(PROG2), out, 0, &err), 0, "%s",
                 err.msg);
    exdb_container_close(c);
    check_alignment(out, 3);
    c = open_ok(out);
    expect_program(c, "decoder", PROG2, "models/decoder.json");
    expect_program(c, "encoder", PROG, "models/encoder.json");
    exdb_container_close(c);
}

Test(container, save_legacy_zip) {
    const entry e[] = {
        {"serialized_exported_program.json", PROG, 0, 1},
        {"serialized_state_dict.pt", "\x01\x02\x00\x03", 4, 0},
        {"version", "8.6", 0, 0},
    };
    const char *in = test_tpath("legacy.zip"), *out = test_tpath("legacy-out.zip");
    exdb_error err = {0};
    make_zip(in, e, 3);
    exdb_container *c = open_ok(in);
    cr_assert_eq(exdb_container_save(c, NULL, PROG2, strlen(PROG2), out, 0, &err), 0, "%s",
                 err.msg);
    exdb_container_close(c);
    c = open_ok(out);
    cr_assert_eq(exdb_container_kind_of(c), EXDB_CONT_LEGACY_ZIP);
    cr_assert_str_eq(exdb_container_version(c), "8.6");
    expect_program(c, NULL, PROG2, "serialized_exported_program.json");
    exdb_container_close(c);
    int code;
    zip_t *za = zip_open(out, ZIP_RDONLY, &code);
    size_t len;
    char *data = read_member(za, 1, &len);
    cr_assert_eq(len, 4);
    cr_assert_eq(memcmp(data, "\x01\x02\x00\x03", 4), 0);
    free(data);
    zip_discard(za);
}

Test(container, save_bare_json) {
    const char *in = test_tpath("a.json"), *out = test_tpath("b.json");
    exdb_error err = {0};
    write_file(in, PROG, strlen(PROG));
    exdb_container *c = open_ok(in);
    cr_assert_eq(exdb_container_save(c, NULL, PROG2, strlen(PROG2), out, 0, &err), 0, "%s",
                 err.msg);
    size_t len;
    unsigned char *d = slurp(out, &len);
    cr_assert_eq(len, strlen(PROG2));
    cr_assert_eq(memcmp(d, PROG2, len), 0);
    free(d);

    char want[EXDB_ERROR_MAX];
    snprintf(want, sizeof want, "%s: file exists (use --force to replace it)", out);
    cr_assert_eq(exdb_container_save(c, NULL, "{}", 2, out, 0, &err), -1);
    cr_assert_str_eq(err.msg, want);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_container_save(c, NULL, "{}", 2, out, 1, &err), 0, "%s", err.msg);
    d = slurp(out, &len);
    cr_assert_eq(len, 2);
    cr_assert_eq(memcmp(d, "{}", 2), 0);
    free(d);
    cr_assert_eq(count_dir_entries(), 2);
    exdb_container_close(c);
}

Test(container, save_into_missing_directory) {
    const char *in = test_tpath("a.json");
    char out[600], want[EXDB_ERROR_MAX];
    exdb_error err = {0};
    write_file(in, PROG, strlen(PROG));
    snprintf(out, sizeof out, "%s/no/such/dir/b.json", test_tdir);
    snprintf(want, sizeof want,
             "%s: cannot create a temporary file beside it: No such file or directory", out);
    exdb_container *c = open_ok(in);
    cr_assert_eq(exdb_container_save(c, NULL, "{}", 2, out, 0, &err), -1);
    cr_assert_str_eq(err.msg, want);
    exdb_container_close(c);
}

/* A member whose data does not match its declared size fails the save with
 * the member named, and leaves nothing behind. */
Test(container, save_with_corrupt_member) {
    const entry e[] = {
        {"m/archive_format", "pt2", 0, 0},
        {"m/models/model.json", PROG, 0, 0},
        {"m/data/weights/weight_0", "0123456789abcdef", 0, 1},
    };
    const char *in = test_tpath("bad.pt2"), *out = test_tpath("bad-out.pt2");
    char want[EXDB_ERROR_MAX];
    exdb_error err = {0};
    make_zip(in, e, 3);
    patch_uncompressed_size(in, "m/data/weights/weight_0", 8);
    exdb_container *c = open_ok(in);
    cr_assert_eq(exdb_container_save(c, NULL, PROG2, strlen(PROG2), out, 0, &err), -1);
    snprintf(want, sizeof want,
             "%s: data/weights/weight_0: cannot copy member: member data is longer than its "
             "declared size",
             in);
    cr_assert_str_eq(err.msg, want);
    cr_assert_eq(count_dir_entries(), 1);
    exdb_container_close(c);
}

/* The descriptors this process has open (/proc/self/fd), or -1. */
static int open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A bare JSON file's program is read through the descriptor the open
 * sniffed it with (one open, not two): a file renamed over it in between
 * is not read; the descriptor is closed by the read or, unread, by the
 * close, and a second read opens the file by its name again. */
Test(container, json_read_through_the_descriptor_it_was_opened_with) {
    const char *p = test_tpath("p.json"), *q = test_tpath("q.json");
    int before = open_fds();
    write_file(p, "{\"first\": 1}", 12);
    write_file(q, "{\"second\": 2}", 13);
    exdb_container *c = open_ok(p);
    cr_assert_eq(rename(q, p), 0);
    expect_program(c, NULL, "{\"first\": 1}", p);
    expect_program(c, NULL, "{\"second\": 2}", p);
    exdb_container_close(c);
    exdb_container_close(open_ok(p));
    cr_expect_eq(open_fds(), before, "no descriptor left open");
}
