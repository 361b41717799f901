/* emit.c - a view graph into cgraph.
 *
 * Two things here keep big export graphs drawable (measurements in
 * docs/user-needs-and-peers.md §4.3, Graphviz 2.43):
 *  - A node with many far-away uses (an attention mask, a buffer fed to every
 *    layer, the output node of a model with a mutation per layer) makes dot's
 *    position phase explode (>120 s for 20 long edges on a 1,000-node chain);
 *    one dashed copy per far use draws in 0.25 s. So such nodes get copies.
 *  - Sibling clusters and rank pairs are grouped under invisible subgraphs
 *    (subgplan.c), so writing DOT stays linear.
 * DOT text is written by dotwrite.c from the same view graph and plan;
 * this cgraph graph is what images are laid out from, and what agwrite
 * writes when dotwrite.c declines a graph (see vz_dot_write). */
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/view.h"
#include "viz/cgdisc.h"
#include "viz/emit.h"
#include "viz/flat.h"
#include "viz/subgplan.h"
#include "viz/xmlsafe.h"

/* Attribute symbols, declared once so every set is an agxset by symbol. */
typedef struct syms {
    Agsym_t *g_label, *g_tooltip, *g_fill, *g_style, *g_id, *g_rankdir;
    Agsym_t *n_label, *n_tooltip, *n_fill, *n_style, *n_shape, *n_id;
    Agsym_t *e_label, *e_color, *e_style, *e_tooltip, *e_fontcolor, *e_minlen;
} syms;

/* Scratch for the XML-safe copy of a name or text (xmlsafe.h): cgraph
 * copies what it is given, so one buffer serves every call. */
static exdb_buf xml_scratch;

static char *xml_ok(const char *v) {
    return (char *)vz_xml_safe(v, &xml_scratch);
}

static void set(void *obj, Agsym_t *sym, const char *v) {
    if (v)
        agxset(obj, sym, xml_ok(v));
}

/* Gives every node with more than set->dup_fanout uses one dashed copy per
 * use that lies further than set->dup_span away in program order, and the
 * same for many far-away inputs (the output node): the copy sits in the
 * cluster of the other end, so each long edge becomes a short one. */
/* The hub end of edge e (its other end in *other), or VZ_NONE when e is
 * short or joins no hub (see duplicate_hubs). */
static uint32_t hub_of(const vz_graph *vg, const vz_edge *e, const exdb_viz_settings *set,
                       const uint32_t *outdeg, const uint32_t *indeg, uint32_t *other) {
    uint32_t f = e->from, t = e->to;
    uint32_t of = vg->nodes[f].order, ot = vg->nodes[t].order;
    uint32_t dist = of > ot ? of - ot : ot - of;
    if (dist <= set->dup_span)
        return VZ_NONE;
    if (vg->nodes[f].dup_ok && outdeg[f] > set->dup_fanout) {
        *other = t;
        return f;
    }
    if (vg->nodes[t].dup_ok && indeg[t] > set->dup_fanout) {
        *other = f;
        return t;
    }
    return VZ_NONE;
}

static int duplicate_hubs(vz_graph *vg, const exdb_viz_settings *set, uint32_t *ndup) {
    uint32_t n0 = vg->nnodes;
    uint32_t *deg = calloc((size_t)n0 * 2 + 1, sizeof *deg);
    if (!deg)
        return -1;
    uint32_t *outdeg = deg, *indeg = deg + n0;
    for (uint32_t i = 0; i < vg->nedges; i++) {
        outdeg[vg->edges[i].from]++;
        indeg[vg->edges[i].to]++;
    }
    uint32_t ncopies = 0, other;
    for (uint32_t i = 0; i < vg->nedges; i++)
        ncopies += hub_of(vg, &vg->edges[i], set, outdeg, indeg, &other) != VZ_NONE;
    if (vz_reserve(vg, ncopies, 0) < 0) {
        free(deg);
        return -1;
    }
    exdb_buf b;
    exdb_buf_init(&b);
    for (uint32_t i = 0; i < vg->nedges; i++) {
        vz_edge *e = &vg->edges[i];
        uint32_t hub = hub_of(vg, e, set, outdeg, indeg, &other);
        if (hub == VZ_NONE)
            continue;
        vz_node c = vg->nodes[hub];
        exdb_buf_reset(&b);
        exdb_buf_printf(&b, "%s~%u", c.name, ++vg->nodes[hub].ncopies);
        c.name = vz_unique_name(vg, vz_str(vg, &b));
        exdb_buf_reset(&b);
        exdb_buf_printf(&b, "%s,dashed", c.style ? c.style : "rounded,filled");
        c.style = vz_str(vg, &b);
        c.cluster = vg->nodes[other].cluster;
        c.order = vg->nodes[other].order;
        c.dup_ok = 0;
        c.rank_with = 0;
        uint32_t k = vz_add_node(vg, &c);
        if (k == VZ_NONE) {
            exdb_buf_free(&b);
            free(deg);
            return -1;
        }
        vg->nodes[k].copy_of = hub;
        if (hub == e->from)
            e->from = k;
        else
            e->to = k;
        (*ndup)++;
    }
    exdb_buf_free(&b);
    free(deg);
    return vg->oom ? -1 : 0;
}

typedef struct emitter {
    vz_graph *vg;
    Agraph_t *g;
    Agraph_t **sub; /* per plan entry (subgplan.h) */
    syms s;
    Agnode_t **an; /* node i's cgraph node */
} emitter;

/* Makes plan entries [from, to) under their parents: a cluster with its
 * attributes, a rank pair with both its nodes. */
static int make_subgraphs(emitter *em, const vz_plan *pl, uint32_t from, uint32_t to) {
    char buf[32];
    for (uint32_t i = from; i < to; i++) {
        const vz_subg *e = &pl->s[i];
        Agraph_t *sg = agsubg(em->sub[e->parent], xml_ok(vz_plan_name(pl, em->vg, i, buf)), 1);
        if (!(em->sub[i] = sg))
            return -1;
        if (e->cluster != VZ_NONE) {
            const vz_cluster *vc = &em->vg->clusters[e->cluster];
            set(sg, em->s.g_label, vc->label);
            set(sg, em->s.g_tooltip, vc->tooltip ? vc->tooltip : vc->label);
            set(sg, em->s.g_fill, vc->fill);
            set(sg, em->s.g_style, "rounded,filled");
            set(sg, em->s.g_id, vc->name);
        } else if (e->rank != VZ_NONE) {
            agsafeset(sg, "rank", "same", "");
            agsubnode(sg, em->an[e->rank], 1);
            agsubnode(sg, em->an[em->vg->nodes[e->rank].rank_with - 1], 1);
        }
    }
    return 0;
}

static void declare(emitter *em) {
    Agraph_t *g = em->g;
    syms *s = &em->s;
    agattr(g, AGRAPH, "fontname", VZ_FONT);
    agattr(g, AGRAPH, "fontsize", "11");
    agattr(g, AGRAPH, "labeljust", "l");
    s->g_rankdir = agattr(g, AGRAPH, "rankdir", "TB");
    s->g_label = agattr(g, AGRAPH, "label", "");
    s->g_tooltip = agattr(g, AGRAPH, "tooltip", "");
    s->g_fill = agattr(g, AGRAPH, "fillcolor", "");
    s->g_style = agattr(g, AGRAPH, "style", "");
    s->g_id = agattr(g, AGRAPH, "id", "");
    agattr(g, AGNODE, "fontname", VZ_FONT);
    agattr(g, AGNODE, "fontsize", "10");
    agattr(g, AGNODE, "margin", "0.06,0.03");
    s->n_shape = agattr(g, AGNODE, "shape", "box");
    s->n_style = agattr(g, AGNODE, "style", "rounded,filled");
    s->n_fill = agattr(g, AGNODE, "fillcolor", "white");
    s->n_label = agattr(g, AGNODE, "label", "\\N");
    s->n_tooltip = agattr(g, AGNODE, "tooltip", "");
    s->n_id = agattr(g, AGNODE, "id", "");
    agattr(g, AGEDGE, "fontname", VZ_FONT);
    agattr(g, AGEDGE, "fontsize", "9");
    s->e_label = agattr(g, AGEDGE, "label", "");
    s->e_color = agattr(g, AGEDGE, "color", "");
    s->e_fontcolor = agattr(g, AGEDGE, "fontcolor", "");
    s->e_style = agattr(g, AGEDGE, "style", "");
    s->e_tooltip = agattr(g, AGEDGE, "tooltip", "");
    s->e_minlen = agattr(g, AGEDGE, "minlen", "1");
}

int vz_duplicate(vz_graph *vg, const exdb_viz_settings *set_, int no_dup, exdb_viz_stats *st,
                 exdb_error *err) {
    uint32_t real = vg->nnodes, ndup = 0;
    if (!no_dup && set_->dup_fanout && duplicate_hubs(vg, set_, &ndup) < 0)
        return exdb_errorf(err, "render: out of memory");
    if (st) {
        st->real_nodes = real;
        st->dup_nodes = ndup;
    }
    return 0;
}

/* Upper bounds of the number of names vz_emit gives cgraph and of their
 * summed length: nodes, clusters, groups (fewer than clusters: each holds
 * two or more) and rank subgraphs, whose names are short. */
static void count_names(const vz_graph *vg, size_t *count, size_t *bytes) {
    size_t n = 0, len = 0;
    for (uint32_t i = 0; i < vg->nnodes; i++) {
        len += strlen(vg->nodes[i].name);
        if (vg->nodes[i].rank_with) {
            n++;
            len += 16;
        }
    }
    for (uint32_t c = 1; c < vg->nclusters; c++)
        len += strlen(vg->clusters[c].name) + 16;
    *count = n + vg->nnodes + 2 * (size_t)vg->nclusters;
    *bytes = len;
}

/* Sets the label and tooltip of every node. The dashed copies of a hub
 * show the same FX node as the hub, so its tooltip is made once and passed
 * again (cgraph then only counts one more reference): the output node of
 * the 100k synthetic program has 1,785 copies, and formatting its
 * 1,786-value return tuple for each took a tenth of a second. */
static int set_texts(emitter *em, Agnode_t **an) {
    vz_graph *vg = em->vg;
    char **tips = calloc((size_t)vg->nnodes + 1, sizeof *tips);
    if (!tips)
        return -1;
    exdb_buf lab, tip, tmp;
    exdb_buf_init(&lab);
    exdb_buf_init(&tip);
    exdb_buf_init(&tmp);
    for (uint32_t i = 0; i < vg->nnodes; i++) {
        const vz_node *v = &vg->nodes[i];
        exdb_buf_reset(&lab);
        vz_node_label_to(&lab, v, &tmp);
        set(an[i], em->s.n_label, lab.len ? exdb_buf_str(&lab) : NULL);
        uint32_t hub = v->copy_of != VZ_NONE ? v->copy_of : v->ncopies ? i : VZ_NONE;
        const char *t;
        if (hub != VZ_NONE && tips[hub]) {
            t = tips[hub];
        } else {
            exdb_buf_reset(&tip);
            vz_node_tooltip_to(&tip, v, &tmp);
            t = exdb_buf_str(&tip);
            if (hub != VZ_NONE)
                tips[hub] = agstrdup(em->g, xml_ok(t));
        }
        set(an[i], em->s.n_tooltip, t[0] ? t : NULL);
    }
    for (uint32_t i = 0; i < vg->nnodes; i++)
        if (tips[i])
            agstrfree(em->g, tips[i]);
    free(tips);
    int oom = lab.oom || tip.oom || tmp.oom;
    exdb_buf_free(&lab);
    exdb_buf_free(&tip);
    exdb_buf_free(&tmp);
    return oom ? -1 : 0;
}

static Agraph_t *fail(emitter *em, vz_plan *pl, Agnode_t **an, exdb_error *err) {
    exdb_buf_free(&xml_scratch);
    vz_close(em->g);
    vz_plan_free(pl);
    free(em->sub);
    free(an);
    exdb_errorf(err, "render: out of memory");
    return NULL;
}

Agraph_t *vz_emit(vz_graph *vg, int layout, exdb_viz_stats *st, exdb_error *err) {
    emitter em = {.vg = vg};
    vz_plan pl = {0};
    if (layout) {
        em.g = agopen("exdb", Agdirected, NULL);
    } else {
        size_t count, bytes;
        count_names(vg, &count, &bytes);
        em.g = vz_cg_open("exdb", count, bytes);
    }
    Agnode_t **an = malloc(((size_t)vg->nnodes + 1) * sizeof *an);
    if (!em.g || !an || vz_plan_make(&pl, vg, layout) < 0 ||
        !(em.sub = calloc(pl.n, sizeof *em.sub)))
        return fail(&em, &pl, an, err);
    em.sub[0] = em.g;
    declare(&em);
    set(em.g, em.s.g_label, vg->title);
    set(em.g, em.s.g_rankdir, vg->rankdir);
    if (vg->ordering)
        agattr(em.g, AGRAPH, "ordering", (char *)vg->ordering);
    if (vg->newrank)
        agattr(em.g, AGRAPH, "newrank", "true");
    if (make_subgraphs(&em, &pl, 1, pl.first_rank) < 0)
        return fail(&em, &pl, an, err);
    for (uint32_t i = 0; i < vg->nnodes; i++) {
        const vz_node *v = &vg->nodes[i];
        Agnode_t *n = agnode(em.sub[pl.of_cluster[v->cluster]], xml_ok(v->name), 1);
        if (!n)
            return fail(&em, &pl, an, err);
        an[i] = n;
        set(n, em.s.n_id, v->name);
        set(n, em.s.n_fill, v->fill);
        set(n, em.s.n_shape, v->shape);
        set(n, em.s.n_style, v->style);
    }
    if (set_texts(&em, an) < 0)
        return fail(&em, &pl, an, err);
    em.an = an;
    if (make_subgraphs(&em, &pl, pl.first_rank, pl.n) < 0)
        return fail(&em, &pl, an, err);
    for (uint32_t i = 0; i < vg->nedges; i++) {
        const vz_edge *v = &vg->edges[i];
        Agedge_t *e = agedge(em.g, an[v->from], an[v->to], NULL, 1);
        if (!e)
            return fail(&em, &pl, an, err);
        set(e, em.s.e_label, v->label);
        set(e, em.s.e_color, v->color);
        set(e, em.s.e_fontcolor, v->color);
        set(e, em.s.e_style, v->style);
        set(e, em.s.e_tooltip, v->tooltip);
        set(e, em.s.e_minlen, v->minlen);
    }
    if (xml_scratch.oom) /* a name or text was cut short */
        return fail(&em, &pl, an, err);
    exdb_buf_free(&xml_scratch);
    free(an);
    free(em.sub);
    uint32_t ngroups = pl.ngroups;
    vz_plan_free(&pl);
    if (st) {
        /* agnedges walks every node's edge set; agedge made one per edge */
        st->nodes = (uint32_t)agnnodes(em.g);
        st->edges = vg->nedges;
        st->clusters = vg->nclusters - 1;
        st->groups = ngroups;
    }
    return em.g;
}
