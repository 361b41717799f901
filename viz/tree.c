/* tree.c - the `tree` view: the unflattened module hierarchy as
 * named_modules(remove_duplicate=False) walks it, one node per module path.
 *
 * Each node says the module's class (_ty), what object it is (UnflattenedModule,
 * InterpreterModule, InterpreterModuleDispatcher, plain torch.nn.Module,
 * GraphModule), how many call sites call it and how many nodes its graph
 * has. A dispatcher gets one child node per call module (fqn, fqn@1...).
 * A module that calls were deduplicated into (_deduplicate_modules, case 1:
 * relu and relu@1 with equal graphs become one relu called twice) is bold
 * and pink, with the number of such calls. A path whose module object was
 * already met at another path (dedup case 2: set_submodule to the seen
 * module) is drawn dashed in red with an edge "same module" to the first
 * path, and its subtree is not drawn again. A run of TREE_RUN_MIN or more
 * sibling paths holding empty plain modules (no graph, submodules or
 * state: the module_call_graph entries no node runs, which
 * _reorder_submodules adds) is one box "first .. last, N empty": 40k such
 * entries drew 40k boxes of the same text, 1.4 KB of Graphviz each. The
 * box keeps the run's paths (vz_node.members, up to TREE_RUN_NAMES bytes)
 * for the HTML page: its search finds a name in the run, its panel lists
 * the first ones (graph_data.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unflatten/unflatten.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/tree.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/modtree.h"

/* Sibling paths of empty modules drawn as one box from this many on. */
#define TREE_RUN_MIN 16
/* The bytes of a run's paths its box keeps for the HTML page's search and
 * panel (40k paths "m0".."m39999" are 269 KB, "layers.0".."layers.39999"
 * 549 KB); paths past it are counted, not kept. */
#define TREE_RUN_NAMES (1024 * 1024)

typedef struct tree_ctx {
    vz_graph *vg;
    const exdb_urun *r;
    uint32_t *first; /* module id -> view node of its first path + 1 */
    uint32_t *calls; /* module id -> call sites resolving to it */
    uint32_t *dedup; /* module id -> of those, calls a DEDUP event pointed at it */
    int skipping;    /* inside the subtree of a duplicate (path in skip) */
    exdb_buf skip;   /* that duplicate's path */
    exdb_buf b, t;
    const char *under; /* draw only this module and its subtree (NULL: all) */
    size_t under_len;
    uint32_t drawn; /* module paths drawn */
    int oom;
    /* sibling paths of empty modules not drawn yet (see flush_run): the
     * first TREE_RUN_MIN are kept (fqns in run_text at run_at), the rest
     * counted into the box drawn when the run reached TREE_RUN_MIN */
    uint32_t run_n;
    size_t run_pre; /* the length of their parent path and its dot ("" at the root) */
    exdb_buf run_text;
    size_t run_at[TREE_RUN_MIN];
    exdb_umodule *run_mod[TREE_RUN_MIN];
    uint32_t run_box;   /* the run's box once drawn, else VZ_NONE */
    size_t run_last;    /* run_text offset of the last path's atom */
    exdb_buf run_names; /* the run's paths, comma-separated (vz_node.members) */
    uint32_t run_cut;   /* paths past TREE_RUN_NAMES bytes, not in run_names */
} tree_ctx;

static const char *kind_fill(const exdb_umodule *m) {
    switch (m->kind) {
    case EXDB_UMOD_ROOT:
        return "#9ecae1";
    case EXDB_UMOD_INTERP:
        return "#ffffff";
    case EXDB_UMOD_DISPATCH:
        return "#fdd49e";
    case EXDB_UMOD_GRAPH:
        return "#dadaeb";
    default:
        return "#f0f0f0";
    }
}

/* The module a call entry's call_module node calls now, resolved after
 * dedup's retargeting and dispatch (so a deduplicated call counts for the
 * module it now calls), or NULL. */
static exdb_umodule *callee(const exdb_uentry *en) {
    if (!en->parent_call_module)
        return NULL;
    const char *t = en->parent_call_module->target;
    return exdb_modtree_get_path(en->parent_module, t ? t : "");
}

/* Call sites per module (every seen_modules entry), and the calls that
 * _deduplicate_modules pointed at another call's module: the DEDUP events
 * of the run that redirected a call (same fqn) or aliased its module
 * (another fqn), counted for the module the call resolves to now. */
static void count_calls(tree_ctx *c, const exdb_unflatten *u) {
    const exdb_urun *r = c->r;
    for (uint32_t p = 0; p < r->nparts; p++)
        for (uint32_t e = 0; e < r->parts[p].n; e++) {
            exdb_umodule *m = callee(&r->parts[p].entries[e]);
            if (m && m->id < r->nmodules)
                c->calls[m->id]++;
        }
    for (uint32_t i = 0; i < u->pos && i < u->nlog; i++) {
        const exdb_uevent *ev = &u->log[i];
        if (ev->kind != EXDB_EV_DEDUP || ev->aux == 0)
            continue;
        const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
        if (!w || w->a < 0 || (uint32_t)w->a >= r->nparts || w->b < 0 ||
            (uint32_t)w->b >= r->parts[w->a].n)
            continue;
        exdb_umodule *m = callee(&r->parts[w->a].entries[w->b]);
        if (m && m->id < r->nmodules)
            c->dedup[m->id]++;
    }
}

static const char *short_type(const char *ty) {
    const char *d = ty ? strrchr(ty, '.') : NULL;
    return d ? d + 1 : ty;
}

static const char *parent_path(tree_ctx *c, const char *fqn) {
    const char *d = strrchr(fqn, '.');
    if (!d)
        return fqn[0] ? "<root>" : NULL;
    exdb_buf_reset(&c->t);
    exdb_buf_put(&c->t, fqn, (size_t)(d - fqn));
    return exdb_buf_str(&c->t);
}

/* A node for module m named name (the SVG id), labelled with atom; path:
 * the name the tooltip gives (the call name "n@1" for a dispatcher's call). */
static uint32_t add_mod_node(tree_ctx *c, const char *name, const char *path, const char *atom,
                             exdb_umodule *m, uint32_t calls, uint32_t dedup) {
    vz_graph *vg = c->vg;
    vz_node v = {.name = name, .fill = kind_fill(m), .order = vg->nnodes};
    exdb_buf_reset(&c->b);
    vz_put_text(&c->b, atom, 64, 0);
    if (m->type) {
        vz_put_nl(&c->b);
        vz_put_text(&c->b, short_type(m->type), 64, 0);
    }
    vz_put_nl(&c->b);
    exdb_buf_puts(&c->b, m->kind == EXDB_UMOD_DISPATCH ? "Dispatcher" : exdb_modtree_kind_name(m));
    if (m->kind == EXDB_UMOD_INTERP || m->kind == EXDB_UMOD_DISPATCH)
        exdb_buf_printf(&c->b, " calls=%u", calls);
    if (m->graph)
        exdb_buf_printf(&c->b, " nodes=%u", m->graph->count);
    if (dedup) {
        /* Calls whose graphs equalled this one's: _deduplicate_modules
         * pointed them here and dropped their own module. */
        vz_put_nl(&c->b);
        exdb_buf_printf(&c->b, "%u deduplicated call%s", dedup, dedup == 1 ? "" : "s");
        v.fill = "#fee0d2";
        v.style = "rounded,filled,bold";
    }
    v.label = vz_str(vg, &c->b);
    exdb_buf_reset(&c->b);
    exdb_buf_printf(&c->b, "%s\n%s #%u\ntype: %s", path, exdb_modtree_kind_name(m), m->id,
                    m->type ? m->type : "None");
    uint32_t np, nb, nc;
    exdb_modtree_count_state(m, &np, &nb, &nc);
    exdb_buf_printf(&c->b, "\nparameters=%u buffers=%u constants=%u", np, nb, nc);
    exdb_buf_reset(&c->t);
    vz_put_text(&c->t, exdb_buf_str(&c->b), 0, 0);
    v.tooltip = vz_str(vg, &c->t);
    return vz_add_node(vg, &v);
}

/* Node k is the same object as an earlier path (node first - 1): mark
 * it, link it, and skip its subtree (drawn under the first path). */
static void mark_shared(tree_ctx *c, const char *fqn, uint32_t k, uint32_t first) {
    vz_graph *vg = c->vg;
    vg->nodes[k].style = "rounded,filled,dashed";
    vg->nodes[k].fill = "#fcbba1";
    exdb_buf_reset(&c->b);
    exdb_buf_puts(&c->b, vg->nodes[k].label);
    vz_put_nl(&c->b);
    exdb_buf_puts(&c->b, "= ");
    vz_put_text(&c->b, vg->nodes[first - 1].name, 64, 0);
    exdb_buf_puts(&c->b, " (shared)");
    vg->nodes[k].label = vz_str(vg, &c->b);
    vz_edge e = {
        .from = k, .to = first - 1, .style = "dashed", .color = "#cb181d", .label = "same module"};
    vz_add_edge(vg, &e);
    exdb_buf_reset(&c->skip);
    exdb_buf_puts(&c->skip, fqn);
    c->skipping = 1;
}

/* A dispatcher's calls, one node each under the dispatcher's node k. */
static void draw_calls(tree_ctx *c, const char *fqn, uint32_t k, const exdb_umodule *m) {
    vz_graph *vg = c->vg;
    for (uint32_t i = 0; i < m->ncall_modules; i++) {
        exdb_umodule *cm = m->call_modules[i];
        /* Node "fqn#i"; the call itself is named fqn, fqn@1... (_call_name). */
        exdb_buf_reset(&c->b);
        exdb_buf_printf(&c->b, "%s#%u", fqn, i);
        const char *cname = vz_unique_name(vg, vz_str(vg, &c->b));
        exdb_buf_reset(&c->b);
        exdb_buf_puts(&c->b, fqn);
        if (i)
            exdb_buf_printf(&c->b, "@%u", i);
        const char *call = vz_str(vg, &c->b);
        exdb_buf_printf(&c->b, " (call %u of %u)", i + 1, m->ncall_modules);
        const char *catom = vz_str(vg, &c->b);
        uint32_t ck = add_mod_node(c, cname, call, catom, cm, 1, 0);
        if (ck == VZ_NONE) {
            c->oom = 1;
            return;
        }
        vz_edge e = {.from = k, .to = ck, .style = "dashed", .label = "dispatches"};
        vz_add_edge(vg, &e);
    }
}

/* One node for module path fqn, under its parent path's node. */
static void draw_path(tree_ctx *c, const char *fqn, exdb_umodule *m) {
    vz_graph *vg = c->vg;
    const char *name = "<root>";
    if (fqn[0]) {
        exdb_buf_reset(&c->b);
        exdb_buf_puts(&c->b, fqn);
        name = vz_unique_name(vg, vz_str(vg, &c->b));
    }
    const char *atom = fqn[0] ? (strrchr(fqn, '.') ? strrchr(fqn, '.') + 1 : fqn) : "<root>";
    uint32_t id = m->id < c->r->nmodules ? m->id : 0;
    uint32_t first = c->first[id];
    uint32_t k = add_mod_node(c, name, name, atom, m, c->calls[id], c->dedup[id]);
    if (k == VZ_NONE) {
        c->oom = 1;
        return;
    }
    const char *pp = parent_path(c, fqn);
    if (pp) {
        uint32_t p = vz_find(vg, pp);
        if (p != VZ_NONE) {
            vz_edge e = {.from = p, .to = k};
            vz_add_edge(vg, &e);
        }
    }
    if (first) {
        mark_shared(c, fqn, k, first);
        return;
    }
    c->first[id] = k + 1;
    c->drawn++;
    if (m->kind == EXDB_UMOD_DISPATCH)
        draw_calls(c, fqn, k, m);
}

/* A module drawn as nothing but its path: a plain torch.nn.Module with no
 * class, submodules or state, met at its first path. */
static int empty_leaf(const tree_ctx *c, const char *fqn, const exdb_umodule *m) {
    return fqn[0] && m->kind == EXDB_UMOD_PLAIN && !m->type && !m->children->live &&
           !m->attrs->live && m->id < c->r->nmodules && !c->first[m->id];
}

/* The length of fqn's parent path with its dot (0 under the root). */
static size_t prefix_len(const char *fqn) {
    const char *d = strrchr(fqn, '.');
    return d ? (size_t)(d - fqn) + 1 : 0;
}

/* The box of a run that reached TREE_RUN_MIN paths, under the parent's
 * node; its text is written by flush_run once the run's end is known. */
static void draw_run_box(tree_ctx *c) {
    vz_graph *vg = c->vg;
    const char *first = exdb_buf_str(&c->run_text) + c->run_at[0];
    exdb_buf_reset(&c->b);
    exdb_buf_printf(&c->b, "%s~empty", first);
    vz_node v = {.name = vz_unique_name(vg, vz_str(vg, &c->b)),
                 .fill = kind_fill(c->run_mod[0]),
                 .order = vg->nnodes};
    c->run_box = vz_add_node(vg, &v);
    if (c->run_box == VZ_NONE) {
        c->oom = 1;
        return;
    }
    const char *pp = parent_path(c, first);
    uint32_t p = pp ? vz_find(vg, pp) : VZ_NONE;
    if (p != VZ_NONE) {
        vz_edge e = {.from = p, .to = c->run_box};
        vz_add_edge(vg, &e);
    }
    for (uint32_t i = 0; i < c->run_n; i++)
        c->first[c->run_mod[i]->id] = c->run_box + 1;
}

/* Ends the run of empty sibling paths: each drawn as its own node when
 * there were fewer than TREE_RUN_MIN, else the run's box gets its text. */
static void flush_run(tree_ctx *c) {
    uint32_t n = c->run_n;
    c->run_n = 0;
    if (!n)
        return;
    if (c->run_box == VZ_NONE) {
        for (uint32_t i = 0; i < n; i++)
            draw_path(c, exdb_buf_str(&c->run_text) + c->run_at[i], c->run_mod[i]);
        return;
    }
    c->drawn += n;
    vz_graph *vg = c->vg;
    vz_node *v = &vg->nodes[c->run_box];
    const char *text = exdb_buf_str(&c->run_text);
    size_t pre = c->run_pre;
    const char *a0 = text + c->run_at[0] + pre, *a1 = text + c->run_last;
    exdb_buf_reset(&c->b);
    vz_put_text(&c->b, a0, 64, 0);
    exdb_buf_puts(&c->b, " .. ");
    vz_put_text(&c->b, a1, 64, 0);
    vz_put_nl(&c->b);
    exdb_buf_printf(&c->b, "%u empty torch.nn.Module", n);
    v->label = vz_str(vg, &c->b);
    exdb_buf_reset(&c->b);
    exdb_buf_printf(&c->b,
                    "%s .. %.*s%s\n%u torch.nn.Module paths in a row with no graph, submodules "
                    "or state (module_call_graph entries no node runs), drawn as one box; "
                    "`info modules` lists each",
                    text + c->run_at[0], (int)pre, text + c->run_at[0], a1, n);
    exdb_buf_reset(&c->t);
    vz_put_text(&c->t, exdb_buf_str(&c->b), 0, 0);
    v->tooltip = vz_str(vg, &c->t);
    if (c->run_cut)
        exdb_buf_printf(&c->run_names, ",+%u", c->run_cut);
    v->members = vz_str(vg, &c->run_names);
    c->run_box = VZ_NONE;
}

/* Adds path fqn (module m, an empty leaf) to the run of its siblings. */
static void run_add(tree_ctx *c, const char *fqn, exdb_umodule *m) {
    size_t pre = prefix_len(fqn);
    if (c->run_n &&
        (pre != c->run_pre || strncmp(fqn, exdb_buf_str(&c->run_text) + c->run_at[0], pre) != 0))
        flush_run(c);
    if (!c->run_n) {
        exdb_buf_reset(&c->run_text);
        c->run_pre = pre;
        c->run_box = VZ_NONE;
        exdb_buf_reset(&c->run_names);
        c->run_cut = 0;
    }
    size_t flen = strlen(fqn);
    if (c->run_names.len + flen + 1 <= TREE_RUN_NAMES) {
        if (c->run_names.len)
            exdb_buf_putc(&c->run_names, ',');
        exdb_buf_put(&c->run_names, fqn, flen);
    } else {
        c->run_cut++;
    }
    if (c->run_n < TREE_RUN_MIN) {
        c->run_at[c->run_n] = c->run_text.len;
        c->run_mod[c->run_n] = m;
        c->run_last = c->run_text.len + pre;
        exdb_buf_put(&c->run_text, fqn, strlen(fqn) + 1);
    } else {
        /* past the first paths, only the last one's atom is kept */
        const char *kept = exdb_buf_str(&c->run_text) + c->run_at[TREE_RUN_MIN - 1];
        c->run_text.len = c->run_at[TREE_RUN_MIN - 1] + strlen(kept) + 1;
        c->run_last = c->run_text.len;
        exdb_buf_put(&c->run_text, fqn + pre, strlen(fqn + pre) + 1);
        c->first[m->id] = c->run_box + 1;
    }
    if (++c->run_n == TREE_RUN_MIN)
        draw_run_box(c);
}

/* exdb_unflatten_named_modules callback: one node per module path in the
 * subtree asked for (a run of empty siblings: one box), under its parent
 * path's node. */
static void visit(void *vctx, const char *fqn, exdb_umodule *m) {
    tree_ctx *c = vctx;
    if (c->under_len && (strncmp(fqn, c->under, c->under_len) != 0 ||
                         (fqn[c->under_len] && fqn[c->under_len] != '.')))
        return; /* outside the subtree asked for */
    if (c->skipping) {
        if (strncmp(fqn, exdb_buf_str(&c->skip), c->skip.len) == 0 && fqn[c->skip.len] == '.')
            return; /* inside a duplicate already drawn elsewhere */
        c->skipping = 0;
    }
    if (empty_leaf(c, fqn, m)) {
        run_add(c, fqn, m);
        return;
    }
    flush_run(c);
    draw_path(c, fqn, m);
}

/* Draws the hierarchy (the subtree of `under` when not NULL) into vg;
 * returns the number of module paths drawn, or -1 when out of memory. */
static int draw_tree(vz_graph *vg, const exdb_unflatten *u, const char *under) {
    tree_ctx c = {.vg = vg, .r = u->run, .under = under, .under_len = under ? strlen(under) : 0};
    c.first = calloc((size_t)u->run->nmodules + 1, sizeof *c.first);
    c.calls = calloc((size_t)u->run->nmodules + 1, sizeof *c.calls);
    c.dedup = calloc((size_t)u->run->nmodules + 1, sizeof *c.dedup);
    if (!c.first || !c.calls || !c.dedup) {
        free(c.first);
        free(c.calls);
        free(c.dedup);
        return -1;
    }
    exdb_buf_init(&c.b);
    exdb_buf_init(&c.t);
    exdb_buf_init(&c.skip);
    exdb_buf_init(&c.run_text);
    exdb_buf_init(&c.run_names);
    c.run_box = VZ_NONE;
    count_calls(&c, u);
    if (exdb_unflatten_named_modules(u, visit, &c) < 0)
        c.oom = 1;
    flush_run(&c);
    vg->rankdir = "LR";
    vg->ordering = "out"; /* children in registration order, as named_modules */
    /* text cut short in a scratch buffer (copied with vz_put_text) fails too */
    vg->oom |= c.b.oom || c.t.oom || c.skip.oom || c.run_text.oom || c.run_names.oom;
    exdb_buf_free(&c.run_text);
    exdb_buf_free(&c.run_names);
    exdb_buf_free(&c.b);
    exdb_buf_free(&c.t);
    exdb_buf_free(&c.skip);
    free(c.first);
    free(c.calls);
    free(c.dedup);
    return c.oom || vg->oom ? -1 : (int)c.drawn;
}

int vz_view_tree(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err) {
    const exdb_unflatten *u = src->done;
    (void)view;
    if (!u)
        return exdb_errorf(err, "render: no complete unflatten run");
    if (draw_tree(vg, u, NULL) < 0)
        return exdb_errorf(err, "render: out of memory");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "%s: unflattened module tree, %u module%s",
                    src->prog && src->prog->path ? src->prog->path : "program", u->run->nmodules,
                    u->run->nmodules == 1 ? "" : "s");
    vz_set_title(vg, exdb_buf_str(&b));
    vg->oom |= b.oom;
    exdb_buf_free(&b);
    return vg->oom ? exdb_errorf(err, "render: out of memory") : 0;
}

int vz_view_subtree(vz_graph *vg, const exdb_unflatten *u, const char *fqn, const char *title,
                    exdb_error *err) {
    int n = draw_tree(vg, u, fqn);
    if (n < 0)
        return exdb_errorf(err, "render: out of memory");
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "%s, %d module%s (\"render module CHILD\" draws a child's graph)", title, n,
                    n == 1 ? "" : "s");
    vz_set_title(vg, exdb_buf_str(&b));
    vg->oom |= b.oom;
    exdb_buf_free(&b);
    return vg->oom ? exdb_errorf(err, "render: out of memory") : 0;
}
