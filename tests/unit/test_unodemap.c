/* test_unodemap.c - the flat-node -> node maps of an unflatten frame
 * (core/unflatten/unodemap.h): sized once for an estimate, they take that
 * many entries without growing (a grown map leaves its old arrays in the
 * run's arena, kept for undo), keep what they held, and still grow past
 * it. A put under the run's journal records its key and value as one
 * group. */
#include <criterion/criterion.h>

#include <stdint.h>

#include "core/unflatten/journal.h"
#include "core/unflatten/unodemap.h"

static exdb_urun R;
static exdb_node K[300], V[300];

static void setup(void) {
    exdb_arena_init(&R.arena);
    for (uint32_t i = 0; i < 300; i++)
        K[i].id = i * 7 + 3;
}

static void teardown(void) {
    exdb_arena_destroy(&R.arena);
}

TestSuite(unodemap, .init = setup, .fini = teardown);

Test(unodemap, reserved_map_takes_its_entries_without_growing) {
    exdb_unodemap m = {0};
    cr_assert_eq(exdb_unodemap_reserve(&R, &m, 100), 0);
    uint32_t *slots = m.slots;
    exdb_unodemap_entry *e = m.e;
    cr_assert(m.cap >= 100 && m.nslots >= 200);
    for (uint32_t i = 0; i < 100; i++)
        cr_assert_eq(exdb_unodemap_put(&R, &m, &K[i], &V[i]), 0);
    cr_assert(m.slots == slots && m.e == e, "the map grew");
    for (uint32_t i = 0; i < 100; i++) {
        cr_assert_eq(exdb_unodemap_get(&m, &K[i]), &V[i]);
        cr_assert_eq(m.e[i].key, &K[i]); /* insertion order */
    }
    cr_assert_null(exdb_unodemap_get(&m, &K[100]));
}

Test(unodemap, reserve_keeps_entries_and_the_map_grows_past_it) {
    exdb_unodemap m = {0};
    for (uint32_t i = 0; i < 5; i++)
        cr_assert_eq(exdb_unodemap_put(&R, &m, &K[i], &V[i]), 0);
    cr_assert_eq(exdb_unodemap_reserve(&R, &m, 40), 0);
    cr_assert_eq(m.n, 5);
    for (uint32_t i = 0; i < 5; i++)
        cr_assert_eq(exdb_unodemap_get(&m, &K[i]), &V[i]);
    for (uint32_t i = 5; i < 300; i++)
        cr_assert_eq(exdb_unodemap_put(&R, &m, &K[i], &V[i]), 0);
    cr_assert_eq(exdb_unodemap_put(&R, &m, &K[7], &V[0]), 0); /* in place */
    cr_assert_eq(m.n, 300);
    for (uint32_t i = 0; i < 300; i++) {
        cr_assert_eq(exdb_unodemap_get(&m, &K[i]), i == 7 ? &V[0] : &V[i]);
        cr_assert_eq(m.e[i].key, &K[i]);
    }
}

/* A new key in an event after the one that sized the map: the count, the
 * entry (key and value side by side: one group of two words) and the
 * slot, 2 + 3 + 2 cells of the journal (with keys and values in arrays of
 * their own, 8); undoing the event takes all of it back. */
Test(unodemap, put_records_key_and_value_as_one_group) {
    uint64_t obj[1] = {0};
    exdb_journal j;
    cr_assert_eq(exdb_journal_init(&j, &R.arena, obj, sizeof obj), 0);
    exdb_unodemap *m = exdb_arena_calloc(&R.arena, 1, sizeof *m);
    exdb_journal_begin(&j);
    cr_assert_eq(exdb_unodemap_reserve(&R, m, 16), 0);
    cr_assert_eq(exdb_unodemap_put(&R, m, &K[0], &V[0]), 0);
    cr_assert_eq(exdb_journal_commit(&j), 0);
    size_t before = j.n;
    exdb_journal_begin(&j);
    cr_assert_eq(exdb_unodemap_put(&R, m, &K[1], &V[1]), 0);
    cr_assert_eq(exdb_journal_commit(&j), 0);
    cr_assert_eq(j.n - before, 7, "the put recorded %zu cells", j.n - before);
    exdb_journal_goto(&j, 1);
    cr_assert_eq(m->n, 1);
    cr_assert_null(exdb_unodemap_get(m, &K[1]));
    exdb_journal_goto(&j, 2);
    cr_assert_eq(exdb_unodemap_get(m, &K[1]), &V[1]);
    exdb_journal_free(&j);
}
