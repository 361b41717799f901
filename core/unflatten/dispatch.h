/* dispatch.h - the DISPATCH phase: _dispatch_modules, InterpreterModuleDispatcher. */
#ifndef EXDB_CORE_UNFLATTEN_DISPATCH_H
#define EXDB_CORE_UNFLATTEN_DISPATCH_H

#include "core/unflatten/urun.h"

int exdb_dispatch_plan(exdb_urun *r, exdb_error *err);

int exdb_dispatch_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err);

/* What one DISPATCH work item is about: the preserved fqn called more than
 * once with its call modules in call order (ncalls 0 for the elide pass),
 * and, once the elide pass ran, the call_module nodes it elided ("fqn
 * %node", nelided; -1 before). */
typedef struct exdb_dispatch_info {
    const char *base;
    uint32_t ncalls;
    const int *idx;            /* each call's index (the N of base@N, 0 for base) */
    exdb_umodule *const *mods; /* each call's module */
    const char *const *elided;
    int32_t nelided;
} exdb_dispatch_info;

/* Fills *out for DISPATCH work item w. */
void exdb_dispatch_describe(const exdb_uwork *w, exdb_dispatch_info *out);

#endif
