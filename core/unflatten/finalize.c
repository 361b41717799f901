/* finalize.c - InterpreterModule.finalize() (torch/export/unflatten.py):
 * `self.graph_module = torch.fx.GraphModule(self, self.graph)`, called at
 * the end of _sink_params for each InterpreterModule.
 *
 * GraphModule.__init__ copies, for every get_attr and call_module target of
 * the graph, that attribute from the module into the new GraphModule
 * (torch.fx.graph_module._copy_attr): a fresh nn.Module for each missing
 * prefix atom, the real object at the end. The graph's owning_module is then
 * that GraphModule, not the InterpreterModule. So Graph.lint()'s target
 * checks and eliminate_dead_code() see the module's attributes as they were
 * copied at finalize, through fresh nn.Modules, and not what _deduplicate_
 * modules and _dispatch_modules retarget the graph's call_module nodes to
 * afterwards: a retargeted `c0@1` that the graph did not name at finalize is
 * "nonexistent" to torch's lint. exdb keeps that snapshot (exdb_ugm) on the
 * module and modgraphs.c resolves lint targets through it. */
#include <string.h>
#include "core/unflatten/finalize.h"
#include "core/unflatten/modtree.h"

#define GM_LINEAR 8 /* kids searched in a list; more get a hash index */

exdb_ugm *exdb_finalize_child(const exdb_ugm *v, const char *atom, size_t len) {
    if (v->index) {
        char buf[EXDB_MAX_NAME_BYTES + 1];
        if (len >= sizeof buf)
            return NULL;
        memcpy(buf, atom, len);
        buf[len] = '\0';
        return exdb_strmap_get(v->index, buf);
    }
    for (exdb_ugm *c = v->kids; c; c = c->next)
        if (strlen(c->atom) == len && memcmp(c->atom, atom, len) == 0)
            return c;
    return NULL;
}

static exdb_ugm *gm_child(exdb_ugm *v, const char *atom, size_t len) {
    return exdb_finalize_child(v, atom, len);
}

/* Drops v's kids (setattr replaced what held them). */
static void gm_clear(exdb_ugm *v) {
    v->kids = v->last = NULL;
    v->nkids = 0;
    v->index = NULL;
}

/* A child of v named atom[0..len) (NULL on out of memory). Many calls of
 * one module give a graph as many call_module targets: appending and
 * looking up stay O(1) each. */
static exdb_ugm *gm_add(exdb_urun *r, exdb_ugm *v, const char *atom, size_t len) {
    exdb_ugm *c = exdb_arena_calloc(&r->arena, 1, sizeof *c);
    if (!c || !(c->atom = exdb_arena_strndup(&r->arena, atom, len)))
        return NULL;
    if (v->last)
        v->last->next = c;
    else
        v->kids = c;
    v->last = c;
    v->nkids++;
    if (!v->index && v->nkids > GM_LINEAR) {
        v->index = exdb_arena_calloc(&r->arena, 1, sizeof *v->index);
        if (!v->index)
            return NULL;
        exdb_strmap_init(v->index, &r->arena);
        for (exdb_ugm *k = v->kids; k; k = k->next) {
            void **slot = exdb_strmap_put(v->index, k->atom, NULL);
            if (!slot)
                return NULL;
            if (!*slot)
                *slot = k; /* the first of a name, as the list search finds */
        }
    } else if (v->index) {
        void **slot = exdb_strmap_put(v->index, c->atom, NULL);
        if (!slot)
            return NULL;
        if (!*slot)
            *slot = c;
    }
    return c;
}

/* _copy_attr(from_module=m, to_module=top, target). An atom the module
 * lacks would make torch's finalize raise; outlining never produces one,
 * so the copy just stops there. -1 on out of memory. */
static int copy_attr(exdb_urun *r, exdb_umodule *m, exdb_ugm *top, const char *target) {
    exdb_umodule *from = m;
    exdb_ugm *to = top;
    const char *s = target;
    char atom[EXDB_MAX_NAME_BYTES + 1];
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        if (len > EXDB_MAX_NAME_BYTES)
            return 0;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod = 0;
        void *f = from ? exdb_modtree_getattr(from, atom, &is_mod) : NULL;
        if (!f)
            return 0;
        exdb_ugm *t = gm_child(to, atom, len);
        if (!dot) { /* the field: setattr(to_module, field, orig) */
            if (!t && !(t = gm_add(r, to, atom, len)))
                return -1;
            t->module = is_mod ? f : NULL;
            t->attr = !is_mod;
            gm_clear(t);
            return 0;
        }
        if (t && is_mod && t->module == f)
            return 0; /* a parent is installed already: its children come with it */
        if (!is_mod)
            return 0; /* getattr(tensor, ...) */
        if (!t) {
            if (!(t = gm_add(r, to, atom, len)))
                return -1;
        } else if (t->module || t->attr) {
            return 0; /* a real object that is not this one: getattr goes on in it */
        }
        from = f;
        to = t;
        s = dot + 1;
    }
}

int exdb_finalize(exdb_urun *r, exdb_umodule *m, exdb_error *err) {
    if (m->kind != EXDB_UMOD_INTERP || !m->graph)
        return 0;
    exdb_ugm *top = exdb_arena_calloc(&r->arena, 1, sizeof *top);
    if (!top)
        return exdb_errorf(err, "out of memory");
    for (exdb_node *n = m->graph->head; n; n = n->next)
        if ((n->op == EXDB_OP_GET_ATTR || n->op == EXDB_OP_CALL_MODULE) && n->target &&
            copy_attr(r, m, top, n->target) < 0)
            return exdb_errorf(err, "out of memory");
    EXDB_WILL_WRITE(&r->arena, m->gm);
    m->gm = top;
    return 0;
}
