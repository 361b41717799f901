/* outline.h - the module-frame outliner: _ModuleFrame.run_outer / run_from /
 * copy_node / remap_input, one COPY, ENTER or EXIT event per step. */
#ifndef EXDB_CORE_UNFLATTEN_OUTLINE_H
#define EXDB_CORE_UNFLATTEN_OUTLINE_H

#include "core/unflatten/urun.h"

/* _call_name(base, n) and _compute_accessor(parent_fqn, child_fqn) */
const char *exdb_outline_call_name(exdb_urun *r, const char *base, int n);

const char *exdb_outline_compute_accessor(exdb_urun *r, const char *parent_fqn,
                                          const char *child_fqn);

/* Appends a node argument at the front of n's args (insert_arg(0)) in
 * amortised O(1): avoids upstream's quadratic prepends. */
int exdb_outline_prepend_arg(exdb_urun *r, exdb_uframe *f, exdb_node *input);

/* One outliner event. 1 event, 0 outlining finished, -1 error. */
int exdb_outline_step(exdb_urun *r, exdb_uevent *ev, exdb_error *err);

/* _ModuleFrame.remap_input */
int exdb_outline_remap_input(exdb_urun *r, exdb_uframe *f, exdb_node *x, exdb_node **out,
                             exdb_error *err);

#endif
