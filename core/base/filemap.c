/* filemap.c - see filemap.h. The texts under the guard are a small table
 * the SIGBUS handler reads without a lock: an entry is filled before it is
 * marked used, and emptied after the text is unmapped, by the one thread
 * that maps and releases (the REPL's); the handler only reads the bounds
 * and sets the changed flag. */
#define _GNU_SOURCE
#include "core/base/filemap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef EXDB_FAULT
#include "core/base/fault.h"
#endif

enum { MAPS_MAX = 64 };

typedef struct {
    _Atomic(uintptr_t) lo; /* 0: a free entry */
    uintptr_t hi;          /* the file's pages end here; one zero page follows */
    size_t len;
    atomic_int changed;
    int fd;                /* kept open: fstat says whether the file changed */
    struct timespec mtime; /* at map time */
} filemap;

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
    filemap *m = map_of(a);
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
    signal(SIGBUS, SIG_DFL); /* the retried access faults again and kills */
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

int exdb_filemap_map(int fd, size_t len, const char **out) {
    struct stat st;
#ifdef EXDB_FAULT
    if (exdb_fault_hit(__builtin_return_address(0))) {
        errno = ENOMEM;
        return -1;
    }
#endif
    if (len == 0 || len > SIZE_MAX / 2) {
        errno = EINVAL;
        return -1;
    }
    if (fstat(fd, &st) != 0)
        return -1;
    size_t pg = page_size(), whole = (len + pg - 1) & ~(pg - 1);
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
    /* the file's pages, then one page of zeros: (*out)[len] is a NUL even
     * when len ends a page */
    char *p = mmap(NULL, whole + pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        pthread_mutex_unlock(&maps_mu);
        return -1;
    }
    int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (keep < 0 || mmap(p, whole, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        int e = errno;
        munmap(p, whole + pg);
        if (keep >= 0)
            close(keep);
        pthread_mutex_unlock(&maps_mu);
        errno = e;
        return -1;
    }
    slot->fd = keep;
    slot->mtime = st.st_mtim;
    slot->hi = (uintptr_t)p + whole + pg;
    slot->len = len;
    atomic_store(&slot->changed, 0);
    atomic_store(&slot->lo, (uintptr_t)p);
    pthread_mutex_unlock(&maps_mu);
    *out = p;
    return 0;
}

/* The entry of the text starting at p, or NULL. */
static filemap *entry_at(const void *p) {
    for (int i = 0; p && i < MAPS_MAX; i++)
        if (atomic_load(&maps[i].lo) == (uintptr_t)p)
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
        munmap((void *)p, m->hi - (uintptr_t)p);
        close(m->fd);
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
        (fstat(m->fd, &st) != 0 || (uintmax_t)st.st_size != m->len ||
         st.st_mtim.tv_sec != m->mtime.tv_sec || st.st_mtim.tv_nsec != m->mtime.tv_nsec))
        atomic_store(&m->changed, 1);
    return atomic_load(&m->changed);
}

void exdb_filemap_drop(const void *p, const void *from, const void *upto) {
    filemap *m = entry_at(p);
    if (!m)
        return;
    uintptr_t pg = page_size(), lo = ((uintptr_t)from + pg - 1) & ~(pg - 1),
              hi = (uintptr_t)upto & ~(pg - 1);
    if (lo < (uintptr_t)p)
        lo = (uintptr_t)p;
    if (hi > m->hi - pg)
        hi = m->hi - pg;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
