/* dedup.h - the DEDUP phase: _deduplicate_modules, calls compared and merged. */
#ifndef EXDB_CORE_UNFLATTEN_DEDUP_H
#define EXDB_CORE_UNFLATTEN_DEDUP_H

#include "core/base/strbuf.h"
#include "core/unflatten/urun.h"

int exdb_dedup_plan(exdb_urun *r, exdb_error *err);

int exdb_dedup_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err);

/* One line of _check_graph_equivalence's graph_dump: "i: op[target](args)"
 * (target only for call_function and get_attr, node arguments as %index,
 * kwargs as key=value), without the newline. idx maps node ids to their
 * index: n's entry is set after its line, so callers dump nodes in order
 * with one idx array (calloc'd, the graph's next_id entries). The one
 * definition dedup's merges and `diff module` use. */
void exdb_dedup_dump_node(exdb_buf *b, const exdb_node *n, uint32_t i, uint32_t *idx);

/* The first line (0-based) where two graph dumps differ, -1 when equal. */
int32_t exdb_dedup_first_difference(const char *x, const char *y);

/* Why a DEDUP event decided as it did. */
typedef struct exdb_dedup_why {
    const exdb_uentry *entry; /* the call the event compared */
    const exdb_uentry *other; /* merged: the call it was merged with; refused: the first call */
    uint32_t nearlier;        /* earlier calls it was compared with */
    int32_t line;             /* refused: the first dump line differing from other's, else -1 */
    const char *this_line, *other_line; /* those lines in the dumps (NULL past a graph's end), */
    int this_len, other_len;            /* ended by a newline: print with %.*s */
    const exdb_node *node;              /* this call's node at that line, or NULL */
} exdb_dedup_why;

/* Fills *why for DEDUP work item w that decided `decision` (0 refused, 1
 * same fqn, 2 other fqn). Allocates nothing. 0, or -1 (not a DEDUP item). */
int exdb_dedup_explain(const exdb_urun *r, const exdb_uwork *w, int decision, exdb_dedup_why *why);

#endif
