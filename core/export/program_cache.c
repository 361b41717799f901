/* program_cache.c - a program opened from the reopen cache (cache.h;
 * docs/json-reader.md, "Reopen cache"): program.c's shape-first open from
 * an entry instead of the file, and the first and last steps of its build
 * (the file read and checked against the entry). */
#include "core/export/program_impl.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/filemap.h"
#include "core/base/mem.h"
#include "core/export/cache_format.h"
#include "core/export/cache_image.h"
#include "core/export/cache_ir.h"
#include "core/export/load_meta.h"
#include "core/export/snapshot.h"

/* The entry a program was opened from does not say what its file holds:
 * it goes, and the build is refused as for a file changed since the open. */
static int cache_lied(struct exdb_program_pending *pd, exdb_error *err) {
    exdb_cache_drop(&pd->hit);
    exdb_error_clear(err);
    return exdb_errorf(err, "%s changed on disk since it was loaded; load it again", pd->L.fname);
}

/* The absolute path of p's file (the snapshot's: a cd does not matter). */
static const char *file_of(const exdb_program *p) {
    return p->snapshot ? exdb_snapshot_abs_path(p->snapshot) : p->path;
}

/* p's file read again for a build from the cache (its text into *buf,
 * *len, its hash into *hash when taken as read): 0, or -1 (memory, or
 * the file no longer the entry's member: cache_lied; err says which). */
static int read_file(exdb_program *p, struct exdb_program_pending *pd, char **buf, size_t *len,
                     uint64_t *hash, exdb_error *err) {
    exdb_container *c;
    const char *member;
    int rc = exdb_container_open(file_of(p), &c, err), other = 0;
    if (rc == 0) {
        rc = exdb_container_read_program_to_load(c, pd->model, buf, len, &member, hash, err);
        /* an archive's member is still the one the entry named (a bare
         * JSON file's is its path as given: exdb_program_cache_open) */
        other = rc == 0 && p->container_kind != EXDB_CONT_JSON && strcmp(member, pd->hit.member);
        exdb_container_close(c);
    }
    if (rc < 0)
        return exdb_error_oom(err) ? -1 : cache_lied(pd, err);
    if (other) {
        exdb_mem_release(*buf);
        return cache_lied(pd, err);
    }
    return 0;
}

/* The first step of the build of a program opened from the cache: its
 * file read and through the first pass (into pd's DOM, the text p's),
 * the text checked to be the entry's (its XXH3 and length). 0, or -1 with
 * the message in err (memory, or the file changed: cache_lied). */
int exdb_program_cache_cold_pass(exdb_program *p, struct exdb_program_pending *pd,
                                 exdb_error *err) {
    char *buf = NULL;
    size_t len = 0;
    uint64_t hash = 0;
    if (read_file(p, pd, &buf, &len, &hash, err) < 0)
        return -1;
    exdb_arena dom;
    exdb_arena_init(&dom);
    exdb_json *root = NULL;
    int rc = exdb_program_first_pass(buf, len, &dom, &pd->L.strs, pd->L.fname, NULL, &root, err);
    exdb_filemap_hash(buf, &hash); /* taken as the text was read */
    if (len != pd->hit.text_len || hash != pd->hit.text_hash)
        rc = cache_lied(pd, err);
    else if (rc == 0)
        rc = exdb_program_text_read(buf, len, pd->L.fname, err);
    if (rc < 0) {
        exdb_arena_destroy(&dom);
        exdb_mem_release(buf);
        return -1;
    }
    exdb_arena_destroy(&pd->dom); /* nothing in it yet */
    pd->dom = dom;
    pd->root = root;
    p->buf = buf;
    p->json_bytes = len;
    pd->cold = 0;
    return 0;
}

/* The text's XXH3 taken on the second core while the image is put back. */
typedef struct hasher {
    pthread_t th;
    const char *buf;
    size_t len;
    uint64_t hash;
    int started;
} hasher;

/* The text hashed a chunk at a time, each given back once hashed
 * (exdb_filemap_drop takes the hash up to what it gives back): the
 * process never holds the whole text's pages. */
#define HASH_CHUNK ((size_t)8 << 20)
static void *hash_run(void *arg) {
    hasher *h = arg;
    for (size_t at = 0; at < h->len; at += HASH_CHUNK)
        exdb_filemap_drop(h->buf, h->buf + at,
                          h->buf + (h->len - at < HASH_CHUNK ? h->len : at + HASH_CHUNK));
    exdb_filemap_hash(h->buf, &h->hash);
    return NULL;
}

/* The file read for the IR image (its text into *buf, *len, its hash
 * into *hash once hasher_join): 0, or -1 (cache_lied or memory, err). */
static int ir_read_file(exdb_program *p, struct exdb_program_pending *pd, char **buf, size_t *len,
                        hasher *hs, exdb_error *err) {
    uint64_t hash = 0;
    if (read_file(p, pd, buf, len, &hash, err) < 0)
        return -1;
    if (*len != pd->hit.text_len) {
        exdb_mem_release(*buf);
        return cache_lied(pd, err);
    }
    hs->buf = *buf;
    hs->len = *len;
    hs->hash = hash;
    hs->started = exdb_filemap_is(*buf) && pthread_create(&hs->th, NULL, hash_run, hs) == 0;
    if (!hs->started)
        exdb_filemap_hash(*buf, &hs->hash);
    return 0;
}

static uint64_t hasher_join(hasher *hs) {
    if (hs->started)
        pthread_join(hs->th, NULL);
    hs->started = 0;
    return hs->hash;
}

/* What an IR build keeps of the shape entry: the shape read's strings
 * (the signature's, the call graph's) are in it and its DOM, as they were
 * until the build (a build from the text reads them again from the file). */
struct exdb_cache_kept {
    exdb_cache_hit hit;
    exdb_arena dom;
};

void exdb_program_cache_kept_free(struct exdb_cache_kept *k) {
    if (!k)
        return;
    exdb_cache_hit_free(&k->hit);
    exdb_arena_destroy(&k->dom);
    free(k);
}

/* Every node of g found under its name (a wrong name slot would make a
 * lookup miss, and the graph's invariants, exdb_graph_ok, fail; the links
 * and users hold by construction): one probe a node, the slots
 * prefetched 8 nodes ahead (~0.1 s at 1M). */
static int names_agree(const exdb_graph *g) {
    const exdb_node *ahead = g->head;
    for (int i = 0; i < 8 && ahead; i++, ahead = ahead->next)
        exdb_strmap_prefetch(&g->names, ahead->name_hash);
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (ahead) {
            exdb_strmap_prefetch(&g->names, ahead->name_hash);
            ahead = ahead->next;
        }
        /* the hash the image gives, when it gives one, is the name's */
        uint32_t h = exdb_strmap_hash(n->name);
        void **v = exdb_strmap_find_hashed(&g->names, n->name, h);
        if (!v || *v != n || (n->hashed_name == n->name && n->name_hash != h))
            return 0;
    }
    return 1;
}

/* Whether built p has the counts of the shape entry pd was opened from:
 * its main graph's nodes, the serialized ones, the subgraphs. */
static int counts_agree(const exdb_program *p, const struct exdb_program_pending *pd) {
    exdb_node_counts c;
    exdb_program_node_counts(p, &c);
    return memcmp(&c, &pd->hit.counts, sizeof c) == 0 &&
           p->nserialized_nodes == pd->hit.nserialized && p->nsubgraphs == pd->hit.nsubgraphs;
}

/* Whether the graphs put back from an image are ones a build could have
 * made: the entry's counts, and every graph's names (names_agree). */
static int image_agrees(exdb_program *p, struct exdb_program_pending *pd) {
    if (!counts_agree(p, pd) || !names_agree(p->graph))
        return 0;
    for (uint32_t i = 0; i < p->nsubgraphs; i++)
        if (!names_agree(p->subgraphs[i].graph))
            return 0;
    return 1;
}

int exdb_program_cache_ir_open(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err) {
    exdb_cache_hit ir;
    if (!exdb_cache_dir() || !exdb_cache_ir_find(file_of(p), pd->model, &ir))
        return 1;
    if (ir.text_hash != pd->hit.text_hash || ir.text_len != pd->hit.text_len ||
        ir.nserialized != pd->hit.nserialized || ir.nsubgraphs != pd->hit.nsubgraphs ||
        memcmp(&ir.counts, &pd->hit.counts, sizeof ir.counts) != 0 ||
        (p->container_kind != EXDB_CONT_JSON && strcmp(ir.member, pd->hit.member) != 0) ||
        exdb_cache_ir_check(ir.image, ir.image_len, ir.text_len) < 0) {
        exdb_cache_drop(&ir);
        exdb_cache_hit_free(&ir);
        return 1;
    }
    char *buf;
    size_t len;
    hasher hs = {0};
    struct exdb_cache_kept *kept = malloc(sizeof *kept);
    if (!kept) {
        exdb_cache_hit_free(&ir);
        exdb_errorf(err, "%s: out of memory", pd->L.fname);
        return -1;
    }
    if (ir_read_file(p, pd, &buf, &len, &hs, err) < 0) {
        free(kept);
        exdb_cache_hit_free(&ir);
        return -1;
    }
    char *was = p->buf;
    size_t was_len = p->json_bytes;
    p->buf = buf; /* the lazy metadata's text references are into it */
    p->json_bytes = len;
    int rc = exdb_cache_ir_install(p, ir.image, ir.image_len);
    int lazy = ((const exdb_cache_ir_head *)ir.image)->flags & 1;
    uint64_t hash = hasher_join(&hs);
    if (rc < 0) {
        exdb_errorf(err, "%s: out of memory", pd->L.fname);
    } else if (hash != pd->hit.text_hash) {
        exdb_cache_drop(&ir);
        rc = cache_lied(pd, err);
    } else if (!image_agrees(p, pd)) { /* not what a build makes: built from the file */
        exdb_cache_drop(&ir);
        rc = 1;
    } else {
        rc = exdb_program_text_read(buf, len, pd->L.fname, err);
    }
    exdb_cache_hit_free(&ir);
    if (rc != 0) {
        p->buf = was;
        p->json_bytes = was_len;
        p->graph = NULL; /* what the image left in the arenas is not read */
        p->subgraphs = NULL;
        p->nsubgraphs = 0;
        p->subgraphs_by_owner = NULL;
        memset(&p->subgraph_names, 0, sizeof p->subgraph_names);
        exdb_mem_release(buf);
        free(kept);
        return rc;
    }
    kept->hit = pd->hit; /* the program's now */
    kept->dom = pd->hit_dom;
    memset(&pd->hit, 0, sizeof pd->hit);
    exdb_arena_init(&pd->hit_dom);
    p->cache_kept = kept;
    if (lazy) /* p->buf is buf */
        exdb_load_meta_defer_on(p, pd->L.fname);
    pd->cold = 0;
    return 0;
}

/* The IR entry of p written (in the process that calls it) into the
 * folder open at dfd (-1: opened there). */
static void ir_write(int dfd, exdb_program *p, struct exdb_program_pending *pd) {
    exdb_cache_ir_parts parts;
    exdb_cache_piece pieces[EXDB_CACHE_IR_PIECES];
    if (exdb_cache_ir_make_parts(p, &parts) < 0)
        return;
    const char *member = pd->hit.data ? pd->hit.member : p->member;
    exdb_cache_ir_put(dfd, file_of(p), pd->model, member, p, pieces,
                      exdb_cache_ir_pieces(&parts, pieces));
    exdb_cache_ir_parts_free(&parts);
}

/* The writers forked so far and not yet reaped (forked by the build's
 * thread, reaped by it and by the REPL's: under writers_mu). */
enum { WRITERS_MAX = 8 };
static pid_t writers[WRITERS_MAX];
static pthread_mutex_t writers_mu = PTHREAD_MUTEX_INITIALIZER;

static void reap(void) {
    for (int i = 0; i < WRITERS_MAX; i++)
        if (writers[i] > 0 && waitpid(writers[i], NULL, WNOHANG) != 0)
            writers[i] = 0;
}

void exdb_program_cache_reap(void) {
    pthread_mutex_lock(&writers_mu);
    reap();
    pthread_mutex_unlock(&writers_mu);
}

#ifndef EXDB_FAULT
/* The forked writer made its own: every signal's action the default and
 * none blocked (it is forked from the build thread, which blocks them),
 * SIGXFSZ ignored (a write past RLIMIT_FSIZE fails with EFBIG: the entry
 * is not written); every descriptor closed (no pipe of the parent's held
 * open) but the folder's dfd, moved to 0: 0, or -1. */
static int writer_child(int dfd) {
    sigset_t none;
    sigemptyset(&none);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL); /* fails harmlessly on the reserved ones */
    signal(SIGXFSZ, SIG_IGN);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    dfd = dfd == 0 || dup2(dfd, 0) == 0 ? 0 : -1;
    closefrom(1);
    return dfd;
}
#endif

void exdb_program_cache_ir_put(exdb_program *p, struct exdb_program_pending *pd) {
    if (!exdb_cache_dir() || exdb_filemap_changed(p->buf))
        return;
    pthread_mutex_lock(&writers_mu);
    reap();
    int slot = -1;
    for (int i = 0; i < WRITERS_MAX && slot < 0; i++)
        if (!writers[i])
            slot = i;
    if (slot >= 0)
        writers[slot] = -1; /* taken (the lock is not held across the fork) */
    pthread_mutex_unlock(&writers_mu);
    pid_t pid = -1;
#ifndef EXDB_FAULT /* the fault walk counts the writer's allocations: in this process */
    /* the folder opened here, made if missing: the writer never makes it
     * again once the user removed it */
    int dfd = exdb_cache_ir_async_on() && slot >= 0 ? exdb_cache_dir_open() : -1;
    pid = dfd >= 0 ? fork() : -1;
    if (pid == 0) { /* the writer: the program as it is now, copy on write */
        dfd = writer_child(dfd);
        if (dfd == 0)
            ir_write(dfd, p, pd);
        _exit(0);
    }
    if (dfd >= 0)
        close(dfd);
#endif
    if (slot >= 0) {
        pthread_mutex_lock(&writers_mu);
        writers[slot] = pid > 0 ? pid : 0;
        pthread_mutex_unlock(&writers_mu);
    }
    if (pid < 0)
        ir_write(-1, p, pd);
}

/* h's image put back into P (cache_image.h): 0, or -1 (err says so when
 * memory ran out). */
static int install(exdb_program *P, const exdb_cache_hit *h, const char *label, exdb_error *err) {
    int rc = exdb_cache_image_install(P, h->image, h->image_len, h->image_inputs, h->image_outputs,
                                      h->image_calls);
    if (rc == -2)
        exdb_errorf(err, "%s: out of memory", label);
    return rc < 0 ? -1 : 0;
}

/* The program opened shape first from its cache entry h (taken: freed
 * with the program, or here), named label, the model asked for model:
 * the entry's text read in shape mode, the node counts the entry's; the
 * build reads the file (cold_pass). NULL when memory ran out or the entry
 * gives no shape (it is then removed). */
static exdb_program *open_cached(exdb_cache_hit *h, const char *label, const char *model) {
    exdb_error err = {0};
    struct exdb_program_pending *pd;
    exdb_program *P = exdb_program_new(NULL, (size_t)h->text_len, label, &pd, &err);
    if (!P) {
        exdb_cache_hit_free(h);
        return NULL;
    }
    pd->hit = *h;
    pd->cold = 1;
    P->buf = (char *)h->text;
    P->json_bytes = h->len; /* for the shape read; then the file's text's */
    P->pending = pd;
    loader *L = &pd->L;
    int ok = P->path && h->nserialized >= exdb_program_shape_min() &&
             exdb_program_first_pass(h->text, h->len, &pd->hit_dom, &L->strs, L->fname, NULL,
                                     &pd->root, &err) == 0 &&
             exdb_program_read_shape(P, pd->root, NULL, L->fname, &err) == 0 &&
             (!h->image_len || install(P, h, label, &err) == 0);
    P->json_bytes = (size_t)h->text_len;
    /* the entry's text has the graph's inputs (the image its specs), and
     * no nodes */
    uint32_t inputs = h->image_len ? P->ninputs : P->shape.ops[EXDB_OP_PLACEHOLDER];
    if (ok && (P->nserialized_nodes != 0 || inputs != h->counts.ops[EXDB_OP_PLACEHOLDER] ||
               (uint64_t)inputs + h->nserialized > EXDB_MAX_NODES))
        ok = 0;
    if (ok && model && !(pd->model = exdb_arena_strdup(&P->arena, model))) {
        exdb_errorf(&err, "%s: out of memory", label);
        ok = 0;
    }
    if (!ok) {
        if (!exdb_error_oom(&err) && h->nserialized >= exdb_program_shape_min())
            exdb_cache_drop(h);
        exdb_program_free(P);
        return NULL;
    }
    P->shape = h->counts;
    P->shape_nsubgraphs = h->nsubgraphs;
    P->nserialized_nodes = h->nserialized;
    return P;
}

exdb_program *exdb_program_cache_open(exdb_container *c, const char *path, const char *model,
                                      const char **member) {
    exdb_cache_hit h;
    if (!exdb_cache_dir() || !exdb_cache_find(path, model, &h))
        return NULL;
    /* the member is the container's: an archive's the one the entry names
     * (else the entry lies: it goes), a bare JSON file's its path as given
     * now (the entry's was as given then) */
    int kind = (int)exdb_container_kind_of(c);
    const char *m = exdb_container_program_member(c, model);
    if (!m || (kind != EXDB_CONT_JSON && strcmp(m, h.member) != 0)) {
        if (m)
            exdb_cache_drop(&h);
        exdb_cache_hit_free(&h);
        return NULL;
    }
    char *label = exdb_program_label(path, kind, m);
    exdb_program *P = NULL;
    if (label)
        P = open_cached(&h, label, model);
    else
        exdb_cache_hit_free(&h);
    free(label);
    exdb_error e = {0};
    if (P && exdb_snapshot_attach(P, c, model, P->pending->hit.text_hash,
                                  (size_t)P->pending->hit.text_len, &e) < 0) {
        exdb_program_free(P);
        P = NULL;
    }
    *member = P ? m : NULL;
    return P;
}

int exdb_program_cache_check(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err) {
    return counts_agree(p, pd) ? 0 : cache_lied(pd, err);
}
