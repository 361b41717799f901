/* preflight.h - unflatten pre-flight: what torch.export.unflatten would trip
 * on, as lint findings, and `lint all`'s whole-program lint. */
#ifndef EXDB_CORE_UNFLATTEN_PREFLIGHT_H
#define EXDB_CORE_UNFLATTEN_PREFLIGHT_H

#include <stdint.h>

#include "core/export/siglint.h"

/* unflatten pre-flight on the flat graph. state (NULL: none) tells which
 * state names share one tensor. */
uint32_t exdb_lint_unflatten(exdb_lint_report *r, const exdb_program *p,
                             const exdb_lint_state *state);

/* `lint all` when unflatten itself fails, so there are no module graphs:
 * one error finding (check "unflatten.failed") carrying unflatten's message.
 * Returns 1. */
uint32_t exdb_lint_unflatten_failed(exdb_lint_report *r, const char *msg);

/* All three on the flat graph, and Graph.lint() on every higher-order op
 * subgraph. Returns the number of errors found. */
uint32_t exdb_lint_program(exdb_lint_report *r, const exdb_program *p,
                           const exdb_lint_state *state);

#endif
