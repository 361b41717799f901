/* modules.c - the `modules` view: module-level dataflow read straight from
 * nn_module_stack (no unflatten needed).
 *
 * Modules form the FQN tree, as torch.export.unflatten builds it: a module
 * at "layers.3.attn" sits under "layers.3" under "layers" even when the
 * ModuleList `layers` is never called itself (so it is in no stack). Each
 * FX node belongs to the call of its innermost module, cut at --depth FQN
 * levels. A module at the cut (or with no submodules) is one node; a module
 * above the cut is a cluster holding its submodules, plus a node for its own
 * ops when it has some. Repeated calls are separate modules (`fqn@N`).
 * Values crossing module boundaries become edges (one per pair of modules,
 * labelled with the value's shape or a count). Parameters, buffers and
 * constants are module state and are not drawn; buffer mutations are listed
 * on the module that writes them rather than drawn as edges to the output,
 * which would make the output node a hub with one edge per layer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/program.h"
#include "core/fx/print.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/modules.h"

typedef struct mod {
    const char *fqn;  /* "layers.3.attn@1" */
    const char *type; /* the class from the stack entry, NULL for a container never called */
    uint32_t parent;  /* VZ_NONE at the top */
    uint32_t depth;   /* FQN levels, >= 1 */
    uint32_t ops, children, order;
    uint32_t node, cluster;
    uint32_t nmut;
    const char *mut; /* the first mutated target */
} mod;

typedef struct mods_ctx {
    vz_graph *vg;
    const exdb_program *prog;
    mod *mods;
    uint32_t nmods, cap;
    exdb_strmap byname;       /* call path "a\x1fa.b@1" -> mod + 1 */
    exdb_strmap stack;        /* raw nn_module_stack text -> innermost mod + 1 */
    uint32_t *of;             /* FX node id -> mod, VZ_NONE at the root */
    uint32_t *vidx;           /* FX node id -> view node, VZ_NONE when not drawn */
    exdb_strmap pairs;        /* "from>to" -> edge + 1 */
    uint32_t *evalues;        /* edge -> number of values it carries */
    const exdb_node **efirst; /* edge -> the first value */
    uint32_t ecap;
    exdb_buf tmp;
    uint32_t *seen; /* view node -> id + 1 of the last value linked to it */
    int depth;
    exdb_strmap inputs; /* placeholder name -> input spec index + 1 */
    exdb_strmap muts;   /* value written back as a mutation -> its target */
    exdb_strmap uouts;  /* value returned as a user (or loss) output -> "" */
} mods_ctx;

/* The mod for one FQN prefix under parent; the call index comes from the
 * stack entry with exactly that path, if the module was called. */
static uint32_t get_mod(mods_ctx *c, uint32_t parent, const char *path, size_t plen,
                        const exdb_meta *m, uint32_t depth, uint32_t order) {
    const exdb_stack_entry *entry = NULL;
    for (uint32_t i = 0; i < m->nstack; i++)
        if (strlen(m->stack[i].path) == plen && strncmp(m->stack[i].path, path, plen) == 0)
            entry = &m->stack[i];
    exdb_buf_reset(&c->tmp);
    if (parent != VZ_NONE)
        exdb_buf_printf(&c->tmp, "%s\x1f", c->mods[parent].fqn);
    exdb_buf_put(&c->tmp, path, plen);
    if (entry && entry->call_idx)
        exdb_buf_printf(&c->tmp, "@%d", entry->call_idx);
    void *v = exdb_strmap_get(&c->byname, exdb_buf_str(&c->tmp));
    if (v) {
        uint32_t k = (uint32_t)((uintptr_t)v - 1);
        if (order < c->mods[k].order)
            c->mods[k].order = order;
        return k;
    }
    if (c->nmods == c->cap) {
        uint32_t nc = c->cap ? c->cap * 2 : 256;
        mod *nm = realloc(c->mods, nc * sizeof *nm);
        if (!nm) {
            c->vg->oom = 1;
            return VZ_NONE;
        }
        c->mods = nm;
        c->cap = nc;
    }
    const char *key = vz_str(c->vg, &c->tmp);
    const char *sep = strrchr(key, '\x1f');
    uint32_t k = c->nmods++;
    mod md = {.fqn = sep ? sep + 1 : key,
              .type = entry ? entry->type : NULL,
              .parent = parent,
              .depth = depth,
              .order = order,
              .node = VZ_NONE,
              .cluster = VZ_NONE};
    c->mods[k] = md;
    if (parent != VZ_NONE)
        c->mods[parent].children++;
    void **slot = exdb_strmap_put(&c->byname, key, NULL);
    if (slot)
        *slot = (void *)(uintptr_t)(k + 1);
    else
        c->vg->oom = 1;
    return k;
}

/* The module (call) n belongs to, cut at the view's depth; VZ_NONE for the
 * root. Walks the FQN components of the innermost stack entry's path. */
static uint32_t node_mod(mods_ctx *c, const exdb_node *n, uint32_t order) {
    const exdb_stack_entry *leaf = vz_leaf_entry(n);
    if (!leaf)
        return VZ_NONE;
    void **slot = exdb_strmap_put(&c->stack, n->meta->nn_module_stack, NULL);
    if (slot && *slot) {
        uint32_t k = (uint32_t)((uintptr_t)*slot - 1);
        for (uint32_t a = k; a != VZ_NONE; a = c->mods[a].parent)
            if (order < c->mods[a].order)
                c->mods[a].order = order;
        return k;
    }
    uint32_t parent = VZ_NONE;
    const char *p = leaf->path;
    for (uint32_t depth = 1; depth <= (uint32_t)c->depth; depth++) {
        const char *dot = strchr(p, '.');
        size_t plen = dot ? (size_t)(dot - leaf->path) : strlen(leaf->path);
        parent = get_mod(c, parent, leaf->path, plen, n->meta, depth, order);
        if (parent == VZ_NONE || !dot)
            break;
        p = dot + 1;
    }
    if (slot && parent != VZ_NONE)
        *slot = (void *)(uintptr_t)(parent + 1);
    return parent;
}

/* Records that value u flows from view node `from` to view node `to`:
 * one edge per pair, counting the distinct values it carries. */
static void link(mods_ctx *c, const exdb_node *u, uint32_t from, uint32_t to) {
    exdb_buf_reset(&c->tmp);
    exdb_buf_printf(&c->tmp, "%u>%u", from, to);
    void **slot = exdb_strmap_find(&c->pairs, exdb_buf_str(&c->tmp));
    if (slot) {
        c->evalues[(uintptr_t)*slot - 1]++;
        return;
    }
    if (c->vg->nedges == c->ecap) {
        uint32_t nc = c->ecap ? c->ecap * 2 : 256;
        uint32_t *nv = realloc(c->evalues, nc * sizeof *nv);
        if (nv)
            c->evalues = nv;
        const exdb_node **nf = realloc(c->efirst, nc * sizeof *nf);
        if (nf)
            c->efirst = nf;
        if (!nv || !nf) {
            c->vg->oom = 1;
            return;
        }
        c->ecap = nc;
    }
    /* Map keys are not copied: the key goes to the arena first. */
    slot = exdb_strmap_put(&c->pairs, vz_str(c->vg, &c->tmp), NULL);
    vz_edge e = {.from = from, .to = to};
    uint32_t k = vz_add_edge(c->vg, &e);
    if (!slot || k == VZ_NONE) {
        c->vg->oom = 1;
        return;
    }
    c->evalues[k] = 1;
    c->efirst[k] = u;
    *slot = (void *)(uintptr_t)(k + 1);
}

/* The label of a module node: fqn, class name, op count, mutations. */
static const char *mod_label(mods_ctx *c, const mod *m, int own) {
    exdb_buf *b = &c->tmp;
    exdb_buf_reset(b);
    vz_put_text(b, m->fqn, 0, 0);
    vz_put_nl(b);
    const char *t = m->type ? strrchr(m->type, '.') : NULL;
    vz_put_text(b, m->type ? (t ? t + 1 : m->type) : "(not called)", 0, 0);
    exdb_buf_printf(b, own ? ", %u own op%s" : ", %u op%s", m->ops, m->ops == 1 ? "" : "s");
    if (m->nmut == 1) {
        exdb_buf_puts(b, "\\nmutates ");
        vz_put_text(b, m->mut, 48, 0);
    } else if (m->nmut > 1) {
        exdb_buf_printf(b, "\\nmutates %u buffers", m->nmut);
    }
    return vz_str(c->vg, b);
}

static const char *mod_tooltip(mods_ctx *c, const mod *m) {
    exdb_buf *b = &c->tmp;
    exdb_buf_reset(b);
    vz_put_text(b, m->fqn, 0, 0);
    exdb_buf_puts(b, ": ");
    vz_put_text(b, m->type ? m->type : "container (never called itself)", 0, 0);
    exdb_buf_printf(b, "\\n%u op%s drawn in this node", m->ops, m->ops == 1 ? "" : "s");
    if (m->nmut)
        exdb_buf_printf(b, "\\nwrites %u buffer%s, first: %s", m->nmut, m->nmut == 1 ? "" : "s",
                        m->mut);
    return vz_str(c->vg, b);
}

static const char *const depth_fill[] = {"#f7fbff", "#eaf2fa", "#dde9f5", "#d0e1f0", "#c4d8eb"};

/* Makes view nodes and clusters for every module, parents first. */
static void place_mods(mods_ctx *c) {
    vz_graph *vg = c->vg;
    for (uint32_t k = 0; k < c->nmods; k++) {
        mod *m = &c->mods[k];
        uint32_t pc = m->parent == VZ_NONE ? 0 : c->mods[m->parent].cluster;
        if (pc == VZ_NONE)
            pc = 0;
        if (m->children) {
            exdb_buf_reset(&c->tmp);
            exdb_buf_printf(&c->tmp, "cluster_%s", m->fqn);
            m->cluster = vz_add_cluster(vg, vz_str(vg, &c->tmp), pc);
            if (m->cluster == VZ_NONE)
                return;
            const char *t = m->type ? strrchr(m->type, '.') : NULL;
            exdb_buf_reset(&c->tmp);
            vz_put_text(&c->tmp, m->fqn, 0, 0);
            exdb_buf_puts(&c->tmp, "  ");
            vz_put_text(&c->tmp, m->type ? (t ? t + 1 : m->type) : "(not called)", 0, 0);
            vg->clusters[m->cluster].label = vz_str(vg, &c->tmp);
            vg->clusters[m->cluster].tooltip = mod_tooltip(c, m);
            vg->clusters[m->cluster].fill = depth_fill[(m->depth - 1) % 5];
        }
        if (!m->children || m->ops) {
            vz_node v = {.name = vz_unique_name(vg, m->fqn),
                         .label = mod_label(c, m, m->children != 0),
                         .tooltip = mod_tooltip(c, m),
                         .fill = m->children ? "#ffffff" : "#fff7bc",
                         .cluster = m->children ? m->cluster : pc,
                         .order = m->order,
                         .dup_ok = 0};
            m->node = vz_add_node(vg, &v);
        }
    }
}

/* Which values are written back as mutations and which are user outputs
 * (the output specs, read against the output node's tuple). */
static void index_outputs(mods_ctx *c) {
    const exdb_program *p = c->prog;
    const exdb_node *out = exdb_graph_output(p->graph);
    const exdb_arg *tup = out && out->args.n ? &out->args.u.items[0] : NULL;
    for (uint32_t i = 0; tup && i < tup->n && i < p->noutputs; i++) {
        const exdb_output_spec *o = &p->outputs[i];
        if (tup->u.items[i].kind != EXDB_ARG_NODE)
            continue;
        if (o->kind == EXDB_OUT_USER_OUTPUT || o->kind == EXDB_OUT_LOSS_OUTPUT) {
            void **slot = exdb_strmap_put(&c->uouts, tup->u.items[i].u.node->name, NULL);
            if (slot)
                *slot = (void *)"";
            else
                c->vg->oom = 1;
            continue;
        }
        void **slot = exdb_strmap_put(&c->muts, tup->u.items[i].u.node->name, NULL);
        if (slot)
            *slot = (void *)(o->target ? o->target : exdb_output_kind_name(o->kind));
        else
            c->vg->oom = 1;
    }
}

/* Pass 1: every FX node to its module; modules get op counts and the
 * buffers they mutate. */
static void assign_nodes(mods_ctx *c) {
    uint32_t at = 0;
    for (const exdb_node *n = c->prog->graph->head; n; n = n->next, at++) {
        c->of[n->id] = VZ_NONE;
        c->vidx[n->id] = VZ_NONE;
        if (n->op == EXDB_OP_PLACEHOLDER || n->op == EXDB_OP_OUTPUT)
            continue;
        uint32_t k = node_mod(c, n, at);
        c->of[n->id] = k;
        if (k == VZ_NONE)
            continue;
        c->mods[k].ops++;
        const char *mt = exdb_strmap_get(&c->muts, n->name);
        if (mt && !c->mods[k].nmut++)
            c->mods[k].mut = mt;
    }
}

/* Pass 2: view nodes for what is not inside a module (user inputs, ops
 * at the root, the output); nodes in a module map to the module's node. */
static void draw_outside_nodes(mods_ctx *c) {
    vz_graph *vg = c->vg;
    const exdb_program *p = c->prog;
    exdb_buf lab, tip;
    exdb_buf_init(&lab);
    exdb_buf_init(&tip);
    uint32_t at = 0;
    for (const exdb_node *n = p->graph->head; n; n = n->next, at++) {
        uint32_t k = c->of[n->id];
        if (k != VZ_NONE) {
            c->vidx[n->id] = c->mods[k].node;
            continue;
        }
        vz_node v = {.name = n->name, .order = at, .dup_ok = 1};
        const char *kind_line = NULL;
        if (n->op == EXDB_OP_PLACEHOLDER) {
            uintptr_t s = (uintptr_t)exdb_strmap_get(&c->inputs, n->name);
            if (!s || p->inputs[s - 1].kind != EXDB_IN_USER_INPUT)
                continue; /* module state, not dataflow */
            v.shape = "ellipse";
            v.style = "filled";
            v.fill = vz_input_fill(EXDB_IN_USER_INPUT);
            kind_line = "user_input";
        } else if (n->op == EXDB_OP_OUTPUT) {
            v.shape = "invhouse";
            v.style = "filled";
            v.fill = "#9ecae1";
        }
        const char *mt = exdb_strmap_get(&c->muts, n->name);
        exdb_buf_reset(&lab);
        exdb_buf_reset(&tip);
        vz_fx_label(&lab, n, kind_line);
        if (mt) {
            exdb_buf_puts(&lab, "\\nmutates ");
            vz_put_text(&lab, mt, 48, 0);
        }
        vz_fx_tooltip(&tip, n);
        v.label = vz_str(vg, &lab);
        v.tooltip = vz_str(vg, &tip);
        c->vidx[n->id] = vz_add_node(vg, &v);
    }
    exdb_buf_free(&lab);
    exdb_buf_free(&tip);
}

/* Pass 3: edges between different view nodes, one per pair, from each
 * value to the distinct view nodes of its users. Values that go to the
 * output only as mutations are not drawn (see the top of the file).
 * -1 when out of memory. */
static int link_values(mods_ctx *c) {
    c->seen = calloc((size_t)c->vg->nnodes + 1, sizeof *c->seen);
    if (!c->seen)
        return -1;
    for (const exdb_node *u = c->prog->graph->head; u; u = u->next) {
        uint32_t from = c->vidx[u->id];
        if (from == VZ_NONE)
            continue;
        for (uint32_t i = 0; i < u->nusers; i++) {
            const exdb_node *v = u->users[i];
            if (v->op == EXDB_OP_OUTPUT && !exdb_strmap_get(&c->uouts, u->name))
                continue;
            uint32_t to = c->vidx[v->id];
            if (to == VZ_NONE || to == from || c->seen[to] == u->id + 1)
                continue;
            c->seen[to] = u->id + 1;
            link(c, u, from, to);
        }
    }
    return 0;
}

/* Sets *field to c->tmp as escString text, at most max bytes (0: all). */
static void put_tmp_text(mods_ctx *c, const char **field, size_t max) {
    exdb_buf esc;
    exdb_buf_init(&esc);
    vz_put_text(&esc, exdb_buf_str(&c->tmp), max, 0);
    esc.oom |= c->tmp.oom;
    *field = vz_str(c->vg, &esc);
    exdb_buf_free(&esc);
}

/* Edge labels: the value's shape when an edge carries one value, else how
 * many it carries. */
static void label_edges(mods_ctx *c) {
    for (uint32_t i = 0; i < c->vg->nedges; i++) {
        exdb_buf_reset(&c->tmp);
        if (c->evalues[i] == 1 && c->efirst[i]->meta)
            exdb_format_val(&c->tmp, c->efirst[i]->meta->val);
        else if (c->evalues[i] > 1)
            exdb_buf_printf(&c->tmp, "%u values", c->evalues[i]);
        if (c->tmp.len)
            put_tmp_text(c, &c->vg->edges[i].label, 48);
    }
}

int vz_view_modules(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                    exdb_error *err) {
    const exdb_program *p = src->prog;
    mods_ctx c = {.vg = vg, .prog = p, .depth = view->depth > 0 ? view->depth : 2};
    exdb_strmap_init(&c.byname, &vg->arena);
    exdb_strmap_init(&c.stack, &vg->arena);
    exdb_strmap_init(&c.pairs, &vg->arena);
    exdb_strmap_init(&c.inputs, &vg->arena);
    exdb_strmap_init(&c.muts, &vg->arena);
    exdb_strmap_init(&c.uouts, &vg->arena);
    exdb_buf_init(&c.tmp);
    size_t nid = (size_t)p->graph->next_id + 1;
    c.of = malloc(nid * sizeof *c.of);
    c.vidx = malloc(nid * sizeof *c.vidx);
    int rc = -1;
    if (!c.of || !c.vidx)
        goto out;
    if (vz_index_inputs(&c.inputs, p) < 0)
        vg->oom = 1;
    index_outputs(&c);
    assign_nodes(&c);
    if (vg->oom)
        goto out;
    place_mods(&c);
    draw_outside_nodes(&c);
    if (link_values(&c) < 0)
        goto out;
    label_edges(&c);
    exdb_buf_reset(&c.tmp);
    exdb_buf_printf(&c.tmp, "%s: modules to depth %d, %u module calls",
                    p->path ? p->path : "program", c.depth, c.nmods);
    put_tmp_text(&c, &vg->title, 0);
    rc = vg->oom ? -1 : 0;
out:
    free(c.mods);
    free(c.of);
    free(c.vidx);
    free(c.evalues);
    free(c.efirst);
    free(c.seen);
    exdb_buf_free(&c.tmp);
    if (rc < 0)
        exdb_errorf(err, "render: out of memory");
    return rc;
}
