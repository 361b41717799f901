/* cache_ir.c - see cache_ir.h: the IR image made from a built program's
 * main graph (cache_ir_load.c checks it and puts it back). The loader
 * whose graph it holds is load_program (program.c), torch's
 * GraphModuleDeserializer. */
#include "core/export/cache_ir.h"

#include <stdlib.h>
#include <string.h>

#include "core/export/cache_format.h"

#include <xxhash.h>

#define NONE EXDB_CACHE_NONE
typedef exdb_cache_ir_head ir_head;
typedef exdb_cache_ir_node ir_node;
typedef exdb_cache_ir_arg ir_arg;
typedef exdb_cache_ir_meta ir_meta;
typedef exdb_cache_ir_stack ir_stack;
typedef exdb_cache_ir_kv ir_kv;
typedef exdb_cache_ir_sym ir_sym;
typedef exdb_cache_ir_val ir_val;
typedef exdb_cache_ir_tmeta ir_tmeta;
typedef exdb_cache_ir_slot ir_slot;

static const size_t rec_size[EXDB_IR_NSECT] = {
    [EXDB_IR_NODES] = sizeof(ir_node),
    [EXDB_IR_ARGS] = sizeof(ir_arg),
    [EXDB_IR_STRREFS] = sizeof(uint32_t),
    [EXDB_IR_DOUBLES] = sizeof(double),
    [EXDB_IR_METAS] = sizeof(ir_meta),
    [EXDB_IR_STACKS] = sizeof(ir_stack),
    [EXDB_IR_KVS] = sizeof(ir_kv),
    [EXDB_IR_VALS] = sizeof(ir_val),
    [EXDB_IR_VALREFS] = sizeof(uint32_t),
    [EXDB_IR_TMETAS] = sizeof(ir_tmeta),
    [EXDB_IR_SYMS] = sizeof(ir_sym),
    [EXDB_IR_NAMES] = sizeof(ir_slot),
    [EXDB_IR_BASES] = sizeof(ir_slot),
    [EXDB_IR_GRAPHS] = sizeof(exdb_cache_ir_graph),
    [EXDB_IR_STRS] = 1,
};

size_t exdb_cache_ir_rec_size(int sect) {
    return rec_size[sect];
}

/* ---- a pointer -> index map (the writer's: what it wrote once) */

typedef struct pslot {
    uintptr_t key;
    uint32_t val;
} pslot;

typedef struct pmap {
    pslot *slots; /* key and value in one slot: one cache miss a probe */
    size_t cap, n;
} pmap;

static size_t pmap_home(uintptr_t k, size_t cap) {
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static uint32_t pmap_get(const pmap *m, const void *p) {
    if (!m->cap)
        return NONE;
    for (size_t i = pmap_home((uintptr_t)p, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].key == (uintptr_t)p)
            return m->slots[i].val;
        if (!m->slots[i].key)
            return NONE;
    }
}

static int pmap_put(pmap *m, const void *p, uint32_t v) {
    if ((m->n + 1) * 2 > m->cap) {
        pmap o = *m;
        m->cap = o.cap ? o.cap * 2 : 1024;
        if (!(m->slots = calloc(m->cap, sizeof *m->slots))) {
            *m = o;
            return -1;
        }
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.slots[i].key)
                pmap_put(m, (const void *)o.slots[i].key, o.slots[i].val);
        free(o.slots);
    }
    size_t i = pmap_home((uintptr_t)p, m->cap);
    while (m->slots[i].key)
        i = (i + 1) & (m->cap - 1);
    m->slots[i] = (pslot){(uintptr_t)p, v};
    m->n++;
    return 0;
}

static void pmap_free(pmap *m) {
    free(m->slots);
}

/* ---- writing */

typedef struct sslot {
    uint64_t hash;
    uint32_t at; /* 1 + the offset in STRS; 0: empty */
} sslot;

typedef struct wr {
    const exdb_program *p;
    const char *text;
    size_t text_len;
    exdb_buf *sect;
    pmap stacks, tmetas, argnames;
    sslot *stab; /* the strings by text (str) */
    size_t stab_cap, stab_n;
    /* the strings last written, by address (most repeat: targets, stack
     * entries): a probe of the big table spared */
    struct {
        const char *p;
        uint32_t at;
    } recent[4096];
    /* the graph being written: its nodes' index (by id, less base), node
     * by index, each one's name's offset; its first node's index */
    const exdb_graph *g;
    uint32_t *by_id, *name_at, base;
    const exdb_node **order;
    /* the subgraphs: by owner node, and each one's owner's index */
    pmap owned;
    uint32_t *owner_at;
    int bad;
} wr;

/* The index of node n of the graph (NONE: not one of its nodes). */
static uint32_t node_index(const wr *w, const exdb_node *n) {
    if (!n || n->graph != w->g || n->id >= w->g->next_id)
        return NONE;
    uint32_t i = w->by_id[n->id];
    return i != NONE && w->order[i] == n ? w->base + i : NONE;
}

static uint32_t count(const wr *w, int s) {
    return (uint32_t)(w->sect[s].len / rec_size[s]);
}

/* Appends record r of section s: its index. */
static uint32_t add(wr *w, int s, const void *r) {
    uint32_t at = count(w, s);
    if (w->sect[s].len / rec_size[s] >= NONE - 1)
        w->bad = 1;
    exdb_buf_put(&w->sect[s], r, rec_size[s]);
    w->bad |= w->sect[s].oom;
    return at;
}

static void set(wr *w, int s, uint32_t at, const void *r) {
    if (!w->bad)
        memcpy(w->sect[s].s + (size_t)at * rec_size[s], r, rec_size[s]);
}

/* The strings written, by their text (a string of the IR is often one
 * copy among many of the same text: each node's target, its schema's
 * argument names, its module stack's text): offsets into STRS and their
 * hashes, open addressing. */
static int stab_grow(wr *w) {
    size_t cap = w->stab_cap ? w->stab_cap * 2 : 4096;
    sslot *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < w->stab_cap; i++) {
        if (!w->stab[i].at)
            continue;
        size_t j = w->stab[i].hash & (cap - 1);
        while (t[j].at)
            j = (j + 1) & (cap - 1);
        t[j] = w->stab[i];
    }
    free(w->stab);
    w->stab = t;
    w->stab_cap = cap;
    return 0;
}

static uint32_t str(wr *w, const char *s) {
    if (!s)
        return NONE;
    size_t slot = pmap_home((uintptr_t)s, 4096);
    if (w->recent[slot].p == s)
        return w->recent[slot].at;
    exdb_buf *b = &w->sect[EXDB_IR_STRS];
    size_t n = strlen(s);
    uint64_t h = XXH3_64bits(s, n);
    if ((w->stab_n + 1) * 2 > w->stab_cap && stab_grow(w) < 0) {
        w->bad = 1;
        return NONE;
    }
    size_t j = h & (w->stab_cap - 1);
    for (; w->stab[j].at; j = (j + 1) & (w->stab_cap - 1)) {
        const char *t = b->s + w->stab[j].at - 1;
        if (w->stab[j].hash == h && strncmp(t, s, n + 1) == 0)
            break;
    }
    uint32_t at;
    if (w->stab[j].at) {
        at = w->stab[j].at - 1;
    } else {
        if (b->len >= 0x7fffffff) {
            w->bad = 1;
            return NONE;
        }
        at = (uint32_t)b->len;
        exdb_buf_put(b, s, n + 1);
        w->bad |= b->oom;
        w->stab[j] = (sslot){h, at + 1};
        w->stab_n++;
    }
    w->recent[slot].p = s;
    w->recent[slot].at = at;
    return at;
}

/* A lazily read field: its offset in the text (it must be there). */
static uint32_t text_ref(wr *w, const char *s) {
    if (!s)
        return NONE;
    if (s < w->text || s >= w->text + w->text_len) {
        w->bad = 1;
        return NONE;
    }
    return (uint32_t)(s - w->text);
}

static uint32_t strrefs(wr *w, const char *const *v, uint32_t n) {
    if (!v)
        return NONE;
    uint32_t at = count(w, EXDB_IR_STRREFS);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = str(w, v[i]);
        add(w, EXDB_IR_STRREFS, &s);
    }
    return at;
}

/* The argument a into record at (reserved), its items after it. */
static void put_arg(wr *w, uint32_t at, const exdb_arg *a) {
    ir_arg r = {.kind = a->kind, .n = a->n, .keys = NONE};
    switch (a->kind) {
    case EXDB_ARG_NODE:
        r.u = node_index(w, a->u.node);
        w->bad |= r.u == NONE;
        break;
    case EXDB_ARG_NONE:
    case EXDB_ARG_INT:
    case EXDB_ARG_BOOL:
    case EXDB_ARG_DTYPE:
    case EXDB_ARG_LAYOUT:
    case EXDB_ARG_MEMFMT:
        r.u = (uint64_t)a->u.i;
        break;
    case EXDB_ARG_FLOAT:
        memcpy(&r.u, &a->u.f, 8);
        break;
    case EXDB_ARG_STR:
    case EXDB_ARG_DEVICE:
    case EXDB_ARG_OPERATOR:
        r.u = str(w, a->u.s);
        break;
    case EXDB_ARG_COMPLEX:
        r.u = a->u.c ? count(w, EXDB_IR_DOUBLES) : NONE;
        if (a->u.c) {
            add(w, EXDB_IR_DOUBLES, &a->u.c[0]);
            add(w, EXDB_IR_DOUBLES, &a->u.c[1]);
        }
        break;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT: {
        r.u = a->u.items ? count(w, EXDB_IR_ARGS) : NONE;
        if (!a->u.items) {
            w->bad |= a->n != 0;
            break;
        }
        ir_arg z = {0};
        for (uint32_t i = 0; i < a->n && !w->bad; i++)
            add(w, EXDB_IR_ARGS, &z);
        for (uint32_t i = 0; i < a->n && !w->bad; i++)
            put_arg(w, (uint32_t)r.u + i, &a->u.items[i]);
        break;
    }
    default:
        w->bad = 1;
    }
    if (a->keys)
        r.keys = strrefs(w, a->keys, a->n);
    set(w, EXDB_IR_ARGS, at, &r);
}

static uint32_t new_arg(wr *w, const exdb_arg *a) {
    ir_arg z = {0};
    uint32_t at = add(w, EXDB_IR_ARGS, &z);
    put_arg(w, at, a);
    return at;
}

static void put_sym(wr *w, const exdb_sym *s, ir_sym *r) {
    memset(r, 0, sizeof *r);
    r->expr = str(w, s->expr);
    r->has_hint = s->has_hint;
    memcpy(&r->v, &s->v, sizeof s->v < 8 ? sizeof s->v : 8);
}

static uint32_t syms(wr *w, const exdb_sym *v, uint32_t n) {
    if (!v)
        return NONE;
    uint32_t at = count(w, EXDB_IR_SYMS);
    for (uint32_t i = 0; i < n; i++) {
        ir_sym r;
        put_sym(w, &v[i], &r);
        add(w, EXDB_IR_SYMS, &r);
    }
    return at;
}

static uint32_t put_tmeta(wr *w, const exdb_tensor_meta *t) {
    uint32_t at = pmap_get(&w->tmetas, t);
    if (at != NONE)
        return at;
    ir_tmeta r = {.dtype = t->dtype,
                  .layout = t->layout,
                  .requires_grad = t->requires_grad,
                  .device_index = t->device_index,
                  .device_type = str(w, t->device_type),
                  .ndim = t->ndim};
    r.sizes = syms(w, t->sizes, t->ndim);
    r.strides = syms(w, t->strides, t->ndim);
    put_sym(w, &t->storage_offset, &r.storage_offset);
    at = add(w, EXDB_IR_TMETAS, &r);
    w->bad |= pmap_put(&w->tmetas, t, at) < 0;
    return at;
}

/* A value, its items before it. */
static uint32_t put_val(wr *w, const exdb_val *v) {
    if (!v)
        return NONE;
    ir_val r = {.kind = v->kind, .n = v->n, .expr = NONE};
    switch (v->kind) {
    case EXDB_VAL_NONE:
        break;
    case EXDB_VAL_TENSOR:
        r.u = v->u.t ? put_tmeta(w, v->u.t) : NONE;
        w->bad |= !v->u.t;
        break;
    case EXDB_VAL_SYMINT:
    case EXDB_VAL_SYMFLOAT:
    case EXDB_VAL_SYMBOOL:
        r.expr = str(w, v->u.sym.expr);
        r.has_hint = v->u.sym.has_hint;
        memcpy(&r.u, &v->u.sym.v, 8);
        break;
    case EXDB_VAL_CUSTOM_OBJ:
        r.u = str(w, v->u.s);
        break;
    case EXDB_VAL_TUPLE: {
        uint32_t *items = v->n ? malloc(v->n * sizeof *items) : NULL;
        if (v->n && (!items || !v->u.items)) {
            free(items);
            w->bad = 1;
            break;
        }
        for (uint32_t i = 0; i < v->n && !w->bad; i++)
            items[i] = put_val(w, v->u.items[i]);
        r.u = v->u.items ? count(w, EXDB_IR_VALREFS) : NONE;
        for (uint32_t i = 0; i < v->n && !w->bad; i++)
            add(w, EXDB_IR_VALREFS, &items[i]);
        free(items);
        break;
    }
    case EXDB_VAL_CONST:
        r.u = v->u.arg ? new_arg(w, v->u.arg) : NONE;
        w->bad |= !v->u.arg;
        break;
    default:
        w->bad = 1;
    }
    return add(w, EXDB_IR_VALS, &r);
}

static uint32_t put_stack(wr *w, const exdb_stack_entry *s, uint32_t n) {
    if (!s)
        return NONE;
    uint32_t at = pmap_get(&w->stacks, s);
    if (at != NONE)
        return at;
    at = count(w, EXDB_IR_STACKS);
    for (uint32_t i = 0; i < n; i++) {
        ir_stack r = {str(w, s[i].key), str(w, s[i].path), str(w, s[i].type), s[i].call_idx};
        add(w, EXDB_IR_STACKS, &r);
    }
    w->bad |= pmap_put(&w->stacks, s, at) < 0;
    return at;
}

static uint32_t put_meta(wr *w, const exdb_meta *m) {
    if (!m)
        return NONE;
    int lazy = m->defer != NULL;
    w->bad |= lazy && m->defer != &w->p->meta_defer;
    ir_meta r = {.has_stack = m->has_stack,
                 .has_defer = (uint8_t)lazy,
                 .nstack = m->nstack,
                 .nextra = m->nextra,
                 .defer_src = m->defer_src,
                 .narg_names = m->narg_names};
    r.stack = put_stack(w, m->stack, m->nstack);
    const char *f[6] = {m->nn_module_stack, m->lazy_stack_trace, m->lazy_source_fn_stack,
                        m->lazy_torch_fn,   m->custom,           m->lazy_from_node};
    for (int i = 0; i < 6; i++) {
        int read_lazily = lazy && i != 0 && i != 4; /* through exdb_meta_read */
        r.strs[i] = read_lazily ? text_ref(w, f[i]) : str(w, f[i]);
        r.textmask |= (uint8_t)(read_lazily << i);
    }
    r.extra = m->lazy_extra ? count(w, EXDB_IR_KVS) : NONE;
    for (uint32_t i = 0; m->lazy_extra && i < m->nextra; i++) {
        ir_kv kv = {str(w, m->lazy_extra[i].key), 0, (uint32_t)lazy, 0};
        kv.value = lazy ? text_ref(w, m->lazy_extra[i].value) : str(w, m->lazy_extra[i].value);
        add(w, EXDB_IR_KVS, &kv);
    }
    r.val = put_val(w, m->val);
    /* an array of names is shared by the nodes of one target */
    r.arg_names = pmap_get(&w->argnames, m->arg_names);
    if (r.arg_names == NONE && m->arg_names) {
        r.arg_names = strrefs(w, (const char *const *)m->arg_names, m->narg_names);
        w->bad |= pmap_put(&w->argnames, m->arg_names, r.arg_names) < 0;
    }
    r.arg_names_target = str(w, m->arg_names_target);
    return add(w, EXDB_IR_METAS, &r);
}

typedef struct users_walk {
    wr *w;
    uint32_t *cursor;
    exdb_node *user;
} users_walk;

/* The users lists are what the nodes' inputs in order make them (the
 * install makes them so). */
static void user_seen(void *ctx, exdb_node *in) {
    users_walk *u = ctx;
    uint32_t i = node_index(u->w, in);
    i = i == NONE ? NONE : i - u->w->base;
    if (i == NONE || u->cursor[i] >= in->nusers || in->users[u->cursor[i]] != u->user)
        u->w->bad = 1;
    else
        u->cursor[i]++;
}

/* The names, written first (each its own: a name is never shared but
 * with the name table, whose keys are the nodes' names); by_id, name_at
 * and order have room for the biggest graph. */
static int index_nodes(wr *w, const exdb_graph *g) {
    w->g = g;
    w->base = count(w, EXDB_IR_NODES);
    memset(w->by_id, 0xff, (size_t)g->next_id * sizeof *w->by_id);
    uint32_t i = 0;
    exdb_buf *b = &w->sect[EXDB_IR_STRS];
    for (const exdb_node *n = g->head; n; n = n->next, i++) {
        if (i >= g->count || n->graph != g || n->id >= g->next_id || w->by_id[n->id] != NONE ||
            !n->name || b->len >= 0x7fffffff)
            return -1;
        w->by_id[n->id] = i;
        w->order[i] = n;
        w->name_at[i] = (uint32_t)b->len;
        exdb_buf_put(b, n->name, strlen(n->name) + 1);
    }
    return i == g->count && !b->oom ? 0 : -1;
}

/* A subgraph's owner (a get_attr node of g, at index at): its index. */
static void owner_seen(wr *w, const exdb_node *n, uint32_t at) {
    uint32_t j = n->op == EXDB_OP_GET_ATTR ? pmap_get(&w->owned, n) : NONE;
    if (j != NONE)
        w->owner_at[j] = at;
}

static void put_nodes(wr *w, const exdb_graph *g) {
    uint32_t i = 0;
    for (const exdb_node *n = g->head; n && !w->bad; n = n->next, i++) {
        owner_seen(w, n, w->base + i);
        ir_node r = {.name = w->name_at[i],
                     .target = str(w, n->target),
                     .id = n->id,
                     .name_hash = n->name_hash,
                     .src = n->src,
                     .op = n->op,
                     .tkind = n->tkind,
                     .erased = n->erased,
                     .hashed = n->hashed_name == n->name};
        w->bad |= !n->target;
        r.args = new_arg(w, &n->args);
        r.kwargs = new_arg(w, &n->kwargs);
        r.meta = put_meta(w, n->meta);
        add(w, EXDB_IR_NODES, &r);
    }
    uint32_t *cursor = w->bad ? NULL : calloc(i ? i : 1, sizeof *cursor);
    users_walk u = {w, cursor, NULL};
    w->bad |= !cursor;
    i = 0;
    for (exdb_node *n = g->head; n && !w->bad; n = n->next)
        exdb_node_foreach_input((u.user = n), user_seen, &u);
    for (const exdb_node *n = g->head; n && !w->bad; n = n->next, i++)
        w->bad |= cursor[i] != n->nusers;
    free(cursor);
}

/* m's used slots, in table order, each with its place (m->cap the
 * graph's record says). */
static void put_slots(wr *w, const exdb_strmap *m, int s, int names) {
    for (uint32_t i = 0; i < m->cap && !w->bad; i++) {
        if (!m->slots[i].key)
            continue;
        const char *key = exdb_strmap_slot_key(&m->slots[i]);
        uintptr_t v = (uintptr_t)m->slots[i].val;
        ir_slot r = {.at = i, .hi = (uint16_t)(m->slots[i].key >> 48)};
        if (names) {
            r.val = v ? node_index(w, m->slots[i].val) : NONE;
            w->bad |= v && r.val == NONE;
        } else { /* a base's count: at most the nodes' */
            r.val = (uint32_t)v;
            w->bad |= v >= NONE;
        }
        /* a live name: its node's, written with it */
        uint32_t own = names && r.val != NONE ? r.val - w->base : NONE;
        r.key = own != NONE && w->order[own]->name == key ? w->name_at[own] : str(w, key);
        add(w, s, &r);
    }
}

/* Room for what a graph of n nodes takes (about: arenas grow past it),
 * so that the sections are not copied as they grow. */
static void presize(wr *w, uint32_t n) {
    static const uint8_t per_node[EXDB_IR_NSECT] = {
        [EXDB_IR_NODES] = 1, [EXDB_IR_ARGS] = 6,   [EXDB_IR_METAS] = 1,  [EXDB_IR_VALS] = 1,
        [EXDB_IR_STRS] = 32, [EXDB_IR_STACKS] = 1, [EXDB_IR_STRREFS] = 2};
    for (int s = 0; s < EXDB_IR_NSECT; s++)
        if (per_node[s])
            exdb_buf_grow(&w->sect[s], (size_t)n * per_node[s] * rec_size[s]);
}

/* The program's graphs as the image holds them: the main one (k 0), then
 * the subgraphs backwards, so that a parent comes before the subgraphs it
 * owns (NULL past the last). */
static const exdb_graph *graph_at(const exdb_program *p, uint32_t k) {
    return k == 0 ? p->graph : k <= p->nsubgraphs ? p->subgraphs[p->nsubgraphs - k].graph : NULL;
}

/* Room for the biggest graph's index, the subgraphs by owner: its node
 * count, or NONE when a graph is not one an image holds. */
static uint32_t prepare(wr *w) {
    const exdb_program *p = w->p;
    uint64_t ids = 0, most = 0, total = 0;
    for (uint32_t k = 0; k <= p->nsubgraphs; k++) {
        const exdb_graph *g = graph_at(p, k);
        if (!g || g->insert_mode != EXDB_INSERT_APPEND || g->insert_ref)
            return NONE;
        ids = g->next_id > ids ? g->next_id : ids;
        most = g->count > most ? g->count : most;
        total += g->count;
    }
    if (total >= NONE / 2)
        return NONE;
    w->by_id = malloc((ids + 1) * sizeof *w->by_id);
    w->name_at = malloc((most + 1) * sizeof *w->name_at);
    w->order = malloc((most + 1) * sizeof *w->order);
    w->owner_at = malloc(((size_t)p->nsubgraphs + 1) * sizeof *w->owner_at);
    if (!w->by_id || !w->name_at || !w->order || !w->owner_at)
        return NONE;
    memset(w->owner_at, 0xff, ((size_t)p->nsubgraphs + 1) * sizeof *w->owner_at);
    /* two subgraphs of one owner: the second's owner is never found */
    for (uint32_t j = 0; j < p->nsubgraphs; j++)
        if (!p->subgraphs[j].owner || pmap_put(&w->owned, p->subgraphs[j].owner, j) < 0)
            return NONE;
    return (uint32_t)total;
}

/* Graph k: its nodes, its name tables, its record (a subgraph's owner
 * written with an earlier graph, or the program is not one an image
 * holds). */
static void put_graph(wr *w, uint32_t k) {
    const exdb_graph *g = graph_at(w->p, k);
    exdb_cache_ir_graph r = {.nodes = count(w, EXDB_IR_NODES),
                             .names = count(w, EXDB_IR_NAMES),
                             .bases = count(w, EXDB_IR_BASES),
                             .next_id = g->next_id,
                             .name = NONE,
                             .owner = NONE,
                             .names_cap = g->names.cap,
                             .bases_cap = g->base_count.cap};
    if (k) {
        uint32_t j = w->p->nsubgraphs - k;
        r.name = str(w, w->p->subgraphs[j].name);
        r.owner = w->owner_at[j];
        w->bad |= r.name == NONE || r.owner == NONE;
    }
    if (!w->bad)
        w->bad = index_nodes(w, g) < 0;
    if (!w->bad)
        put_nodes(w, g);
    if (!w->bad)
        put_slots(w, &g->names, EXDB_IR_NAMES, 1);
    if (!w->bad)
        put_slots(w, &g->base_count, EXDB_IR_BASES, 0);
    add(w, EXDB_IR_GRAPHS, &r);
}

int exdb_cache_ir_make_parts(const exdb_program *p, exdb_cache_ir_parts *out) {
    memset(out, 0, sizeof *out);
    for (int s = 0; s < EXDB_IR_NSECT; s++)
        exdb_buf_init(&out->sect[s]);
    if (!p->graph || !p->buf || p->json_bytes >= NONE)
        return -1;
    wr w; /* 64 KB (recent) on the stack: a default thread's is 8 MB */
    memset(&w, 0, sizeof w);
    w.p = p;
    w.text = p->buf;
    w.text_len = p->json_bytes;
    w.sect = out->sect;
    uint32_t total = prepare(&w);
    w.bad = total == NONE;
    if (!w.bad)
        presize(&w, total);
    for (uint32_t k = 0; k <= p->nsubgraphs && !w.bad; k++)
        put_graph(&w, k);
    exdb_cache_ir_head *h = &out->head;
    *h = (exdb_cache_ir_head){
        .nsect = EXDB_IR_NSECT, .flags = p->meta_defer.read != NULL, .text_len = p->json_bytes};
    uint64_t at = (sizeof *h + 7) & ~(uint64_t)7;
    for (int s = 0; s < EXDB_IR_NSECT; s++) {
        h->sect[s].off = at;
        h->sect[s].count = w.sect[s].len / rec_size[s];
        at = (at + w.sect[s].len + 7) & ~(uint64_t)7;
        w.bad |= w.sect[s].oom;
    }
    out->len = at;
    pmap *maps[] = {&w.stacks, &w.tmetas, &w.argnames, &w.owned};
    free(w.stab);
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        pmap_free(maps[i]);
    free(w.by_id);
    free(w.name_at);
    free(w.order);
    free(w.owner_at);
    if (w.bad)
        exdb_cache_ir_parts_free(out);
    return w.bad ? -1 : 0;
}

void exdb_cache_ir_parts_free(exdb_cache_ir_parts *parts) {
    for (int s = 0; s < EXDB_IR_NSECT; s++)
        exdb_buf_free(&parts->sect[s]);
}

int exdb_cache_ir_pieces(const exdb_cache_ir_parts *parts, exdb_cache_piece *out) {
    static const char zeros[8];
    int n = 0;
    uint64_t at = sizeof parts->head;
    out[n++] = (exdb_cache_piece){&parts->head, sizeof parts->head};
    for (int s = 0; s < EXDB_IR_NSECT; s++) {
        uint64_t off = parts->head.sect[s].off;
        if (off > at)
            out[n++] = (exdb_cache_piece){zeros, (size_t)(off - at)};
        if (parts->sect[s].len)
            out[n++] = (exdb_cache_piece){parts->sect[s].s, parts->sect[s].len};
        at = off + parts->sect[s].len;
    }
    if (parts->len > at)
        out[n++] = (exdb_cache_piece){zeros, (size_t)(parts->len - at)};
    return n;
}

int exdb_cache_ir_make(const exdb_program *p, exdb_buf *out) {
    exdb_cache_ir_parts parts;
    exdb_cache_piece pieces[EXDB_CACHE_IR_PIECES];
    exdb_buf_init(out);
    if (exdb_cache_ir_make_parts(p, &parts) < 0)
        return -1;
    int n = exdb_cache_ir_pieces(&parts, pieces);
    for (int i = 0; i < n; i++)
        exdb_buf_put(out, pieces[i].p, pieces[i].n);
    exdb_cache_ir_parts_free(&parts);
    if (out->oom)
        exdb_buf_free(out);
    return out->s ? 0 : -1;
}
