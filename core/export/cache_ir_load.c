/* cache_ir_load.c - see cache_ir.h: an IR image checked in one linear
 * pass (exdb_cache_ir_check) and put back by relocation
 * (exdb_cache_ir_install): one allocation per array, each record turned
 * into its struct, the strings copied once into the program's text arena.
 * Nothing is built from an image before the check passed. */
#include <stdlib.h>
#include <string.h>

#include "core/export/cache_format.h"
#include "core/export/cache_ir.h"
#include "core/export/program_impl.h"

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
typedef exdb_cache_ir_graph ir_graph;

typedef struct img {
    const char *base;
    const ir_head *h;
    uint64_t n[EXDB_IR_NSECT];
    uint64_t text_len;
} img;

#define REC(im, s, T) ((const T *)((im)->base + (im)->h->sect[s].off))

/* ---- the check */

static int str_ok(const img *im, uint32_t s) {
    return s == NONE || s < im->n[EXDB_IR_STRS];
}
static int text_ok(const img *im, uint32_t s) {
    return s == NONE || s < im->text_len;
}
/* [at, at + n) inside section s (at NONE: none, then n is 0) */
static int range_ok(const img *im, int s, uint64_t at, uint64_t n) {
    if (at == NONE)
        return n == 0;
    return at <= im->n[s] && n <= im->n[s] - at;
}

static int sections_ok(img *im, const char *image, size_t len, uint64_t text_len) {
    if (len < sizeof(ir_head) || ((uintptr_t)image & 7))
        return 0;
    im->base = image;
    im->h = (const ir_head *)image;
    im->text_len = text_len;
    const ir_head *h = im->h;
    if (h->nsect != EXDB_IR_NSECT || h->text_len != text_len || (h->flags & ~1u))
        return 0;
    uint64_t at = (sizeof *h + 7) & ~(uint64_t)7;
    for (int s = 0; s < EXDB_IR_NSECT; s++) {
        size_t rs = exdb_cache_ir_rec_size(s);
        if (h->sect[s].off != at || h->sect[s].count > (len - at) / rs || h->sect[s].count >= NONE)
            return 0;
        im->n[s] = h->sect[s].count;
        at = (at + h->sect[s].count * rs + 7) & ~(uint64_t)7;
        if (at > len)
            return 0;
    }
    uint64_t nstrs = im->n[EXDB_IR_STRS];
    const char *strs = REC(im, EXDB_IR_STRS, char);
    return at == len && (nstrs == 0 || strs[nstrs - 1] == 0) &&
           im->n[EXDB_IR_NODES] <= EXDB_MAX_NODES && im->n[EXDB_IR_GRAPHS] >= 1;
}

/* Where graph k's records of section s (NODES, NAMES, BASES) start: the
 * next graph's start is where they end. */
static uint64_t graph_start(const img *im, uint64_t k, int s) {
    const ir_graph *g = REC(im, EXDB_IR_GRAPHS, ir_graph);
    if (k >= im->n[EXDB_IR_GRAPHS])
        return im->n[s];
    return s == EXDB_IR_NODES ? g[k].nodes : s == EXDB_IR_NAMES ? g[k].names : g[k].bases;
}

/* The graph among [0, k) that holds node o (o before graph k's nodes,
 * the ranges in order and not empty). */
static uint64_t graph_of(const img *im, uint64_t k, uint32_t o) {
    const ir_graph *g = REC(im, EXDB_IR_GRAPHS, ir_graph);
    uint64_t lo = 0, hi = k;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (g[mid].nodes <= o)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The graphs: each one's ranges after the one before's (a node at least:
 * its output), inside their sections; the main graph first, unnamed; a
 * subgraph named, owned by a get_attr node of an earlier graph that owns
 * no other (so no graph is its own ancestor), nested at most as deep as
 * a file can nest it (its JSON is at most EXDB_JSON_MAX_DEPTH deep: the
 * printers and unflatten recurse into each subgraph); ids as many as the
 * loader could hand out. */
static int graphs_ok(const img *im) {
    const ir_graph *g = REC(im, EXDB_IR_GRAPHS, ir_graph);
    const ir_node *nd = REC(im, EXDB_IR_NODES, ir_node);
    uint64_t ng = im->n[EXDB_IR_GRAPHS], ids = 0;
    static const int sects[3] = {EXDB_IR_NODES, EXDB_IR_NAMES, EXDB_IR_BASES};
    for (int k = 0; k < 3; k++)
        if (graph_start(im, 0, sects[k]) != 0)
            return 0;
    /* a bit a node (owns a subgraph), then each graph's depth */
    size_t bits = (im->n[EXDB_IR_NODES] / 8 + 8) & ~(size_t)7;
    uint8_t *owned = calloc(bits + ng * sizeof(uint16_t), 1);
    uint16_t *depth = owned ? (uint16_t *)(void *)(owned + bits) : NULL;
    int ok = owned != NULL;
    for (uint64_t k = 0; k < ng && ok; k++) {
        for (int s = 0; s < 3; s++)
            ok &= graph_start(im, k, sects[s]) <= graph_start(im, k + 1, sects[s]) &&
                  graph_start(im, k + 1, sects[s]) <= im->n[sects[s]];
        uint64_t lo = g[k].nodes, hi = graph_start(im, k + 1, EXDB_IR_NODES);
        ids += g[k].next_id;
        ok &= hi > lo && g[k].next_id >= hi - lo && ids <= 2ull * EXDB_MAX_NODES;
        if (k == 0) {
            ok &= g[k].name == NONE && g[k].owner == NONE;
            continue;
        }
        uint32_t o = g[k].owner;
        ok &= g[k].name != NONE && str_ok(im, g[k].name) && o < lo && ok &&
              nd[o].op == EXDB_OP_GET_ATTR && !(owned[o / 8] & (1u << (o % 8)));
        if (ok) {
            owned[o / 8] |= (uint8_t)(1u << (o % 8));
            depth[k] = (uint16_t)(depth[graph_of(im, k, o)] + 1);
            ok = depth[k] <= EXDB_JSON_MAX_DEPTH;
        }
    }
    free(owned);
    return ok;
}

/* The string references [at, at + n) (inside their section) all name a
 * string (the printers take a dict's keys and a schema's argument names
 * as strings). */
static int strings_present(const img *im, uint32_t at, uint32_t n) {
    const uint32_t *sr = REC(im, EXDB_IR_STRREFS, uint32_t);
    for (uint32_t k = 0; at != NONE && k < n; k++)
        if (sr[at + k] == NONE)
            return 0;
    return 1;
}

/* Node i's arg records [lo, hi): kinds in range, items after their list
 * and inside [lo, hi), nodes named before i in its graph (from first). */
static int args_ok(const img *im, uint32_t first, uint32_t i, uint64_t lo, uint64_t hi) {
    const ir_arg *a = REC(im, EXDB_IR_ARGS, ir_arg);
    for (uint64_t k = lo; k < hi; k++) {
        const ir_arg *r = &a[k];
        if (r->kind > EXDB_ARG_OPERATOR ||
            (r->keys != NONE && !range_ok(im, EXDB_IR_STRREFS, r->keys, r->n)))
            return 0;
        switch (r->kind) {
        case EXDB_ARG_NODE:
            if (r->u >= i || r->u < first)
                return 0;
            break;
        case EXDB_ARG_STR:
        case EXDB_ARG_DEVICE:
        case EXDB_ARG_OPERATOR: /* a string (the printers take it as one) */
            if (r->u >= NONE || !str_ok(im, (uint32_t)r->u))
                return 0;
            break;
        case EXDB_ARG_COMPLEX:
            if (r->u >= NONE || !range_ok(im, EXDB_IR_DOUBLES, r->u, 2))
                return 0;
            break;
        case EXDB_ARG_LIST:
        case EXDB_ARG_TUPLE:
        case EXDB_ARG_DICT:
            if (r->u == NONE ? r->n != 0 : (r->u <= k || r->u > hi || r->n > hi - r->u))
                return 0;
            if (r->kind == EXDB_ARG_DICT && r->n && r->keys == NONE)
                return 0;
            if (r->kind == EXDB_ARG_DICT && !strings_present(im, r->keys, r->n))
                return 0;
            break;
        default:
            break;
        }
    }
    return 1;
}

/* Graph k's nodes [first, end) (args from *lo on), ids (a bitmap of its
 * next_id bits, clear) each its own. */
static int graph_nodes_ok(const img *im, uint64_t k, uint64_t *lo, uint8_t *ids) {
    const ir_node *nd = REC(im, EXDB_IR_NODES, ir_node);
    const ir_arg *a = REC(im, EXDB_IR_ARGS, ir_arg);
    uint64_t first = graph_start(im, k, EXDB_IR_NODES), end = graph_start(im, k + 1, EXDB_IR_NODES);
    uint64_t n = im->n[EXDB_IR_NODES], next_id = REC(im, EXDB_IR_GRAPHS, ir_graph)[k].next_id;
    int ok = 1, past_inputs = 0;
    for (uint64_t i = first; i < end && ok; i++) {
        const ir_node *r = &nd[i];
        /* the graph's shape as the loader makes it (a subgraph's too):
         * the placeholders first, one output node, last */
        int shape = r->op == EXDB_OP_PLACEHOLDER ? !past_inputs
                                                 : (r->op == EXDB_OP_OUTPUT) == (i + 1 == end);
        past_inputs |= r->op != EXDB_OP_PLACEHOLDER;
        uint64_t hi = i + 1 < n ? nd[i + 1].args : im->n[EXDB_IR_ARGS];
        ok = shape && r->args == *lo && hi >= *lo && hi <= im->n[EXDB_IR_ARGS] &&
             r->kwargs > r->args && r->kwargs < hi && a[r->args].kind == EXDB_ARG_TUPLE &&
             a[r->kwargs].kind == EXDB_ARG_DICT && r->name != NONE && r->target != NONE &&
             str_ok(im, r->name) && str_ok(im, r->target) && r->op <= EXDB_OP_OUTPUT &&
             r->tkind <= EXDB_T_PYFN && r->erased == 0 && r->hashed <= 1 &&
             (r->meta == NONE || r->meta < im->n[EXDB_IR_METAS]) && r->id < next_id &&
             !(ids[r->id / 8] & (1u << (r->id % 8))) &&
             args_ok(im, (uint32_t)first, (uint32_t)i, *lo, hi);
        if (ok)
            ids[r->id / 8] |= (uint8_t)(1u << (r->id % 8));
        *lo = hi;
    }
    return ok && nd[end - 1].op == EXDB_OP_OUTPUT;
}

static int nodes_ok(const img *im) {
    const ir_graph *g = REC(im, EXDB_IR_GRAPHS, ir_graph);
    uint64_t most = 0, lo = 0;
    for (uint64_t k = 0; k < im->n[EXDB_IR_GRAPHS]; k++)
        most = g[k].next_id > most ? g[k].next_id : most;
    uint8_t *ids = malloc(most / 8 + 1);
    int ok = ids != NULL;
    for (uint64_t k = 0; k < im->n[EXDB_IR_GRAPHS] && ok; k++) {
        memset(ids, 0, g[k].next_id / 8 + 1);
        ok = graph_nodes_ok(im, k, &lo, ids);
    }
    free(ids);
    return ok && lo == im->n[EXDB_IR_ARGS];
}

static int sym_ok(const img *im, const ir_sym *s) {
    return str_ok(im, s->expr) && s->has_hint <= 1;
}

static int metas_ok(const img *im) {
    const ir_meta *m = REC(im, EXDB_IR_METAS, ir_meta);
    int lazy = im->h->flags & 1;
    for (uint64_t i = 0; i < im->n[EXDB_IR_METAS]; i++) {
        const ir_meta *r = &m[i];
        if (!range_ok(im, EXDB_IR_STACKS, r->stack, r->nstack) || r->has_stack > 1 ||
            r->has_defer > (uint8_t)lazy || (r->textmask & ~0x2eu) ||
            (r->textmask && !r->has_defer) || !range_ok(im, EXDB_IR_KVS, r->extra, r->nextra) ||
            (r->val != NONE && r->val >= im->n[EXDB_IR_VALS]) ||
            !range_ok(im, EXDB_IR_STRREFS, r->arg_names, r->narg_names) ||
            !strings_present(im, r->arg_names, r->narg_names) || !str_ok(im, r->arg_names_target))
            return 0;
        for (int k = 0; k < 6; k++)
            if (!((r->textmask >> k) & 1 ? text_ok(im, r->strs[k]) : str_ok(im, r->strs[k])))
                return 0;
        const ir_kv *kv = REC(im, EXDB_IR_KVS, ir_kv);
        for (uint32_t k = 0; r->extra != NONE && k < r->nextra; k++) {
            const ir_kv *e = &kv[r->extra + k];
            if (e->key == NONE || !str_ok(im, e->key) || e->text != r->has_defer ||
                !(e->text ? text_ok(im, e->value) : str_ok(im, e->value)))
                return 0;
        }
    }
    const ir_stack *st = REC(im, EXDB_IR_STACKS, ir_stack);
    for (uint64_t i = 0; i < im->n[EXDB_IR_STACKS]; i++) /* three strings each */
        if (st[i].key == NONE || st[i].path == NONE || st[i].type == NONE ||
            !str_ok(im, st[i].key) || !str_ok(im, st[i].path) || !str_ok(im, st[i].type))
            return 0;
    const uint32_t *sr = REC(im, EXDB_IR_STRREFS, uint32_t);
    for (uint64_t i = 0; i < im->n[EXDB_IR_STRREFS]; i++)
        if (!str_ok(im, sr[i]))
            return 0;
    return 1;
}

static int vals_ok(const img *im) {
    const ir_val *v = REC(im, EXDB_IR_VALS, ir_val);
    const uint32_t *refs = REC(im, EXDB_IR_VALREFS, uint32_t);
    for (uint64_t i = 0; i < im->n[EXDB_IR_VALS]; i++) {
        const ir_val *r = &v[i];
        switch (r->kind) {
        case EXDB_VAL_NONE:
            break;
        case EXDB_VAL_TENSOR:
            if (r->u >= im->n[EXDB_IR_TMETAS])
                return 0;
            break;
        case EXDB_VAL_SYMINT:
        case EXDB_VAL_SYMFLOAT:
        case EXDB_VAL_SYMBOOL:
            if (!str_ok(im, r->expr) || r->has_hint > 1)
                return 0;
            break;
        case EXDB_VAL_CUSTOM_OBJ:
            if (r->u >= NONE || !str_ok(im, (uint32_t)r->u))
                return 0;
            break;
        case EXDB_VAL_TUPLE:
            if (r->u > NONE || !range_ok(im, EXDB_IR_VALREFS, r->u, r->n))
                return 0;
            for (uint32_t k = 0; r->u != NONE && k < r->n; k++)
                if (refs[r->u + k] != NONE && refs[r->u + k] >= i) /* before it: no cycle */
                    return 0;
            break;
        case EXDB_VAL_CONST:
            if (r->u >= im->n[EXDB_IR_ARGS])
                return 0;
            break;
        default:
            return 0;
        }
    }
    for (uint64_t i = 0; i < im->n[EXDB_IR_VALREFS]; i++)
        if (refs[i] != NONE && refs[i] >= im->n[EXDB_IR_VALS])
            return 0;
    const ir_tmeta *t = REC(im, EXDB_IR_TMETAS, ir_tmeta);
    for (uint64_t i = 0; i < im->n[EXDB_IR_TMETAS]; i++) {
        const ir_tmeta *r = &t[i];
        if (r->device_type == NONE || !str_ok(im, r->device_type) ||
            !sym_ok(im, &r->storage_offset) ||
            !range_ok(im, EXDB_IR_SYMS, r->sizes, r->sizes == NONE ? 0 : r->ndim) ||
            !range_ok(im, EXDB_IR_SYMS, r->strides, r->strides == NONE ? 0 : r->ndim) ||
            (r->ndim && (r->sizes == NONE || r->strides == NONE)))
            return 0;
    }
    const ir_sym *sy = REC(im, EXDB_IR_SYMS, ir_sym);
    for (uint64_t i = 0; i < im->n[EXDB_IR_SYMS]; i++)
        if (!sym_ok(im, &sy[i]))
            return 0;
    return 1;
}

/* The size of graph k's table of section s (NAMES, BASES). */
static uint32_t table_cap(const img *im, uint64_t k, int s) {
    const ir_graph *g = REC(im, EXDB_IR_GRAPHS, ir_graph) + k;
    return s == EXDB_IR_NAMES ? g->names_cap : g->bases_cap;
}

/* Graph k's table of section s (NAMES, BASES): a size of 0 or a power of
 * two with an empty slot left, its records in table order, each a string
 * in its place; a name's node one of the graph's own. */
static int slots_ok(const img *im, uint64_t k, int s, int names) {
    const ir_slot *sl = REC(im, s, ir_slot);
    uint64_t lo = graph_start(im, k, s), used = graph_start(im, k + 1, s) - lo;
    uint64_t cap = table_cap(im, k, s);
    uint64_t first = graph_start(im, k, EXDB_IR_NODES), end = graph_start(im, k + 1, EXDB_IR_NODES);
    if ((cap & (cap - 1)) || (cap ? used >= cap : used > 0))
        return 0;
    for (uint64_t i = lo; i < lo + used; i++)
        if (sl[i].at >= cap || (i > lo && sl[i].at <= sl[i - 1].at) || !str_ok(im, sl[i].key) ||
            (names && sl[i].val != NONE && (sl[i].val < first || sl[i].val >= end)))
            return 0;
    return 1;
}

int exdb_cache_ir_check(const char *image, size_t len, uint64_t text_len) {
    img im;
    int ok = sections_ok(&im, image, len, text_len) && graphs_ok(&im) && nodes_ok(&im) &&
             metas_ok(&im) && vals_ok(&im);
    for (uint64_t k = 0; ok && k < im.n[EXDB_IR_GRAPHS]; k++)
        ok = slots_ok(&im, k, EXDB_IR_NAMES, 1) && slots_ok(&im, k, EXDB_IR_BASES, 0);
    return ok ? 0 : -1;
}

/* ---- the install */

typedef struct rel {
    exdb_program *p;
    img im;
    const char *strs;
    exdb_node *nodes;
    exdb_arg *args;
    const char **strrefs;
    double *doubles;
    exdb_meta *metas;
    exdb_stack_entry *stacks;
    exdb_kv *kvs;
    exdb_val *vals;
    const exdb_val **valrefs;
    exdb_tensor_meta *tmetas;
    exdb_sym *syms;
} rel;

static const char *S(const rel *r, uint32_t s) {
    return s == NONE ? NULL : r->strs + s;
}
static const char *T(const rel *r, uint32_t s) {
    return s == NONE ? NULL : r->p->buf + s;
}

/* An array of n records (one when n is 0: an empty range at its start
 * is then an address, not an offset from NULL). */
static void *alloc(exdb_arena *a, uint64_t n, size_t size, int *oom) {
    void *p = exdb_arena_alloc(a, (size_t)(n ? n : 1) * size);
    *oom |= !p;
    return p;
}

static exdb_arg arg_of(const rel *r, const ir_arg *a) {
    exdb_arg x = {.kind = a->kind, .n = a->n};
    switch (a->kind) {
    case EXDB_ARG_NODE:
        x.u.node = &r->nodes[a->u];
        break;
    case EXDB_ARG_FLOAT:
        memcpy(&x.u.f, &a->u, 8);
        break;
    case EXDB_ARG_STR:
    case EXDB_ARG_DEVICE:
    case EXDB_ARG_OPERATOR:
        x.u.s = S(r, (uint32_t)a->u);
        break;
    case EXDB_ARG_COMPLEX:
        x.u.c = &r->doubles[a->u];
        break;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        x.u.items = a->u == NONE ? NULL : &r->args[a->u];
        break;
    default:
        x.u.i = (int64_t)a->u;
    }
    x.keys = a->keys == NONE ? NULL : &r->strrefs[a->keys];
    return x;
}

static exdb_sym sym_of(const rel *r, const ir_sym *s) {
    exdb_sym x = {.expr = S(r, s->expr), .has_hint = s->has_hint};
    memcpy(&x.v, &s->v, 8);
    return x;
}

static void fill_values(rel *r) {
    const img *im = &r->im;
    const uint32_t *sr = REC(im, EXDB_IR_STRREFS, uint32_t);
    for (uint64_t i = 0; i < im->n[EXDB_IR_STRREFS]; i++)
        r->strrefs[i] = S(r, sr[i]);
    if (im->n[EXDB_IR_DOUBLES])
        memcpy(r->doubles, REC(im, EXDB_IR_DOUBLES, double), im->n[EXDB_IR_DOUBLES] * 8);
    const ir_sym *sy = REC(im, EXDB_IR_SYMS, ir_sym);
    for (uint64_t i = 0; i < im->n[EXDB_IR_SYMS]; i++)
        r->syms[i] = sym_of(r, &sy[i]);
    const ir_tmeta *t = REC(im, EXDB_IR_TMETAS, ir_tmeta);
    for (uint64_t i = 0; i < im->n[EXDB_IR_TMETAS]; i++)
        r->tmetas[i] =
            (exdb_tensor_meta){.dtype = t[i].dtype,
                               .layout = t[i].layout,
                               .requires_grad = t[i].requires_grad,
                               .device_type = S(r, t[i].device_type),
                               .device_index = t[i].device_index,
                               .ndim = t[i].ndim,
                               .sizes = t[i].sizes == NONE ? NULL : &r->syms[t[i].sizes],
                               .strides = t[i].strides == NONE ? NULL : &r->syms[t[i].strides],
                               .storage_offset = sym_of(r, &t[i].storage_offset)};
    const uint32_t *vr = REC(im, EXDB_IR_VALREFS, uint32_t);
    for (uint64_t i = 0; i < im->n[EXDB_IR_VALREFS]; i++)
        r->valrefs[i] = vr[i] == NONE ? NULL : &r->vals[vr[i]];
    const ir_val *v = REC(im, EXDB_IR_VALS, ir_val);
    for (uint64_t i = 0; i < im->n[EXDB_IR_VALS]; i++) {
        exdb_val *x = &r->vals[i];
        *x = (exdb_val){.kind = v[i].kind, .n = v[i].n};
        if (v[i].kind == EXDB_VAL_TENSOR)
            x->u.t = &r->tmetas[v[i].u];
        else if (v[i].kind == EXDB_VAL_CUSTOM_OBJ)
            x->u.s = S(r, (uint32_t)v[i].u);
        else if (v[i].kind == EXDB_VAL_TUPLE)
            x->u.items = v[i].u == NONE ? NULL : &r->valrefs[v[i].u];
        else if (v[i].kind == EXDB_VAL_CONST)
            x->u.arg = &r->args[v[i].u];
        else if (v[i].kind != EXDB_VAL_NONE) {
            ir_sym s = {.expr = v[i].expr, .has_hint = v[i].has_hint, .v = v[i].u};
            x->u.sym = sym_of(r, &s);
        }
    }
}

static void fill_metas(rel *r) {
    const img *im = &r->im;
    const ir_stack *st = REC(im, EXDB_IR_STACKS, ir_stack);
    for (uint64_t i = 0; i < im->n[EXDB_IR_STACKS]; i++)
        r->stacks[i] =
            (exdb_stack_entry){S(r, st[i].key), S(r, st[i].path), S(r, st[i].type), st[i].call_idx};
    const ir_meta *m = REC(im, EXDB_IR_METAS, ir_meta);
    const ir_kv *kv = REC(im, EXDB_IR_KVS, ir_kv);
    for (uint64_t i = 0; i < im->n[EXDB_IR_KVS]; i++)
        r->kvs[i] = (exdb_kv){S(r, kv[i].key), kv[i].text ? T(r, kv[i].value) : S(r, kv[i].value)};
    for (uint64_t i = 0; i < im->n[EXDB_IR_METAS]; i++) {
        const ir_meta *x = &m[i];
        const char *f[6];
        for (int k = 0; k < 6; k++)
            f[k] = (x->textmask >> k) & 1 ? T(r, x->strs[k]) : S(r, x->strs[k]);
        r->metas[i] =
            (exdb_meta){.stack = x->stack == NONE ? NULL : &r->stacks[x->stack],
                        .nstack = x->nstack,
                        .has_stack = x->has_stack,
                        .nn_module_stack = f[0],
                        .lazy_stack_trace = f[1],
                        .lazy_source_fn_stack = f[2],
                        .lazy_torch_fn = f[3],
                        .custom = f[4],
                        .lazy_from_node = f[5],
                        .lazy_extra = x->extra == NONE ? NULL : &r->kvs[x->extra],
                        .nextra = x->nextra,
                        .defer_src = x->defer_src,
                        .defer = x->has_defer ? &r->p->meta_defer : NULL,
                        .val = x->val == NONE ? NULL : &r->vals[x->val],
                        .arg_names = x->arg_names == NONE ? NULL : &r->strrefs[x->arg_names],
                        .arg_names_target = S(r, x->arg_names_target),
                        .narg_names = x->narg_names};
    }
}

/* Graph k's nodes into g (the args all filled first). */
static void fill_nodes(rel *r, uint64_t k, exdb_graph *g) {
    const img *im = &r->im;
    const ir_node *nd = REC(im, EXDB_IR_NODES, ir_node);
    uint32_t lo = (uint32_t)graph_start(im, k, EXDB_IR_NODES);
    uint32_t hi = (uint32_t)graph_start(im, k + 1, EXDB_IR_NODES), n = hi - lo;
    for (uint32_t i = lo; i < hi; i++) {
        exdb_node *x = &r->nodes[i];
        x->prev = i > lo ? &r->nodes[i - 1] : NULL;
        x->next = i + 1 < hi ? &r->nodes[i + 1] : NULL;
        x->graph = g;
        x->name = S(r, nd[i].name);
        x->id = nd[i].id;
        x->name_hash = nd[i].name_hash;
        x->hashed_name = nd[i].hashed ? x->name : NULL;
        x->op = nd[i].op;
        x->tkind = nd[i].tkind;
        x->target = S(r, nd[i].target);
        x->args = r->args[nd[i].args];
        x->kwargs = r->args[nd[i].kwargs];
        x->meta = nd[i].meta == NONE ? NULL : &r->metas[nd[i].meta];
        x->src = nd[i].src;
    }
    g->head = &r->nodes[lo]; /* a node at least: the check saw to it */
    g->tail = &r->nodes[hi - 1];
    g->count = n;
    g->next_id = REC(im, EXDB_IR_GRAPHS, ir_graph)[k].next_id;
    g->reserved = &r->nodes[lo];
    g->nreserved = n;
    g->slab_size = 2;
}

static void count_user(void *ctx, exdb_node *in) {
    (void)ctx;
    in->users_cap++;
}
static void add_user(void *ctx, exdb_node *in) {
    in->users[in->nusers++] = ctx;
}

/* Each node's users (of every graph: a node's inputs are of its own),
 * in the order its users' inputs name it (as the loader's create_node
 * made them): one array for all. */
static int fill_users(rel *r, exdb_arena *a) {
    uint64_t total = 0, n = r->im.n[EXDB_IR_NODES];
    for (uint64_t i = 0; i < n; i++)
        exdb_node_foreach_input(&r->nodes[i], count_user, NULL);
    for (uint64_t i = 0; i < n; i++)
        total += r->nodes[i].users_cap;
    int oom = 0;
    exdb_node **u = alloc(a, total, sizeof *u, &oom);
    if (oom)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        r->nodes[i].users = u;
        u += r->nodes[i].users_cap;
    }
    for (uint64_t i = 0; i < n; i++)
        exdb_node_foreach_input(&r->nodes[i], add_user, &r->nodes[i]);
    return 0;
}

/* Graph k's name table of section s into m. */
static int fill_slots(rel *r, uint64_t k, exdb_strmap *m, int s, int names) {
    uint64_t lo = graph_start(&r->im, k, s), used = graph_start(&r->im, k + 1, s) - lo;
    uint32_t cap = table_cap(&r->im, k, s);
    const ir_slot *sl = REC(&r->im, s, ir_slot) + lo;
    exdb_strmap_slot *slots = cap ? exdb_arena_calloc(m->a, cap, sizeof *slots) : NULL;
    if (cap && !slots)
        return -1;
    for (uint64_t i = 0; i < used; i++) {
        exdb_strmap_slot *to = &slots[sl[i].at];
        to->key = (uintptr_t)S(r, sl[i].key) | ((uintptr_t)sl[i].hi << 48);
        to->val = names ? (sl[i].val == NONE ? NULL : &r->nodes[sl[i].val])
                        : (void *)(uintptr_t)sl[i].val;
    }
    m->slots = slots;
    m->cap = cap;
    m->count = (uint32_t)used;
    return 0;
}

/* Graph k built (its nodes, names), and, a subgraph, its entry among
 * p's subgraphs (the image holds them backwards: cache_format.h). */
static int fill_graph(rel *r, uint64_t k) {
    exdb_program *p = r->p;
    exdb_graph *g = exdb_graph_new(&p->arena);
    if (!g)
        return -1;
    fill_nodes(r, k, g);
    if (fill_slots(r, k, &g->names, EXDB_IR_NAMES, 1) < 0 ||
        fill_slots(r, k, &g->base_count, EXDB_IR_BASES, 0) < 0)
        return -1;
    const ir_graph *ig = REC(&r->im, EXDB_IR_GRAPHS, ir_graph) + k;
    if (k == 0)
        p->graph = g;
    else
        p->subgraphs[p->nsubgraphs - k] =
            (struct exdb_subgraph){S(r, ig->name), g, &r->nodes[ig->owner]};
    return 0;
}

int exdb_cache_ir_install(exdb_program *p, const char *image, size_t len) {
    rel r = {.p = p};
    if (!sections_ok(&r.im, image, len, p->json_bytes))
        return -1;
    const img *im = &r.im;
    int oom = 0;
    exdb_arena *a = &p->arena;
    char *strs = alloc(&p->text_arena, im->n[EXDB_IR_STRS], 1, &oom);
    r.nodes = oom ? NULL : exdb_arena_calloc(a, im->n[EXDB_IR_NODES] + 1, sizeof *r.nodes);
    oom |= !r.nodes;
    uint32_t nsub = (uint32_t)im->n[EXDB_IR_GRAPHS] - 1;
    struct exdb_subgraph *subs = alloc(a, nsub, sizeof *subs, &oom);
    r.args = alloc(&p->args_arena, im->n[EXDB_IR_ARGS], sizeof *r.args, &oom);
    r.strrefs = alloc(a, im->n[EXDB_IR_STRREFS], sizeof *r.strrefs, &oom);
    r.doubles = alloc(a, im->n[EXDB_IR_DOUBLES], sizeof *r.doubles, &oom);
    r.metas = alloc(a, im->n[EXDB_IR_METAS], sizeof *r.metas, &oom);
    r.stacks = alloc(a, im->n[EXDB_IR_STACKS], sizeof *r.stacks, &oom);
    r.kvs = alloc(a, im->n[EXDB_IR_KVS], sizeof *r.kvs, &oom);
    r.vals = alloc(a, im->n[EXDB_IR_VALS], sizeof *r.vals, &oom);
    r.valrefs = alloc(a, im->n[EXDB_IR_VALREFS], sizeof *r.valrefs, &oom);
    r.tmetas = alloc(a, im->n[EXDB_IR_TMETAS], sizeof *r.tmetas, &oom);
    r.syms = alloc(a, im->n[EXDB_IR_SYMS], sizeof *r.syms, &oom);
    if (oom)
        return -1;
    if (im->n[EXDB_IR_STRS])
        memcpy(strs, REC(im, EXDB_IR_STRS, char), im->n[EXDB_IR_STRS]);
    r.strs = strs;
    fill_values(&r);
    fill_metas(&r);
    const ir_arg *ia = REC(im, EXDB_IR_ARGS, ir_arg);
    for (uint64_t i = 0; i < im->n[EXDB_IR_ARGS]; i++)
        r.args[i] = arg_of(&r, &ia[i]);
    p->subgraphs = subs;
    p->nsubgraphs = nsub;
    for (uint64_t k = 0; k <= nsub; k++)
        if (fill_graph(&r, k) < 0)
            return -1;
    /* the subgraphs indexed as the loader indexes them */
    return fill_users(&r, a) < 0 || exdb_program_index_subgraphs(p) < 0 ? -1 : 0;
}
