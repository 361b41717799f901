/* arena.h - bump allocation for everything that lives as long as a program
 * (or an unflatten run). One exdb_arena_destroy frees it all; nothing
 * allocated from an arena is freed individually. */
#ifndef EXDB_CORE_BASE_ARENA_H
#define EXDB_CORE_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct exdb_arena_block exdb_arena_block;

/* A block (arena.c's; here for exdb_arena_alloc's inline fast path). */
struct exdb_arena_block {
    exdb_arena_block *prev;
    size_t size, off;
    size_t faulted; /* bytes from data[0] already prefaulted (see prefault) */
    _Alignas(16) unsigned char data[];
};

/* Called before a store of n bytes at p into memory the arena handed out
 * (EXDB_WILL_WRITE): core/unflatten/journal.c installs one to make an
 * unflatten run reversible. */
typedef void (*exdb_arena_write_hook)(void *ctx, const void *p, size_t n);

typedef struct exdb_arena {
    exdb_arena_block *head;           /* current block; older blocks chained behind */
    size_t used;                      /* bytes handed out, for `info memory` and bench */
    size_t reserved;                  /* bytes obtained from malloc */
    exdb_arena_write_hook will_write; /* or NULL: stores are not watched */
    void *will_write_ctx;
} exdb_arena;

void exdb_arena_init(exdb_arena *a);
/* Frees a's blocks, or keeps them in the block cache when it is on. */
void exdb_arena_destroy(exdb_arena *a);
/* The process-wide block cache, off unless a program turns it on: freed
 * blocks are kept (up to limit bytes in all) for later arenas, whose pages
 * are then mapped already (a reload or a rebuilt unflatten run of a big
 * program costs half as much). EXDB_ARENA_CACHE_AUTO: a quarter of the
 * machine's (or the container's) memory, at least 768 MiB; 0 turns it off
 * and frees what it holds. The REPL turns it on. */
#define EXDB_ARENA_CACHE_AUTO ((size_t)-1)
void exdb_arena_cache(size_t limit);
/* Bytes the cache holds (tests, `make bench`). */
size_t exdb_arena_cached(void);
/* Frees the cache's blocks (it stays on). */
void exdb_arena_trim(void);
/* A buffer of n bytes from the block cache (a fresh block when none fits),
 * for a program's JSON text: reloading then reuses its memory as the
 * arenas' is reused. Released with exdb_mem_release, which also frees
 * plain malloc'd pointers and unmaps a text of filemap.h's (so a caller
 * holding any of these kinds uses it). */
void *exdb_mem_take(size_t n);
void exdb_mem_release(void *p);
/* Forgets everything allocated from a but keeps its newest block (the
 * biggest of the geometric ones)
 * for what comes next: a scratch arena refilled many times (the loader's,
 * once per node) stays in the same cache-warm memory. */
void exdb_arena_reset(exdb_arena *a);
/* exdb_arena_alloc and _calloc out of line: a new block, prefaulting, and
 * under fault injection every call (its site is the caller's). */
void *exdb_arena_alloc_out(exdb_arena *a, size_t n);
void *exdb_arena_calloc_out(exdb_arena *a, size_t count, size_t size);
/* n bytes (a multiple of 16, not 0) from the current block when its
 * prefaulted part has them, else NULL: the bump of a few instructions that
 * most of the loader's and unflatten's ~10^5-10^6 allocations take (a call
 * and the general path cost ~50 instructions each). */
static inline __attribute__((always_inline)) void *exdb_arena_bump(exdb_arena *a, size_t n) {
    exdb_arena_block *b = a->head;
    if (!b || b->faulted < b->off || b->faulted - b->off < n)
        return NULL;
    void *p = b->data + b->off;
    b->off += n;
    a->used += n;
    return p;
}
static inline __attribute__((always_inline)) void *exdb_arena_alloc_fast(exdb_arena *a, size_t n) {
    void *p = n - 1 < 4096 ? exdb_arena_bump(a, (n + 15) & ~(size_t)15) : NULL;
    return p ? p : exdb_arena_alloc_out(a, n);
}
static inline __attribute__((always_inline)) void *
exdb_arena_calloc_fast(exdb_arena *a, size_t count, size_t size) {
    size_t n = count * size;
    void *p = count <= 4096 && size <= 4096 && n - 1 < 4096
                  ? exdb_arena_bump(a, (n + 15) & ~(size_t)15)
                  : NULL;
    if (!p)
        return exdb_arena_calloc_out(a, count, size);
    __builtin_memset(p, 0, n);
    return p;
}
/* void *exdb_arena_alloc(exdb_arena *a, size_t n): n bytes aligned to 16,
 * or NULL when memory is exhausted.
 * void *exdb_arena_calloc(exdb_arena *a, size_t count, size_t size):
 * zero-filled; NULL on overflow of count*size or exhaustion.
 * The sanitizer, fault injection and coverage builds call them out of line
 * every time, as before the inline bump: the fault walk counts every call
 * and names each site by its caller's line. */
#if defined(EXDB_FAULT) || defined(__SANITIZE_ADDRESS__) || defined(EXDB_COVERAGE)
#define exdb_arena_alloc  exdb_arena_alloc_out
#define exdb_arena_calloc exdb_arena_calloc_out
#else
#define exdb_arena_alloc  exdb_arena_alloc_fast
#define exdb_arena_calloc exdb_arena_calloc_fast
#endif
/* Copies n bytes of s and appends a NUL. */
char *exdb_arena_strndup(exdb_arena *a, const char *s, size_t n);
char *exdb_arena_strdup(exdb_arena *a, const char *s);
/* The block holding p: 1 and its bounds, or 0 when p is not arena memory. */
int exdb_arena_block_of(const exdb_arena *a, const void *p, const void **lo, const void **hi);
/* The next byte exdb_arena_alloc hands out and the end of its block
 * (memory in between is not in use yet). */
void exdb_arena_top(const exdb_arena *a, const void **top, const void **end);
/* Calls fn with the bytes handed out from each block (tests compare them). */
/* Calls fn with the bounds [lo, hi) of every block of a. */
void exdb_arena_each_block(const exdb_arena *a,
                           void (*fn)(void *ctx, const void *lo, const void *hi), void *ctx);
void exdb_arena_each_used(const exdb_arena *a, void (*fn)(void *ctx, const void *p, size_t n),
                          void *ctx);
/* A growable array in the arena, when its n elements fill *cap: a copy with
 * twice the room (first when empty) and *cap updated, or NULL (out of
 * memory; *cap unchanged). The old array stays in the arena: nothing that
 * pointed into it is invalidated. A caller whose *cap lives in journaled
 * memory records it first (EXDB_WILL_WRITE). */
void *exdb_arena_grow(exdb_arena *a, const void *arr, size_t n, uint32_t *cap, size_t elem,
                      uint32_t first);
char *exdb_arena_printf(exdb_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Before a store of n bytes at p into memory from a that may predate the
 * current unflatten event: the hook records them so the store can be
 * undone (core/unflatten/journal.h). A no-op for arenas without a hook
 * (programs, lint, dce). */
static inline void exdb_arena_will_write(exdb_arena *a, const void *p, size_t n) {
    if (a->will_write)
        a->will_write(a->will_write_ctx, p, n);
}
/* Before copying n bytes (a multiple of 8, dst 8-aligned) from src over
 * dst: records only the words that change (a node's args/kwargs are often
 * reassigned with most words, or all, equal). */
static inline void exdb_arena_will_store(exdb_arena *a, void *dst, const void *src, size_t n) {
    if (!a->will_write)
        return;
    const unsigned char *d = dst, *s = src;
    for (size_t i = 0; i < n; i += 8) {
        unsigned long long x, y;
        __builtin_memcpy(&x, d + i, 8);
        __builtin_memcpy(&y, s + i, 8);
        if (x != y)
            a->will_write(a->will_write_ctx, d + i, 8);
    }
}
/* EXDB_WILL_WRITE(a, lvalue) before `lvalue = ...` */
#define EXDB_WILL_WRITE(a, lv) exdb_arena_will_write((a), &(lv), sizeof(lv))

#endif
