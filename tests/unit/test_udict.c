/* test_udict.c - exdb_udict_each_call (core/unflatten/udict.c): the values
 * whose keys are call names of an item, in dict order, the same from a
 * dict's call index as from the scan that _is_call_name makes upstream. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unflatten/udict.h"

/* _is_call_name(key, item): re.match(re.escape(item) + r"(@\d+)?$", key),
 * `$` also before a final newline, written out byte by byte. */
static int ref_call_name(const char *key, const char *item) {
    size_t n = strlen(item);
    if (strncmp(key, item, n) != 0)
        return 0;
    const char *s = key + n;
    if (s[0] == '@' && s[1] >= '0' && s[1] <= '9') {
        s++;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0' || (s[0] == '\n' && s[1] == '\0');
}

typedef struct {
    void *got[512];
    int n;
} seen;

static int collect(void *ctx, void *val) {
    seen *s = ctx;
    s->got[s->n++] = val;
    return 0;
}

static const char *const pool[] = {"a",    "b",    "a@1", "a@2",   "a@1@3", "b\n",   "a@1\n",
                                   "a@",   "@1",   "ab",  "a@10",  "a\n",   "a@x",   "",
                                   "a@1@", "a@01", "b@7", "b@7\n", "ab@1",  "a@2\n", "0",
                                   "0@1",  "1",    "10",  "1@1",   "a@@1",  "a\n\n", "@"};
#define NPOOL (sizeof pool / sizeof *pool)

/* Random sets, pops and sets again into one dict (indexed past 8 keys),
 * each item's answer checked against the scan in dict order. */
Test(udict, call_names_from_the_index_match_the_scan) {
    srand(7);
    for (int round = 0; round < 300; round++) {
        exdb_urun r;
        memset(&r, 0, sizeof r);
        exdb_arena_init(&r.arena);
        exdb_udict d;
        exdb_udict_init(&r, &d);
        int nops = 1 + rand() % 60;
        for (int op = 0; op < nops; op++) {
            const char *k = pool[rand() % NPOOL];
            if (rand() % 5 == 0)
                exdb_udict_pop(&d, k);
            else
                cr_assert_eq(exdb_udict_set(&r, &d, k, (void *)(uintptr_t)(op + 1)), 0);
        }
        for (size_t it = 0; it < NPOOL; it++) {
            const char *item = pool[it];
            seen s = {.n = 0}, want = {.n = 0};
            cr_assert_eq(exdb_udict_each_call(&d, item, strlen(item), collect, &s), 0);
            for (uint32_t i = 0; i < d.n; i++)
                if (d.vals[i] && ref_call_name(d.keys[i], item))
                    want.got[want.n++] = d.vals[i];
            cr_assert_eq(s.n, want.n, "round %d item \"%s\": %d values, want %d", round, item, s.n,
                         want.n);
            for (int i = 0; i < s.n; i++)
                cr_assert_eq(s.got[i], want.got[i], "round %d item \"%s\" value %d", round, item,
                             i);
        }
        exdb_arena_destroy(&r.arena);
    }
}

/* The sanitizer build's fault injection (core/base/fault.h, compiled into
 * build/san/libexdb.a, which build/san/unit links). */
void exdb_fault_arm(unsigned long n, int flags);
unsigned long exdb_fault_seen(void);
unsigned long exdb_fault_failed(void);

/* The arena calls that setting keys[0..nkeys) into a fresh dict makes, with
 * the nth failing (0: none); -1 in *rc when a set said so. */
static unsigned long fill(const char *const *keys, size_t nkeys, unsigned long n, int *rc,
                          unsigned long *failed) {
    exdb_fault_arm(n ? n : ULONG_MAX, 2 /* EXDB_FAULT_ARENA_CALLS */);
    exdb_urun r;
    memset(&r, 0, sizeof r);
    exdb_arena_init(&r.arena);
    exdb_udict d;
    exdb_udict_init(&r, &d);
    *rc = 0;
    for (size_t i = 0; i < nkeys && *rc == 0; i++)
        *rc = exdb_udict_set(&r, &d, keys[i], (void *)(uintptr_t)(i + 1));
    unsigned long calls_made = exdb_fault_seen();
    *failed = exdb_fault_failed();
    exdb_fault_arm(0, 0);
    exdb_arena_destroy(&r.arena);
    return calls_made;
}

/* Memory running out while a dict builds its call index: every arena call
 * made to fail in turn, the set that meets it says -1, and nothing leaks
 * or crashes (the sanitizer build); the index of call names takes arena
 * calls of its own. */
Test(udict, call_index_out_of_memory) {
    static const char *const plain[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"};
    static const char *const calls[] = {"0", "1", "2",   "3", "4",    "5",
                                        "6", "7", "0@1", "8", "0@2\n"};
    int rc;
    unsigned long failed;
    unsigned long base = fill(plain, 11, 0, &rc, &failed);
    unsigned long total = fill(calls, 11, 0, &rc, &failed);
    cr_assert_eq(rc, 0);
    cr_assert_gt(total, base, "the call index allocates: %lu arena calls, %lu without", total,
                 base);
    for (unsigned long n = 1; n <= total; n++) {
        fill(calls, 11, n, &rc, &failed);
        cr_assert_eq(failed, 1, "n %lu", n);
        cr_assert_eq(rc, -1, "n %lu: the set that met the failure says so", n);
    }
}
