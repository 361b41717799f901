/* modtree.h - the module objects unflatten builds and the Python attribute semantics
 * the upstream code relies on (modtree.c). */
#ifndef EXDB_CORE_UNFLATTEN_MODTREE_H
#define EXDB_CORE_UNFLATTEN_MODTREE_H

#include "core/unflatten/urun.h"

exdb_umodule *exdb_modtree_new(exdb_urun *r, exdb_umod_kind kind, const char *type);

/* The dict at *d (a module's children or attrs) to store into: a new one
 * in place of the run's shared empty no_entries. NULL when out of memory. */
exdb_udict *exdb_modtree_own_dict(exdb_urun *r, exdb_udict **d);

/* getattr(mod, name): a child module (*is_module = 1) or an attribute. */
void *exdb_modtree_getattr(exdb_umodule *m, const char *name, int *is_module);

/* _get_attr_via_attr_list(m, path.split(".")) of torch/fx/graph_module.py,
 * with torch's errors: a missing inner atom is "AssertionError: Attribute
 * 'x' not found in model", a missing last atom getattr's "AttributeError:
 * 'Class' object has no attribute 'y'" on the object that lacks it; err then
 * holds that message and " (why)". Returns the module or exdb_uattr at
 * path ("" is m itself) and says which in *is_module. */
void *exdb_modtree_get_attr_list(exdb_umodule *m, const char *path, int *is_module, const char *why,
                                 exdb_error *err);

/* _get_attr(root, "a.b.c"): the module at a dotted path, or NULL. */
exdb_umodule *exdb_modtree_get_path(exdb_umodule *m, const char *path);

/* _add_submodule(mod, target, module_to_add, create_module) */
int exdb_modtree_add_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                               const char *parent_fqn, const char *ty);

/* set_submodule(target, module) */
int exdb_modtree_set_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                               exdb_error *err);

/* _add_spec: registers spec as the first free _spec_N; returns the name. */
const char *exdb_modtree_add_spec(exdb_urun *r, exdb_umodule *m, const exdb_treespec *spec,
                                  const char *text);

int exdb_modtree_assign_state(exdb_urun *r, exdb_umodule *root, const char *target,
                              exdb_uattr_kind kind, int persistent, const void *identity,
                              exdb_error *err);

/* UnflattenedModule.__init__'s fqn_order and _reorder_submodules. Records
 * what it changed in r->reorder_moves and r->reorder_added. */
int exdb_modtree_reorder_submodules(exdb_urun *r, exdb_error *err);

/* One parent whose children _reorder_submodules re-registered in another
 * order: its path ("" the root) and the child names before and after. */
typedef struct exdb_reorder_move {
    const char *parent;
    const char **before, **after;
    uint32_t n;
} exdb_reorder_move;

/* named_modules(remove_duplicate=False) over a run's tree: fn gets every
 * module path in pre-order (root first, fqn ""; the fqn string lives until
 * fn returns). Upstream's walk never ends when a module is its own
 * descendant, and is exponential when shared modules nest, so this one is
 * bounded: a module already on the path is visited but not entered
 * (EXDB_MODTREE_WALK_CYCLE), and the walk stops after
 * exdb_modtree_max_paths(r) paths or 1 KiB per module (+8 MiB) of path
 * text (EXDB_MODTREE_WALK_CUT). 0 when every
 * path was visited, else those flags, or -1 when memory ran out. */
int exdb_modtree_named_modules(exdb_urun *r, exdb_umod_visit fn, void *ctx);

enum { EXDB_MODTREE_WALK_CYCLE = 1, EXDB_MODTREE_WALK_CUT = 2 };
/* Module paths per module object a walk may visit (+4096; aliases
 * multiply them). */
#define EXDB_MODTREE_PATHS_PER_MODULE 16
uint64_t exdb_modtree_max_paths(const exdb_urun *r);

/* The error of a walk of `phase` that returned rc != 0 (a flag or -1). */
int exdb_modtree_walk_error(const exdb_urun *r, int rc, const char *phase, exdb_error *err);

/* The Python class of a module object: "torch.nn.Module", "InterpreterModule",
 * "InterpreterModuleDispatcher", "UnflattenedModule" or "GraphModule". */
const char *exdb_modtree_kind_name(const exdb_umodule *m);
/* type(m).__name__ as Python's messages and named_modules show it: the kind
 * name, with a plain torch.nn.Module as "Module". */
const char *exdb_modtree_class_name(const exdb_umodule *m);
/* How many parameters, buffers and constants m holds. */
void exdb_modtree_count_state(const exdb_umodule *m, uint32_t *np, uint32_t *nb, uint32_t *nc);
/* The call sites whose call_module target resolves to m (after dedup's
 * retargeting): the calls=N `info modules` shows for an InterpreterModule. */
uint32_t exdb_modtree_call_count(const exdb_urun *r, const exdb_umodule *m);
/* exdb_modtree_call_count of every module at once, by module id (one pass
 * over the call sites; malloc'd), or NULL when out of memory. */
uint32_t *exdb_modtree_call_counts(const exdb_urun *r);

#endif
