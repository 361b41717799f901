/* moddiff.c - the module trees of two unflatten runs compared path by path,
 * and two calls of a module compared as _deduplicate_modules does
 * (torch/export/unflatten.py: _check_graph_equivalence dumps each graph as
 * "i: op[target](args)" lines, node arguments as %index, and merges two
 * calls when the dumps are equal; dedup.c defines that dump, here and there). */
#include <stdlib.h>
#include <string.h>

#include "core/unflatten/dedup.h"
#include "core/unflatten/moddiff.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unflatten.h"

/* ---- the trees */

typedef struct mod_info {
    const char *fqn;
    const exdb_umodule *m;
} mod_info;

typedef struct tree_walk {
    exdb_arena *arena;
    mod_info *mods;
    uint32_t n, cap;
    int oom;
} tree_walk;

static void visit(void *ctx, const char *fqn, exdb_umodule *m) {
    tree_walk *w = ctx;
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? 2 * w->cap : 64;
        mod_info *n = realloc(w->mods, cap * sizeof *n);
        if (!n) {
            w->oom = 1;
            return;
        }
        w->mods = n;
        w->cap = cap;
    }
    const char *f = exdb_arena_strdup(w->arena, fqn);
    if (!f)
        w->oom = 1;
    w->mods[w->n++] = (mod_info){f, m};
}

static int32_t mod_nodes(const exdb_umodule *m) {
    return m->graph ? (int32_t)m->graph->count : -1;
}

/* Counts pd's node differences per module call into items (by fqn). */
static void count_nodes(exdb_moddiff *d, const exdb_program_diff *pd, exdb_strmap *index) {
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t n = k == 0 ? pd->nadded : k == 1 ? pd->nremoved : pd->nchanged;
        for (uint32_t i = 0; i < n; i++) {
            const exdb_node *x = k == 0 ? pd->added[i] : k == 1 ? pd->removed[i] : pd->changed[i].b;
            const char *fqn = exdb_diff_node_module(&d->arena, x);
            uintptr_t j = fqn ? (uintptr_t)exdb_strmap_get(index, fqn) : 0;
            if (!j)
                continue;
            exdb_moddiff_item *it = &d->items[j - 1];
            if (k == 0)
                it->added++;
            else if (k == 1)
                it->removed++;
            else
                it->changed++;
        }
    }
}

static int differs(const exdb_moddiff_item *it) {
    return it->change != '~' || !it->a_class || !it->b_class ||
           strcmp(it->a_class, it->b_class) != 0 || (!it->a_type != !it->b_type) ||
           (it->a_type && strcmp(it->a_type, it->b_type) != 0) || it->a_nodes != it->b_nodes ||
           it->added || it->removed || it->changed;
}

/* One item per path of either tree (A's order, then B's new paths),
 * indexed by fqn; those that do not differ are dropped at the end. */
static int build_items(exdb_moddiff *d, const tree_walk *wa, const tree_walk *wb,
                       const exdb_program_diff *pd) {
    exdb_strmap index; /* fqn -> item + 1 */
    exdb_strmap_init(&index, &d->arena);
    d->items = exdb_arena_calloc(&d->arena, (size_t)wa->n + wb->n + 1, sizeof *d->items);
    if (!d->items)
        return -1;
    for (uint32_t w = 0; w < 2; w++) {
        const tree_walk *t = w ? wb : wa;
        for (uint32_t i = 0; i < t->n; i++) {
            void **slot = exdb_strmap_put(&index, t->mods[i].fqn, NULL);
            if (!slot)
                return -1;
            const exdb_umodule *m = t->mods[i].m;
            exdb_moddiff_item *it;
            if (*slot) {
                it = &d->items[(uintptr_t)*slot - 1];
                if (w == 0 || it->b_class)
                    continue; /* a path seen twice in one tree */
                it->change = '~';
            } else {
                it = &d->items[d->n++];
                *slot = (void *)(uintptr_t)d->n;
                it->fqn = t->mods[i].fqn;
                it->change = w ? '+' : '-';
                it->a_nodes = it->b_nodes = -1;
            }
            if (w) {
                it->b_class = exdb_modtree_class_name(m);
                it->b_type = m->type;
                it->b_nodes = mod_nodes(m);
            } else {
                it->a_class = exdb_modtree_class_name(m);
                it->a_type = m->type;
                it->a_nodes = mod_nodes(m);
            }
        }
    }
    if (pd)
        count_nodes(d, pd, &index);
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->n; i++)
        if (differs(&d->items[i]))
            d->items[k++] = d->items[i];
    d->n = k;
    return 0;
}

exdb_moddiff *exdb_moddiff_trees(const exdb_unflatten *ua, const exdb_unflatten *ub,
                                 const exdb_program_diff *pd, exdb_error *err) {
    exdb_moddiff *d = calloc(1, sizeof *d);
    if (!d) {
        exdb_errorf(err, "diff: out of memory");
        return NULL;
    }
    exdb_arena_init(&d->arena);
    tree_walk wa = {.arena = &d->arena}, wb = {.arena = &d->arena};
    int rc =
        exdb_unflatten_named_modules(ua, visit, &wa) | exdb_unflatten_named_modules(ub, visit, &wb);
    if (rc == 0 && !wa.oom && !wb.oom)
        rc = build_items(d, &wa, &wb, pd);
    else
        rc = -1;
    d->a_modules = wa.n;
    d->b_modules = wb.n;
    free(wa.mods);
    free(wb.mods);
    if (rc < 0) {
        exdb_moddiff_free(d);
        exdb_errorf(err, "diff: out of memory");
        return NULL;
    }
    return d;
}

void exdb_moddiff_free(exdb_moddiff *d) {
    if (!d)
        return;
    exdb_arena_destroy(&d->arena);
    free(d);
}

/* ---- two calls side by side */

/* The _check_graph_equivalence lines of m's graph (none without one). */
static int dump_graph(exdb_modcalls *c, int side) {
    const exdb_graph *g = c->mod[side]->graph;
    if (!g)
        return 0;
    uint32_t *idx = calloc((size_t)g->next_id + 1, sizeof *idx);
    c->lines[side] = exdb_arena_alloc(&c->arena, ((size_t)g->count + 1) * sizeof(char *));
    c->nodes[side] = exdb_arena_alloc(&c->arena, ((size_t)g->count + 1) * sizeof(exdb_node *));
    if (!idx || !c->lines[side] || !c->nodes[side]) {
        free(idx);
        return -1;
    }
    exdb_buf b;
    exdb_buf_init(&b);
    uint32_t i = 0;
    int rc = 0;
    for (const exdb_node *n = g->head; n && rc == 0; n = n->next, i++) {
        exdb_buf_reset(&b);
        exdb_dedup_dump_node(&b, n, i, idx);
        const char *line = b.oom ? NULL : exdb_arena_strdup(&c->arena, exdb_buf_str(&b));
        if (!line)
            rc = -1;
        c->lines[side][i] = line;
        c->nodes[side][i] = n;
    }
    c->n[side] = i;
    exdb_buf_free(&b);
    free(idx);
    return rc;
}

/* The module a path or call name is: a module at that path (a dispatcher's
 * first call), a dispatcher's call "n@K", or, for a call name dedup removed,
 * the call it was merged into (*merged). */
static const exdb_umodule *resolve(const exdb_unflatten *u, const char *name, const char **merged) {
    *merged = NULL;
    const exdb_umodule *m = exdb_unflatten_module(u, name);
    if (m && m->kind == EXDB_UMOD_DISPATCH && m->ncall_modules)
        return m->call_modules[0];
    if (!m)
        m = exdb_unflatten_dispatch_call(u, name);
    if (!m && u->run) {
        const char *to = exdb_strmap_get(&u->run->redirected, name);
        if (to && (m = exdb_unflatten_module(u, to)) != NULL)
            *merged = to;
    }
    return m;
}

exdb_modcalls *exdb_moddiff_calls(const exdb_unflatten *u, const char *x, const char *y,
                                  exdb_error *err) {
    const char *mx, *my;
    const exdb_umodule *a = resolve(u, x, &mx), *b = resolve(u, y, &my);
    if (!a || !b) {
        exdb_errorf(err, "diff module: no module \"%s\" in the unflattened program", a ? y : x);
        return NULL;
    }
    exdb_modcalls *c = calloc(1, sizeof *c);
    if (!c) {
        exdb_errorf(err, "diff module: out of memory");
        return NULL;
    }
    exdb_arena_init(&c->arena);
    c->fqn[0] = exdb_arena_strdup(&c->arena, x);
    c->fqn[1] = exdb_arena_strdup(&c->arena, y);
    c->mod[0] = a;
    c->mod[1] = b;
    c->merged_into = my ? my : mx;
    if (!c->fqn[0] || !c->fqn[1] || dump_graph(c, 0) < 0 || dump_graph(c, 1) < 0) {
        exdb_modcalls_free(c);
        exdb_errorf(err, "diff module: out of memory");
        return NULL;
    }
    c->first = -1;
    for (uint32_t i = 0; i < c->n[0] || i < c->n[1]; i++)
        if (i >= c->n[0] || i >= c->n[1] || strcmp(c->lines[0][i], c->lines[1][i]) != 0) {
            c->first = (int32_t)i;
            break;
        }
    return c;
}

void exdb_modcalls_free(exdb_modcalls *c) {
    if (!c)
        return;
    exdb_arena_destroy(&c->arena);
    free(c);
}
