/* names.h - torch.fx.graph._Namespace: node names as FX makes them.
 * exdb_graph_create_name (graph.h) applies these to a graph's tables. */
#ifndef EXDB_CORE_FX_NAMES_H
#define EXDB_CORE_FX_NAMES_H

#include "core/base/arena.h"
#include "core/base/strmap.h"

/* _Namespace.create_name: sanitises candidate (illegal characters to '_', a
 * leading digit gets '_' in front, Python keywords and builtins avoided) and
 * makes it unique with _N suffixes exactly as FX does (names.c cites the
 * rules). names: every name ever used (-> node or NULL), base_count:
 * _Namespace._base_count (base -> (uintptr_t)n); the new name goes into
 * names (value NULL) for good, even after its node is erased, and is
 * copied into a. NULL when out of memory. */
const char *exdb_names_create(exdb_arena *a, exdb_strmap *names, exdb_strmap *base_count,
                              const char *candidate);
/* exdb_names_create that also gives the new name's exdb_strmap_hash and
 * its slot in names (valid until names is next written). keep (or NULL) is
 * a string that outlives names (a node's target, a copied node's name): a
 * new name with its text is keep itself, not a copy (a module graph's
 * nodes mostly keep their flat nodes' names). */
const char *exdb_names_create_slot(exdb_arena *a, exdb_strmap *names, exdb_strmap *base_count,
                                   const char *candidate, const char *keep, uint32_t *hash,
                                   void ***name_slot);
/* Whether create_name refuses name as it is (a Python keyword, builtin or
 * FX custom builtin: _illegal_names, "None" excepted as names.c says). */
int exdb_names_is_reserved(const char *name);

#endif
