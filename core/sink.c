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

#include "unflatten.h"

typedef struct sframe {
    exdb_umodule *m;
    const char **scope;
    uint32_t nscope;
    uint32_t next; /* next child slot */
} sframe;

static char *id_key(exdb_urun *r, const exdb_umodule *m) {
    return exdb_arena_printf(&r->arena, "%u", m->id);
}

int exdb_usink_plan(exdb_urun *r, exdb_error *err) {
    uint32_t cap = 16, n = 0;
    sframe *st = malloc(cap * sizeof *st);
    uint8_t *done = calloc(r->nmodules ? r->nmodules : 1, 1);
    if (!st || !done) {
        free(st);
        free(done);
        return exdb_errorf(err, "out of memory");
    }
    st[n++] = (sframe){r->root, NULL, 0, 0};
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
            if (done[c->id])
                continue;
            const char **scope = exdb_arena_alloc(&r->arena, (top->nscope + 1) * sizeof *scope);
            if (!scope) {
                rc = exdb_errorf(err, "out of memory");
                break;
            }
            if (top->nscope)
                memcpy(scope, top->scope, top->nscope * sizeof *scope);
            scope[top->nscope] = name;
            if (n == cap) {
                cap *= 2;
                sframe *ns = realloc(st, cap * sizeof *ns);
                if (!ns) {
                    rc = exdb_errorf(err, "out of memory");
                    break;
                }
                st = ns;
                top = &st[n - 1];
            }
            st[n++] = (sframe){c, scope, top->nscope + 1, 0};
            continue;
        }
        /* post-visit */
        exdb_umodule *m = top->m;
        if (m->graph && m->graph->count > 0) {
            exdb_uwork w = {0};
            w.module = m;
            w.scope = top->scope;
            w.nscope = top->nscope;
            exdb_buf b;
            exdb_buf_init(&b);
            for (uint32_t i = 0; i < top->nscope; i++)
                exdb_buf_printf(&b, "%s%s", i ? "." : "", top->scope[i]);
            w.name = exdb_ustrdup(r, exdb_buf_str(&b));
            exdb_buf_free(&b);
            if (!w.name || exdb_uwork_push(r, w) < 0)
                rc = exdb_errorf(err, "out of memory");
            done[m->id] = 1;
        }
        n--;
    }
    free(st);
    free(done);
    return rc;
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
    char atom[512];
    const char *s = path;
    for (;;) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return 0;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod;
        void *v = exdb_umod_getattr(m, atom, &is_mod);
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

int exdb_usink_apply(exdb_urun *r, const exdb_uwork *w, exdb_error *err) {
    exdb_umodule *m = w->module;
    exdb_graph *g = m->graph;
    const char *mname = w->name[0] ? w->name : "<root>";
    /* inputs, the_last_input */
    uint32_t ninputs = 0;
    for (exdb_node *n = g->head; n; n = n->next)
        ninputs += n->op == EXDB_OP_PLACEHOLDER;
    exdb_node **inputs = malloc((ninputs ? ninputs : 1) * sizeof *inputs);
    if (!inputs)
        return exdb_errorf(err, "out of memory");
    uint32_t k = 0;
    for (exdb_node *n = g->head; n; n = n->next)
        if (n->op == EXDB_OP_PLACEHOLDER)
            inputs[k++] = n;
    exdb_node *last = ninputs ? inputs[ninputs - 1] : NULL;
    int rc = 0;
    /* call_module nodes: drop args the child's sinking removed */
    for (exdb_node *n = g->head; n && rc == 0; n = n->next) {
        if (n->op != EXDB_OP_CALL_MODULE)
            continue;
        exdb_umodule *sub = exdb_umod_get_path(m, n->target);
        if (!sub)
            continue;
        char key[16];
        snprintf(key, sizeof key, "%u", sub->id);
        exdb_ustrset *removed = exdb_strmap_get(&r->removed_by_module, key);
        if (!removed)
            continue;
        exdb_arg nargs;
        if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, n->args.n, &nargs) < 0) {
            rc = exdb_errorf(err, "out of memory");
            break;
        }
        uint32_t keep = 0;
        for (uint32_t i = 0; i < n->args.n; i++) {
            const exdb_arg *a = &n->args.u.items[i];
            if (a->kind == EXDB_ARG_NODE && exdb_ustrset_has(removed, a->u.node->name))
                continue;
            nargs.u.items[keep++] = *a;
        }
        if (keep != n->args.n) {
            nargs.n = keep;
            if (exdb_node_set_args(n, &nargs, NULL) < 0)
                rc = exdb_errorf(err, "out of memory");
        }
    }
    exdb_ustrset *removed = exdb_arena_calloc(&r->arena, 1, sizeof *removed);
    if (!removed && rc == 0)
        rc = exdb_errorf(err, "out of memory");
    if (removed)
        exdb_strmap_init(&removed->index, &r->arena);
    for (uint32_t i = 0; i < ninputs && rc == 0; i++) {
        exdb_node *ph = inputs[i];
        const char **targets = exdb_strmap_get(&r->inputs_to_state, ph->name);
        if (!targets)
            continue;
        const char *rest = NULL;
        for (const char **t = targets; *t; t++)
            if (scope_matches(*t, w->scope, w->nscope, &rest))
                break;
        if (!rest)
            continue;
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
            g->insert_mode = mode;
            g->insert_ref = ref;
            if (!ga) {
                rc = exdb_errorf(err, "out of memory");
                break;
            }
            ga->meta = ph->meta; /* propagate_meta=True */
            exdb_node_replace_all_uses_with(ph, ga);
        }
        if (exdb_graph_erase_node(g, ph, err) < 0) {
            rc = -1;
            break;
        }
        if (exdb_ustrset_add(r, removed, ph->name) < 0)
            rc = exdb_errorf(err, "out of memory");
    }
    free(inputs);
    if (rc == 0) {
        char *key = id_key(r, m);
        void **slot = key ? exdb_strmap_put(&r->removed_by_module, key, NULL) : NULL;
        if (!slot)
            return exdb_errorf(err, "out of memory");
        *slot = removed;
    }
    return rc;
}
