/* run_data.h - what run_data.c defines for the other views. */
#ifndef EXDB_RUN_DATA_H
#define EXDB_RUN_DATA_H

#include <stdio.h>

#include "core/base/error.h"

struct exdb_unflatten;

/* Every event of u (up to its position) as the JSON <script id="run"> of
 * the module view page (render run -o FILE.html; run_data.c). */
int vz_write_run_data(FILE *f, const struct exdb_unflatten *u, exdb_error *err);

#endif
