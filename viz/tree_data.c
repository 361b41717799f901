/* tree_data.c - the data of the module view you open and close (the HTML
 * page of `render modules`, html_tree.c): every module call's own
 * dataflow, read from nn_module_stack as the `modules` view reads it (no
 * unflatten needed).
 *
 * Modules form the FQN tree (modules.c): "layers.3.attn" under "layers.3"
 * under "layers", even when the ModuleList `layers` is never called;
 * repeated calls are separate modules ("fqn@N"). The graph of a module M
 * holds its own FX nodes (whose innermost module is M), one box per child
 * module call, one input node per value made outside M and used inside it,
 * and one output node for the values M hands out. A value u used by v
 * gives, at the lowest module holding both (their common ancestor L), an
 * edge from u's representative to v's (the node itself, or the child box
 * holding it); below L on v's side each module gets u as an input, on u's
 * side each module hands it to its output. Parameters, buffers and
 * constants appear only in the module whose own op reads them (where
 * unflatten sinks them as get_attr). Each graph is laid out by the page's
 * script when it is opened, so a program of any size costs one pass here
 * and nothing until a module is opened. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/format/schema.h"
#include "core/fx/print.h"
#include "core/base/mem.h"
#include "viz/groupby.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/noderec.h"
#include "viz/pagegraph.h"
#include "viz/tree_data.h"

/* The users a node's panel lists (a mask or a shared input has thousands). */
#define VZ_TREE_USERS 64

typedef struct tree_ctx {
    const exdb_program *prog;
    exdb_arena arena;
    vz_pagegraph pg;    /* modules, nodes, edges (pagegraph.c) */
    exdb_strmap byname; /* "parent\x1fpath@N" -> mod + 1 */
    exdb_strmap stack;  /* raw nn_module_stack -> innermost mod + 1 */
    exdb_strmap inputs; /* placeholder name -> input spec index + 1 */
    uint32_t *of;       /* FX node id -> innermost mod (0: the root) */
    uint32_t *loc;      /* FX node id -> its node's index in its module's graph, VZ_NONE */
    exdb_buf tmp;
    int oom;
} tree_ctx;

/* The module for one FQN prefix under parent (as modules.c's get_mod);
 * the call index comes from the stack entry with exactly that path. */
static uint32_t get_mod(tree_ctx *c, uint32_t parent, const char *path, size_t plen,
                        const exdb_meta *m) {
    const exdb_stack_entry *entry = NULL;
    for (uint32_t i = 0; i < m->nstack; i++)
        if (strlen(m->stack[i].path) == plen && strncmp(m->stack[i].path, path, plen) == 0)
            entry = &m->stack[i];
    exdb_buf_reset(&c->tmp);
    exdb_buf_printf(&c->tmp, "%u\x1f", parent);
    size_t at = c->tmp.len;
    exdb_buf_put(&c->tmp, path, plen);
    if (entry && entry->call_idx)
        exdb_buf_printf(&c->tmp, "@%d", entry->call_idx);
    void *v = exdb_strmap_get(&c->byname, exdb_buf_str(&c->tmp));
    if (v)
        return (uint32_t)((uintptr_t)v - 1);
    const char *key =
        c->tmp.oom ? NULL : exdb_arena_strndup(&c->arena, exdb_buf_str(&c->tmp), c->tmp.len);
    void **slot = key ? exdb_strmap_put(&c->byname, key, NULL) : NULL;
    uint32_t k = slot ? vz_pagegraph_add_mod(&c->pg, (vz_pgmod){.fqn = key + at,
                                                                .type = entry ? entry->type : NULL,
                                                                .parent = parent})
                      : VZ_NONE;
    if (k == VZ_NONE) {
        c->oom = 1;
        return VZ_NONE;
    }
    *slot = (void *)(uintptr_t)(k + 1);
    c->pg.mods[k].box = vz_pagegraph_add_node(&c->pg, parent, VZ_PG_CHILD, k);
    return k;
}

/* The innermost module (call) of n, 0 for the root. */
static uint32_t node_mod(tree_ctx *c, const exdb_node *n) {
    const exdb_stack_entry *leaf = vz_leaf_entry(n);
    if (!leaf)
        return 0;
    void **slot = exdb_strmap_put(&c->stack, n->meta->nn_module_stack, NULL);
    if (slot && *slot)
        return (uint32_t)((uintptr_t)*slot - 1);
    uint32_t m = 0;
    for (const char *p = leaf->path;;) {
        const char *dot = strchr(p, '.');
        size_t plen = dot ? (size_t)(dot - leaf->path) : strlen(leaf->path);
        m = get_mod(c, m, leaf->path, plen, n->meta);
        if (m == VZ_NONE || !dot)
            break;
        p = dot + 1;
    }
    if (m == VZ_NONE)
        return 0;
    if (slot)
        *slot = (void *)(uintptr_t)(m + 1);
    return m;
}

static int is_state(tree_ctx *c, const exdb_node *u) {
    if (u->op != EXDB_OP_PLACEHOLDER)
        return 0;
    uintptr_t s = (uintptr_t)exdb_strmap_get(&c->inputs, u->name);
    return s && c->prog->inputs[s - 1].kind != EXDB_IN_USER_INPUT;
}

/* The edges value u makes for its user v (see the top of the file). */
static void link_use(tree_ctx *c, const exdb_node *u, const exdb_node *v) {
    uint32_t mu = c->of[u->id], mv = c->of[v->id];
    if (is_state(c, u)) {
        /* only where an own op reads it: an input there, or the node at the root */
        if (mv == 0) {
            if (c->loc[u->id] == VZ_NONE)
                c->loc[u->id] = vz_pagegraph_add_node(&c->pg, 0, VZ_PG_OP, (uintptr_t)u);
            vz_pagegraph_edge(&c->pg, 0, c->loc[u->id], c->loc[v->id], u->id, (uintptr_t)u);
        } else {
            vz_pagegraph_edge(&c->pg, mv, vz_pagegraph_input(&c->pg, mv, u->id, (uintptr_t)u),
                              c->loc[v->id], u->id, (uintptr_t)u);
        }
        return;
    }
    vz_pagegraph_link(&c->pg, mu, c->loc[u->id], mv, c->loc[v->id], u->id, (uintptr_t)u,
                      (uintptr_t)u);
}

static int tree_build(tree_ctx *c) {
    const exdb_program *p = c->prog;
    const exdb_graph *g = p->graph;
    size_t nid = (size_t)g->next_id + 1;
    c->of = malloc(nid * sizeof *c->of);
    c->loc = malloc(nid * sizeof *c->loc);
    if (!c->of || !c->loc ||
        vz_pagegraph_add_mod(&c->pg, (vz_pgmod){.fqn = "", .parent = VZ_NONE}) == VZ_NONE)
        return -1;
    if (vz_index_inputs(&c->inputs, p) < 0)
        c->oom = 1;
    for (const exdb_node *n = g->head; n && !c->oom; n = n->next) {
        uint32_t m = node_mod(c, n);
        c->of[n->id] = m;
        c->loc[n->id] = VZ_NONE;
        if (is_state(c, n))
            continue; /* drawn where it is read (link_use) */
        c->loc[n->id] = vz_pagegraph_add_node(&c->pg, m, VZ_PG_OP, (uintptr_t)n);
        c->pg.mods[m].own++;
        for (uint32_t a = m; a != VZ_NONE; a = c->pg.mods[a].parent)
            c->pg.mods[a].total++;
    }
    for (const exdb_node *u = g->head; u && !c->oom; u = u->next)
        for (uint32_t i = 0; i < u->nusers; i++)
            if (i == 0 || u->users[i] != u->users[i - 1])
                link_use(c, u, u->users[i]);
    return c->oom || c->tmp.oom ? -1 : 0;
}

/* ---- writing: JSON inside <script> elements (noderec.c) */

static void json_str(exdb_buf *b, const char *s) {
    exdb_buf_json_str(b, s ? s : "");
}

/* An FX node's record (noderec.c) and its users: names, space-separated
 * (an own node's first VZ_TREE_USERS, then "+N"; none for an input, whose
 * users are listed where it is made). */
static void put_fx(tree_ctx *c, exdb_buf *b, const exdb_node *n, const char *kind,
                   vz_noderec *rec) {
    vz_noderec_put(rec, b, n, kind, NULL, NULL);
    exdb_buf_putc(b, ',');
    exdb_buf_reset(&c->tmp);
    for (uint32_t i = 0; kind[0] == 'o' && i < n->nusers && i < VZ_TREE_USERS; i++)
        exdb_buf_printf(&c->tmp, "%s%s", i ? " " : "", n->users[i]->name);
    if (kind[0] == 'o' && n->nusers > VZ_TREE_USERS)
        exdb_buf_printf(&c->tmp, " +%u", n->nusers - VZ_TREE_USERS);
    json_str(b, exdb_buf_str(&c->tmp));
    exdb_buf_putc(b, ']');
}

/* The graph of module m as {"n":[...],"e":[...]} in one <script>. */
static void put_graph(tree_ctx *c, FILE *f, exdb_buf *b, uint32_t m, const uint32_t *nodes,
                      uint32_t nn, const uint32_t *edges, uint32_t ne, vz_noderec *rec) {
    exdb_buf_reset(b);
    exdb_buf_printf(b, "<script type=\"application/json\" id=\"g%u\">{\"n\":[", m);
    fputs(exdb_buf_str(b), f);
    for (uint32_t i = 0; i < nn; i++) {
        const vz_pgnode *g = &c->pg.nodes[nodes[i]];
        exdb_buf_reset(b);
        if (i)
            exdb_buf_putc(b, ',');
        if (g->kind == VZ_PG_CHILD)
            exdb_buf_printf(b, "[\"m\",%u]", (uint32_t)g->ref);
        else if (g->kind == VZ_PG_OUT)
            exdb_buf_puts(b, "[\"x\"]");
        else
            put_fx(c, b, (const exdb_node *)g->ref, g->kind == VZ_PG_IN ? "i" : "o", rec);
        vz_put_script_json(f, b);
    }
    fputs("],\"e\":[", f);
    for (uint32_t i = 0; i < ne; i++) {
        const vz_pgedge *e = &c->pg.edges[edges[i]];
        const exdb_node *first = (const exdb_node *)e->first;
        exdb_buf_reset(b);
        exdb_buf_printf(b, "%s[%u,%u,%u,", i ? "," : "", e->from, e->to, e->nvalues);
        exdb_buf_reset(&c->tmp);
        if (e->nvalues == 1 && first->meta)
            exdb_format_val(&c->tmp, first->meta->val);
        else if (e->nvalues > 1)
            exdb_buf_printf(&c->tmp, "%u values", e->nvalues);
        json_str(b, exdb_buf_str(&c->tmp));
        exdb_buf_putc(b, ']');
        vz_put_script_json(f, b);
    }
    fputs("]}</script>\n", f);
}

/* The module list: [fqn, class, parent, own ops, ops in all, "own node
 * names", "their targets"] per module, the root first: names and short
 * targets ("aten.convolution"; "-" for none) space-separated, in the same
 * order, for search. */
static void put_mods(tree_ctx *c, FILE *f, exdb_buf *b, const uint32_t *nfirst,
                     const uint32_t *norder) {
    exdb_buf tg;
    exdb_buf_init(&tg);
    fputs("<script type=\"application/json\" id=\"mods\">[", f);
    for (uint32_t m = 0; m < c->pg.nmods; m++) {
        const vz_pgmod *t = &c->pg.mods[m];
        exdb_buf_reset(b);
        if (m)
            exdb_buf_putc(b, ',');
        exdb_buf_putc(b, '[');
        json_str(b, t->fqn);
        exdb_buf_putc(b, ',');
        json_str(b, t->type);
        exdb_buf_printf(b, ",%d,%u,%u,", m ? (int)t->parent : -1, t->own, t->total);
        exdb_buf_reset(&c->tmp);
        for (uint32_t i = nfirst[m]; i < nfirst[m + 1]; i++) {
            const vz_pgnode *g = &c->pg.nodes[norder[i]];
            if (g->kind == VZ_PG_OP)
                exdb_buf_printf(&c->tmp, "%s%s", c->tmp.len ? " " : "",
                                ((const exdb_node *)g->ref)->name);
        }
        json_str(b, exdb_buf_str(&c->tmp));
        exdb_buf_putc(b, ',');
        exdb_buf_reset(&c->tmp);
        for (uint32_t i = nfirst[m]; i < nfirst[m + 1]; i++) {
            const vz_pgnode *g = &c->pg.nodes[norder[i]];
            if (g->kind != VZ_PG_OP)
                continue;
            exdb_buf_reset(&tg);
            exdb_viz_short_target(&tg, (const exdb_node *)g->ref);
            const char *ts = exdb_buf_str(&tg);
            exdb_buf_printf(&c->tmp, "%s%s", c->tmp.len ? " " : "",
                            ts[0] && !strchr(ts, ' ') ? ts : "-");
        }
        json_str(b, exdb_buf_str(&c->tmp));
        exdb_buf_putc(b, ']');
        vz_put_script_json(f, b);
    }
    fputs("]</script>\n", f);
    c->oom |= tg.oom;
    exdb_buf_free(&tg);
}

int vz_write_tree_data(FILE *f, const exdb_program *p, vz_tree_stats *st, exdb_error *err) {
    tree_ctx c = {.prog = p};
    exdb_arena_init(&c.arena);
    exdb_strmap_init(&c.byname, &c.arena);
    exdb_strmap_init(&c.stack, &c.arena);
    exdb_strmap_init(&c.inputs, &c.arena);
    exdb_buf_init(&c.tmp);
    vz_pagegraph_init(&c.pg, &c.arena, &c.tmp, &c.oom);
    exdb_buf b;
    exdb_buf_init(&b);
    vz_noderec rec;
    vz_noderec_init(&rec, p, &c.inputs, &c.arena);
    uint32_t *nfirst = NULL, *efirst = NULL, *norder = NULL, *eorder = NULL;
    int rc = -1;
    if (tree_build(&c) < 0)
        goto out;
    norder = vz_groupby_module(c.pg.nmods, c.pg.nnodes, c.pg.nodes, sizeof *c.pg.nodes, &nfirst);
    eorder = vz_groupby_module(c.pg.nmods, c.pg.nedges, c.pg.edges, sizeof *c.pg.edges, &efirst);
    if (!norder || !eorder)
        goto out;
    put_mods(&c, f, &b, nfirst, norder);
    for (uint32_t m = 0; m < c.pg.nmods; m++)
        put_graph(&c, f, &b, m, norder + nfirst[m], nfirst[m + 1] - nfirst[m], eorder + efirst[m],
                  efirst[m + 1] - efirst[m], &rec);
    vz_noderec_put_sources(&rec, f, &b);
    vz_noderec_put_code(&rec, f, &b, p->graph);
    if (st) {
        st->modules = c.pg.nmods;
        st->nodes = c.pg.nnodes;
        st->edges = c.pg.nedges;
    }
    rc = c.oom || b.oom || c.tmp.oom || rec.oom ? -1 : 0;
out:
    vz_pagegraph_free(&c.pg);
    free(c.of);
    free(c.loc);
    free(nfirst);
    free(efirst);
    free(norder);
    free(eorder);
    exdb_buf_free(&c.tmp);
    exdb_buf_free(&b);
    vz_noderec_free(&rec);
    exdb_arena_destroy(&c.arena);
    if (rc < 0)
        exdb_errorf(err, "render: out of memory");
    return rc;
}
