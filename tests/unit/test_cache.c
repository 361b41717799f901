/* test_cache.c - the reopen cache (core/export/cache.h): a program opened
 * shape first from its entry answers as from its file; an entry that is
 * truncated, flipped, of another version or format, whose lengths are
 * huge, or that is not a regular file is ignored and removed (the open
 * goes on as without it); one that parses but lies about the file's hash
 * or counts is refused by the build as a file changed on disk, and
 * removed; an image whose spec records do not say where the slim text's
 * specs with a value go is ignored and removed; the folder is never used through a symbolic link or
 * when open to others; the bounds hold. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "core/base/strbuf.h"
#include "core/export/cache.h"
#include "core/export/cache_format.h"
#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/fx/print.h"

#include "testutil.h"

#define JSON "tests/fixtures/llm_decoder.json"
#define PT2  "tests/fixtures/kwargs.pt2"

typedef exdb_cache_head head; /* cache_format.h */

static uint32_t shape_was;
static char dir[300];

static void setup(void) {
    test_tmpdir_make("cache");
    snprintf(dir, sizeof dir, "%s/exdb", test_tdir);
    exdb_cache_use(dir);
    exdb_cache_racy(1); /* the fixtures may be fresh from a checkout */
    shape_was = exdb_program_shape_first(0);
}

static void rm_dir(const char *d) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    cr_assert_eq(system(cmd), 0);
}

static void teardown(void) {
    exdb_cache_use(NULL);
    exdb_cache_racy(EXDB_CACHE_RACY_NS);
    exdb_cache_limits(EXDB_CACHE_ENTRY_MAX, EXDB_CACHE_TOTAL_MAX);
    exdb_program_shape_first(shape_was);
    rm_dir(dir);
    test_tmpdir_remove();
}

TestSuite(cache, .init = setup, .fini = teardown);

/* What an open of path says: info program before and after the build,
 * the graph, or the error. */
static char *answers(const char *path) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(path, NULL, &err);
    if (!p) {
        exdb_buf_printf(&b, "open: %s\n", err.msg);
    } else {
        exdb_print_program_info(&b, p);
        if (exdb_program_build(p, &err) < 0) {
            exdb_buf_printf(&b, "build: %s\n", err.msg);
        } else {
            exdb_print_program_info(&b, p);
            exdb_print_graph(&b, p->graph);
        }
        exdb_program_free(p);
    }
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* The one entry in the folder ("" when none; several fail). */
static const char *entry(void) {
    static char path[1024];
    path[0] = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".shape") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            n++;
        }
    }
    if (d)
        closedir(d);
    cr_assert(n <= 1, "%d entries", n);
    return path;
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(*n + 1);
    cr_assert_eq(fread(s, 1, *n, f), *n);
    fclose(f);
    return s;
}

static void spit(const char *path, const char *s, size_t n) {
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, s, n), (ssize_t)n);
    close(fd);
}

/* The entry's head changed by edit, its checksum made right again. */
static void forge(void (*edit)(head *)) {
    const char *e = entry();
    size_t n;
    char *s = slurp(e, &n);
    head h;
    memcpy(&h, s, sizeof h);
    edit(&h);
    memcpy(s, &h, sizeof h);
    if (h.image_len && h.image_inputs == 0xFFFF) { /* the first input record's name offset */
        memcpy(&h, s, sizeof h);
        h.image_inputs = 1;
        memcpy(s, &h, sizeof h);
        size_t at = sizeof h + h.path_len + h.model_len + h.member_len + 3 + h.payload_len + 1;
        uint32_t far = 0x7FFFFFFF;
        memcpy(s + at + 4, &far, 4);
    }
    uint64_t sum = XXH3_64bits(s, n - 8);
    memcpy(s + n - 8, &sum, 8);
    spit(e, s, n);
    free(s);
}

/* path's answers without cache, opened once to write the entry (from its
 * file), then again (from the entry): all the same. */
static char *reference(const char *path) {
    exdb_cache_use(NULL);
    char *ref = answers(path);
    exdb_cache_use(dir);
    char *first = answers(path);
    cr_assert_str_eq(first, ref);
    cr_assert_str_neq(entry(), "", "no entry written for %s", path);
    char *again = answers(path);
    cr_assert_str_eq(again, ref);
    free(first);
    free(again);
    return ref;
}

Test(cache, reopen_gives_the_same_answers) {
    static const char *const files[] = {JSON, PT2, "tests/fixtures/example.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *ref = reference(files[i]);
        free(ref);
        rm_dir(dir);
    }
}

/* A broken entry: the open answers as without it; the entry is replaced
 * by a good one. */
static void broken(const char *path, void (*breakit)(const char *entry)) {
    char *ref = reference(path);
    size_t good_n;
    char *good = slurp(entry(), &good_n);
    breakit(entry());
    char *got = answers(path);
    cr_assert_str_eq(got, ref);
    size_t n;
    char *now = slurp(entry(), &n);
    /* the same but for its time and checksum (the head too: a forged head
     * kept would otherwise pass) */
    head a, b;
    if (n == good_n && n >= sizeof a) {
        memcpy(&a, now, sizeof a);
        memcpy(&b, good, sizeof b);
        a.created_ns = b.created_ns = 0;
    }
    cr_assert(n == good_n && memcmp(&a, &b, sizeof a) == 0 &&
                  memcmp(now + sizeof(head), good + sizeof(head), n - sizeof(head) - 8) == 0,
              "the entry was not written again");
    free(now);
    free(good);
    free(got);
    free(ref);
}

static void truncate_half(const char *e) {
    size_t n;
    char *s = slurp(e, &n);
    spit(e, s, n / 2);
    free(s);
}

static void truncate_all(const char *e) {
    spit(e, "", 0);
}

static void flip_middle(const char *e) {
    size_t n;
    char *s = slurp(e, &n);
    s[n / 2] ^= 0x20;
    spit(e, s, n);
    free(s);
}

static void flip_hash(const char *e) {
    size_t n;
    char *s = slurp(e, &n);
    s[n - 1] ^= 1;
    spit(e, s, n);
    free(s);
}

static void other_version(head *h) {
    snprintf(h->version, sizeof h->version, "0.0.1");
}
static void other_format(head *h) {
    h->format = 99;
}
static void huge_payload(head *h) {
    h->payload_len = (uint64_t)1 << 62;
}
static void huge_path(head *h) {
    h->path_len = UINT32_MAX - 1;
}
static void wrap_lengths(head *h) {
    h->payload_len = UINT64_MAX - 100;
}
static void racy(head *h) {
    h->created_ns = h->mtime_ns;
}
static void insane_counts(head *h) {
    h->counts[0] += 7; /* nodes: not the sum of the ops */
}
static void too_many_nodes(head *h) {
    h->nserialized = 4000001;
}
static void huge_image(head *h) {
    h->image_inputs = UINT32_MAX; /* more records than bytes (a text entry: records it has not) */
    h->image_calls = UINT32_MAX;
}
static void far_string(head *h) {
    if (h->image_len)
        h->image_inputs = 0xFFFF; /* forge: a string offset past the table */
    else
        h->counts[0]++;
}
static void forge_version(const char *e) {
    (void)e;
    forge(other_version);
}
static void forge_format(const char *e) {
    (void)e;
    forge(other_format);
}
static void forge_huge_payload(const char *e) {
    (void)e;
    forge(huge_payload);
}
static void forge_huge_path(const char *e) {
    (void)e;
    forge(huge_path);
}
static void forge_wrap(const char *e) {
    (void)e;
    forge(wrap_lengths);
}
static void forge_racy(const char *e) {
    (void)e;
    forge(racy);
}
static void forge_counts(const char *e) {
    (void)e;
    forge(insane_counts);
}
static void forge_nodes(const char *e) {
    (void)e;
    forge(too_many_nodes);
}
static void forge_huge_image(const char *e) {
    (void)e;
    forge(huge_image);
}
static void forge_far_string(const char *e) {
    (void)e;
    forge(far_string);
}

/* a symbolic link to a good entry in its place: not followed */
static void symlink_entry(const char *e) {
    char real[800];
    snprintf(real, sizeof real, "%s/elsewhere", test_tdir);
    cr_assert_eq(rename(e, real), 0);
    cr_assert_eq(symlink(real, e), 0);
}

/* a FIFO in its place: no read blocks on it */
static void fifo_entry(const char *e) {
    cr_assert_eq(unlink(e), 0);
    cr_assert_eq(mkfifo(e, 0600), 0);
}

Test(cache, a_broken_entry_is_ignored_and_replaced) {
    static void (*const breaks[])(const char *) = {
        truncate_half, truncate_all, flip_middle,        flip_hash,
        forge_version, forge_format, forge_huge_path,    forge_wrap,
        forge_racy,    forge_counts, forge_huge_payload, forge_nodes,
        symlink_entry, fifo_entry,   forge_huge_image,   forge_far_string,
    };
    for (size_t i = 0; i < sizeof breaks / sizeof *breaks; i++) {
        for (int k = 0; k < 3; k++) {
            broken(k == 2 ? "tests/fixtures/example.json" : k ? PT2 : JSON, breaks[i]);
            rm_dir(dir);
            unlink(test_tpath("elsewhere"));
        }
    }
}

typedef exdb_cache_in_rec in_rec; /* cache_format.h */

/* The entry's input record of the first spec kept in the slim text (one
 * with a value) changed by edit (given the records, their count and the
 * string table's offset from them), its checksum made right again. */
static void forge_valued(void (*edit)(in_rec *r, in_rec *all, uint32_t n)) {
    const char *e = entry();
    size_t n;
    char *s = slurp(e, &n);
    head h;
    memcpy(&h, s, sizeof h);
    cr_assert(h.image_len > 0 && h.image_inputs > 0, "not an image entry");
    size_t at = sizeof h + h.path_len + h.model_len + h.member_len + 3 + h.payload_len + 1;
    in_rec *all = calloc(h.image_inputs, sizeof *all);
    memcpy(all, s + at, h.image_inputs * sizeof *all);
    uint32_t i = 0;
    while (i < h.image_inputs && all[i].json == UINT32_MAX)
        i++;
    cr_assert(i < h.image_inputs, "no input spec with a value");
    edit(&all[i], all, h.image_inputs);
    memcpy(s + at, all, h.image_inputs * sizeof *all);
    uint64_t sum = XXH3_64bits(s, n - 8);
    memcpy(s + n - 8, &sum, 8);
    spit(e, s, n);
    free(all);
    free(s);
}

static void past_the_slim_specs(in_rec *r, in_rec *all, uint32_t n) {
    (void)all, (void)n;
    r->json = 1; /* llm_decoder keeps one spec, use_cache: index 0 */
}
static void slim_spec_left_over(in_rec *r, in_rec *all, uint32_t n) {
    (void)all, (void)n;
    r->json = UINT32_MAX; /* the record stands for itself: the slim text's spec unused */
}
static void other_kind(in_rec *r, in_rec *all, uint32_t n) {
    (void)all, (void)n;
    r->kind = r->kind ? 0 : 1;
}
static void other_name(in_rec *r, in_rec *all, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (all[i].name != r->name && all[i].name != UINT32_MAX) {
            r->name = all[i].name; /* another spec's name, inside the table */
            return;
        }
    cr_assert_fail("no other name");
}
static void valued_twice(in_rec *r, in_rec *all, uint32_t n) {
    cr_assert(n > 1 && &all[0] != r && all[0].json == UINT32_MAX);
    all[0].json = 0; /* a record without a value says the slim text's first spec too */
}

static void forge_past(const char *e) {
    (void)e;
    forge_valued(past_the_slim_specs);
}
static void forge_left_over(const char *e) {
    (void)e;
    forge_valued(slim_spec_left_over);
}
static void forge_kind(const char *e) {
    (void)e;
    forge_valued(other_kind);
}
static void forge_name(const char *e) {
    (void)e;
    forge_valued(other_name);
}
static void forge_twice(const char *e) {
    (void)e;
    forge_valued(valued_twice);
}

/* The specs with a value (llm_decoder's constant input use_cache) stay in
 * the slim text of an image entry; records that place them wrongly make
 * the entry be ignored and replaced. */
Test(cache, an_image_misplacing_a_constant_spec_is_ignored_and_replaced) {
    static void (*const breaks[])(const char *) = {forge_past, forge_left_over, forge_kind,
                                                   forge_name, forge_twice};
    for (size_t i = 0; i < sizeof breaks / sizeof *breaks; i++) {
        broken(JSON, breaks[i]);
        rm_dir(dir);
    }
}

/* An entry that parses and says another hash, or other (sane) counts: the
 * build refuses the program as changed on disk and the entry goes; the
 * next open is the file's. */
static void lie_hash(head *h) {
    h->text_hash ^= 1;
}
static void lie_counts(head *h) {
    h->counts[0]++;
    h->counts[1 + EXDB_OP_CALL_FUNCTION]++;
    h->counts[7]++;
}

static void lies(const char *path, void (*edit)(head *)) {
    char *ref = reference(path);
    forge(edit);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(exdb_program_build(p, &err), -1);
    cr_assert(strstr(err.msg, "changed on disk since it was loaded; load it again"), "%s", err.msg);
    cr_assert_eq(exdb_program_build(p, &err), -1, "the same again");
    exdb_program_free(p);
    cr_assert_str_eq(entry(), "", "the lying entry was kept");
    char *got = answers(path);
    cr_assert_str_eq(got, ref);
    free(got);
    free(ref);
    rm_dir(dir);
}

Test(cache, a_lying_entry_is_refused_by_the_build) {
    lies(JSON, lie_hash);
    lies(PT2, lie_hash);
    lies(JSON, lie_counts);
    lies(PT2, lie_counts);
}

/* An archive's entry naming another member than the archive's (its
 * checksum right): the label, `info program` and the build's messages
 * would name it. */
static void other_member(const char *e) {
    size_t n;
    char *s = slurp(e, &n);
    head h;
    memcpy(&h, s, sizeof h);
    char *member = s + sizeof h + h.path_len + 1 + h.model_len + 1;
    cr_assert_str_eq(member, "models/model.json");
    member[h.member_len - 6] = '\n'; /* "models/mode\n.json": a message of two lines */
    uint64_t sum = XXH3_64bits(s, n - 8);
    memcpy(s + n - 8, &sum, 8);
    spit(e, s, n);
    free(s);
}

/* An archive's entry naming another member is ignored and replaced; a
 * bare JSON file's member is the path given now, not the one its entry
 * was written through. */
Test(cache, an_entry_naming_another_member) {
    broken(PT2, other_member);
    rm_dir(dir);
    char *ref = reference(JSON); /* the entry written through the relative path */
    char *abs = realpath(JSON, NULL);
    cr_assert_not_null(abs);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(abs, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_str_eq(p->member, abs);
    cr_assert_eq(exdb_program_build(p, &err), 0, "%s", err.msg);
    exdb_program_free(p);
    free(abs);
    free(ref);
}

/* The file changed between the open from the entry and the build: the
 * build refuses it (the text read then is not the one the entry was made
 * from). */
Test(cache, a_file_changed_after_a_cached_open) {
    size_t n;
    char *s = slurp(JSON, &n);
    const char *copy = test_tpath("copy.json");
    spit(copy, s, n);
    char *ref = reference(copy);
    exdb_error err = {0};
    exdb_program *p = exdb_program_open(copy, NULL, &err);
    cr_assert_not_null(p);
    s[n - 2] = s[n - 2] == ' ' ? '\n' : ' '; /* whitespace: the same program, another text */
    FILE *f = fopen(copy, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(s, 1, n, f), n);
    fclose(f);
    cr_assert_eq(exdb_program_build(p, &err), -1);
    cr_assert(strstr(err.msg, "changed on disk since it was loaded"), "%s", err.msg);
    exdb_program_free(p);
    free(ref);
    free(s);
}

/* Nothing outside a folder of the user's own, reached through no link. */
Test(cache, the_folder_must_be_private) {
    char real[600], link[600];
    snprintf(real, sizeof real, "%s/real", test_tdir);
    snprintf(link, sizeof link, "%s/link", test_tdir);
    cr_assert_eq(mkdir(real, 0700), 0);
    cr_assert_eq(symlink(real, link), 0);
    exdb_cache_use(link);
    char *a = answers(JSON), *b = answers(JSON);
    cr_assert_str_eq(a, b);
    exdb_cache_info ci;
    exdb_cache_stat(&ci);
    cr_assert_eq(ci.entries, 0);
    DIR *d = opendir(real);
    int n = 0;
    while (d && readdir(d))
        n++;
    closedir(d);
    cr_assert_eq(n, 2, "something was written through the link");
    cr_assert_eq(chmod(real, 0755), 0);
    exdb_cache_use(real);
    free(answers(JSON));
    exdb_cache_stat(&ci);
    cr_assert_eq(ci.entries, 0, "a folder open to others was used");
    unlink(link);
    rm_dir(real);
    exdb_cache_use(dir);
    free(a);
    free(b);
}

/* The bounds: an entry past entry_max is not written; past total_max the
 * oldest go. A file changed within the racy window gets none. */
Test(cache, bounds_and_racy_files) {
    exdb_cache_limits(1000, EXDB_CACHE_TOTAL_MAX);
    free(answers(JSON));
    cr_assert_str_eq(entry(), "");
    exdb_cache_limits(EXDB_CACHE_ENTRY_MAX, 1);
    free(answers(JSON));
    exdb_cache_info ci;
    exdb_cache_stat(&ci);
    cr_assert_eq(ci.entries, 0, "an entry past the total was kept");
    exdb_cache_limits(EXDB_CACHE_ENTRY_MAX, EXDB_CACHE_TOTAL_MAX);
    free(answers(JSON));
    free(answers(PT2));
    exdb_cache_stat(&ci);
    cr_assert_eq(ci.entries, 4); /* a shape and an IR entry each (the build writes it) */
    cr_assert_eq(exdb_cache_clear(), 4);
    exdb_cache_racy(3600ull * 1000000000u);
    size_t n;
    char *s = slurp(JSON, &n);
    const char *copy = test_tpath("fresh.json");
    spit(copy, s, n);
    free(answers(copy));
    exdb_cache_stat(&ci);
    cr_assert_eq(ci.entries, 0, "a fresh file got an entry");
    free(s);
}

/* Past 1,024 entries the least recently used go, whatever order the
 * folder lists them in: 1,100 old entries of shuffled times, then two new
 * ones (the open's shape entry, the build's IR entry); the new ones and
 * the 1,022 newest old ones stay. */
Test(cache, past_the_entry_count_the_oldest_go) {
    enum { OLD = 1100, KEPT = 1024 };
    cr_assert_eq(mkdir(dir, 0700), 0);
    for (uint32_t i = 0; i < OLD; i++) {
        char path[400];
        uint32_t age = (i * 7919u) % OLD; /* a permutation of 0..OLD-1 */
        snprintf(path, sizeof path, "%s/%032x.shape", dir, age);
        spit(path, "x", 1);
        struct timespec t[2] = {{1000000 + age, 0}, {1000000 + age, 0}};
        cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
    }
    free(answers(JSON));
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    uint32_t n = 0, fresh = 0, too_old = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned age;
        if (e->d_name[0] == '.')
            continue;
        n++;
        if (strlen(e->d_name) == 38 && strncmp(e->d_name, "000000000000000000000000", 24) == 0 &&
            sscanf(e->d_name + 24, "%8x.shape", &age) == 1)
            too_old += age < OLD - (KEPT - 2);
        else
            fresh++;
    }
    closedir(d);
    cr_assert_eq(n, KEPT);
    cr_assert_eq(fresh, 2, "an entry just written was removed");
    cr_assert_eq(too_old, 0, "%u older entries kept in place of newer ones", too_old);
}
