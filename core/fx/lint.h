/* lint.h - checks of a graph and a program, reported as findings.
 *
 * Three families, each usable alone:
 *   1. exdb_lint_graph: torch.fx.Graph.lint() on any exdb_graph (the flat
 *      graph, a subgraph, or later an unflattened module's graph), with
 *      upstream's messages. The get_attr/call_module target checks need the
 *      owning module, given as an exdb_lint_owner callback.
 *   2. exdb_lint_signature (core/export/siglint.h): what torch/_export/verifier.py's
 *      _verify_exported_program_signature checks (inputs and input specs,
 *      outputs and output specs, mutation targets, state names), plus the
 *      user input/output counts of the module_call_graph root signature.
 *   3. exdb_lint_unflatten (core/unflatten/preflight.h): what torch.export.unflatten would trip on,
 * found by replaying its walk over nn_module_stack (missing stacks, stacks it truncates, modules
 * entered more than once, preserved signatures it cannot match, state that would not be sunk into
 * its owner). Every finding is one line: severity, node, module, what is wrong and what to do; all
 * three add them to one exdb_lint_report, defined here. Nothing is printed here;
 * exdb_lint_format/_format_json render. */
#ifndef EXDB_CORE_FX_LINT_H
#define EXDB_CORE_FX_LINT_H

#include <stdint.h>

#include "core/base/arena.h"
#include "core/fx/graph.h"
#include "core/base/strbuf.h"

typedef enum { EXDB_SEV_ERROR, EXDB_SEV_WARNING, EXDB_SEV_NOTE } exdb_severity;

typedef struct exdb_finding {
    exdb_severity sev;
    const char *check;  /* stable id, e.g. "fx.use-before-def", "sig.input-name" */
    const char *node;   /* the node concerned, or NULL */
    const char *module; /* module FQN ("" = root), or NULL when not about a module */
    const char *graph;  /* the higher-order op subgraph the node is in (its attribute
                           path, e.g. "true_graph_0"), NULL for the graph itself */
    const char *what;   /* what is wrong (upstream's message where there is one) */
    const char *fix;    /* what to do about it */
} exdb_finding;

typedef struct exdb_lint_report {
    exdb_arena arena; /* owns every string of every finding */
    exdb_finding *items;
    uint32_t n, cap;
    uint32_t count[3]; /* per severity */
    int oom;           /* a finding could not be recorded */
} exdb_lint_report;

void exdb_lint_report_init(exdb_lint_report *r);
void exdb_lint_report_free(exdb_lint_report *r);
/* Records one finding (what NULL: out of memory, noted in r->oom); node and
 * module are copied into the report so it outlives the program it
 * describes. The other families add their findings with it. */
void exdb_lint_add(exdb_lint_report *r, exdb_severity sev, const char *check, const char *node,
                   const char *module, const char *what, const char *fix);
/* printf into the report's arena (NULL when memory runs out). */
const char *exdb_lint_printf(exdb_lint_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What an attribute path of the owning module is (for get_attr/call_module). */
typedef enum { EXDB_ATTR_MISSING, EXDB_ATTR_MODULE, EXDB_ATTR_OTHER } exdb_attr_kind;

/* The module owning a graph: kind(ctx, "a.b") says what owner.a.b is. */
typedef struct exdb_lint_owner {
    exdb_attr_kind (*kind)(void *ctx, const char *qualname);
    void *ctx;
} exdb_lint_owner;

/* Graph.lint(). owner NULL = no owning module (FX's pass 2 is skipped, as
 * in FX). module_fqn names the module in findings (NULL for none). Returns
 * the number of error findings added. */
uint32_t exdb_lint_graph(exdb_lint_report *r, const exdb_graph *g, const exdb_lint_owner *owner,
                         const char *module_fqn);

/* Graph.lint() of a higher-order op's subgraph (or any graph) whose findings
 * name it: subgraph is its attribute path ("true_graph_0", "body_graph_0.
 * true_graph_0" for one nested in another), NULL for none. */
uint32_t exdb_lint_graph_in(exdb_lint_report *r, const exdb_graph *g, const exdb_lint_owner *owner,
                            const char *module_fqn, const char *subgraph);

const char *exdb_severity_name(exdb_severity s); /* "error", "warning", "note" */
/* A module in a finding: its fqn, "<root>" for "". */
const char *exdb_lint_module_label(const char *fqn);

/* One line per finding:
 *   error: node d (module <root>): Argument 'c' of Node 'd' was used ... -- fix: ...
 * [fx.use-before-def] then a summary line "N errors, N warnings, N notes."
 * A finding in a subgraph says so: "node x (module m1, subgraph true_graph_0)". */
void exdb_lint_format(exdb_buf *b, const exdb_lint_report *r);

/* One JSON array, one object per finding, in report order:
 *   [{"severity": "error", "check": "...", "node": "d" | null,
 *     "module": "" | null, "graph": "true_graph_0" | null,
 *     "message": "...", "fix": "..."}, ...]
 * ("[]" when clean), followed by a newline. */
void exdb_lint_format_json(exdb_buf *b, const exdb_lint_report *r);

#endif
