/* prepass.h - the prepasses UnflattenedModule.__init__ runs before outlining
 * (_inplace_buffer_and_input_mutations, _fix_nn_module_stacks). */
#ifndef EXDB_CORE_UNFLATTEN_PREPASS_H
#define EXDB_CORE_UNFLATTEN_PREPASS_H

#include "core/unflatten/urun.h"

/* What torch 2.13 raises for a node without nn_module_stack (its loader
 * gives the node {}, which _fix_nn_module_stacks cannot unpack). */
#define EXDB_PREPASS_NO_STACK "ValueError: not enough values to unpack (expected at least 1, got 0)"

int exdb_prepass(exdb_urun *r, exdb_error *err);

#endif
