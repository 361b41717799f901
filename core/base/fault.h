/* fault.h - out-of-memory fault injection, SQLite's way: make the Nth
 * allocation fail and check that every path taking the NULL returns a clean
 * error and frees what it holds (tests/faults/fault_walk.c walks N).
 *
 * Compiled in only with -DEXDB_FAULT (the sanitizer build, see Makefile),
 * where every object of core/ and viz/ is compiled with
 * `-include core/base/fault.h`: malloc, calloc, realloc, strdup and strndup
 * then go through the counters below, and exdb_arena_alloc (arena.c) asks
 * exdb_fault_hit when it needs a new block, or on every call (see
 * EXDB_FAULT_ARENA_CALLS). Without EXDB_FAULT nothing
 * is wrapped and the calls below cost nothing.
 *
 * Not injected (they are not exdb's mallocs): libzip, cJSON, cgraph/gvc and
 * libc's own (stdio buffers, open_memstream, getline). docs/faults.md says
 * which of those handle out-of-memory and which abort. */
#ifndef EXDB_CORE_BASE_FAULT_H
#define EXDB_CORE_BASE_FAULT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef EXDB_FAULT

/* How exdb_fault_arm's n counts and fails. */
enum {
    EXDB_FAULT_PERSISTENT = 1, /* every allocation from the nth on fails (a machine that
                                  stays out of memory), not the nth alone */
    EXDB_FAULT_ARENA_CALLS = 2 /* every exdb_arena_alloc call counts (and may fail), not only
                                  those that need a new block: any call may be the one that
                                  needs one when memory runs out */
};
/* Arms the hook: the nth allocation from now on (1-based) fails; flags as
 * above; n = 0 disarms. Resets the counters below. */
void exdb_fault_arm(unsigned long n, int flags);
/* Whether every arena call counts (EXDB_FAULT_ARENA_CALLS is armed). */
int exdb_fault_arena_calls(void);
/* Whether faults are being injected (armed with n > 0): the loader then
 * parses in one thread, as the counting assumes (core/format/json_ahead.h). */
int exdb_fault_armed(void);
/* Allocations counted since the last exdb_fault_arm. */
unsigned long exdb_fault_seen(void);
/* Allocations made to fail since then, and the code address of the first
 * one's caller (NULL when none failed). */
unsigned long exdb_fault_failed(void);
const void *exdb_fault_site(void);
/* Holds injection off while on > 0 (calls nest): around allocators handed
 * to a library that cannot take a NULL (viz/cgdisc.c's cgraph discipline:
 * cgraph 2.42 dereferences what agalloc returns). */
void exdb_fault_hold(int on);
/* Called (when set) at each allocation made to fail: tests print the stack. */
extern void (*exdb_fault_on_fail)(void);
/* Called (when set) at each allocation counted, with its number n and the
 * code address of its caller: the fault walk notes each one's call stack. */
extern void (*exdb_fault_on_count)(unsigned long n, const void *site);
/* Counts one allocation made by the code at site; 1 when it must fail. */
int exdb_fault_hit(const void *site);

void *exdb_fault_malloc(size_t n);
void *exdb_fault_calloc(size_t n, size_t size);
void *exdb_fault_realloc(void *p, size_t n);
char *exdb_fault_strdup(const char *s);
char *exdb_fault_strndup(const char *s, size_t n);

#ifndef EXDB_FAULT_NO_WRAP
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup
#define malloc(n)     exdb_fault_malloc(n)
#define calloc(n, s)  exdb_fault_calloc(n, s)
#define realloc(p, n) exdb_fault_realloc(p, n)
#define strdup(s)     exdb_fault_strdup(s)
#define strndup(s, n) exdb_fault_strndup(s, n)
#endif

#define EXDB_FAULT_HOLD(on) exdb_fault_hold(on)

#else

#define EXDB_FAULT_HOLD(on) ((void)0)

#endif

#endif
