/* modtree.c - the module objects unflatten builds: InterpreterModule,
 * plain torch.nn.Module intermediates, dispatchers, and the Python
 * attribute semantics the upstream code relies on (_modules dicts shared
 * between the calls of one module, setattr/getattr, _add_submodule,
 * set_submodule, _assign_attr, _add_spec) plus _reorder_submodules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unflatten.h"

char *exdb_ustrdup(exdb_urun *r, const char *s) {
    return exdb_arena_strdup(&r->arena, s);
}

/* ---- ordered dicts */

static int udict_init(exdb_urun *r, exdb_udict *d) {
    memset(d, 0, sizeof *d);
    exdb_strmap_init(&d->index, &r->arena);
    return 0;
}

void *exdb_udict_get(const exdb_udict *d, const char *key) {
    void **slot = exdb_strmap_find(&d->index, key);
    if (!slot || !*slot)
        return NULL;
    return d->vals[(uintptr_t)*slot - 1];
}

/* d[key] = val: in place when present, appended otherwise. */
int exdb_udict_set(exdb_urun *r, exdb_udict *d, const char *key, void *val) {
    int created;
    void **slot = exdb_strmap_put(&d->index, key, &created);
    if (!slot)
        return -1;
    if (*slot) {
        d->vals[(uintptr_t)*slot - 1] = val;
        return 0;
    }
    if (d->n == d->cap) {
        uint32_t ncap = d->cap ? d->cap * 2 : 4;
        const char **nk = exdb_arena_alloc(&r->arena, ncap * sizeof *nk);
        void **nv = exdb_arena_alloc(&r->arena, ncap * sizeof *nv);
        if (!nk || !nv)
            return -1;
        if (d->n) {
            memcpy(nk, d->keys, d->n * sizeof *nk);
            memcpy(nv, d->vals, d->n * sizeof *nv);
        }
        d->keys = nk;
        d->vals = nv;
        d->cap = ncap;
    }
    d->keys[d->n] = key;
    d->vals[d->n] = val;
    d->n++;
    d->live++;
    *slot = (void *)(uintptr_t)d->n;
    return 0;
}

void *exdb_udict_pop(exdb_udict *d, const char *key) {
    void **slot = exdb_strmap_find(&d->index, key);
    if (!slot || !*slot)
        return NULL;
    uint32_t i = (uint32_t)((uintptr_t)*slot - 1);
    void *v = d->vals[i];
    d->vals[i] = NULL;
    *slot = NULL;
    d->live--;
    return v;
}

/* ---- module objects */

exdb_umodule *exdb_umod_new(exdb_urun *r, exdb_umod_kind kind, const char *type) {
    exdb_umodule *m = exdb_arena_calloc(&r->arena, 1, sizeof *m);
    exdb_udict *ch = exdb_arena_calloc(&r->arena, 1, sizeof *ch);
    if (!m || !ch)
        return NULL;
    m->kind = (uint8_t)kind;
    m->type = type;
    udict_init(r, ch);
    udict_init(r, &m->attrs);
    m->children = ch;
    if (kind == EXDB_UMOD_INTERP || kind == EXDB_UMOD_ROOT) {
        m->graph = exdb_graph_new(&r->arena);
        if (!m->graph)
            return NULL;
    }
    if (r->nmodules == r->modules_cap) {
        uint32_t ncap = r->modules_cap ? r->modules_cap * 2 : 64;
        exdb_umodule **nm = exdb_arena_alloc(&r->arena, ncap * sizeof *nm);
        if (!nm)
            return NULL;
        if (r->nmodules)
            memcpy(nm, r->modules, r->nmodules * sizeof *nm);
        r->modules = nm;
        r->modules_cap = ncap;
    }
    m->id = r->nmodules;
    r->modules[r->nmodules++] = m;
    return m;
}

void *exdb_umod_getattr(exdb_umodule *m, const char *name, int *is_module) {
    void *a = exdb_udict_get(&m->attrs, name);
    if (a) {
        *is_module = 0;
        return a;
    }
    *is_module = 1;
    return exdb_udict_get(m->children, name);
}

/* setattr(m, name, module): into _modules, out of the other dicts. */
static int setattr_module(exdb_urun *r, exdb_umodule *m, const char *name, exdb_umodule *sub) {
    exdb_udict_pop(&m->attrs, name);
    return exdb_udict_set(r, m->children, name, sub);
}

static int setattr_value(exdb_urun *r, exdb_umodule *m, const char *name, exdb_uattr *a) {
    exdb_udict_pop(m->children, name);
    return exdb_udict_set(r, &m->attrs, name, a);
}

/* Splits "a.b.c" into arena atoms. */
static const char **split_dots(exdb_urun *r, const char *path, uint32_t *n) {
    uint32_t count = 1;
    for (const char *p = path; *p; p++)
        count += *p == '.';
    const char **atoms = exdb_arena_alloc(&r->arena, count * sizeof *atoms);
    if (!atoms)
        return NULL;
    const char *s = path;
    for (uint32_t i = 0; i < count; i++) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        atoms[i] = exdb_arena_strndup(&r->arena, s, len);
        if (!atoms[i])
            return NULL;
        s = e ? e + 1 : s + len;
    }
    *n = count;
    return atoms;
}

exdb_umodule *exdb_umod_get_path(exdb_umodule *m, const char *path) {
    if (!path[0])
        return m;
    char atom[512];
    const char *s = path;
    while (m) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return NULL;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod;
        void *v = exdb_umod_getattr(m, atom, &is_mod);
        if (!v || !is_mod)
            return NULL;
        m = v;
        if (!e)
            return m;
        s = e + 1;
    }
    return NULL;
}

/* _add_submodule(mod, target, module_to_add, create_module): missing
 * intermediates come from create_module, which reuses created_modules. */
int exdb_umod_add_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                            const char *parent_fqn, const char *ty) {
    uint32_t n;
    const char **atoms = split_dots(r, target, &n);
    if (!atoms)
        return -1;
    for (uint32_t i = 0; i + 1 < n; i++) {
        int is_mod;
        void *v = exdb_umod_getattr(m, atoms[i], &is_mod);
        if (!v) {
            exdb_umodule *sub = NULL;
            if (parent_fqn) { /* create_module(".".join(prefix[: i + 1])) */
                exdb_buf pb;
                exdb_buf_init(&pb);
                exdb_buf_puts(&pb, parent_fqn);
                for (uint32_t k = 0; k <= i; k++) {
                    if (pb.len)
                        exdb_buf_putc(&pb, '.');
                    exdb_buf_puts(&pb, atoms[k]);
                }
                const char *path = exdb_ustrdup(r, exdb_buf_str(&pb));
                exdb_buf_free(&pb);
                if (!path)
                    return -1;
                sub = exdb_strmap_get(&r->created_modules, path);
                if (!sub) {
                    sub = exdb_umod_new(r, EXDB_UMOD_INTERP, ty);
                    void **slot = exdb_strmap_put(&r->created_modules, path, NULL);
                    if (!sub || !slot)
                        return -1;
                    *slot = sub;
                }
            } else {
                sub = exdb_umod_new(r, EXDB_UMOD_PLAIN, NULL);
                if (!sub)
                    return -1;
            }
            if (setattr_module(r, m, atoms[i], sub) < 0)
                return -1;
            v = sub;
            is_mod = 1;
        }
        if (!is_mod)
            return 0; /* `return False`: not a module, nothing added */
        m = v;
    }
    return exdb_udict_set(r, m->children, atoms[n - 1], add);
}

int exdb_umod_set_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                            exdb_error *err) {
    uint32_t n;
    const char **atoms = split_dots(r, target, &n);
    if (!atoms)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i + 1 < n; i++) {
        int is_mod;
        void *v = exdb_umod_getattr(m, atoms[i], &is_mod);
        if (!v || !is_mod)
            return exdb_errorf(err, "set_submodule(%s): `%s` is not an nn.Module", target,
                               atoms[i]);
        m = v;
    }
    return setattr_module(r, m, atoms[n - 1], add) < 0 ? exdb_errorf(err, "out of memory") : 0;
}

const char *exdb_umod_add_spec(exdb_urun *r, exdb_umodule *m, const exdb_treespec *spec,
                               const char *text) {
    char name[32];
    int is_mod;
    for (int i = 0;; i++) {
        snprintf(name, sizeof name, "_spec_%d", i);
        if (!exdb_umod_getattr(m, name, &is_mod))
            break;
    }
    exdb_uattr *a = exdb_arena_calloc(&r->arena, 1, sizeof *a);
    const char *nm = exdb_ustrdup(r, name);
    if (!a || !nm)
        return NULL;
    a->kind = EXDB_UATTR_SPEC;
    a->spec = spec;
    a->spec_text = text;
    a->identity = spec;
    return setattr_value(r, m, nm, a) < 0 ? NULL : nm;
}

/* _assign_attr(from_obj, root, target, attr_kind, persistent): the value is
 * set on every call-name variant (foo, foo@1, ...) of each prefix atom. */
int exdb_umod_assign_state(exdb_urun *r, exdb_umodule *root, const char *target,
                           exdb_uattr_kind kind, int persistent, const void *identity,
                           exdb_error *err) {
    uint32_t n;
    const char **atoms = split_dots(r, target, &n);
    if (!atoms)
        return exdb_errorf(err, "out of memory");
    uint32_t cap = 8, cnt = 1;
    exdb_umodule **cur = malloc(cap * sizeof *cur);
    if (!cur)
        return exdb_errorf(err, "out of memory");
    cur[0] = root;
    for (uint32_t i = 0; i + 1 < n; i++) {
        const char *item = atoms[i];
        uint32_t ncap = 8, ncnt = 0;
        exdb_umodule **next = malloc(ncap * sizeof *next);
        if (!next) {
            free(cur);
            return exdb_errorf(err, "out of memory");
        }
        for (uint32_t k = 0; k < cnt; k++) {
            exdb_umodule *tm = cur[k];
            int is_mod;
            if (!exdb_umod_getattr(tm, item, &is_mod)) {
                exdb_umodule *plain = exdb_umod_new(r, EXDB_UMOD_PLAIN, NULL);
                if (!plain || setattr_module(r, tm, item, plain) < 0) {
                    free(cur);
                    free(next);
                    return exdb_errorf(err, "out of memory");
                }
            }
            char variant[600];
            for (int v = 0;; v++) {
                if (v == 0)
                    snprintf(variant, sizeof variant, "%s", item);
                else
                    snprintf(variant, sizeof variant, "%s@%d", item, v);
                exdb_umodule *sub = exdb_udict_get(tm->children, variant);
                if (!sub) {
                    if (v == 0)
                        continue;
                    break;
                }
                int dup = 0;
                for (uint32_t q = 0; q < ncnt; q++)
                    dup |= next[q] == sub;
                if (dup)
                    continue;
                if (ncnt == ncap) {
                    ncap *= 2;
                    exdb_umodule **g = realloc(next, ncap * sizeof *g);
                    if (!g) {
                        free(cur);
                        free(next);
                        return exdb_errorf(err, "out of memory");
                    }
                    next = g;
                }
                next[ncnt++] = sub;
            }
        }
        free(cur);
        cur = next;
        cnt = ncnt;
        cap = ncap;
    }
    (void)cap;
    const char *field = atoms[n - 1];
    int rc = 0;
    for (uint32_t k = 0; k < cnt && rc == 0; k++) {
        exdb_umodule *tm = cur[k];
        exdb_uattr *old = exdb_udict_get(&tm->attrs, field);
        exdb_uattr *a = exdb_arena_calloc(&r->arena, 1, sizeof *a);
        if (!a) {
            rc = exdb_errorf(err, "out of memory");
            break;
        }
        a->kind = (uint8_t)kind;
        a->persistent = (uint8_t)persistent;
        a->state = target;
        a->identity = identity;
        if (kind == EXDB_UATTR_CONST && old && old->kind == EXDB_UATTR_BUFFER) {
            /* setattr of a tensor onto a registered buffer replaces the buffer */
            a->kind = EXDB_UATTR_BUFFER;
            a->persistent = old->persistent;
            a->state = old->state;
        } else if (kind != EXDB_UATTR_CONST && exdb_udict_get(tm->children, field)) {
            rc = exdb_errorf(err, "_assign_attr(%s): attribute '%s' already exists", target, field);
            break;
        }
        if (setattr_value(r, tm, field, a) < 0)
            rc = exdb_errorf(err, "out of memory");
    }
    free(cur);
    return rc;
}

/* ---- _reorder_submodules */

typedef struct order_ctx {
    exdb_urun *r;
    exdb_strmap order; /* fqn -> (uintptr_t)(index + 1) */
    const char **keys; /* insertion order */
    uint32_t nkeys, cap;
} order_ctx;

static int order_add(order_ctx *o, const char *fqn, int overwrite) {
    int created;
    void **slot = exdb_strmap_put(&o->order, fqn, &created);
    if (!slot)
        return -1;
    if (!created && *slot && !overwrite)
        return 0;
    if (!*slot) {
        if (o->nkeys == o->cap) {
            uint32_t ncap = o->cap ? o->cap * 2 : 64;
            const char **nk = exdb_arena_alloc(&o->r->arena, ncap * sizeof *nk);
            if (!nk)
                return -1;
            if (o->nkeys)
                memcpy(nk, o->keys, o->nkeys * sizeof *nk);
            o->keys = nk;
            o->cap = ncap;
        }
        o->keys[o->nkeys++] = fqn;
    }
    *slot = (void *)(uintptr_t)(o->nkeys); /* len(fqn_order) at insertion */
    return 0;
}

static long order_get(const order_ctx *o, const char *fqn) {
    void *v = exdb_strmap_get(&o->order, fqn);
    return v ? (long)(uintptr_t)v - 1 : -1;
}

typedef struct child_rec {
    long key;
    uint32_t seq;
    const char *name;
    exdb_umodule *child;
} child_rec;

static int child_cmp(const void *a, const void *b) {
    const child_rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Recursion depth is the module tree's depth. */
static int reorder(order_ctx *o, exdb_umodule *parent, const char *prefix) {
    exdb_udict *d = parent->children;
    uint32_t n = 0;
    child_rec *recs = malloc((d->n ? d->n : 1) * sizeof *recs);
    if (!recs)
        return -1;
    /* snapshot: list(parent._modules.items()) */
    uint32_t total = d->n;
    const char **keys = malloc((total ? total : 1) * sizeof *keys);
    void **vals = malloc((total ? total : 1) * sizeof *vals);
    if (!keys || !vals) {
        free(recs);
        free(keys);
        free(vals);
        return -1;
    }
    if (total) {
        memcpy(keys, d->keys, total * sizeof *keys);
        memcpy(vals, d->vals, total * sizeof *vals);
    }
    for (uint32_t i = 0; i < total; i++) {
        if (!vals[i])
            continue;
        exdb_umodule *child = vals[i];
        char *fqn = exdb_arena_printf(&o->r->arena, "%s%s", prefix, keys[i]);
        if (!fqn)
            goto fail;
        char *base = exdb_ustrdup(o->r, fqn);
        if (!base)
            goto fail;
        char *at = strchr(base, '@');
        if (at)
            *at = '\0';
        char *cprefix = exdb_arena_printf(&o->r->arena, "%s.", base);
        if (!cprefix || reorder(o, child, cprefix) < 0)
            goto fail;
        long k = order_get(o, fqn);
        if (k < 0)
            k = order_get(o, base);
        if (k < 0)
            k = (long)o->nkeys;
        recs[n].key = k;
        recs[n].seq = n;
        recs[n].name = keys[i];
        recs[n].child = child;
        n++;
    }
    /* delattr each, then register_module in sorted order: rebuild in place
     * (the dict object may be shared between calls of one module) */
    qsort(recs, n, sizeof *recs, child_cmp);
    exdb_udict nd;
    udict_init(o->r, &nd);
    for (uint32_t i = 0; i < total; i++)
        if (vals[i])
            exdb_udict_pop(d, keys[i]);
    for (uint32_t i = 0; i < n; i++)
        if (exdb_udict_set(o->r, &nd, recs[i].name, recs[i].child) < 0)
            goto fail;
    /* names popped but still present in d (set during recursion) survive */
    for (uint32_t i = 0; i < d->n; i++)
        if (d->vals[i] && exdb_udict_set(o->r, &nd, d->keys[i], d->vals[i]) < 0)
            goto fail;
    *d = nd;
    free(recs);
    free(keys);
    free(vals);
    return 0;
fail:
    free(recs);
    free(keys);
    free(vals);
    return -1;
}

typedef struct nm_ctx {
    order_ctx *o;
    int failed;
} nm_ctx;

static void add_named(void *vctx, const char *fqn, exdb_umodule *m) {
    (void)m;
    nm_ctx *c = vctx;
    if (order_add(c->o, exdb_ustrdup(c->o->r, fqn), 0) < 0)
        c->failed = 1;
}

/* _get_submodule(parent, fqn) is None */
static int missing_submodule(exdb_umodule *m, const char *fqn) {
    const char *s = fqn;
    char atom[512];
    for (;;) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return 1;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod;
        void *v = exdb_umod_getattr(m, atom, &is_mod);
        if (!e)
            return v == NULL;
        if (!v || !is_mod)
            return 1;
        m = v;
        s = e + 1;
    }
}

/* fqn_order = module_call_graph order (minus redirected and "@" fqns), then
 * every remaining named_modules path; missing call-graph fqns get empty
 * modules; children are re-registered in that order. */
int exdb_ureorder_submodules(exdb_urun *r, exdb_error *err) {
    order_ctx o = {.r = r};
    exdb_strmap_init(&o.order, &r->arena);
    const exdb_program *p = r->prog;
    for (uint32_t i = 0; i < p->ncalls; i++) {
        const char *fqn = p->calls[i].fqn;
        if (exdb_strmap_get(&r->redirected, fqn) || strchr(fqn, '@'))
            continue;
        if (order_add(&o, fqn, 1) < 0)
            return exdb_errorf(err, "out of memory");
    }
    nm_ctx c = {&o, 0};
    exdb_unflatten_named_modules_run(r, add_named, &c);
    if (c.failed)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 1; i < o.nkeys; i++) {
        if (missing_submodule(r->root, o.keys[i])) {
            exdb_umodule *m = exdb_umod_new(r, EXDB_UMOD_PLAIN, NULL);
            if (!m || exdb_umod_add_submodule(r, r->root, o.keys[i], m, NULL, NULL) < 0)
                return exdb_errorf(err, "out of memory");
        }
    }
    if (reorder(&o, r->root, "") < 0)
        return exdb_errorf(err, "out of memory");
    return 0;
}
