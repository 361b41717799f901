/* arena.c - see arena.h. Blocks grow geometrically up to 64 MiB so a
 * million-node program costs a few dozen mallocs, and huge single requests
 * get a block of their own. */
#include "core/base/arena.h"
#include "core/base/fault.h"
#include "core/base/filemap.h"
/* Fault injection counts arena blocks where they are needed (see
 * arena_alloc_at), not in block_new. */
#undef malloc
#include "core/base/mem.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARENA_MIN_BLOCK ((size_t)16 * 1024)
#define ARENA_MAX_BLOCK ((size_t)64 * 1024 * 1024)

void exdb_arena_init(exdb_arena *a) {
    memset(a, 0, sizeof *a);
}

/* Freed blocks, kept for the next arena (up to cache_cap() bytes in all),
 * when the program asks for it (exdb_arena_cache: the REPL does; a library
 * user may not want memory kept after a program is freed). A
 * fresh block costs a page fault or a kernel page clear per page on first
 * touch, which was ~40% of an unflatten run at 100k nodes (the run arena
 * and its journal are 400 MB); `run`, `restart`, lint and render of a
 * finished tree rebuild arenas of the same sizes, so they get pages
 * already mapped. Small blocks too: freeing them to malloc made glibc give
 * the top of the heap back to the kernel and take it again on the next
 * load (brk, page faults and MADV_POPULATE_WRITE each time), which cost a
 * 0.2 MB program half its reload time. The memory stays in the process
 * (RSS) until exdb_arena_trim. exdb is single-threaded: no lock. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* Under ASan a cached block stays poisoned until reused, so a pointer into
 * a destroyed arena is still caught. */
#define CACHE_POISON(b)   ASAN_POISON_MEMORY_REGION((b)->data, (b)->size)
#define CACHE_UNPOISON(b) ASAN_UNPOISON_MEMORY_REGION((b)->data, (b)->size)
#else
#define CACHE_POISON(b)   ((void)(b))
#define CACHE_UNPOISON(b) ((void)(b))
#endif
#define CACHE_MIN_CAP ((size_t)768 << 20)

/* The cache's limit: a quarter of the machine's memory (or of the
 * container's), at least 768 MiB,
 * so reloading a program of a few GB (a million nodes) finds its memory
 * again instead of faulting it in anew. */
static size_t cache_limit; /* exdb_arena_cache's; 0: no cache */

static size_t cache_cap(void) {
    static size_t cap;
    if (cache_limit != EXDB_ARENA_CACHE_AUTO)
        return cache_limit;
    if (!cap) {
        long pages = sysconf(_SC_PHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
        size_t mem = pages > 0 && ps > 0 ? (size_t)pages * (size_t)ps : 0;
        /* in a container, the cgroup's limit if lower (cgroup v2) */
        FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
        unsigned long long lim;
        if (f) {
            if (fscanf(f, "%llu", &lim) == 1 && lim < mem)
                mem = (size_t)lim;
            fclose(f);
        }
        cap = mem / 4 > CACHE_MIN_CAP ? mem / 4 : CACHE_MIN_CAP;
    }
    return cap;
}
static exdb_arena_block *cache;
static size_t cache_bytes;
/* The cache is shared with the thread that parses a program's nodes ahead
 * of the loader (core/format/json_ahead.h): its arenas take and give back
 * blocks too. Blocks come and go a few dozen times a load: no contention. */
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

void exdb_arena_destroy(exdb_arena *a) {
    exdb_arena_block *b = a->head;
    if (b)
        pthread_mutex_lock(&cache_mu);
    while (b) {
        exdb_arena_block *p = b->prev;
        if (cache_bytes + b->size <= cache_cap()) {
            b->prev = cache;
            cache = b;
            CACHE_POISON(b);
            cache_bytes += b->size;
        } else {
            free(b);
        }
        b = p;
    }
    if (a->head)
        pthread_mutex_unlock(&cache_mu);
    memset(a, 0, sizeof *a);
}

void exdb_arena_reset(exdb_arena *a) {
    exdb_arena_block *keep = a->head;
    if (!keep)
        return;
    exdb_arena rest = {.head = keep->prev};
    exdb_arena_destroy(&rest);
    keep->prev = NULL;
    keep->off = 0;
    a->used = 0;
    a->reserved = keep->size;
}

void exdb_arena_cache(size_t limit) {
    cache_limit = limit;
    if (!limit)
        exdb_arena_trim();
}

size_t exdb_arena_cached(void) {
    return cache_bytes;
}

void exdb_arena_trim(void) {
    pthread_mutex_lock(&cache_mu);
    while (cache) {
        exdb_arena_block *p = cache->prev;
        CACHE_UNPOISON(cache);
        free(cache);
        cache = p;
    }
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_mu);
}

/* The smallest cached block of want..2*want bytes (unlinked), or NULL.
 * Best fit: blocks come in the same geometric sizes the arenas ask for, so
 * a load that repeats an earlier one gets back exactly the blocks it had,
 * and its peak RSS stays that of the first load. */
static exdb_arena_block *cache_take(size_t want) {
    exdb_arena_block **best = NULL;
    pthread_mutex_lock(&cache_mu);
    for (exdb_arena_block **pb = &cache; *pb; pb = &(*pb)->prev) {
        size_t sz = (*pb)->size;
        if (sz >= want && sz / 2 <= want && (!best || sz < (*best)->size)) {
            best = pb;
            if (sz == want)
                break;
        }
    }
    if (!best) {
        pthread_mutex_unlock(&cache_mu);
        return NULL;
    }
    exdb_arena_block *b = *best;
    *best = b->prev;
    cache_bytes -= b->size;
    pthread_mutex_unlock(&cache_mu);
    CACHE_UNPOISON(b);
    b->off = 0;
    return b;
}

/* A fresh block of n bytes, untouched, or NULL. */
static exdb_arena_block *block_new(size_t n) {
    exdb_arena_block *b = malloc(sizeof *b + n);
    if (!b)
        return NULL;
    b->prev = NULL;
    b->size = n;
    b->off = 0;
    b->faulted = 0;
    return b;
}

/* ---- whole blocks as buffers (a program's JSON text) */

/* The buffers exdb_mem_take handed out and their blocks. A reload then
 * finds the text's memory in the cache too: the 1.9 GB text of the 1M
 * program was the one part of a reload still faulted in anew. */
#define TAKEN_MAX 64
static struct {
    void *p;
    exdb_arena_block *b;
} taken[TAKEN_MAX];
static int ntaken;

void *exdb_mem_take(size_t n) {
#ifdef EXDB_FAULT
    if (exdb_fault_hit(__builtin_return_address(0)))
        return NULL;
#endif
    if (ntaken == TAKEN_MAX || n > SIZE_MAX - sizeof(exdb_arena_block))
        return malloc(n);
    exdb_arena_block *b = cache_take(n);
    if (!b && !(b = block_new(n)))
        return NULL;
    b->prev = NULL;
    taken[ntaken].p = b->data;
    taken[ntaken].b = b;
    ntaken++;
    return b->data;
}

void exdb_mem_release(void *p) {
    if (!p || exdb_filemap_release(p))
        return;
    for (int i = 0; i < ntaken; i++) {
        if (taken[i].p != p)
            continue;
        exdb_arena_block *b = taken[i].b;
        taken[i] = taken[--ntaken];
        exdb_arena a = {.head = b};
        exdb_arena_destroy(&a); /* into the cache, or freed beyond its cap */
        return;
    }
    free(p);
}

#define PREFAULT_STEP     ((size_t)2 << 20)
#define PREFAULT_MIN_STEP ((size_t)16 << 10)
/* The step while a helper populates ahead (exdb_mem_ahead_start): what it
 * populates before it is needed stays in the RSS when unused. */
#define HELPED_STEP ((size_t)1 << 20)

/* Fresh blocks are untouched memory: touching them one page at a time
 * costs a page fault per 4 KiB, which dominated loading and unflattening
 * (on virtual machines a fault is dear). Ask the kernel to populate the
 * next step in one call as the allocation offset reaches it. The step is an
 * eighth of the block, between 16 KiB and 2 MiB, so the untouched tail of
 * a half-used block is not populated (nor counted in RSS): small programs
 * load twice as fast as with ordinary faults for at most 1/8 more RSS per
 * block. Kernels without MADV_POPULATE_WRITE (before 5.14) refuse it, and
 * we fall back to ordinary faults. */
static void prefault(exdb_arena_block *b, size_t upto) {
#ifdef MADV_POPULATE_WRITE
    static int unsupported;
    if (unsupported || upto <= b->faulted)
        return;
    static size_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
    }
    size_t step = b->size / 8;
    step = step < PREFAULT_MIN_STEP ? PREFAULT_MIN_STEP
           : step > PREFAULT_STEP   ? PREFAULT_STEP
                                    : step;
    int helped = exdb_mem_ahead_on();
    if (helped && step > HELPED_STEP)
        step = HELPED_STEP;
    size_t end = b->faulted + step;
    while (end < upto)
        end += step;
    if (end > b->size)
        end = b->size;
    uintptr_t lo = ((uintptr_t)b->data + b->faulted + page - 1) & ~(uintptr_t)(page - 1);
    if (helped) {
        /* A helper thread populates the step after this one (mem.h),
         * while this one is filled; this one it was asked for at the
         * previous step, but for a block's first step, or the part of a
         * bigger request past that; and when the helper is behind (a
         * busy machine), this one is populated here, as without it: a
         * write faulting a page at a time costs more. */
        size_t asked = b->faulted && exdb_mem_ahead_idle() ? b->faulted + step : 0;
        uintptr_t mid = asked > end ? lo : ((uintptr_t)b->data + asked) & ~(uintptr_t)(page - 1);
        if (mid < lo)
            mid = lo;
        uintptr_t hi = ((uintptr_t)b->data + end) & ~(uintptr_t)(page - 1);
        if (hi > mid && madvise((void *)mid, hi - mid, MADV_POPULATE_WRITE) != 0)
            unsupported = 1;
        size_t next = b->size - end < step ? b->size : end + step;
        uintptr_t nhi = ((uintptr_t)b->data + next) & ~(uintptr_t)(page - 1);
        if (nhi > hi)
            exdb_mem_populate_pages((void *)hi, nhi - hi);
        b->faulted = end;
        return;
    }
    uintptr_t hi = ((uintptr_t)b->data + end) & ~(uintptr_t)(page - 1);
    if (hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
        unsupported = 1;
    b->faulted = end;
#else
    (void)b;
    (void)upto;
#endif
}

/* exdb_arena_alloc for the code at site (the public calls' caller): under
 * fault injection (fault.h) any call may fail, as any call may be the one
 * that needs a new block when memory runs out. */
static void *arena_alloc_at(exdb_arena *a, size_t n, const void *site) {
#ifdef EXDB_FAULT
    if (exdb_fault_arena_calls() && exdb_fault_hit(site))
        return NULL;
#else
    (void)site;
#endif
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - 64)
        return NULL;
    n = (n + 15) & ~(size_t)15;
    exdb_arena_block *b = a->head;
    if (!b || b->size - b->off < n) {
        size_t want = b ? b->size * 2 : ARENA_MIN_BLOCK;
        if (want > ARENA_MAX_BLOCK)
            want = ARENA_MAX_BLOCK;
        if (want < n)
            want = n;
#ifdef EXDB_FAULT
        if (!exdb_fault_arena_calls() && exdb_fault_hit(site))
            return NULL;
#endif
        exdb_arena_block *nb = cache_take(want);
        if (nb) {
            want = nb->size;
        } else {
            if (!(nb = block_new(want)))
                return NULL;
            /* Huge pages only where a prefault step is a whole huge page:
             * in a smaller block a step of a few hundred KB would make the
             * kernel map (and count in RSS) a whole 2 MiB page, up to
             * 0.6 bytes per byte of JSON for a 3 MB program. */
            if (want >= 8 * PREFAULT_STEP)
                exdb_mem_hugepage(nb->data, want);
        }
        if (b && want == n && b->size - b->off > want / 4) {
            /* A big one-off request: keep filling the current block. */
            nb->prev = b->prev;
            b->prev = nb;
        } else {
            nb->prev = b;
            a->head = nb;
        }
        a->reserved += want;
        b = nb;
    }
    void *p = b->data + b->off;
    b->off += n;
    if (b->off > b->faulted)
        prefault(b, b->off);
    a->used += n;
    return p;
}

void *exdb_arena_alloc_out(exdb_arena *a, size_t n) {
    return arena_alloc_at(a, n, __builtin_return_address(0));
}

void *exdb_arena_calloc_out(exdb_arena *a, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = arena_alloc_at(a, count * size, __builtin_return_address(0));
    if (p)
        memset(p, 0, count * size);
    return p;
}

static char *arena_strndup_at(exdb_arena *a, const char *s, size_t n, const void *site) {
    char *p = arena_alloc_at(a, n + 1, site);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *exdb_arena_strndup(exdb_arena *a, const char *s, size_t n) {
    return arena_strndup_at(a, s, n, __builtin_return_address(0));
}

char *exdb_arena_strdup(exdb_arena *a, const char *s) {
    return arena_strndup_at(a, s, strlen(s), __builtin_return_address(0));
}

int exdb_arena_block_of(const exdb_arena *a, const void *p, const void **lo, const void **hi) {
    for (const exdb_arena_block *b = a->head; b; b = b->prev) {
        const unsigned char *d = b->data;
        uintptr_t x = (uintptr_t)p, l = (uintptr_t)d;
        if (x >= l && x - l < b->size) {
            *lo = d;
            *hi = d + b->size;
            return 1;
        }
    }
    return 0;
}

void exdb_arena_top(const exdb_arena *a, const void **top, const void **end) {
    const exdb_arena_block *b = a->head;
    *top = b ? b->data + b->off : NULL;
    *end = b ? b->data + b->size : NULL;
}

void exdb_arena_each_block(const exdb_arena *a,
                           void (*fn)(void *ctx, const void *lo, const void *hi), void *ctx) {
    for (const exdb_arena_block *b = a->head; b; b = b->prev)
        fn(ctx, b->data, b->data + b->size);
}

void exdb_arena_each_used(const exdb_arena *a, void (*fn)(void *ctx, const void *p, size_t n),
                          void *ctx) {
    for (const exdb_arena_block *b = a->head; b; b = b->prev)
        fn(ctx, b->data, b->off);
}

char *exdb_arena_printf(exdb_arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = NULL;
    if (n >= 0 && (p = arena_alloc_at(a, (size_t)n + 1, __builtin_return_address(0))))
        vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void *exdb_arena_grow(exdb_arena *a, const void *arr, size_t n, uint32_t *cap, size_t elem,
                      uint32_t first) {
    uint32_t ncap = *cap ? *cap * 2 : first;
    if (ncap <= *cap || (size_t)ncap > SIZE_MAX / elem)
        return NULL;
    void *na = exdb_arena_alloc(a, (size_t)ncap * elem);
    if (!na)
        return NULL;
    if (n)
        memcpy(na, arr, n * elem);
    *cap = ncap;
    return na;
}
