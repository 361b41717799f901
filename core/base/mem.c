/* mem.c - see mem.h. */
#include "core/base/mem.h"

#ifdef EXDB_FAULT
#include "core/base/fault.h"
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void) {
    static size_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
    }
    return page;
}

/* The whole pages inside [p, p+n): madvise wants page-aligned ranges, and
 * a malloc'd buffer shares its first and last pages with other data. */
static int inner_pages(void *p, size_t n, uintptr_t *lo, uintptr_t *hi) {
    size_t page = page_size();
    *lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    *hi = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
    return *hi > *lo;
}

static int hugepages; /* exdb_mem_hugepages' */

void exdb_mem_hugepages(int on) {
    hugepages = on != 0;
}

void exdb_mem_hugepage(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
    uintptr_t lo, hi;
    if (hugepages && n >= EXDB_HUGEPAGE_MIN && inner_pages(p, n, &lo, &hi))
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void exdb_mem_populate(void *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
    static int unsupported;
    uintptr_t lo, hi;
    if (!unsupported && n >= EXDB_POPULATE_MIN && inner_pages(p, n, &lo, &hi) &&
        madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
        unsupported = 1;
#else
    (void)p;
    (void)n;
#endif
}

/* ---- populating in a second thread (exdb_mem_ahead_start) */

enum { RING = 64 };

typedef struct helper {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t more;
    uintptr_t lo[RING], hi[RING]; /* the ranges asked for, in order (under mu) */
    int advice[RING];             /* and what for (madvise's) */
    unsigned head, tail;          /* ring positions (under mu) */
    int stop;                     /* (under mu) */
    _Atomic unsigned done;        /* requests carried out (tail's count when idle) */
} helper;

static _Thread_local helper *mine;   /* the calling thread's helper, or NULL */
static _Thread_local helper mine_at; /* where it lives: no allocation */
static int populate_unsupported;     /* the kernel refused MADV_POPULATE_WRITE */

static void populate_now(uintptr_t lo, uintptr_t hi) {
#ifdef MADV_POPULATE_WRITE
    if (!populate_unsupported && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
        populate_unsupported = 1;
#else
    (void)lo;
    (void)hi;
#endif
}

static void *helper_run(void *arg) {
    helper *h = arg;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        while (!h->stop && h->head == h->tail)
            pthread_cond_wait(&h->more, &h->mu);
        if (h->stop)
            break;
        unsigned i = h->head++ % RING;
        uintptr_t lo = h->lo[i], hi = h->hi[i];
        int advice = h->advice[i];
        pthread_mutex_unlock(&h->mu);
        /* populate: memory freed meanwhile fails it (ENOMEM) or is
         * populated (contents unchanged), the range is a hint; give back:
         * pages of a file mapping that stays mapped while h runs */
        (void)madvise((void *)lo, hi - lo, advice);
        atomic_fetch_add(&h->done, 1);
        pthread_mutex_lock(&h->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

int exdb_mem_ahead_start(void) {
#ifdef EXDB_FAULT
    if (exdb_fault_armed()) /* the walk counts allocations of one thread */
        return 0;
#endif
    if (mine || populate_unsupported)
        return 0;
    helper *h = &mine_at;
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->more, NULL);
    if (pthread_create(&h->th, NULL, helper_run, h) != 0) {
        pthread_cond_destroy(&h->more);
        pthread_mutex_destroy(&h->mu);
        return 0;
    }
    mine = h;
    return 1;
}

void exdb_mem_ahead_stop(void) {
    helper *h = mine;
    if (!h)
        return;
    mine = NULL;
    pthread_mutex_lock(&h->mu);
    h->stop = 1; /* the populating still asked for is dropped: hints */
    pthread_cond_signal(&h->more);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    for (; h->head != h->tail; h->head++) /* pages still to give back */
        if (h->advice[h->head % RING] == MADV_DONTNEED)
            (void)madvise((void *)h->lo[h->head % RING],
                          h->hi[h->head % RING] - h->lo[h->head % RING], MADV_DONTNEED);
    pthread_cond_destroy(&h->more);
    pthread_mutex_destroy(&h->mu);
}

int exdb_mem_ahead_on(void) {
    return mine != NULL;
}

int exdb_mem_ahead_idle(void) {
    helper *h = mine; /* tail is the caller's to change */
    return h && atomic_load(&h->done) == h->tail;
}

/* Hands [lo, hi) and advice to the calling thread's helper: 0 when it has
 * none, or its ring is full (it is behind). */
static int ask_helper(uintptr_t lo, uintptr_t hi, int advice, unsigned most) {
    helper *h = mine;
    if (!h)
        return 0;
    pthread_mutex_lock(&h->mu);
    int queued = h->tail - h->head < most;
    if (queued) {
        h->lo[h->tail % RING] = lo;
        h->hi[h->tail % RING] = hi;
        h->advice[h->tail % RING] = advice;
        h->tail++;
        pthread_cond_signal(&h->more);
    }
    pthread_mutex_unlock(&h->mu);
    return queued;
}

void exdb_mem_populate_pages(void *p, size_t n) {
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
#ifdef MADV_POPULATE_WRITE
    if (hi > lo && !ask_helper(lo, hi, MADV_POPULATE_WRITE, RING))
        populate_now(lo, hi);
#else
    (void)lo;
    (void)hi;
#endif
}

void exdb_mem_give_back_pages(const void *p, size_t n) {
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    /* only to a helper at most one request behind: pages it has not given back
     * yet count in the process's memory */
    if (hi > lo && !ask_helper(lo, hi, MADV_DONTNEED, 2))
        (void)madvise((void *)lo, n, MADV_DONTNEED);
}

void *exdb_mem_grow(void *p, size_t used, size_t n) {
    char *q = realloc(p, n);
    if (q && n >= EXDB_HUGEPAGE_MIN && n > used)
        exdb_mem_hugepage(q + used, n - used);
    return q;
}

void *exdb_grow(void *arr, uint32_t *cap, size_t elem, uint32_t first) {
    uint32_t ncap = *cap ? *cap * 2 : first;
    if (ncap <= *cap || (size_t)ncap > SIZE_MAX / elem)
        return NULL;
    void *na = realloc(arr, (size_t)ncap * elem);
    if (na)
        *cap = ncap;
    return na;
}
