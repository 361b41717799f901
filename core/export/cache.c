/* cache.c - see cache.h: the reopen cache's entries, their folder and its
 * bounds. Every file operation goes through the folder's descriptor
 * (openat, renameat, unlinkat) with O_NOFOLLOW: nothing is read or written
 * outside the folder, a symbolic link is never followed, and an entry is
 * written to a file of its own (O_EXCL) renamed over the old one. */
#define _GNU_SOURCE
#include "core/export/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "core/base/filemap.h"
#include "core/base/outfile.h"
#include "core/base/version.h"
#include "core/export/cache_format.h"
#include "core/export/cache_image.h"
#include "core/export/snapshot.h"

/* The format of an entry: cache_format.h. */
#define MAGIC "EXDBSHP1"
/* format 3: the image's spec records say which specs the slim text keeps
 * (those with a value, which format 2 kept as text entries) */
enum { FORMAT = 3, SCAN_MAX = 1024, CUTS_MAX = 16 };
#define NAME_SUFFIX ".shape"
/* The IR image of a built program (cache_ir.h): an entry of its own
 * beside the shape entry, with the same name but this suffix, so that a
 * reopen's prompt never reads (nor checks the sum of) its bytes. */
#define IR_MAGIC  "EXDBIR01"
#define IR_SUFFIX ".ir"
/* format 3: a name table's used slots alone, each with its place */
enum { IR_FORMAT = 3 };

typedef exdb_cache_head head;

static char dir_path[PATH_MAX];
static int cache_on;
static size_t entry_max = EXDB_CACHE_ENTRY_MAX, total_max = EXDB_CACHE_TOTAL_MAX;
static int limits_set; /* exdb_cache_limits called: the bounds as given, not scaled */
static uint64_t racy_ns = EXDB_CACHE_RACY_NS;

void exdb_cache_use(const char *dir) {
    cache_on = dir && *dir && strlen(dir) < sizeof dir_path;
    if (cache_on)
        snprintf(dir_path, sizeof dir_path, "%s", dir);
}

const char *exdb_cache_dir(void) {
    return cache_on ? dir_path : NULL;
}

void exdb_cache_limits(size_t entry, size_t total) {
    entry_max = entry;
    total_max = total;
    limits_set = 1;
}

void exdb_cache_racy(uint64_t ns) {
    racy_ns = ns;
}

static int ir_async;

void exdb_cache_ir_async(int on) {
    ir_async = on;
}

int exdb_cache_ir_async_on(void) {
    return ir_async;
}

/* The folder, opened (created 0700 with its parent when create), or -1:
 * none set, a symbolic link, not a folder, another user's or open to
 * others. */
static int open_dir(int create) {
    if (!cache_on)
        return -1;
    if (create) {
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", dir_path);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
            *slash = 0;
            mkdir(parent, 0700);
        }
        mkdir(dir_path, 0700);
    }
    int fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
                    (st.st_mode & 077))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int exdb_cache_dir_open(void) {
    return open_dir(1);
}

/* Whether a file of size bytes may be written under the soft
 * RLIMIT_FSIZE (past it the write raises SIGXFSZ, whose default action
 * ends the process: the library leaves the dispositions alone). */
static int fits_fsize(uint64_t size) {
    struct rlimit rl;
    return getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
           size <= (uint64_t)rl.rlim_cur;
}

/* ---- the key: the file's identity */

typedef struct key {
    char *path; /* canonical (realpath: malloc'd) */
    const char *model;
    uint64_t dev, ino, size, mtime_ns, ctime_ns;
} key;

static uint64_t ns(struct timespec t) {
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return ns(t);
}

static int key_of(const char *path, const char *model, key *k) {
    struct stat st;
    memset(k, 0, sizeof *k);
    k->model = model ? model : "";
    if (!(k->path = realpath(path, NULL)) || stat(k->path, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(k->path);
        k->path = NULL;
        return -1;
    }
    k->dev = (uint64_t)st.st_dev;
    k->ino = (uint64_t)st.st_ino;
    k->size = (uint64_t)st.st_size;
    k->mtime_ns = ns(st.st_mtim);
    k->ctime_ns = ns(st.st_ctim);
    return 0;
}

/* The entry's file name: 32 hex digits of an XXH3-128 of the key. */
static void key_name(const key *k, char out[48]) {
    XXH3_state_t *s = XXH3_createState();
    XXH128_hash_t h = {0, 0};
    if (s && XXH3_128bits_reset(s) == XXH_OK) {
        uint64_t nums[5] = {k->dev, k->ino, k->size, k->mtime_ns, k->ctime_ns};
        XXH3_128bits_update(s, k->path, strlen(k->path) + 1);
        XXH3_128bits_update(s, k->model, strlen(k->model) + 1);
        XXH3_128bits_update(s, nums, sizeof nums);
        h = XXH3_128bits_digest(s);
    }
    XXH3_freeState(s);
    snprintf(out, 48, "%016llx%016llx" NAME_SUFFIX, (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

/* ---- reading an entry */

static int read_all(int fd, char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The counts an entry holds, as a shape read could have made them: the
 * output node, one call_function per node plus its getitems, a get_attr
 * node per subgraph of the main graph (at most the subgraphs), no other
 * op. */
static int counts_sane(const head *hd) {
    const uint32_t *c = hd->counts, *op = c + 1;
    uint64_t sum = 0;
    for (int i = 0; i < 6; i++)
        sum += op[i];
    return hd->nserialized <= EXDB_MAX_NODES && op[EXDB_OP_OUTPUT] == 1 && sum == c[0] &&
           op[EXDB_OP_GET_ATTR] <= hd->nsubgraphs && op[EXDB_OP_CALL_METHOD] == 0 &&
           op[EXDB_OP_CALL_MODULE] == 0 &&
           (uint64_t)op[EXDB_OP_CALL_FUNCTION] == (uint64_t)hd->nserialized + c[7];
}

/* Whether hd, the head of data[0..n), is one of k's entries. */
/* Where an IR entry's payload starts: 8-aligned after its strings. */
static uint64_t ir_payload_at(const head *hd) {
    uint64_t strs = (uint64_t)hd->path_len + hd->model_len + hd->member_len + 3;
    return (sizeof *hd + strs + 7) & ~(uint64_t)7;
}

/* Whether hd, the head of data[0..n), is one of k's entries (ir: an IR
 * entry's). */
static int head_ok(const char *data, size_t n, const key *k, const head *hd, int ir) {
    uint64_t strs = (uint64_t)hd->path_len + hd->model_len + hd->member_len + 3;
    char ver[sizeof hd->version + 1];
    memcpy(ver, hd->version, sizeof hd->version);
    ver[sizeof hd->version] = 0;
    if (memcmp(hd->magic, ir ? IR_MAGIC : MAGIC, 8) != 0 ||
        hd->format != (ir ? IR_FORMAT : FORMAT) || hd->head_size != sizeof *hd ||
        strcmp(ver, exdb_version()) != 0)
        return 0;
    if (ir && (hd->image_len || hd->payload_len > n || strs > n ||
               ir_payload_at(hd) + hd->payload_len + 8 != n))
        return 0;
    /* a text entry (no image) has no records either */
    if (!hd->image_len && (hd->image_inputs || hd->image_outputs || hd->image_calls))
        return 0;
    if (!ir && (hd->payload_len > n || strs > n || hd->image_len > n ||
                sizeof *hd + strs + hd->payload_len + 1 + hd->image_len + 8 != n))
        return 0;
    if (hd->dev != k->dev || hd->ino != k->ino || hd->size != k->size ||
        hd->mtime_ns != k->mtime_ns || hd->ctime_ns != k->ctime_ns)
        return 0;
    /* racy: the file changed within seconds of the entry (git's racy clean) */
    if (hd->created_ns < hd->mtime_ns + racy_ns || hd->created_ns < hd->ctime_ns + racy_ns)
        return 0;
    const char *p = data + sizeof *hd;
    if (hd->path_len != strlen(k->path) || memcmp(p, k->path, hd->path_len + 1) != 0)
        return 0;
    p += hd->path_len + 1;
    if (hd->model_len != strlen(k->model) || memcmp(p, k->model, hd->model_len + 1) != 0)
        return 0;
    p += hd->model_len + 1;
    if (memchr(p, 0, hd->member_len + 1) != p + hd->member_len)
        return 0;
    p += hd->member_len + 1;
    if (ir)
        return counts_sane(hd);
    return p[hd->payload_len] == 0 && memchr(p, 0, hd->payload_len) == NULL && counts_sane(hd);
}

/* The entry open at fd for key k into h: 1, or 0 when it is not one to
 * trust. */
static uint64_t ir_entry_max(uint64_t file_size);

static int read_entry(int fd, const key *k, exdb_cache_hit *h, int ir) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (uint64_t)st.st_size < sizeof(head) + 3 + 1 + 8 ||
        (uint64_t)st.st_size > (ir ? ir_entry_max(k->size) : entry_max))
        return 0;
    size_t n = (size_t)st.st_size;
    const char *map = NULL;
    char *data = NULL;
    /* mapped (the page cache's pages, not a copy of them), else read */
    if (exdb_filemap_map(fd, n, &map) == 0) {
        madvise((void *)((uintptr_t)map & ~(uintptr_t)4095), n, MADV_WILLNEED);
        data = (char *)map;
    } else if (!(data = malloc(n)) || read_all(fd, data, n) < 0) {
        goto bad;
    }
    uint64_t sum;
    memcpy(&sum, data + n - 8, 8);
    head hd;
    memcpy(&hd, data, sizeof hd);
    if (XXH3_64bits(data, n - 8) != sum || !head_ok(data, n, k, &hd, ir))
        goto bad;
    h->data = data;
    h->mapped = map != NULL;
    h->member = data + sizeof hd + hd.path_len + 1 + hd.model_len + 1;
    h->text = h->member + hd.member_len + 1;
    h->len = hd.payload_len;
    h->image = h->text + hd.payload_len + 1;
    h->image_len = hd.image_len;
    if (ir) { /* the IR image is the payload */
        h->text = NULL;
        h->image = data + ir_payload_at(&hd);
        h->image_len = hd.payload_len;
    }
    h->image_inputs = hd.image_inputs;
    h->image_outputs = hd.image_outputs;
    h->image_calls = hd.image_calls;
    h->text_hash = hd.text_hash;
    h->text_len = hd.text_len;
    h->nserialized = hd.nserialized;
    h->nsubgraphs = hd.nsubgraphs;
    h->counts.nodes = hd.counts[0];
    memcpy(h->counts.ops, hd.counts + 1, sizeof h->counts.ops);
    h->counts.getitems = hd.counts[7];
    return 1;
bad:
    if (map)
        exdb_filemap_release(map);
    else
        free(data);
    return 0;
}

/* The entry of path (model) into h (ir: its IR entry). */
static int find(const char *path, const char *model, exdb_cache_hit *h, int ir) {
    memset(h, 0, sizeof *h);
    key k;
    int dfd = cache_on ? open_dir(0) : -1;
    if (dfd < 0)
        return 0;
    int found = 0;
    if (key_of(path, model, &k) == 0) {
        key_name(&k, h->name);
        if (ir)
            strcpy(h->name + 32, IR_SUFFIX);
        int fd = openat(dfd, h->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            futimens(fd, NULL); /* used now: the last to be evicted (before it is mapped) */
            found = read_entry(fd, &k, h, ir);
            close(fd);
        }
        if (!found && (fd >= 0 || errno == ELOOP))
            unlinkat(dfd, h->name, 0);
        free(k.path);
    }
    close(dfd);
    return found;
}

int exdb_cache_find(const char *path, const char *model, exdb_cache_hit *h) {
    return find(path, model, h, 0);
}

int exdb_cache_ir_find(const char *path, const char *model, exdb_cache_hit *h) {
    return find(path, model, h, 1);
}

int exdb_cache_ir_present(const char *path, const char *model) {
    key k;
    char name[48];
    struct stat st;
    int dfd = cache_on ? open_dir(0) : -1, found = 0;
    if (dfd < 0)
        return 0;
    if (key_of(path, model, &k) == 0) {
        key_name(&k, name);
        strcpy(name + 32, IR_SUFFIX);
        found = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
        strcpy(name + 32, NAME_SUFFIX); /* used only with its shape entry */
        found = found && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
        free(k.path);
    }
    close(dfd);
    return found;
}

void exdb_cache_hit_free(exdb_cache_hit *h) {
    if (h->mapped)
        exdb_filemap_release(h->data);
    else
        free(h->data);
    h->data = NULL;
}

void exdb_cache_drop(const exdb_cache_hit *h) {
    int dfd = open_dir(0);
    if (dfd < 0)
        return;
    unlinkat(dfd, h->name, 0);
    close(dfd);
}

/* ---- the payload: the text with the main graph's lazy members emptied */

typedef struct cut {
    size_t lo, hi; /* text[lo..hi) left out */
} cut;

static size_t skip_ws_back(const char *t, size_t i) {
    while (i > 0 && strchr(" \t\r\n", t[i - 1]))
        i--;
    return i;
}

/* The opening quote of the key whose value starts at text[at] (the
 * quote not escaped: after an even run of backslashes), or SIZE_MAX. */
static size_t key_start(const char *t, size_t at) {
    size_t i = skip_ws_back(t, at);
    if (i == 0 || t[i - 1] != ':')
        return SIZE_MAX;
    i = skip_ws_back(t, i - 1);
    if (i == 0 || t[i - 1] != '"')
        return SIZE_MAX;
    for (i--; i > 0; i--) {
        if (t[i - 1] != '"')
            continue;
        size_t b = i - 1;
        while (b > 0 && t[b - 1] == '\\')
            b--;
        if ((i - 1 - b) % 2 == 0)
            return i - 1;
    }
    return SIZE_MAX;
}

/* The cut emptying member m (an array or object of lazy elements only):
 * 0, or -1 when its text is not as expected. */
static int cut_member(const exdb_json *m, const char *t, size_t len, cut *c) {
    for (uint32_t i = 0; i < m->len; i++)
        if (m->u.kids[i].type != EXDB_JRAW)
            return -1;
    const exdb_json *first = &m->u.kids[0], *last = &m->u.kids[m->len - 1];
    if (first->u.str < t || last->u.str + last->len > t + len || first->u.str > last->u.str)
        return -1;
    c->lo = (size_t)(first->u.str - t);
    c->hi = (size_t)(last->u.str + last->len - t);
    int obj = m->type == EXDB_JOBJECT;
    if (obj && (c->lo = key_start(t, c->lo)) == SIZE_MAX)
        return -1;
    size_t open = skip_ws_back(t, c->lo), close = c->hi;
    while (close < len && strchr(" \t\r\n", t[close]))
        close++;
    if (open == 0 || t[open - 1] != (obj ? '{' : '[') || close >= len ||
        t[close] != (obj ? '}' : ']'))
        return -1;
    return 0;
}

/* The cuts of root's graph_module.graph lazy members, in file order: their
 * count, or -1. */
static int find_cuts(const exdb_json *root, const char *t, size_t len, cut *cuts) {
    int n = 0;
    static const char *const lazy[] = {"nodes", "tensor_values"};
    for (uint32_t i = 0; exdb_json_is(root, EXDB_JOBJECT) && i < root->len; i++) {
        const exdb_json *gm = &root->u.kids[i];
        if (strcmp(gm->key, "graph_module") != 0 || gm->type != EXDB_JOBJECT)
            continue;
        for (uint32_t j = 0; j < gm->len; j++) {
            const exdb_json *g = &gm->u.kids[j];
            if (strcmp(g->key, "graph") != 0 || g->type != EXDB_JOBJECT)
                continue;
            for (uint32_t m = 0; m < g->len; m++) {
                const exdb_json *e = &g->u.kids[m];
                int is_lazy = !strcmp(e->key, lazy[0]) || !strcmp(e->key, lazy[1]);
                if (!is_lazy || (e->type != EXDB_JARRAY && e->type != EXDB_JOBJECT) || !e->len)
                    continue;
                if (n == CUTS_MAX || cut_member(e, t, len, &cuts[n]) < 0 ||
                    (n > 0 && cuts[n].lo < cuts[n - 1].hi))
                    return -1;
                n++;
            }
        }
    }
    return n;
}

/* ---- writing an entry */

typedef struct writer {
    int fd, failed;
    XXH3_state_t *hs;
} writer;

static void put(writer *w, const void *p, size_t n) {
    if (w->failed)
        return;
    XXH3_64bits_update(w->hs, p, n);
    if (exdb_out_write_all(w->fd, p, n) < 0)
        w->failed = 1;
}

/* Writes the entry (head hd, strings, the text's pieces between cuts)
 * to a new file in dfd named name: 0, or -1 (nothing left behind). */
/* The head of an entry (shape or IR: magic, format) of program p, read
 * from the file keyed k and its member, written at now, payload bytes. */
static head head_of(const char *magic, uint32_t format, const key *k, uint64_t now,
                    const exdb_program *p, const char *member, uint64_t payload) {
    head hd = {.format = format,
               .head_size = sizeof hd,
               .dev = k->dev,
               .ino = k->ino,
               .size = k->size,
               .mtime_ns = k->mtime_ns,
               .ctime_ns = k->ctime_ns,
               .created_ns = now,
               .text_len = p->json_bytes,
               .text_hash = p->snapshot->program_hash,
               .payload_len = payload,
               .nserialized = p->nserialized_nodes,
               .nsubgraphs = exdb_program_subgraph_count(p),
               .path_len = (uint32_t)strlen(k->path),
               .model_len = (uint32_t)strlen(k->model),
               .member_len = (uint32_t)strlen(member)};
    memcpy(hd.magic, magic, sizeof hd.magic); /* 8 bytes, no NUL */
    snprintf(hd.version, sizeof hd.version, "%s", exdb_version());
    return hd;
}

static int write_entry(int dfd, const char *name, const head *hd, const key *k, const char *member,
                       const char *text, size_t len, const cut *cuts, int ncuts,
                       const char *image) {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "tmp.%ld.%llx", (long)getpid(), (unsigned long long)now_ns());
    writer w = {openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), 0,
                XXH3_createState()};
    if (w.fd < 0 || !w.hs || XXH3_64bits_reset(w.hs) != XXH_OK)
        w.failed = 1;
    put(&w, hd, sizeof *hd);
    put(&w, k->path, hd->path_len + 1);
    put(&w, k->model, hd->model_len + 1);
    put(&w, member, hd->member_len + 1);
    size_t at = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i].lo : len;
        put(&w, text + at, to - at);
        at = i < ncuts ? cuts[i].hi : len;
    }
    put(&w, "", 1);
    put(&w, image, hd->image_len);
    uint64_t sum = w.failed ? 0 : XXH3_64bits_digest(w.hs);
    put(&w, &sum, sizeof sum);
    XXH3_freeState(w.hs);
    if (w.fd >= 0 && close(w.fd) != 0)
        w.failed = 1;
    if (w.fd >= 0 && (w.failed || renameat(dfd, tmp, dfd, name) != 0)) {
        unlinkat(dfd, tmp, 0);
        return -1;
    }
    return w.failed ? -1 : 0;
}

static void evict(int dfd);

/* Whether an entry of p may be written for the file at path: the cache
 * on, the file's key in *k (its path freed by the caller) and the time in
 * *now; not when the file changed within seconds (its next change could
 * keep its size and times). */
static int put_key(const char *path, const char *model, const char *member, const exdb_program *p,
                   key *k, uint64_t *now) {
    if (!cache_on || !member || !p->snapshot || key_of(path, model, k) < 0)
        return 0;
    *now = now_ns();
    if (*now < k->mtime_ns + racy_ns || *now < k->ctime_ns + racy_ns) {
        free(k->path);
        return 0;
    }
    return 1;
}

void exdb_cache_put(const char *path, const char *model, const char *member, const exdb_program *p,
                    const exdb_json *root) {
    key k;
    cut cuts[CUTS_MAX];
    uint64_t now;
    if (!put_key(path, model, member, p, &k, &now))
        return;
    /* the image, else the text with its lazy members emptied */
    exdb_cache_image im;
    int image = exdb_cache_image_make(p, root, &im) == 0;
    const char *text = image ? im.json.s : p->buf;
    size_t len = image ? im.json.len : p->json_bytes;
    int ncuts = image ? 0 : find_cuts(root, text, len, cuts);
    size_t payload = len;
    for (int i = 0; i < ncuts; i++)
        payload -= cuts[i].hi - cuts[i].lo;
    head hd = head_of(MAGIC, FORMAT, &k, now, p, member, payload);
    if (image) {
        hd.image_len = im.image.len;
        hd.image_inputs = im.ninputs;
        hd.image_outputs = im.noutputs;
        hd.image_calls = im.ncalls;
    }
    hd.counts[0] = p->shape.nodes;
    memcpy(hd.counts + 1, p->shape.ops, sizeof p->shape.ops);
    hd.counts[7] = p->shape.getitems;
    uint64_t size =
        sizeof hd + hd.path_len + hd.model_len + hd.member_len + 3 + payload + 1 + hd.image_len + 8;
    int dfd = -1;
    /* nor past the bound */
    if (ncuts >= 0 && size <= entry_max && size <= total_max && fits_fsize(size) &&
        (dfd = open_dir(1)) >= 0) {
        char name[48];
        key_name(&k, name);
        if (write_entry(dfd, name, &hd, &k, member, text, len, cuts, ncuts,
                        image ? im.image.s : NULL) == 0)
            evict(dfd);
    }
    if (dfd >= 0)
        close(dfd);
    if (image)
        exdb_cache_image_free(&im);
    free(k.path);
}

/* ---- IR entries (cache_ir.h) */

#define GIB ((uint64_t)1 << 30)

/* All entries together: total_max, or, unless the bounds were set, up to
 * 4 GiB or a tenth of the file system's free space when that is more (an
 * IR image is about a quarter of its text: synth_1M's ~0.5 GB). */
static uint64_t total_bound(int dfd) {
    struct statvfs fs;
    uint64_t t = total_max;
    if (!limits_set && dfd >= 0 && fstatvfs(dfd, &fs) == 0) {
        uint64_t free10 = (uint64_t)fs.f_bavail * fs.f_frsize / 10;
        uint64_t more = free10 < 4 * GIB ? free10 : 4 * GIB;
        if (more > t)
            t = more;
    }
    return t;
}

/* An IR entry of a file of file_size bytes: entry_max, or, unless the
 * bounds were set, up to the file's size. */
static uint64_t ir_entry_max(uint64_t file_size) {
    return !limits_set && file_size > entry_max ? file_size : entry_max;
}

void exdb_cache_ir_put(int given, const char *path, const char *model, const char *member,
                       const exdb_program *p, const exdb_cache_piece *pieces, int npieces) {
    key k;
    size_t len = 0;
    for (int i = 0; i < npieces; i++)
        len += pieces[i].n;
    uint64_t now;
    if (!put_key(path, model, member, p, &k, &now))
        return;
    exdb_node_counts c;
    exdb_program_node_counts(p, &c);
    head hd = head_of(IR_MAGIC, IR_FORMAT, &k, now, p, member, len);
    hd.counts[0] = c.nodes;
    memcpy(hd.counts + 1, c.ops, sizeof c.ops);
    hd.counts[7] = c.getitems;
    uint64_t at = ir_payload_at(&hd), size = at + len + 8;
    int dfd = -1;
    if (size <= ir_entry_max(k.size) && fits_fsize(size) &&
        (dfd = given >= 0 ? given : open_dir(1)) >= 0 && size <= total_bound(dfd)) {
        char name[48], tmp[64];
        key_name(&k, name);
        strcpy(name + 32, IR_SUFFIX);
        snprintf(tmp, sizeof tmp, "tmp.%ld.%llx", (long)getpid(), (unsigned long long)now_ns());
        writer w = {openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), 0,
                    XXH3_createState()};
        if (w.fd < 0 || !w.hs || XXH3_64bits_reset(w.hs) != XXH_OK)
            w.failed = 1;
        static const char zeros[8];
        put(&w, &hd, sizeof hd);
        put(&w, k.path, hd.path_len + 1);
        put(&w, k.model, hd.model_len + 1);
        put(&w, member, hd.member_len + 1);
        put(&w, zeros, (size_t)(at - (sizeof hd + hd.path_len + hd.model_len + hd.member_len + 3)));
        for (int i = 0; i < npieces; i++)
            put(&w, pieces[i].p, pieces[i].n);
        uint64_t sum = w.failed ? 0 : XXH3_64bits_digest(w.hs);
        put(&w, &sum, sizeof sum);
        XXH3_freeState(w.hs);
        if (w.fd >= 0 && close(w.fd) != 0)
            w.failed = 1;
        if (w.fd >= 0 && (w.failed || renameat(dfd, tmp, dfd, name) != 0))
            unlinkat(dfd, tmp, 0);
        else if (!w.failed)
            evict(dfd);
    }
    if (dfd >= 0 && dfd != given)
        close(dfd);
    free(k.path);
}

/* ---- the folder's entries */

typedef struct slot {
    uint64_t mtime_ns, size;
    char name[48];
} slot;

/* Whether name is an entry's (32 hex digits and the suffix) or a
 * temporary file's. */
static int entry_name(const char *name) {
    size_t n = strlen(name);
    if ((n == 32 + strlen(NAME_SUFFIX) && strcmp(name + 32, NAME_SUFFIX) == 0) ||
        (n == 32 + strlen(IR_SUFFIX) && strcmp(name + 32, IR_SUFFIX) == 0))
        return strspn(name, "0123456789abcdef") == 32;
    return 0;
}

static int tmp_name(const char *name) {
    return strncmp(name, "tmp.", 4) == 0;
}

static int by_mtime(const void *a, const void *b) {
    uint64_t x = ((const slot *)a)->mtime_ns, y = ((const slot *)b)->mtime_ns;
    return x < y ? -1 : x > y;
}

/* The index of the oldest of slots[0..n). */
static uint32_t oldest(const slot *slots, uint32_t n) {
    uint32_t o = 0;
    for (uint32_t i = 1; i < n; i++)
        if (slots[i].mtime_ns < slots[o].mtime_ns)
            o = i;
    return o;
}

/* The entries of the folder open at dfd into slots (the SCAN_MAX most
 * recently used), their bytes in *bytes; when clean, the older entries
 * past SCAN_MAX, what is not a regular file, and a temporary file older
 * than an hour (a writer that died) removed. */
static uint32_t scan(int dfd, slot *slots, uint64_t *bytes, int clean) {
    *bytes = 0;
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    uint32_t n = 0;
    uint64_t now = now_ns();
    struct dirent *e;
    while ((e = readdir(d))) {
        int ent = entry_name(e->d_name);
        struct stat st;
        if ((!ent && !tmp_name(e->d_name)) ||
            fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISREG(st.st_mode) || (!ent && ns(st.st_mtim) + 3600ull * 1000000000u < now)) {
            if (clean)
                unlinkat(dfd, e->d_name, 0);
            continue;
        }
        if (!ent)
            continue;
        uint32_t at = n;
        if (n < SCAN_MAX) {
            n++;
        } else { /* full: the older of this one and the oldest listed goes */
            at = oldest(slots, n);
            int newer = slots[at].mtime_ns < ns(st.st_mtim);
            if (clean)
                unlinkat(dfd, newer ? slots[at].name : e->d_name, 0);
            if (!newer)
                continue;
            *bytes -= slots[at].size;
        }
        slots[at].mtime_ns = ns(st.st_mtim);
        slots[at].size = (uint64_t)st.st_size;
        memcpy(slots[at].name, e->d_name, strlen(e->d_name) + 1); /* entry_name: 38 bytes */
        *bytes += slots[at].size;
    }
    closedir(d);
    return n;
}

static slot slots_buf[SCAN_MAX];

/* The name of the other entry of name's file (its .ir for its .shape, and
 * back) in out. */
static void partner_name(const char *name, char out[48]) {
    memcpy(out, name, 32);
    strcpy(out + 32, strcmp(name + 32, IR_SUFFIX) == 0 ? NAME_SUFFIX : IR_SUFFIX);
}

/* The oldest entries removed while all of them pass total_bound, each
 * with its file's other entry (an IR entry without its shape entry is
 * never used). */
static void evict(int dfd) {
    uint64_t bytes, total = total_bound(dfd);
    uint32_t n = scan(dfd, slots_buf, &bytes, 1);
    qsort(slots_buf, n, sizeof *slots_buf, by_mtime);
    for (uint32_t i = 0; i < n && bytes > total; i++) {
        if (unlinkat(dfd, slots_buf[i].name, 0) != 0)
            continue;
        bytes -= slots_buf[i].size;
        char other[48];
        partner_name(slots_buf[i].name, other);
        if (unlinkat(dfd, other, 0) != 0)
            continue;
        for (uint32_t j = i + 1; j < n; j++)
            if (strcmp(slots_buf[j].name, other) == 0) {
                bytes -= slots_buf[j].size;
                slots_buf[j].name[0] = 0; /* gone */
                break;
            }
    }
}

void exdb_cache_stat(exdb_cache_info *info) {
    memset(info, 0, sizeof *info);
    info->dir = exdb_cache_dir();
    info->entry_max = entry_max;
    info->total_max = total_max;
    int dfd = open_dir(0);
    if (dfd < 0)
        return;
    info->entries = scan(dfd, slots_buf, &info->bytes, 0);
    close(dfd);
}

uint32_t exdb_cache_clear(void) {
    int dfd = open_dir(0);
    if (dfd < 0)
        return 0;
    uint64_t bytes;
    uint32_t n = scan(dfd, slots_buf, &bytes, 1), removed = 0;
    for (uint32_t i = 0; i < n; i++)
        removed += unlinkat(dfd, slots_buf[i].name, 0) == 0;
    close(dfd);
    return removed;
}
