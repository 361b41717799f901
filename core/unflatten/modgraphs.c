/* modgraphs.c - Graph.lint() and Graph.eliminate_dead_code() on the graphs
 * of an unflattened module tree (torch/fx/graph.py with an owning module).
 * See modgraphs.h. */
#include "core/base/mem.h"
#include "core/unflatten/modgraphs.h"
#include "core/unflatten/finalize.h"
#include "core/base/strmap.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unflatten.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void exdb_modgraphs_init(exdb_modgraphs *gs) {
    memset(gs, 0, sizeof *gs);
    exdb_arena_init(&gs->arena);
}

void exdb_modgraphs_free(exdb_modgraphs *gs) {
    free(gs->items);
    free(gs->seen);
    exdb_arena_destroy(&gs->arena);
    memset(gs, 0, sizeof *gs);
}

/* Adds graph to the set of graphs collected (open addressing on the
 * pointer, kept at most half full): 1 when it was already there, -1 when
 * memory is exhausted. A scan of the list per graph was quadratic. */
static int seen_add(exdb_modgraphs *gs, const exdb_graph *graph) {
    if (2 * (gs->n + 1) > gs->seen_cap) {
        uint32_t nc = gs->seen_cap ? gs->seen_cap * 2 : 64;
        const exdb_graph **ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -1;
        for (uint32_t i = 0; i < gs->n; i++) {
            uint32_t h = (uint32_t)(((uintptr_t)gs->items[i].graph >> 4) * 2654435761u);
            while (ns[h & (nc - 1)])
                h++;
            ns[h & (nc - 1)] = gs->items[i].graph;
        }
        free(gs->seen);
        gs->seen = ns;
        gs->seen_cap = nc;
    }
    uint32_t h = (uint32_t)(((uintptr_t)graph >> 4) * 2654435761u);
    for (;; h++) {
        const exdb_graph **slot = &gs->seen[h & (gs->seen_cap - 1)];
        if (*slot == graph)
            return 1;
        if (!*slot) {
            *slot = graph;
            return 0;
        }
    }
}

static int push(exdb_modgraphs *gs, exdb_modgraph g) {
    if (gs->n == gs->cap) {
        exdb_modgraph *ni = exdb_grow(gs->items, &gs->cap, sizeof *ni, 16);
        if (!ni)
            return -1;
        gs->items = ni;
    }
    int seen = seen_add(gs, g.graph); /* each graph once (modules shared by paths) */
    if (seen != 0)
        return seen < 0 ? -1 : 0;
    gs->items[gs->n++] = g;
    return 0;
}

/* The GraphModule children of m (a module at fqn, or one of its subgraphs:
 * prefix is then its path under the module), each after its parent entry
 * `own`, then theirs: control flow nested in control flow. */
static int collect_graph_children(exdb_modgraphs *gs, const char *fqn, const char *prefix,
                                  exdb_umodule *m, int32_t own, uint32_t depth) {
    const exdb_udict *d = m->children;
    for (uint32_t i = 0; d && i < d->n && depth < 10000; i++) {
        exdb_umodule *c = d->vals[i];
        if (!c || c->kind != EXDB_UMOD_GRAPH || !c->graph)
            continue;
        const char *name = exdb_arena_strdup(&gs->arena, fqn);
        const char *sub = prefix ? exdb_arena_printf(&gs->arena, "%s.%s", prefix, d->keys[i])
                                 : exdb_arena_strdup(&gs->arena, d->keys[i]);
        if (!name || !sub)
            return -1;
        int32_t at = (int32_t)gs->n;
        exdb_modgraph e = {name, sub, c, exdb_umodule_src(c), c->graph, own, NULL};
        if (push(gs, e) < 0)
            return -1;
        if (gs->n > (uint32_t)at && collect_graph_children(gs, fqn, sub, c, at, depth + 1) < 0)
            return -1;
    }
    return 0;
}

/* The graphs of module m at fqn: its own (each call's, for a dispatcher),
 * then its GraphModule children (subgraphs of its higher-order ops). */
static int collect_module(exdb_modgraphs *gs, const exdb_unflatten *u, const char *fqn,
                          exdb_umodule *m) {
    uint32_t first = gs->n;
    int32_t own = -1;
    if (m->kind == EXDB_UMOD_DISPATCH) {
        for (uint32_t i = 0; i < m->ncall_modules; i++) {
            exdb_umodule *c = m->call_modules[i];
            if (!c->graph)
                continue;
            const char *name = i ? exdb_arena_printf(&gs->arena, "%s@%u", fqn, i)
                                 : exdb_arena_strdup(&gs->arena, fqn);
            if (!name || push(gs, (exdb_modgraph){name, NULL, c, NULL, c->graph, -1, NULL}) < 0)
                return -1;
        }
    } else if (m->graph) {
        const char *name = exdb_arena_strdup(&gs->arena, fqn);
        if (!name || push(gs, (exdb_modgraph){name, NULL, m, NULL, m->graph, -1, NULL}) < 0)
            return -1;
    }
    if (gs->n > first)
        own = (int32_t)first;
    return collect_graph_children(gs, fqn, NULL, m, own, 0);
}

typedef struct collect_ctx {
    exdb_modgraphs *gs;
    const exdb_unflatten *u;
    int oom;
} collect_ctx;

/* named_modules visitor: GraphModule children are collected with their
 * parent module, so they are skipped here. */
static void visit(void *vctx, const char *fqn, exdb_umodule *m) {
    collect_ctx *c = vctx;
    if (c->oom || m->kind == EXDB_UMOD_GRAPH)
        return;
    if (collect_module(c->gs, c->u, fqn, m) < 0)
        c->oom = 1;
}

int exdb_modgraphs_collect(exdb_modgraphs *gs, const exdb_unflatten *u, const char *fqn,
                           exdb_error *err) {
    if (!fqn) {
        collect_ctx c = {gs, u, 0};
        if (exdb_unflatten_named_modules(u, visit, &c) < 0)
            c.oom = 1;
        return c.oom ? exdb_errorf(err, "out of memory") : 0;
    }
    exdb_umodule *m = exdb_unflatten_module(u, fqn);
    if (!m && (m = exdb_unflatten_dispatch_call(u, fqn)) != NULL) {
        /* one call of a dispatcher, "n@1": its graph and subgraphs */
        if (collect_module(gs, u, fqn, m) < 0)
            return exdb_errorf(err, "out of memory");
        return 0;
    }
    if (!m)
        return exdb_errorf(err, "No module \"%s\" in the unflattened module.", fqn);
    if (m->kind == EXDB_UMOD_GRAPH) { /* "m1.true_graph_0": one subgraph */
        const char *dot = strrchr(fqn, '.');
        const char *parent = dot ? exdb_arena_strndup(&gs->arena, fqn, (size_t)(dot - fqn)) : "";
        const char *sub = exdb_arena_strdup(&gs->arena, dot ? dot + 1 : fqn);
        if (!parent || !sub)
            return exdb_errorf(err, "out of memory");
        exdb_modgraph e = {parent, sub, m, exdb_umodule_src(m), m->graph, -1, NULL};
        if (push(gs, e) < 0 || collect_graph_children(gs, parent, sub, m, 0, 0) < 0)
            return exdb_errorf(err, "out of memory");
        return 0;
    }
    if (collect_module(gs, u, fqn, m) < 0)
        return exdb_errorf(err, "out of memory");
    if (gs->n == 0)
        return exdb_errorf(err, "Module \"%s\" is a plain torch.nn.Module: it has no graph.", fqn);
    return 0;
}

/* ---- lint */

typedef struct owner_ctx {
    exdb_umodule *m;
    const exdb_program *p;
    const exdb_graph *src;
} owner_ctx;

/* A GraphModule's nested subgraphs: exdb copies a subgraph's nodes but not
 * the GraphModule children PyTorch's deserializer gave it; they are the
 * program subgraphs whose get_attr sits in the source graph. */
static int nested_subgraph(const owner_ctx *o, const char *name) {
    for (uint32_t i = 0; o->src && i < o->p->nsubgraphs; i++)
        if (o->p->subgraphs[i].owner && o->p->subgraphs[i].owner->graph == o->src &&
            strcmp(o->p->subgraphs[i].name, name) == 0)
            return 1;
    return 0;
}

/* getattr(owning_module, "a.b.c") one atom at a time, as Graph.lint's pass
 * 2 does: parameters, buffers, constants and specs are attributes; modules
 * (InterpreterModules, dispatchers, GraphModules) are nn.Modules. */
static exdb_attr_kind owner_kind(void *vctx, const char *qual) {
    const owner_ctx *o = vctx;
    exdb_umodule *m = o->m;
    char atom[EXDB_MAX_NAME_BYTES + 1]; /* a name may be that long (program.h) */
    const char *s = qual;
    if (m && m->gm && !o->src) {
        /* an InterpreterModule's own graph: its owning_module is the
         * GraphModule finalize() made (finalize.c), through its copies */
        const exdb_ugm *v = m->gm;
        for (;;) {
            const char *e = strchr(s, '.');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            const exdb_ugm *c = exdb_finalize_child(v, s, len);
            if (!c)
                return EXDB_ATTR_MISSING;
            if (c->module) { /* the real object: getattr goes on in it */
                if (!e)
                    return EXDB_ATTR_MODULE;
                m = c->module;
                s = e + 1;
                break;
            }
            if (c->attr)
                return e ? EXDB_ATTR_MISSING : EXDB_ATTR_OTHER;
            if (!e)
                return EXDB_ATTR_MODULE; /* a fresh nn.Module */
            v = c;
            s = e + 1;
        }
    }
    for (int first = 1;; first = 0) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return EXDB_ATTR_MISSING;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod = 0;
        void *v = m ? exdb_modtree_getattr(m, atom, &is_mod) : NULL;
        exdb_attr_kind k;
        if (!v) {
            if (!(first && nested_subgraph(o, atom)))
                return EXDB_ATTR_MISSING;
            k = EXDB_ATTR_MODULE;
            m = NULL; /* nothing is known below a nested GraphModule */
        } else if (is_mod) {
            k = EXDB_ATTR_MODULE;
            m = v;
        } else {
            const exdb_uattr *a = v;
            k = a->kind == EXDB_UATTR_GRAPH ? EXDB_ATTR_MODULE : EXDB_ATTR_OTHER;
            m = NULL; /* a tensor, a spec: no attributes of interest below */
        }
        if (!e)
            return k;
        s = e + 1;
    }
}

uint32_t exdb_modgraph_lint(exdb_lint_report *r, const exdb_unflatten *u, const exdb_modgraph *g) {
    owner_ctx oc = {g->owner, u->prog, g->src};
    exdb_lint_owner owner = {owner_kind, &oc};
    return exdb_lint_graph_in(r, g->graph, &owner, g->module, g->subgraph);
}

uint32_t exdb_modgraphs_lint(exdb_lint_report *r, exdb_umodule *m, const exdb_graph *g,
                             const char *module_fqn) {
    owner_ctx oc = {m, NULL, NULL};
    exdb_lint_owner owner = {owner_kind, &oc};
    return exdb_lint_graph(r, g, &owner, module_fqn);
}

/* ---- dce */

/* The names of the parent graph's live get_attr targets (for a dry run:
 * those the dry run would not remove), built once per parent when its
 * first subgraph is reached (a scan per subgraph was quadratic: 20k
 * higher-order ops took 2 s). NULL when memory is exhausted. */
static exdb_strmap *live_targets(exdb_arena *a, const exdb_graph *parent, const exdb_dce_log *plog,
                                 int dry_run) {
    exdb_strmap dead, *live = exdb_arena_alloc(a, sizeof *live);
    if (!live)
        return NULL;
    exdb_strmap_init(&dead, a);
    exdb_strmap_init(live, a);
    for (uint32_t i = 0; dry_run && i < plog->n; i++) {
        void **v = exdb_strmap_put(&dead, plog->items[i].node->name, NULL);
        if (!v)
            return NULL;
        *v = (void *)1;
    }
    for (const exdb_node *n = parent->head; n; n = n->next)
        if (n->op == EXDB_OP_GET_ATTR && !exdb_strmap_get(&dead, n->name)) {
            void **v = exdb_strmap_put(live, n->target, NULL);
            if (!v)
                return NULL;
            *v = (void *)1;
        }
    return live;
}

/* The attribute a subgraph entry is under in its parent's GraphModule:
 * the last atom of "true_graph_0.false_graph_0". */
static const char *attr_name(const exdb_modgraph *g) {
    const char *dot = strrchr(g->subgraph, '.');
    return dot ? dot + 1 : g->subgraph;
}

/* Whether the parent graph still names subgraph `name` in a live get_attr. */
static int still_used(exdb_arena *a, exdb_strmap **maps, const exdb_modgraphs *gs,
                      const exdb_dce_log *logs, int32_t parent, const char *name, int dry_run) {
    if (!maps[parent] &&
        !(maps[parent] = live_targets(a, gs->items[parent].graph, &logs[parent], dry_run)))
        return -1;
    return exdb_strmap_get(maps[parent], name) != NULL;
}

int exdb_modgraphs_dce(exdb_modgraphs *gs, const exdb_unflatten *u, const exdb_dce_opts *o,
                       exdb_dce_log *logs, exdb_error *err) {
    /* FX lints each graph (with its owning module) before touching it: a
     * graph that does not lint raises, and is left as it was */
    for (uint32_t i = 0; i < gs->n; i++) {
        exdb_lint_report r;
        exdb_lint_report_init(&r);
        exdb_modgraph_lint(&r, u, &gs->items[i]);
        if (r.oom) {
            exdb_lint_report_free(&r);
            return exdb_errorf(err, "out of memory");
        }
        gs->items[i].refused = NULL;
        for (uint32_t k = 0; k < r.n && !gs->items[i].refused; k++)
            if (r.items[k].sev == EXDB_SEV_ERROR &&
                !(gs->items[i].refused = exdb_arena_strdup(&gs->arena, r.items[k].what))) {
                exdb_lint_report_free(&r);
                return exdb_errorf(err, "out of memory");
            }
        exdb_lint_report_free(&r);
    }
    exdb_dce_opts opts = *o;
    opts.module_impure = NULL; /* InterpreterModule defines no _is_impure */
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_strmap **maps = exdb_arena_calloc(&a, gs->n ? gs->n : 1, sizeof *maps);
    int total = maps ? 0 : exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; maps && i < gs->n; i++) {
        exdb_modgraph *g = &gs->items[i];
        if (g->refused || (g->parent >= 0 && gs->items[g->parent].refused))
            continue;
        assert(g->parent < (int32_t)i); /* a parent's dce runs before its subgraphs' */
        int used =
            g->parent < 0 ? 1 : still_used(&a, maps, gs, logs, g->parent, attr_name(g), o->dry_run);
        int n = used > 0 ? exdb_dce_run(g->graph, &opts, &logs[i], err) : 0;
        if (used < 0)
            exdb_errorf(err, "out of memory");
        if (used < 0 || n < 0) {
            /* out of memory part way (exdb_dce_run put back its own graph's
             * nodes): the graphs done before go back too, newest first, so
             * a failed dce changes nothing; a log undo could not restore
             * stays applied (the caller keeps it for "undo") */
            for (uint32_t k = i; k-- > 0;) {
                exdb_error ignored = {0};
                if (logs[k].applied && logs[k].n)
                    exdb_dce_undo(&logs[k], &ignored);
            }
            total = -1;
            break;
        }
        total += n;
    }
    exdb_arena_destroy(&a);
    return total;
}
