/* readable.c - see readable.h. Mirrors torch/fx/graph_module.py's
 * _print_readable and torch/nn/modules/module.py's _addindent. */
#include "core/fx/readable.h"

#include <string.h>

static int is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* nn.Module's _addindent(s, 4): every line after the first indented by 4,
 * blank (whitespace-only) lines emptied; one line stays as it is. */
static void addindent(exdb_buf *out, const char *s, size_t len) {
    const char *nl = memchr(s, '\n', len);
    if (!nl) {
        exdb_buf_put(out, s, len);
        return;
    }
    exdb_buf_put(out, s, (size_t)(nl - s));
    const char *p = nl + 1, *end = s + len;
    for (;;) {
        exdb_buf_putc(out, '\n');
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *q = p;
        while (q < e && is_space(*q))
            q++;
        if (q < e) {
            exdb_buf_puts(out, "    ");
            exdb_buf_put(out, p, (size_t)(e - p));
        }
        if (e == end)
            break;
        p = e + 1;
    }
}

int exdb_print_readable(exdb_buf *out, const exdb_readable_mod *m, const exdb_codegen_opts *o,
                        uint32_t *lines) {
    exdb_codegen_opts vo = *o;
    vo.verbose = 1;
    vo.pytree = m->pytree;
    exdb_buf src, code;
    exdb_buf_init(&src);
    exdb_buf_init(&code);
    int rc = exdb_python_code(&src, m->graph, &vo, lines);
    if (lines)
        for (uint32_t i = 0; i < m->graph->count; i++)
            lines[i] = lines[i] > 2 ? lines[i] - 2 : 0;
    const char *s = exdb_buf_str(&src);
    while (*s == '\n')
        s++;
    exdb_buf_printf(&code, "class %s(torch.nn.Module):\n", m->name);
    exdb_buf_puts(&code, s);
    addindent(out, exdb_buf_str(&code), code.len);
    exdb_buf_reset(&code);
    for (uint32_t i = 0; i < m->nchildren && rc == 0; i++) {
        exdb_buf_putc(&code, '\n');
        rc = exdb_print_readable(&code, &m->children[i], o, NULL);
    }
    addindent(out, exdb_buf_str(&code), code.len);
    if (src.oom || code.oom || out->oom)
        rc = -1;
    exdb_buf_free(&src);
    exdb_buf_free(&code);
    return rc;
}

/* The children of a GraphModule whose graph is g: the program subgraphs
 * its get_attr nodes name, in the order of those nodes (the order
 * torch.export's deserializer registers them). */
static int subgraph_children(exdb_arena *a, const exdb_program *p, const exdb_graph *g,
                             exdb_readable_mod *m) {
    uint32_t n = 0;
    for (const exdb_node *x = g->head; x; x = x->next)
        n += x->op == EXDB_OP_GET_ATTR && exdb_program_subgraph_owned(p, x) != NULL;
    if (!n)
        return 0;
    exdb_readable_mod *ch = exdb_arena_calloc(a, n, sizeof *ch);
    if (!ch)
        return -1;
    uint32_t k = 0;
    for (const exdb_node *x = g->head; x && k < n; x = x->next) {
        const struct exdb_subgraph *sg =
            x->op == EXDB_OP_GET_ATTR ? exdb_program_subgraph_owned(p, x) : NULL;
        if (!sg)
            continue;
        ch[k].name = sg->name;
        ch[k].graph = sg->graph;
        if (subgraph_children(a, p, sg->graph, &ch[k]) < 0)
            return -1;
        k++;
    }
    m->children = ch;
    m->nchildren = k;
    return 0;
}

int exdb_readable_subgraph(exdb_arena *a, const exdb_program *p, const char *name,
                           const exdb_graph *graph, exdb_readable_mod *m) {
    memset(m, 0, sizeof *m);
    m->name = name;
    m->graph = graph;
    const struct exdb_subgraph *sg = exdb_program_subgraph(p, name);
    return sg ? subgraph_children(a, p, sg->graph, m) : 0;
}

exdb_readable_mod *exdb_readable_program(exdb_arena *a, const exdb_program *p) {
    exdb_readable_mod *m = exdb_arena_calloc(a, 1, sizeof *m);
    if (!m)
        return NULL;
    m->name = "GraphModule";
    m->graph = p->graph;
    return subgraph_children(a, p, p->graph, m) < 0 ? NULL : m;
}

int exdb_readable_attr_children(exdb_arena *a, const exdb_program *p, exdb_readable_mod *m) {
    uint32_t n = 0;
    for (const exdb_node *x = m->graph->head; x; x = x->next)
        n += x->op == EXDB_OP_GET_ATTR && exdb_program_subgraph(p, x->target) != NULL;
    if (!n)
        return 0;
    exdb_readable_mod *ch = exdb_arena_calloc(a, n, sizeof *ch);
    if (!ch)
        return -1;
    uint32_t k = 0;
    for (const exdb_node *x = m->graph->head; x && k < n; x = x->next) {
        const struct exdb_subgraph *sg =
            x->op == EXDB_OP_GET_ATTR ? exdb_program_subgraph(p, x->target) : NULL;
        int seen = 0; /* one child per attribute, however many get_attrs name it */
        for (uint32_t i = 0; sg && i < k; i++)
            seen |= strcmp(ch[i].name, sg->name) == 0;
        if (sg && !seen && exdb_readable_subgraph(a, p, sg->name, sg->graph, &ch[k++]) < 0)
            return -1;
    }
    m->children = ch;
    m->nchildren = k;
    return 0;
}
