/* modgraphs.h - the graphs of an unflattened module tree, and torch.fx's
 * Graph.lint() and Graph.eliminate_dead_code() run on them the way FX runs
 * them when a graph has an owning module.
 *
 * After torch.export.unflatten every InterpreterModule (and the
 * UnflattenedModule root) owns a torch.fx.Graph whose owning_module is that
 * module; higher-order ops' subgraphs are torch.fx.GraphModule children
 * (_copy_graph_attrs). With an owning module, Graph.lint() adds its second
 * pass (get_attr/call_module targets must resolve on the module, call_module
 * ones to submodules) and eliminate_dead_code() recurses into the
 * GraphModule children its get_attr nodes name. */
#ifndef EXDB_CORE_UNFLATTEN_MODGRAPHS_H
#define EXDB_CORE_UNFLATTEN_MODGRAPHS_H

#include <stdint.h>

#include "core/fx/dce.h"
#include "core/base/error.h"
#include "core/fx/lint.h"
#include "core/unflatten/unflatten.h"

/* One graph of the module tree. */
typedef struct exdb_modgraph {
    const char *module;    /* fqn of the module it belongs to ("" = root; the calls of an
                              InterpreterModuleDispatcher: "n", "n@1", ...) */
    const char *subgraph;  /* NULL for the module's own graph; a higher-order op's
                              subgraph: its attribute name under module */
    exdb_umodule *owner;   /* owning_module: where get_attr/call_module targets resolve */
    const exdb_graph *src; /* subgraphs: the program subgraph it was copied from, whose
                              own nested subgraphs are the GraphModule's children */
    exdb_graph *graph;
    int32_t parent;      /* subgraphs: index of the entry whose graph uses it, else -1 */
    const char *refused; /* set by exdb_modgraphs_dce: the lint message that stopped it */
} exdb_modgraph;

typedef struct exdb_modgraphs {
    exdb_arena arena; /* the fqn strings */
    exdb_modgraph *items;
    uint32_t n, cap;
    const exdb_graph **seen; /* the items' graphs, hashed (each graph once) */
    uint32_t seen_cap;
} exdb_modgraphs;

void exdb_modgraphs_init(exdb_modgraphs *gs);
void exdb_modgraphs_free(exdb_modgraphs *gs);

/* Collects the graphs of module FQN (its graph, or each call's graph for a
 * dispatcher, then its higher-order op subgraphs), or with fqn NULL of every
 * module in named_modules order (each graph once, even when a deduplicated
 * module sits at several paths). FQN may name a subgraph module itself
 * ("m1.true_graph_0"). -1 with PyTorch-worded err when there is no such
 * module, or it is a plain torch.nn.Module without a graph. */
int exdb_modgraphs_collect(exdb_modgraphs *gs, const exdb_unflatten *u, const char *fqn,
                           exdb_error *err);

/* Graph.lint() of one entry with its owning module: findings name the
 * module and the subgraph. Returns the number of errors added. */
uint32_t exdb_modgraph_lint(exdb_lint_report *r, const exdb_unflatten *u, const exdb_modgraph *g);

/* Graph.lint() of a module's own graph g during a run, with module m as
 * owning_module (through the GraphModule finalize() made, when m has one):
 * the root's final lint in UnflattenedModule.__init__ (rootlint.c). */
uint32_t exdb_modgraphs_lint(exdb_lint_report *r, exdb_umodule *m, const exdb_graph *g,
                             const char *module_fqn);

/* eliminate_dead_code on every entry, in order, as FX with an owning module
 * when each graph is asked in turn: a graph is linted first (pass 2
 * included) and one that does not lint is left as it is, with the message
 * Graph.lint raises in its `refused` (its subgraphs are skipped too); a
 * subgraph is visited only while its parent graph still has a get_attr
 * naming it (FX recurses into named children only). call_module is pure
 * (InterpreterModule has no _is_impure), so a dead submodule call goes.
 * logs[i] (initialised by the caller) records entry i's removals. Returns
 * the number of nodes removed (would be, for a dry run), -1 on out of
 * memory, after putting back what the graphs done before had removed (a
 * log that could not be undone stays applied). */
int exdb_modgraphs_dce(exdb_modgraphs *gs, const exdb_unflatten *u, const exdb_dce_opts *o,
                       exdb_dce_log *logs, exdb_error *err);

#endif
