/* diff.c - matching two programs' flat graphs node by node (docs/diff.md).
 *
 * A node's structure is its opcode, its target and its args/kwargs with
 * every node argument replaced by that input's match: two nodes with equal
 * structure compute the same thing from the same (matched) values. Graphs
 * are topologically ordered, so walking A in order, every input of a node
 * is decided before the node itself:
 *
 *   0. placeholders by their role in the graph signature (parameter
 *      conv1.weight, the 2nd user input...), the output nodes together;
 *   1. pass one, exact: B's node of the same name when its structure is
 *      equal, else the first unmatched B node (in B's order) with equal
 *      structure (a hash of the structure finds it): a node inserted early
 *      renames every later add_3 to add_4, and these still match;
 *   2. for what is left: equal structure again (inputs matched since
 *      count now), else the first unmatched B node with the same target
 *      and first input (changed arguments);
 *   3. B's node of the same name and target in the same module call;
 *      then 2 again;
 *   4. the first unmatched B node in the same module call with the same
 *      first input (seen through getitems), whatever its target
 *      (aten.conv2d became aten.convolution), else B's node of the same
 *      name and opcode in the same module call; then 2 again.
 * A name is the weakest evidence: a node inserted early shifts the names
 * of the later ones, so B's node of A's name may be another node.
 *
 * Whatever is left is removed (A) or added (B). Linear in the nodes but for
 * hash collisions. */
#include <stdlib.h>
#include <string.h>

#include "core/export/diff.h"
#include "core/export/diff_sig.h"
#include "core/fx/print.h"

/* ---- structure hashes */

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0x100000001b3ull;
}

static uint64_t mix_str(uint64_t h, const char *s) {
    uint64_t x = 1469598103934665603ull;
    for (; s && *s; s++)
        x = (x ^ (unsigned char)*s) * 1099511628211ull;
    return mix(h, x);
}

/* The hash of an argument tree; a node argument is hashed by the id of its
 * B node (ids: A node id -> its B match, NULL for B's own graph). 0 in *ok
 * when an input has no match yet. */
static uint64_t hash_arg(uint64_t h, const exdb_arg *a, const exdb_node **ids, int *ok) {
    h = mix(h, a->kind);
    switch (a->kind) {
    case EXDB_ARG_NODE: {
        const exdb_node *n = a->u.node;
        if (ids) {
            n = ids[n->id];
            if (!n) {
                *ok = 0;
                return h;
            }
        }
        return mix(h, n->id + 1);
    }
    case EXDB_ARG_INT:
    case EXDB_ARG_BOOL:
    case EXDB_ARG_DTYPE:
    case EXDB_ARG_LAYOUT:
    case EXDB_ARG_MEMFMT:
        return mix(h, (uint64_t)a->u.i);
    case EXDB_ARG_FLOAT: {
        uint64_t bits;
        memcpy(&bits, &a->u.f, sizeof bits);
        return mix(h, bits);
    }
    case EXDB_ARG_STR:
    case EXDB_ARG_DEVICE:
    case EXDB_ARG_OPERATOR:
        return mix_str(h, a->u.s);
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        h = mix(h, a->n);
        for (uint32_t i = 0; i < a->n; i++) {
            if (a->kind == EXDB_ARG_DICT)
                h = mix_str(h, a->keys[i]);
            h = hash_arg(h, &a->u.items[i], ids, ok);
        }
        return h;
    default:
        return h;
    }
}

static uint64_t hash_node(const exdb_node *n, const exdb_node **ids, int *ok) {
    *ok = 1;
    uint64_t h = mix(mix_str(17, n->target), n->op);
    h = hash_arg(h, &n->args, ids, ok);
    return hash_arg(h, &n->kwargs, ids, ok);
}

/* Whether x (of A) and y (of B) are equal, node arguments through map. */
static int arg_eq(const exdb_arg *x, const exdb_arg *y, const exdb_node **map) {
    if (x->kind != y->kind)
        return 0;
    switch (x->kind) {
    case EXDB_ARG_NODE:
        return map[x->u.node->id] == y->u.node;
    case EXDB_ARG_INT:
    case EXDB_ARG_BOOL:
    case EXDB_ARG_DTYPE:
    case EXDB_ARG_LAYOUT:
    case EXDB_ARG_MEMFMT:
        return x->u.i == y->u.i;
    case EXDB_ARG_FLOAT:
        return memcmp(&x->u.f, &y->u.f, sizeof x->u.f) == 0;
    case EXDB_ARG_STR:
    case EXDB_ARG_DEVICE:
    case EXDB_ARG_OPERATOR:
        return strcmp(x->u.s ? x->u.s : "", y->u.s ? y->u.s : "") == 0;
    case EXDB_ARG_COMPLEX:
        return x->u.c[0] == y->u.c[0] && x->u.c[1] == y->u.c[1];
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        if (x->n != y->n)
            return 0;
        for (uint32_t i = 0; i < x->n; i++) {
            if (x->kind == EXDB_ARG_DICT && strcmp(x->keys[i], y->keys[i]) != 0)
                return 0;
            if (!arg_eq(&x->u.items[i], &y->u.items[i], map))
                return 0;
        }
        return 1;
    default:
        return 1;
    }
}

static int target_eq(const exdb_node *a, const exdb_node *b) {
    return a->op == b->op && strcmp(a->target ? a->target : "", b->target ? b->target : "") == 0;
}

static int node_eq(const exdb_node *a, const exdb_node *b, const exdb_node **map) {
    return target_eq(a, b) && arg_eq(&a->args, &b->args, map) &&
           arg_eq(&a->kwargs, &b->kwargs, map);
}

/* ---- B's nodes by hash: an open-addressed table of chains in B's order */

typedef struct bucket_table {
    uint64_t *keys;
    uint32_t *head; /* B node id + 1 of the chain's first unmatched node, 0 empty */
    uint32_t cap;
    uint32_t *next; /* B node id -> next B node id + 1 of its chain */
} bucket_table;

static int table_init(bucket_table *t, uint32_t n, uint32_t ids) {
    t->cap = 16;
    while (t->cap < 2 * n)
        t->cap <<= 1;
    t->keys = malloc((size_t)t->cap * sizeof *t->keys);
    t->head = calloc(t->cap, sizeof *t->head);
    t->next = calloc((size_t)ids + 1, sizeof *t->next);
    return t->keys && t->head && t->next ? 0 : -1;
}

static void table_free(bucket_table *t) {
    free(t->keys);
    free(t->head);
    free(t->next);
}

static uint32_t *table_slot(bucket_table *t, uint64_t key) {
    for (uint32_t i = (uint32_t)(key ^ (key >> 32)) & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
        if (!t->head[i] || t->keys[i] == key) {
            t->keys[i] = key;
            return &t->head[i];
        }
}

/* ---- the match */

typedef struct diff_ctx {
    exdb_program_diff *d;
    const exdb_graph *ga, *gb;
    const exdb_node **bnodes; /* B node id -> node */
    bucket_table exact, loose, near;
    uint8_t *by_name; /* A node id -> matched by name */
} diff_ctx;

static void pair(diff_ctx *c, const exdb_node *a, const exdb_node *b, int by_name) {
    c->d->a_to_b[a->id] = b;
    c->d->b_to_a[b->id] = a;
    c->by_name[a->id] = (uint8_t)by_name;
}

/* The first unmatched node of chain *head equal to a (exact) or any
 * (loose); matched nodes at the chain's front are dropped as it goes. */
enum { FIND_EXACT, FIND_TARGET, FIND_NEAR };
static int module_eq(const exdb_node *a, const exdb_node *b);
static int near_eq(const exdb_node *a, const exdb_node *b);

static const exdb_node *chain_find(diff_ctx *c, bucket_table *t, uint32_t *head, const exdb_node *a,
                                   int mode) {
    while (*head && c->d->b_to_a[*head - 1])
        *head = t->next[*head - 1];
    for (uint32_t i = *head; i; i = t->next[i - 1]) {
        const exdb_node *b = c->bnodes[i - 1];
        if (c->d->b_to_a[b->id])
            continue;
        if (mode == FIND_EXACT    ? node_eq(a, b, c->d->a_to_b)
            : mode == FIND_TARGET ? target_eq(a, b)
                                  : near_eq(a, b))
            return b;
    }
    return NULL;
}

/* The first node argument of n, or NULL. */
static const exdb_node *first_input(const exdb_arg *a) {
    if (a->kind == EXDB_ARG_NODE)
        return a->u.node;
    if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_DICT)
        for (uint32_t i = 0; i < a->n; i++) {
            const exdb_node *n = first_input(&a->u.items[i]);
            if (n)
                return n;
        }
    return NULL;
}

/* The loose key: opcode, target and the B node of the first input. */
static uint64_t loose_key(const exdb_node *n, const exdb_node **ids, int *ok) {
    const exdb_node *in = first_input(&n->args);
    if (!in)
        in = first_input(&n->kwargs);
    *ok = 1;
    if (in && ids && !(in = ids[in->id]))
        *ok = 0;
    return mix(mix(mix_str(29, n->target), n->op), in ? in->id + 1 : 0);
}

/* The innermost nn_module_stack entry of n with a path, or NULL. */
static const exdb_stack_entry *leaf_entry(const exdb_node *n) {
    const exdb_meta *m = n->meta;
    for (uint32_t i = m ? m->nstack : 0; i-- > 0;)
        if (m->stack[i].path && m->stack[i].path[0])
            return &m->stack[i];
    return NULL;
}

static const exdb_node *through_getitems(const exdb_node *n) {
    while (n && n->op == EXDB_OP_CALL_FUNCTION && n->target &&
           strcmp(n->target, "operator.getitem") == 0 && first_input(&n->args))
        n = first_input(&n->args);
    return n;
}

/* The near key: opcode, module call and the B node of the first input
 * (seen through getitems: aten.batch_norm's user in A reads its output,
 * in B getitem(_native_batch_norm_legit_no_training, 0)), whatever the
 * target (aten.conv2d in A, aten.convolution in B). */
static uint64_t near_key(const exdb_node *n, const exdb_node **ids, int *ok) {
    const exdb_node *in = through_getitems(first_input(&n->args));
    const exdb_stack_entry *e = leaf_entry(n);
    *ok = 1;
    if (in && ids && !(in = through_getitems(ids[in->id])))
        *ok = 0;
    uint64_t h = mix(mix(31, n->op), in ? in->id + 1 : 0);
    return e ? mix(mix_str(h, e->path), (uint64_t)e->call_idx) : h;
}

static int near_eq(const exdb_node *a, const exdb_node *b) {
    const exdb_stack_entry *x = leaf_entry(a), *y = leaf_entry(b);
    if (a->op != b->op || !x != !y)
        return 0;
    return !x || (strcmp(x->path, y->path) == 0 && x->call_idx == y->call_idx);
}

static int build_tables(diff_ctx *c) {
    const exdb_graph *g = c->gb;
    if (table_init(&c->exact, g->count, g->next_id) < 0 ||
        table_init(&c->loose, g->count, g->next_id) < 0 ||
        table_init(&c->near, g->count, g->next_id) < 0)
        return -1;
    /* chains in B's order: pushed from the last node to the first */
    for (const exdb_node *n = g->tail; n; n = n->prev) {
        c->bnodes[n->id] = n;
        int ok;
        uint32_t *h = table_slot(&c->exact, hash_node(n, NULL, &ok));
        c->exact.next[n->id] = *h;
        *h = n->id + 1;
        h = table_slot(&c->loose, loose_key(n, NULL, &ok));
        c->loose.next[n->id] = *h;
        *h = n->id + 1;
        h = table_slot(&c->near, near_key(n, NULL, &ok));
        c->near.next[n->id] = *h;
        *h = n->id + 1;
    }
    return 0;
}

/* The key of input spec i among p's inputs: its kind and state target, or
 * its kind and position among the inputs of that kind (user inputs,
 * tokens), in a. */
static const char *input_key(exdb_arena *a, const exdb_program *p, uint32_t i, uint32_t *ord) {
    const exdb_input_spec *x = &p->inputs[i];
    uint32_t k = (uint32_t)x->kind < 16 ? (uint32_t)x->kind : 15;
    uint32_t n = ord[k]++;
    if (x->target)
        return exdb_arena_printf(a, "%d %s", (int)x->kind, x->target);
    return exdb_arena_printf(a, "%d #%u", (int)x->kind, n);
}

/* Step 0: placeholders by their signature role, the outputs together. */
static int match_inputs(diff_ctx *c) {
    const exdb_program *pa = c->d->a, *pb = c->d->b;
    exdb_arena *ar = &c->d->arena;
    exdb_strmap keys; /* B's input key -> its placeholder */
    exdb_strmap_init(&keys, ar);
    uint32_t ord[16] = {0};
    for (uint32_t j = 0; j < pb->ninputs; j++) {
        const char *k = input_key(ar, pb, j, ord);
        void **slot = k ? exdb_strmap_put(&keys, k, NULL) : NULL;
        if (!slot)
            return -1;
        if (!*slot && pb->inputs[j].name)
            *slot = exdb_graph_find(c->gb, pb->inputs[j].name);
    }
    memset(ord, 0, sizeof ord);
    for (uint32_t i = 0; i < pa->ninputs; i++) {
        const char *k = input_key(ar, pa, i, ord);
        if (!k)
            return -1;
        const exdb_node *b = exdb_strmap_get(&keys, k);
        const exdb_node *a = pa->inputs[i].name ? exdb_graph_find(c->ga, pa->inputs[i].name) : NULL;
        if (a && b && a->op == EXDB_OP_PLACEHOLDER && b->op == EXDB_OP_PLACEHOLDER &&
            !c->d->a_to_b[a->id] && !c->d->b_to_a[b->id])
            pair(c, a, b, strcmp(a->name, b->name) == 0);
    }
    const exdb_node *oa = exdb_graph_output(c->ga), *ob = exdb_graph_output(c->gb);
    if (oa && ob && !c->d->a_to_b[oa->id] && !c->d->b_to_a[ob->id])
        pair(c, oa, ob, strcmp(oa->name, ob->name) == 0);
    return 0;
}

/* One node of a pass (see the top of the file): 1 the same name and
 * structure, else the same structure; 2 the same structure, else the same
 * target and first input; 3 the same name and target; 4 the same module
 * call and first input, else the same name and opcode. */
static void match_node(diff_ctx *c, const exdb_node *a, int pass) {
    exdb_node *b = exdb_graph_find(c->gb, a->name);
    if (b && (c->d->b_to_a[b->id] || b->op != a->op))
        b = NULL;
    /* past pass 1 a name alone is trusted only within one module call */
    if (b && pass > 1 && a->op != EXDB_OP_PLACEHOLDER && !module_eq(a, b))
        b = NULL;
    if (b && pass == 1 && node_eq(a, b, c->d->a_to_b)) {
        pair(c, a, b, 1);
        return;
    }
    if (a->op == EXDB_OP_OUTPUT)
        return; /* an output is matched with the output only (step 0) */
    int ok;
    const exdb_node *m = NULL;
    if (pass <= 2) {
        uint64_t h = hash_node(a, c->d->a_to_b, &ok);
        if (ok)
            m = chain_find(c, &c->exact, table_slot(&c->exact, h), a, FIND_EXACT);
    }
    if (!m && pass == 2 && a->op != EXDB_OP_PLACEHOLDER) {
        uint64_t h = loose_key(a, c->d->a_to_b, &ok);
        if (ok)
            m = chain_find(c, &c->loose, table_slot(&c->loose, h), a, FIND_TARGET);
    }
    if (!m && pass == 3 && b && target_eq(a, b))
        m = b;
    if (!m && pass == 4 && a->op == EXDB_OP_CALL_FUNCTION) {
        uint64_t h = near_key(a, c->d->a_to_b, &ok);
        if (ok)
            m = chain_find(c, &c->near, table_slot(&c->near, h), a, FIND_NEAR);
    }
    if (!m && pass == 4)
        m = b;
    if (m)
        pair(c, a, m, m == b);
}

/* ---- what differs in a matched pair */

const char *exdb_diff_node_module(exdb_arena *a, const exdb_node *n) {
    const exdb_stack_entry *e = leaf_entry(n);
    if (!e)
        return "";
    return e->call_idx ? exdb_arena_printf(a, "%s@%d", e->path, e->call_idx) : e->path;
}

static int module_eq(const exdb_node *a, const exdb_node *b) {
    const exdb_stack_entry *ex = leaf_entry(a), *ey = leaf_entry(b);
    if (!ex || !ey)
        return !ex && !ey;
    return strcmp(ex->path, ey->path) == 0 && ex->call_idx == ey->call_idx;
}

/* Whether two tensor values print alike for certain (same dtype and
 * sizes), without formatting them: the common case, and formatting both
 * of every pair was most of a 100k-node diff. 0: format to tell. */
static int val_surely_eq(const exdb_val *x, const exdb_val *y) {
    if (x->kind != EXDB_VAL_TENSOR || y->kind != EXDB_VAL_TENSOR)
        return 0;
    const exdb_tensor_meta *a = x->u.t, *b = y->u.t;
    if (a->dtype != b->dtype || a->ndim != b->ndim)
        return 0;
    for (uint32_t i = 0; i < a->ndim; i++) {
        const exdb_sym *p = &a->sizes[i], *q = &b->sizes[i];
        if (p->expr || q->expr || p->v.i != q->v.i)
            return 0;
    }
    return 1;
}

static uint32_t pair_what(diff_ctx *c, const exdb_node *a, const exdb_node *b, exdb_buf *ta,
                          exdb_buf *tb) {
    uint32_t w = strcmp(a->name, b->name) ? EXDB_DIFF_NAME : 0;
    if (!target_eq(a, b))
        w |= EXDB_DIFF_TARGET;
    if (!arg_eq(&a->args, &b->args, c->d->a_to_b))
        w |= EXDB_DIFF_ARGS;
    if (!arg_eq(&a->kwargs, &b->kwargs, c->d->a_to_b))
        w |= EXDB_DIFF_KWARGS;
    const exdb_val *va = a->meta ? a->meta->val : NULL, *vb = b->meta ? b->meta->val : NULL;
    if (va != vb && !(va && vb && val_surely_eq(va, vb))) {
        exdb_buf_reset(ta);
        exdb_buf_reset(tb);
        if (va)
            exdb_format_val(ta, va);
        if (vb)
            exdb_format_val(tb, vb);
        if (strcmp(exdb_buf_str(ta), exdb_buf_str(tb)) != 0)
            w |= EXDB_DIFF_VALUE;
    }
    if (!module_eq(a, b))
        w |= EXDB_DIFF_MODULE;
    return w;
}

/* The pairs, the removed and the added nodes, in graph order. */
static int collect(diff_ctx *c) {
    exdb_program_diff *d = c->d;
    exdb_arena *ar = &d->arena;
    uint32_t na = c->ga->count, nb = c->gb->count;
    d->removed = exdb_arena_alloc(ar, (na + 1) * sizeof *d->removed);
    d->added = exdb_arena_alloc(ar, (nb + 1) * sizeof *d->added);
    d->changed = exdb_arena_alloc(ar, (na + 1) * sizeof *d->changed);
    d->renamed = exdb_arena_alloc(ar, (na + 1) * sizeof *d->renamed);
    if (!d->removed || !d->added || !d->changed || !d->renamed)
        return -1;
    exdb_buf ta, tb;
    exdb_buf_init(&ta);
    exdb_buf_init(&tb);
    for (const exdb_node *a = c->ga->head; a; a = a->next) {
        const exdb_node *b = d->a_to_b[a->id];
        if (!b) {
            d->removed[d->nremoved++] = a;
            continue;
        }
        d->nmatched++;
        d->nby_name += c->by_name[a->id];
        exdb_diff_pair p = {a, b, pair_what(c, a, b, &ta, &tb)};
        if (p.what & EXDB_DIFF_CHANGES)
            d->changed[d->nchanged++] = p;
        else if (p.what)
            d->renamed[d->nrenamed++] = p;
    }
    for (const exdb_node *b = c->gb->head; b; b = b->next)
        if (!d->b_to_a[b->id])
            d->added[d->nadded++] = b;
    int oom = ta.oom | tb.oom;
    exdb_buf_free(&ta);
    exdb_buf_free(&tb);
    return oom ? -1 : 0;
}

/* The call_function targets called a different number of times. */
static int count_ops(exdb_program_diff *d) {
    exdb_strmap idx; /* target -> ops index + 1 */
    exdb_strmap_init(&idx, &d->arena);
    uint32_t cap = d->a->graph->count + d->b->graph->count + 1, n = 0;
    exdb_diff_opcount *ops = exdb_arena_alloc(&d->arena, cap * sizeof *ops);
    if (!ops)
        return -1;
    for (int side = 0; side < 2; side++) {
        const exdb_graph *g = side ? d->b->graph : d->a->graph;
        for (const exdb_node *x = g->head; x; x = x->next) {
            if (x->op != EXDB_OP_CALL_FUNCTION || !x->target)
                continue;
            void **slot = exdb_strmap_put(&idx, x->target, NULL);
            if (!slot)
                return -1;
            if (!*slot) {
                ops[n] = (exdb_diff_opcount){x->target, 0, 0};
                *slot = (void *)(uintptr_t)++n;
            }
            exdb_diff_opcount *o = &ops[(uintptr_t)*slot - 1];
            if (side)
                o->b++;
            else
                o->a++;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (ops[i].a != ops[i].b)
            ops[d->nops++] = ops[i];
    d->ops = ops;
    return 0;
}

static int match(diff_ctx *c) {
    if (build_tables(c) < 0)
        return -1;
    if (match_inputs(c) < 0)
        return -1;
    /* a name is the weakest evidence: structure first, again after each
     * pass that matched by name (its users may match by structure now) */
    static const int passes[] = {1, 2, 3, 2, 4, 2};
    for (size_t k = 0; k < sizeof passes / sizeof *passes; k++)
        for (const exdb_node *a = c->ga->head; a; a = a->next)
            if (!c->d->a_to_b[a->id])
                match_node(c, a, passes[k]);
    if (collect(c) < 0)
        return -1;
    return count_ops(c->d);
}

exdb_program_diff *exdb_diff_programs(const exdb_program *a, const exdb_program *b,
                                      exdb_error *err) {
    exdb_program_diff *d = calloc(1, sizeof *d);
    if (!d) {
        exdb_errorf(err, "diff: out of memory");
        return NULL;
    }
    exdb_arena_init(&d->arena);
    d->a = a;
    d->b = b;
    diff_ctx c = {.d = d, .ga = a->graph, .gb = b->graph};
    d->a_to_b = exdb_arena_calloc(&d->arena, (size_t)c.ga->next_id + 1, sizeof *d->a_to_b);
    d->b_to_a = exdb_arena_calloc(&d->arena, (size_t)c.gb->next_id + 1, sizeof *d->b_to_a);
    c.bnodes = calloc((size_t)c.gb->next_id + 1, sizeof *c.bnodes);
    c.by_name = calloc((size_t)c.ga->next_id + 1, 1);
    int rc = d->a_to_b && d->b_to_a && c.bnodes && c.by_name ? match(&c) : -1;
    if (rc == 0)
        rc = exdb_diff_sig_items(d);
    table_free(&c.exact);
    table_free(&c.loose);
    table_free(&c.near);
    free(c.bnodes);
    free(c.by_name);
    if (rc < 0) {
        exdb_diff_free(d);
        exdb_errorf(err, "diff: out of memory");
        return NULL;
    }
    return d;
}

void exdb_diff_free(exdb_program_diff *d) {
    if (!d)
        return;
    exdb_arena_destroy(&d->arena);
    free(d);
}

int exdb_diff_equal(const exdb_program_diff *d) {
    return !d->nadded && !d->nremoved && !d->nchanged && !d->nitems;
}
