/* diff.c - the `diff` view (`render diff FILE -o d.svg`): program B's flat
 * graph with A's removed nodes drawn beside it, coloured by the program
 * diff (core/export/diff.h): added green, removed red (dashed), changed
 * orange, renamed nodes saying their old name. Edges are B's, plus each
 * removed node's inputs and users through the match. --hide leaves out
 * what it does in the flat view, on both sides (a hidden getitem's users
 * read its producer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/diff.h"
#include "viz/view.h"
#include "viz/diff.h"
#include "viz/flat.h"
#include "viz/hide.h"

#define ADDED_FILL   "#a1d99b"
#define REMOVED_FILL "#fc9272"
#define CHANGED_FILL "#fdae6b"
#define ADDED_EDGE   "#238b45"
#define REMOVED_EDGE "#cb181d"

typedef struct diff_view {
    vz_graph *vg;
    const exdb_program_diff *d;
    uint32_t *vb;   /* B node id -> view node */
    uint32_t *va;   /* A node id -> view node of a removed node */
    uint8_t *state; /* B node id -> 1 added, 2 changed */
    const exdb_node *cur;
    int cur_removed;        /* cur is a removed node of A */
    uint8_t *hid_a, *hid_b; /* --hide: node id -> VZ_HIDDEN_*, NULL when nothing is */
    uint32_t nhidden[VZ_HIDDEN_KINDS];
    exdb_buf tmp;
} diff_view;

/* "changed: target, value" or "was add_3" (plain text) for a matched pair. */
static const char *pair_line(diff_view *c, const exdb_diff_pair *p) {
    exdb_buf *b = &c->tmp;
    exdb_buf_reset(b);
    static const struct {
        uint32_t bit;
        const char *name;
    } bits[] = {{EXDB_DIFF_TARGET, "target"},
                {EXDB_DIFF_ARGS, "args"},
                {EXDB_DIFF_KWARGS, "kwargs"},
                {EXDB_DIFF_VALUE, "value"},
                {EXDB_DIFF_MODULE, "module"}};
    for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
        if (p->what & bits[i].bit)
            exdb_buf_printf(b, "%s%s", b->len ? ", " : "changed: ", bits[i].name);
    if (p->what & EXDB_DIFF_NAME)
        exdb_buf_printf(b, "%swas %s", b->len ? "; " : "", p->a->name);
    return b->len ? vz_str(c->vg, b) : NULL;
}

static uint32_t add_node(diff_view *c, const exdb_node *n, const char *name, const char *fill,
                         const char *line, int dashed) {
    vz_node v = {.name = name, .order = c->vg->nnodes, .fill = fill, .fx = n, .kind_line = line};
    if (n->op == EXDB_OP_PLACEHOLDER) {
        v.shape = "ellipse";
        v.style = dashed ? "filled,dashed" : "filled";
        if (!fill)
            v.fill = "#f0f0f0";
    } else if (n->op == EXDB_OP_OUTPUT) {
        v.shape = "invhouse";
        v.style = "filled";
        if (!fill)
            v.fill = "#9ecae1";
    } else if (dashed) {
        v.style = "rounded,filled,dashed";
    }
    if (!v.fill)
        v.fill = vz_op_fill(n);
    return vz_add_node(c->vg, &v);
}

/* The view node of an input of cur: its own (a removed A node's input
 * through the match when it has one). */
static uint32_t input_view(diff_view *c, const exdb_node *u) {
    /* a getitem --hide getitems leaves out: its users read its producer */
    const uint8_t *hid = c->cur_removed ? c->hid_a : c->hid_b;
    long long index;
    for (const exdb_node *s;
         hid && hid[u->id] == VZ_HIDDEN_GETITEM && (s = vz_getitem_source(u, &index));)
        u = s;
    if (!c->cur_removed)
        return c->vb[u->id];
    const exdb_node *m = c->d->a_to_b[u->id];
    return m ? c->vb[m->id] : c->va[u->id];
}

static void link(void *ctx, exdb_node *u) {
    diff_view *c = ctx;
    vz_edge e = {.from = input_view(c, u),
                 .to = c->cur_removed ? c->va[c->cur->id] : c->vb[c->cur->id]};
    if (e.from == VZ_NONE || e.to == VZ_NONE)
        return;
    if (c->cur_removed) {
        e.color = REMOVED_EDGE;
        e.style = "dashed";
    } else if (c->state[c->cur->id] == 1) {
        e.color = ADDED_EDGE;
    }
    vz_add_edge(c->vg, &e);
}

/* The edges from removed A node a to its users that B has (dashed red). */
static void link_removed_users(diff_view *c, const exdb_node *a) {
    for (uint32_t i = 0; i < a->nusers; i++) {
        const exdb_node *m = c->d->a_to_b[a->users[i]->id];
        if (!m || c->vb[m->id] == VZ_NONE)
            continue;
        vz_edge e = {
            .from = c->va[a->id], .to = c->vb[m->id], .color = REMOVED_EDGE, .style = "dashed"};
        vz_add_edge(c->vg, &e);
    }
}

static int build(diff_view *c) {
    const exdb_program_diff *d = c->d;
    const exdb_graph *ga = d->a->graph, *gb = d->b->graph;
    for (uint32_t i = 0; i < d->nadded; i++)
        c->state[d->added[i]->id] = 1;
    for (uint32_t i = 0; i < d->nchanged; i++)
        c->state[d->changed[i].b->id] = 2;
    /* matched B node id -> its pair, for the label line */
    const exdb_diff_pair **pairs = calloc((size_t)gb->next_id + 1, sizeof *pairs);
    if (!pairs)
        return -1;
    for (uint32_t i = 0; i < d->nchanged; i++)
        pairs[d->changed[i].b->id] = &d->changed[i];
    for (uint32_t i = 0; i < d->nrenamed; i++)
        pairs[d->renamed[i].b->id] = &d->renamed[i];
    /* B's nodes in order, each removed A node right after the B node its
     * predecessor in A matched (so it sits near where it was) */
    for (const exdb_node *a = ga->head; a; a = a->next)
        c->va[a->id] = VZ_NONE;
    for (const exdb_node *b = gb->head; b; b = b->next) {
        uint8_t st = c->state[b->id];
        if (c->hid_b && c->hid_b[b->id]) {
            c->vb[b->id] = VZ_NONE;
            continue;
        }
        const char *line = st == 1 ? "added" : pairs[b->id] ? pair_line(c, pairs[b->id]) : NULL;
        c->vb[b->id] = add_node(c, b, b->name,
                                st == 1   ? ADDED_FILL
                                : st == 2 ? CHANGED_FILL
                                          : NULL,
                                line, 0);
    }
    for (uint32_t i = 0; i < d->nremoved; i++) {
        const exdb_node *a = d->removed[i];
        if (c->hid_a && c->hid_a[a->id])
            continue;
        exdb_buf_reset(&c->tmp);
        exdb_buf_printf(&c->tmp, "removed:%s", a->name);
        const char *base = vz_str(c->vg, &c->tmp); /* vz_unique_name keeps base as it is */
        const char *name = base ? vz_unique_name(c->vg, base) : NULL;
        c->va[a->id] = name ? add_node(c, a, name, REMOVED_FILL, "removed", 1) : VZ_NONE;
    }
    free(pairs);
    for (const exdb_node *b = gb->head; b; b = b->next) {
        if (c->vb[b->id] == VZ_NONE)
            continue;
        c->cur = b;
        c->cur_removed = 0;
        exdb_node_foreach_input((exdb_node *)b, link, c);
    }
    for (uint32_t i = 0; i < d->nremoved; i++) {
        c->cur = d->removed[i];
        if (c->va[c->cur->id] == VZ_NONE)
            continue;
        c->cur_removed = 1;
        exdb_node_foreach_input((exdb_node *)c->cur, link, c);
        link_removed_users(c, c->cur);
    }
    return 0;
}

int vz_view_diff(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err) {
    const exdb_program_diff *d = src->diff;
    if (!d)
        return exdb_errorf(err, "render: no diff to draw (run \"diff FILE\" first)");
    diff_view c = {.vg = vg, .d = d};
    exdb_arena ar;
    exdb_arena_init(&ar);
    exdb_strmap in_a, in_b;
    exdb_strmap_init(&in_a, &ar);
    exdb_strmap_init(&in_b, &ar);
    int hide_oom = 0;
    if (view->hide) {
        uint32_t counts_a[VZ_HIDDEN_KINDS];
        hide_oom = vz_index_inputs(&in_a, d->a) < 0 || vz_index_inputs(&in_b, d->b) < 0 ||
                   !(c.hid_a = vz_hidden_nodes(d->a, &in_a, view->hide, counts_a)) ||
                   !(c.hid_b = vz_hidden_nodes(d->b, &in_b, view->hide, c.nhidden));
    }
    c.vb = malloc(((size_t)d->b->graph->next_id + 1) * sizeof *c.vb);
    c.va = malloc(((size_t)d->a->graph->next_id + 1) * sizeof *c.va);
    c.state = calloc((size_t)d->b->graph->next_id + 1, 1);
    exdb_buf_init(&c.tmp);
    int rc = !hide_oom && c.vb && c.va && c.state &&
                     vz_reserve(vg, d->b->graph->count + d->nremoved, d->b->graph->count * 2) == 0
                 ? build(&c)
                 : -1;
    if (rc == 0) {
        exdb_buf t;
        exdb_buf_init(&t);
        exdb_buf_printf(&t, "diff %s -> %s: %u node%s added, %u removed, %u changed, %u renamed",
                        d->a->path ? d->a->path : "A", d->b->path ? d->b->path : "B", d->nadded,
                        d->nadded == 1 ? "" : "s", d->nremoved, d->nchanged, d->nrenamed);
        vz_hidden_title(&t, c.nhidden);
        vz_set_title(vg, exdb_buf_str(&t));
        rc = t.oom ? -1 : 0;
        exdb_buf_free(&t);
    }
    rc |= c.tmp.oom ? -1 : 0;
    exdb_buf_free(&c.tmp);
    free(c.vb);
    free(c.va);
    free(c.state);
    free(c.hid_a);
    free(c.hid_b);
    exdb_arena_destroy(&ar);
    if (rc < 0 || vg->oom)
        return exdb_errorf(err, "render: out of memory");
    return 0;
}
