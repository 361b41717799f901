/* rootlint.h - the DONE event: the root graph's Graph.lint() at the end of __init__. */
#ifndef EXDB_CORE_UNFLATTEN_ROOTLINT_H
#define EXDB_CORE_UNFLATTEN_ROOTLINT_H

#include "core/unflatten/urun.h"

/* The root graph's Graph.lint() at the end of __init__ */
int exdb_rootlint(exdb_urun *r, exdb_error *err);

#endif
