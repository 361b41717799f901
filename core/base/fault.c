/* fault.c - see fault.h. exdb is single-threaded: plain counters. */
#define EXDB_FAULT_NO_WRAP
#include "core/base/fault.h"

/* The build includes fault.h before this file's first line (the Makefile's
 * -include): the wrappers call the real functions. */
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup

#ifdef EXDB_FAULT

static unsigned long fail_at, seen, failed;
static int flags, hold;
static const void *first_site;
void (*exdb_fault_on_fail)(void);
void (*exdb_fault_on_count)(unsigned long n, const void *site);

void exdb_fault_arm(unsigned long n, int how) {
    fail_at = n;
    flags = how;
    seen = failed = 0;
    first_site = NULL;
}

int exdb_fault_armed(void) {
    return fail_at != 0;
}

int exdb_fault_arena_calls(void) {
    return fail_at && (flags & EXDB_FAULT_ARENA_CALLS);
}

unsigned long exdb_fault_seen(void) {
    return seen;
}

unsigned long exdb_fault_failed(void) {
    return failed;
}

const void *exdb_fault_site(void) {
    return first_site;
}

void exdb_fault_hold(int on) {
    hold += on ? 1 : -1;
}

int exdb_fault_hit(const void *site) {
    if (!fail_at || hold > 0)
        return 0;
    seen++;
    if (exdb_fault_on_count)
        exdb_fault_on_count(seen, site);
    if (seen < fail_at || (seen > fail_at && !(flags & EXDB_FAULT_PERSISTENT)))
        return 0;
    if (!failed++)
        first_site = site;
    if (exdb_fault_on_fail)
        exdb_fault_on_fail();
    return 1;
}

/* The wrappers take their caller as the site; noinline so that it is the
 * code that called malloc, not a caller of an inlined copy. */
__attribute__((noinline)) void *exdb_fault_malloc(size_t n) {
    return exdb_fault_hit(__builtin_return_address(0)) ? NULL : malloc(n);
}

__attribute__((noinline)) void *exdb_fault_calloc(size_t n, size_t size) {
    return exdb_fault_hit(__builtin_return_address(0)) ? NULL : calloc(n, size);
}

__attribute__((noinline)) void *exdb_fault_realloc(void *p, size_t n) {
    return exdb_fault_hit(__builtin_return_address(0)) ? NULL : realloc(p, n);
}

__attribute__((noinline)) char *exdb_fault_strdup(const char *s) {
    return exdb_fault_hit(__builtin_return_address(0)) ? NULL : strdup(s);
}

__attribute__((noinline)) char *exdb_fault_strndup(const char *s, size_t n) {
    return exdb_fault_hit(__builtin_return_address(0)) ? NULL : strndup(s, n);
}

#else

/* Nothing to inject without EXDB_FAULT (an empty file is not ISO C). */
typedef int exdb_fault_unused;

#endif
