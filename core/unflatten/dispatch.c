/* dispatch.c - UnflattenedModule._dispatch_modules: a preserved-signature
 * module called more than once becomes one InterpreterModuleDispatcher over
 * its call modules (in call order), and call_module targets of dispatched
 * fqns lose their "@N". Non-preserved modules are never dispatched: their
 * "n@1" submodules stay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/unflatten/dispatch.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/udict.h"
#include "core/unflatten/urun.h"

typedef struct called {
    const char *base;
    int *idx;
    exdb_umodule **mods;
    uint32_t n, cap;
} called;

/* Work items: a = index into the called list, or -1 for the elide pass.
 * The list itself hangs off the first work item's node pointer. */
typedef struct dispatch_plan {
    called *c;
    uint32_t n;
    exdb_strmap index;   /* base -> index + 1 */
    const char **elided; /* the elide pass's retargeted call_module nodes ("fqn %node") */
    int32_t nelided;     /* -1 until the elide pass ran */
} dispatch_plan;

/* type(obj).__name__ of an attribute value _get_attr can walk onto. */
/* The error _get_attr(self, path) raises for a preserved call whose module
 * is not there (fx's _get_attr_via_attr_list). A path that leads to a
 * non-module would be dispatched over by torch; exdb stops there. */
static int get_attr_error(exdb_urun *r, const char *path, exdb_error *err) {
    char why[EXDB_MAX_NAME_BYTES + 96];
    snprintf(why, sizeof why, "_dispatch_modules: the preserved call %s was never outlined", path);
    int is_mod = 0;
    void *v = exdb_modtree_get_attr_list(r->root, path, &is_mod, why, err);
    if (!v)
        return -1;
    return exdb_errorf(err,
                       "exdb: the preserved call %s is not a module here (_dispatch_modules "
                       "would dispatch over a %s)",
                       path, is_mod ? "module" : "non-module attribute");
}

int exdb_dispatch_plan(exdb_urun *r, exdb_error *err) {
    dispatch_plan *dp = exdb_arena_calloc(&r->arena, 1, sizeof *dp);
    if (!dp)
        return exdb_errorf(err, "out of memory");
    exdb_strmap_init(&dp->index, &r->arena);
    dp->nelided = -1;
    const exdb_program *p = r->prog;
    uint32_t ncalls_sig = 0;
    for (uint32_t i = 0; i < p->ncalls; i++)
        ncalls_sig += p->calls[i].fqn[0] && p->calls[i].sig;
    dp->c = exdb_arena_calloc(&r->arena, ncalls_sig ? ncalls_sig : 1, sizeof *dp->c);
    if (!dp->c)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < p->ncalls; i++) {
        const char *fqn = p->calls[i].fqn;
        if (!fqn[0] || !p->calls[i].sig)
            continue;
        const char *red = exdb_strmap_get(&r->redirected, fqn);
        exdb_umodule *mod = exdb_modtree_get_path(r->root, red ? red : fqn);
        if (!mod)
            return get_attr_error(r, red ? red : fqn, err);
        const char *at = strchr(fqn, '@');
        const char *base = at ? exdb_arena_strndup(&r->arena, fqn, (size_t)(at - fqn)) : fqn;
        int idx = at ? atoi(at + 1) : 0;
        void **slot = base ? exdb_strmap_put(&dp->index, base, NULL) : NULL;
        if (!slot)
            return exdb_errorf(err, "out of memory");
        if (!*slot) {
            dp->c[dp->n].base = base;
            *slot = (void *)(uintptr_t)(++dp->n);
        }
        called *c = &dp->c[(uintptr_t)*slot - 1];
        if (c->n == c->cap) {
            uint32_t ncap = c->cap ? c->cap * 2 : 4;
            int *ni = exdb_arena_alloc(&r->arena, ncap * sizeof *ni);
            exdb_umodule **nm = exdb_arena_alloc(&r->arena, ncap * sizeof *nm);
            if (!ni || !nm)
                return exdb_errorf(err, "out of memory");
            if (c->n) {
                memcpy(ni, c->idx, c->n * sizeof *ni);
                memcpy(nm, c->mods, c->n * sizeof *nm);
            }
            c->idx = ni;
            c->mods = nm;
            c->cap = ncap;
        }
        /* sorted(indexed_call_modules): insertion sort by index (stable) */
        uint32_t k = c->n++;
        while (k > 0 && c->idx[k - 1] > idx) {
            c->idx[k] = c->idx[k - 1];
            c->mods[k] = c->mods[k - 1];
            k--;
        }
        c->idx[k] = idx;
        c->mods[k] = mod;
    }
    for (uint32_t i = 0; i < dp->n; i++) {
        if (dp->c[i].n < 2)
            continue;
        exdb_uwork w = {0};
        w.a = (int32_t)i;
        w.node = (exdb_node *)dp;
        w.name = dp->c[i].base;
        if (exdb_urun_work_push(r, w) < 0)
            return exdb_errorf(err, "out of memory");
    }
    if (dp->n) {
        exdb_uwork w = {0};
        w.a = -1;
        w.node = (exdb_node *)dp;
        w.name = "";
        if (exdb_urun_work_push(r, w) < 0)
            return exdb_errorf(err, "out of memory");
    }
    return 0;
}

typedef struct elide_ctx {
    exdb_urun *r;
    dispatch_plan *dp;
    const char **elided; /* fresh arena memory of this event */
    uint32_t n, cap;
    int oom;
} elide_ctx;

/* Remembers "fqn %node" for the DISPATCH event's description. */
static void note_elided(elide_ctx *c, const char *prefix, const exdb_node *n) {
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? 2 * c->cap : 8;
        const char **ne = exdb_arena_alloc(&c->r->arena, ncap * sizeof *ne);
        if (!ne) {
            c->oom = 1;
            return;
        }
        if (c->n)
            memcpy(ne, c->elided, c->n * sizeof *ne);
        c->elided = ne;
        c->cap = ncap;
    }
    const char *s =
        exdb_arena_printf(&c->r->arena, "%s %%%s", prefix[0] ? prefix : "<root>", n->name);
    if (!s)
        c->oom = 1;
    else
        c->elided[c->n++] = s;
}

static void elide_graph(elide_ctx *c, const char *prefix, exdb_graph *g) {
    for (exdb_node *n = g->head; n; n = n->next) {
        if (n->op != EXDB_OP_CALL_MODULE)
            continue;
        const char *at = strchr(n->target, '@');
        const char *fqn =
            at ? exdb_arena_strndup(&c->r->arena, n->target, (size_t)(at - n->target)) : n->target;
        const char *path =
            prefix[0] && fqn ? exdb_arena_printf(&c->r->arena, "%s.%s", prefix, fqn) : fqn;
        if (!path) {
            c->oom = 1;
            continue;
        }
        if (exdb_strmap_get(&c->dp->index, path)) {
            EXDB_WILL_WRITE(&c->r->arena, n->target);
            n->target = fqn;
            note_elided(c, prefix, n);
        }
    }
}

static void elide_visit(void *vctx, const char *fqn, exdb_umodule *m) {
    elide_ctx *c = vctx;
    if (m->kind == EXDB_UMOD_DISPATCH) {
        for (uint32_t i = 0; i < m->ncall_modules; i++)
            if (m->call_modules[i]->graph)
                elide_graph(c, fqn, m->call_modules[i]->graph);
    } else if (m->graph) {
        elide_graph(c, fqn, m->graph);
    }
}

/* the attribute names directly under orig_fqn among consts_targets */
static int copy_attrs(exdb_urun *r, exdb_umodule *d, exdb_umodule *first, const char *orig_fqn) {
    size_t lo = strlen(orig_fqn);
    for (uint32_t i = 0; i < r->nconsts_targets; i++) {
        const char *t = r->consts_targets[i];
        const char *dot = strrchr(t, '.');
        const char *name;
        if (dot) {
            if ((size_t)(dot - t) != lo || strncmp(t, orig_fqn, lo) != 0)
                continue;
            name = dot + 1;
        } else {
            if (lo)
                continue;
            name = t;
        }
        int is_mod;
        void *v = exdb_modtree_getattr(first, name, &is_mod);
        if (!v)
            continue;
        exdb_udict *to = exdb_modtree_own_dict(r, is_mod ? &d->children : &d->attrs);
        if (!to || exdb_udict_set(r, to, name, v) < 0)
            return -1;
    }
    return 0;
}

int exdb_dispatch_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err) {
    dispatch_plan *dp = (dispatch_plan *)w->node;
    if (w->a < 0) {
        elide_ctx c = {r, dp, NULL, 0, 0, 0};
        int walk = exdb_modtree_named_modules(r, elide_visit, &c);
        if (walk != 0 || c.oom)
            return exdb_modtree_walk_error(r, c.oom ? -1 : walk, "_dispatch_modules", err);
        EXDB_WILL_WRITE(&r->arena, dp->elided);
        dp->elided = c.elided;
        EXDB_WILL_WRITE(&r->arena, dp->nelided);
        dp->nelided = (int32_t)c.n;
        return 0;
    }
    called *c = &dp->c[w->a];
    for (uint32_t i = 0; i < c->n; i++) {
        const char *fqn = exdb_outline_call_name(r, c->base, (int)i + 1);
        if (!fqn)
            return exdb_errorf(err, "out of memory");
        if (exdb_strmap_get(&r->redirected, fqn))
            continue;
        const char *dot = strrchr(fqn, '.');
        exdb_umodule *holder = r->root;
        if (dot) {
            char *prefix = exdb_arena_strndup(&r->arena, fqn, (size_t)(dot - fqn));
            if (!prefix)
                return exdb_errorf(err, "out of memory");
            holder = exdb_modtree_get_path(r->root, prefix);
        }
        if (!holder || !exdb_udict_pop(holder->children, dot ? dot + 1 : fqn))
            return exdb_errorf(err, "KeyError: _dispatch_modules: no submodule '%s'", fqn);
    }
    exdb_umodule *d = exdb_modtree_new(r, EXDB_UMOD_DISPATCH, c->mods[0]->type);
    if (!d)
        return exdb_errorf(err, "out of memory");
    d->children = c->mods[0]->children;
    d->call_modules = c->mods;
    d->ncall_modules = c->n;
    if (copy_attrs(r, d, c->mods[0], c->base) < 0)
        return exdb_errorf(err, "out of memory");
    return exdb_modtree_set_submodule(r, r->root, c->base, d, err);
}

void exdb_dispatch_describe(const exdb_uwork *w, exdb_dispatch_info *out) {
    const dispatch_plan *dp = (const dispatch_plan *)w->node;
    memset(out, 0, sizeof *out);
    out->nelided = -1;
    if (!dp)
        return;
    if (w->a < 0 || (uint32_t)w->a >= dp->n) {
        out->elided = dp->elided;
        out->nelided = dp->nelided;
        return;
    }
    const called *c = &dp->c[w->a];
    out->base = c->base;
    out->ncalls = c->n;
    out->idx = c->idx;
    out->mods = c->mods;
}
