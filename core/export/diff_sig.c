/* diff_sig.c - a program diff's items outside the nodes: the graph
 * signature (input specs matched by kind and state target, user inputs and
 * tokens by position), the module_call_graph (entries by fqn) and the
 * program's fields. Value names are compared through the node match, so a
 * placeholder renamed by a shift of FX's suffixes is no difference. */
#include <stdlib.h>
#include <string.h>

#include "core/export/diff_sig.h"
#include "core/fx/print.h"

typedef struct items {
    exdb_program_diff *d;
    uint32_t cap;
    exdb_buf tmp;
} items;

static int add(items *it, char change, const char *section, const char *key, const char *field,
               const char *a, const char *b) {
    exdb_program_diff *d = it->d;
    if (d->nitems == it->cap) {
        uint32_t cap = it->cap ? 2 * it->cap : 16;
        exdb_diff_item *n = exdb_arena_alloc(&d->arena, cap * sizeof *n);
        if (!n)
            return -1;
        if (d->nitems)
            memcpy(n, d->items, d->nitems * sizeof *n);
        d->items = n;
        it->cap = cap;
    }
    d->items[d->nitems++] = (exdb_diff_item){change, section, key, field, a, b};
    return 0;
}

/* add() of two texts made for it: NULL is out of memory, not "absent". */
static int add_made(items *it, const char *section, const char *key, const char *field,
                    const char *a, const char *b) {
    return a && b ? add(it, '~', section, key, field, a, b) : -1;
}

static const char *dup(items *it, const char *s) {
    return s ? exdb_arena_strdup(&it->d->arena, s) : NULL;
}

/* Whether value name x of A and y of B are the same value: matched nodes
 * when both name nodes, else the same text. */
static int same_value(const exdb_program_diff *d, const char *x, const char *y) {
    if (!x || !y)
        return !x && !y;
    const exdb_node *a = exdb_graph_find(d->a->graph, x), *b = exdb_graph_find(d->b->graph, y);
    if (a && b)
        return d->a_to_b[a->id] == b;
    return strcmp(x, y) == 0;
}

/* ---- the signature */

static const char *spec_key(items *it, int kind, const char *kind_name, const char *target,
                            uint32_t *ord) {
    uint32_t n = ord[(uint32_t)kind < 16 ? kind : 15]++;
    if (target)
        return exdb_arena_printf(&it->d->arena, "%s %s", kind_name, target);
    return exdb_arena_printf(&it->d->arena, "%s %u", kind_name, n);
}

static const char *input_text(items *it, const exdb_input_spec *x) {
    exdb_buf *b = &it->tmp;
    exdb_buf_reset(b);
    exdb_buf_printf(b, "%s %s", exdb_input_kind_name(x->kind), x->name ? x->name : "-");
    if (x->target)
        exdb_buf_printf(b, " -> %s", x->target);
    if (x->persistent == 0)
        exdb_buf_puts(b, " (non-persistent)");
    if (x->class_fqn)
        exdb_buf_printf(b, " (%s)", x->class_fqn);
    if (x->value.kind != EXDB_ARG_NONE || x->kind == EXDB_IN_CONSTANT_INPUT) {
        exdb_buf_puts(b, " = ");
        exdb_repr_arg(b, &x->value);
    }
    return b->oom ? NULL : dup(it, exdb_buf_str(b));
}

static const char *output_text(items *it, const exdb_output_spec *x) {
    exdb_buf *b = &it->tmp;
    exdb_buf_reset(b);
    exdb_buf_printf(b, "%s %s", exdb_output_kind_name(x->kind), x->name ? x->name : "-");
    if (x->target)
        exdb_buf_printf(b, " -> %s", x->target);
    if (!x->name) {
        exdb_buf_puts(b, " = ");
        exdb_repr_arg(b, &x->value);
    }
    return b->oom ? NULL : dup(it, exdb_buf_str(b));
}

/* Inputs (outputs: out = 1) of A against B's, by key; the keys of B are
 * made first into a map key -> index + 1, and B's unmatched ones come last. */
static int diff_specs(items *it, int out) {
    const exdb_program *pa = it->d->a, *pb = it->d->b;
    uint32_t na = out ? pa->noutputs : pa->ninputs, nb = out ? pb->noutputs : pb->ninputs;
    exdb_strmap keys;
    exdb_strmap_init(&keys, &it->d->arena);
    uint8_t *hit = calloc(nb + 1, 1);
    if (!hit)
        return -1;
    uint32_t ord[16] = {0};
    int rc = 0;
    for (uint32_t j = 0; j < nb && rc == 0; j++) {
        int kind = out ? (int)pb->outputs[j].kind : (int)pb->inputs[j].kind;
        const char *kn = out ? exdb_output_kind_name(kind) : exdb_input_kind_name(kind);
        const char *k =
            spec_key(it, kind, kn, out ? pb->outputs[j].target : pb->inputs[j].target, ord);
        void **slot = k ? exdb_strmap_put(&keys, k, NULL) : NULL;
        if (!slot)
            rc = -1;
        else if (!*slot)
            *slot = (void *)(uintptr_t)(j + 1);
    }
    memset(ord, 0, sizeof ord);
    const char *sec = out ? "output" : "input";
    for (uint32_t i = 0; i < na && rc == 0; i++) {
        int kind = out ? (int)pa->outputs[i].kind : (int)pa->inputs[i].kind;
        const char *kn = out ? exdb_output_kind_name(kind) : exdb_input_kind_name(kind);
        const char *k =
            spec_key(it, kind, kn, out ? pa->outputs[i].target : pa->inputs[i].target, ord);
        uintptr_t j = k ? (uintptr_t)exdb_strmap_get(&keys, k) : 0;
        const char *ta = out ? output_text(it, &pa->outputs[i]) : input_text(it, &pa->inputs[i]);
        if (!k || !ta) {
            rc = -1;
            break;
        }
        if (!j || hit[j - 1]) {
            rc = add(it, '-', sec, k, NULL, ta, NULL);
            continue;
        }
        hit[j - 1] = 1;
        const char *tb =
            out ? output_text(it, &pb->outputs[j - 1]) : input_text(it, &pb->inputs[j - 1]);
        if (!tb)
            rc = -1;
        else if (out ? !same_value(it->d, pa->outputs[i].name, pb->outputs[j - 1].name) ||
                           (!pa->outputs[i].name && strcmp(ta, tb) != 0)
                     : !same_value(it->d, pa->inputs[i].name, pb->inputs[j - 1].name) ||
                           pa->inputs[i].persistent != pb->inputs[j - 1].persistent ||
                           (pa->inputs[i].value.kind != EXDB_ARG_NONE && strcmp(ta, tb) != 0))
            rc = add(it, '~', sec, k, out ? "value" : "input", ta, tb);
    }
    memset(ord, 0, sizeof ord);
    for (uint32_t j = 0; j < nb && rc == 0; j++) {
        int kind = out ? (int)pb->outputs[j].kind : (int)pb->inputs[j].kind;
        const char *kn = out ? exdb_output_kind_name(kind) : exdb_input_kind_name(kind);
        const char *k =
            spec_key(it, kind, kn, out ? pb->outputs[j].target : pb->inputs[j].target, ord);
        const char *tb = out ? output_text(it, &pb->outputs[j]) : input_text(it, &pb->inputs[j]);
        if (!k || !tb)
            rc = -1;
        else if (!hit[j])
            rc = add(it, '+', sec, k, NULL, NULL, tb);
    }
    free(hit);
    return rc;
}

/* ---- the module_call_graph */

static const char *names_text(items *it, const char **names, const exdb_arg *vals, uint32_t n) {
    exdb_buf *b = &it->tmp;
    exdb_buf_reset(b);
    exdb_buf_putc(b, '(');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            exdb_buf_puts(b, ", ");
        if (names[i])
            exdb_buf_puts(b, names[i]);
        else if (vals)
            exdb_repr_arg(b, &vals[i]);
        else
            exdb_buf_puts(b, "None");
    }
    exdb_buf_putc(b, ')');
    return b->oom ? NULL : dup(it, exdb_buf_str(b));
}

static int names_eq(const exdb_program_diff *d, const char **x, uint32_t nx, const char **y,
                    uint32_t ny) {
    if (nx != ny)
        return 0;
    for (uint32_t i = 0; i < nx; i++)
        if (!same_value(d, x[i], y[i]))
            return 0;
    return 1;
}

static int str_eq(const char *x, const char *y) {
    return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* The fields of two signatures of one fqn that differ, one item each. */
static int diff_call_sig(items *it, const char *fqn, const exdb_call_signature *x,
                         const exdb_call_signature *y) {
    const char *key = fqn[0] ? fqn : "<root>";
    if (!x || !y) {
        if (!x && !y)
            return 0;
        return add(it, '~', "call", key, "signature", x ? "preserved" : "none",
                   y ? "preserved" : "none");
    }
    int rc = 0;
    if (!names_eq(it->d, x->inputs, x->ninputs, y->inputs, y->ninputs))
        rc |= add_made(it, "call", key, "inputs",
                       names_text(it, x->inputs, x->input_values, x->ninputs),
                       names_text(it, y->inputs, y->input_values, y->ninputs));
    if (!names_eq(it->d, x->outputs, x->noutputs, y->outputs, y->noutputs))
        rc |= add_made(it, "call", key, "outputs",
                       names_text(it, x->outputs, x->output_values, x->noutputs),
                       names_text(it, y->outputs, y->output_values, y->noutputs));
    if (!str_eq(x->in_spec_text, y->in_spec_text))
        rc |= add(it, '~', "call", key, "in_spec", x->in_spec_text, y->in_spec_text);
    if (!str_eq(x->out_spec_text, y->out_spec_text))
        rc |= add(it, '~', "call", key, "out_spec", x->out_spec_text, y->out_spec_text);
    int fa = x->nforward_arg_names == y->nforward_arg_names &&
             !x->forward_arg_names == !y->forward_arg_names;
    for (uint32_t i = 0; fa && i < x->nforward_arg_names; i++)
        fa = str_eq(x->forward_arg_names[i], y->forward_arg_names[i]);
    if (!fa)
        rc |= add_made(it, "call", key, "forward_arg_names",
                       names_text(it, x->forward_arg_names, NULL, x->nforward_arg_names),
                       names_text(it, y->forward_arg_names, NULL, y->nforward_arg_names));
    return rc ? -1 : 0;
}

static int diff_calls(items *it) {
    const exdb_program *pa = it->d->a, *pb = it->d->b;
    exdb_strmap fqns; /* B's fqn -> index + 1 */
    exdb_strmap_init(&fqns, &it->d->arena);
    uint8_t *hit = calloc(pb->ncalls + 1, 1);
    if (!hit)
        return -1;
    int rc = 0;
    for (uint32_t j = 0; j < pb->ncalls && rc == 0; j++) {
        void **slot = exdb_strmap_put(&fqns, pb->calls[j].fqn ? pb->calls[j].fqn : "", NULL);
        if (!slot)
            rc = -1;
        else if (!*slot)
            *slot = (void *)(uintptr_t)(j + 1);
    }
    for (uint32_t i = 0; i < pa->ncalls && rc == 0; i++) {
        const char *fqn = pa->calls[i].fqn ? pa->calls[i].fqn : "";
        uintptr_t j = (uintptr_t)exdb_strmap_get(&fqns, fqn);
        if (!j || hit[j - 1]) {
            rc = add(it, '-', "call", fqn[0] ? fqn : "<root>", NULL,
                     pa->calls[i].sig ? "preserved signature" : "entry", NULL);
            continue;
        }
        hit[j - 1] = 1;
        rc = diff_call_sig(it, fqn, pa->calls[i].sig, pb->calls[j - 1].sig);
    }
    for (uint32_t j = 0; j < pb->ncalls && rc == 0; j++)
        if (!hit[j])
            rc = add(it, '+', "call",
                     pb->calls[j].fqn && pb->calls[j].fqn[0] ? pb->calls[j].fqn : "<root>", NULL,
                     NULL, pb->calls[j].sig ? "preserved signature" : "entry");
    free(hit);
    return rc;
}

/* ---- the program's own fields */

static const char *ranges_text(items *it, const exdb_program *p) {
    exdb_buf *b = &it->tmp;
    exdb_buf_reset(b);
    for (uint32_t i = 0; i < p->nranges; i++) {
        const exdb_range *r = &p->ranges[i];
        exdb_buf_printf(b, "%s%s: [", i ? ", " : "", r->symbol ? r->symbol : "?");
        if (r->has_min)
            exdb_buf_put_i64(b, r->min);
        else
            exdb_buf_puts(b, r->min_inf > 0 ? "oo" : "-oo");
        exdb_buf_puts(b, ", ");
        if (r->has_max)
            exdb_buf_put_i64(b, r->max);
        else
            exdb_buf_puts(b, r->max_inf < 0 ? "-oo" : "oo");
        exdb_buf_putc(b, ']');
    }
    return b->oom ? NULL : dup(it, exdb_buf_str(b));
}

static int diff_fields(items *it) {
    const exdb_program *pa = it->d->a, *pb = it->d->b;
    exdb_arena *ar = &it->d->arena;
    int rc = 0;
    if (!str_eq(pa->torch_version, pb->torch_version))
        rc |= add(it, '~', "program", "torch_version", "torch_version",
                  pa->torch_version ? pa->torch_version : "(none)",
                  pb->torch_version ? pb->torch_version : "(none)");
    if (pa->schema_major != pb->schema_major || pa->schema_minor != pb->schema_minor)
        rc |= add_made(it, "program", "schema", "schema",
                       exdb_arena_printf(ar, "%d.%d", pa->schema_major, pa->schema_minor),
                       exdb_arena_printf(ar, "%d.%d", pb->schema_major, pb->schema_minor));
    const char *ra = ranges_text(it, pa), *rb = ranges_text(it, pb);
    if (!ra || !rb)
        return -1;
    if (strcmp(ra, rb) != 0)
        rc |= add(it, '~', "program", "range_constraints", "range_constraints", ra, rb);
    return rc ? -1 : 0;
}

int exdb_diff_sig_items(exdb_program_diff *d) {
    items it = {.d = d};
    exdb_buf_init(&it.tmp);
    int rc = diff_specs(&it, 0);
    if (rc == 0)
        rc = diff_specs(&it, 1);
    d->nsig = d->nitems;
    if (rc == 0)
        rc = diff_calls(&it);
    d->ncalls = d->nitems - d->nsig;
    if (rc == 0)
        rc = diff_fields(&it);
    if (it.tmp.oom)
        rc = -1;
    exdb_buf_free(&it.tmp);
    return rc;
}
