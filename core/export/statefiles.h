/* statefiles.h - state names from an archive's weights/constants configs,
 * for lint's "is it in the state dict" checks and unflatten's STATE phase.
 * The configs are the ones read when the program was loaded (snapshot.h):
 * the archive is not opened again. */
#ifndef EXDB_CORE_EXPORT_STATEFILES_H
#define EXDB_CORE_EXPORT_STATEFILES_H

#include "core/base/arena.h"
#include "core/base/error.h"
#include "core/format/json.h"
#include "core/export/siglint.h"
#include "core/export/program.h"
#include "core/export/snapshot.h"

/* A payload config member larger than this is refused. */
#define EXDB_CONFIG_MAX ((size_t)256 << 20)

typedef enum { EXDB_CONFIG_WEIGHTS, EXDB_CONFIG_CONSTANTS } exdb_config_kind;

/* Parses payload config m (a weights or constants config: {"config":
 * {FQN: {...}, ...}}) and calls fn with its "config" object and the
 * member's label for messages ("FILE: MEMBER"). The DOM is gone when this
 * returns. 0 (fn's 0), 1 (no such member) or -1 (a member that could not be
 * read or is bad, with err set; or fn's -1). */
typedef int (*exdb_config_fn)(void *ctx, const exdb_json *cfg, const char *label, exdb_error *err);
int exdb_config_visit(const exdb_snap_member *m, exdb_config_fn fn, void *ctx, exdb_error *err);

/* Config `which` of p as loaded: NULL unless p came from a pt2 archive. */
const exdb_snap_member *exdb_program_config(const exdb_program *p, exdb_config_kind which);

/* Fills st from a weights and a constants config (either may be NULL or
 * absent: those checks are then skipped, the have_* flags staying 0).
 * Names are allocated from a. */
int exdb_state_from_configs(const exdb_snap_member *weights, const exdb_snap_member *constants,
                            exdb_arena *a, exdb_lint_state *st, exdb_error *err);

/* The same from p's archive as loaded; bare JSON and legacy zips have no
 * configs. */
int exdb_state_from_program(const exdb_program *p, exdb_arena *a, exdb_lint_state *st,
                            exdb_error *err);

#endif
