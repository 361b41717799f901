/* journal.h - undo and redo records that make an unflatten run reversible.
 *
 * A run keeps all its state in one arena (plus its exdb_urun struct). An
 * event either allocates new arena memory, which nothing reachable from the
 * state before the event points to, or stores into memory that existed
 * before it. Every store of the second kind is preceded by
 * EXDB_WILL_WRITE (arena.h), which records the 8-byte words it covers with
 * their old values (exdb_arena_will_store: only the words that change);
 * the exdb_urun struct itself is compared word by word with a shadow copy
 * at the end of each event instead of being hooked.
 * Stores into memory the event itself allocated need no record (nothing
 * older points to it: the rest of the block it began in, and every block
 * it made), and a word is recorded once per event.
 *
 * Undoing or redoing a word swaps the recorded value with the one in
 * memory, so one value per word serves both directions: undoing an event
 * (its words in reverse) leaves each record holding the value the event
 * produced, which redoing (in order) puts back.
 *
 * Going back from event k to j applies the old values of events k..j+1 in
 * reverse; the arena is not rewound (the memory those events allocated stays
 * where it is, unreachable). Going forward again over recorded events
 * applies the redo values in order: what the events allocated is still in
 * place, so the state is exactly the one the run had (tests compare the
 * bytes). Time is proportional to the words recorded between the two
 * events, not to the size of the program. */
#ifndef EXDB_CORE_UNFLATTEN_JOURNAL_H
#define EXDB_CORE_UNFLATTEN_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"

/* The records are 8-byte cells in groups: a header cell, the address of
 * the first word >> 3 in its low 51 bits and the group's word count
 * (1..EXDB_JGROUP_MAX) above, then that many cells holding the words'
 * other values, for consecutive words from that address. A struct's
 * fields stored in one event (a hash slot's key, value and hash) take one
 * header between them: 24 bytes instead of 48 when each word had its own
 * address. At commit the event's records of words that hold their old
 * value again are dropped (journal.c: compact_event). */
#define EXDB_JGROUP_SHIFT 51
#define EXDB_JGROUP_MAX   ((1u << (64 - EXDB_JGROUP_SHIFT)) - 1)

#define EXDB_JOURNAL_SEEN 1024 /* words remembered as recorded (power of 2) */
#define EXDB_JCHUNK_BITS  17   /* cells per chunk: 1 << bits (1 MiB) */

/* A copy of bytes in use at an event's start (exdb_journal_verify). */
struct exdb_jsnap {
    const unsigned char *base;
    size_t n;
    unsigned char *copy;
};

typedef struct exdb_journal {
    uint64_t **chunks; /* every record's cells, oldest first, in chunks */
    size_t n, cap;     /* cells; cap = chunks allocated << bits */
    uint32_t nchunks_cap;
    exdb_arena store; /* the chunks (prefaulted, never moved) */
    size_t *ev;       /* cells of event e (1-based): [ev[e-1], ev[e]) */
    uint32_t nev, ev_cap;
    uint64_t *twice;     /* bit e: event e may record a word twice (undone backwards) */
    uint32_t pos;        /* the memory holds the state after pos events */
    size_t open;         /* first cell of the event being recorded */
    uint64_t *grp_cell;  /* header cell of the open event's last group (grp_end != 0) */
    uintptr_t grp_end;   /* the address after that group's last word (0: none) */
    uint32_t ngrp;       /* groups of the open event */
    size_t *gstack;      /* group headers of one event, for undoing it backwards */
    uint32_t gstack_cap; /* >= the groups of every event recorded */
    uint8_t recording;   /* between begin and commit/fail */
    uint8_t failed_open; /* the last event failed: its words are kept until goto */
    uint8_t oom;         /* a record could not be stored */
    uint8_t evicted;     /* the open event's seen cache forgot a word */
    uint8_t twice_open;  /* a word it forgot may have been recorded again */
    uint64_t *obj;       /* the object compared at each event's end */
    uint64_t *shadow;
    size_t obj_words;
    exdb_arena *arena;        /* only stores into its blocks are recorded */
    uintptr_t hit_lo, hit_hi; /* the block that matched last */
    uintptr_t *blocks;        /* the arena's blocks' [lo, hi) pairs, by address */
    uint32_t nblocks, blocks_cap;
    size_t blocks_reserved;       /* the arena's reserved bytes when blocks was made */
    uintptr_t fresh_lo, fresh_hi; /* allocated by the open event (in its first block) */
    uint8_t hit_fresh;            /* the hit block is one the open event made */
    uintptr_t *old;               /* the arena's blocks (their starts, sorted) when the
                                     open event began: any other block is its own */
    uint32_t nold, old_cap;
    size_t old_reserved;               /* the arena's reserved bytes when old was made (0: none) */
    uintptr_t seen[EXDB_JOURNAL_SEEN]; /* words recorded by the open event (a cache) */
    uint32_t seen_epoch[EXDB_JOURNAL_SEEN];
    uint64_t forgot[EXDB_JOURNAL_SEEN / 64]; /* the words it forgot (a Bloom filter, 1 hash) */
    uint32_t epoch;
    uint8_t verify;            /* check every event's stores were recorded */
    size_t unrecorded;         /* words changed but not recorded, over all events */
    const void *unrecorded_at; /* the first of them */
    struct exdb_jsnap *vsnap;  /* the open event's copies */
    uint32_t nvsnap, vsnap_cap;
} exdb_journal;

/* Records stores into arena a (whose journal this becomes); obj (8-byte
 * aligned, size a multiple of 8, outside the arena) is compared with a
 * shadow copy at each event's end. -1 when out of memory. Stores into
 * anything else (stack temporaries, malloc'd scratch) are not state and
 * are not recorded. */
int exdb_journal_init(exdb_journal *j, exdb_arena *a, void *obj, size_t size);
void exdb_journal_free(exdb_journal *j);
/* Installs (on) or removes the arena's write hook: while installed,
 * EXDB_WILL_WRITE on the arena records into j (exdb_journal_save). */
void exdb_journal_attach(exdb_journal *j, int on);
/* Records the bytes at p..p+n before a store into memory that may predate
 * the open event, so the store can be undone (the arena hook calls it). */
void exdb_journal_save(exdb_journal *j, const void *p, size_t n);
/* Checks, at each event's end, that every word of memory in use at its
 * start which changed was recorded (a store without EXDB_WILL_WRITE);
 * j->unrecorded counts those that were not, j->unrecorded_at is the
 * first. Costs a copy of the memory in use per event: for tests, and for
 * the sanitizer build under EXDB_JOURNAL_VERIFY=1. */
void exdb_journal_verify(exdb_journal *j, int on);
/* Opens event pos + 1 (only at the newest event: pos == nev). */
void exdb_journal_begin(exdb_journal *j);
/* Closes it: -1 when a record was lost to memory exhaustion. */
int exdb_journal_commit(exdb_journal *j);
/* The open event failed: its records are kept (the state stays as the
 * failure left it) and dropped by the next exdb_journal_goto. */
void exdb_journal_fail(exdb_journal *j);
/* Brings the memory to the state after k events (k <= nev). */
void exdb_journal_goto(exdb_journal *j, uint32_t k);
/* Bytes held by the records (for `make bench`). */
size_t exdb_journal_bytes(const exdb_journal *j);

/* For assert() (NDEBUG is off in the sanitizer build): the journal's
 * bookkeeping, events' record ranges in order and within the records, the
 * position within the events, nothing open unless recording. O(events). */
int exdb_journal_check(const exdb_journal *j, exdb_error *err);
static inline int exdb_journal_ok(const exdb_journal *j) {
    return exdb_journal_check(j, NULL) == 0;
}

#endif
