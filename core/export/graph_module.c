/* graph_module.c - see graph_module.h. */
#include "core/export/graph_module.h"

#include <string.h>

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
