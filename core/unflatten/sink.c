/* sink.c - _sink_params: parameters, buffers and constants enter the flat
 * graph as placeholders; each module graph gets a get_attr for the state it
 * owns (matched by scope), and the placeholder is erased.
 *
 * Upstream recurses post-order over _modules (duplicates included) and
 * memoises by module object. The plan below is that traversal flattened
 * into a work list (one SINK event per module graph); the call_module
 * argument filtering then reads the children's results, recorded as they
 * are applied. Filtering is one pass per call node with a set lookup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/unflatten/sink.h"
#include "core/unflatten/finalize.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/urun.h"

typedef struct sframe {
    exdb_umodule *m;
    const char *key; /* the name the parent holds it under ("" for the root) */
    uint32_t next;   /* next child slot */
} sframe;

/* module_id_to_inputs_removed[id(module)]: the placeholder names sinking
 * erased from one module's graph. `done` is `id(module) in ...`: set once
 * the module was processed, even when nothing was removed. Most sets are
 * tiny, so they are arrays searched linearly; a big one gets a hash index
 * the first time a parent filters against it. */
typedef struct sink_removed {
    const char **names;
    uint32_t n;
    uint8_t done;
    exdb_strmap *index;
    exdb_sink_rec *recs; /* what the event did with each state placeholder */
    uint32_t nrecs;
} sink_removed;

/* The plan's state, shared by its work items through their `node` pointer
 * (as dedup.c and dispatch.c hang theirs): one entry per module object. */
typedef struct sink_plan {
    sink_removed *removed; /* by module id */
    uint32_t nmodules;
} sink_plan;

#define SINK_LINEAR 8
#define SINK_AHEAD  8 /* inputs looked up ahead in inputs_to_state (exdb_sink_apply) */

/* The scope of the module on top of the walk (the keys of st[1..n)) and
 * its ".".join, in the arena: built once per module graph. */
static int sink_scope(exdb_urun *r, const sframe *st, uint32_t n, exdb_uwork *w) {
    uint32_t ns = n - 1;
    size_t len = 0;
    for (uint32_t i = 1; i < n; i++)
        len += strlen(st[i].key) + (i > 1);
    const char **scope = exdb_arena_alloc(&r->arena, (ns ? ns : 1) * sizeof *scope);
    char *full = exdb_arena_alloc(&r->arena, len + 1), *p = full;
    if (!scope || !full)
        return -1;
    for (uint32_t i = 1; i < n; i++) {
        size_t l = strlen(st[i].key);
        if (i > 1)
            *p++ = '.';
        memcpy(p, st[i].key, l);
        p += l;
        scope[i - 1] = st[i].key;
    }
    *p = '\0';
    w->scope = scope;
    w->nscope = ns;
    w->name = full;
    return 0;
}

/* Upstream's recursion never ends when a module is its own descendant: it
 * raises RecursionError. The path from the root to the repeated module. */
static int sink_cycle(const sframe *st, uint32_t n, const char *key, exdb_error *err) {
    char path[512];
    size_t len = 0;
    path[0] = '\0';
    for (uint32_t i = 1; i <= n && len + 8 < sizeof path; i++) {
        const char *k = i < n ? st[i].key : key;
        int w = snprintf(path + len, sizeof path - len, "%s%s", i > 1 ? "." : "", k);
        len = w < 0 ? len : len + (size_t)w >= sizeof path ? sizeof path - 1 : len + (size_t)w;
    }
    return exdb_errorf(err,
                       "RecursionError: maximum recursion depth exceeded in _sink_params: "
                       "module '%s' is its own submodule",
                       path);
}

/* _sink_params' traversal, flattened: post-order over _modules (duplicates
 * included, modules with a graph memoised by object), one work item per
 * module graph. The work items share one sink_plan.
 *
 * A module without a graph is not memoised upstream, but visiting it again
 * changes nothing (every module graph under it was memoised on its first
 * visit), so it is walked once: each module is pushed at most once and the
 * walk is linear in the modules plus their child slots. A module met again
 * while on the walk's stack is a cycle: upstream recurses until
 * RecursionError, the walk stops with that error. */
int exdb_sink_plan(exdb_urun *r, exdb_error *err) {
    sink_plan *plan = exdb_arena_calloc(&r->arena, 1, sizeof *plan);
    if (!plan)
        return exdb_errorf(err, "out of memory");
    plan->nmodules = r->nmodules;
    plan->removed =
        exdb_arena_calloc(&r->arena, r->nmodules ? r->nmodules : 1, sizeof(sink_removed));
    uint32_t cap = 16, n = 0;
    sframe *st = malloc(cap * sizeof *st);
    /* 1: on the walk's stack, 2: walked (memoised) */
    uint8_t *seen = calloc(r->nmodules ? r->nmodules : 1, 1);
    if (!plan->removed || !st || !seen) {
        free(st);
        free(seen);
        return exdb_errorf(err, "out of memory");
    }
    st[n++] = (sframe){r->root, "", 0};
    seen[r->root->id] = 1;
    int rc = 0;
    while (n && rc == 0) {
        sframe *top = &st[n - 1];
        exdb_udict *d = top->m->children;
        /* next live child not yet memoised */
        while (top->next < d->n && !d->vals[top->next])
            top->next++;
        if (top->next < d->n) {
            exdb_umodule *c = d->vals[top->next];
            const char *name = d->keys[top->next];
            top->next++;
            if (seen[c->id] == 2)
                continue;
            if (seen[c->id] == 1) {
                rc = sink_cycle(st, n, name, err);
                break;
            }
            if (n == cap) {
                cap *= 2;
                sframe *ns = realloc(st, cap * sizeof *ns);
                if (!ns) {
                    rc = exdb_errorf(err, "out of memory");
                    break;
                }
                st = ns;
            }
            seen[c->id] = 1;
            st[n++] = (sframe){c, name, 0};
            continue;
        }
        /* post-visit */
        exdb_umodule *m = top->m;
        if (m->graph && m->graph->count > 0) {
            exdb_uwork w = {0};
            w.module = m;
            w.node = (exdb_node *)plan;
            if (sink_scope(r, st, n, &w) < 0 || exdb_urun_work_push(r, w) < 0)
                rc = exdb_errorf(err, "out of memory");
        }
        seen[m->id] = 2;
        n--;
    }
    free(st);
    free(seen);
    return rc;
}

/* n.name in module_id_to_inputs_removed[id(submodule)] (the index is
 * probed with the hash n keeps of its name) */
static int removed_has(exdb_urun *r, sink_removed *s, const exdb_node *n) {
    const char *name = n->name;
    if (s->n <= SINK_LINEAR) {
        for (uint32_t i = 0; i < s->n; i++)
            if (strcmp(s->names[i], name) == 0)
                return 1;
        return 0;
    }
    if (!s->index) {
        EXDB_WILL_WRITE(&r->arena, s->index);
        s->index = exdb_arena_calloc(&r->arena, 1, sizeof *s->index);
        if (!s->index)
            return -1;
        exdb_strmap_init(s->index, &r->arena);
        for (uint32_t i = 0; i < s->n; i++) {
            void **slot = exdb_strmap_put(s->index, s->names[i], NULL);
            if (!slot)
                return -1;
            *slot = (void *)1;
        }
    }
    void **v = exdb_strmap_find_hashed(s->index, name, exdb_node_name_hash(n));
    return v && *v;
}

/* node.args = tuple(filter(lambda n: n.name not in removed, node.args)):
 * FX reassigns (and so re-registers the node as a user) even when nothing
 * is filtered out; a new tuple is only built when something is. */
static int filter_call_args(exdb_urun *r, exdb_node *n, sink_removed *s) {
    uint8_t gone_inline[64], *gone = n->args.n <= 64 ? gone_inline : malloc(n->args.n);
    if (!gone)
        return -1;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < n->args.n; i++) {
        const exdb_arg *a = &n->args.u.items[i];
        int g = a->kind == EXDB_ARG_NODE ? removed_has(r, s, a->u.node) : 0;
        if (g < 0) {
            keep = UINT32_MAX;
            break;
        }
        gone[i] = (uint8_t)g;
        keep += !g;
    }
    exdb_arg nargs = n->args;
    int rc = keep == UINT32_MAX ? -1 : 0;
    if (rc == 0 && keep != n->args.n) {
        rc = exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, keep, &nargs);
        for (uint32_t i = 0, k = 0; rc == 0 && i < n->args.n; i++)
            if (!gone[i])
                nargs.u.items[k++] = n->args.u.items[i];
    }
    if (gone != gone_inline)
        free(gone);
    return rc < 0 ? -1 : exdb_node_set_args(n, &nargs, NULL);
}

/* sn.split(".")[: len(scope)] == [x.split("@")[0] for x in scope] */
static int scope_matches(const char *sn, const char **scope, uint32_t nscope, const char **rest) {
    const char *s = sn;
    for (uint32_t i = 0; i < nscope; i++) {
        const char *atom = scope[i];
        const char *at = strchr(atom, '@');
        size_t alen = at ? (size_t)(at - atom) : strlen(atom);
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (!*s && !e)
            return 0; /* fewer atoms than the scope */
        if (len != alen || strncmp(s, atom, len) != 0)
            return 0;
        if (!e) {
            s += len;
            if (i + 1 < nscope)
                return 0;
            break;
        }
        s = e + 1;
    }
    *rest = s;
    return 1;
}

/* _get_attr_via_attr_list(module, attr_path) is a tensor or script object */
static int state_attr_ok(exdb_umodule *m, const char *path) {
    if (!*path)
        return 0; /* the module itself */
    char atom[EXDB_MAX_NAME_BYTES + 1];
    const char *s = path;
    for (;;) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return 0;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod;
        void *v = exdb_modtree_getattr(m, atom, &is_mod);
        if (!v)
            return 0;
        if (!e) {
            const exdb_uattr *a = v;
            return !is_mod && (a->kind == EXDB_UATTR_PARAM || a->kind == EXDB_UATTR_BUFFER ||
                               a->kind == EXDB_UATTR_CONST);
        }
        if (!is_mod)
            return 0;
        m = v;
        s = e + 1;
    }
}

/* The number of atoms of a dotted name. */
static uint32_t atom_count(const char *s) {
    uint32_t n = 1;
    for (; *s; s++)
        n += *s == '.';
    return n;
}

/* Why no state name of a placeholder is in this scope: one tensor under
 * several names, an owner that is an ancestor (a prefix of the scope), or an
 * owner elsewhere in the tree. */
static uint8_t kept_reason(const char **targets, const exdb_uwork *w) {
    if (targets[0] && targets[1])
        return EXDB_SINK_SHARED;
    const char *rest = NULL;
    uint32_t k = atom_count(targets[0]) - 1; /* the owner's atoms */
    if (k == 0 || (k < w->nscope && scope_matches(targets[0], w->scope, k, &rest)))
        return EXDB_SINK_OUTER;
    return EXDB_SINK_OTHER;
}

/* The record of a state placeholder, in recs (fresh memory of this event). */
static void note(exdb_sink_rec *recs, uint32_t *n, const exdb_node *ph, const char **targets,
                 const char *state, const char *attr, uint8_t outcome, const exdb_uwork *w) {
    exdb_sink_rec *x = &recs[(*n)++];
    x->placeholder = ph->name;
    x->state = state ? state : targets[0];
    x->attr = attr;
    x->nstates = 0;
    while (targets[x->nstates])
        x->nstates++;
    x->outcome = outcome;
    x->reason = outcome == EXDB_SINK_KEPT ? kept_reason(targets, w) : 0;
}

int32_t exdb_sink_decisions(const exdb_urun *r, const exdb_uwork *w, const exdb_sink_rec **recs) {
    (void)r;
    const sink_plan *plan = (const sink_plan *)w->node;
    if (!plan || !w->module || w->module->id >= plan->nmodules)
        return -1;
    const sink_removed *s = &plan->removed[w->module->id];
    if (!s->done)
        return -1;
    *recs = s->recs;
    return (int32_t)s->nrecs;
}

int exdb_sink_owner_len(const char *state) {
    const char *dot = strrchr(state, '.');
    return dot ? (int)(dot - state) : 0;
}

/* The call_module nodes of m's graph: drop the args their child's sinking
 * removed. 0 or -1 (err). */
static int filter_calls(exdb_urun *r, exdb_umodule *m, sink_plan *plan, const char *mname,
                        exdb_error *err) {
    int rc = 0;
    /* call_module nodes: drop args the child's sinking removed */
    for (exdb_node *n = m->graph->head; n && rc == 0; n = n->next) {
        if (n->op != EXDB_OP_CALL_MODULE)
            continue;
        /* submodule = _get_attr(module, node.target): raises when dedup of
         * an earlier call left the target unresolvable */
        int is_mod = 0;
        char why[EXDB_MAX_NAME_BYTES + 64];
        snprintf(why, sizeof why, "_sink_params of module %s, call_module %s", mname, n->name);
        exdb_umodule *sub = exdb_modtree_get_attr_list(m, n->target, &is_mod, why, err);
        if (!sub) {
            rc = -1;
            break;
        }
        if (!is_mod || sub->id >= plan->nmodules || !plan->removed[sub->id].done)
            continue;
        if (filter_call_args(r, n, &plan->removed[sub->id]) < 0)
            rc = exdb_errorf(err, "out of memory");
    }
    return rc;
}

/* One module of _sink_params: drop the args its children's sinking removed
 * from its call_module nodes, then turn each placeholder that is state in
 * this scope into a get_attr after the last placeholder (or just erase it
 * when unused). */
int exdb_sink_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err) {
    exdb_umodule *m = w->module;
    sink_plan *plan = (sink_plan *)w->node;
    exdb_graph *g = m->graph;
    const char *mname = w->name[0] ? w->name : "<root>";
    /* inputs, the_last_input */
    uint32_t ninputs = 0;
    for (exdb_node *n = g->head; n; n = n->next)
        ninputs += n->op == EXDB_OP_PLACEHOLDER;
    exdb_node *inline_inputs[16];
    exdb_node **inputs = ninputs <= 16 ? inline_inputs : malloc(ninputs * sizeof *inputs);
    if (!inputs)
        return exdb_errorf(err, "out of memory");
    uint32_t k = 0;
    for (exdb_node *n = g->head; n && k < ninputs; n = n->next)
        if (n->op == EXDB_OP_PLACEHOLDER)
            inputs[k++] = n;
    exdb_node *last = ninputs ? inputs[ninputs - 1] : NULL;
    exdb_sink_rec *recs = exdb_arena_alloc(&r->arena, (ninputs ? ninputs : 1) * sizeof *recs);
    uint32_t nrecs = 0;
    int rc = recs ? 0 : exdb_errorf(err, "out of memory");
    if (recs)
        rc = filter_calls(r, m, plan, mname, err);
    sink_removed *removed = &plan->removed[m->id];
    for (uint32_t i = 0; i < ninputs && rc == 0; i++) {
        exdb_node *ph = inputs[i];
        /* big tables (the root module's 300k inputs at 1M nodes) are probed
         * at random: inputs_to_state's and the graph's names slots of the
         * input SINK_AHEAD on (looked up, then erased) are fetched meanwhile */
        if (i + SINK_AHEAD < ninputs) {
            uint32_t h = exdb_node_name_hash(inputs[i + SINK_AHEAD]);
            exdb_strmap_prefetch(&r->inputs_to_state, h);
            exdb_strmap_prefetch(&g->names, h);
        }
        /* the name's hash the node has: no strlen, no hash of the text */
        void **ts = exdb_strmap_find_hashed(&r->inputs_to_state, ph->name, exdb_node_name_hash(ph));
        const char **targets = ts ? *ts : NULL;
        if (!targets)
            continue;
        const char *rest = NULL, *matched = NULL;
        for (const char **t = targets; *t && !rest; t++)
            if (scope_matches(*t, w->scope, w->nscope, &rest))
                matched = *t;
        if (!rest) {
            if (targets[0])
                note(recs, &nrecs, ph, targets, NULL, NULL, EXDB_SINK_KEPT, w);
            continue;
        }
        note(recs, &nrecs, ph, targets, matched, rest,
             ph->nusers > 0 ? EXDB_SINK_GET_ATTR : EXDB_SINK_ERASED, w);
        if (ph->nusers > 0) {
            if (!state_attr_ok(m, rest)) {
                rc = exdb_errorf(err,
                                 "AssertionError: expected state_attr to be torch.Tensor or "
                                 "torch.ScriptObject: no state '%s' (placeholder %s, module '%s')",
                                 rest, ph->name, mname);
                break;
            }
            exdb_insert_mode mode = g->insert_mode;
            exdb_node *ref = g->insert_ref;
            exdb_graph_insert_after(g, last);
            exdb_node *ga =
                exdb_graph_create_node(g, EXDB_OP_GET_ATTR, rest, EXDB_T_STR, NULL, NULL, NULL);
            exdb_graph_insert_after(g, NULL); /* logs the insertion point, then: */
            g->insert_mode = mode;
            g->insert_ref = ref;
            if (!ga) {
                rc = exdb_errorf(err, "out of memory");
                break;
            }
            ga->meta = ph->meta; /* propagate_meta=True */
            if (exdb_node_replace_all_uses_with(ph, ga) < 0) {
                rc = exdb_errorf(err, "out of memory");
                break;
            }
        }
        if (exdb_graph_erase_node(g, ph, err) < 0) {
            rc = -1;
            break;
        }
        exdb_arena_will_write(&r->arena, removed, sizeof *removed);
        if (!removed->names) {
            removed->names = exdb_arena_alloc(&r->arena, ninputs * sizeof *removed->names);
            if (!removed->names) {
                rc = exdb_errorf(err, "out of memory");
                break;
            }
        }
        removed->names[removed->n++] = ph->name; /* placeholder names are unique */
    }
    if (inputs != inline_inputs)
        free(inputs);
    if (rc == 0) {
        exdb_arena_will_write(&r->arena, removed, sizeof *removed);
        removed->done = 1;
        removed->recs = recs;
        removed->nrecs = nrecs;
        rc = exdb_finalize(r, m, err); /* if isinstance(module, InterpreterModule) */
    }
    return rc;
}
