/* lintchecks.c - the lint check catalog (see lintchecks.h), shaped like
 * the phase table of core/unflatten/phases.c: one row per check. */
#include "core/fx/lintchecks.h"

#include <string.h>

#define GRAPH_LINT "torch.fx.Graph.lint"
#define VERIFIER   "torch/_export/verifier.py _verify_exported_program_signature"
#define UNFLATTEN  "torch/export/unflatten.py"

static const exdb_lint_check checks[] = {
    /* core/fx/lint.c: Graph.lint() */
    {"fx.foreign-arg", "error", GRAPH_LINT, "an argument is a node of another graph"},
    {"fx.use-before-def", "error", GRAPH_LINT, "an argument is used before its node is defined"},
    {"fx.target-missing", "error", GRAPH_LINT,
     "a get_attr/call_module target names no attribute of the owning module"},
    {"fx.target-not-module", "error", GRAPH_LINT,
     "a call_module target (or a step of it) is not an nn.Module"},
    {"fx.unknown-opcode", "error", GRAPH_LINT, "a node's opcode is none of FX's six"},
    {"fx.foreign-node", "error", GRAPH_LINT, "a node does not belong to the graph it is in"},
    {"fx.side-table", "error", GRAPH_LINT, "a node's name is not in the graph's name table"},
    {"fx.duplicate-name", "error", GRAPH_LINT, "two nodes share a name"},
    /* core/export/siglint.c: the export verifier's signature checks */
    {"sig.input-count", "error", VERIFIER,
     "the graph's placeholders and the signature's input specs differ in number"},
    {"sig.input-name", "error", VERIFIER, "an input spec's name is not its placeholder's"},
    {"sig.no-target", "error", VERIFIER, "a parameter/buffer/constant input spec has no target"},
    {"sig.state", "error", VERIFIER,
     "state named by the signature is missing from (or wrongly in) the state dict or constants"},
    {"sig.mutation-target", "error", VERIFIER,
     "a mutation output points to a buffer, parameter or user input that does not exist"},
    {"sig.output-count", "error", VERIFIER,
     "the output node's values and the signature's output specs differ in number"},
    {"sig.output-name", "error", VERIFIER, "an output spec's name is not the value it describes"},
    {"sig.output-order", "error", VERIFIER,
     "output specs are not tokens, then mutations, then user outputs"},
    {"sig.root-inputs", "error", "torch.export module_call_graph root signature",
     "the root call's in_spec leaves differ from the user inputs"},
    {"sig.root-outputs", "error", "torch.export module_call_graph root signature",
     "the root call's out_spec leaves differ from the user outputs"},
    {"sig.forward-arg-names", "warning", "torch.export module_call_graph root signature",
     "forward_arg_names does not match the in_spec's arguments"},
    /* core/unflatten/preflight.c: what torch.export.unflatten would trip on */
    {"unflatten.failed", "error", UNFLATTEN, "unflatten itself fails on the program"},
    {"unflatten.repeated-call", "note", UNFLATTEN,
     "a module's second or later call starts here: outlined as name@N"},
    {"unflatten.reentry", "error", UNFLATTEN, "a module is entered again after it was left"},
    {"unflatten.no-stack", "error", UNFLATTEN, "a node has no nn_module_stack"},
    {"unflatten.not-a-stack", "warning", UNFLATTEN,
     "an nn_module_stack is not a chain of nested paths: unflatten truncates it"},
    {"unflatten.no-root", "error", UNFLATTEN, "an nn_module_stack does not start at the root"},
    {"unflatten.preserved-unused", "note", UNFLATTEN,
     "a module with a preserved call signature runs no node"},
    {"unflatten.preserved-input", "warning", UNFLATTEN,
     "an input of a preserved call is not computed when the call starts"},
    {"unflatten.preserved-output", "note, error", UNFLATTEN,
     "an output of a preserved call is not (or is computed outside) the call"},
    {"unflatten.aliasing-unknown", "note", UNFLATTEN,
     "unused state that may be tied to another name (bare JSON has no weights config)"},
    {"unflatten.state-outside-owner", "warning", UNFLATTEN,
     "state is used outside its owner module: passed in as an argument, not sunk"},
    {"unflatten.call-graph", "error", UNFLATTEN, "module_call_graph does not start with the root"},
};

const exdb_lint_check *exdb_lintchecks_all(size_t *n) {
    *n = sizeof checks / sizeof *checks;
    return checks;
}

const exdb_lint_check *exdb_lintchecks_find(const char *id) {
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
        if (strcmp(checks[i].id, id) == 0)
            return &checks[i];
    return NULL;
}
