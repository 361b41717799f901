/* journal.c - see journal.h. */
#include "core/base/mem.h"
#include "core/unflatten/journal.h"

#include <assert.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void verify_free(exdb_journal *j);

int exdb_journal_init(exdb_journal *j, exdb_arena *a, void *obj, size_t size) {
    memset(j, 0, sizeof *j);
    j->arena = a;
    j->obj = obj;
    j->obj_words = size / 8;
    j->shadow = malloc(size ? size : 1);
    j->ev_cap = 256;
    j->ev = malloc(j->ev_cap * sizeof *j->ev);
    j->twice = calloc(j->ev_cap / 64, sizeof *j->twice);
    if (!j->shadow || !j->ev || !j->twice) {
        exdb_journal_free(j);
        return -1;
    }
    memcpy(j->shadow, obj, j->obj_words * 8);
    j->ev[0] = 0;
    exdb_journal_attach(j, 1);
#ifndef NDEBUG
    if (getenv("EXDB_JOURNAL_VERIFY"))
        j->verify = 2; /* an unrecorded store fails an assert */
#endif
    return 0;
}

static void save_hook(void *ctx, const void *p, size_t n) {
    exdb_journal_save(ctx, p, n);
}

void exdb_journal_attach(exdb_journal *j, int on) {
    if (on) {
        j->arena->will_write = save_hook;
        j->arena->will_write_ctx = j;
    } else if (j->arena->will_write_ctx == j) {
        j->arena->will_write = NULL;
        j->arena->will_write_ctx = NULL;
    }
}

void exdb_journal_free(exdb_journal *j) {
    if (j->arena)
        exdb_journal_attach(j, 0);
    verify_free(j);
    free(j->chunks);
    exdb_arena_destroy(&j->store);
    free(j->ev);
    free(j->twice);
    free(j->shadow);
    free(j->gstack);
    free(j->blocks);
    free(j->old);
    memset(j, 0, sizeof *j);
}

#define JCHUNK ((size_t)1 << EXDB_JCHUNK_BITS)

static uint64_t *cell(const exdb_journal *j, size_t i) {
    return &j->chunks[i >> EXDB_JCHUNK_BITS][i & (JCHUNK - 1)];
}

static uint64_t *grp_addr(uint64_t h) {
    return (uint64_t *)(uintptr_t)((h & (((uint64_t)1 << EXDB_JGROUP_SHIFT) - 1)) << 3);
}

static uint32_t grp_count(uint64_t h) {
    return (uint32_t)(h >> EXDB_JGROUP_SHIFT);
}

/* Room for k more cells: whole chunks from a private arena, so records
 * never move and growing costs no copy. A group may run on from one chunk
 * into the next: cells are found by their index. */
static int reserve(exdb_journal *j, size_t k) {
    while (j->n + k > j->cap) {
        size_t c = j->cap >> EXDB_JCHUNK_BITS;
        if (c == j->nchunks_cap) {
            uint64_t **nc = exdb_grow(j->chunks, &j->nchunks_cap, sizeof *nc, 64);
            if (!nc)
                return -1;
            j->chunks = nc;
        }
        j->chunks[c] = exdb_arena_alloc(&j->store, JCHUNK * sizeof(uint64_t));
        if (!j->chunks[c])
            return -1;
        j->cap += JCHUNK;
    }
    return 0;
}

/* Records word a (8-aligned) with value v: into the open event's last
 * group when a follows it, else as a new group (whose header the event's
 * undo finds again in j->gstack, grown here so undoing never allocates).
 * -1 when out of memory (j->oom; the word is not recorded). emit's way
 * when its inline part (below) cannot: a chunk to start or to cross, the
 * group stack to grow, a full group. */
static int emit_slow(exdb_journal *j, uintptr_t a, uint64_t v) {
    if (a == j->grp_end && grp_count(*j->grp_cell) < EXDB_JGROUP_MAX) {
        if (j->n == j->cap && reserve(j, 1) < 0)
            goto oom;
        *j->grp_cell += (uint64_t)1 << EXDB_JGROUP_SHIFT;
        *cell(j, j->n++) = v;
        j->grp_end += 8;
        return 0;
    }
    if ((uint64_t)a >> (EXDB_JGROUP_SHIFT + 3)) /* beyond 2^54: no such addresses on Linux */
        goto oom;
    if (j->ngrp == j->gstack_cap) {
        size_t *ng = exdb_grow(j->gstack, &j->gstack_cap, sizeof *ng, 256);
        if (!ng)
            goto oom;
        j->gstack = ng;
    }
    if (j->n + 2 > j->cap && reserve(j, 2) < 0)
        goto oom;
    j->ngrp++;
    j->grp_cell = cell(j, j->n);
    j->grp_end = a + 8;
    *cell(j, j->n++) = ((uint64_t)a >> 3) | ((uint64_t)1 << EXDB_JGROUP_SHIFT);
    *cell(j, j->n++) = v;
    return 0;
oom:
    j->oom = 1;
    return -1;
}

/* emit: the 9.5M words of synth_100k's run mostly take one of two ways,
 * inline in exdb_journal_save with the chunk's cell found once: the word
 * after the last group's (one cell more there), or a new group (two
 * cells) while the two cells are in one chunk and the group stack has
 * room. */
static inline int emit(exdb_journal *j, uintptr_t a, uint64_t v) {
    size_t n = j->n;
    if (n + 2 <= j->cap && ((n + 1) & (JCHUNK - 1)) != 0) {
        uint64_t *c = cell(j, n);
        if (a == j->grp_end) {
            if (grp_count(*j->grp_cell) < EXDB_JGROUP_MAX) {
                *j->grp_cell += (uint64_t)1 << EXDB_JGROUP_SHIFT;
                c[0] = v;
                j->n = n + 1;
                j->grp_end += 8;
                return 0;
            }
        } else if (j->ngrp < j->gstack_cap && !((uint64_t)a >> (EXDB_JGROUP_SHIFT + 3))) {
            j->ngrp++;
            j->grp_cell = c;
            j->grp_end = a + 8;
            c[0] = ((uint64_t)a >> 3) | ((uint64_t)1 << EXDB_JGROUP_SHIFT);
            c[1] = v;
            j->n = n + 2;
            return 0;
        }
    }
    return emit_slow(j, a, v);
}

/* The open event records no group yet. */
static void groups_reset(exdb_journal *j) {
    j->grp_end = 0;
    j->ngrp = 0;
    if (j->evicted)
        memset(j->forgot, 0, sizeof j->forgot);
    j->evicted = 0;
    j->twice_open = 0;
}

static void add_block(void *ctx, const void *lo, const void *hi) {
    exdb_journal *j = ctx;
    uint32_t i = j->nblocks++;
    for (; i > 0 && j->blocks[2 * (i - 1)] > (uintptr_t)lo; i--) {
        j->blocks[2 * i] = j->blocks[2 * (i - 1)];
        j->blocks[2 * i + 1] = j->blocks[2 * (i - 1) + 1];
    }
    j->blocks[2 * i] = (uintptr_t)lo;
    j->blocks[2 * i + 1] = (uintptr_t)hi;
}

static void count_block(void *ctx, const void *lo, const void *hi) {
    (void)lo;
    (void)hi;
    ++*(uint32_t *)ctx;
}

/* The arena's blocks sorted by address, remade when it took a new block:
 * 0, or -1 when out of memory (the caller walks the block list instead). */
static int blocks_update(exdb_journal *j) {
    if (j->blocks && j->blocks_reserved == j->arena->reserved)
        return 0;
    uint32_t n = 0;
    exdb_arena_each_block(j->arena, count_block, &n);
    if (n > j->blocks_cap) {
        uint32_t cap = n * 2;
        uintptr_t *nb = realloc(j->blocks, (size_t)cap * 2 * sizeof *nb);
        if (!nb)
            return -1;
        j->blocks = nb;
        j->blocks_cap = cap;
    }
    j->nblocks = 0;
    exdb_arena_each_block(j->arena, add_block, j);
    j->blocks_reserved = j->arena->reserved;
    return j->blocks ? 0 : -1;
}

/* Whether the block starting at lo was made by the open event (not among
 * the blocks at its start; when those are unknown, not made by it). */
static int block_fresh(const exdb_journal *j, uintptr_t lo) {
    if (!j->old_reserved)
        return 0;
    uint32_t a = 0, b = j->nold;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (j->old[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    return a == j->nold || j->old[a] != lo;
}

/* At an event's start: the blocks that exist (remade only when the arena
 * took a block since), so the blocks the event makes are known as its own. */
static void old_update(exdb_journal *j) {
    j->hit_lo = j->hit_hi = 0; /* a block fresh for the last event is not for this one */
    if (j->old_reserved == j->arena->reserved && j->old_reserved)
        return;
    j->old_reserved = 0;
    if (blocks_update(j) < 0)
        return;
    if (j->nblocks > j->old_cap) {
        uintptr_t *no = realloc(j->old, (size_t)j->nblocks * 2 * sizeof *no);
        if (!no)
            return;
        j->old = no;
        j->old_cap = j->nblocks * 2;
    }
    for (uint32_t i = 0; i < j->nblocks; i++)
        j->old[i] = j->blocks[2 * i];
    j->nold = j->nblocks;
    j->old_reserved = j->arena->reserved;
}

/* Is p state: in the compared object (recorded by the comparison) or in the
 * run's arena? The block that matched last is tried first, then the
 * blocks by address (a walk of the block list cost 2% of the 1M-node run:
 * it has ~50 blocks). Sets hit_fresh for the block found. */
static int is_arena(exdb_journal *j, uintptr_t p) {
    if (p >= j->hit_lo && p < j->hit_hi)
        return 1;
    if (blocks_update(j) < 0) {
        const void *lo, *hi;
        if (!exdb_arena_block_of(j->arena, (const void *)p, &lo, &hi))
            return 0;
        j->hit_lo = (uintptr_t)lo;
        j->hit_hi = (uintptr_t)hi;
        j->hit_fresh = 0;
        return 1;
    }
    uint32_t a = 0, b = j->nblocks; /* the last block starting at or below p */
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (j->blocks[2 * m] <= p)
            a = m + 1;
        else
            b = m;
    }
    if (a == 0 || p >= j->blocks[2 * (a - 1) + 1])
        return 0;
    j->hit_lo = j->blocks[2 * (a - 1)];
    j->hit_hi = j->blocks[2 * (a - 1) + 1];
    j->hit_fresh = (uint8_t)block_fresh(j, j->hit_lo);
    return 1;
}

/* A word's bit in j->forgot (a hash other than the seen cache's). */
static inline uint32_t forgot_bit(uintptr_t a) {
    return (uint32_t)(((uint64_t)(a >> 3) * 0x9E3779B97F4A7C15u) >> 40) & (EXDB_JOURNAL_SEEN - 1);
}

void exdb_journal_save(exdb_journal *j, const void *p, size_t n) {
    if (!j->recording || !n)
        return;
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)7, hi = ((uintptr_t)p + n + 7) & ~(uintptr_t)7;
    if (lo >= j->fresh_lo && hi <= j->fresh_hi)
        return; /* allocated by this event */
    if (!is_arena(j, lo) || j->hit_fresh)
        return; /* not state, or in a block this event made */
    for (uintptr_t a = lo; a < hi; a += 8) {
        uint32_t h = (uint32_t)((a >> 3) * 2654435761u) & (EXDB_JOURNAL_SEEN - 1);
        if (j->seen_epoch[h] == j->epoch) {
            if (j->seen[h] == a)
                continue; /* recorded already: the first record holds the old value */
            uint32_t f = forgot_bit(j->seen[h]);
            j->forgot[f / 64] |= (uint64_t)1 << (f % 64);
            j->evicted = 1;
        }
        if (j->evicted) { /* a word forgotten before may be recorded again */
            uint32_t f = forgot_bit(a);
            j->twice_open |= (uint8_t)(j->forgot[f / 64] >> (f % 64) & 1);
        }
        uint64_t v;
        memcpy(&v, (const void *)a, 8);
        if (emit(j, a, v) < 0)
            return;
        j->seen[h] = a;
        j->seen_epoch[h] = j->epoch;
    }
}

/* ---- verification (exdb_journal_verify): the bytes in use at an event's
 * start are copied, and at its end every 8-byte word that changed must
 * have been recorded by the event. A store without EXDB_WILL_WRITE would
 * otherwise only show when going back, as a state that differs. */

static void verify_free(exdb_journal *j) {
    for (uint32_t i = 0; i < j->nvsnap; i++)
        free(j->vsnap[i].copy);
    free(j->vsnap);
    j->vsnap = NULL;
    j->nvsnap = j->vsnap_cap = 0;
}

static void verify_block(void *ctx, const void *p, size_t n) {
    exdb_journal *j = ctx;
    if (j->nvsnap == j->vsnap_cap) {
        uint32_t ncap = j->vsnap_cap ? j->vsnap_cap * 2 : 16;
        void *nv = realloc(j->vsnap, ncap * sizeof *j->vsnap);
        if (!nv) {
            j->oom = 1;
            return;
        }
        j->vsnap = nv;
        j->vsnap_cap = ncap;
    }
    unsigned char *copy = malloc(n ? n : 1);
    if (!copy) {
        j->oom = 1;
        return;
    }
    memcpy(copy, p, n);
    j->vsnap[j->nvsnap++] = (struct exdb_jsnap){p, n, copy};
}

static int cmp_addr(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* The changed words the open event did not record: counted, the first
 * kept. */
static void verify_event(exdb_journal *j) {
    size_t ncell = j->n - j->open, nrec = 0;
    uintptr_t *rec = malloc((ncell ? ncell : 1) * sizeof *rec);
    if (!rec) {
        j->oom = 1;
        return;
    }
    for (size_t i = j->open; i < j->n; i += 1 + grp_count(*cell(j, i)))
        for (uint32_t w = 0; w < grp_count(*cell(j, i)); w++)
            rec[nrec++] = (uintptr_t)(grp_addr(*cell(j, i)) + w);
    qsort(rec, nrec, sizeof *rec, cmp_addr);
    for (uint32_t b = 0; b < j->nvsnap; b++) {
        const struct exdb_jsnap *sn = &j->vsnap[b];
        for (size_t o = 0; o + 8 <= sn->n; o += 8) {
            if (memcmp(sn->base + o, sn->copy + o, 8) == 0)
                continue;
            uintptr_t a = (uintptr_t)(sn->base + o);
            if (nrec && bsearch(&a, rec, nrec, sizeof *rec, cmp_addr))
                continue;
            if (!j->unrecorded++)
                j->unrecorded_at = (const void *)a;
        }
    }
    free(rec);
    verify_free(j);
    assert(j->verify != 2 || j->unrecorded == 0);
}

void exdb_journal_verify(exdb_journal *j, int on) {
    j->verify = (uint8_t)(on != 0);
}

void exdb_journal_begin(exdb_journal *j) {
    /* only at the newest event, nothing open, a failed event undone */
    assert(!j->recording && !j->failed_open && j->pos == j->nev && j->n == j->ev[j->nev]);
    j->open = j->n;
    j->recording = 1;
    groups_reset(j);
    if (++j->epoch == 0) { /* wrapped: forget every remembered word */
        memset(j->seen_epoch, 0, sizeof j->seen_epoch);
        j->epoch = 1;
    }
    old_update(j);
    const void *top, *end;
    exdb_arena_top(j->arena, &top, &end);
    j->fresh_lo = (uintptr_t)top;
    j->fresh_hi = (uintptr_t)end;
    if (j->verify)
        exdb_arena_each_used(j->arena, verify_block, j);
}

/* Words of the compared object tested at once (an OR of their XORs, two
 * words a vector): an event changes a handful of the
 * run struct's 76 words, and a word-by-word walk cost ~630 instructions an
 * event (2.5% of the whole unflatten run's at 10k nodes). */
#define DIFF_RUN 8

/* Whether DIFF_RUN words at a and b are equal. */
static inline int run_same(const uint64_t *a, const uint64_t *b) {
#ifdef __SSE2__
    __m128i d = _mm_setzero_si128();
    for (size_t k = 0; k < DIFF_RUN; k += 2)
        d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(a + k)),
                                          _mm_loadu_si128((const __m128i *)(const void *)(b + k))));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xFFFF;
#else
    uint64_t d = 0;
    for (size_t k = 0; k < DIFF_RUN; k++)
        d |= a[k] ^ b[k];
    return d == 0;
#endif
}

/* Records the words of the compared object that changed since the shadow. */
static void diff_obj(exdb_journal *j) {
    const uint64_t *o = j->obj;
    uint64_t *sh = j->shadow;
    for (size_t base = 0; base < j->obj_words; base += DIFF_RUN) {
        size_t end = base + DIFF_RUN <= j->obj_words ? base + DIFF_RUN : j->obj_words;
        if (end - base == DIFF_RUN && run_same(o + base, sh + base))
            continue;
        for (size_t i = base; i < end; i++) {
            if (o[i] == sh[i])
                continue;
            if (emit(j, (uintptr_t)&o[i], sh[i]) < 0)
                return;
            sh[i] = o[i];
        }
    }
}

/* Drops the open event's records of words that hold at its end the value
 * they had before it (a store of the same value, a field set and set
 * back): EXDB_WILL_WRITE records a word before the store, not knowing
 * whether it will change. A group loses its unchanged words at either end,
 * or goes when none changed; groups are never split, so an event never has
 * more groups than it recorded (j->gstack holds them all). 1 in 7 words of
 * the 100k-node run are unchanged: the journal shrinks by ~10%, and going
 * back or forth reads and writes that much less. Skipped when a word may be
 * recorded twice (the seen cache forgot one and j->forgot says it may have
 * been recorded again): its second record holds a value from within the
 * event, which must not outlive the first. */
static void compact_event(exdb_journal *j) {
    size_t open = j->open, n = j->n;
    /* an event whose cells cross into a new chunk (one in ~2,600, and
     * those bigger than a chunk) keeps them as recorded: its cells are
     * then walked by index, each looked up in its chunk, which cost every
     * event 10% more instructions at its commit */
    if (j->twice_open || n == open || open >> EXDB_JCHUNK_BITS != (n - 1) >> EXDB_JCHUNK_BITS)
        return;
    uint64_t *cells = cell(j, open);
    size_t w = 0;
    for (size_t i = 0; i < n - open;) {
        uint64_t h = cells[i];
        const uint64_t *a = grp_addr(h);
        uint32_t c = grp_count(h), lo = 0, hi = c;
        while (lo < hi && a[lo] == cells[i + 1 + lo])
            lo++;
        while (hi > lo && a[hi - 1] == cells[i + hi])
            hi--;
        if (hi > lo) {
            /* w <= i: the cells written never pass the ones still to read */
            cells[w] =
                (((uint64_t)(uintptr_t)(a + lo) >> 3) | ((uint64_t)(hi - lo) << EXDB_JGROUP_SHIFT));
            for (uint32_t k = lo; k < hi; k++)
                cells[w + 1 + k - lo] = cells[i + 1 + k];
            w += 1 + hi - lo;
        }
        i += 1 + c;
    }
    j->n = open + w;
    j->grp_end = 0; /* what diff_obj records starts a group of its own */
}

int exdb_journal_commit(exdb_journal *j) {
    assert(j->recording && j->open == j->ev[j->nev]);
    j->recording = 0;
    if (j->verify)
        verify_event(j);
    compact_event(j);
    diff_obj(j);
    if (j->nev + 1 == j->ev_cap) {
        uint32_t ncap = j->ev_cap * 2;
        size_t *ne = realloc(j->ev, ncap * sizeof *ne);
        if (ne)
            j->ev = ne;
        uint64_t *nt = ne ? realloc(j->twice, ncap / 64 * sizeof *nt) : NULL;
        if (!nt)
            j->oom = 1;
        else {
            memset(nt + j->ev_cap / 64, 0, (ncap - j->ev_cap) / 64 * sizeof *nt);
            j->twice = nt;
            j->ev_cap = ncap;
        }
    }
    if (j->oom) {
        j->failed_open = 1; /* as exdb_journal_fail: the object was diffed above */
        return -1;
    }
    j->ev[++j->nev] = j->n;
    if (j->twice_open)
        j->twice[j->nev / 64] |= (uint64_t)1 << (j->nev % 64);
    j->pos = j->nev;
    assert(j->ev[j->nev] >= j->ev[j->nev - 1] && j->n <= j->cap);
    return 0;
}

void exdb_journal_fail(exdb_journal *j) {
    assert(j->recording);
    j->recording = 0;
    if (j->verify)
        verify_free(j); /* a failed event's stores are undone by the next goto */
    diff_obj(j);
    j->failed_open = 1;
}

static void swap_word(uint64_t *addr, uint64_t *val) {
    uint64_t cur;
    memcpy(&cur, addr, 8);
    memcpy(addr, val, 8);
    *val = cur;
}

/* The words are scattered over the arena: fetching records ahead overlaps
 * the cache misses. On the (virtual) bench machine the misses are slow
 * enough that 128 records ahead beats 16 by 2.4x (goto 0 from the end of
 * the 100k-node run: 55 -> 23 ms; 64 ahead: 26 ms, 256: 23 ms); groups
 * hold about two words. */
#define AHEAD 256

/* Undoes the event whose cells are [from, to): its groups backwards when
 * it may record a word twice (the seen cache forgot one, j->forgot says it
 * may have been recorded again: the first record
 * holds the value before the event, the second one from within it, and
 * redo needs each to get the value it had); else each word once, in one
 * pass forwards (goto 0 from the end of the 100k-node run: 60 -> 46 ms).
 * Returns its number of groups. */
static uint32_t undo_event(exdb_journal *j, size_t from, size_t to, int twice) {
    uint32_t ng = 0;
    if (!twice) {
        for (size_t i = from; i < to; ng++) {
            uint64_t *a = grp_addr(*cell(j, i));
            uint32_t c = grp_count(*cell(j, i));
            for (uint32_t w = 0; w < c; w++)
                swap_word(a + w, cell(j, i + 1 + w));
            i += 1 + c;
        }
        return ng;
    }
    for (size_t i = from; i < to; i += 1 + grp_count(*cell(j, i))) {
        assert(ng < j->gstack_cap);
        j->gstack[ng++] = i;
    }
    for (uint32_t g = ng; g > 0; g--) {
        size_t h = j->gstack[g - 1];
        uint64_t *a = grp_addr(*cell(j, h));
        for (uint32_t w = grp_count(*cell(j, h)); w > 0; w--)
            swap_word(a + w - 1, cell(j, h + w));
    }
    return ng;
}

/* Undoes events from..k+1, newest first, fetching the words of the events
 * about to be undone ahead (about AHEAD groups, across events: most events
 * hold a few groups). */
static void undo_events(exdb_journal *j, uint32_t from, uint32_t k) {
    uint32_t pf = from;    /* the events above pf were fetched */
    size_t fetched = 0;    /* groups fetched and not undone yet */
    size_t cp = j->ev[pf]; /* the records below cp are not fetched yet */
    for (uint32_t e = from; e > k; e--) {
        while (pf > k && (pf >= e || fetched < AHEAD)) {
            /* the records themselves, 4 KB ahead: a walk that goes back
             * event by event but forward in each one is no stream the
             * hardware sees */
            size_t want = j->ev[pf - 1] > 2048 ? j->ev[pf - 1] - 2048 : 0;
            while (cp > want) {
                cp = cp > 8 ? cp - 8 : 0;
                __builtin_prefetch(cell(j, cp), 0);
            }
            for (size_t i = j->ev[pf - 1]; i < j->ev[pf]; i += 1 + grp_count(*cell(j, i))) {
                __builtin_prefetch(grp_addr(*cell(j, i)), 1);
                fetched++;
            }
            pf--;
        }
        fetched -= undo_event(j, j->ev[e - 1], j->ev[e], (int)(j->twice[e / 64] >> (e % 64) & 1));
    }
}

static void redo_range(exdb_journal *j, size_t from, size_t to) {
    size_t ahead = from;
    uint32_t lead = 0; /* groups fetched ahead */
    for (size_t i = from; i < to;) {
        for (; ahead < to && lead < AHEAD; lead++) {
            __builtin_prefetch(grp_addr(*cell(j, ahead)), 1);
            ahead += 1 + grp_count(*cell(j, ahead));
        }
        uint64_t *a = grp_addr(*cell(j, i));
        uint32_t c = grp_count(*cell(j, i));
        for (uint32_t w = 0; w < c; w++)
            swap_word(a + w, cell(j, i + 1 + w));
        i += 1 + c;
        lead--;
    }
}

void exdb_journal_goto(exdb_journal *j, uint32_t k) {
    assert(!j->recording);
    /* the whole bookkeeping on jumps only: a step costs O(1), not O(events) */
    assert((k + 1 >= j->pos && k <= j->pos + 1) || exdb_journal_ok(j));
    if (j->failed_open) {
        undo_event(j, j->open, j->n, 1);
        j->n = j->open;
        j->failed_open = 0;
        j->oom = 0;
    }
    if (k > j->nev)
        k = j->nev;
    /* events in a row are contiguous records: one range forwards; backwards
     * event by event, each one's groups in reverse */
    if (j->pos > k)
        undo_events(j, j->pos, k);
    else if (j->pos < k)
        redo_range(j, j->ev[j->pos], j->ev[k]);
    j->pos = k;
    memcpy(j->shadow, j->obj, j->obj_words * 8);
}

size_t exdb_journal_bytes(const exdb_journal *j) {
    return j->cap * sizeof(uint64_t) + j->ev_cap * sizeof *j->ev + j->obj_words * 16 +
           j->gstack_cap * sizeof *j->gstack;
}

int exdb_journal_check(const exdb_journal *j, exdb_error *err) {
    if (j->n > j->cap)
        return exdb_errorf(err, "journal: %zu records, room for %zu", j->n, j->cap);
    if (j->pos > j->nev)
        return exdb_errorf(err, "journal: at event %u of %u", j->pos, j->nev);
    if (!j->ev)
        return j->nev ? exdb_errorf(err, "journal: events without ranges") : 0;
    if (j->ev[0] != 0)
        return exdb_errorf(err, "journal: the first event starts at record %zu", j->ev[0]);
    for (uint32_t e = 1; e <= j->nev; e++)
        if (j->ev[e] < j->ev[e - 1])
            return exdb_errorf(err, "journal: event %u ends before it starts", e);
    if (j->ev[j->nev] > j->n)
        return exdb_errorf(err, "journal: the last event ends past the records");
    if ((j->recording || j->failed_open) && j->open != j->ev[j->nev])
        return exdb_errorf(err, "journal: the open event does not follow the last one");
    if (!j->recording && !j->failed_open && j->n != j->ev[j->nev])
        return exdb_errorf(err, "journal: records past the last event with none open");
    return 0;
}
