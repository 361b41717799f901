/* dce.c - Graph.eliminate_dead_code and Node.is_impure by operator name,
 * plus undo. See dce.h for where name-based impurity differs from PyTorch. */
#include "core/fx/dce.h"
#include "core/fx/graph_check.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fx/lint.h"

/* ---- impurity */

static int in_set(const char *s, const char *const *set) {
    for (int i = 0; set[i]; i++)
        if (strcmp(s, set[i]) == 0)
            return 1;
    return 0;
}

/* node.py's _side_effectful_functions (newest), as exdb spells targets,
 * plus the profiler packets (a target without overload); the last four are
 * the functorch wrappers torch/_functorch/predispatch.py marks
 * @has_side_effect (the vmap ones and lazy_load_decompositions are pure:
 * dce drops them). */
static const char *const side_effectful[] = {
    "torch._assert",
    "torch._assert_async",
    "torch.ops.aten._assert_async.msg",
    "torch.ops.aten._assert_scalar.default",
    "torch.ops.aten._assert_tensor_metadata.default",
    "torch.ops.aten.sym_constrain_range.default",
    "torch.ops.aten.sym_constrain_range_for_size.default",
    "torch.ops.profiler._record_function_enter",
    "torch.ops.profiler._record_function_enter.default",
    "torch.ops.profiler._record_function_enter_new",
    "torch.ops.profiler._record_function_enter_new.default",
    "torch.ops.profiler._record_function_exit",
    "torch.ops.profiler._record_function_exit._RecordFunction",
    "torch.ops.inductor.accumulate_grad_.default",
    "torch.ops.inductor.resize_storage_bytes_.default",
    "operator.setitem",
    "_operator.setitem",
    "torch._C._set_grad_enabled",
    "torch.amp._enter_autocast",
    "torch.amp._exit_autocast",
    "torch.amp.autocast_mode._enter_autocast",
    "torch.amp.autocast_mode._exit_autocast",
    "torch._functorch.predispatch._enter_dual_level",
    "torch._functorch.predispatch._exit_dual_level",
    "torch._functorch.predispatch._jvp_increment_nesting",
    "torch._functorch.predispatch._jvp_decrement_nesting",
    NULL};

/* _RANDOM_FUNCTIONS of torch._library.utils (Python functions). */
static const char *const random_functions[] = {
    "torch.rand",      "torch.randn",      "torch.randint",      "torch.randperm",
    "torch.rand_like", "torch.randn_like", "torch.randint_like", "torch.normal",
    "torch.poisson",   "torch.bernoulli",  "torch.multinomial",  NULL};

/* Ops tagged nondeterministic_seeded, by op name (any overload). */
static const char *const random_ops[] = {"rand",
                                         "rand_like",
                                         "randn",
                                         "randn_like",
                                         "randint",
                                         "randint_like",
                                         "randperm",
                                         "bernoulli",
                                         "normal",
                                         "normal_functional",
                                         "poisson",
                                         "multinomial",
                                         "native_dropout",
                                         "_fused_dropout",
                                         "_standard_gamma",
                                         "_sample_dirichlet",
                                         "binomial",
                                         "rrelu",
                                         NULL};

/* Ops whose schema has a mutable (Tensor(a!)) argument although the name
 * does not say so. */
static const char *const mutable_ops[] = {"_native_batch_norm_legit.default",
                                          "_native_batch_norm_legit.no_stats",
                                          "_native_batch_norm_legit.out",
                                          "_batch_norm_with_update.default",
                                          "rrelu_with_noise.default",
                                          "_fused_moving_avg_obs_fq_helper.default",
                                          "record_stream.default",
                                          NULL};

/* The op and overload names of "torch.ops.<ns>.<op>[.<overload>]". */
static int split_op(const char *t, char *ns, char *op, char *ovl, size_t cap) {
    if (strncmp(t, "torch.ops.", 10) != 0)
        return -1;
    const char *p = t + 10;
    const char *d1 = strchr(p, '.');
    if (!d1 || (size_t)(d1 - p) >= cap)
        return -1;
    memcpy(ns, p, (size_t)(d1 - p));
    ns[d1 - p] = '\0';
    p = d1 + 1;
    const char *d2 = strchr(p, '.');
    size_t lo = d2 ? (size_t)(d2 - p) : strlen(p);
    if (lo >= cap)
        return -1;
    memcpy(op, p, lo);
    op[lo] = '\0';
    const char *o = d2 ? d2 + 1 : "";
    if (strlen(o) >= cap)
        return -1;
    strcpy(ovl, o);
    return 0;
}

static int ends_with(const char *s, const char *suf) {
    size_t ls = strlen(s), lf = strlen(suf);
    return ls >= lf && strcmp(s + ls - lf, suf) == 0;
}

/* The name-based stand-in for `op._schema.is_mutable`. */
static const char *mutable_reason(const char *op, const char *ovl) {
    static const char *const idunders[] = {"__iand__",    "__ior__",     "__ixor__",
                                           "__ilshift__", "__irshift__", NULL};
    size_t lo = strlen(op);
    if (lo > 1 && op[lo - 1] == '_' && !ends_with(op, "__"))
        return "mutates its inputs (in-place overload)";
    if (in_set(op, idunders))
        return "mutates its inputs (in-place overload)";
    if (strcmp(ovl, "out") == 0 || ends_with(ovl, "_out") || strncmp(ovl, "out_", 4) == 0 ||
        strcmp(ovl, "values") == 0 || strcmp(ovl, "dim_max") == 0 || strcmp(ovl, "dim_min") == 0 ||
        strcmp(ovl, "names_dim_max") == 0 || strcmp(ovl, "names_dim_min") == 0)
        return "mutates its inputs (out= overload)";
    char full[256];
    size_t lv = strlen(ovl);
    if (lo + lv + 2 <= sizeof full) {
        memcpy(full, op, lo);
        full[lo] = '.';
        memcpy(full + lo + 1, ovl, lv + 1);
        if (in_set(full, mutable_ops))
            return "mutates its inputs";
    }
    return NULL;
}

/* torch._library.utils.is_impure for an OpOverload / packet target. */
static const char *op_reason(const char *t, int impure_random) {
    char ns[128], op[128], ovl[128];
    if (in_set(t, side_effectful))
        return "side-effectful function";
    if (split_op(t, ns, op, ovl, sizeof ns) < 0)
        return NULL;
    /* a packet is impure when it is in the set or its default overload is
     * (torch 2.13: aten._assert_async.default and
     * profiler._record_function_exit.default are neither in the set nor
     * effectful, so dce drops them; their siblings in the set stay) */
    if (!ovl[0]) {
        char def[400];
        snprintf(def, sizeof def, "%s.default", t);
        if (in_set(def, side_effectful))
            return "side-effectful function";
    }
    /* _get_effect: aten._print is registered as an effectful op */
    if (strcmp(ns, "aten") == 0 && strcmp(op, "_print") == 0)
        return "side-effectful function";
    if (strcmp(ns, "_c10d_functional") == 0 || strcmp(ns, "c10d_functional") == 0)
        return "side-effectful function";
    const char *m = mutable_reason(op, ovl);
    if (m)
        return m;
    if (impure_random && (strcmp(ns, "aten") == 0 || strcmp(ns, "prims") == 0) &&
        in_set(op, random_ops))
        return "random op";
    return NULL;
}

const char *exdb_node_impure_reason(const exdb_node *n, int impure_random) {
    switch (n->op) {
    case EXDB_OP_PLACEHOLDER:
        return "placeholder";
    case EXDB_OP_OUTPUT:
        return "output";
    case EXDB_OP_CALL_FUNCTION:
        break;
    default: /* get_attr, call_method; call_module handled by the caller */
        return NULL;
    }
    const char *t = n->target;
    if (n->tkind == EXDB_T_HOP) {
        const char *hop = t + strlen("torch.ops.higher_order.");
        if (strcmp(hop, "with_effects") == 0)
            return "effectful higher-order op";
        if ((strcmp(hop, "auto_functionalized") == 0 ||
             strcmp(hop, "auto_functionalized_v2") == 0) &&
            n->args.n > 0 && n->args.u.items[0].kind == EXDB_ARG_OPERATOR &&
            in_set(n->args.u.items[0].u.s, side_effectful))
            return "side-effectful function";
        return NULL;
    }
    if (n->tkind == EXDB_T_OP)
        return op_reason(t, impure_random);
    if (strcmp(t, "operator.getitem") == 0) /* the commonest dead node: skip the lists */
        return NULL;
    if (in_set(t, side_effectful))
        return "side-effectful function";
    if (in_set(t, random_functions))
        return "random op";
    return NULL;
}

static const char *impure(const exdb_node *n, const exdb_dce_opts *o) {
    if (n->op == EXDB_OP_CALL_MODULE)
        return o->module_impure && o->module_impure(o->module_ctx, n->target) ? "impure submodule"
                                                                              : NULL;
    return exdb_node_impure_reason(n, o->impure_random);
}

/* ---- the pass */

void exdb_dce_log_init(exdb_dce_log *log) {
    memset(log, 0, sizeof *log);
}

static void log_clear(exdb_dce_log *log) {
    log->n = 0;
    log->nin = 0;
    log->applied = 0;
    log->graph = NULL;
}

void exdb_dce_log_free(exdb_dce_log *log) {
    log_clear(log);
    free(log->items);
    free(log->in);
    memset(log, 0, sizeof *log);
}

static exdb_dce_entry *log_push(exdb_dce_log *log, exdb_node *n) {
    if (log->n == log->cap) {
        uint32_t nc = log->cap ? log->cap * 2 : 32;
        exdb_dce_entry *ni = realloc(log->items, nc * sizeof *ni);
        if (!ni)
            return NULL;
        log->items = ni;
        log->cap = nc;
    }
    exdb_dce_entry *e = &log->items[log->n++];
    memset(e, 0, sizeof *e);
    e->node = n;
    return e;
}

typedef struct input_rec {
    exdb_dce_log *log;
    exdb_dce_entry *e;
    exdb_node *self;
    uint32_t *left; /* dry run: users left per node id */
    uint32_t nids;
    int oom;
} input_rec;

/* Records where n sits among in's users, so undo can put it back there. */
static void record_input(void *vctx, exdb_node *in) {
    input_rec *c = vctx;
    exdb_dce_log *log = c->log;
    if (log->nin == log->in_cap) {
        uint32_t nc = log->in_cap ? log->in_cap * 2 : 64;
        exdb_dce_input *ni = realloc(log->in, nc * sizeof *ni);
        if (!ni) {
            c->oom = 1;
            return;
        }
        log->in = ni;
        log->in_cap = nc;
    }
    /* erasing newest users first (a reverse pass), n is usually last */
    uint32_t pos = in->nusers;
    while (pos > 0 && in->users[pos - 1] != c->self)
        pos--;
    pos = pos ? pos - 1 : in->nusers;
    log->in[log->nin++] = (exdb_dce_input){in, pos};
    c->e->ninputs++;
}

/* Dry run: what erasing a node would do to its inputs' user counts. */
static void drop_use(void *vctx, exdb_node *in) {
    input_rec *c = vctx;
    if (in->id < c->nids && c->left[in->id])
        c->left[in->id]--;
}

/* FX lints first "to make sure it's topologically sorted": -1 with the
 * first lint error when g does not lint. */
static int lint_first(exdb_graph *g, exdb_error *err) {
    exdb_lint_report r;
    exdb_lint_report_init(&r);
    exdb_lint_graph(&r, g, NULL, NULL);
    int rc = 0;
    if (r.count[EXDB_SEV_ERROR]) {
        for (uint32_t i = 0; i < r.n; i++)
            if (r.items[i].sev == EXDB_SEV_ERROR) {
                exdb_errorf(err, "dce: the graph does not lint: %s", r.items[i].what);
                break;
            }
        rc = -1;
    }
    exdb_lint_report_free(&r);
    return rc;
}

/* A run that ran out of memory part way: the nodes removed so far go back,
 * so a failed dce changes nothing (undo allocates before it changes
 * anything; when even that fails, the log is kept for "undo" and err says
 * so). */
static void roll_back(exdb_dce_log *log, exdb_error *err) {
    exdb_error e2 = {0};
    if (exdb_dce_undo(log, &e2) < 0 && err) {
        size_t l = strlen(err->msg);
        snprintf(err->msg + l, sizeof err->msg - l,
                 " (%u removed nodes stay removed: undo puts them back)", log->n);
    }
}

int exdb_dce_run(exdb_graph *g, const exdb_dce_opts *opts, exdb_dce_log *log, exdb_error *err) {
    exdb_dce_opts defaults = {0, 1, NULL, NULL};
    const exdb_dce_opts *o = opts ? opts : &defaults;
    log_clear(log);
    if (lint_first(g, err) < 0)
        return -1;
    log->graph = g;
    uint32_t nids = g->next_id;
    uint32_t *left = NULL;
    if (o->dry_run) {
        left = malloc((nids ? nids : 1) * sizeof *left);
        if (!left)
            return exdb_errorf(err, "dce: out of memory");
        for (exdb_node *n = g->head; n; n = n->next)
            if (n->id < nids)
                left[n->id] = n->nusers;
    }
    int rc = 0;
    for (exdb_node *n = g->tail, *prev; n; n = prev) {
        /* Nodes sit in order in their graph's slabs: the one PREFETCH places
         * back is usually there (an address prefetch: nothing is read) and
         * arrives before the walk does, which on a big graph would
         * otherwise miss on every n->prev. */
        enum { PREFETCH = 8 };
        __builtin_prefetch((const void *)((uintptr_t)n - PREFETCH * sizeof *n));
        prev = n->prev;
        uint32_t users = o->dry_run ? (n->id < nids ? left[n->id] : n->nusers) : n->nusers;
        if (users || impure(n, o))
            continue;
        exdb_dce_entry *e = log_push(log, n);
        if (!e) {
            rc = exdb_errorf(err, "dce: out of memory");
            break;
        }
        e->first_input = log->nin;
        input_rec c = {log, e, n, left, nids, 0};
        if (o->dry_run) {
            exdb_node_foreach_input(n, drop_use, &c);
            continue;
        }
        e->prev = n->prev;
        e->args = n->args;
        e->kwargs = n->kwargs;
        exdb_node_foreach_input(n, record_input, &c);
        if (c.oom) {
            rc = exdb_errorf(err, "dce: out of memory");
            log->n--;
            log->nin = e->first_input;
            break;
        }
        if (exdb_graph_erase_node(g, n, err) < 0) {
            rc = -1;
            log->n--;
            log->nin = e->first_input;
            break;
        }
    }
    free(left);
    log->applied = !o->dry_run;
    log->graph_count = g->count;
    log->graph_next_id = g->next_id;
    if (rc < 0 && log->applied && log->n)
        roll_back(log, err);
    assert(exdb_graph_ok(g));
    return rc < 0 ? -1 : (int)log->n;
}

/* ---- undo */

/* Room for `more` users after in's last one: a bigger arena array when
 * there is not (the old one stays behind). */
static int users_room(exdb_node *in, uint32_t more) {
    if (in->users_cap - in->nusers >= more)
        return 0;
    uint32_t cap = (in->nusers + more) * 2;
    exdb_node **nu = exdb_arena_alloc(in->graph->arena, (size_t)cap * sizeof *nu);
    if (!nu)
        return -1;
    if (in->nusers)
        memcpy(nu, in->users, in->nusers * sizeof *nu);
    in->users = nu;
    in->users_cap = cap;
    return 0;
}

/* Inserts user at position pos of in's users (users_room made the room). */
static void insert_user(exdb_node *in, exdb_node *user, uint32_t pos) {
    uint32_t n = in->nusers;
    if (pos > n)
        pos = n;
    memmove(in->users + pos + 1, in->users + pos, (n - pos) * sizeof *in->users);
    in->users[pos] = user;
    in->nusers = n + 1;
}

/* What undo allocates, before it changes anything: room in every input's
 * users for the nodes coming back, and their names' slots. -1 when memory
 * ran out (the graph is as it was; the log too). */
static int undo_reserve(exdb_dce_log *log) {
    exdb_graph *g = log->graph;
    uint32_t *need = calloc((size_t)g->next_id + 1, sizeof *need);
    if (!need)
        return -1;
    int rc = 0;
    for (uint32_t k = 0; k < log->nin; k++)
        if (log->in[k].node->id < g->next_id)
            need[log->in[k].node->id]++;
    for (uint32_t k = 0; k < log->nin && rc == 0; k++) {
        exdb_node *in = log->in[k].node;
        uint32_t more = in->id < g->next_id ? need[in->id] : 1;
        if (more && users_room(in, more) < 0)
            rc = -1;
        if (in->id < g->next_id)
            need[in->id] = 0; /* once per input node */
    }
    free(need);
    for (uint32_t i = 0; i < log->n && rc == 0; i++)
        if (!exdb_strmap_put(&g->names, log->items[i].node->name, NULL))
            rc = -1;
    return rc;
}

int exdb_dce_undo(exdb_dce_log *log, exdb_error *err) {
    exdb_graph *g = log->graph;
    if (!log->applied || !g)
        return exdb_errorf(err, "Nothing to undo.");
    if (g->count != log->graph_count || g->next_id != log->graph_next_id)
        return exdb_errorf(err, "The graph changed since the last dce; cannot undo it.");
    if (undo_reserve(log) < 0)
        return exdb_errorf(err, "undo: out of memory");
    /* newest removal first: each node's recorded prev is live again by then;
     * nothing below allocates */
    for (uint32_t i = log->n; i-- > 0;) {
        exdb_dce_entry *e = &log->items[i];
        exdb_node *n = e->node;
        n->prev = e->prev;
        n->next = e->prev ? e->prev->next : g->head;
        if (n->prev)
            n->prev->next = n;
        else
            g->head = n;
        if (n->next)
            n->next->prev = n;
        else
            g->tail = n;
        g->count++;
        n->erased = 0;
        n->args = e->args;
        n->kwargs = e->kwargs;
        *exdb_strmap_find(&g->names, n->name) = n;
        for (uint32_t k = 0; k < e->ninputs; k++)
            insert_user(log->in[e->first_input + k].node, n, log->in[e->first_input + k].user_pos);
    }
    log_clear(log);
    assert(exdb_graph_ok(g));
    return 0;
}
