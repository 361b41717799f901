/* graph_data.c - the page data of every view the module view's page draws
 * from a view graph (`render flat|tree|frame|module -o F.html`, html.c):
 * the same module list, per-module graphs and source table as tree_data.c
 * writes, so one script (viz/viewer/modpage.js) lays each out lazily.
 *
 * The view graph's clusters become the page's modules (flat --by-module:
 * the module calls; frame: the stack, the window, the frame's graph). A
 * cluster with more than VZ_SECTION nodes of its own (a flat view of 141k
 * nodes, the tree of 21k modules) is cut into sections of VZ_SECTION nodes
 * in the view's order ("nodes 1-1000"; the flat view puts each input beside
 * its first user), each laid out only when
 * opened, so a program of any size costs the page one section's layout to show its first screen. An
 * edge between nodes of different modules is drawn as tree_data.c draws values (pagegraph.c): at
 * their lowest common module between the boxes holding them, and inside each box from an input node
 * or to its output node. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/base/mem.h"
#include "core/fx/print.h"
#include "viz/groupby.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/noderec.h"
#include "viz/pagegraph.h"
#include "viz/graph_data.h"

/* The links a node's panel lists (a hub has thousands). */
#define VZ_LINKS 64

typedef struct gd_ctx {
    const vz_graph *vg;
    exdb_arena arena;
    vz_pagegraph pg;                         /* modules, nodes, edges (pagegraph.c) */
    uint32_t *of;                            /* view node -> its module */
    uint32_t *loc;                           /* view node -> its index in its module's graph */
    uint32_t *ofirst, *oadj, *ifirst, *iadj; /* out and in edges of each view node */
    exdb_buf tmp;
    int oom;
} gd_ctx;

/* text without its escString escapes (\n, \l, \r: a line break; \\: \). */
static void plain(exdb_buf *b, const char *text) {
    for (const char *s = text; s && *s; s++) {
        if (s[0] != '\\' || !s[1]) {
            exdb_buf_putc(b, *s);
            continue;
        }
        s++;
        if (*s == 'n' || *s == 'l' || *s == 'r') {
            if (s[1])
                exdb_buf_putc(b, '\n');
        } else {
            exdb_buf_putc(b, *s);
        }
    }
}

static const char *plain_dup(gd_ctx *c, const char *text) {
    exdb_buf_reset(&c->tmp);
    plain(&c->tmp, text);
    const char *s = exdb_arena_strndup(&c->arena, exdb_buf_str(&c->tmp), c->tmp.len);
    if (!s)
        c->oom = 1;
    return s ? s : "";
}

static uint32_t add_mod(gd_ctx *c, const char *fqn, const char *label, const char *fill,
                        uint32_t parent) {
    return vz_pagegraph_add_mod(
        &c->pg, (vz_pgmod){.fqn = fqn, .label = label, .fill = fill, .parent = parent});
}

/* The modules: one per cluster (same index), then the sections of each
 * cluster with more than VZ_SECTION nodes of its own; of[] each node's. */
static void make_mods(gd_ctx *c) {
    const vz_graph *vg = c->vg;
    add_mod(c, "", "", NULL, VZ_NONE);
    for (uint32_t k = 1; k < vg->nclusters && !c->oom; k++) {
        const vz_cluster *cl = &vg->clusters[k];
        const char *name = cl->name ? cl->name : "";
        if (strncmp(name, "cluster_", 8) == 0)
            name += 8;
        add_mod(c, name, cl->label ? plain_dup(c, cl->label) : name, cl->fill, cl->parent);
    }
    uint32_t nc = vg->nclusters ? vg->nclusters : 1;
    uint32_t *count = calloc(nc, sizeof *count), *first = calloc(nc, sizeof *first);
    if (!count || !first) {
        c->oom = 1;
        free(count);
        free(first);
        return;
    }
    for (uint32_t v = 0; v < vg->nnodes; v++)
        count[vg->nodes[v].cluster]++;
    for (uint32_t k = 0; k < nc && !c->oom; k++) {
        first[k] = VZ_NONE;
        for (uint32_t at = 0; count[k] > VZ_SECTION && at < count[k]; at += VZ_SECTION) {
            uint32_t end = at + VZ_SECTION < count[k] ? at + VZ_SECTION : count[k];
            exdb_buf_reset(&c->tmp);
            exdb_buf_printf(&c->tmp, "%s%snodes %u-%u", c->pg.mods[k].fqn, k ? " " : "", at + 1,
                            end);
            const char *fqn = exdb_arena_strndup(&c->arena, exdb_buf_str(&c->tmp), c->tmp.len);
            if (!fqn || c->tmp.oom) {
                c->oom = 1;
                break;
            }
            uint32_t s = add_mod(c, fqn, fqn + strlen(c->pg.mods[k].fqn) + (k ? 1 : 0), NULL, k);
            if (at == 0)
                first[k] = s;
        }
        count[k] = 0; /* from here: nodes of cluster k met so far */
    }
    for (uint32_t v = 0; v < vg->nnodes && !c->oom; v++) {
        uint32_t k = vg->nodes[v].cluster;
        c->of[v] = first[k] == VZ_NONE ? k : first[k] + count[k]++ / VZ_SECTION;
    }
    free(count);
    free(first);
}

/* View edge e drawn between the modules of its ends (a value: its source node). */
static void link_edge(gd_ctx *c, uint32_t e) {
    uint32_t u = c->vg->edges[e].from, v = c->vg->edges[e].to;
    vz_pagegraph_link(&c->pg, c->of[u], c->loc[u], c->of[v], c->loc[v], u, u, e);
}

/* first[v]..first[v+1] of adj: the edges leaving (out) or entering each node. */
static int adjacency(const vz_graph *vg, int out, uint32_t **first_out, uint32_t **adj_out) {
    uint32_t *first = calloc((size_t)vg->nnodes + 1, sizeof *first);
    uint32_t *adj = malloc(((size_t)vg->nedges + 1) * sizeof *adj);
    uint32_t *fill = malloc(((size_t)vg->nnodes + 1) * sizeof *fill);
    if (!first || !adj || !fill) {
        free(first);
        free(adj);
        free(fill);
        return -1;
    }
    for (uint32_t e = 0; e < vg->nedges; e++)
        first[(out ? vg->edges[e].from : vg->edges[e].to) + 1]++;
    for (uint32_t v = 0; v < vg->nnodes; v++)
        first[v + 1] += first[v];
    memcpy(fill, first, ((size_t)vg->nnodes + 1) * sizeof *fill);
    for (uint32_t e = 0; e < vg->nedges; e++)
        adj[fill[out ? vg->edges[e].from : vg->edges[e].to]++] = e;
    free(fill);
    *first_out = first;
    *adj_out = adj;
    return 0;
}

static int gd_build(gd_ctx *c) {
    const vz_graph *vg = c->vg;
    c->of = malloc(((size_t)vg->nnodes + 1) * sizeof *c->of);
    c->loc = malloc(((size_t)vg->nnodes + 1) * sizeof *c->loc);
    if (!c->of || !c->loc || adjacency(vg, 1, &c->ofirst, &c->oadj) < 0 ||
        adjacency(vg, 0, &c->ifirst, &c->iadj) < 0)
        return -1;
    make_mods(c);
    for (uint32_t v = 0; v < vg->nnodes && !c->oom; v++) {
        uint32_t m = c->of[v];
        vz_pagegraph_need_box(&c->pg, m);
        c->loc[v] = vz_pagegraph_add_node(&c->pg, m, VZ_PG_OP, v);
        c->pg.mods[m].own++;
        for (uint32_t a = m; a != VZ_NONE; a = c->pg.mods[a].parent)
            c->pg.mods[a].total++;
    }
    for (uint32_t m = 1; m < c->pg.nmods && !c->oom; m++)
        vz_pagegraph_need_box(&c->pg, m);
    for (uint32_t e = 0; e < vg->nedges && !c->oom; e++)
        link_edge(c, e);
    return c->oom || c->tmp.oom ? -1 : 0;
}

/* ---- writing */

static void json_plain(gd_ctx *c, exdb_buf *b, const char *text) {
    exdb_buf_reset(&c->tmp);
    plain(&c->tmp, text);
    exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
}

/* A run box's text: its tooltip, then the first VZ_LINKS of the module paths it
 * stands for (members: comma-separated, "+N": paths not kept). */
static void json_run_text(gd_ctx *c, exdb_buf *b, const vz_node *n) {
    exdb_buf_reset(&c->tmp);
    plain(&c->tmp, n->tooltip ? n->tooltip : n->label);
    uint32_t kept = 0, cut = 0;
    for (const char *s = n->members; *s;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (s[0] == '+') {
            cut += (uint32_t)strtoul(s + 1, NULL, 10);
        } else if (kept++ < VZ_LINKS) {
            exdb_buf_puts(&c->tmp, kept > 1 ? " " : "\n\nmodules: ");
            exdb_buf_put(&c->tmp, s, len);
        }
        s = e ? e + 1 : s + len;
    }
    if (kept > VZ_LINKS || cut) {
        exdb_buf_printf(&c->tmp, " (+%u more; search finds ", kept + cut - VZ_LINKS);
        if (cut)
            exdb_buf_printf(&c->tmp, "the first %u)", kept);
        else
            exdb_buf_puts(&c->tmp, "each)");
    }
    exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
}

/* The names of the nodes at the other end of v's edges (out: its users;
 * else its inputs), the first VZ_LINKS, then "+N". */
static void json_links(gd_ctx *c, exdb_buf *b, uint32_t v, int out) {
    const uint32_t *first = out ? c->ofirst : c->ifirst, *adj = out ? c->oadj : c->iadj;
    exdb_buf_reset(&c->tmp);
    uint32_t n = first[v + 1] - first[v];
    for (uint32_t i = 0; i < n && i < VZ_LINKS; i++) {
        const vz_edge *e = &c->vg->edges[adj[first[v] + i]];
        exdb_buf_printf(&c->tmp, "%s%s", i ? " " : "", c->vg->nodes[out ? e->to : e->from].name);
    }
    if (n > VZ_LINKS)
        exdb_buf_printf(&c->tmp, " +%u", n - VZ_LINKS);
    exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
}

/* A view node's record: noderec.c's fields for an FX node (or its label's
 * and tooltip's text), then "users", "label", "inputs", module stack,
 * "style": the label when the view gave one (the box's lines), the inputs
 * its in-edges' ends (what the panel links), the module stack of an FX
 * node ("layer1.0  torchvision...BasicBlock" per line) as an index into the
 * string table (noderec.c's source table: nodes of a module share it). */
static void put_node(gd_ctx *c, exdb_buf *b, uint32_t v, const char *kind, vz_noderec *rec) {
    const vz_node *n = &c->vg->nodes[v];
    if (n->fx) {
        vz_noderec_put(rec, b, n->fx, kind, n->name, n->fill);
    } else {
        exdb_buf_printf(b, "[\"%s\",", kind);
        exdb_buf_json_str(b, n->name);
        exdb_buf_puts(b, ",\"\",\"\",");
        if (n->members)
            json_run_text(c, b, n);
        else
            json_plain(c, b, n->tooltip ? n->tooltip : n->label);
        exdb_buf_puts(b, ",0,");
        exdb_buf_json_str(b, n->fill ? n->fill : "#ffffff");
        exdb_buf_puts(b, ",\"\"");
    }
    exdb_buf_putc(b, ',');
    if (kind[0] == 'o')
        json_links(c, b, v, 1);
    else
        exdb_buf_puts(b, "\"\"");
    exdb_buf_putc(b, ',');
    json_plain(c, b, n->label);
    exdb_buf_putc(b, ',');
    json_links(c, b, v, 0);
    exdb_buf_putc(b, ',');
    exdb_buf_reset(&c->tmp);
    const exdb_meta *m = n->fx ? n->fx->meta : NULL;
    for (uint32_t i = 0; m && i < m->nstack; i++)
        if (m->stack[i].path && m->stack[i].path[0])
            exdb_buf_printf(&c->tmp, "%s%s  %s", c->tmp.len ? "\n" : "", m->stack[i].path,
                            m->stack[i].type ? m->stack[i].type : "");
    exdb_buf_printf(b, "%u,",
                    c->tmp.oom ? 0 : vz_noderec_intern(rec, exdb_buf_str(&c->tmp), c->tmp.len));
    exdb_buf_json_str(b, n->style ? n->style : "");
    exdb_buf_putc(b, ']');
}

/* An edge's label: the view's, else the value its first view edge carries. */
static void put_edge_label(gd_ctx *c, exdb_buf *b, const vz_pgedge *g) {
    const vz_edge *e = &c->vg->edges[g->first];
    const vz_node *u = &c->vg->nodes[e->from];
    exdb_buf_reset(&c->tmp);
    if (e->label)
        plain(&c->tmp, e->label);
    else if (g->nvalues > 1)
        exdb_buf_printf(&c->tmp, "%u values", g->nvalues);
    else if (u->fx && u->fx->meta && u->fx->meta->val)
        exdb_format_val(&c->tmp, u->fx->meta->val);
    exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
}

static void put_graph(gd_ctx *c, FILE *f, exdb_buf *b, uint32_t m, const uint32_t *nodes,
                      uint32_t nn, const uint32_t *edges, uint32_t ne, vz_noderec *rec) {
    fprintf(f, "<script type=\"application/json\" id=\"g%u\">{\"n\":[", m);
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
            put_node(c, b, (uint32_t)g->ref, g->kind == VZ_PG_IN ? "i" : "o", rec);
        vz_put_script_json(f, b);
    }
    fputs("],\"e\":[", f);
    for (uint32_t i = 0; i < ne; i++) {
        const vz_pgedge *g = &c->pg.edges[edges[i]];
        const vz_edge *e = &c->vg->edges[g->first];
        exdb_buf_reset(b);
        exdb_buf_printf(b, "%s[%u,%u,%u,", i ? "," : "", g->from, g->to, g->nvalues);
        put_edge_label(c, b, g);
        exdb_buf_putc(b, ',');
        exdb_buf_json_str(b, e->color ? e->color : "");
        exdb_buf_putc(b, ',');
        exdb_buf_json_str(b, e->style ? e->style : "");
        exdb_buf_putc(b, ']');
        vz_put_script_json(f, b);
    }
    fputs("]}</script>\n", f);
}

/* The module list as tree_data.c's ([fqn, class, parent, own, in all,
 * "names", "targets"]; class null), then "label" and "fill". A run box's
 * "target" is the paths it stands for, comma-separated (tree.c): the
 * page's search over targets goes to the box for any of them. */
static void put_mods(gd_ctx *c, FILE *f, exdb_buf *b, const uint32_t *nfirst,
                     const uint32_t *norder) {
    exdb_buf tg;
    exdb_buf_init(&tg);
    fputs("<script type=\"application/json\" id=\"mods\">[", f);
    for (uint32_t m = 0; m < c->pg.nmods; m++) {
        const vz_pgmod *t = &c->pg.mods[m];
        exdb_buf_reset(b);
        exdb_buf_puts(b, m ? ",[" : "[");
        exdb_buf_json_str(b, t->fqn);
        exdb_buf_printf(b, ",null,%d,%u,%u,", m ? (int)t->parent : -1, t->own, t->total);
        exdb_buf_reset(&c->tmp);
        for (uint32_t i = nfirst[m]; i < nfirst[m + 1]; i++) {
            const vz_pgnode *g = &c->pg.nodes[norder[i]];
            if (g->kind == VZ_PG_OP)
                exdb_buf_printf(&c->tmp, "%s%s", c->tmp.len ? " " : "", c->vg->nodes[g->ref].name);
        }
        exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
        exdb_buf_putc(b, ',');
        exdb_buf_reset(&c->tmp);
        for (uint32_t i = nfirst[m]; i < nfirst[m + 1]; i++) {
            const vz_pgnode *g = &c->pg.nodes[norder[i]];
            if (g->kind != VZ_PG_OP)
                continue;
            const exdb_node *fx = c->vg->nodes[g->ref].fx;
            exdb_buf_reset(&tg);
            if (fx)
                exdb_viz_short_target(&tg, fx);
            else if (c->vg->nodes[g->ref].members) /* a run box: search finds its paths */
                exdb_buf_puts(&tg, c->vg->nodes[g->ref].members);
            const char *ts = exdb_buf_str(&tg);
            exdb_buf_printf(&c->tmp, "%s%s", c->tmp.len ? " " : "",
                            ts[0] && !strchr(ts, ' ') ? ts : "-");
        }
        exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
        exdb_buf_putc(b, ',');
        exdb_buf_json_str(b, t->label ? t->label : "");
        exdb_buf_putc(b, ',');
        exdb_buf_json_str(b, t->fill ? t->fill : "");
        exdb_buf_putc(b, ']');
        vz_put_script_json(f, b);
    }
    fputs("]</script>\n", f);
    c->oom |= tg.oom;
    exdb_buf_free(&tg);
}

int vz_write_graph_data(FILE *f, const vz_graph *vg, const exdb_program *p, vz_tree_stats *st,
                        exdb_error *err) {
    gd_ctx c = {.vg = vg};
    exdb_arena_init(&c.arena);
    exdb_strmap inputs;
    exdb_strmap_init(&inputs, &c.arena);
    exdb_buf_init(&c.tmp);
    vz_pagegraph_init(&c.pg, &c.arena, &c.tmp, &c.oom);
    exdb_buf b;
    exdb_buf_init(&b);
    vz_noderec rec;
    vz_noderec_init(&rec, p, &inputs, &c.arena);
    uint32_t *nfirst = NULL, *efirst = NULL, *norder = NULL, *eorder = NULL;
    int rc = -1;
    if ((p && vz_index_inputs(&inputs, p) < 0) || gd_build(&c) < 0)
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
    if (p)
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
    free(c.ofirst);
    free(c.oadj);
    free(c.ifirst);
    free(c.iadj);
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
