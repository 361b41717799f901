/* modtree.c - the module objects unflatten builds: InterpreterModule,
 * plain torch.nn.Module intermediates, dispatchers, and the Python
 * attribute semantics the upstream code relies on (_modules dicts shared
 * between the calls of one module, setattr/getattr, _add_submodule,
 * set_submodule, _assign_attr, _add_spec) plus _reorder_submodules. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/unflatten/modtree.h"
#include "core/unflatten/udict.h"
#include "core/unflatten/urun.h"

/* ---- module objects */

/* A plain module (an intermediate, or an empty one _reorder_submodules
 * adds) shares the run's empty dict for its _modules until something is
 * set in it; the kinds whose _modules other module objects share (the
 * calls of one module, a dispatcher) get their own at once. Every module
 * starts with no attributes. */
exdb_umodule *exdb_modtree_new(exdb_urun *r, exdb_umod_kind kind, const char *type) {
    exdb_umodule *m = exdb_arena_calloc(&r->arena, 1, sizeof *m);
    if (!m)
        return NULL;
    m->kind = (uint8_t)kind;
    m->type = type;
    m->children = m->attrs = r->no_entries;
    if (kind != EXDB_UMOD_PLAIN) {
        exdb_udict *ch = exdb_arena_calloc(&r->arena, 1, sizeof *ch);
        if (!ch)
            return NULL;
        exdb_udict_init(r, ch);
        m->children = ch;
    }
    if (kind == EXDB_UMOD_INTERP || kind == EXDB_UMOD_ROOT) {
        m->graph = exdb_graph_new(&r->arena);
        if (!m->graph)
            return NULL;
    }
    if (r->nmodules == r->modules_cap) {
        exdb_umodule **nm =
            exdb_arena_grow(&r->arena, r->modules, r->nmodules, &r->modules_cap, sizeof *nm, 64);
        if (!nm)
            return NULL;
        r->modules = nm;
    }
    m->id = r->nmodules;
    EXDB_WILL_WRITE(&r->arena, r->modules[r->nmodules]);
    r->modules[r->nmodules++] = m;
    return m;
}

exdb_udict *exdb_modtree_own_dict(exdb_urun *r, exdb_udict **d) {
    if (*d != r->no_entries)
        return *d;
    exdb_udict *nd = exdb_arena_calloc(&r->arena, 1, sizeof *nd);
    if (!nd)
        return NULL;
    exdb_udict_init(r, nd);
    EXDB_WILL_WRITE(&r->arena, *d);
    *d = nd;
    return nd;
}

void *exdb_modtree_getattr(exdb_umodule *m, const char *name, int *is_module) {
    void *a = exdb_udict_get(m->attrs, name);
    if (a) {
        *is_module = 0;
        return a;
    }
    *is_module = 1;
    return exdb_udict_get(m->children, name);
}

/* setattr(m, name, module): into _modules, out of the other dicts. */
static int setattr_module(exdb_urun *r, exdb_umodule *m, const char *name, exdb_umodule *sub) {
    exdb_udict_pop(m->attrs, name);
    exdb_udict *d = exdb_modtree_own_dict(r, &m->children);
    return d ? exdb_udict_set(r, d, name, sub) : -1;
}

static int setattr_value(exdb_urun *r, exdb_umodule *m, const char *name, exdb_uattr *a) {
    exdb_udict_pop(m->children, name);
    exdb_udict *d = exdb_modtree_own_dict(r, &m->attrs);
    return d ? exdb_udict_set(r, d, name, a) : -1;
}

/* The dotted-path atom at s as a NUL-terminated string: in buf when it
 * fits, else copied into the arena. Lookups need no lasting copy; a key
 * that is stored is copied with exdb_arena_strndup by the caller. */
static const char *atom_at(exdb_urun *r, const char *s, size_t len, char *buf, size_t cap) {
    if (len < cap) {
        memcpy(buf, s, len);
        buf[len] = '\0';
        return buf;
    }
    return exdb_arena_strndup(&r->arena, s, len);
}

exdb_umodule *exdb_modtree_get_path(exdb_umodule *m, const char *path) {
    if (!path[0])
        return m;
    char atom[EXDB_MAX_NAME_BYTES + 1];
    const char *s = path;
    while (m) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return NULL;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod;
        void *v = exdb_modtree_getattr(m, atom, &is_mod);
        if (!v || !is_mod)
            return NULL;
        m = v;
        if (!e)
            return m;
        s = e + 1;
    }
    return NULL;
}

/* type(value).__name__ of an attribute, for Python's AttributeError text */
static const char *attr_class(const exdb_uattr *a) {
    switch (a->kind) {
    case EXDB_UATTR_PARAM:
        return "Parameter";
    case EXDB_UATTR_SPEC:
        return "TreeSpec";
    case EXDB_UATTR_GRAPH:
        return "GraphModule";
    default:
        return "Tensor";
    }
}

void *exdb_modtree_get_attr_list(exdb_umodule *m, const char *path, int *is_module, const char *why,
                                 exdb_error *err) {
    const exdb_uattr *attr = NULL; /* the object walked onto is this attribute */
    char atom[EXDB_MAX_NAME_BYTES + 1];
    *is_module = 1;
    if (!path[0])
        return m;
    for (const char *s = path;;) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        void *v = NULL;
        int is_mod = 0;
        if (!attr && len < sizeof atom) { /* a tensor or spec: no attributes of interest */
            memcpy(atom, s, len);
            atom[len] = '\0';
            v = exdb_modtree_getattr(m, atom, &is_mod);
        }
        if (!v && dot) { /* getattr(t, item, None) on the prefix */
            exdb_errorf(err, "AssertionError: Attribute '%.*s' not found in model (%s)", (int)len,
                        s, why);
            return NULL;
        }
        if (!v) { /* getattr(t, field) */
            const char *cls = attr ? attr_class(attr) : exdb_modtree_class_name(m);
            exdb_errorf(err, "AttributeError: '%s' object has no attribute '%.*s' (%s)", cls,
                        (int)len, s, why);
            return NULL;
        }
        if (!dot) {
            *is_module = is_mod;
            return v;
        }
        if (is_mod)
            m = v;
        else
            attr = v;
        s = dot + 1;
    }
}

/* _add_submodule(mod, target, module_to_add, create_module): missing
 * intermediates come from create_module, which reuses created_modules.
 * The last atom is a suffix of target, which outlives the run, so only
 * created intermediates need their names copied. */
int exdb_modtree_add_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                               const char *parent_fqn, const char *ty) {
    const char *s = target;
    char buf[512];
    for (;;) {
        size_t len = strcspn(s, ".");
        if (!s[len])
            break;
        const char *atom = atom_at(r, s, len, buf, sizeof buf);
        if (!atom)
            return -1;
        int is_mod;
        void *v = exdb_modtree_getattr(m, atom, &is_mod);
        if (!v) {
            exdb_umodule *sub = NULL;
            const char *key = exdb_arena_strndup(&r->arena, s, len);
            if (!key)
                return -1;
            if (parent_fqn) { /* create_module(".".join(prefix[: i + 1])) */
                size_t lp = strlen(parent_fqn), lt = (size_t)(s + len - target);
                char *path = exdb_arena_alloc(&r->arena, lp + lt + 2);
                if (!path)
                    return -1;
                memcpy(path, parent_fqn, lp);
                if (lp)
                    path[lp++] = '.';
                memcpy(path + lp, target, lt);
                path[lp + lt] = '\0';
                sub = exdb_strmap_get(&r->created_modules, path);
                if (!sub) {
                    sub = exdb_modtree_new(r, EXDB_UMOD_INTERP, ty);
                    void **slot = exdb_strmap_put(&r->created_modules, path, NULL);
                    if (!sub || !slot)
                        return -1;
                    *slot = sub;
                }
            } else {
                sub = exdb_modtree_new(r, EXDB_UMOD_PLAIN, NULL);
                if (!sub)
                    return -1;
            }
            if (setattr_module(r, m, key, sub) < 0)
                return -1;
            v = sub;
            is_mod = 1;
        }
        if (!is_mod)
            return 0; /* `return False`: not a module, nothing added */
        m = v;
        s += len + 1;
    }
    exdb_udict *d = exdb_modtree_own_dict(r, &m->children);
    return d ? exdb_udict_set(r, d, s, add) : -1;
}

/* nn.Module.set_submodule(target, module); target outlives the run. */
int exdb_modtree_set_submodule(exdb_urun *r, exdb_umodule *m, const char *target, exdb_umodule *add,
                               exdb_error *err) {
    const char *s = target;
    char buf[512];
    for (;;) {
        size_t len = strcspn(s, ".");
        if (!s[len])
            break;
        const char *atom = atom_at(r, s, len, buf, sizeof buf);
        if (!atom)
            return exdb_errorf(err, "out of memory");
        int is_mod;
        void *v = exdb_modtree_getattr(m, atom, &is_mod);
        if (!v || !is_mod)
            return exdb_errorf(err, "set_submodule(%s): `%s` is not an nn.Module", target, atom);
        m = v;
        s += len + 1;
    }
    return setattr_module(r, m, s, add) < 0 ? exdb_errorf(err, "out of memory") : 0;
}

const char *exdb_modtree_add_spec(exdb_urun *r, exdb_umodule *m, const exdb_treespec *spec,
                                  const char *text) {
    char name[32];
    int is_mod;
    for (int i = 0;; i++) {
        snprintf(name, sizeof name, "_spec_%d", i);
        if (!exdb_modtree_getattr(m, name, &is_mod))
            break;
    }
    exdb_uattr *a = exdb_arena_calloc(&r->arena, 1, sizeof *a);
    const char *nm = exdb_urun_strdup(r, name);
    if (!a || !nm)
        return NULL;
    a->kind = EXDB_UATTR_SPEC;
    a->spec = spec;
    a->spec_text = text;
    a->identity = spec;
    return setattr_value(r, m, nm, a) < 0 ? NULL : nm;
}

/* A list of module objects, inline while short (_assign_attr's to_modules):
 * a set, so a long one (the N calls of one module, fc, fc@1, ...) gets an
 * open-addressing index of its pointers. */
typedef struct modlist {
    exdb_umodule **v;
    uint32_t n, cap;
    exdb_umodule *inl[8];
    exdb_umodule **set; /* NULL while n <= 8; else 2 * cap slots */
} modlist;

static void modlist_init(modlist *l) {
    l->v = l->inl;
    l->n = 0;
    l->cap = sizeof l->inl / sizeof *l->inl;
    l->set = NULL;
}

static void modlist_free(modlist *l) {
    if (l->v != l->inl)
        free(l->v);
    free(l->set);
}

/* Empties l (its index too: O(its capacity), which its last fill paid). */
static void modlist_clear(modlist *l) {
    l->n = 0;
    if (l->set)
        memset(l->set, 0, 2 * (size_t)l->cap * sizeof *l->set);
}

static uint32_t modlist_slot(exdb_umodule *const *set, uint32_t mask, const exdb_umodule *m) {
    uint32_t h = (m->id * 2654435761u) & mask;
    while (set[h] && set[h] != m)
        h = (h + 1) & mask;
    return h;
}

/* Rebuilds the index for capacity cap (-1 out of memory). */
static int modlist_index(modlist *l, uint32_t cap) {
    exdb_umodule **set = calloc(2 * (size_t)cap, sizeof *set);
    if (!set)
        return -1;
    for (uint32_t i = 0; i < l->n; i++)
        set[modlist_slot(set, 2 * cap - 1, l->v[i])] = l->v[i];
    free(l->set);
    l->set = set;
    return 0;
}

/* Adds m unless present (to_modules is a set). */
static int modlist_add(modlist *l, exdb_umodule *m) {
    if (l->set) {
        if (l->set[modlist_slot(l->set, 2 * l->cap - 1, m)])
            return 0;
    } else {
        for (uint32_t i = 0; i < l->n; i++)
            if (l->v[i] == m)
                return 0;
    }
    if (l->n == l->cap) {
        exdb_umodule **nv = malloc(2 * l->cap * sizeof *nv);
        if (!nv)
            return -1;
        memcpy(nv, l->v, l->n * sizeof *nv);
        if (l->v != l->inl)
            free(l->v);
        l->v = nv;
        l->cap *= 2;
        if (modlist_index(l, l->cap) < 0)
            return -1;
    }
    l->v[l->n++] = m;
    if (l->set)
        l->set[modlist_slot(l->set, 2 * l->cap - 1, m)] = m;
    return 0;
}

static int add_variant(void *ctx, void *val) {
    return modlist_add(ctx, val) < 0 ? -1 : 0;
}

/* The modules of tm's _modules whose key is a call name of item (item,
 * item@1, item@7, ...: every key, in dict order, since dead-code
 * elimination leaves gaps in the call numbers). A dict that never held a
 * key with '@' or '\n' can only match item itself; the others are looked
 * up in the dict's call index (upstream scans every dict: quadratic under
 * a ModuleList of thousands). */
static int add_call_variants(modlist *next, exdb_umodule *tm, const char *item, size_t len) {
    const exdb_udict *d = tm->children;
    if (!d->nodd) {
        exdb_umodule *sub = exdb_udict_get(d, item);
        return sub ? modlist_add(next, sub) : 0;
    }
    return exdb_udict_each_call(d, item, len, add_variant, next);
}

/* _assign_attr(from_obj, root, target, attr_kind, persistent): the value is
 * set on every call-name variant (foo, foo@1, ...) of each prefix atom;
 * a missing atom becomes a plain Module first, and its variants are still
 * found beside it. */
int exdb_modtree_assign_state(exdb_urun *r, exdb_umodule *root, const char *target,
                              exdb_uattr_kind kind, int persistent, const void *identity,
                              exdb_error *err) {
    modlist lists[2];
    modlist_init(&lists[0]);
    modlist_init(&lists[1]);
    modlist *cur = &lists[0], *next = &lists[1];
    cur->v[cur->n++] = root;
    const char *s = target;
    char buf[512];
    int rc = 0;
    for (;;) {
        size_t len = strcspn(s, ".");
        if (!s[len])
            break;
        const char *item = atom_at(r, s, len, buf, sizeof buf);
        if (!item) {
            rc = exdb_errorf(err, "out of memory");
            goto done;
        }
        modlist_clear(next);
        for (uint32_t k = 0; k < cur->n; k++) {
            exdb_umodule *tm = cur->v[k];
            int is_mod;
            if (!exdb_modtree_getattr(tm, item, &is_mod)) {
                exdb_umodule *plain = exdb_modtree_new(r, EXDB_UMOD_PLAIN, NULL);
                const char *key = exdb_arena_strndup(&r->arena, s, len);
                if (!plain || !key || setattr_module(r, tm, key, plain) < 0) {
                    rc = exdb_errorf(err, "out of memory");
                    goto done;
                }
            }
            if (add_call_variants(next, tm, item, len) < 0) {
                rc = exdb_errorf(err, "out of memory");
                goto done;
            }
        }
        modlist *t = cur;
        cur = next;
        next = t;
        s += len + 1;
    }
    const char *field = s; /* a suffix of target: outlives the run */
    for (uint32_t k = 0; k < cur->n && rc == 0; k++) {
        exdb_umodule *tm = cur->v[k];
        exdb_uattr *old = exdb_udict_get(tm->attrs, field);
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
done:
    modlist_free(&lists[0]);
    modlist_free(&lists[1]);
    return rc;
}

/* ---- _reorder_submodules */

/* A child to sort: its fqn_order index above, its position among the
 * live children below (a stable sort of 8 bytes a child: the root of 40k
 * empty modules sorted 32-byte records through qsort's copy of them). */
typedef uint64_t child_rec;
#define REC_SEQ(x) ((uint32_t)(x))

static uint64_t max_path_bytes(const exdb_urun *r);

typedef struct order_ctx {
    exdb_urun *r;
    exdb_arena scratch; /* order and keys: gone when the event ends */
    exdb_strmap order;  /* fqn_order: fqn -> (uintptr_t)(index + 1) */
    const char **keys;  /* its keys in insertion order */
    uint32_t nkeys, cap;
    char *path; /* reorder's prefix + name, grown as needed */
    size_t path_cap;
    exdb_reorder_move *moves; /* fresh memory of the REORDER event */
    uint32_t nmoves, moves_cap;
} order_ctx;

/* Records that the children of the parent at o->path[0..plen) (a prefix
 * ending in '.', or empty for the root) moved from names' order to recs'. */
static int note_move(order_ctx *o, size_t plen, const child_rec *recs, const char *const *names,
                     uint32_t n) {
    uint32_t i = 0;
    while (i < n && REC_SEQ(recs[i]) == i)
        i++;
    if (i == n)
        return 0;
    if (o->nmoves == o->moves_cap) {
        uint32_t ncap = o->moves_cap ? 2 * o->moves_cap : 8;
        exdb_reorder_move *nm = exdb_arena_alloc(&o->r->arena, ncap * sizeof *nm);
        if (!nm)
            return -1;
        if (o->nmoves)
            memcpy(nm, o->moves, o->nmoves * sizeof *nm);
        o->moves = nm;
        o->moves_cap = ncap;
    }
    exdb_reorder_move *m = &o->moves[o->nmoves];
    m->parent = exdb_arena_strndup(&o->r->arena, o->path, plen ? plen - 1 : 0);
    m->before = exdb_arena_alloc(&o->r->arena, n * sizeof *m->before);
    m->after = exdb_arena_alloc(&o->r->arena, n * sizeof *m->after);
    if (!m->parent || !m->before || !m->after)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        m->after[k] = names[REC_SEQ(recs[k])];
        m->before[REC_SEQ(recs[k])] = names[REC_SEQ(recs[k])];
    }
    m->n = n;
    o->nmoves++;
    return 0;
}

/* fqn_order[fqn] = index through fqn's slot, keeping the first
 * insertion's position. */
static int order_store(order_ctx *o, void **slot, const char *fqn, uint32_t index) {
    if (!*slot) {
        if (o->nkeys == o->cap) {
            const char **nk =
                exdb_arena_grow(&o->scratch, o->keys, o->nkeys, &o->cap, sizeof *nk, 64);
            if (!nk)
                return -1;
            o->keys = nk;
        }
        o->keys[o->nkeys++] = fqn;
    }
    *slot = (void *)(uintptr_t)(index + 1);
    return 0;
}

/* fqn_order[fqn] = index, keeping the first insertion's position. */
static int order_set(order_ctx *o, const char *fqn, uint32_t index) {
    void **slot = exdb_strmap_put(&o->order, fqn, NULL);
    return slot ? order_store(o, slot, fqn, index) : -1;
}

/* fqn_order.setdefault(fqn, len(fqn_order)) with one lookup (a get, then
 * a put, hashed and probed each of the 232k module paths of a 1M-node
 * run twice). */
static int order_add(order_ctx *o, const char *fqn) {
    int created;
    void **slot = exdb_strmap_put(&o->order, fqn, &created);
    if (!slot)
        return -1;
    return created ? order_store(o, slot, fqn, o->nkeys) : 0;
}

static long order_get(const order_ctx *o, const char *fqn) {
    void *v = exdb_strmap_get(&o->order, fqn);
    return v ? (long)(uintptr_t)v - 1 : -1;
}

/* Makes room for n bytes of o->path. */
static int path_reserve(order_ctx *o, size_t n) {
    if (n <= o->path_cap)
        return 0;
    size_t ncap = o->path_cap ? o->path_cap : 256;
    while (ncap < n)
        ncap *= 2;
    char *np = realloc(o->path, ncap);
    if (!np)
        return -1;
    o->path = np;
    o->path_cap = ncap;
    return 0;
}

static int child_cmp(const void *a, const void *b) {
    child_rec x = *(const child_rec *)a, y = *(const child_rec *)b;
    return x < y ? -1 : x > y;
}

/* _reorder_submodules(parent, fqn_order, prefix), prefix being
 * o->path[0..plen). Each child sorts at fqn_order.get(fqn,
 * fqn_order.get(base_fqn, len(fqn_order))) and is recursed into with the
 * prefix base_fqn + "." (fqn.split("@")[0]). The lookups are made before
 * the recursion, which never changes fqn_order; recursion depth is the
 * module tree's depth. */
static int reorder(order_ctx *o, exdb_umodule *parent, size_t plen) {
    exdb_udict *d = parent->children;
    uint32_t total = d->n;
    if (!total)
        return 0;
    /* snapshot: list(parent._modules.items()) */
    child_rec *recs = malloc(total * sizeof *recs);
    const char **keys = malloc(total * sizeof *keys);
    void **vals = malloc(total * sizeof *vals);
    uint32_t n = 0;
    if (!recs || !keys || !vals)
        goto fail;
    memcpy(keys, d->keys, total * sizeof *keys);
    memcpy(vals, d->vals, total * sizeof *vals);
    for (uint32_t i = 0; i < total; i++) {
        if (!vals[i])
            continue;
        size_t ln = strlen(keys[i]);
        if (path_reserve(o, plen + ln + 2) < 0)
            goto fail;
        memcpy(o->path + plen, keys[i], ln + 1); /* fqn = prefix + name */
        long k = order_get(o, o->path);
        size_t blen = plen + strcspn(keys[i], "@");
        if (k < 0) {
            o->path[blen] = '\0'; /* base_fqn */
            k = order_get(o, o->path);
        }
        if (k < 0)
            k = (long)o->nkeys;
        exdb_umodule *child = vals[i];
        keys[n] = keys[i]; /* the live children first, in order */
        vals[n] = child;
        recs[n] = (uint64_t)(uint32_t)k << 32 | n;
        n++;
        o->path[blen] = '.';
        if (reorder(o, child, blen + 1) < 0)
            goto fail;
    }
    /* delattr each, then register_module in sorted order: rebuild in place
     * (the dict object may be shared between calls of one module). A dict
     * already in that order, with nothing popped or added, is left as it
     * is: re-registering gives the same dict (most of them: a copy of
     * every dict of the tree otherwise stayed in the arena). */
    qsort(recs, n, sizeof *recs, child_cmp);
    if (note_move(o, plen, recs, keys, n) < 0)
        goto fail;
    uint32_t same = d->n == total && d->live == n && n == total;
    for (uint32_t i = 0; same && i < n; i++)
        same = REC_SEQ(recs[i]) == i && d->vals[i] == vals[i];
    if (same) {
        free(recs);
        free(keys);
        free(vals);
        return 0;
    }
    exdb_udict nd;
    exdb_udict_init(o->r, &nd);
    if (exdb_udict_reserve(o->r, &nd, n) < 0)
        goto fail;
    for (uint32_t i = 0; i < n; i++)
        exdb_udict_pop(d, keys[i]);
    for (uint32_t i = 0; i < n; i++)
        if (exdb_udict_set(o->r, &nd, keys[REC_SEQ(recs[i])], vals[REC_SEQ(recs[i])]) < 0)
            goto fail;
    /* names popped but still present in d (set during recursion) survive */
    for (uint32_t i = 0; i < d->n; i++)
        if (d->vals[i] && exdb_udict_set(o->r, &nd, d->keys[i], d->vals[i]) < 0)
            goto fail;
    EXDB_WILL_WRITE(&o->r->arena, *d);
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

/* _get_submodule(parent, fqn) is None */
static int missing_submodule(exdb_umodule *m, const char *fqn) {
    const char *s = fqn;
    char atom[EXDB_MAX_NAME_BYTES + 1];
    for (;;) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= sizeof atom)
            return 1;
        memcpy(atom, s, len);
        atom[len] = '\0';
        int is_mod;
        void *v = exdb_modtree_getattr(m, atom, &is_mod);
        if (!e)
            return v == NULL;
        if (!v || !is_mod)
            return 1;
        m = v;
        s = e + 1;
    }
}

/* named_modules(remove_duplicate=False) paths not in fqn_order yet get
 * len(fqn_order). Pre-order with an explicit stack; each path is built
 * once in the arena (it becomes a key of fqn_order). Bounded as
 * exdb_modtree_named_modules is: a cycle or more than
 * exdb_modtree_max_paths paths stops it (EXDB_MODTREE_WALK_*), -1 out of
 * memory. */
static int order_named_modules(order_ctx *o) {
    typedef struct nm {
        exdb_umodule *m;
        const char *fqn;
        size_t len;
        uint32_t next;
    } nm;
    uint32_t cap = 32, n = 0, nmod = o->r->nmodules;
    nm *st = malloc(cap * sizeof *st);
    uint8_t *onstack = calloc(nmod ? nmod : 1, 1);
    if (!st || !onstack) {
        free(st);
        free(onstack);
        return -1;
    }
    st[n++] = (nm){o->r->root, "", 0, 0};
    if (o->r->root->id < nmod)
        onstack[o->r->root->id] = 1;
    uint64_t paths = 1, max = exdb_modtree_max_paths(o->r), bytes = 0, maxb = max_path_bytes(o->r);
    int rc = 0;
    rc = order_add(o, "");
    while (n && rc == 0) {
        nm *top = &st[n - 1];
        exdb_udict *d = top->m->children;
        while (top->next < d->n && !d->vals[top->next])
            top->next++;
        if (top->next >= d->n) {
            if (top->m->id < nmod)
                onstack[top->m->id] = 0;
            n--;
            continue;
        }
        const char *name = d->keys[top->next];
        exdb_umodule *c = d->vals[top->next];
        top->next++;
        if (c->id < nmod && onstack[c->id]) {
            rc = EXDB_MODTREE_WALK_CYCLE;
            break;
        }
        size_t ln = strlen(name), len = top->len ? top->len + 1 + ln : ln;
        if (paths++ >= max || (bytes += len + 1) > maxb) {
            rc = EXDB_MODTREE_WALK_CUT;
            break;
        }
        char *fqn = exdb_arena_alloc(&o->r->arena, len + 1);
        if (!fqn) {
            rc = -1;
            break;
        }
        if (top->len) {
            memcpy(fqn, top->fqn, top->len);
            fqn[top->len] = '.';
        }
        memcpy(fqn + len - ln, name, ln + 1);
        rc = order_add(o, fqn);
        if (n == cap) {
            cap *= 2;
            nm *ns = realloc(st, cap * sizeof *ns);
            if (!ns) {
                rc = -1;
                break;
            }
            st = ns;
        }
        if (c->id < nmod)
            onstack[c->id] = 1;
        st[n++] = (nm){c, fqn, len, 0};
    }
    free(st);
    free(onstack);
    return rc;
}

/* Room for n more module objects in r->modules, made once. */
static int modules_reserve(exdb_urun *r, uint32_t n) {
    if ((uint64_t)r->nmodules + n <= r->modules_cap)
        return 0;
    uint64_t cap = (uint64_t)r->nmodules + n;
    if (cap > UINT32_MAX)
        return -1;
    exdb_umodule **nm = exdb_arena_alloc(&r->arena, cap * sizeof *nm);
    if (!nm)
        return -1;
    if (r->nmodules)
        memcpy(nm, r->modules, r->nmodules * sizeof *nm);
    r->modules = nm; /* r itself is compared at the event's end (journal.h) */
    r->modules_cap = (uint32_t)cap;
    return 0;
}

/* Room for the empty modules the fqns of fqn_order that are missing will
 * add: the module objects, and the root's children (the top-level ones).
 * The number missing, or -1 when out of memory. */
static long reserve_added(exdb_urun *r, const order_ctx *o) {
    uint32_t missing = 0, top = 0;
    for (uint32_t k = 1; k < o->nkeys; k++)
        if (missing_submodule(r->root, o->keys[k])) {
            missing++;
            top += !strchr(o->keys[k], '.');
        }
    if (!missing)
        return 0;
    exdb_udict *d = exdb_modtree_own_dict(r, &r->root->children);
    if (!d || modules_reserve(r, missing) < 0 || exdb_udict_reserve(r, d, d->n + top) < 0)
        return -1;
    return missing;
}

/* UnflattenedModule.__init__'s fqn_order (module_call_graph order minus
 * redirected and "@" fqns, then every remaining named_modules path), then
 * _reorder_submodules: missing call-graph fqns get empty modules and
 * children are re-registered in that order. fqn_order lives in a scratch
 * arena. */
int exdb_modtree_reorder_submodules(exdb_urun *r, exdb_error *err) {
    order_ctx o = {.r = r};
    exdb_arena_init(&o.scratch);
    exdb_strmap_init(&o.order, &o.scratch);
    const exdb_program *p = r->prog;
    int rc = exdb_strmap_reserve(&o.order, p->ncalls + r->nmodules);
    uint32_t i = 0; /* {fqn: i for i, fqn in enumerate(fqn_list)} */
    for (uint32_t c = 0; c < p->ncalls && rc == 0; c++) {
        const char *fqn = p->calls[c].fqn;
        if (!exdb_strmap_get(&r->redirected, fqn) && !strchr(fqn, '@'))
            rc = order_set(&o, fqn, i++);
    }
    if (rc == 0) {
        int walk = order_named_modules(&o);
        if (walk != 0) {
            exdb_arena_destroy(&o.scratch);
            return exdb_modtree_walk_error(r, walk, "_reorder_submodules", err);
        }
    }
    long missing = rc < 0 ? -1 : reserve_added(r, &o);
    const char **added =
        missing < 0 ? NULL : exdb_arena_alloc(&r->arena, (size_t)(missing + 1) * sizeof *added);
    uint32_t nadded = 0;
    rc = added ? 0 : -1;
    for (uint32_t k = 1; k < o.nkeys && rc == 0; k++) {
        if (!missing_submodule(r->root, o.keys[k]))
            continue;
        exdb_umodule *m = exdb_modtree_new(r, EXDB_UMOD_PLAIN, NULL);
        if (!m || nadded == missing ||
            exdb_modtree_add_submodule(r, r->root, o.keys[k], m, NULL, NULL) < 0)
            rc = -1;
        else
            added[nadded++] = o.keys[k];
    }
    if (rc == 0)
        rc = path_reserve(&o, 256) < 0 ? -1 : reorder(&o, r->root, 0);
    free(o.path);
    exdb_arena_destroy(&o.scratch);
    r->reorder_moves = o.moves;
    r->nreorder_moves = o.nmoves;
    r->reorder_added = added;
    r->nreorder_added = nadded;
    return rc < 0 ? exdb_errorf(err, "out of memory") : 0;
}

/* ---- named_modules(remove_duplicate=False), pre-order, explicit stack */

uint64_t exdb_modtree_max_paths(const exdb_urun *r) {
    return (uint64_t)EXDB_MODTREE_PATHS_PER_MODULE * r->nmodules + 4096;
}

/* The most bytes of paths (each with its NUL) one walk may build. */
static uint64_t max_path_bytes(const exdb_urun *r) {
    return (uint64_t)1024 * r->nmodules + ((uint64_t)8 << 20);
}

typedef struct nm_frame {
    exdb_umodule *m;
    size_t len; /* its path's length in the walk's path buffer */
    uint32_t next;
} nm_frame;

/* Makes room for n bytes in *buf. */
static int buf_reserve(char **buf, size_t *cap, size_t n) {
    if (n <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 256;
    while (ncap < n)
        ncap *= 2;
    char *nb = realloc(*buf, ncap);
    if (!nb)
        return -1;
    *buf = nb;
    *cap = ncap;
    return 0;
}

int exdb_modtree_named_modules(exdb_urun *r, exdb_umod_visit fn, void *ctx) {
    uint32_t cap = 32, n = 0;
    size_t pcap = 256;
    nm_frame *st = malloc(cap * sizeof *st);
    char *path = malloc(pcap);
    uint8_t *onstack = calloc(r->nmodules ? r->nmodules : 1, 1);
    if (!st || !path || !onstack) {
        free(st);
        free(path);
        free(onstack);
        return -1;
    }
    path[0] = '\0';
    fn(ctx, "", r->root);
    st[n++] = (nm_frame){r->root, 0, 0};
    if (r->root->id < r->nmodules)
        onstack[r->root->id] = 1;
    uint64_t paths = 1, max = exdb_modtree_max_paths(r), bytes = 0, maxb = max_path_bytes(r);
    int rc = 0;
    while (n) {
        nm_frame *top = &st[n - 1];
        exdb_udict *d = top->m->children;
        while (top->next < d->n && !d->vals[top->next])
            top->next++;
        if (top->next >= d->n) {
            if (top->m->id < r->nmodules)
                onstack[top->m->id] = 0;
            n--;
            continue;
        }
        exdb_umodule *c = d->vals[top->next];
        const char *name = d->keys[top->next];
        top->next++;
        size_t ln = strlen(name), len = top->len ? top->len + 1 + ln : ln;
        if (paths++ >= max || (bytes += len + 1) > maxb) {
            rc |= EXDB_MODTREE_WALK_CUT;
            break;
        }
        if (buf_reserve(&path, &pcap, len + 1) < 0) {
            rc = -1;
            break;
        }
        if (top->len)
            path[top->len] = '.';
        memcpy(path + len - ln, name, ln + 1);
        fn(ctx, path, c);
        if (c->id < r->nmodules && onstack[c->id]) {
            rc |= EXDB_MODTREE_WALK_CYCLE; /* upstream: RecursionError */
            continue;
        }
        if (n == cap) {
            cap *= 2;
            nm_frame *ns = realloc(st, cap * sizeof *ns);
            if (!ns) {
                rc = -1;
                break;
            }
            st = ns;
        }
        if (c->id < r->nmodules)
            onstack[c->id] = 1;
        st[n++] = (nm_frame){c, len, 0};
    }
    free(st);
    free(path);
    free(onstack);
    return rc;
}

void exdb_modtree_count_state(const exdb_umodule *m, uint32_t *np, uint32_t *nb, uint32_t *nc) {
    *np = *nb = *nc = 0;
    for (uint32_t i = 0; i < m->attrs->n; i++) {
        const exdb_uattr *a = m->attrs->vals[i];
        if (!a)
            continue;
        *np += a->kind == EXDB_UATTR_PARAM;
        *nb += a->kind == EXDB_UATTR_BUFFER;
        *nc += a->kind == EXDB_UATTR_CONST;
    }
}

const char *exdb_modtree_kind_name(const exdb_umodule *m) {
    switch (m->kind) {
    case EXDB_UMOD_PLAIN:
        return "torch.nn.Module";
    case EXDB_UMOD_INTERP:
        return "InterpreterModule";
    case EXDB_UMOD_DISPATCH:
        return "InterpreterModuleDispatcher";
    case EXDB_UMOD_ROOT:
        return "UnflattenedModule";
    default:
        return "GraphModule";
    }
}

const char *exdb_modtree_class_name(const exdb_umodule *m) {
    return m->kind == EXDB_UMOD_PLAIN ? "Module" : exdb_modtree_kind_name(m);
}

/* call sites whose call_module target resolves to m (after dedup's
 * retargeting, so resnet's relu counts both calls) */
uint32_t exdb_modtree_call_count(const exdb_urun *r, const exdb_umodule *m) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < r->nparts; p++)
        for (uint32_t e = 0; e < r->parts[p].n; e++) {
            const exdb_uentry *en = &r->parts[p].entries[e];
            n += exdb_modtree_get_path(en->parent_module, en->parent_call_module->target) == m;
        }
    return n;
}

uint32_t *exdb_modtree_call_counts(const exdb_urun *r) {
    uint32_t *n = calloc(r->nmodules ? r->nmodules : 1, sizeof *n);
    if (!n)
        return NULL;
    for (uint32_t p = 0; p < r->nparts; p++)
        for (uint32_t e = 0; e < r->parts[p].n; e++) {
            const exdb_uentry *en = &r->parts[p].entries[e];
            exdb_umodule *m =
                exdb_modtree_get_path(en->parent_module, en->parent_call_module->target);
            if (m && m->id < r->nmodules)
                n[m->id]++;
        }
    return n;
}

int exdb_modtree_walk_error(const exdb_urun *r, int rc, const char *phase, exdb_error *err) {
    if (rc < 0)
        return exdb_errorf(err, "out of memory");
    if (rc & EXDB_MODTREE_WALK_CYCLE)
        return exdb_errorf(err,
                           "RecursionError: maximum recursion depth exceeded in %s: a module "
                           "is its own submodule (named_modules would not end)",
                           phase);
    return exdb_errorf(err,
                       "%s: the module tree has more than %llu module paths (or %llu bytes of "
                       "them) for %u modules (shared modules nested in each other): "
                       "named_modules(remove_duplicate=False) would visit every one",
                       phase, (unsigned long long)exdb_modtree_max_paths(r),
                       (unsigned long long)max_path_bytes(r), r->nmodules);
}
