/* invariants.h - checks of the structures core/ keeps consistent by hand,
 * for assert() in the sanitizer build (NDEBUG is off there, on in the
 * release build, which compiles the calls out):
 *
 *   assert(exdb_graph_ok(g));
 *
 * Each returns 1 when everything holds; otherwise 0 and, with err, a
 * message naming the first thing found broken. They only read memory (no
 * walk stamps, no journal records), so a check between unflatten events
 * leaves the run's bytes as they were. */
#ifndef EXDB_INVARIANTS_H
#define EXDB_INVARIANTS_H

#include "error.h"
#include "graph.h"
#include "journal.h"

/* The node list (prev/next links, head, tail, count, no erased or foreign
 * node in it), the name index (every live node found under its name), and
 * users/inputs symmetry (each user of n uses n; n is among the users of each
 * of its inputs, checked for inputs with at most 256 users so a hub does not
 * make the check quadratic). O(nodes + uses). */
int exdb_graph_check(const exdb_graph *g, exdb_error *err);
static inline int exdb_graph_ok(const exdb_graph *g) {
    return exdb_graph_check(g, NULL) == 0;
}

/* The journal's bookkeeping: events' record ranges in order and within
 * the records, the position within the events, nothing open unless
 * recording. O(events). */
int exdb_journal_check(const exdb_journal *j, exdb_error *err);
static inline int exdb_journal_ok(const exdb_journal *j) {
    return exdb_journal_check(j, NULL) == 0;
}

#endif
