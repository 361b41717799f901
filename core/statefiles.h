/* statefiles.h - state names from an archive's weights/constants configs,
 * for lint's "is it in the state dict" checks. */
#ifndef EXDB_STATEFILES_H
#define EXDB_STATEFILES_H

#include "arena.h"
#include "container.h"
#include "error.h"
#include "json.h"
#include "lint.h"

/* Reads the payload config member rel of archive c (a weights or constants
 * config: {"config": {FQN: {...}, ...}}) and calls fn with its "config"
 * object and the member's label for messages ("FILE: MEMBER"). The DOM is
 * gone when this returns. 0 (fn's 0), 1 (no such member) or -1 (a bad
 * member, with err set; or fn's -1). */
typedef int (*exdb_config_fn)(void *ctx, const exdb_json *cfg, const char *label, exdb_error *err);
int exdb_config_visit(exdb_container *c, const char *rel, exdb_config_fn fn, void *ctx,
                      exdb_error *err);

/* Fills st from the pt2 archive at path (model name `model`); for bare JSON
 * and legacy zips, and for configs the archive lacks, the have_* flags stay
 * 0 and those checks are skipped. Names are allocated from a. */
int exdb_state_from_archive(const char *path, const char *model, exdb_arena *a, exdb_lint_state *st,
                            exdb_error *err);

#endif
