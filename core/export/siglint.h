/* siglint.h - the export verifier's signature checks, as lint findings
 * (core/fx/lint.h's report). */
#ifndef EXDB_CORE_EXPORT_SIGLINT_H
#define EXDB_CORE_EXPORT_SIGLINT_H

#include <stdint.h>

#include "core/export/program.h"
#include "core/fx/lint.h"

/* The state the program's weights/constants files provide, when known:
 * parameters and persistent buffers (the "state dict"), and constants
 * (tensor constants, non-persistent buffers, custom objects). A NULL list
 * with have_* == 0 skips those membership checks. */
typedef struct exdb_lint_state {
    int have_state_dict, have_constants;
    const char *const *state_dict;
    uint32_t nstate_dict;
    const char *const *constants;
    uint32_t nconstants;
    /* for each name, its storage: the config entry's path_name; names with
     * the same storage are one tensor (tied weights), as _TensorID says */
    const char *const *state_dict_storage, *const *constants_storage;
} exdb_lint_state;

/* The verifier's signature checks and the root call signature counts. */
uint32_t exdb_lint_signature(exdb_lint_report *r, const exdb_program *p,
                             const exdb_lint_state *state);

/* The attribute path of program subgraph i: its name, prefixed by the path
 * of the subgraph its get_attr node sits in when nested. In r's arena. */
const char *exdb_lint_subgraph_path(exdb_lint_report *r, const exdb_program *p, uint32_t i);

#endif
