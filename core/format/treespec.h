/* treespec.h - pytree TreeSpecs as torch.utils._pytree's treespec_dumps
 * writes them (JSON protocol 1), parsed into a tree, and printed as Python's
 * str(TreeSpec). */
#ifndef EXDB_CORE_FORMAT_TREESPEC_H
#define EXDB_CORE_FORMAT_TREESPEC_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/error.h"

/* A pytree TreeSpec (JSON protocol 1). type NULL = a leaf. */
typedef struct exdb_treespec {
    const char *type;    /* "builtins.tuple", "builtins.dict", a namedtuple name... */
    const char *context; /* the context as JSON text, NULL for a leaf */
    const char **keys;   /* dict-like types: the keys as Python repr ('a', 1) */
    uint32_t nkeys;
    struct exdb_treespec **children;
    uint32_t nchildren;
    uint32_t num_leaves;
} exdb_treespec;

/* Parses a TreeSpec JSON string "[1, {...}]". */
int exdb_parse_treespec(exdb_arena *a, const char *text, exdb_treespec **out, exdb_error *err);
/* Python's str(TreeSpec): "TreeSpec(tuple, None, [*, *])". */
char *exdb_treespec_str(exdb_arena *a, const exdb_treespec *s);

#endif
