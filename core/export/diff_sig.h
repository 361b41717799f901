/* diff_sig.h - the part of a program diff outside the nodes: the graph
 * signature, the module_call_graph and the program's fields (diff.h). */
#ifndef EXDB_CORE_EXPORT_DIFF_SIG_H
#define EXDB_CORE_EXPORT_DIFF_SIG_H

#include "core/export/diff.h"

/* Fills d->items (and nsig, ncalls) once the nodes are matched: value names
 * are compared through the match, so a rename is no difference. -1 when
 * memory runs out. */
int exdb_diff_sig_items(exdb_program_diff *d);

#endif
