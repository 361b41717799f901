/* dce.h - dead code elimination as torch.fx.Graph.eliminate_dead_code, with
 * an undo log.
 *
 * One reverse pass over the graph removes every node that has no users and
 * is not impure (so a dead chain goes in one pass, and nothing more: FX does
 * not iterate to a fixpoint). Impurity follows the newest Node.is_impure /
 * torch._library.utils.is_impure, with operators recognised by NAME since
 * exdb has no operator schemas (see exdb_node_is_impure). */
#ifndef EXDB_CORE_FX_DCE_H
#define EXDB_CORE_FX_DCE_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/fx/graph.h"

/* Why a node is kept, or NULL when it is pure. impure_random = 1 is FX's
 * default. Reasons: "placeholder", "output", "side-effectful function",
 * "mutates its inputs (in-place overload)", "mutates its inputs (out=
 * overload)", "mutates its inputs", "random op", "effectful higher-order op",
 * "impure submodule".
 *
 * Where name-based recognition differs from PyTorch's schema-based rule:
 *   - "mutable schema" is guessed from the name: an op name ending in "_"
 *     (add_, copy_, index_put_, _foreach_add_; not dunders like __and__),
 *     the in-place dunders __iand__/__ior__/__ixor__/__ilshift__/__irshift__,
 *     overloads named out / *_out / out_* / values / dim_max / dim_min (the
 *     out= variants), and a short list of ops with a mutable argument but a
 *     functional-looking name (_native_batch_norm_legit.default/.no_stats,
 *     _batch_norm_with_update, rrelu_with_noise, _fused_moving_avg_obs_fq_helper,
 *     record_stream). A custom op with a Tensor(a!) argument and an ordinary
 *     name is missed (PyTorch keeps it; exdb would remove it if dead).
 *   - every aten/prims op whose name starts with _assert is kept; PyTorch
 *     keeps only _assert_async.msg, _assert_scalar and _assert_tensor_metadata
 *     (so a dead aten._assert_async.default is removed by PyTorch, kept here).
 *   - random ops (_nondeterministic_seeded in PyTorch) are a name list:
 *     rand, rand_like, randn, randn_like, randint, randint_like, randperm,
 *     bernoulli, normal, poisson, multinomial, native_dropout, _fused_dropout,
 *     _standard_gamma, _sample_dirichlet, binomial, rrelu (and torch.rand...).
 *   - ops registered effectful at run time (torch.library._register_effectful_op,
 *     fx.has_side_effect) are unknown to exdb, except aten._print and the
 *     _c10d_functional / c10d_functional collectives, which are kept.
 *   - higher-order ops are pure except with_effects and auto_functionalized(_v2)
 *     of a side-effectful op, as in PyTorch.
 *   - call_module is pure (no owning module to ask for _is_impure) unless
 *     module_impure says otherwise. */
const char *exdb_node_impure_reason(const exdb_node *n, int impure_random);

/* call_module purity for module graphs (FX asks owning_module._is_impure). */
typedef int (*exdb_module_impure_fn)(void *ctx, const char *target);

/* What a dce run removed, in removal order, with what undo needs. */
typedef struct exdb_dce_entry {
    exdb_node *node;
    exdb_node *prev;       /* the live node before it when it was erased (NULL: head) */
    exdb_arg args, kwargs; /* as before erase_node (which sets node inputs to None) */
    /* for each distinct input (in foreach_input order), its position in that
     * input's users array: log->in[first_input .. first_input + ninputs) */
    uint32_t first_input, ninputs;
} exdb_dce_entry;

/* One input of a removed node and where the node sat among its users. */
typedef struct exdb_dce_input {
    exdb_node *node;
    uint32_t user_pos;
} exdb_dce_input;

typedef struct exdb_dce_log {
    exdb_graph *graph;
    exdb_dce_entry *items;
    uint32_t n, cap;
    exdb_dce_input *in; /* the entries' inputs, one pool (no malloc per removal) */
    uint32_t nin, in_cap;
    uint32_t graph_count, graph_next_id; /* the graph as dce left it */
    int applied;                         /* 0 for a dry run */
} exdb_dce_log;

void exdb_dce_log_init(exdb_dce_log *log);
void exdb_dce_log_free(exdb_dce_log *log);

typedef struct exdb_dce_opts {
    int dry_run;
    int impure_random;                   /* FX's default: 1 */
    exdb_module_impure_fn module_impure; /* NULL: call_module is pure */
    void *module_ctx;
} exdb_dce_opts;

/* eliminate_dead_code. Like FX it lints first and refuses a graph that does
 * not lint (-1, the first lint message in err). On success log lists the
 * removed nodes (for a dry run, those that would be removed; the graph is
 * untouched) and the return value is how many. The log is reset first. */
int exdb_dce_run(exdb_graph *g, const exdb_dce_opts *opts, exdb_dce_log *log, exdb_error *err);

/* Puts back every node the logged run removed, at its place, with its
 * position among each input's users. Refuses (-1) when the graph changed
 * since (nodes added or removed). The log is emptied. */
int exdb_dce_undo(exdb_dce_log *log, exdb_error *err);

#endif
