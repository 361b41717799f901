/* lintchecks.h - the catalog of lint's check ids: every finding's `check`
 * (fx.*, sig.*, unflatten.*) is a row of this one table, with the
 * severities it is reported at, the upstream code it mirrors and one line
 * saying what it finds. `lint --list` prints it; exdb_lint_add asserts
 * (sanitizer build) that a finding's id is here, so a new check is
 * declared once, beside the others. */
#ifndef EXDB_CORE_FX_LINTCHECKS_H
#define EXDB_CORE_FX_LINTCHECKS_H

#include <stddef.h>

typedef struct exdb_lint_check {
    const char *id;         /* "fx.use-before-def" */
    const char *severities; /* "error", "warning", "note", or "note, error" */
    const char *upstream;   /* the PyTorch code it mirrors */
    const char *summary;    /* what it finds, one line */
} exdb_lint_check;

/* The catalog, in family order (fx, sig, unflatten); *n its length. */
const exdb_lint_check *exdb_lintchecks_all(size_t *n);
/* The row of id, or NULL. */
const exdb_lint_check *exdb_lintchecks_find(const char *id);

#endif
