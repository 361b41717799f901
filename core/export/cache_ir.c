/* cache_ir.c - see cache_ir.h: the IR image written from a built
 * program's main graph (this file's first half) and put back (its second
 * half, after cache_ir_check.c's one pass over it). */
#include "core/export/cache_ir.h"

#include <stdlib.h>
#include <string.h>

#include "core/export/cache_format.h"

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
    [EXDB_IR_NODES] = sizeof(ir_node),    [EXDB_IR_ARGS] = sizeof(ir_arg),
    [EXDB_IR_STRREFS] = sizeof(uint32_t), [EXDB_IR_DOUBLES] = sizeof(double),
    [EXDB_IR_METAS] = sizeof(ir_meta),    [EXDB_IR_STACKS] = sizeof(ir_stack),
    [EXDB_IR_KVS] = sizeof(ir_kv),        [EXDB_IR_VALS] = sizeof(ir_val),
    [EXDB_IR_VALREFS] = sizeof(uint32_t), [EXDB_IR_TMETAS] = sizeof(ir_tmeta),
    [EXDB_IR_SYMS] = sizeof(ir_sym),      [EXDB_IR_NAMES] = sizeof(ir_slot),
    [EXDB_IR_BASES] = sizeof(ir_slot),    [EXDB_IR_STRS] = 1,
};

size_t exdb_cache_ir_rec_size(int sect) {
    return rec_size[sect];
}

/* ---- a pointer -> index map (the writer's: what it wrote once) */

typedef struct pmap {
    uintptr_t *keys;
    uint32_t *vals;
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
        if (m->keys[i] == (uintptr_t)p)
            return m->vals[i];
        if (!m->keys[i])
            return NONE;
    }
}

static int pmap_put(pmap *m, const void *p, uint32_t v) {
    if ((m->n + 1) * 2 > m->cap) {
        pmap o = *m;
        m->cap = o.cap ? o.cap * 2 : 1024;
        m->keys = calloc(m->cap, sizeof *m->keys);
        m->vals = malloc(m->cap * sizeof *m->vals);
        if (!m->keys || !m->vals) {
            free(m->keys);
            free(m->vals);
            *m = o;
            return -1;
        }
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.keys[i])
                pmap_put(m, (const void *)o.keys[i], o.vals[i]);
        free(o.keys);
        free(o.vals);
    }
    size_t i = pmap_home((uintptr_t)p, m->cap);
    while (m->keys[i])
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = (uintptr_t)p;
    m->vals[i] = v;
    m->n++;
    return 0;
}

static void pmap_free(pmap *m) {
    free(m->keys);
    free(m->vals);
}

/* ---- writing */

typedef struct wr {
    const exdb_program *p;
    const char *text;
    size_t text_len;
    exdb_buf sect[EXDB_IR_NSECT];
    pmap nodes, strs, metas, stacks, vals, tmetas, names;
    int bad;
} wr;

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

static uint32_t str(wr *w, const char *s) {
    if (!s)
        return NONE;
    uint32_t at = pmap_get(&w->strs, s);
    if (at != NONE)
        return at;
    exdb_buf *b = &w->sect[EXDB_IR_STRS];
    if (b->len >= 0x7fffffff) {
        w->bad = 1;
        return NONE;
    }
    at = (uint32_t)b->len;
    exdb_buf_put(b, s, strlen(s) + 1);
    if (b->oom || pmap_put(&w->strs, s, at) < 0)
        w->bad = 1;
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
        r.u = pmap_get(&w->nodes, a->u.node);
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
    uint32_t at = pmap_get(&w->vals, v);
    if (at != NONE)
        return at;
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
    at = add(w, EXDB_IR_VALS, &r);
    w->bad |= pmap_put(&w->vals, v, at) < 0;
    return at;
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
    uint32_t at = pmap_get(&w->metas, m);
    if (at != NONE)
        return at;
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
    r.arg_names = strrefs(w, (const char *const *)m->arg_names, m->narg_names);
    r.arg_names_target = str(w, m->arg_names_target);
    at = add(w, EXDB_IR_METAS, &r);
    w->bad |= pmap_put(&w->metas, m, at) < 0;
    return at;
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
    uint32_t i = pmap_get(&u->w->nodes, in);
    if (i == NONE || u->cursor[i] >= in->nusers || in->users[u->cursor[i]] != u->user)
        u->w->bad = 1;
    else
        u->cursor[i]++;
}

static void put_nodes(wr *w, const exdb_graph *g) {
    uint32_t i = 0;
    for (const exdb_node *n = g->head; n && !w->bad; n = n->next, i++) {
        ir_node r = {.name = str(w, n->name),
                     .target = str(w, n->target),
                     .id = n->id,
                     .name_hash = n->name_hash,
                     .src = n->src,
                     .op = n->op,
                     .tkind = n->tkind,
                     .erased = n->erased,
                     .hashed = n->hashed_name == n->name};
        w->bad |= pmap_put(&w->nodes, n, i) < 0 || n->graph != g || !n->name || !n->target;
        r.args = new_arg(w, &n->args);
        r.kwargs = new_arg(w, &n->kwargs);
        r.meta = put_meta(w, n->meta);
        add(w, EXDB_IR_NODES, &r);
    }
    w->bad |= i != g->count;
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

static void put_slots(wr *w, const exdb_strmap *m, int s, int names) {
    for (uint32_t i = 0; i < m->cap && !w->bad; i++) {
        ir_slot r = {NONE, 0, 0};
        if (m->slots[i].key) {
            r.key = str(w, exdb_strmap_slot_key(&m->slots[i]));
            r.hi = (uint32_t)(m->slots[i].key >> 48);
            r.val = (uint64_t)(uintptr_t)m->slots[i].val;
            if (names) {
                r.val = m->slots[i].val ? pmap_get(&w->nodes, m->slots[i].val) : NONE;
                w->bad |= m->slots[i].val && r.val == NONE;
            }
        }
        add(w, s, &r);
    }
}

int exdb_cache_ir_make(const exdb_program *p, exdb_buf *out) {
    const exdb_graph *g = p->graph;
    exdb_buf_init(out);
    if (!g || p->nsubgraphs || !p->buf || p->json_bytes >= NONE || g->count >= NONE / 2 ||
        g->insert_mode != EXDB_INSERT_APPEND || g->insert_ref)
        return -1;
    wr w = {.p = p, .text = p->buf, .text_len = p->json_bytes};
    for (int s = 0; s < EXDB_IR_NSECT; s++)
        exdb_buf_init(&w.sect[s]);
    put_nodes(&w, g);
    put_slots(&w, &g->names, EXDB_IR_NAMES, 1);
    put_slots(&w, &g->base_count, EXDB_IR_BASES, 0);
    ir_head h = {.nsect = EXDB_IR_NSECT,
                 .flags = p->meta_defer.read != NULL,
                 .next_id = g->next_id,
                 .names_cap = g->names.cap,
                 .bases_cap = g->base_count.cap,
                 .text_len = p->json_bytes};
    uint64_t at = (sizeof h + 7) & ~(uint64_t)7;
    for (int s = 0; s < EXDB_IR_NSECT; s++) {
        h.sect[s].off = at;
        h.sect[s].count = w.sect[s].len / rec_size[s];
        at = (at + w.sect[s].len + 7) & ~(uint64_t)7;
    }
    if (!w.bad && exdb_buf_grow(out, (size_t)at) == 0) {
        memset(out->s, 0, (size_t)at);
        memcpy(out->s, &h, sizeof h);
        for (int s = 0; s < EXDB_IR_NSECT; s++)
            if (w.sect[s].len)
                memcpy(out->s + h.sect[s].off, w.sect[s].s, w.sect[s].len);
        out->len = (size_t)at;
    } else {
        w.bad = 1;
    }
    for (int s = 0; s < EXDB_IR_NSECT; s++)
        exdb_buf_free(&w.sect[s]);
    pmap *maps[] = {&w.nodes, &w.strs, &w.metas, &w.stacks, &w.vals, &w.tmetas, &w.names};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        pmap_free(maps[i]);
    if (w.bad)
        exdb_buf_free(out);
    return w.bad ? -1 : 0;
}
