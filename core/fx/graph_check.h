/* graph_check.h - the graph's invariants, which core/ keeps by hand,
 * for assert() in the sanitizer build (NDEBUG is off there, on in the
 * release build, which compiles the calls out):
 *
 *   assert(exdb_graph_ok(g));
 *
 * Each returns 1 when everything holds; otherwise 0 and, with err, a
 * message naming the first thing found broken. They only read memory (no
 * walk stamps, no journal records), so a check between unflatten events
 * leaves the run's bytes as they were. */
#ifndef EXDB_CORE_FX_GRAPH_CHECK_H
#define EXDB_CORE_FX_GRAPH_CHECK_H

#include "core/base/error.h"
#include "core/fx/graph.h"

/* The node list (prev/next links, head, tail, count, no erased or foreign
 * node in it), the name index (every live node found under its name), and
 * users/inputs symmetry (each user of n uses n; n is among the users of each
 * of its inputs, checked for inputs with at most 256 users so a hub does not
 * make the check quadratic). O(nodes + uses). */
int exdb_graph_check(const exdb_graph *g, exdb_error *err);
static inline int exdb_graph_ok(const exdb_graph *g) {
    return exdb_graph_check(g, NULL) == 0;
}

#endif
