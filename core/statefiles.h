/* statefiles.h - state names from an archive's weights/constants configs,
 * for lint's "is it in the state dict" checks. */
#ifndef EXDB_STATEFILES_H
#define EXDB_STATEFILES_H

#include "arena.h"
#include "error.h"
#include "lint.h"

/* Fills st from the pt2 archive at path (model name `model`); for bare JSON
 * and legacy zips, and for configs the archive lacks, the have_* flags stay
 * 0 and those checks are skipped. Names are allocated from a. */
int exdb_state_from_archive(const char *path, const char *model, exdb_arena *a, exdb_lint_state *st,
                            exdb_error *err);

#endif
