/* filemap.c - see filemap.h. The texts under the guard are a small table
 * the SIGBUS handler reads without a lock: an entry is filled before it is
 * marked used, and emptied after the text is unmapped, by the one thread
 * that maps and releases (the REPL's); the handler only reads the bounds
 * and sets the changed flag. */
#define _GNU_SOURCE
#include "core/base/filemap.h"
#include "core/base/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(__x86_64__) || defined(__i386__)
/* XXH3 on the widest vector unit the processor has (AVX2, AVX-512), chosen
 * at run time by libxxhash's x86 build; the plain calls run its SSE2 code.
 * The value is the same either way (XXH3 is defined by its output). */
#include <xxh_x86dispatch.h>
#endif

#ifdef EXDB_FAULT
#include "core/base/fault.h"
#endif

enum { MAPS_MAX = 64 };

typedef struct {
    _Atomic(uintptr_t) lo; /* the mapping's first page; 0: a free entry */
    uintptr_t hi;          /* the mapping ends here (after its zero page) */
    uintptr_t text;        /* the text starts here (lo plus the offset's skew) */
    uintptr_t keep;        /* pages from here on are never given back (the
                            * private copy holding the text's NUL, the zero page) */
    atomic_int changed;
    int fd;                /* kept open: fstat says whether the file changed */
    off_t size;            /* the file's size at map time */
    struct timespec mtime; /* at map time */
    size_t len;            /* the text's bytes */
    /* exdb_filemap_hash_start's: the text's XXH3 so far (NULL: none being
     * taken), the bytes it covers, and the digest once finished */
    XXH3_state_t *hs;
    size_t hashed;
    int hash_state; /* HASH_NONE, HASH_TAKING, HASH_DONE */
    uint64_t hash;
    struct ahead *ahead; /* exdb_filemap_ahead_start's thread, or NULL */
} filemap;

enum { HASH_NONE, HASH_TAKING, HASH_DONE };

static filemap maps[MAPS_MAX];
static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction old_bus;
static int guard_on;

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* The entry whose text (with its zero page) holds address a, or NULL. */
static filemap *map_of(uintptr_t a) {
    for (int i = 0; i < MAPS_MAX; i++) {
        uintptr_t lo = atomic_load(&maps[i].lo);
        if (lo && a >= lo && a < maps[i].hi)
            return &maps[i];
    }
    return NULL;
}

/* A SIGBUS inside a mapped text: the file was truncated under it. A zero
 * page goes over the page (the faulting read is retried and sees NULs),
 * the text is marked changed. Elsewhere: the previous disposition, so the
 * fault kills the process as it did before. */
static void on_bus(int sig, siginfo_t *si, void *uc) {
    uintptr_t a = (uintptr_t)si->si_addr;
    filemap *m = si->si_code > 0 ? map_of(a) : NULL; /* a fault, not a kill() */
    if (m) {
        uintptr_t pg = a & ~(uintptr_t)(page_size() - 1);
        if (mmap((void *)pg, page_size(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != MAP_FAILED) {
            atomic_store(&m->changed, 1);
            return;
        }
    }
    if (old_bus.sa_flags & SA_SIGINFO && old_bus.sa_sigaction) {
        old_bus.sa_sigaction(sig, si, uc);
        return;
    }
    if (old_bus.sa_handler != SIG_DFL && old_bus.sa_handler != SIG_IGN && old_bus.sa_handler) {
        old_bus.sa_handler(sig);
        return;
    }
    if (si->si_code <= 0 && old_bus.sa_handler == SIG_IGN)
        return; /* sent by kill() and ignored before exdb came */
    signal(SIGBUS, SIG_DFL);
    if (si->si_code <= 0)
        raise(sig); /* sent by kill(): nothing is retried, so deliver it again */
    /* a fault: the retried access faults again and kills */
}

static int install_guard(void) {
    if (guard_on)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &old_bus) != 0)
        return -1;
    guard_on = 1;
    return 0;
}

/* Puts a NUL at text[len] when the byte after the text is a byte of the
 * file (a member inside an archive): the last page becomes a private copy
 * of itself (copy on write), the NUL written into it, made read-only again.
 * Returns the address of that page (pages from there on are never given
 * back: giving it back would drop the copy), or 0 on failure. */
static uintptr_t nul_after(char *text, size_t len, uintptr_t end) {
    uintptr_t pg = page_size(), last = ((uintptr_t)text + len) & ~(pg - 1);
    if (last >= end) /* the text ends a page: the zero page follows */
        return end;
    if (mprotect((void *)last, pg, PROT_READ | PROT_WRITE) != 0)
        return 0;
    text[len] = '\0';
    if (mprotect((void *)last, pg, PROT_READ) != 0)
        return 0;
    return last;
}

/* exdb_filemap_map_at; a fault build fails it as an allocation of the
 * caller's (site: the call's return address). */
static int map_range(int fd, uint64_t off, size_t len, const char **out, const void *site,
                     const struct stat *given) {
    struct stat st;
#ifdef EXDB_FAULT
    if (exdb_fault_hit(site)) {
        errno = ENOMEM;
        return -1;
    }
#else
    (void)site;
#endif
    if (len == 0 || len > SIZE_MAX / 2 || off > (uint64_t)INT64_MAX - len) {
        errno = EINVAL;
        return -1;
    }
    if (given)
        st = *given;
    else if (fstat(fd, &st) != 0)
        return -1;
    if ((uint64_t)st.st_size < off + len) {
        errno = EINVAL;
        return -1;
    }
    size_t pg = page_size(), skew = (size_t)(off & (pg - 1)),
           whole = (skew + len + pg - 1) & ~(pg - 1);
    pthread_mutex_lock(&maps_mu);
    filemap *slot = NULL;
    for (int i = 0; i < MAPS_MAX && !slot; i++)
        if (!atomic_load(&maps[i].lo))
            slot = &maps[i];
    if (!slot || install_guard() < 0) {
        pthread_mutex_unlock(&maps_mu);
        errno = ENOMEM;
        return -1;
    }
    /* A text that ends the file inside a page has its NUL from the kernel
     * (the zeros after a file's last byte in its last page): the file's
     * pages alone, one mapping. Else the file's pages, then one page of
     * zeros: (*out)[len] is a NUL even when the text ends a page. */
    int tail = off + len == (uint64_t)st.st_size && ((skew + len) & (pg - 1)) != 0;
    size_t zeros = tail ? 0 : pg;
    int keep = given ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
    char *p = keep < 0 ? MAP_FAILED
              : tail   ? mmap(NULL, whole, PROT_READ, MAP_PRIVATE, fd, (off_t)(off - skew))
                       : mmap(NULL, whole + pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t kept = 0;
    if (p != MAP_FAILED && (tail || mmap(p, whole, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
                                         (off_t)(off - skew)) != MAP_FAILED))
        kept = off + len < (uint64_t)st.st_size ? nul_after(p + skew, len, (uintptr_t)p + whole)
                                                : (uintptr_t)p + whole;
    if (!kept) {
        int e = errno;
        if (p != MAP_FAILED)
            munmap(p, whole + zeros);
        if (keep >= 0 && !given)
            close(keep);
        pthread_mutex_unlock(&maps_mu);
        errno = e;
        return -1;
    }
    slot->fd = keep;
    slot->size = st.st_size;
    slot->mtime = st.st_mtim;
    slot->hi = (uintptr_t)p + whole + zeros;
    slot->text = (uintptr_t)p + skew;
    slot->keep = kept;
    slot->len = len;
    slot->hs = NULL;
    slot->hashed = 0;
    slot->hash_state = HASH_NONE;
    atomic_store(&slot->changed, 0);
    atomic_store(&slot->lo, (uintptr_t)p);
    pthread_mutex_unlock(&maps_mu);
    *out = p + skew;
    return 0;
}

int exdb_filemap_map(int fd, size_t len, const char **out) {
    return map_range(fd, 0, len, out, __builtin_return_address(0), NULL);
}

int exdb_filemap_map_taking(int fd, const struct stat *st, size_t len, const char **out) {
    return map_range(fd, 0, len, out, __builtin_return_address(0), st);
}

int exdb_filemap_map_at(int fd, uint64_t off, size_t len, const char **out) {
    return map_range(fd, off, len, out, __builtin_return_address(0), NULL);
}

/* Hashes m's text up to byte upto (from where it stopped), when its hash
 * is being taken. */
static void hash_upto(filemap *m, size_t upto) {
    if (m->hash_state != HASH_TAKING || upto <= m->hashed)
        return;
    if (upto > m->len)
        upto = m->len;
    if (m->hs)
        XXH3_64bits_update(m->hs, (const char *)m->text + m->hashed, upto - m->hashed);
    m->hashed = upto;
}

/* ---- mapping a text in ahead of its reader (exdb_filemap_ahead_start) */

/* The thread maps the text in AHEAD_STEP at a time, up to AHEAD_WINDOW
 * past the reader's last exdb_filemap_drop. */
#define AHEAD_STEP   ((size_t)2 << 20)
#define AHEAD_WINDOW ((size_t)8 << 20)

struct ahead {
    pthread_t th;
    pthread_mutex_t mu; /* also m's hash: the thread and the reader take it */
    pthread_cond_t moved;
    filemap *m;
    const char *text;
    size_t len;
    size_t reader; /* the reader's last drop ends here (under mu) */
    int stop;      /* (under mu) */
};

static void *ahead_run(void *arg) {
    struct ahead *h = arg;
    uintptr_t pg = page_size();
    size_t at = 0;
    pthread_mutex_lock(&h->mu);
    while (!h->stop && at < h->len) {
        if (at < h->reader)
            at = h->reader; /* fell behind: the reader mapped those itself */
        if (at >= h->reader + AHEAD_WINDOW) {
            pthread_cond_wait(&h->moved, &h->mu);
            continue;
        }
        size_t from = at;
        at = h->len - at < AHEAD_STEP ? h->len : at + AHEAD_STEP;
        pthread_mutex_unlock(&h->mu);
#ifdef MADV_POPULATE_READ
        uintptr_t lo = (uintptr_t)(h->text + from) & ~(pg - 1),
                  hi = ((uintptr_t)(h->text + at) + pg - 1) & ~(pg - 1);
        /* a truncated file fails it (EFAULT), raising nothing */
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
#else
        (void)pg;
#endif
        pthread_mutex_lock(&h->mu);
        /* the text's hash, from the pages just mapped, when it has got
         * here (else the reader's drops take it) */
        if (h->m->hashed == from)
            hash_upto(h->m, at);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

/* Stops and frees m's read-ahead thread, if any. */
static void ahead_stop(filemap *m) {
    struct ahead *h = m->ahead;
    if (!h)
        return;
    m->ahead = NULL;
    pthread_mutex_lock(&h->mu);
    h->stop = 1;
    pthread_cond_signal(&h->moved);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    pthread_cond_destroy(&h->moved);
    pthread_mutex_destroy(&h->mu);
}

/* The reader of m's text gives back the text up to byte upto: the hash
 * taken up to there first. */
static void ahead_moved(filemap *m, size_t upto) {
    struct ahead *h = m->ahead;
    pthread_mutex_lock(&h->mu);
    hash_upto(m, upto);
    h->reader = upto;
    pthread_cond_signal(&h->moved);
    pthread_mutex_unlock(&h->mu);
}

/* The entry of the text starting at p, or NULL. */
static filemap *entry_at(const void *p) {
    for (int i = 0; p && i < MAPS_MAX; i++)
        if (atomic_load(&maps[i].lo) && maps[i].text == (uintptr_t)p)
            return &maps[i];
    return NULL;
}

int exdb_filemap_is(const void *p) {
    return entry_at(p) != NULL;
}

int exdb_filemap_release(const void *p) {
    pthread_mutex_lock(&maps_mu);
    filemap *m = entry_at(p);
    if (m) {
        ahead_stop(m);
        uintptr_t lo = atomic_load(&m->lo);
        munmap((void *)lo, m->hi - lo);
        close(m->fd);
        XXH3_freeState(m->hs);
        m->hs = NULL;
        atomic_store(&m->lo, 0);
    }
    pthread_mutex_unlock(&maps_mu);
    return m != NULL;
}

int exdb_filemap_changed(const void *p) {
    filemap *m = p ? map_of((uintptr_t)p) : NULL;
    if (!m)
        return 0;
    struct stat st;
    if (!atomic_load(&m->changed) &&
        (fstat(m->fd, &st) != 0 || st.st_size != m->size || st.st_mtim.tv_sec != m->mtime.tv_sec ||
         st.st_mtim.tv_nsec != m->mtime.tv_nsec))
        atomic_store(&m->changed, 1);
    return atomic_load(&m->changed);
}

void exdb_filemap_hash_start(const void *p) {
    filemap *m = entry_at(p);
    if (!m || m->hash_state != HASH_NONE)
        return;
    /* no state (out of memory): exdb_filemap_hash takes it in one call */
    m->hs = XXH3_createState();
    if (m->hs)
        XXH3_64bits_reset(m->hs);
    m->hashed = 0;
    m->hash_state = HASH_TAKING;
}

int exdb_filemap_hash(const void *p, uint64_t *out) {
    filemap *m = entry_at(p);
    if (!m || m->hash_state == HASH_NONE)
        return 0;
    if (m->hash_state == HASH_TAKING) {
        if (m->hs) {
            hash_upto(m, m->len);
            m->hash = XXH3_64bits_digest(m->hs);
            XXH3_freeState(m->hs);
            m->hs = NULL;
        } else {
            m->hash = XXH3_64bits((const void *)m->text, m->len);
        }
        m->hash_state = HASH_DONE;
    }
    *out = m->hash;
    return 1;
}

void exdb_filemap_ahead_start(const void *p) {
    filemap *m = entry_at(p);
#ifdef EXDB_FAULT
    if (exdb_fault_armed()) /* the walk counts allocations of one thread */
        return;
#endif
    if (!m || m->ahead || m->len < EXDB_FILEMAP_AHEAD_MIN)
        return;
    static struct ahead at[MAPS_MAX]; /* no allocation: one per entry */
    struct ahead *h = &at[m - maps];
    memset(h, 0, sizeof *h);
    h->m = m;
    h->text = (const char *)m->text;
    h->len = m->len;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->moved, NULL);
    if (pthread_create(&h->th, NULL, ahead_run, h) != 0) {
        pthread_cond_destroy(&h->moved);
        pthread_mutex_destroy(&h->mu);
        return;
    }
    m->ahead = h;
}

void exdb_filemap_ahead_stop(const void *p) {
    filemap *m = entry_at(p);
    if (m)
        ahead_stop(m);
}

void exdb_filemap_drop(const void *p, const void *from, const void *upto) {
    filemap *m = entry_at(p);
    if (!m)
        return;
    if ((uintptr_t)upto > m->text) {
        if (m->ahead)
            ahead_moved(m, (uintptr_t)upto - m->text);
        else
            hash_upto(m, (uintptr_t)upto - m->text);
    }
    if (m->len < EXDB_FILEMAP_GIVE_BACK_MIN)
        return;
    uintptr_t pg = page_size(), lo = ((uintptr_t)from + pg - 1) & ~(pg - 1),
              hi = (uintptr_t)upto & ~(pg - 1);
    if (lo < m->text)
        lo = m->text & ~(pg - 1);
    if (hi > m->keep)
        hi = m->keep;
    if (hi > lo)
        exdb_mem_give_back_pages((void *)lo, hi - lo); /* in the loader's helper, if any */
}
