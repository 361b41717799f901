/* prepass.h - the prepasses UnflattenedModule.__init__ runs before outlining
 * (_inplace_buffer_and_input_mutations, _fix_nn_module_stacks). */
#ifndef EXDB_CORE_UNFLATTEN_PREPASS_H
#define EXDB_CORE_UNFLATTEN_PREPASS_H

#include "core/unflatten/urun.h"

int exdb_prepass(exdb_urun *r, exdb_error *err);

#endif
