/* diff_data.h - what diff_data.c defines for the other views. */
#ifndef EXDB_DIFF_DATA_H
#define EXDB_DIFF_DATA_H

#include <stdio.h>

#include "core/base/error.h"

struct exdb_program_diff;

/* The diff of d as the JSON <script id="diff"> of the module view page
 * (render diff -o FILE.html): B's added and changed nodes, A's removed
 * ones by module path (diff_data.c). */
int vz_write_diff_data(FILE *f, const struct exdb_program_diff *d, exdb_error *err);

#endif
