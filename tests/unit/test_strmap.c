/* test_strmap.c - the string map's 16-byte slots (the hash's high bits
 * kept above the key's address, core/base/strmap.h) through growth past
 * 2^16 slots, where a home slot stops being bits of the tag alone; and
 * the node names a graph shares instead of copying (core/fx/names.h), and
 * a node's size: they cut an unflatten run's arena by a sixth
 * (docs/architecture.md). */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/strmap.h"
#include "core/fx/graph.h"

static exdb_arena A;

static void setup(void) {
    exdb_arena_init(&A);
}

static void teardown(void) {
    exdb_arena_destroy(&A);
}

TestSuite(strmap, .init = setup, .fini = teardown);

Test(strmap, slots_are_16_bytes) {
    cr_assert_eq(sizeof(exdb_strmap_slot), 16);
}

#define NKEYS 150000u

/* NKEYS keys "k<i>" in the arena, each mapped to i + 1. */
static const char **fill(exdb_strmap *m) {
    const char **keys = exdb_arena_calloc(&A, NKEYS, sizeof *keys);
    cr_assert_not_null(keys);
    for (uint32_t i = 0; i < NKEYS; i++) {
        keys[i] = exdb_arena_printf(&A, "k%u", i);
        int created = 0;
        void **v = exdb_strmap_put(m, keys[i], &created);
        cr_assert_not_null(v);
        cr_assert_eq(created, 1);
        *v = (void *)(uintptr_t)(i + 1);
    }
    return keys;
}

Test(strmap, grows_past_2_16_slots_and_finds_every_key) {
    exdb_strmap m;
    exdb_strmap_init(&m, &A);
    const char **keys = fill(&m);
    cr_assert_eq(m.count, NKEYS);
    cr_assert_gt(m.cap, 1u << 16);
    char buf[32];
    for (uint32_t i = 0; i < NKEYS; i++) {
        /* by the stored pointer and by an equal text elsewhere */
        cr_assert_eq(exdb_strmap_get(&m, keys[i]), (void *)(uintptr_t)(i + 1));
        snprintf(buf, sizeof buf, "k%u", i);
        cr_assert_eq(exdb_strmap_get(&m, buf), (void *)(uintptr_t)(i + 1), "%s", buf);
        uint32_t h = exdb_strmap_hash(buf);
        cr_assert_eq(exdb_strmap_find_hashed(&m, buf, h), exdb_strmap_find(&m, keys[i]));
    }
    for (uint32_t i = 0; i < 1000; i++) {
        snprintf(buf, sizeof buf, "absent%u", i);
        cr_assert_null(exdb_strmap_find(&m, buf));
    }
    int created = 1;
    void **again = exdb_strmap_put(&m, "k77", &created);
    cr_assert_eq(created, 0);
    cr_assert_eq(again, exdb_strmap_find(&m, keys[77]));
    cr_assert_eq(m.count, NKEYS);
    /* a walk over the slots sees every key once, under its value */
    uint32_t used = 0;
    for (uint32_t i = 0; i < m.cap; i++) {
        if (!m.slots[i].key)
            continue;
        used++;
        uintptr_t v = (uintptr_t)m.slots[i].val;
        cr_assert(v >= 1 && v <= NKEYS);
        cr_assert_eq(exdb_strmap_slot_key(&m.slots[i]), keys[v - 1]);
    }
    cr_assert_eq(used, NKEYS);
}

/* Keys of 64 bytes or more are hashed in four lanes (strmap.c): a key
 * that differs from another in one byte anywhere, the overlapping last
 * 32 bytes included, hashes apart from it, and every one is found. */
Test(strmap, long_keys_differing_in_one_byte_hash_apart) {
    enum { LENS = 4 };
    static const size_t lens[LENS] = {64, 95, 96, 517};
    for (int l = 0; l < LENS; l++) {
        size_t n = lens[l];
        char base[600];
        for (size_t i = 0; i < n; i++)
            base[i] = (char)('a' + i % 26);
        base[n] = '\0';
        uint32_t h0 = exdb_strmap_hash(base);
        exdb_strmap m;
        exdb_strmap_init(&m, &A);
        cr_assert_not_null(exdb_strmap_put(&m, base, NULL));
        for (size_t i = 0; i < n; i++) {
            char *k = exdb_arena_strdup(&A, base);
            cr_assert_not_null(k);
            k[i] = (char)(k[i] == 'Z' ? 'Y' : 'Z');
            cr_assert_neq(exdb_strmap_hash(k), h0, "length %zu, byte %zu", n, i);
            void **v = exdb_strmap_put(&m, k, NULL);
            cr_assert_not_null(v);
            *v = (void *)(uintptr_t)(i + 1);
        }
        for (size_t i = 0; i < n; i++) {
            char k[600];
            memcpy(k, base, n + 1);
            k[i] = (char)(k[i] == 'Z' ? 'Y' : 'Z');
            void **v = exdb_strmap_find(&m, k);
            cr_assert_not_null(v, "length %zu, byte %zu", n, i);
            cr_assert_eq((uintptr_t)*v, i + 1);
        }
    }
}

/* The hash of a key whose length the caller has is the key's hash. */
Test(strmap, hash_of_a_known_length_is_the_hash) {
    char k[300];
    for (size_t n = 0; n < sizeof k; n++) {
        k[n] = '\0';
        cr_assert_eq(exdb_strmap_hash_n(k, n), exdb_strmap_hash(k), "length %zu", n);
        k[n] = (char)('a' + n % 23);
    }
}

Test(strmap, reserved_table_takes_keys_without_growing) {
    exdb_strmap m;
    exdb_strmap_init(&m, &A);
    cr_assert_eq(exdb_strmap_reserve(&m, NKEYS), 0);
    uint32_t cap = m.cap;
    const char **keys = fill(&m);
    cr_assert_eq(m.cap, cap);
    for (uint32_t i = 0; i < NKEYS; i += 7)
        cr_assert_eq(exdb_strmap_get(&m, keys[i]), (void *)(uintptr_t)(i + 1));
}

Test(strmap, key_address_beyond_48_bits_is_refused) {
    exdb_strmap m;
    exdb_strmap_init(&m, &A);
    const char *far = (const char *)((uintptr_t)1 << 56); /* never read */
    cr_assert_null(exdb_strmap_put_hashed(&m, far, 12345, NULL));
    cr_assert_eq(m.count, 0);
}

/* ---- a module graph's nodes (exdb_graph_create_node under the journal
 * takes each from the arena alone, in 16-byte units) */

Test(strmap, node_takes_whole_16_byte_units) {
    cr_assert_eq(sizeof(exdb_node) % 16, 0);
    cr_assert_leq(sizeof(exdb_node), 144);
}

/* ---- names a graph shares (exdb_graph_create_node, exdb_graph_node_copy) */

Test(strmap, node_names_share_targets_and_copied_names) {
    exdb_graph *g = exdb_graph_new(&A);
    const char *target = "x_input";
    exdb_node *x =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, target, EXDB_T_STR, NULL, NULL, NULL);
    cr_assert_not_null(x);
    cr_assert_eq(x->name, target); /* the target itself, not a copy */
    exdb_node *x1 =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, target, EXDB_T_STR, NULL, NULL, NULL);
    cr_assert_str_eq(x1->name, "x_input_1");
    exdb_node *d =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, "a.b", EXDB_T_STR, NULL, NULL, NULL);
    cr_assert_str_eq(d->name, "a_b");

    exdb_graph *g2 = exdb_graph_new(&A);
    exdb_node *c = exdb_graph_node_copy(g2, x1, NULL, NULL);
    cr_assert_not_null(c);
    cr_assert_eq(c->name, x1->name); /* kept: shared */
    cr_assert_eq(exdb_graph_find(g2, "x_input_1"), c);
    exdb_node *c2 = exdb_graph_node_copy(g2, x1, NULL, NULL);
    cr_assert_str_eq(c2->name, "x_input_2");
    cr_assert_str_eq(x1->name, "x_input_1"); /* the source's name is untouched */
    cr_assert_eq(exdb_graph_find(g, "x_input_1"), x1);
}
