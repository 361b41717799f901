/* mem.c - see mem.h. */
#include "core/base/mem.h"

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
