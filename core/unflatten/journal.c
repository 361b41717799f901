/* journal.c - see journal.h. */
#include "core/base/mem.h"
#include "core/unflatten/journal.h"

#include <assert.h>
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
    if (!j->shadow || !j->ev) {
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
    free(j->shadow);
    memset(j, 0, sizeof *j);
}

#define JCHUNK ((size_t)1 << EXDB_JCHUNK_BITS)

static exdb_jword *word(const exdb_journal *j, size_t i) {
    return &j->chunks[i >> EXDB_JCHUNK_BITS][i & (JCHUNK - 1)];
}

/* Room for k more records: whole chunks from a private arena, so records
 * never move and growing costs no copy. */
static int reserve(exdb_journal *j, size_t k) {
    while (j->n + k > j->cap) {
        size_t c = j->cap >> EXDB_JCHUNK_BITS;
        if (c == j->nchunks_cap) {
            exdb_jword **nc = exdb_grow(j->chunks, &j->nchunks_cap, sizeof *nc, 64);
            if (!nc)
                return -1;
            j->chunks = nc;
        }
        j->chunks[c] = exdb_arena_alloc(&j->store, JCHUNK * sizeof(exdb_jword));
        if (!j->chunks[c])
            return -1;
        j->cap += JCHUNK;
    }
    return 0;
}

/* Is p state: in the compared object (recorded by the comparison) or in the
 * run's arena? The block that matched last is tried first. */
static int is_arena(exdb_journal *j, uintptr_t p) {
    if (p >= j->hit_lo && p < j->hit_hi)
        return 1;
    const void *lo, *hi;
    if (!exdb_arena_block_of(j->arena, (const void *)p, &lo, &hi))
        return 0;
    j->hit_lo = (uintptr_t)lo;
    j->hit_hi = (uintptr_t)hi;
    return 1;
}

void exdb_journal_save(exdb_journal *j, const void *p, size_t n) {
    if (!j->recording || !n)
        return;
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)7, hi = ((uintptr_t)p + n + 7) & ~(uintptr_t)7;
    if (lo >= j->fresh_lo && hi <= j->fresh_hi)
        return; /* allocated by this event */
    if (!is_arena(j, lo))
        return;
    size_t k = (hi - lo) / 8;
    if (j->n + k > j->cap && reserve(j, k) < 0) {
        j->oom = 1;
        return;
    }
    for (uintptr_t a = lo; a < hi; a += 8) {
        uint32_t h = (uint32_t)((a >> 3) * 2654435761u) & (EXDB_JOURNAL_SEEN - 1);
        if (j->seen[h] == a && j->seen_epoch[h] == j->epoch)
            continue; /* recorded already: the first record holds the old value */
        j->seen[h] = a;
        j->seen_epoch[h] = j->epoch;
        exdb_jword *w = word(j, j->n++);
        w->addr = (uint64_t *)a;
        memcpy(&w->val, (const void *)a, 8);
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
    size_t nrec = j->n - j->open;
    uintptr_t *rec = malloc((nrec ? nrec : 1) * sizeof *rec);
    if (!rec) {
        j->oom = 1;
        return;
    }
    for (size_t i = 0; i < nrec; i++)
        rec[i] = (uintptr_t)word(j, j->open + i)->addr;
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
    if (++j->epoch == 0) { /* wrapped: forget every remembered word */
        memset(j->seen_epoch, 0, sizeof j->seen_epoch);
        j->epoch = 1;
    }
    const void *top, *end;
    exdb_arena_top(j->arena, &top, &end);
    j->fresh_lo = (uintptr_t)top;
    j->fresh_hi = (uintptr_t)end;
    if (j->verify)
        exdb_arena_each_used(j->arena, verify_block, j);
}

/* Records the words of the compared object that changed since the shadow. */
static void diff_obj(exdb_journal *j) {
    for (size_t i = 0; i < j->obj_words; i++) {
        if (j->obj[i] == j->shadow[i])
            continue;
        if (reserve(j, 1) < 0) {
            j->oom = 1;
            return;
        }
        exdb_jword *w = word(j, j->n++);
        w->addr = &j->obj[i];
        w->val = j->shadow[i];
        j->shadow[i] = j->obj[i];
    }
}

int exdb_journal_commit(exdb_journal *j) {
    assert(j->recording && j->open == j->ev[j->nev]);
    j->recording = 0;
    if (j->verify)
        verify_event(j);
    diff_obj(j);
    if (j->nev + 1 == j->ev_cap) {
        uint32_t ncap = j->ev_cap * 2;
        size_t *ne = realloc(j->ev, ncap * sizeof *ne);
        if (!ne)
            j->oom = 1;
        else {
            j->ev = ne;
            j->ev_cap = ncap;
        }
    }
    if (j->oom) {
        j->failed_open = 1; /* as exdb_journal_fail: the object was diffed above */
        return -1;
    }
    j->ev[++j->nev] = j->n;
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

static void swap_word(exdb_jword *w) {
    uint64_t cur;
    memcpy(&cur, w->addr, 8);
    memcpy(w->addr, &w->val, 8);
    w->val = cur;
}

/* The words are scattered over the arena: fetching records ahead overlaps
 * the cache misses. On the (virtual) bench machine the misses are slow
 * enough that 128 records ahead beats 16 by 2.4x (goto 0 from the end of
 * the 100k-node run: 55 -> 23 ms; 64 ahead: 26 ms, 256: 23 ms). */
#define AHEAD 128

static void undo_range(exdb_journal *j, size_t from, size_t to) {
    for (size_t i = to; i > from; i--) {
        if (i - 1 >= from + AHEAD)
            __builtin_prefetch(word(j, i - 1 - AHEAD)->addr, 1);
        swap_word(word(j, i - 1));
    }
}

static void redo_range(exdb_journal *j, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) {
        if (i + AHEAD < to)
            __builtin_prefetch(word(j, i + AHEAD)->addr, 1);
        swap_word(word(j, i));
    }
}

void exdb_journal_goto(exdb_journal *j, uint32_t k) {
    assert(!j->recording);
    /* the whole bookkeeping on jumps only: a step costs O(1), not O(events) */
    assert((k + 1 >= j->pos && k <= j->pos + 1) || exdb_journal_ok(j));
    if (j->failed_open) {
        undo_range(j, j->open, j->n);
        j->n = j->open;
        j->failed_open = 0;
        j->oom = 0;
    }
    if (k > j->nev)
        k = j->nev;
    /* events in a row are contiguous records: one range each way */
    if (j->pos > k)
        undo_range(j, j->ev[k], j->ev[j->pos]);
    else if (j->pos < k)
        redo_range(j, j->ev[j->pos], j->ev[k]);
    j->pos = k;
    memcpy(j->shadow, j->obj, j->obj_words * 8);
}

size_t exdb_journal_bytes(const exdb_journal *j) {
    return j->cap * sizeof(exdb_jword) + j->ev_cap * sizeof *j->ev + j->obj_words * 16;
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
