/* frame.c - the `frame` view: the outliner's state at the current event.
 *
 * Three clusters, each bounded so the picture stays readable on programs
 * of any size:
 *  - the frame stack (_ModuleFrame objects, outermost first), the selected
 *    frame highlighted;
 *  - a window of the flat graph around the cursor (the node run_from is
 *    at), nodes done (in seen_nodes) green, pending white, the cursor red;
 *    the nodes before and after the window collapsed into one node each;
 *  - the selected frame's graph: the nodes node_map maps the window's flat
 *    nodes to, and its last nodes, the rest collapsed.
 * node_map edges (flat node -> frame node) are blue, node_to_placeholder
 * edges purple. Frame graph nodes are named "frameK/NAME" (K the frame's
 * index) so they do not clash with the flat nodes of the same name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unflatten/unflatten.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/frame.h"
#include "viz/umodule.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/unodemap.h"
#include "core/unflatten/explain.h"
#include "core/unflatten/sink.h"

#define DEFAULT_WINDOW    12
#define FILL_DONE         "#c7e9c0"
#define FILL_CURSOR       "#fb6a4a"
#define FILL_SELECTED     "#ffeda0"
#define NODE_MAP_COLOR    "#2171b5"
#define PLACEHOLDER_COLOR "#6a51a3"

typedef struct frame_ctx {
    vz_graph *vg;
    const exdb_unflatten *u;
    const exdb_urun *r;
    exdb_buf b, t;
    uint32_t w;             /* nodes drawn either side of the cursor */
    const exdb_uframe *sel; /* the selected frame, NULL when none */
    uint32_t sel_level;     /* its #N */
    int has_cursor;         /* the flat window has a cursor node */
    uint32_t at, lo, hi;    /* cursor, first and one past the last flat node drawn */
    uint32_t *fvidx;        /* flat FX node id -> view node */
} frame_ctx;

static const char *fqn_or_root(const char *fqn) {
    return fqn && fqn[0] ? fqn : "<root>";
}

static const char *text(frame_ctx *c, const char *plain) {
    exdb_buf_reset(&c->t);
    vz_put_text(&c->t, plain, 0, 0);
    return vz_str(c->vg, &c->t);
}

static uint32_t add_cluster(frame_ctx *c, const char *name, const char *label, const char *fill) {
    uint32_t k = vz_add_cluster(c->vg, name, 0);
    if (k != VZ_NONE) {
        c->vg->clusters[k].label = text(c, label);
        c->vg->clusters[k].fill = fill;
    }
    return k;
}

/* One node per frame on the stack, outermost first, chained; named
 * "frameN" and labelled "#N" by level, as bt and `frame N` number them. */
static void draw_stack(frame_ctx *c, const exdb_uframe *sel) {
    const exdb_urun *r = c->r;
    uint32_t cl = add_cluster(c, "cluster_stack", "frame stack (innermost last)", "#f7f7f7");
    if (cl == VZ_NONE)
        return;
    uint32_t prev = VZ_NONE;
    if (!r->depth) {
        vz_node v = {.name = "frame~none",
                     .label = "no frame: outlining has not started or is over",
                     .cluster = cl,
                     .shape = "note",
                     .style = "filled",
                     .fill = "#f0f0f0"};
        vz_add_node(c->vg, &v);
        return;
    }
    for (uint32_t i = 0; i < r->depth; i++) {
        const exdb_uframe *f = r->stack[i];
        uint32_t level = r->depth - 1 - i; /* bt's #N, `frame N` selects it */
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "frame%u", level);
        vz_node v = {.name = vz_str(c->vg, &c->b), .cluster = cl, .order = i};
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "#%u %s\n", level, fqn_or_root(f->child_fqn));
        const char *type = exdb_unflatten_frame_type(c->u, f); /* as bt shows it */
        if (type[0])
            exdb_buf_printf(&c->b, "%s\n", type);
        exdb_buf_printf(&c->b, "%u node%s copied, %u node_map, %u placeholder%s", f->ncopied,
                        f->ncopied == 1 ? "" : "s", f->node_map.n, f->node_to_placeholder.n,
                        f->node_to_placeholder.n == 1 ? "" : "s");
        v.label = text(c, exdb_buf_str(&c->b));
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "#%u %s (the %u%s frame created)", level, fqn_or_root(f->child_fqn),
                        f->index + 1, exdb_ordinal_suffix(f->index + 1));
        if (f->parent)
            exdb_buf_printf(&c->b, "\nmodule id: %s\ncall %d of %s",
                            f->module_id ? f->module_id : "", f->num_calls + 1,
                            f->module_id ? f->module_id : "");
        exdb_buf_printf(&c->b, "%s%s", f->sig ? "\npreserved signature" : "",
                        f == sel ? "\n(selected: \"info frame\" describes it)" : "");
        v.tooltip = text(c, exdb_buf_str(&c->b));
        v.fill = f == sel ? FILL_SELECTED : "#ffffff";
        v.style = f == sel ? "rounded,filled,bold" : NULL;
        uint32_t k = vz_add_node(c->vg, &v);
        if (prev != VZ_NONE && k != VZ_NONE) {
            vz_edge e = {.from = prev, .to = k, .label = "calls"};
            vz_add_edge(c->vg, &e);
        }
        prev = k;
    }
}

/* An edge that keeps nodes in program order, top to bottom: without it a
 * window of placeholders (no edges among them) is laid out as one very
 * wide rank. Dotted grey, so it reads as "next" rather than dataflow. */
static void order_edge(frame_ctx *c, uint32_t from, uint32_t to) {
    if (from == VZ_NONE || to == VZ_NONE)
        return;
    vz_edge e = {
        .from = from, .to = to, .style = "dotted", .color = "#bdbdbd", .tooltip = "program order"};
    vz_add_edge(c->vg, &e);
}

/* A collapsed run of nodes, drawn as one note. */
static uint32_t collapsed(frame_ctx *c, const char *name, uint32_t cl, const char *label) {
    vz_node v = {.name = name,
                 .label = text(c, label),
                 .cluster = cl,
                 .shape = "note",
                 .style = "filled",
                 .fill = "#f0f0f0"};
    return vz_add_node(c->vg, &v);
}

/* The module a later-phase event worked on (the state right after it),
 * *mark: the node it changed when there is one. DEDUP: the parent whose
 * call_module node it redirected; SINK, IVAL, ATTRS, DISPATCH: the module
 * of their work item; STATE, REORDER, DONE (and anything not found): the
 * root. */
static const char *phase_module(const exdb_unflatten *u, const exdb_uevent *ev,
                                const exdb_node **mark) {
    const exdb_urun *r = u->run;
    const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
    const char *fqn = "";
    *mark = NULL;
    if (w && ev->kind == EXDB_EV_DEDUP && w->a >= 0 && (uint32_t)w->a < r->nparts && w->b >= 0 &&
        (uint32_t)w->b < r->parts[w->a].n) {
        const exdb_uentry *en = &r->parts[w->a].entries[w->b];
        fqn = en->parent_fqn ? en->parent_fqn : "";
        *mark = en->parent_call_module;
    } else if (w && w->name &&
               (ev->kind == EXDB_EV_SINK || ev->kind == EXDB_EV_IVAL || ev->kind == EXDB_EV_ATTRS ||
                ev->kind == EXDB_EV_DISPATCH)) {
        fqn = w->name;
    }
    if (!exdb_unflatten_module(u, fqn) && !exdb_unflatten_dispatch_call(u, fqn)) {
        fqn = "";
        *mark = NULL;
    }
    return fqn;
}

/* After outlining no frame is being filled: the stack is empty or only
 * the root's, and the flat window stays at the end. At a later-phase event
 * (IVAL ... DONE) the view draws the module that event works on, as
 * `render module` does, the node it changed in red, titled with the event.
 * 1 when drawn, 0 before the later phases, -1 on an error. */
static int draw_later_phase(vz_graph *vg, const exdb_unflatten *u, exdb_error *err) {
    if (!u->pos || u->pos > u->nlog || u->log[u->pos - 1].kind < EXDB_EV_IVAL)
        return 0;
    const exdb_uevent *ev = &u->log[u->pos - 1];
    const exdb_node *mark;
    const char *fqn = phase_module(u, ev, &mark);
    const char *event_title = vg->title;
    vz_umark mk = {.node = mark};
    if (ev->kind == EXDB_EV_SINK) {
        mk.nsink = exdb_explain_sink(u, ev, &mk.sink);
        if (mk.nsink < 0)
            mk.nsink = 0;
    }
    if (vz_view_umodule(vg, u, fqn, &mk, err) < 0)
        return -1;
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_puts(&b, event_title ? event_title : "");
    vz_put_nl(&b);
    exdb_buf_puts(&b, vg->title ? vg->title : "");
    if (mark) {
        vz_put_nl(&b);
        vz_put_text(&b, "red: the node the event changed", 0, 0);
    }
    uint32_t kept = 0, sunk = 0;
    for (int32_t i = 0; i < mk.nsink; i++) {
        kept += mk.sink[i].outcome == EXDB_SINK_KEPT;
        sunk += mk.sink[i].outcome == EXDB_SINK_GET_ATTR;
    }
    if (mk.nsink > 0) {
        vz_put_nl(&b);
        exdb_buf_printf(&b,
                        "SINK: %u placeholder%s became get_attr (bold); %u stayed input%s "
                        "(orange: the tooltip says why)",
                        sunk, sunk == 1 ? "" : "s", kept, kept == 1 ? "" : "s");
    }
    vg->title = vz_str(vg, &b);
    exdb_buf_free(&b);
    return vg->oom ? exdb_errorf(err, "render: out of memory") : 1;
}

/* The selected frame and the window of flat nodes drawn: w either side
 * of the cursor, or the last 2w nodes when the body has been walked. */
static void frame_window(frame_ctx *c, const exdb_viz_source *src, const exdb_viz_view *view) {
    const exdb_urun *r = c->r;
    c->w = view->window > 0 ? (uint32_t)view->window : DEFAULT_WINDOW;
    if (r->depth) {
        c->sel_level = src->frame_level < r->depth ? src->frame_level : 0;
        c->sel = r->stack[r->depth - 1 - c->sel_level];
    }
    uint32_t w = c->w;
    c->has_cursor = r->phase <= EXDB_UPH_BODY && r->idx < r->nnodes;
    c->at = c->has_cursor ? r->idx : r->nnodes;
    c->lo = c->at > w ? c->at - w : 0;
    c->hi = c->at + w + 1 < r->nnodes ? c->at + w + 1 : r->nnodes;
    if (!c->has_cursor)
        c->lo = r->nnodes > 2 * w ? r->nnodes - 2 * w : 0;
}

/* The title: the event just applied (and the error the run stopped at). */
static void frame_title(frame_ctx *c, const exdb_viz_source *src) {
    const exdb_unflatten *u = c->u;
    exdb_buf_reset(&c->b);
    exdb_buf_printf(&c->b, "%s: outliner state after event %u",
                    src->prog && src->prog->path ? src->prog->path : "program", u->pos);
    if (u->pos) {
        exdb_buf_puts(&c->b, ": ");
        exdb_unflatten_describe(&c->b, u, &u->log[u->pos - 1]);
    }
    if (u->failed)
        exdb_buf_printf(&c->b, "\nstopped at an error: %s", u->err.msg);
    vz_set_title(c->vg, exdb_buf_str(&c->b));
    c->vg->oom |= c->b.oom; /* a title cut short is no picture of this event */
}

/* The flat window's nodes in program order (done green, pending white,
 * the cursor red), the nodes before and after it collapsed, and the
 * dataflow among them. Fills c->fvidx; -1 when out of memory. */
static int draw_flat_window(frame_ctx *c) {
    const exdb_urun *r = c->r;
    vz_graph *vg = c->vg;
    uint32_t lo = c->lo, hi = c->hi, at = c->at;
    exdb_buf_reset(&c->b);
    exdb_buf_printf(&c->b, "flat graph: nodes %u..%u of %u", lo, hi ? hi - 1 : 0, r->nnodes);
    if (c->has_cursor)
        exdb_buf_printf(&c->b, ", cursor at %u (%s)", at, r->nodes[at]->name);
    uint32_t fcl = add_cluster(c, "cluster_flat", exdb_buf_str(&c->b), "#ffffff");
    c->fvidx = malloc(((size_t)r->flat->next_id + 1) * sizeof *c->fvidx);
    if (!c->fvidx || fcl == VZ_NONE)
        return -1;
    for (uint32_t i = 0; i <= r->flat->next_id; i++)
        c->fvidx[i] = VZ_NONE;
    uint32_t before = VZ_NONE, after = VZ_NONE;
    if (lo) {
        uint32_t done = 0;
        for (uint32_t i = 0; i < lo; i++)
            done += r->seen[r->nodes[i]->id] != 0;
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "%u earlier node%s (%u done)", lo, lo == 1 ? "" : "s", done);
        before = collapsed(c, "flat~before", fcl, exdb_buf_str(&c->b));
    }
    uint32_t prev = before;
    for (uint32_t i = lo; i < hi; i++) {
        const exdb_node *n = r->nodes[i];
        int done = r->seen[n->id] != 0;
        int cursor = i == at && c->has_cursor;
        vz_node v = {.name = n->name, .fx = n, .cluster = fcl, .order = i};
        v.fill = cursor ? FILL_CURSOR : done ? FILL_DONE : "#ffffff";
        v.style = cursor ? "rounded,filled,bold" : NULL;
        v.kind_line = cursor ? "<- cursor" : done ? "done" : "pending";
        c->fvidx[n->id] = vz_add_node(vg, &v);
        order_edge(c, prev, c->fvidx[n->id]);
        prev = c->fvidx[n->id];
    }
    if (hi < r->nnodes) {
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "%u later node%s (pending)", r->nnodes - hi,
                        r->nnodes - hi == 1 ? "" : "s");
        after = collapsed(c, "flat~after", fcl, exdb_buf_str(&c->b));
    }
    order_edge(c, prev, after);
    vz_link_graph(vg, r->flat, c->fvidx);
    return 0;
}

/* Marks in pick the nodes of the selected frame's graph g to draw: those
 * node_map or node_to_placeholder maps the window's flat nodes to, and the
 * graph's last 2w nodes. node_map values may have been erased from the
 * graph since (the later phases sink placeholders): only nodes still
 * listed in g are picked. */
static void pick_frame_nodes(frame_ctx *c, const exdb_graph *g, uint8_t *pick) {
    const exdb_uframe *sel = c->sel;
    for (uint32_t i = c->lo; i < c->hi; i++) {
        exdb_node *k = c->r->nodes[i];
        const exdb_node *m = exdb_unflatten_mapped(&sel->node_map, k);
        const exdb_node *p = exdb_unflatten_mapped(&sel->node_to_placeholder, k);
        if (m && m->graph == g)
            pick[m->id] = 1;
        if (p && p->graph == g)
            pick[p->id] = 1;
    }
    uint32_t idx = 0;
    for (const exdb_node *n = g->head; n; n = n->next, idx++)
        if (idx + 2 * c->w >= g->count || pick[n->id])
            pick[n->id] = 1;
}

/* The picked nodes of g in a cluster of their own, named "frameK/NAME",
 * the others collapsed into one note; fills gvidx. */
static void draw_frame_nodes(frame_ctx *c, const exdb_graph *g, const uint8_t *pick,
                             uint32_t *gvidx) {
    vz_graph *vg = c->vg;
    exdb_buf_reset(&c->b);
    exdb_buf_printf(&c->b, "#%u %s: its graph (%u node%s)", c->sel_level,
                    fqn_or_root(c->sel->child_fqn), g->count, g->count == 1 ? "" : "s");
    uint32_t gcl = add_cluster(c, "cluster_frame", exdb_buf_str(&c->b), "#fffbea");
    uint32_t idx = 0;
    uint32_t skipped = 0, gprev = VZ_NONE;
    for (const exdb_node *n = g->head; n; n = n->next, idx++) {
        if (!pick[n->id]) {
            skipped++;
            continue;
        }
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "frame%u/%s", c->sel_level, n->name);
        vz_node v = {.name = vz_unique_name(vg, vz_str(vg, &c->b)),
                     .fx = n,
                     .cluster = gcl == VZ_NONE ? 0 : gcl,
                     .order = idx};
        v.fill = vz_op_fill(n);
        if (n->op == EXDB_OP_PLACEHOLDER) {
            v.shape = "ellipse";
            v.style = "filled";
            v.fill = vz_input_fill(EXDB_IN_USER_INPUT);
        }
        gvidx[n->id] = vz_add_node(vg, &v);
        order_edge(c, gprev, gvidx[n->id]);
        gprev = gvidx[n->id];
    }
    if (skipped) {
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "%u other node%s of this frame", skipped, skipped == 1 ? "" : "s");
        collapsed(c, "frame~rest", gcl == VZ_NONE ? 0 : gcl, exdb_buf_str(&c->b));
    }
}

/* The node_map (blue) and node_to_placeholder (purple) edges of the
 * window's flat nodes, between nodes both drawn. */
static void draw_map_edges(frame_ctx *c, const exdb_graph *g, const uint32_t *gvidx) {
    const exdb_uframe *sel = c->sel;
    for (uint32_t i = c->lo; i < c->hi; i++) {
        exdb_node *k = c->r->nodes[i];
        const exdb_node *m = exdb_unflatten_mapped(&sel->node_map, k);
        const exdb_node *p = exdb_unflatten_mapped(&sel->node_to_placeholder, k);
        if (c->fvidx[k->id] == VZ_NONE)
            continue;
        if (m && m->graph == g && gvidx[m->id] != VZ_NONE) {
            vz_edge e = {.from = c->fvidx[k->id],
                         .to = gvidx[m->id],
                         .style = "dashed",
                         .color = NODE_MAP_COLOR,
                         .tooltip = "node_map"};
            vz_add_edge(c->vg, &e);
        }
        if (p && p->graph == g && gvidx[p->id] != VZ_NONE && p != m) {
            vz_edge e = {.from = c->fvidx[k->id],
                         .to = gvidx[p->id],
                         .style = "dashed",
                         .color = PLACEHOLDER_COLOR,
                         .tooltip = "node_to_placeholder"};
            vz_add_edge(c->vg, &e);
        }
    }
}

/* The selected frame's graph: its mapped nodes and its tail, their
 * dataflow and the map edges from the flat window. -1 when out of memory. */
static int draw_frame_graph(frame_ctx *c) {
    if (!c->sel || !c->sel->graph)
        return 0;
    const exdb_graph *g = c->sel->graph;
    uint8_t *pick = calloc((size_t)g->next_id + 1, 1);
    uint32_t *gvidx = malloc(((size_t)g->next_id + 1) * sizeof *gvidx);
    if (!pick || !gvidx) {
        free(pick);
        free(gvidx);
        return -1;
    }
    /* nodes not drawn (or erased from g since) stay VZ_NONE */
    for (uint32_t i = 0; i <= g->next_id; i++)
        gvidx[i] = VZ_NONE;
    pick_frame_nodes(c, g, pick);
    draw_frame_nodes(c, g, pick, gvidx);
    vz_link_graph(c->vg, g, gvidx);
    draw_map_edges(c, g, gvidx);
    free(pick);
    free(gvidx);
    return 0;
}

static void frame_ctx_free(frame_ctx *c) {
    free(c->fvidx);
    exdb_buf_free(&c->b);
    exdb_buf_free(&c->t);
}

int vz_view_frame(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                  exdb_error *err) {
    const exdb_unflatten *u = src->cur;
    if (!u || !u->run)
        return exdb_errorf(err, "render: no unflatten run");
    frame_ctx c = {.vg = vg, .u = u, .r = u->run};
    exdb_buf_init(&c.b);
    exdb_buf_init(&c.t);
    frame_window(&c, src, view);
    frame_title(&c, src);
    int later = draw_later_phase(vg, u, err);
    if (later != 0) {
        frame_ctx_free(&c);
        if (later > 0 && vg->oom)
            return exdb_errorf(err, "render: out of memory");
        return later < 0 ? -1 : 0;
    }
    draw_stack(&c, c.sel);
    if (draw_flat_window(&c) < 0 || draw_frame_graph(&c) < 0) {
        frame_ctx_free(&c);
        return exdb_errorf(err, "render: out of memory");
    }
    /* text cut short in a scratch buffer (copied with vz_put_text) fails too */
    vg->oom |= c.b.oom || c.t.oom;
    frame_ctx_free(&c);
    return vg->oom ? exdb_errorf(err, "render: out of memory") : 0;
}
