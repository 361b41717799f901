/* test_invariants.c - the checks behind the sanitizer build's assert()s
 * (core/fx/graph_check.h, core/unflatten/journal.h) see each kind of damage they are there to
 * catch: a broken list link, a wrong count, a node missing from the name index, a user that does
 * not use its input and an input that does not list its user; and the journal's event ranges out of
 * order. A correct graph and journal pass. */
#include <criterion/criterion.h>

#include <string.h>

#include "core/fx/graph.h"
#include "core/fx/graph_check.h"
#include "core/unflatten/journal.h"
#include "core/unflatten/journal.h"

static exdb_arena A;
static exdb_graph *G;
static exdb_node *X, *Y, *S;

#define ADD "torch.ops.aten.add.Tensor"

/* x, y placeholders; s = add(x, y) */
static void setup(void) {
    exdb_arena_init(&A);
    G = exdb_graph_new(&A);
    cr_assert_not_null(G);
    X = exdb_graph_create_node(G, EXDB_OP_PLACEHOLDER, "x", EXDB_T_STR, NULL, NULL, NULL);
    Y = exdb_graph_create_node(G, EXDB_OP_PLACEHOLDER, "y", EXDB_T_STR, NULL, NULL, NULL);
    exdb_arg t;
    cr_assert_eq(exdb_arg_seq(&A, EXDB_ARG_TUPLE, 2, &t), 0);
    t.u.items[0] = exdb_arg_node(X);
    t.u.items[1] = exdb_arg_node(Y);
    S = exdb_graph_create_node(G, EXDB_OP_CALL_FUNCTION, ADD, EXDB_T_OP, &t, NULL, "s");
    cr_assert(X && Y && S);
}

static void teardown(void) {
    exdb_arena_destroy(&A);
}

TestSuite(invariants, .init = setup, .fini = teardown);

static void expect_broken(const char *what) {
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_check(G, &err), -1, "not caught: %s", what);
    cr_assert(strstr(err.msg, what), "\"%s\" not in \"%s\"", what, err.msg);
    cr_assert(!exdb_graph_ok(G));
}

Test(invariants, a_correct_graph_passes) {
    exdb_error err = {0};
    cr_assert_eq(exdb_graph_check(G, &err), 0, "%s", err.msg);
    cr_assert(exdb_graph_ok(G));
}

Test(invariants, broken_prev_link) {
    S->prev = X;
    expect_broken("prev link broken");
}

Test(invariants, wrong_count) {
    G->count = 2;
    expect_broken("count 2");
}

Test(invariants, wrong_tail) {
    G->tail = Y;
    expect_broken("tail is not the last node");
}

Test(invariants, erased_node_in_the_list) {
    Y->erased = 1;
    expect_broken("erased node in the list");
}

Test(invariants, node_missing_from_the_name_index) {
    *exdb_strmap_find(&G->names, "y") = NULL;
    expect_broken("y not found under its name");
}

Test(invariants, input_without_its_user) {
    X->nusers = 0;
    expect_broken("node s uses x, which does not list it as a user");
}

Test(invariants, user_that_does_not_use) {
    S->args.u.items[1] = exdb_arg_node(X); /* s = add(x, x): y still lists s */
    expect_broken("node y lists s as a user, which does not use it");
}

Test(invariants, count_larger_than_the_list) {
    G->count = 4;
    expect_broken("3 nodes in the list, count says 4");
}

Test(invariants, head_without_tail) {
    G->tail = NULL;
    expect_broken("head and tail disagree on emptiness");
}

Test(invariants, erased_user) {
    S->erased = 1;
    S->prev->next = NULL; /* s out of the list, still x's user */
    G->tail = S->prev;
    G->count = 2;
    expect_broken("node x: user 0 is erased");
}

Test(invariants, journal_ranges) {
    exdb_journal j;
    exdb_arena ra;
    exdb_arena_init(&ra);
    uint64_t obj[2] = {1, 2};
    cr_assert_eq(exdb_journal_init(&j, &ra, obj, sizeof obj), 0);
    cr_assert(exdb_journal_ok(&j));
    exdb_journal_begin(&j);
    obj[0] = 3;
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert(exdb_journal_ok(&j));
    j.ev[1] = j.n + 1; /* an event ending past the records */
    exdb_error err = {0};
    cr_assert_eq(exdb_journal_check(&j, &err), -1);
    cr_assert(strstr(err.msg, "past the records"), "%s", err.msg);
    j.ev[1] = j.n;
    j.pos = 2;
    cr_assert(!exdb_journal_ok(&j));
    j.pos = 1;
    exdb_journal_free(&j);
    exdb_arena_destroy(&ra);
}

/* The journal's verification finds a store into older memory that has no
 * record (a missing EXDB_WILL_WRITE), and none when the store has one. */
Test(invariants, journal_unrecorded_store) {
    exdb_journal j;
    exdb_arena ra;
    exdb_arena_init(&ra);
    uint64_t obj[2] = {1, 2};
    uint64_t *old = exdb_arena_alloc(&ra, 4 * sizeof *old);
    cr_assert_not_null(old);
    cr_assert_eq(exdb_journal_init(&j, &ra, obj, sizeof obj), 0);
    exdb_journal_verify(&j, 1);
    exdb_journal_begin(&j);
    EXDB_WILL_WRITE(&ra, old[0]);
    old[0] = 7; /* recorded */
    uint64_t *fresh = exdb_arena_alloc(&ra, sizeof *fresh);
    *fresh = 9; /* the event's own memory: needs no record */
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert_eq(j.unrecorded, 0);
    exdb_journal_begin(&j);
    old[2] = 5; /* no EXDB_WILL_WRITE */
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert_eq(j.unrecorded, 1);
    cr_assert_eq(j.unrecorded_at, (const void *)&old[2]);
    exdb_journal_free(&j);
    exdb_arena_destroy(&ra);
}

/* An event's records of words that end it with the value they had before
 * it are dropped at commit (a group's unchanged ends, a group with no
 * change), and going back and forth still gives every event's bytes. */
Test(invariants, journal_drops_unchanged_words) {
    exdb_journal j;
    exdb_arena ra;
    exdb_arena_init(&ra);
    uint64_t obj[2] = {1, 2};
    uint64_t *old = exdb_arena_calloc(&ra, 8, sizeof *old);
    cr_assert_not_null(old);
    for (int i = 0; i < 8; i++)
        old[i] = (uint64_t)i + 10;
    cr_assert_eq(exdb_journal_init(&j, &ra, obj, sizeof obj), 0);
    exdb_journal_begin(&j);
    for (int i = 0; i < 5; i++)
        EXDB_WILL_WRITE(&ra, old[i]); /* one group of words 0..4 */
    old[0] = 10;                      /* unchanged */
    old[1] = 99;
    old[3] = 98;
    old[2] = 77;
    old[2] = 12; /* set and set back */
    EXDB_WILL_WRITE(&ra, old[7]);
    old[7] = 17; /* a group of its own, unchanged */
    cr_assert_eq(exdb_journal_commit(&j), 0);
    /* words 1..3 kept (2 sits between two that changed), 0, 4 and 7 not */
    cr_assert_eq(j.n, 1 + 3, "%zu cells", j.n);
    exdb_journal_begin(&j);
    EXDB_WILL_WRITE(&ra, old[5]);
    old[5] = 55;
    obj[1] = 3;
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert(exdb_journal_ok(&j));
    exdb_journal_goto(&j, 0);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(old[i], (uint64_t)i + 10, "word %d", i);
    cr_assert_eq(obj[1], 2);
    exdb_journal_goto(&j, 1);
    cr_assert_eq(old[1], 99);
    cr_assert_eq(old[3], 98);
    cr_assert_eq(old[2], 12);
    cr_assert_eq(old[5], 15);
    exdb_journal_goto(&j, 2);
    cr_assert_eq(old[5], 55);
    cr_assert_eq(obj[1], 3);
    exdb_journal_free(&j);
    exdb_arena_destroy(&ra);
}

/* Going back undoes an event's words in one pass forwards, unless the
 * event may record a word twice: the seen cache forgot it (another word
 * took its slot) and its second record holds a value from within the
 * event. Such an event still goes back to the value before it, and forth
 * to its end. */
Test(invariants, journal_word_recorded_twice) {
    exdb_journal j;
    exdb_arena ra;
    exdb_arena_init(&ra);
    uint64_t obj[2] = {1, 2};
    size_t n = 4 * EXDB_JOURNAL_SEEN;
    uint64_t *w = exdb_arena_calloc(&ra, n, sizeof *w);
    cr_assert_not_null(w);
    /* a word whose seen slot is word 0's */
    uint32_t h0 = (uint32_t)(((uintptr_t)&w[0] >> 3) * 2654435761u) & (EXDB_JOURNAL_SEEN - 1);
    size_t k = 1;
    while (k < n &&
           ((uint32_t)(((uintptr_t)&w[k] >> 3) * 2654435761u) & (EXDB_JOURNAL_SEEN - 1)) != h0)
        k++;
    cr_assert_lt(k, n);
    cr_assert_eq(exdb_journal_init(&j, &ra, obj, sizeof obj), 0);
    exdb_journal_begin(&j);
    EXDB_WILL_WRITE(&ra, w[0]);
    w[0] = 1;
    EXDB_WILL_WRITE(&ra, w[k]); /* forgets word 0 */
    w[k] = 5;
    EXDB_WILL_WRITE(&ra, w[0]); /* recorded again: 1 */
    w[0] = 2;
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert_eq(j.n, 6, "%zu cells: word 0 twice", j.n);
    cr_assert(j.twice[0] >> 1 & 1);
    /* a word forgotten but not recorded again: the event is compacted
     * (words 0 and k are unchanged) and undone forwards */
    exdb_journal_begin(&j);
    EXDB_WILL_WRITE(&ra, w[1]);
    w[1] = 3;
    EXDB_WILL_WRITE(&ra, w[0]);
    EXDB_WILL_WRITE(&ra, w[k]); /* forgets word 0 */
    cr_assert(j.evicted);
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert(!(j.twice[0] >> 2 & 1));
    cr_assert_eq(j.n, 6 + 2, "%zu cells: only word 1 kept", j.n);
    for (int round = 0; round < 2; round++) {
        exdb_journal_goto(&j, 0);
        cr_assert_eq(w[0], 0);
        cr_assert_eq(w[1], 0);
        cr_assert_eq(w[k], 0);
        exdb_journal_goto(&j, 2);
        cr_assert_eq(w[0], 2);
        cr_assert_eq(w[1], 3);
        cr_assert_eq(w[k], 5);
        exdb_journal_goto(&j, 1);
        cr_assert_eq(w[0], 2);
        cr_assert_eq(w[1], 0);
    }
    exdb_journal_free(&j);
    exdb_arena_destroy(&ra);
}

/* Events whose records run past the journal's first chunk (1 << 17
 * cells): each stores four words of a five-word record, so its commit
 * drops the unchanged fifth (five cells kept of six), except the event
 * whose cells cross into the second chunk, which keeps them as recorded;
 * every event's bytes come back going to 0, to the end and around that
 * event (emit's inline part hands the crossing to emit_slow). */
Test(invariants, journal_events_across_a_chunk) {
    exdb_journal j;
    exdb_arena ra;
    exdb_arena_init(&ra);
    uint64_t obj[2] = {1, 2};
    uint32_t nev = 30000; /* 150k cells: past the first chunk */
    uint64_t *w = exdb_arena_calloc(&ra, 4 * (size_t)nev + 1, sizeof *w);
    cr_assert_not_null(w);
    cr_assert_eq(exdb_journal_init(&j, &ra, obj, sizeof obj), 0);
    for (uint32_t e = 0; e < nev; e++) {
        exdb_journal_begin(&j);
        exdb_arena_will_write(&ra, &w[4 * (size_t)e], 5 * sizeof *w);
        for (int k = 0; k < 4; k++)
            w[4 * (size_t)e + k] = 1000 + (uint64_t)e * 4 + (uint64_t)k;
        cr_assert_eq(exdb_journal_commit(&j), 0);
    }
    cr_assert(exdb_journal_ok(&j));
    uint32_t across = 0;
    for (uint32_t e = 1; e <= nev; e++) {
        size_t from = j.ev[e - 1], to = j.ev[e];
        int crosses = from >> EXDB_JCHUNK_BITS != (to - 1) >> EXDB_JCHUNK_BITS;
        if (crosses)
            across = e;
        cr_assert_eq(to - from, crosses ? 6u : 5u, "event %u: %zu cells", e, to - from);
    }
    cr_assert_gt(across, 1);
    exdb_journal_goto(&j, 0);
    for (size_t i = 0; i < 4 * (size_t)nev + 1; i++)
        cr_assert_eq(w[i], 0, "word %zu", i);
    exdb_journal_goto(&j, nev);
    for (size_t i = 0; i < 4 * (size_t)nev; i++)
        cr_assert_eq(w[i], 1000 + i, "word %zu", i);
    exdb_journal_goto(&j, across - 1);
    size_t first = 4 * (size_t)(across - 1);
    cr_assert_eq(w[first - 1], 1000 + first - 1);
    cr_assert_eq(w[first], 0);
    exdb_journal_goto(&j, across);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(w[first + k], 1000 + first + k);
    cr_assert_eq(w[first + 4], 0);
    exdb_journal_free(&j);
    exdb_arena_destroy(&ra);
}
