/* describe.c - see describe.h. */
#include "core/export/describe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format/container.h"
#include "core/fx/print.h"

/* ---- signature and summaries */

/* ExportGraphSignature.__str__: "\n# inputs\n" + the input specs joined by
 * "\n" + "\n\n# outputs\n" + the output specs + "\n". A spec line is
 * "NAME: KIND[ target='T'][ persistent=B]"; a constant without a value name
 * has an empty NAME, and constant_input specs are USER_INPUT (that is the
 * kind the deserializer gives them). */
void exdb_print_signature(exdb_buf *b, const exdb_program *p) {
    exdb_buf_puts(b, "\n# inputs\n");
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        if (i)
            exdb_buf_putc(b, '\n');
        exdb_buf_printf(b, "%s: %s", s->name ? s->name : "",
                        s->kind == EXDB_IN_CONSTANT_INPUT ? "USER_INPUT"
                                                          : exdb_input_kind_upper(s->kind));
        if (s->target)
            exdb_buf_printf(b, " target='%s'", s->target);
        if (s->persistent >= 0)
            exdb_buf_printf(b, " persistent=%s", s->persistent ? "True" : "False");
    }
    exdb_buf_puts(b, "\n\n# outputs\n");
    for (uint32_t i = 0; i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        if (i)
            exdb_buf_putc(b, '\n');
        exdb_buf_printf(b, "%s: %s", s->name ? s->name : "", exdb_output_kind_upper(s->kind));
        if (s->target)
            exdb_buf_printf(b, " target='%s'", s->target);
    }
    exdb_buf_putc(b, '\n');
}

static const char *container_name(int kind) {
    switch (kind) {
    case 1:
        return "pt2 archive (torch >= 2.8)";
    case 2:
        return "legacy export zip (serialized_exported_program.json)";
    default:
        return "bare program JSON";
    }
}

void exdb_print_program_info(exdb_buf *b, const exdb_program *p) {
    exdb_buf_printf(b, "file:              %s\n", p->path);
    exdb_buf_printf(b, "format:            %s\n", container_name(p->container_kind));
    if (p->container_kind)
        exdb_buf_printf(b, "program member:    %s (model \"%s\")\n", p->member, p->model);
    exdb_buf_printf(b, "schema version:    %d.%d\n", p->schema_major, p->schema_minor);
    exdb_buf_printf(b, "torch version:     %s\n",
                    p->torch_version ? p->torch_version : "not recorded (<= 2.4)");
    if (p->nverifiers) {
        exdb_buf_puts(b, "verifiers:         ");
        for (uint32_t i = 0; i < p->nverifiers; i++)
            exdb_buf_printf(b, "%s%s", i ? ", " : "", p->verifiers[i]);
        exdb_buf_putc(b, '\n');
    } else if (p->dialect) {
        exdb_buf_printf(b, "dialect:           %s\n", p->dialect);
    }
    exdb_node_counts nc; /* from the shape when opened shape first */
    exdb_program_node_counts(p, &nc);
    exdb_buf_printf(b, "serialized nodes:  %u\n", p->nserialized_nodes);
    exdb_buf_printf(b,
                    "graph nodes:       %u (%u placeholder, %u call_function of which %u getitem, "
                    "%u get_attr, %u output)\n",
                    nc.nodes, nc.ops[EXDB_OP_PLACEHOLDER], nc.ops[EXDB_OP_CALL_FUNCTION],
                    nc.getitems, nc.ops[EXDB_OP_GET_ATTR], nc.ops[EXDB_OP_OUTPUT]);
    uint32_t ik[7] = {0}, ok[8] = {0};
    for (uint32_t i = 0; i < p->ninputs; i++)
        ik[p->inputs[i].kind]++;
    for (uint32_t i = 0; i < p->noutputs; i++)
        ok[p->outputs[i].kind]++;
    exdb_buf_printf(b, "inputs:            %u (", p->ninputs);
    int first = 1;
    for (int k = 0; k < 7; k++)
        if (ik[k]) {
            exdb_buf_printf(b, "%s%u %s", first ? "" : ", ", ik[k],
                            exdb_input_kind_name((exdb_input_kind)k));
            first = 0;
        }
    exdb_buf_printf(b, ")\noutputs:           %u (", p->noutputs);
    first = 1;
    for (int k = 0; k < 8; k++)
        if (ok[k]) {
            exdb_buf_printf(b, "%s%u %s", first ? "" : ", ", ok[k],
                            exdb_output_kind_name((exdb_output_kind)k));
            first = 0;
        }
    uint32_t preserved = 0;
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].sig && p->calls[i].fqn[0])
            preserved++;
    exdb_buf_printf(b, ")\nmodule call graph: %u entr%s (%u with a preserved signature)\n",
                    p->ncalls, p->ncalls == 1 ? "y" : "ies", preserved);
    uint32_t nsub = exdb_program_subgraph_count(p);
    if (nsub)
        exdb_buf_printf(b, "subgraphs:         %u (higher-order op arguments)\n", nsub);
    if (p->nranges) {
        exdb_buf_puts(b, "range constraints: ");
        for (uint32_t i = 0; i < p->nranges; i++) {
            const exdb_range *r = &p->ranges[i];
            char lo[32], hi[32];
            exdb_range_bound(r, 0, lo, sizeof lo);
            exdb_range_bound(r, 1, hi, sizeof hi);
            exdb_buf_printf(b, "%s%s: VR[%s, %s]", i ? ", " : "", r->symbol, lo, hi);
        }
        exdb_buf_putc(b, '\n');
    }
}

void exdb_print_call_graph(exdb_buf *b, const exdb_program *p) {
    for (uint32_t i = 0; i < p->ncalls; i++) {
        const exdb_module_call *c = &p->calls[i];
        exdb_buf_printf(b, "%-4u %s", i, c->fqn[0] ? c->fqn : "(root)");
        if (c->sig) {
            const exdb_call_signature *s = c->sig;
            exdb_buf_puts(b, "\n       inputs:  [");
            for (uint32_t k = 0; k < s->ninputs; k++)
                exdb_buf_printf(b, "%s%s", k ? ", " : "", s->inputs[k] ? s->inputs[k] : "<const>");
            exdb_buf_puts(b, "]\n       outputs: [");
            for (uint32_t k = 0; k < s->noutputs; k++)
                exdb_buf_printf(b, "%s%s", k ? ", " : "",
                                s->outputs[k] ? s->outputs[k] : "<const>");
            exdb_buf_puts(b, "]");
            if (s->in_spec) {
                char *t = exdb_treespec_str((exdb_arena *)&p->arena, s->in_spec);
                if (!t)
                    b->oom = 1; /* the text is incomplete */
                exdb_buf_printf(b, "\n       in_spec:  %s  (%u lea%s)", t ? t : "?",
                                s->in_spec->num_leaves, s->in_spec->num_leaves == 1 ? "f" : "ves");
            }
            if (s->out_spec) {
                char *t = exdb_treespec_str((exdb_arena *)&p->arena, s->out_spec);
                if (!t)
                    b->oom = 1; /* the text is incomplete */
                exdb_buf_printf(b, "\n       out_spec: %s  (%u lea%s)", t ? t : "?",
                                s->out_spec->num_leaves,
                                s->out_spec->num_leaves == 1 ? "f" : "ves");
            }
            if (s->forward_arg_names) {
                exdb_buf_puts(b, "\n       forward_arg_names: [");
                for (uint32_t k = 0; k < s->nforward_arg_names; k++)
                    exdb_buf_printf(b, "%s'%s'", k ? ", " : "", s->forward_arg_names[k]);
                exdb_buf_puts(b, "]");
            }
        }
        exdb_buf_putc(b, '\n');
    }
}

/* print node's "signature:" lines: what the graph signature says a node of
 * the program's graph is. A placeholder has its input spec; a value the
 * graph returns has its output specs (a BUFFER_MUTATION says which buffer
 * the value is copied back into, the role that matters most and that the
 * node itself does not show; one value can be several outputs); the
 * output node lists every output's. */
static void print_signature_roles(exdb_buf *b, const exdb_program *p, const exdb_node *n) {
    for (uint32_t i = 0; n->op == EXDB_OP_PLACEHOLDER && i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        if (s->name && strcmp(s->name, n->name) == 0) {
            exdb_buf_printf(b, "  signature: %s", exdb_input_kind_upper(s->kind));
            if (s->target)
                exdb_buf_printf(b, " target='%s'", s->target);
            if (s->persistent >= 0)
                exdb_buf_printf(b, " persistent=%s", s->persistent ? "True" : "False");
            exdb_buf_putc(b, '\n');
        }
    }
    int all = n->op == EXDB_OP_OUTPUT, first = 1;
    for (uint32_t i = 0; n->op != EXDB_OP_PLACEHOLDER && i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        if (!all && !(s->name && strcmp(s->name, n->name) == 0))
            continue;
        exdb_buf_puts(b, first ? "  signature: " : "             ");
        first = 0;
        if (all)
            exdb_buf_printf(b, "%s: ", s->name ? s->name : "");
        exdb_buf_puts(b, exdb_output_kind_upper(s->kind));
        if (s->target)
            exdb_buf_printf(b, " target='%s'", s->target);
        exdb_buf_putc(b, '\n');
    }
}

const char *const *exdb_arg_names_of(const exdb_node *n) {
    const exdb_meta *m = n->meta;
    if (!m || !m->arg_names || !n->args.n || m->narg_names != n->args.n || !n->target ||
        !m->arg_names_target || strcmp(m->arg_names_target, n->target) != 0)
        return NULL;
    return m->arg_names;
}

void exdb_print_arg_names(exdb_buf *b, const exdb_node *n, const char *lead) {
    const exdb_meta *m = n->meta;
    if (!exdb_arg_names_of(n))
        return;
    exdb_buf_puts(b, lead);
    for (uint32_t i = 0; i < n->args.n; i++) {
        exdb_buf_printf(b, "%s%s=", i ? ", " : "", m->arg_names[i]);
        exdb_format_arg(b, &n->args.u.items[i]);
    }
}

void exdb_print_node_info(exdb_buf *b, const exdb_program *p, const exdb_node *n) {
    exdb_format_node(b, n);
    exdb_buf_printf(b, "\n  op:        %s\n", exdb_op_name((exdb_op)n->op));
    exdb_buf_printf(b, "  target:    %s\n", n->target);
    if (n->op != EXDB_OP_PLACEHOLDER && n->op != EXDB_OP_GET_ATTR) {
        exdb_buf_puts(b, "  args:      ");
        exdb_format_arg(b, &n->args);
        exdb_print_arg_names(b, n, "\n  named:     ");
        exdb_buf_puts(b, "\n  kwargs:    ");
        exdb_format_arg(b, &n->kwargs);
        exdb_buf_putc(b, '\n');
    }
    exdb_buf_printf(b, "  users:     %u", n->nusers);
    for (uint32_t i = 0; i < n->nusers; i++)
        exdb_buf_printf(b, "%s%s", i ? ", " : " (", n->users[i]->name);
    exdb_buf_puts(b, n->nusers ? ")\n" : "\n");
    const exdb_meta *m = n->meta;
    if (m && m->val) {
        exdb_buf_puts(b, "  value:     ");
        exdb_format_val(b, m->val);
        if (m->val->kind == EXDB_VAL_TENSOR) {
            const exdb_tensor_meta *t = m->val->u.t;
            exdb_buf_printf(b, "  %s", exdb_dtype_name(t->dtype));
            if (t->strides) {
                exdb_buf_puts(b, " stride=[");
                for (uint32_t i = 0; i < t->ndim; i++) {
                    if (i)
                        exdb_buf_puts(b, ", ");
                    exdb_format_sym(b, &t->strides[i]);
                }
                exdb_buf_putc(b, ']');
            }
            if (t->device_index >= 0)
                exdb_buf_printf(b, " device=%s:%d", t->device_type, t->device_index);
            else
                exdb_buf_printf(b, " device=%s", t->device_type);
            if (t->requires_grad)
                exdb_buf_puts(b, " requires_grad");
        }
        exdb_buf_putc(b, '\n');
    }
    if (p && n->graph == p->graph)
        print_signature_roles(b, p, n);
    if (m && m->nstack) {
        exdb_buf_puts(b, "  module stack:\n");
        for (uint32_t i = 0; i < m->nstack; i++) {
            const exdb_stack_entry *e = &m->stack[i];
            exdb_buf_printf(b, "    %*s%s", (int)(2 * i), "", e->path[0] ? e->path : "(root)");
            if (e->call_idx)
                exdb_buf_printf(b, "@%d", e->call_idx);
            exdb_buf_printf(b, "  %s\n", e->type);
        }
    } else if (n->op != EXDB_OP_PLACEHOLDER && n->op != EXDB_OP_OUTPUT) {
        exdb_buf_puts(b, "  module stack: (none: unflatten needs one for every node)\n");
    }
    if (m && exdb_meta_source_fn_stack(m))
        exdb_buf_printf(b, "  source_fn_stack: %s\n", exdb_meta_source_fn_stack(m));
    if (m && exdb_meta_torch_fn(m))
        exdb_buf_printf(b, "  torch_fn:  %s\n", exdb_meta_torch_fn(m));
    if (m && m->custom)
        exdb_buf_printf(b, "  custom:    %s\n", m->custom);
    for (uint32_t i = 0; m && i < m->nextra; i++) {
        const char *v = exdb_meta_extra(m, i);
        if (v)
            exdb_buf_printf(b, "  %s: %s\n", m->lazy_extra[i].key, v);
    }
    if (m && exdb_meta_stack_trace(m)) {
        exdb_buf_puts(b, "  stack trace:\n    ");
        for (const char *s = exdb_meta_stack_trace(m); *s; s++) {
            exdb_buf_putc(b, *s);
            if (*s == '\n')
                exdb_buf_puts(b, "    ");
        }
        exdb_buf_putc(b, '\n');
    }
}
