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
 * edge between nodes of different modules is drawn as tree_data.c draws values: at their lowest
 * common module between the boxes holding them, and inside each box from an input node or to its
 * output node. */
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
#include "viz/graph_data.h"

enum { GN_OP, GN_CHILD, GN_IN, GN_OUT };

/* The links a node's panel lists (a hub has thousands). */
#define VZ_LINKS 64

typedef struct gmod {
    const char *fqn;   /* the cluster's name without "cluster_"; "" for the root */
    const char *label; /* the cluster's label, plain text */
    const char *fill;
    uint32_t parent, depth, own, total;
    uint32_t box, out, nloc;
} gmod;

typedef struct gnode {
    uint32_t mod;
    uint8_t kind;
    uint32_t ref; /* the view node (GN_OP, GN_IN) or the child module (GN_CHILD) */
} gnode;

typedef struct gedge {
    uint32_t mod, from, to, nvalues;
    uint32_t first, last; /* view edges carried: the first for the label and colour */
} gedge;

typedef struct gd_ctx {
    const vz_graph *vg;
    exdb_arena arena;
    gmod *mods;
    uint32_t nmods, cap_mods;
    gnode *nodes;
    uint32_t nnodes, cap_nodes;
    gedge *edges;
    uint32_t nedges, cap_edges;
    exdb_strmap keys;                        /* "i m:v" (inputs), "m:a>b" (edges) -> index + 1 */
    uint32_t *of;                            /* view node -> its module */
    uint32_t *loc;                           /* view node -> its index in its module's graph */
    uint32_t *ofirst, *oadj, *ifirst, *iadj; /* out and in edges of each view node */
    exdb_buf tmp;
    int oom;
} gd_ctx;

static int grow(void **p, uint32_t *cap, uint32_t n, size_t size) {
    if (n < *cap)
        return 0;
    void *np = exdb_grow(*p, cap, size, 256);
    if (!np)
        return -1;
    *p = np;
    return 0;
}

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
    if (grow((void **)&c->mods, &c->cap_mods, c->nmods, sizeof *c->mods) < 0) {
        c->oom = 1;
        return 0;
    }
    c->mods[c->nmods] = (gmod){.fqn = fqn,
                               .label = label,
                               .fill = fill,
                               .parent = parent,
                               .depth = parent == VZ_NONE ? 0 : c->mods[parent].depth + 1,
                               .box = VZ_NONE,
                               .out = VZ_NONE};
    return c->nmods++;
}

/* A node of module m's graph; its index in that graph. */
static uint32_t add_node(gd_ctx *c, uint32_t m, int kind, uint32_t ref) {
    if (grow((void **)&c->nodes, &c->cap_nodes, c->nnodes, sizeof *c->nodes) < 0) {
        c->oom = 1;
        return VZ_NONE;
    }
    c->nodes[c->nnodes++] = (gnode){.mod = m, .kind = (uint8_t)kind, .ref = ref};
    return c->mods[m].nloc++;
}

/* Module m's box in its parent's graph, made (with its parents') when first needed. */
static void need_box(gd_ctx *c, uint32_t m) {
    if (m == 0 || c->mods[m].box != VZ_NONE)
        return;
    need_box(c, c->mods[m].parent);
    c->mods[m].box = add_node(c, c->mods[m].parent, GN_CHILD, m);
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
            exdb_buf_printf(&c->tmp, "%s%snodes %u-%u", c->mods[k].fqn, k ? " " : "", at + 1, end);
            const char *fqn = exdb_arena_strndup(&c->arena, exdb_buf_str(&c->tmp), c->tmp.len);
            if (!fqn || c->tmp.oom) {
                c->oom = 1;
                break;
            }
            uint32_t s = add_mod(c, fqn, fqn + strlen(c->mods[k].fqn) + (k ? 1 : 0), NULL, k);
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

/* The index + 1 kept under fmt's key in keys (0: none); the slot to set. */
static void **key_slot(gd_ctx *c, const char *fmt, uint32_t m, uint32_t a, uint32_t b) {
    exdb_buf_reset(&c->tmp);
    exdb_buf_printf(&c->tmp, fmt, m, a, b);
    void **slot = exdb_strmap_find(&c->keys, exdb_buf_str(&c->tmp));
    if (slot)
        return slot;
    const char *key = exdb_arena_strndup(&c->arena, exdb_buf_str(&c->tmp), c->tmp.len);
    slot = key && !c->tmp.oom ? exdb_strmap_put(&c->keys, key, NULL) : NULL;
    if (!slot)
        c->oom = 1;
    return slot;
}

/* An edge from -> to in m's graph carrying view edge e (one per pair). */
static void add_edge(gd_ctx *c, uint32_t m, uint32_t from, uint32_t to, uint32_t e) {
    if (from == VZ_NONE || to == VZ_NONE || from == to)
        return;
    void **slot = key_slot(c, "%u:%u>%u", m, from, to);
    if (!slot)
        return;
    if (*slot) {
        gedge *g = &c->edges[(uintptr_t)*slot - 1];
        if (c->vg->edges[g->last].from != c->vg->edges[e].from)
            g->nvalues++;
        g->last = e;
        return;
    }
    if (grow((void **)&c->edges, &c->cap_edges, c->nedges, sizeof *c->edges) < 0) {
        c->oom = 1;
        return;
    }
    c->edges[c->nedges] = (gedge){m, from, to, 1, e, e};
    *slot = (void *)(uintptr_t)(++c->nedges);
}

/* The input node of view node u in module m. */
static uint32_t input_of(gd_ctx *c, uint32_t m, uint32_t u) {
    void **slot = key_slot(c, "i%u:%u", m, u, 0);
    if (!slot)
        return VZ_NONE;
    if (!*slot)
        *slot = (void *)(uintptr_t)(add_node(c, m, GN_IN, u) + 1);
    return (uint32_t)((uintptr_t)*slot - 1);
}

static uint32_t output_of(gd_ctx *c, uint32_t m) {
    if (c->mods[m].out == VZ_NONE)
        c->mods[m].out = add_node(c, m, GN_OUT, 0);
    return c->mods[m].out;
}

/* View edge e drawn between the modules of its ends (tree_data.c's link_use). */
static void link_edge(gd_ctx *c, uint32_t e) {
    uint32_t u = c->vg->edges[e].from, v = c->vg->edges[e].to;
    uint32_t a = c->of[u], b = c->of[v], ru = c->loc[u], rv = c->loc[v];
    while (a != b && !c->oom) {
        if (c->mods[a].depth >= c->mods[b].depth && a != 0) {
            add_edge(c, a, ru, output_of(c, a), e);
            ru = c->mods[a].box;
            a = c->mods[a].parent;
        } else {
            add_edge(c, b, input_of(c, b, u), rv, e);
            rv = c->mods[b].box;
            b = c->mods[b].parent;
        }
    }
    add_edge(c, a, ru, rv, e);
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
        need_box(c, m);
        c->loc[v] = add_node(c, m, GN_OP, v);
        c->mods[m].own++;
        for (uint32_t a = m; a != VZ_NONE; a = c->mods[a].parent)
            c->mods[a].total++;
    }
    for (uint32_t m = 1; m < c->nmods && !c->oom; m++)
        need_box(c, m);
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
static void put_edge_label(gd_ctx *c, exdb_buf *b, const gedge *g) {
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
        const gnode *g = &c->nodes[nodes[i]];
        exdb_buf_reset(b);
        if (i)
            exdb_buf_putc(b, ',');
        if (g->kind == GN_CHILD)
            exdb_buf_printf(b, "[\"m\",%u]", g->ref);
        else if (g->kind == GN_OUT)
            exdb_buf_puts(b, "[\"x\"]");
        else
            put_node(c, b, g->ref, g->kind == GN_IN ? "i" : "o", rec);
        vz_put_script_json(f, b);
    }
    fputs("],\"e\":[", f);
    for (uint32_t i = 0; i < ne; i++) {
        const gedge *g = &c->edges[edges[i]];
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
 * "names", "targets"]; class null), then "label" and "fill". */
static void put_mods(gd_ctx *c, FILE *f, exdb_buf *b, const uint32_t *nfirst,
                     const uint32_t *norder) {
    exdb_buf tg;
    exdb_buf_init(&tg);
    fputs("<script type=\"application/json\" id=\"mods\">[", f);
    for (uint32_t m = 0; m < c->nmods; m++) {
        const gmod *t = &c->mods[m];
        exdb_buf_reset(b);
        exdb_buf_puts(b, m ? ",[" : "[");
        exdb_buf_json_str(b, t->fqn);
        exdb_buf_printf(b, ",null,%d,%u,%u,", m ? (int)t->parent : -1, t->own, t->total);
        exdb_buf_reset(&c->tmp);
        for (uint32_t i = nfirst[m]; i < nfirst[m + 1]; i++) {
            const gnode *g = &c->nodes[norder[i]];
            if (g->kind == GN_OP)
                exdb_buf_printf(&c->tmp, "%s%s", c->tmp.len ? " " : "", c->vg->nodes[g->ref].name);
        }
        exdb_buf_json_str(b, exdb_buf_str(&c->tmp));
        exdb_buf_putc(b, ',');
        exdb_buf_reset(&c->tmp);
        for (uint32_t i = nfirst[m]; i < nfirst[m + 1]; i++) {
            const gnode *g = &c->nodes[norder[i]];
            if (g->kind != GN_OP)
                continue;
            const exdb_node *fx = c->vg->nodes[g->ref].fx;
            exdb_buf_reset(&tg);
            if (fx)
                exdb_viz_short_target(&tg, fx);
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
    exdb_strmap_init(&c.keys, &c.arena);
    exdb_strmap inputs;
    exdb_strmap_init(&inputs, &c.arena);
    exdb_buf_init(&c.tmp);
    exdb_buf b;
    exdb_buf_init(&b);
    vz_noderec rec;
    vz_noderec_init(&rec, p, &inputs, &c.arena);
    uint32_t *nfirst = NULL, *efirst = NULL, *norder = NULL, *eorder = NULL;
    int rc = -1;
    if ((p && vz_index_inputs(&inputs, p) < 0) || gd_build(&c) < 0)
        goto out;
    norder = vz_groupby_module(c.nmods, c.nnodes, c.nodes, sizeof *c.nodes, &nfirst);
    eorder = vz_groupby_module(c.nmods, c.nedges, c.edges, sizeof *c.edges, &efirst);
    if (!norder || !eorder)
        goto out;
    put_mods(&c, f, &b, nfirst, norder);
    for (uint32_t m = 0; m < c.nmods; m++)
        put_graph(&c, f, &b, m, norder + nfirst[m], nfirst[m + 1] - nfirst[m], eorder + efirst[m],
                  efirst[m + 1] - efirst[m], &rec);
    vz_noderec_put_sources(&rec, f, &b);
    if (p)
        vz_noderec_put_code(&rec, f, &b, p->graph);
    if (st) {
        st->modules = c.nmods;
        st->nodes = c.nnodes;
        st->edges = c.nedges;
    }
    rc = c.oom || b.oom || c.tmp.oom || rec.oom ? -1 : 0;
out:
    free(c.mods);
    free(c.nodes);
    free(c.edges);
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
