/* graph.c - see graph.h. Mirrors torch.fx.Graph / torch.fx.Node; the
 * names follow torch.fx.graph._Namespace (names.c). */
#include "core/fx/graph.h"
#include "core/fx/names.h"
#include "core/base/strbuf.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

exdb_graph *exdb_graph_new(exdb_arena *a) {
    exdb_graph *g = exdb_arena_calloc(a, 1, sizeof *g);
    if (!g)
        return NULL;
    g->arena = a;
    exdb_strmap_init(&g->names, a);
    exdb_strmap_init(&g->base_count, a);
    return g;
}

int exdb_graph_reserve(exdb_graph *g, uint32_t n, uint32_t nbases) {
    if (exdb_strmap_reserve(&g->names, g->names.count + n) < 0 ||
        exdb_strmap_reserve(&g->base_count, g->base_count.count + nbases) < 0)
        return -1;
    /* One slab of n nodes now, however many (a journaled graph takes nodes
     * one by one); nodes beyond the estimate then come in small slabs again
     * (4, 8, ...), not in a slab twice this size. */
    if (g->arena->will_write || g->slab_left >= n || n < 8)
        return 0;
    exdb_node *slab = exdb_arena_calloc(g->arena, n, sizeof *slab);
    if (!slab)
        return -1;
    g->slab = slab;
    g->slab_left = n;
    g->slab_size = 2;
    if (!g->reserved) {
        g->reserved = slab;
        g->nreserved = n;
    }
    return 0;
}

/* Graph._graph_namespace.create_name(candidate, None): g's namespace is its
 * names and base_count tables (names.c has the rules). */
const char *exdb_graph_create_name(exdb_graph *g, const char *candidate) {
    return exdb_names_create(g->arena, &g->names, &g->base_count, candidate);
}

/* ---- walks over argument trees */

/* Calls fn on every NODE leaf of an argument tree, in order (duplicates too). */
static void walk_arg(exdb_arg *a, void (*fn)(void *, exdb_arg *), void *ctx) {
    switch (a->kind) {
    case EXDB_ARG_NODE:
        fn(ctx, a);
        break;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        for (uint32_t i = 0; i < a->n; i++)
            walk_arg(&a->u.items[i], fn, ctx);
        break;
    default:
        break;
    }
}

/* Walk stamps must be unique across every graph a node can reference
 * (unflatten maps nodes between graphs), so the counter is global. */
static uint32_t global_stamp;

static uint32_t next_stamp(void) {
    if (++global_stamp == 0) /* wrapped: 0 is the never-visited value */
        ++global_stamp;
    return global_stamp;
}

/* The distinct nodes one walk has visited. The first WALK_SMALL are kept in
 * a list on the stack; past them, nodes are marked with the walk's stamp.
 * Most nodes have a few inputs, so most walks write nothing into the nodes
 * they visit: under an unflatten run's journal every stamp written into an
 * older node was a record (5% of the records of the 100k-node run). */
#define WALK_SMALL 16
typedef struct {
    uint32_t stamp; /* 0: not needed yet (all visited nodes are in small) */
    uint32_t n;
    exdb_node *small[WALK_SMALL];
} walk_set;

static void stamp_node(exdb_node *in, uint32_t stamp) {
    EXDB_WILL_WRITE(in->graph->arena, in->stamp);
    in->stamp = stamp;
}

/* Adds in to the set: 1 when it was not there yet. */
static int walk_set_add(walk_set *ws, exdb_node *in) {
    if (!ws->stamp) {
        for (uint32_t i = 0; i < ws->n; i++)
            if (ws->small[i] == in)
                return 0;
        if (ws->n < WALK_SMALL) {
            ws->small[ws->n++] = in;
            return 1;
        }
        ws->stamp = next_stamp(); /* full: the listed nodes are stamped from now on */
        for (uint32_t i = 0; i < ws->n; i++)
            stamp_node(ws->small[i], ws->stamp);
    }
    if (in->stamp == ws->stamp)
        return 0;
    stamp_node(in, ws->stamp);
    return 1;
}

typedef struct {
    walk_set *set;
    exdb_node_visit_fn fn;
    void *ctx;
} input_walk;

static void visit_unique(void *vctx, exdb_arg *a) {
    input_walk *w = vctx;
    exdb_node *in = a->u.node;
    if (walk_set_add(w->set, in) && w->fn)
        w->fn(w->ctx, in);
}

/* Visits each node of one argument tree that is not in set yet, once,
 * adding it to set. */
static void foreach_node_in(exdb_arg *a, walk_set *set, exdb_node_visit_fn fn, void *ctx) {
    input_walk w = {set, fn, ctx};
    walk_arg(a, visit_unique, &w);
}

void exdb_node_foreach_input(exdb_node *n, exdb_node_visit_fn fn, void *ctx) {
    walk_set s;
    s.stamp = s.n = 0; /* small[] is written before it is read */
    foreach_node_in(&n->args, &s, fn, ctx);
    foreach_node_in(&n->kwargs, &s, fn, ctx);
}

/* ---- users: FX keeps Node.users as an insertion-ordered dict (one entry
 * per user node, however many uses). Here it is a dense array in the same
 * order, so printers can index it directly. */

/* Room for one more user: the array doubles inside the arena when full (the
 * old one is left behind); -1 when memory ran out, nothing changed. */
static int reserve_user(exdb_node *in) {
    exdb_arena *a = in->graph->arena;
    if (in->nusers == in->users_cap) {
        EXDB_WILL_WRITE(a, in->users);
        EXDB_WILL_WRITE(a, in->users_cap);
        if (in->nusers > UINT32_MAX / 2)
            return -1;
        uint32_t ncap = in->nusers ? in->nusers * 2 : 2;
        exdb_node **nu = exdb_arena_alloc(in->graph->arena, (size_t)ncap * sizeof *nu);
        if (!nu)
            return -1;
        if (in->nusers)
            memcpy(nu, in->users, in->nusers * sizeof *nu);
        in->users = nu;
        in->users_cap = ncap;
    }
    return 0;
}

/* Appends user (the caller knows it is not there yet, as dict.setdefault
 * would). */
static int add_user(exdb_node *in, exdb_node *user) {
    if (reserve_user(in) < 0)
        return -1;
    exdb_arena *a = in->graph->arena;
    EXDB_WILL_WRITE(a, in->nusers);
    EXDB_WILL_WRITE(a, in->users[in->nusers]);
    in->users[in->nusers++] = user;
    return 0;
}

/* dict.pop(user) keeping the order of the others. FX's dict makes this O(1);
 * here the search runs from both ends and the shorter side of the array is
 * shifted (dropping the first entry just advances the pointer), so the
 * common patterns - erasing users newest first (DCE) or oldest first
 * (replace_all_uses_with) - cost O(1) per removal, and any removal costs at
 * most half the array. */
static void remove_user(exdb_node *in, exdb_node *user) {
    uint32_t n = in->nusers, pos = n;
    for (uint32_t i = 0, j = n; i < j; i++) {
        if (in->users[i] == user) {
            pos = i;
            break;
        }
        if (in->users[--j] == user) {
            pos = j;
            break;
        }
    }
    if (pos == n)
        return;
    exdb_arena *a = in->graph->arena;
    EXDB_WILL_WRITE(a, in->users);
    EXDB_WILL_WRITE(a, in->nusers);
    EXDB_WILL_WRITE(a, in->users_cap);
    if (pos < n / 2) {
        exdb_arena_will_write(a, in->users + 1, pos * sizeof *in->users);
        memmove(in->users + 1, in->users, pos * sizeof *in->users);
        in->users++;
        in->users_cap--;
    } else {
        exdb_arena_will_write(a, in->users + pos, (n - pos - 1) * sizeof *in->users);
        memmove(in->users + pos, in->users + pos + 1, (n - pos - 1) * sizeof *in->users);
    }
    in->nusers--;
}

typedef struct {
    exdb_node *user;
    int failed;
} user_ctx;

static void add_user_cb(void *vctx, exdb_node *in) {
    user_ctx *c = vctx;
    if (add_user(in, c->user) < 0)
        c->failed = 1;
}

static void remove_user_cb(void *vctx, exdb_node *in) {
    user_ctx *c = vctx;
    remove_user(in, c->user);
}

static void reserve_user_cb(void *vctx, exdb_node *in) {
    user_ctx *c = vctx;
    if (reserve_user(in) < 0)
        c->failed = 1;
}

/* Node._update_args_kwargs, the one way FX changes a node's inputs: n leaves
 * the users of every old input, then joins (at the end) the users of every
 * input of the new args then kwargs. Even an input that stays moves n to
 * the end of its users, exactly as in FX. NULL keeps that part as it is.
 * Every new input gets room for n first, so running out of memory (-1)
 * changes nothing; after that, nothing can fail. */
static int update_args_kwargs(exdb_node *n, const exdb_arg *args, const exdb_arg *kwargs) {
    user_ctx uc = {n, 0};
    walk_set s;
    s.stamp = s.n = 0;
    foreach_node_in((exdb_arg *)(args ? args : &n->args), &s, reserve_user_cb, &uc);
    foreach_node_in((exdb_arg *)(kwargs ? kwargs : &n->kwargs), &s, reserve_user_cb, &uc);
    if (uc.failed)
        return -1;
    exdb_node_foreach_input(n, remove_user_cb, &uc);
    _Static_assert(sizeof(exdb_arg) % 8 == 0, "exdb_arg: whole words");
    if (args) {
        exdb_arena_will_store(n->graph->arena, &n->args, args, sizeof *args);
        n->args = *args;
    }
    if (kwargs) {
        exdb_arena_will_store(n->graph->arena, &n->kwargs, kwargs, sizeof *kwargs);
        n->kwargs = *kwargs;
    }
    exdb_node_foreach_input(n, add_user_cb, &uc);
    assert(!uc.failed);
    return 0;
}

/* ---- argument trees */

int exdb_arg_seq(exdb_arena *a, exdb_arg_kind kind, uint32_t n, exdb_arg *out) {
    memset(out, 0, sizeof *out);
    out->kind = (uint8_t)kind;
    out->n = n;
    if (n) {
        out->u.items = exdb_arena_calloc(a, n, sizeof *out->u.items);
        if (!out->u.items)
            return -1;
        if (kind == EXDB_ARG_DICT) {
            out->keys = exdb_arena_calloc(a, n, sizeof *out->keys);
            if (!out->keys)
                return -1;
        }
    }
    return 0;
}

/* What a node becomes in a copied tree: fills *out (0) or fails (-1). */
typedef int (*node_to_arg_fn)(void *ctx, exdb_node *n, exdb_arg *out);

/* Whether the tree a holds a node (a sequence's first node ends the walk:
 * most node args are tuples that start with one). */
static int holds_node(const exdb_arg *a) {
    if (a->kind == EXDB_ARG_NODE)
        return 1;
    if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_DICT)
        for (uint32_t i = 0; i < a->n; i++)
            if (holds_node(&a->u.items[i]))
                return 1;
    return 0;
}

/* map_arg: a copy of every list/tuple/dict of src that holds a node into
 * arena a (as FX's map_aggregate builds new containers), each node replaced
 * through fn. Scalars, strings and the sequences that hold no node are
 * shared: exdb never edits an argument tree in place (a node's args are
 * replaced whole), so sharing is a copy no one can tell apart, and a module
 * graph's copies of shapes and int lists cost nothing (5 of the 11 MB of
 * synth_100k's argument arrays, copied into the flat copy and again into
 * the module graphs). */
static int map_arg(exdb_arena *a, const exdb_arg *src, exdb_arg *dst, node_to_arg_fn fn,
                   void *ctx) {
    switch (src->kind) {
    case EXDB_ARG_NODE:
        return fn(ctx, src->u.node, dst);
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        if (!holds_node(src)) {
            *dst = *src;
            return 0;
        }
        if (exdb_arg_seq(a, (exdb_arg_kind)src->kind, src->n, dst) < 0)
            return -1;
        for (uint32_t i = 0; i < src->n; i++) {
            if (src->kind == EXDB_ARG_DICT)
                dst->keys[i] = src->keys[i];
            if (map_arg(a, &src->u.items[i], &dst->u.items[i], fn, ctx) < 0)
                return -1;
        }
        return 0;
    default:
        *dst = *src;
        return 0;
    }
}

typedef struct {
    exdb_node_map_fn fn;
    void *ctx;
} copy_ctx;

static int copy_node_cb(void *vctx, exdb_node *n, exdb_arg *out) {
    copy_ctx *c = vctx;
    exdb_node *m = c->fn ? c->fn(c->ctx, n) : n;
    if (!m)
        return -1;
    *out = exdb_arg_node(m);
    return 0;
}

int exdb_arg_copy(exdb_arena *a, const exdb_arg *src, exdb_arg *dst, exdb_node_map_fn fn,
                  void *ctx) {
    copy_ctx c = {fn, ctx};
    return map_arg(a, src, dst, copy_node_cb, &c);
}

/* ---- node creation and list surgery */

/* Graph._insert. FX inserts through a bound method: ref.prepend (inserting
 * before ref, so successive nodes keep their order: a, b, ref) or ref.append
 * (inserting right after ref every time, so successive nodes come out
 * REVERSED: ref, b, a). A NULL ref stands for FX's root sentinel: before the
 * root is the end of the graph (the default), after it is the start. A ref
 * that was erased meanwhile (FX would splice next to the dead node's stale
 * links) or belongs to another graph (FX asserts) falls back to the end. */
static void link_node(exdb_graph *g, exdb_node *n) {
    /* Everything becomes "prepend to before": NULL before = root.prepend. */
    exdb_node *before = NULL;
    exdb_node *ref = g->insert_ref;
    if (ref && (ref->erased || ref->graph != g))
        before = NULL;
    else if (g->insert_mode == EXDB_INSERT_BEFORE)
        before = ref;
    else if (g->insert_mode == EXDB_INSERT_AFTER)
        before = ref ? ref->next : g->head; /* x.append(n) is x.next.prepend(n) */
    exdb_arena *a = g->arena;               /* n itself is new: only its neighbours are recorded */
    EXDB_WILL_WRITE(a, g->count);
    if (!before) {
        EXDB_WILL_WRITE(a, g->tail);
        if (!g->tail)
            EXDB_WILL_WRITE(a, g->head);
        n->prev = g->tail;
        n->next = NULL;
        if (g->tail) {
            EXDB_WILL_WRITE(a, g->tail->next);
            g->tail->next = n;
        } else
            g->head = n;
        g->tail = n;
    } else {
        n->next = before;
        n->prev = before->prev;
        if (before->prev) {
            EXDB_WILL_WRITE(a, before->prev->next);
            before->prev->next = n;
        } else {
            EXDB_WILL_WRITE(a, g->head);
            g->head = n;
        }
        EXDB_WILL_WRITE(a, before->prev);
        before->prev = n;
    }
    g->count++;
    assert(n->prev ? n->prev->next == n : g->head == n);
    assert(n->next ? n->next->prev == n : g->tail == n);
}

static void unlink_node(exdb_graph *g, exdb_node *n) {
    assert(n->graph == g && !n->erased && g->count > 0);
    assert(n->prev ? n->prev->next == n : g->head == n);
    assert(n->next ? n->next->prev == n : g->tail == n);
    exdb_arena *a = g->arena;
    exdb_arena_will_write(a, &g->head, sizeof g->head + sizeof g->tail + sizeof g->count);
    EXDB_WILL_WRITE(a, n->prev);
    EXDB_WILL_WRITE(a, n->next);
    if (n->prev) {
        EXDB_WILL_WRITE(a, n->prev->next);
        n->prev->next = n->next;
    } else {
        g->head = n->next;
    }
    if (n->next) {
        EXDB_WILL_WRITE(a, n->next->prev);
        n->next->prev = n->prev;
    } else {
        g->tail = n->prev;
    }
    n->prev = n->next = NULL;
    g->count--;
}

/* Graph._target_to_str: the default name candidate of a node.
 *
 *   if callable(target): op = target.__name__
 *   else: op = target; if _is_magic(op): op = op[2:-2]
 *   return _snake_case(op)   # re.sub(r"(?<=[a-z])([A-Z])", r"_\1", op).lower()
 *
 * A call_function target is a callable; its __name__ is:
 *  - OpOverload: f"{schema.name.split('::')[1]}.{overloadname}" (torch/_ops.py,
 *    "default" for the empty overload), so torch.ops.aten.add.Tensor gives
 *    "add.Tensor" -> "add.tensor" -> create_name "add_tensor". FX itself
 *    never strips the overload. The `add`, `add_1`,
 *    `_native_batch_norm_legit_no_training` names of exported graphs come
 *    from make_fx passing an explicit name, `name=graph._target_to_str(
 *    func.overloadpacket.__name__)` (torch/fx/experimental/proxy_tensor.py
 *    proxy_call), and the deserializer reuses the serialized names; a node
 *    the deserializer must name itself (no name recorded, several outputs)
 *    gets e.g. "_native_batch_norm_legit_no_training_default".
 *  - OpOverloadPacket (torch.ops.aten.add): the op name, "add".
 *  - HigherOrderOperator: its name (torch.ops.higher_order.cond -> "cond").
 *  - a Python function: its bare name (operator.getitem -> "getitem").
 * Only string targets lose __magic__ underscores; _is_magic("__") is true
 * too, leaving "" (create_name turns it into "_unnamed"). */
/* _target_to_str in two steps: the part of target it keeps (target_text),
 * then that part in snake case (target_snake, into a buffer of at least
 * 2 * len + 1 bytes). */
static void target_text(exdb_op op, const char *target, exdb_target_kind tkind, const char **text,
                        size_t *len_out) {
    const char *t = target;
    size_t len = strlen(t);
    if (op == EXDB_OP_CALL_FUNCTION && tkind != EXDB_T_STR) {
        if (tkind == EXDB_T_OP) {
            if (strncmp(t, "torch.ops.", 10) == 0)
                t += 10;
            const char *ns_end = strchr(t, '.'); /* skip the namespace */
            if (ns_end)
                t = ns_end + 1;
        } else {
            const char *dot = strrchr(t, '.');
            if (dot)
                t = dot + 1;
        }
        len = strlen(t);
    } else if (len >= 2 && strncmp(t, "__", 2) == 0 && strcmp(t + len - 2, "__") == 0) {
        t += 2;
        len = len >= 4 ? len - 4 : 0;
    }
    *text = t;
    *len_out = len;
}

/* Whether t[0..len) holds an upper-case ASCII letter (target_snake would
 * change it). */
static int has_upper(const char *t, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (t[i] >= 'A' && t[i] <= 'Z')
            return 1;
    return 0;
}

static char *target_snake(char *buf, const char *t, size_t len) {
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        int up = c >= 'A' && c <= 'Z';
        if (up && i > 0 && t[i - 1] >= 'a' && t[i - 1] <= 'z')
            buf[w++] = '_';
        buf[w++] = up ? (char)(c - 'A' + 'a') : c;
    }
    buf[w] = '\0';
    return buf;
}

const char *exdb_target_to_str(exdb_arena *a, exdb_op op, const char *target,
                               exdb_target_kind tkind) {
    const char *t;
    size_t len;
    target_text(op, target, tkind, &t, &len);
    char *buf = exdb_arena_alloc(a, 2 * len + 1);
    return buf ? target_snake(buf, t, len) : NULL;
}

/* Graph.create_node: candidate = name or _target_to_str(target), made unique
 * by create_name; the Node constructor records n as a user of its inputs
 * (_update_args_kwargs) before self._insert(n) links it at the insertion
 * point. */
/* A zeroed node from the graph's current slab. Nodes live in slabs of their
 * own (4, 8, ... up to 1024 nodes) rather than between the argument trees,
 * metadata and names the loader allocates for them: walking a big graph in
 * order then reads memory in order, which the hardware prefetches (on a
 * 141k-node graph, interleaved nodes made a bare walk ~20x slower per node
 * than on a 14k one). Tiny graphs (a module's) waste at most half a slab. */
/* The most nodes one slab holds (exdb_graph_reserve's may hold more). */
#define SLAB_MAX 1024

static exdb_node *node_alloc(exdb_graph *g) {
    /* Under an unflatten run's journal (journal.h) a node carved from a slab
     * an earlier event allocated would be a store into older memory that
     * reverse stepping cannot take back: such graphs (module graphs, small)
     * get each node fresh from the arena. */
    if (g->arena->will_write)
        return exdb_arena_calloc(g->arena, 1, sizeof(exdb_node));
    if (!g->slab_left) {
        uint32_t n = g->slab_size ? g->slab_size * 2 : 4;
        if (n > SLAB_MAX)
            n = SLAB_MAX;
        g->slab = exdb_arena_calloc(g->arena, n, sizeof *g->slab);
        if (!g->slab)
            return NULL;
        g->slab_size = n;
        g->slab_left = n;
    }
    g->slab_left--;
    return g->slab++;
}

/* A new node n joins the users of each of its distinct inputs (args, then
 * kwargs, in order), room made in all of them first: -1 when memory runs
 * out, no user added. The inputs are walked once when they are few (the
 * walk's list holds them all), twice (room, then users) otherwise. */
static int add_to_inputs(exdb_node *n) {
    walk_set s;
    s.stamp = s.n = 0;
    foreach_node_in(&n->args, &s, NULL, NULL);
    foreach_node_in(&n->kwargs, &s, NULL, NULL);
    user_ctx uc = {n, 0};
    if (s.stamp) { /* more than WALK_SMALL: stamped, not listed */
        exdb_node_foreach_input(n, reserve_user_cb, &uc);
        if (uc.failed)
            return -1;
        exdb_node_foreach_input(n, add_user_cb, &uc);
        assert(!uc.failed);
        return 0;
    }
    for (uint32_t i = 0; i < s.n; i++)
        if (reserve_user(s.small[i]) < 0)
            return -1;
    for (uint32_t i = 0; i < s.n; i++) {
        int rc = add_user(s.small[i], n);
        assert(rc == 0);
        (void)rc;
    }
    return 0;
}

/* keep: a string that outlives g which the name, when it comes out with
 * its text, shares (names.h) */
static exdb_node *create_node(exdb_graph *g, exdb_op op, const char *target, exdb_target_kind tkind,
                              const exdb_arg *args, const exdb_arg *kwargs, const char *name,
                              const char *keep) {
    exdb_node *n = node_alloc(g);
    if (!n)
        return NULL;
    n->graph = g;
    n->op = (uint8_t)op;
    n->tkind = (uint8_t)tkind;
    n->target = target;
    n->src = -1;
    EXDB_WILL_WRITE(g->arena, g->next_id);
    n->id = g->next_id++;
    if (args)
        n->args = *args;
    else
        n->args.kind = EXDB_ARG_TUPLE;
    if (kwargs)
        n->kwargs = *kwargs;
    else
        n->kwargs.kind = EXDB_ARG_DICT;
    /* a candidate made from the target is only read by create_name (the
     * name is a copy): on the stack when short, not one more arena string
     * per call_module and get_attr (7 MB of 259 for a 141k-node run) */
    char tbuf[256];
    const char *cand = name;
    if (!cand) {
        const char *t;
        size_t len;
        target_text(op, target, tkind, &t, &len);
        if (t[len] == '\0' && !has_upper(t, len)) /* snake case already (a placeholder's) */
            cand = t;
        else
            cand = 2 * len + 1 <= sizeof tbuf ? target_snake(tbuf, t, len)
                                              : exdb_target_to_str(g->arena, op, target, tkind);
    }
    void **slot = NULL;
    n->name = cand ? exdb_names_create_slot(g->arena, &g->names, &g->base_count, cand, keep,
                                            &n->name_hash, &slot)
                   : NULL;
    if (!n->name)
        return NULL;
    n->hashed_name = n->name;
    /* room in every input's users first: out of memory leaves no input
     * pointing to a node that is not in the graph */
    if (add_to_inputs(n) < 0)
        return NULL;
    EXDB_WILL_WRITE(g->arena, *slot);
    *slot = n;
    link_node(g, n);
    return n;
}

/* A placeholder's or get_attr's name is mostly its target's text: the
 * target (which g's nodes keep as given) is shared. */
exdb_node *exdb_graph_create_node(exdb_graph *g, exdb_op op, const char *target,
                                  exdb_target_kind tkind, const exdb_arg *args,
                                  const exdb_arg *kwargs, const char *name) {
    return create_node(g, op, target, tkind, args, kwargs, name, target);
}

exdb_node *exdb_graph_create_node_kept(exdb_graph *g, exdb_op op, const char *target,
                                       exdb_target_kind tkind, const exdb_arg *args,
                                       const exdb_arg *kwargs, const char *name) {
    return create_node(g, op, target, tkind, args, kwargs, name, name ? name : target);
}

/* Graph.inserting_before(n): n.prepend; inserting_before(None) is
 * inserting_after(root), the start of the graph. */
void exdb_graph_insert_before(exdb_graph *g, exdb_node *n) {
    EXDB_WILL_WRITE(g->arena, g->insert_mode);
    EXDB_WILL_WRITE(g->arena, g->insert_ref);
    g->insert_mode = n ? EXDB_INSERT_BEFORE : EXDB_INSERT_AFTER;
    g->insert_ref = n;
}

/* Graph.inserting_after(n): n.append; inserting_after(None) is
 * inserting_before(root), the end of the graph. */
void exdb_graph_insert_after(exdb_graph *g, exdb_node *n) {
    EXDB_WILL_WRITE(g->arena, g->insert_mode);
    EXDB_WILL_WRITE(g->arena, g->insert_ref);
    g->insert_mode = n ? EXDB_INSERT_AFTER : EXDB_INSERT_APPEND;
    g->insert_ref = n;
}

void exdb_graph_insert_append(exdb_graph *g) {
    EXDB_WILL_WRITE(g->arena, g->insert_mode);
    EXDB_WILL_WRITE(g->arena, g->insert_ref);
    g->insert_mode = EXDB_INSERT_APPEND;
    g->insert_ref = NULL;
}

exdb_node *exdb_graph_find(const exdb_graph *g, const char *name) {
    return exdb_strmap_get(&g->names, name);
}

exdb_node *exdb_graph_output(const exdb_graph *g) {
    for (exdb_node *n = g->tail; n; n = n->prev)
        if (n->op == EXDB_OP_OUTPUT)
            return n;
    return NULL;
}

static int to_none_cb(void *ctx, exdb_node *n, exdb_arg *out) {
    (void)ctx;
    (void)n;
    *out = exdb_arg_none();
    return 0;
}

/* Graph.erase_node, checks in FX's order:
 *   users left -> RuntimeError(f"Tried to erase Node {to_erase} but it still
 *                 had {len(to_erase.users)} users in the graph: {to_erase.users}!")
 *                 where users is a dict, so it prints as {add: None, mul: None};
 *   other graph -> RuntimeError(f"Attempting to remove {to_erase} from wrong graph!");
 *   already erased -> only a warning in FX: returns 0 here.
 * Then the node leaves the list and FX nulls its inputs
 * (`_update_args_kwargs(map_arg(args, lambda n: None), ...)`), which drops
 * it from its inputs' users. Its name stays in _used_names. */
int exdb_graph_erase_node(exdb_graph *g, exdb_node *n, exdb_error *err) {
    if (n->nusers) {
        exdb_buf users;
        exdb_buf_init(&users);
        exdb_buf_putc(&users, '{');
        for (uint32_t i = 0; i < n->nusers; i++)
            exdb_buf_printf(&users, "%s%s: None", i ? ", " : "", n->users[i]->name);
        exdb_buf_putc(&users, '}');
        exdb_errorf(err, "Tried to erase Node %s but it still had %u users in the graph: %s!",
                    n->name, n->nusers, exdb_buf_str(&users));
        exdb_buf_free(&users);
        return -1;
    }
    if (n->graph != g)
        return exdb_errorf(err, "Attempting to remove %s from wrong graph!", n->name);
    if (n->erased)
        return 0;
    unlink_node(g, n);
    EXDB_WILL_WRITE(g->arena, n->erased);
    n->erased = 1;
    void **slot = exdb_strmap_find_hashed(&g->names, n->name, exdb_node_name_hash(n));
    if (slot && *slot == n) {
        EXDB_WILL_WRITE(g->arena, *slot);
        *slot = NULL; /* the name stays used, as in FX */
    }
    if (g->insert_ref == n)
        exdb_graph_insert_append(g);
    exdb_arg args, kwargs;
    if (map_arg(g->arena, &n->args, &args, to_none_cb, NULL) == 0 &&
        map_arg(g->arena, &n->kwargs, &kwargs, to_none_cb, NULL) == 0)
        return update_args_kwargs(n, &args, &kwargs);
    /* out of memory for the copies: still leave the inputs' users */
    user_ctx uc = {n, 0};
    exdb_node_foreach_input(n, remove_user_cb, &uc);
    return 0;
}

typedef struct {
    exdb_node *old, *repl;
    int found;
} replace_ctx;

static void find_cb(void *vctx, exdb_arg *a) {
    replace_ctx *c = vctx;
    if (a->u.node == c->old)
        c->found = 1;
}

static int replace_cb(void *vctx, exdb_node *n, exdb_arg *out) {
    replace_ctx *c = vctx;
    *out = exdb_arg_node(n == c->old ? c->repl : n);
    return 0;
}

/* Node.replace_input_with: new args/kwargs trees with old -> repl (FX's
 * map_arg; the old trees may be shared, so they are not edited), then
 * _update_args_kwargs, which FX calls even when old is absent: n then moves
 * to the end of the users of each of its inputs. */
int exdb_node_replace_input_with(exdb_node *n, exdb_node *old, exdb_node *repl) {
    replace_ctx c = {old, repl, 0};
    walk_arg(&n->args, find_cb, &c);
    walk_arg(&n->kwargs, find_cb, &c);
    if (!c.found || old == repl)
        return update_args_kwargs(n, NULL, NULL);
    exdb_arena *a = n->graph->arena;
    exdb_arg args, kwargs;
    if (map_arg(a, &n->args, &args, replace_cb, &c) < 0 ||
        map_arg(a, &n->kwargs, &kwargs, replace_cb, &c) < 0)
        return -1; /* out of memory for the copies: n is as it was */
    return update_args_kwargs(n, &args, &kwargs);
}

/* Node.replace_all_uses_with (without delete_user_cb): for each user, in
 * users order, user._replace_input_with(n, repl). Each user is removed from
 * the front of n's users and appended to repl's, so repl's users end with
 * n's former users in their order. */
int exdb_node_replace_all_uses_with(exdb_node *n, exdb_node *repl) {
    uint32_t count = n->nusers;
    /* to_process = list(self.users): replacing edits n->users */
    exdb_node **users = malloc((count ? count : 1) * sizeof *users);
    if (!users)
        return -1;
    if (count) /* a node without users may have no users array at all */
        memcpy(users, n->users, count * sizeof *users);
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++)
        rc = exdb_node_replace_input_with(users[i], n, repl);
    free(users);
    return rc < 0 ? -1 : (int)count;
}

/* node.args = args / node.kwargs = kwargs: Node._update_args_kwargs. */
int exdb_node_set_args(exdb_node *n, const exdb_arg *args, const exdb_arg *kwargs) {
    return update_args_kwargs(n, args, kwargs);
}

/* Node.insert_arg: FX asserts 0 <= idx <= len(args) (-1 here otherwise),
 * builds args[:idx] + (a,) + args[idx:], and adds n to the users of the
 * nodes of a that were not inputs yet, at the end; the users of its other
 * inputs keep their order (unlike a full args assignment). */
int exdb_node_insert_arg(exdb_node *n, uint32_t idx, exdb_arg a) {
    if (idx > n->args.n)
        return -1;
    exdb_arg nargs;
    if (exdb_arg_seq(n->graph->arena, EXDB_ARG_TUPLE, n->args.n + 1, &nargs) < 0)
        return -1;
    for (uint32_t i = 0, j = 0; i < nargs.n; i++)
        nargs.u.items[i] = i == idx ? a : n->args.u.items[j++];
    walk_set s;
    s.stamp = s.n = 0;
    foreach_node_in(&n->args, &s, NULL, NULL); /* mark the current inputs */
    foreach_node_in(&n->kwargs, &s, NULL, NULL);
    EXDB_WILL_WRITE(n->graph->arena, n->args);
    n->args = nargs;
    user_ctx uc = {n, 0};
    foreach_node_in(&a, &s, add_user_cb, &uc);
    return uc.failed ? -1 : 0;
}

/* Graph.node_copy: create_node(node.op, node.target, map_arg(args),
 * map_arg(kwargs), node.name, node.type), then meta = copy.copy(node.meta):
 * a new dict sharing the values, which for exdb's immutable meta is the
 * same pointer. The copy shares n's name too when it keeps it (n's strings
 * outlive g, as its meta does). */
exdb_node *exdb_graph_node_copy(exdb_graph *g, const exdb_node *n, exdb_node_map_fn fn, void *ctx) {
    exdb_arg args, kwargs;
    if (exdb_arg_copy(g->arena, &n->args, &args, fn, ctx) < 0 ||
        exdb_arg_copy(g->arena, &n->kwargs, &kwargs, fn, ctx) < 0)
        return NULL;
    exdb_node *c = create_node(g, (exdb_op)n->op, n->target, (exdb_target_kind)n->tkind, &args,
                               &kwargs, n->name, n->name);
    if (c) {
        c->meta = n->meta;
        c->src = n->src;
    }
    return c;
}

static const char *const op_names[] = {"placeholder", "get_attr",    "call_function",
                                       "call_method", "call_module", "output"};

const char *exdb_op_name(exdb_op op) {
    return (unsigned)op < 6 ? op_names[op] : "?";
}

int exdb_op_from_name(const char *s) {
    for (int i = 0; i < 6; i++)
        if (strcmp(s, op_names[i]) == 0)
            return i;
    return -1;
}
