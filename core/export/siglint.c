/* siglint.c - torch/_export/verifier.py's _verify_exported_program_signature
 * (its messages, with the dict dumps dropped) and the user input/output
 * counts of the module_call_graph root signature. See siglint.h. */
#include "core/export/siglint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/strmap.h"

const char *exdb_lint_subgraph_path(exdb_lint_report *r, const exdb_program *p, uint32_t i) {
    /* walk up through the subgraphs holding each owner node (bounded by
     * nsubgraphs, so a malformed cycle cannot loop) */
    const char *path = p->subgraphs[i].name;
    const exdb_graph *in = p->subgraphs[i].owner ? p->subgraphs[i].owner->graph : p->graph;
    for (uint32_t hops = 0; in != p->graph && hops < p->nsubgraphs; hops++) {
        uint32_t k = 0;
        while (k < p->nsubgraphs && p->subgraphs[k].graph != in)
            k++;
        if (k == p->nsubgraphs)
            break;
        path = exdb_lint_printf(r, "%s.%s", p->subgraphs[k].name, path);
        if (!path)
            return NULL;
        in = p->subgraphs[k].owner ? p->subgraphs[k].owner->graph : p->graph;
    }
    return path;
}

/* ---- 2. signature */

static int in_list(const char *s, const char *const *list, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

/* The output node's values: args[0] is a tuple/list, or a single value when
 * the graph returns a single tensor. */
static void output_values(const exdb_graph *g, const exdb_arg **vals, uint32_t *n) {
    const exdb_node *out = exdb_graph_output(g);
    *vals = NULL;
    *n = 0;
    if (!out || out->args.n < 1)
        return;
    const exdb_arg *a = &out->args.u.items[0];
    if (a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_LIST) {
        *vals = a->u.items;
        *n = a->n;
    } else {
        *vals = a;
        *n = 1;
    }
}

static int is_user_input(const exdb_input_spec *s) {
    return s->kind == EXDB_IN_USER_INPUT || s->kind == EXDB_IN_CONSTANT_INPUT;
}

static int is_user_output(const exdb_output_spec *s) {
    return s->kind == EXDB_OUT_USER_OUTPUT || s->kind == EXDB_OUT_LOSS_OUTPUT;
}

static int is_mutation(const exdb_output_spec *s) {
    return s->kind == EXDB_OUT_BUFFER_MUTATION || s->kind == EXDB_OUT_USER_INPUT_MUTATION ||
           s->kind == EXDB_OUT_PARAMETER_MUTATION;
}

/* The input specs by what an output spec's mutation target names: buffer
 * and parameter targets, and user input names. Built once per lint, so
 * checking every mutation output is linear (a scan of the inputs per output
 * took 54 M compares on the 100k-node synthetic program). */
typedef struct input_index {
    exdb_arena arena;
    exdb_strmap by_kind[3]; /* buffer, parameter, user input */
} input_index;

/* by_kind's map for input kind k (user and constant inputs share one). */
static int index_slot(exdb_input_kind k) {
    return k == EXDB_IN_BUFFER ? 0 : k == EXDB_IN_PARAMETER ? 1 : 2;
}

static void input_index_build(input_index *ix, const exdb_program *p, exdb_lint_report *r) {
    exdb_arena_init(&ix->arena);
    for (int i = 0; i < 3; i++)
        exdb_strmap_init(&ix->by_kind[i], &ix->arena);
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *in = &p->inputs[i];
        const char *key = is_user_input(in) ? in->name : in->target;
        if (!key ||
            !(is_user_input(in) || in->kind == EXDB_IN_BUFFER || in->kind == EXDB_IN_PARAMETER))
            continue;
        void **v = exdb_strmap_put(&ix->by_kind[index_slot(in->kind)], key, NULL);
        if (!v) {
            r->oom = 1; /* the findings below may then be wrong: the report says so */
            continue;
        }
        *v = (void *)in;
    }
}

/* Whether some input spec of kind k has target (or, for user inputs, name) s. */
static int has_input(const input_index *ix, exdb_input_kind k, const char *s) {
    return s && exdb_strmap_get(&ix->by_kind[index_slot(k)], s) != NULL;
}

static void lint_inputs(exdb_lint_report *r, const exdb_program *p, const exdb_lint_state *st) {
    uint32_t nph = 0;
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        nph += n->op == EXDB_OP_PLACEHOLDER;
    if (nph != p->ninputs)
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.input-count", NULL, NULL,
            exdb_lint_printf(
                r,
                "Number of graph inputs (%u) does not match number of inputs in the graph "
                "signature (%u)",
                nph, p->ninputs),
            exdb_lint_printf(
                r, "give every placeholder exactly one input spec, in placeholder order"));
    uint32_t i = 0;
    for (const exdb_node *n = p->graph->head; n && i < p->ninputs; n = n->next) {
        if (n->op != EXDB_OP_PLACEHOLDER)
            continue;
        const exdb_input_spec *s = &p->inputs[i++];
        if (s->name && strcmp(s->name, n->name) != 0)
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "sig.input-name", n->name, NULL,
                exdb_lint_printf(r, "Input spec name %s does not match node name %s", s->name,
                                 n->name),
                exdb_lint_printf(
                    r,
                    "input spec %u must describe placeholder %s (rename one, or reorder the "
                    "specs)",
                    i - 1, n->name));
        const char *kind = exdb_input_kind_name(s->kind);
        if (s->kind != EXDB_IN_USER_INPUT && s->kind != EXDB_IN_TOKEN &&
            s->kind != EXDB_IN_CONSTANT_INPUT && !s->target) {
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "sig.no-target", n->name, NULL,
                exdb_lint_printf(r, "InputSpec for %s has no target.", s->name ? s->name : n->name),
                exdb_lint_printf(r, "give the %s input spec its state name", kind));
            continue;
        }
        const char *t = s->target;
        if (s->kind == EXDB_IN_PARAMETER && st && st->have_state_dict &&
            !in_list(t, st->state_dict, st->nstate_dict))
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                exdb_lint_printf(r, "Parameter %s is not in the state dict.", t),
                exdb_lint_printf(r, "save the weights with the program, or fix parameter_name"));
        if (s->kind == EXDB_IN_BUFFER && st && st->have_state_dict) {
            int in = in_list(t, st->state_dict, st->nstate_dict);
            if (s->persistent != 0 && !in)
                exdb_lint_add(
                    r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                    exdb_lint_printf(r, "Buffer %s is not in the state dict.", t),
                    exdb_lint_printf(
                        r, "save the buffer with the weights, or mark it persistent: false"));
            if (s->persistent == 0 && in)
                exdb_lint_add(
                    r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                    exdb_lint_printf(
                        r, "Non-persistent buffer %s is in the state dict, it should not be.", t),
                    exdb_lint_printf(
                        r, "mark the buffer persistent: true, or move it to the constants"));
        }
        if ((s->kind == EXDB_IN_TENSOR_CONSTANT || s->kind == EXDB_IN_CUSTOM_OBJ) && st &&
            st->have_constants && !in_list(t, st->constants, st->nconstants))
            exdb_lint_add(r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                          s->kind == EXDB_IN_TENSOR_CONSTANT
                              ? exdb_lint_printf(
                                    r, "Constant tensor %s is not in the constants dictionary.", t)
                              : exdb_lint_printf(
                                    r, "Custom object %s is not in the constants dictionary.", t),
                          exdb_lint_printf(
                              r, "save the constant with the program, or fix the spec's target"));
    }
}

/* Output spec s of a mutation or gradient names an input of the right kind
 * (a buffer, a parameter, a user input). */
static void lint_mutation_target(exdb_lint_report *r, const input_index *ix,
                                 const exdb_output_spec *s) {
    const char *t = s->target ? s->target : "(none)";
    if (s->kind == EXDB_OUT_BUFFER_MUTATION && !has_input(ix, EXDB_IN_BUFFER, s->target))
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.mutation-target", s->name, NULL,
            exdb_lint_printf(r,
                             "Buffer output %s does not point to a buffer that exists. (buffer %s)",
                             s->name, t),
            exdb_lint_printf(r, "buffer_name must be the buffer_name of a buffer input spec"));
    if ((s->kind == EXDB_OUT_PARAMETER_MUTATION || s->kind == EXDB_OUT_GRADIENT_TO_PARAMETER) &&
        !has_input(ix, EXDB_IN_PARAMETER, s->target))
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.mutation-target", s->name, NULL,
            exdb_lint_printf(r,
                             "Parameter output %s does not point to a parameter that exists. "
                             "(parameter %s)",
                             s->name, t),
            exdb_lint_printf(
                r, "parameter_name must be the parameter_name of a parameter input spec"));
    if ((s->kind == EXDB_OUT_USER_INPUT_MUTATION || s->kind == EXDB_OUT_GRADIENT_TO_USER_INPUT) &&
        !has_input(ix, EXDB_IN_USER_INPUT, s->target))
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.mutation-target", s->name, NULL,
            exdb_lint_printf(r,
                             "User input output %s does not point to a user input that exists. "
                             "(user input %s)",
                             s->name, t),
            exdb_lint_printf(r, "user_input_name must name a user input placeholder"));
}

static void lint_outputs(exdb_lint_report *r, const exdb_program *p) {
    const exdb_arg *vals;
    uint32_t nv;
    output_values(p->graph, &vals, &nv);
    uint32_t nbuf = 0, nuser = 0, ntok = 0, nmut = 0;
    for (uint32_t i = 0; i < p->noutputs; i++) {
        nbuf += p->outputs[i].kind == EXDB_OUT_BUFFER_MUTATION;
        nuser += is_user_output(&p->outputs[i]);
        ntok += p->outputs[i].kind == EXDB_OUT_TOKEN;
        nmut += is_mutation(&p->outputs[i]);
    }
    if (nv != p->noutputs)
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.output-count", "output", NULL,
            exdb_lint_printf(
                r,
                "Number of output nodes %u is different Than the number of outputs specified by "
                "the graph signature: Number of mutated buffers: %u. Number of user outputs: %u.",
                nv, nbuf, nuser),
            exdb_lint_printf(r, "give every output value exactly one output spec, in order"));
    input_index ix;
    input_index_build(&ix, p, r);
    for (uint32_t i = 0; i < nv && i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        const char *vn = vals[i].kind == EXDB_ARG_NODE ? vals[i].u.node->name : NULL;
        if (s->name && (!vn || strcmp(vn, s->name) != 0))
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "sig.output-name", "output", NULL,
                exdb_lint_printf(r, "Output spec name %s does not match output node argument %s",
                                 s->name, vn ? vn : "(a constant)"),
                exdb_lint_printf(r, "output spec %u must describe output value %u", i, i));
        lint_mutation_target(r, &ix, s);
    }
    exdb_arena_destroy(&ix.arena);
    /* The verifier slices outputs as [tokens | mutations | user outputs]. */
    for (uint32_t i = 0; i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        const char *nm = s->name ? s->name : "(a constant)";
        if (i >= ntok && i < ntok + nmut && !is_mutation(s))
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "sig.output-order", nm, NULL,
                exdb_lint_printf(r, "Mutation node %s is neither a buffer nor a user input.", nm),
                exdb_lint_printf(
                    r, "order output specs as tokens, then mutations, then user outputs"));
        else if (i >= ntok + nmut && i < ntok + nmut + nuser && !is_user_output(s))
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "sig.output-order", nm, NULL,
                exdb_lint_printf(
                    r,
                    "User output %s is not in the correct order or is not found in the exported "
                    "program's user_output list",
                    nm),
                exdb_lint_printf(
                    r, "order output specs as tokens, then mutations, then user outputs"));
    }
}

/* The root entry of module_call_graph against the user inputs/outputs. */
static void lint_root_call(exdb_lint_report *r, const exdb_program *p) {
    const exdb_call_signature *sig = NULL;
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].fqn[0] == '\0' && p->calls[i].sig) {
            sig = p->calls[i].sig;
            break;
        }
    if (!sig)
        return;
    uint32_t nin = 0, nout = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        nin += is_user_input(&p->inputs[i]);
    for (uint32_t i = 0; i < p->noutputs; i++)
        nout += is_user_output(&p->outputs[i]);
    if (sig->in_spec && sig->in_spec->num_leaves != nin)
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.root-inputs", NULL, "",
            exdb_lint_printf(
                r,
                "the root call signature's in_spec has %u leaves but the graph signature has "
                "%u user inputs",
                sig->in_spec->num_leaves, nin),
            exdb_lint_printf(
                r, "ep.module() and unflatten flatten call arguments with this in_spec: make "
                   "its leaves the user inputs"));
    if (sig->out_spec && sig->out_spec->num_leaves != nout)
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "sig.root-outputs", NULL, "",
            exdb_lint_printf(
                r,
                "the root call signature's out_spec has %u leaves but the graph signature "
                "has %u user outputs",
                sig->out_spec->num_leaves, nout),
            exdb_lint_printf(
                r, "ep.module() rebuilds results with this out_spec: make its leaves the user "
                   "outputs"));
    const exdb_treespec *in = sig->in_spec;
    if (sig->forward_arg_names && in && in->nchildren == 2) {
        uint32_t nargs = in->children[0]->nchildren + in->children[1]->nchildren;
        if (sig->nforward_arg_names != nargs)
            exdb_lint_add(
                r, EXDB_SEV_WARNING, "sig.forward-arg-names", NULL, "",
                exdb_lint_printf(
                    r,
                    "forward_arg_names has %u names but the in_spec has %u positional and %u "
                    "keyword arguments",
                    sig->nforward_arg_names, in->children[0]->nchildren,
                    in->children[1]->nchildren),
                exdb_lint_printf(r, "one name per positional argument then per keyword argument"));
    }
}

uint32_t exdb_lint_signature(exdb_lint_report *r, const exdb_program *p,
                             const exdb_lint_state *state) {
    uint32_t errors0 = r->count[EXDB_SEV_ERROR];
    lint_inputs(r, p, state);
    lint_outputs(r, p);
    lint_root_call(r, p);
    return r->count[EXDB_SEV_ERROR] - errors0;
}
