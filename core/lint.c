/* lint.c - Graph.lint(), the export verifier's signature checks and
 * unflatten pre-flight diagnoses. See lint.h for the families of checks.
 *
 * Messages quote upstream where upstream has one:
 *   torch/fx/graph.py Graph.lint (docs/unflatten-notes.md §2), with the trailing
 *     "\n{graph}" dump dropped (findings are one line; `print graph` shows it);
 *   torch/_export/verifier.py _verify_exported_program_signature, with the
 *     dict dumps dropped;
 *   torch/export/unflatten.py (_ModuleFrame.run_from, _fix_nn_module_stacks,
 *     finalize_outputs, _sink_params) for the pre-flight. */
#include "lint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

/* ---- the report */

void exdb_lint_report_init(exdb_lint_report *r) {
    memset(r, 0, sizeof *r);
    exdb_arena_init(&r->arena);
}

void exdb_lint_report_free(exdb_lint_report *r) {
    free(r->items);
    exdb_arena_destroy(&r->arena);
    memset(r, 0, sizeof *r);
}

const char *exdb_severity_name(exdb_severity s) {
    return s == EXDB_SEV_ERROR ? "error" : s == EXDB_SEV_WARNING ? "warning" : "note";
}

/* printf into the report's arena (NULL when memory runs out). */
__attribute__((format(printf, 2, 3))) static const char *rfmt(exdb_lint_report *r, const char *fmt,
                                                              ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? exdb_arena_alloc(&r->arena, (size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    if (!s)
        r->oom = 1;
    return s;
}

/* Records one finding; node/module strings are copied into the report so it
 * outlives the program it describes. */
static void add(exdb_lint_report *r, exdb_severity sev, const char *check, const char *node,
                const char *module, const char *what, const char *fix) {
    if (!what) {
        r->oom = 1;
        return;
    }
    if (r->n == r->cap) {
        uint32_t nc = r->cap ? r->cap * 2 : 16;
        exdb_finding *ni = realloc(r->items, nc * sizeof *ni);
        if (!ni) {
            r->oom = 1;
            return;
        }
        r->items = ni;
        r->cap = nc;
    }
    exdb_finding *f = &r->items[r->n++];
    f->sev = sev;
    f->check = check;
    f->node = node ? exdb_arena_strdup(&r->arena, node) : NULL;
    f->module = module ? exdb_arena_strdup(&r->arena, module) : NULL;
    f->graph = NULL;
    f->what = what;
    f->fix = fix ? fix : "";
    if ((node && !f->node) || (module && !f->module)) {
        r->n--; /* out of memory: the report says it is incomplete */
        r->oom = 1;
        return;
    }
    r->count[sev]++;
}

/* ---- 1. Graph.lint() */

typedef struct arg_check {
    exdb_lint_report *r;
    const exdb_graph *g;
    const exdb_node *user;
    const uint8_t *seen; /* by node id: visited earlier in this walk */
    uint32_t nseen;
    const char *module;
} arg_check;

/* Graph.lint's check_arg for one input of ac->user. */
static void check_arg(void *vctx, exdb_node *arg) {
    arg_check *ac = vctx;
    exdb_lint_report *r = ac->r;
    const char *u = ac->user->name;
    if (arg->graph != ac->g) {
        add(r, EXDB_SEV_ERROR, "fx.foreign-arg", u, ac->module,
            rfmt(r,
                 "Argument '%s' of Node '%s' does not belong to this Graph, but was used as an "
                 "argument! If you are copying nodes from another graph, make sure to use "
                 "``arg_transform`` on node_copy() to remap values",
                 arg->name, u),
            rfmt(r, "map '%s' to a node of this graph (node_copy's arg_transform)", arg->name));
    } else if (arg->id >= ac->nseen || !ac->seen[arg->id]) {
        add(r, EXDB_SEV_ERROR, "fx.use-before-def", u, ac->module,
            rfmt(r,
                 "Argument '%s' of Node '%s' was used before it has been defined! Please check "
                 "that Nodes in the graph are topologically ordered",
                 arg->name, u),
            arg == ac->user ? rfmt(r, "'%s' must not use itself as an argument", u)
                            : rfmt(r, "move '%s' above '%s'", arg->name, u));
    }
}

/* Whether every node of an argument tree belongs to g and was seen: then
 * check_arg finds nothing, and the walk that visits each input once (which
 * marks the input nodes) is only made for a node with some finding. */
static int inputs_defined(const exdb_arg *a, const exdb_graph *g, const uint8_t *seen,
                          uint32_t nseen) {
    if (a->kind == EXDB_ARG_NODE)
        return a->u.node->graph == g && a->u.node->id < nseen && seen[a->u.node->id];
    if (a->kind != EXDB_ARG_LIST && a->kind != EXDB_ARG_TUPLE && a->kind != EXDB_ARG_DICT)
        return 1;
    for (uint32_t i = 0; i < a->n; i++) {
        const exdb_arg *it = &a->u.items[i];
        if (it->kind == EXDB_ARG_NODE) {
            const exdb_node *in = it->u.node;
            if (in->graph != g || in->id >= nseen || !seen[in->id])
                return 0;
        } else if (it->kind == EXDB_ARG_LIST || it->kind == EXDB_ARG_TUPLE ||
                   it->kind == EXDB_ARG_DICT) {
            if (!inputs_defined(it, g, seen, nseen))
                return 0;
        }
    }
    return 1;
}

/* FX pass 2 for get_attr/call_module: every atom of the dotted target must
 * exist on the owning module, and for call_module be a module. */
static void check_target(exdb_lint_report *r, const exdb_node *n, const exdb_lint_owner *owner,
                         const char *module) {
    const char *t = n->target;
    size_t len = strlen(t);
    char *qual = malloc(len + 1);
    if (!qual) {
        r->oom = 1;
        return;
    }
    size_t start = 0;
    while (start <= len) {
        size_t end = start;
        while (end < len && t[end] != '.')
            end++;
        memcpy(qual, t, end);
        qual[end] = '\0';
        const char *atom = qual + start;
        /* seen_qualname: the atoms before this one ("" for the first) */
        int seen_len = start ? (int)start - 1 : 0;
        exdb_attr_kind k = owner->kind(owner->ctx, qual);
        if (k == EXDB_ATTR_MISSING) {
            add(r, EXDB_SEV_ERROR, "fx.target-missing", n->name, module,
                rfmt(r, "Node %s target %s references nonexistent attribute %s of %.*s", n->name, t,
                     atom, seen_len, t),
                rfmt(r, "add the attribute %s to the module, or retarget the node", qual));
            break;
        }
        if (n->op == EXDB_OP_CALL_MODULE && k != EXDB_ATTR_MODULE) {
            add(r, EXDB_SEV_ERROR, "fx.target-not-module", n->name, module,
                rfmt(r, "Node %s target %s %s of %.*s does not reference an nn.Module", n->name, t,
                     atom, seen_len, t),
                rfmt(r, "make %s a submodule, or use get_attr/call_function", qual));
            break;
        }
        start = end + 1;
    }
    free(qual);
}

/* The duplicate-name check's set of names seen so far, made only once some
 * node is not its name's entry in the graph's side table: until then the
 * names seen are distinct (the table maps each name to one node), which
 * spares hashing every name a second time on well-formed graphs. */
typedef struct name_set {
    exdb_arena arena;
    exdb_strmap names;
    int active;
} name_set;

static int name_set_start(name_set *ns, const exdb_graph *g, const exdb_node *upto) {
    exdb_arena_init(&ns->arena);
    exdb_strmap_init(&ns->names, &ns->arena);
    ns->active = 1;
    for (const exdb_node *m = g->head; m && m != upto; m = m->next)
        if (!exdb_strmap_put(&ns->names, m->name, NULL))
            return -1;
    return 0;
}

/* Whether n is its name's entry in g's name table (FX's side-table check).
 * The name's hash is cached in the node, and the table's key is the node's
 * own name pointer, so the first probe usually settles it without reading
 * the name. */
static int in_names(const exdb_graph *g, const exdb_node *n) {
    uint32_t h = exdb_node_name_hash(n);
    if (g->names.cap) {
        const exdb_strmap_slot *s = &g->names.slots[h & (g->names.cap - 1)];
        if (s->key == n->name && s->val == n)
            return 1;
    }
    void **e = exdb_strmap_find_hashed(&g->names, n->name, h);
    return e && *e == n;
}

/* The name table seen from the node side, for graphs whose nodes sit in
 * the slab exdb_graph_reserve made: keys[i] is the name under which the
 * table holds node reserved[i] (NULL: none). Built in one pass over the
 * table's slots in memory order, it turns lint's per-node probe of the
 * table (a cache miss per node once the table outgrows the cache: 22 of
 * the 37 ns per node at 141k nodes) into a read of keys[i] in node order.
 * A node whose entry does not match is probed as before, so the result is
 * in_names' exactly: a slot holding key k and node n means the table maps
 * k's text to n (texts are unique in the table). */
typedef struct name_index {
    const exdb_node *base;
    uint32_t n;
    const char **keys;
} name_index;

/* Below this many reserved nodes the table fits the cache: probe it. */
#define NAME_INDEX_MIN 16384

static void name_index_build(name_index *ix, const exdb_graph *g) {
    memset(ix, 0, sizeof *ix);
    if (!g->reserved || g->nreserved < NAME_INDEX_MIN)
        return;
    ix->keys = calloc(g->nreserved, sizeof *ix->keys);
    if (!ix->keys)
        return; /* probing alone is correct, only slower */
    ix->base = g->reserved;
    ix->n = g->nreserved;
    uintptr_t lo = (uintptr_t)ix->base, span = (uintptr_t)ix->n * sizeof(exdb_node);
    for (uint32_t i = 0; i < g->names.cap; i++) {
        const exdb_strmap_slot *s = &g->names.slots[i];
        uintptr_t off = (uintptr_t)s->val - lo;
        if (s->val && off < span && off % sizeof(exdb_node) == 0)
            ix->keys[off / sizeof(exdb_node)] = s->key;
    }
}

static int in_names_ix(const name_index *ix, const exdb_graph *g, const exdb_node *n) {
    uintptr_t off = (uintptr_t)n - (uintptr_t)ix->base;
    if (ix->keys && off < (uintptr_t)ix->n * sizeof(exdb_node) &&
        ix->keys[off / sizeof(exdb_node)] == n->name)
        return 1;
    return in_names(g, n);
}

static void prefetch_node(const exdb_graph *g, const exdb_node *n, const name_index *ix) {
    if (!ix->keys)
        exdb_strmap_prefetch(&g->names, exdb_node_name_hash(n));
    const exdb_arg *it = n->args.u.items;
    if (n->args.n) {
        __builtin_prefetch(it);
        if (n->args.n > 2) /* 24-byte items: the next line too */
            __builtin_prefetch((const char *)it + 64);
    }
    if (n->kwargs.n)
        __builtin_prefetch(n->kwargs.u.items);
}

static void prefetch_inputs(const exdb_node *n) {
    for (uint32_t i = 0; i < n->args.n; i++) {
        const exdb_arg *it = &n->args.u.items[i];
        if (it->kind == EXDB_ARG_NODE)
            __builtin_prefetch(it->u.node);
        else if ((it->kind == EXDB_ARG_LIST || it->kind == EXDB_ARG_TUPLE) && it->n)
            __builtin_prefetch(it->u.items);
    }
}

/* Graph.lint's first pass on a well-formed graph: whether every node has a
 * known opcode, belongs to g, is in the side table and uses only nodes of g
 * defined above it (names are then distinct: the table maps each to one
 * node). When so there is nothing to report, and the loop that does report
 * need not run. This loop touches per node only the node, its table slot,
 * its args and its inputs; on a graph bigger than the cache those lie
 * scattered in the arena, so the slot and args of the node FAR places ahead
 * are prefetched, and the inputs and inner lists of the node NEAR places
 * ahead, whose args array has arrived by then. */
static int lint_clean(const exdb_graph *g, uint8_t *seen, uint32_t nseen, const name_index *ix) {
    enum { NEAR = 16, FAR = 32, CACHED = 16384 };
    if (g->count < CACHED) { /* the graph fits the caches: prefetching only costs */
        for (const exdb_node *n = g->head; n; n = n->next) {
            if (n->op > EXDB_OP_OUTPUT || n->graph != g || n->id >= nseen ||
                !in_names_ix(ix, g, n) || !inputs_defined(&n->args, g, seen, nseen) ||
                !inputs_defined(&n->kwargs, g, seen, nseen))
                return 0;
            seen[n->id] = 1;
        }
        return 1;
    }
    const exdb_node *near = g->head, *far = g->head;
    for (uint32_t k = 0; far && k < FAR; k++, far = far->next) {
        prefetch_node(g, far, ix);
        if (k >= FAR - NEAR) {
            prefetch_inputs(near);
            near = near->next;
        }
    }
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (far) {
            prefetch_node(g, far, ix);
            far = far->next;
        }
        if (near) {
            prefetch_inputs(near);
            near = near->next;
        }
        if (n->op > EXDB_OP_OUTPUT || n->graph != g || n->id >= nseen || !in_names_ix(ix, g, n) ||
            !inputs_defined(&n->args, g, seen, nseen) ||
            !inputs_defined(&n->kwargs, g, seen, nseen))
            return 0;
        seen[n->id] = 1;
    }
    return 1;
}

uint32_t exdb_lint_graph(exdb_lint_report *r, const exdb_graph *g, const exdb_lint_owner *owner,
                         const char *module_fqn) {
    uint32_t errors0 = r->count[EXDB_SEV_ERROR];
    uint32_t nseen = g->next_id;
    uint8_t *seen = calloc(nseen ? nseen : 1, 1);
    name_set ns = {0};
    if (!seen) {
        r->oom = 1;
        return 0;
    }
    name_index ix;
    name_index_build(&ix, g);
    int clean = lint_clean(g, seen, nseen, &ix);
    free(ix.keys);
    if (!clean)
        memset(seen, 0, nseen);
    for (const exdb_node *n = clean ? NULL : g->head; n; n = n->next) {
        if (n->op > EXDB_OP_OUTPUT)
            add(r, EXDB_SEV_ERROR, "fx.unknown-opcode", n->name, module_fqn,
                rfmt(r, "Node %s had unknown opcode %d!", n->name, n->op),
                rfmt(r,
                     "recreate %s with one of placeholder, get_attr, call_function, "
                     "call_method, call_module, output",
                     n->name));
        int in_table = in_names(g, n);
        if (n->graph != g)
            add(r, EXDB_SEV_ERROR, "fx.foreign-node", n->name, module_fqn,
                rfmt(r, "Node '%s' does not belong to this Graph!", n->name),
                rfmt(r, "copy %s into this graph with node_copy instead of linking it", n->name));
        else if (!in_table)
            add(r, EXDB_SEV_ERROR, "fx.side-table", n->name, module_fqn,
                rfmt(r, "Node '%s' is not added to the side table", n->name),
                rfmt(r, "create nodes through the graph so their names are registered"));
        arg_check ac = {r, g, n, seen, nseen, module_fqn};
        exdb_node_foreach_input((exdb_node *)n, check_arg, &ac);
        if (n->graph == g && n->id < nseen)
            seen[n->id] = 1;
        if (!ns.active && !in_table && name_set_start(&ns, g, n) < 0)
            r->oom = 1;
        if (ns.active) {
            int created = 0;
            void **slot = exdb_strmap_put(&ns.names, n->name, &created);
            if (!slot)
                r->oom = 1;
            else if (!created)
                add(r, EXDB_SEV_ERROR, "fx.duplicate-name", n->name, module_fqn,
                    rfmt(r, "Node redefined name %s!", n->name),
                    rfmt(r, "rename one of the nodes called %s", n->name));
        }
    }
    /* pass 2: only with an owning module, as in FX */
    if (owner && owner->kind)
        for (const exdb_node *n = g->head; n; n = n->next)
            if (n->op == EXDB_OP_GET_ATTR || n->op == EXDB_OP_CALL_MODULE)
                check_target(r, n, owner, module_fqn);
    free(seen);
    if (ns.active)
        exdb_arena_destroy(&ns.arena);
    return r->count[EXDB_SEV_ERROR] - errors0;
}

uint32_t exdb_lint_graph_in(exdb_lint_report *r, const exdb_graph *g, const exdb_lint_owner *owner,
                            const char *module_fqn, const char *subgraph) {
    uint32_t first = r->n;
    uint32_t errors = exdb_lint_graph(r, g, owner, module_fqn);
    if (subgraph && r->n > first) {
        const char *label = exdb_arena_strdup(&r->arena, subgraph);
        if (!label)
            r->oom = 1;
        for (uint32_t i = first; i < r->n; i++)
            r->items[i].graph = label;
    }
    return errors;
}

const char *exdb_lint_subgraph_path(exdb_lint_report *r, const exdb_program *p, uint32_t i) {
    /* walk up through the subgraphs holding each owner node (bounded by
     * nsubgraphs, so a malformed cycle cannot loop) */
    const char *path = p->subgraphs[i].name;
    const exdb_graph *in = p->subgraphs[i].owner ? p->subgraphs[i].owner->graph : p->graph;
    for (uint32_t hops = 0; in != p->graph && hops < p->nsubgraphs; hops++) {
        uint32_t k = 0;
        while (k < p->nsubgraphs && p->subgraphs[k].graph != in)
            k++;
        if (k == p->nsubgraphs)
            break;
        path = rfmt(r, "%s.%s", p->subgraphs[k].name, path);
        if (!path)
            return NULL;
        in = p->subgraphs[k].owner ? p->subgraphs[k].owner->graph : p->graph;
    }
    return path;
}

uint32_t exdb_lint_unflatten_failed(exdb_lint_report *r, const char *msg) {
    add(r, EXDB_SEV_ERROR, "unflatten.failed", NULL, NULL, rfmt(r, "unflatten fails: %s", msg),
        "see the unflatten.* findings above; \"run\" stops at the failing event");
    return 1;
}

/* ---- 2. signature */

static int in_list(const char *s, const char *const *list, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

/* The output node's values: args[0] is a tuple/list, or a single value when
 * the graph returns a single tensor. */
static void output_values(const exdb_graph *g, const exdb_arg **vals, uint32_t *n) {
    const exdb_node *out = exdb_graph_output(g);
    *vals = NULL;
    *n = 0;
    if (!out || out->args.n < 1)
        return;
    const exdb_arg *a = &out->args.u.items[0];
    if (a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_LIST) {
        *vals = a->u.items;
        *n = a->n;
    } else {
        *vals = a;
        *n = 1;
    }
}

static int is_user_input(const exdb_input_spec *s) {
    return s->kind == EXDB_IN_USER_INPUT || s->kind == EXDB_IN_CONSTANT_INPUT;
}

static int is_user_output(const exdb_output_spec *s) {
    return s->kind == EXDB_OUT_USER_OUTPUT || s->kind == EXDB_OUT_LOSS_OUTPUT;
}

static int is_mutation(const exdb_output_spec *s) {
    return s->kind == EXDB_OUT_BUFFER_MUTATION || s->kind == EXDB_OUT_USER_INPUT_MUTATION ||
           s->kind == EXDB_OUT_PARAMETER_MUTATION;
}

/* The input specs by what an output spec's mutation target names: buffer
 * and parameter targets, and user input names. Built once per lint, so
 * checking every mutation output is linear (a scan of the inputs per output
 * took 54 M compares on the 100k-node synthetic program). */
typedef struct input_index {
    exdb_arena arena;
    exdb_strmap by_kind[3]; /* buffer, parameter, user input */
} input_index;

/* by_kind's map for input kind k (user and constant inputs share one). */
static int index_slot(exdb_input_kind k) {
    return k == EXDB_IN_BUFFER ? 0 : k == EXDB_IN_PARAMETER ? 1 : 2;
}

static void input_index_build(input_index *ix, const exdb_program *p, exdb_lint_report *r) {
    exdb_arena_init(&ix->arena);
    for (int i = 0; i < 3; i++)
        exdb_strmap_init(&ix->by_kind[i], &ix->arena);
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *in = &p->inputs[i];
        const char *key = is_user_input(in) ? in->name : in->target;
        if (!key ||
            !(is_user_input(in) || in->kind == EXDB_IN_BUFFER || in->kind == EXDB_IN_PARAMETER))
            continue;
        void **v = exdb_strmap_put(&ix->by_kind[index_slot(in->kind)], key, NULL);
        if (!v) {
            r->oom = 1; /* the findings below may then be wrong: the report says so */
            continue;
        }
        *v = (void *)in;
    }
}

/* Whether some input spec of kind k has target (or, for user inputs, name) s. */
static int has_input(const input_index *ix, exdb_input_kind k, const char *s) {
    return s && exdb_strmap_get(&ix->by_kind[index_slot(k)], s) != NULL;
}

static void lint_inputs(exdb_lint_report *r, const exdb_program *p, const exdb_lint_state *st) {
    uint32_t nph = 0;
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        nph += n->op == EXDB_OP_PLACEHOLDER;
    if (nph != p->ninputs)
        add(r, EXDB_SEV_ERROR, "sig.input-count", NULL, NULL,
            rfmt(r,
                 "Number of graph inputs (%u) does not match number of inputs in the graph "
                 "signature (%u)",
                 nph, p->ninputs),
            rfmt(r, "give every placeholder exactly one input spec, in placeholder order"));
    uint32_t i = 0;
    for (const exdb_node *n = p->graph->head; n && i < p->ninputs; n = n->next) {
        if (n->op != EXDB_OP_PLACEHOLDER)
            continue;
        const exdb_input_spec *s = &p->inputs[i++];
        if (s->name && strcmp(s->name, n->name) != 0)
            add(r, EXDB_SEV_ERROR, "sig.input-name", n->name, NULL,
                rfmt(r, "Input spec name %s does not match node name %s", s->name, n->name),
                rfmt(r,
                     "input spec %u must describe placeholder %s (rename one, or reorder the "
                     "specs)",
                     i - 1, n->name));
        const char *kind = exdb_input_kind_name(s->kind);
        if (s->kind != EXDB_IN_USER_INPUT && s->kind != EXDB_IN_TOKEN &&
            s->kind != EXDB_IN_CONSTANT_INPUT && !s->target) {
            add(r, EXDB_SEV_ERROR, "sig.no-target", n->name, NULL,
                rfmt(r, "InputSpec for %s has no target.", s->name ? s->name : n->name),
                rfmt(r, "give the %s input spec its state name", kind));
            continue;
        }
        const char *t = s->target;
        if (s->kind == EXDB_IN_PARAMETER && st && st->have_state_dict &&
            !in_list(t, st->state_dict, st->nstate_dict))
            add(r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                rfmt(r, "Parameter %s is not in the state dict.", t),
                rfmt(r, "save the weights with the program, or fix parameter_name"));
        if (s->kind == EXDB_IN_BUFFER && st && st->have_state_dict) {
            int in = in_list(t, st->state_dict, st->nstate_dict);
            if (s->persistent != 0 && !in)
                add(r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                    rfmt(r, "Buffer %s is not in the state dict.", t),
                    rfmt(r, "save the buffer with the weights, or mark it persistent: false"));
            if (s->persistent == 0 && in)
                add(r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                    rfmt(r, "Non-persistent buffer %s is in the state dict, it should not be.", t),
                    rfmt(r, "mark the buffer persistent: true, or move it to the constants"));
        }
        if ((s->kind == EXDB_IN_TENSOR_CONSTANT || s->kind == EXDB_IN_CUSTOM_OBJ) && st &&
            st->have_constants && !in_list(t, st->constants, st->nconstants))
            add(r, EXDB_SEV_ERROR, "sig.state", n->name, NULL,
                s->kind == EXDB_IN_TENSOR_CONSTANT
                    ? rfmt(r, "Constant tensor %s is not in the constants dictionary.", t)
                    : rfmt(r, "Custom object %s is not in the constants dictionary.", t),
                rfmt(r, "save the constant with the program, or fix the spec's target"));
    }
}

static void lint_outputs(exdb_lint_report *r, const exdb_program *p) {
    const exdb_arg *vals;
    uint32_t nv;
    output_values(p->graph, &vals, &nv);
    uint32_t nbuf = 0, nuser = 0, ntok = 0, nmut = 0;
    for (uint32_t i = 0; i < p->noutputs; i++) {
        nbuf += p->outputs[i].kind == EXDB_OUT_BUFFER_MUTATION;
        nuser += is_user_output(&p->outputs[i]);
        ntok += p->outputs[i].kind == EXDB_OUT_TOKEN;
        nmut += is_mutation(&p->outputs[i]);
    }
    if (nv != p->noutputs)
        add(r, EXDB_SEV_ERROR, "sig.output-count", "output", NULL,
            rfmt(r,
                 "Number of output nodes %u is different Than the number of outputs specified by "
                 "the graph signature: Number of mutated buffers: %u. Number of user outputs: %u.",
                 nv, nbuf, nuser),
            rfmt(r, "give every output value exactly one output spec, in order"));
    input_index ix;
    input_index_build(&ix, p, r);
    for (uint32_t i = 0; i < nv && i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        const char *vn = vals[i].kind == EXDB_ARG_NODE ? vals[i].u.node->name : NULL;
        if (s->name && (!vn || strcmp(vn, s->name) != 0))
            add(r, EXDB_SEV_ERROR, "sig.output-name", "output", NULL,
                rfmt(r, "Output spec name %s does not match output node argument %s", s->name,
                     vn ? vn : "(a constant)"),
                rfmt(r, "output spec %u must describe output value %u", i, i));
        const char *t = s->target ? s->target : "(none)";
        if (s->kind == EXDB_OUT_BUFFER_MUTATION && !has_input(&ix, EXDB_IN_BUFFER, s->target))
            add(r, EXDB_SEV_ERROR, "sig.mutation-target", s->name, NULL,
                rfmt(r, "Buffer output %s does not point to a buffer that exists. (buffer %s)",
                     s->name, t),
                rfmt(r, "buffer_name must be the buffer_name of a buffer input spec"));
        if ((s->kind == EXDB_OUT_PARAMETER_MUTATION || s->kind == EXDB_OUT_GRADIENT_TO_PARAMETER) &&
            !has_input(&ix, EXDB_IN_PARAMETER, s->target))
            add(r, EXDB_SEV_ERROR, "sig.mutation-target", s->name, NULL,
                rfmt(r,
                     "Parameter output %s does not point to a parameter that exists. "
                     "(parameter %s)",
                     s->name, t),
                rfmt(r, "parameter_name must be the parameter_name of a parameter input spec"));
        if ((s->kind == EXDB_OUT_USER_INPUT_MUTATION ||
             s->kind == EXDB_OUT_GRADIENT_TO_USER_INPUT) &&
            !has_input(&ix, EXDB_IN_USER_INPUT, s->target))
            add(r, EXDB_SEV_ERROR, "sig.mutation-target", s->name, NULL,
                rfmt(r,
                     "User input output %s does not point to a user input that exists. "
                     "(user input %s)",
                     s->name, t),
                rfmt(r, "user_input_name must name a user input placeholder"));
    }
    exdb_arena_destroy(&ix.arena);
    /* The verifier slices outputs as [tokens | mutations | user outputs]. */
    for (uint32_t i = 0; i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        const char *nm = s->name ? s->name : "(a constant)";
        if (i >= ntok && i < ntok + nmut && !is_mutation(s))
            add(r, EXDB_SEV_ERROR, "sig.output-order", nm, NULL,
                rfmt(r, "Mutation node %s is neither a buffer nor a user input.", nm),
                rfmt(r, "order output specs as tokens, then mutations, then user outputs"));
        else if (i >= ntok + nmut && i < ntok + nmut + nuser && !is_user_output(s))
            add(r, EXDB_SEV_ERROR, "sig.output-order", nm, NULL,
                rfmt(r,
                     "User output %s is not in the correct order or is not found in the exported "
                     "program's user_output list",
                     nm),
                rfmt(r, "order output specs as tokens, then mutations, then user outputs"));
    }
}

/* The root entry of module_call_graph against the user inputs/outputs. */
static void lint_root_call(exdb_lint_report *r, const exdb_program *p) {
    const exdb_call_signature *sig = NULL;
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].fqn[0] == '\0' && p->calls[i].sig) {
            sig = p->calls[i].sig;
            break;
        }
    if (!sig)
        return;
    uint32_t nin = 0, nout = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        nin += is_user_input(&p->inputs[i]);
    for (uint32_t i = 0; i < p->noutputs; i++)
        nout += is_user_output(&p->outputs[i]);
    if (sig->in_spec && sig->in_spec->num_leaves != nin)
        add(r, EXDB_SEV_ERROR, "sig.root-inputs", NULL, "",
            rfmt(r,
                 "the root call signature's in_spec has %u leaves but the graph signature has "
                 "%u user inputs",
                 sig->in_spec->num_leaves, nin),
            rfmt(r, "ep.module() and unflatten flatten call arguments with this in_spec: make "
                    "its leaves the user inputs"));
    if (sig->out_spec && sig->out_spec->num_leaves != nout)
        add(r, EXDB_SEV_ERROR, "sig.root-outputs", NULL, "",
            rfmt(r,
                 "the root call signature's out_spec has %u leaves but the graph signature "
                 "has %u user outputs",
                 sig->out_spec->num_leaves, nout),
            rfmt(r, "ep.module() rebuilds results with this out_spec: make its leaves the user "
                    "outputs"));
    const exdb_treespec *in = sig->in_spec;
    if (sig->forward_arg_names && in && in->nchildren == 2) {
        uint32_t nargs = in->children[0]->nchildren + in->children[1]->nchildren;
        if (sig->nforward_arg_names != nargs)
            add(r, EXDB_SEV_WARNING, "sig.forward-arg-names", NULL, "",
                rfmt(r,
                     "forward_arg_names has %u names but the in_spec has %u positional and %u "
                     "keyword arguments",
                     sig->nforward_arg_names, in->children[0]->nchildren,
                     in->children[1]->nchildren),
                rfmt(r, "one name per positional argument then per keyword argument"));
    }
}

uint32_t exdb_lint_signature(exdb_lint_report *r, const exdb_program *p,
                             const exdb_lint_state *state) {
    uint32_t errors0 = r->count[EXDB_SEV_ERROR];
    lint_inputs(r, p, state);
    lint_outputs(r, p);
    lint_root_call(r, p);
    return r->count[EXDB_SEV_ERROR] - errors0;
}

/* ---- 3. unflatten pre-flight
 *
 * Replays _ModuleFrame.run_from over the flat graph: each node's stack is
 * first cut as _fix_nn_module_stacks cuts it, then compared with the stack of
 * open frames: frames that differ are closed, new entries open frames. A
 * frame is identified by its call name (path, or path@N for key ...@N). */

#define EMPTY_STACK_KEY "_empty_nn_module_stack_from_metadata_hook"

/* What the walk learns about one call name. */
typedef struct call_info {
    const exdb_node *first; /* the node that opened the first frame */
    uint32_t first_pos, last_pos;
    int reported_reentry;
} call_info;

typedef struct frame {
    const char *path, *type; /* type NULL for the root, as unflatten compares */
    int call_idx;
    const char *call_name;
    call_info *ci; /* NULL for the root */
} frame;

typedef struct uwalk {
    exdb_lint_report *r;
    const exdb_program *p;
    exdb_arena a;
    exdb_strmap calls;    /* call name -> call_info */
    exdb_strmap reported; /* call name -> 1 + index of the last state reported there */
    frame *open;          /* open frames, root first */
    uint32_t depth, cap;
    const char **node_module; /* by node id: the call name of its frame */
    uint32_t *pos;            /* by node id: position in the walk */
    uint32_t nids;
    const exdb_lint_state *state; /* NULL: no archive configs */
} uwalk;

/* fqn.split("@")[0] */
static size_t path_base_len(const char *path) {
    const char *at = strchr(path, '@');
    return at ? (size_t)(at - path) : strlen(path);
}

/* _is_prefix(candidate, target) of unflatten.py, on the bases' lengths:
 * a strict string prefix. */
static int strict_prefix_n(const char *a, size_t la, const char *b, size_t lb) {
    return la < lb && memcmp(a, b, la) == 0;
}

/* How many leading entries _fix_nn_module_stacks keeps. Compares the
 * paths' bases in place: this runs for every node, and copying the bases
 * into the arena made lint's memory grow with nodes x stack depth. */
static uint32_t stack_keep(const exdb_meta *m) {
    if (m->nstack == 0)
        return 0;
    const char *prev = m->stack[0].path;
    size_t lprev = path_base_len(prev);
    uint32_t keep = 1;
    for (uint32_t i = 1; i < m->nstack; i++) {
        const char *cur = m->stack[i].path;
        size_t lcur = path_base_len(cur);
        if (!strict_prefix_n(prev, lprev, cur, lcur))
            break;
        keep++;
        prev = cur;
        lprev = lcur;
    }
    return keep;
}

static const char *call_name_of(exdb_arena *a, const char *path, int idx) {
    return idx ? exdb_arena_printf(a, "%s@%d", path, idx) : path;
}

static int frame_eq(const frame *f, const exdb_stack_entry *e) {
    const char *ty = e->path[0] ? e->type : NULL;
    if (strcmp(f->path, e->path) != 0 || f->call_idx != e->call_idx)
        return 0;
    if (!f->type || !ty)
        return f->type == ty;
    return strcmp(f->type, ty) == 0;
}

static const char *mod_label(const char *call_name) {
    return call_name[0] ? call_name : "<root>";
}

/* Opens a frame for entry e at node n (position pos). */
static int open_frame(uwalk *w, const exdb_stack_entry *e, const exdb_node *n, uint32_t pos) {
    if (w->depth == w->cap) {
        uint32_t nc = w->cap * 2;
        frame *nf = exdb_arena_alloc(&w->a, nc * sizeof *nf);
        if (!nf)
            return -1;
        memcpy(nf, w->open, w->depth * sizeof *nf);
        w->open = nf;
        w->cap = nc;
    }
    frame *f = &w->open[w->depth++];
    f->ci = NULL; /* until the call is known (touch_frames skips NULL) */
    f->path = e->path;
    f->type = e->path[0] ? e->type : NULL;
    f->call_idx = e->call_idx;
    f->call_name = call_name_of(&w->a, e->path, e->call_idx);
    if (!f->call_name)
        return -1;
    int created;
    void **slot = exdb_strmap_put(&w->calls, f->call_name, &created);
    if (!slot)
        return -1;
    exdb_lint_report *r = w->r;
    if (created) {
        call_info *ci = exdb_arena_calloc(&w->a, 1, sizeof *ci);
        if (!ci)
            return -1;
        ci->first = n;
        ci->first_pos = ci->last_pos = pos;
        *slot = ci;
        f->ci = ci;
        if (e->call_idx > 0)
            add(r, EXDB_SEV_NOTE, "unflatten.repeated-call", n->name, f->call_name,
                rfmt(r,
                     "call %d of module %s starts here: unflatten outlines it as submodule %s "
                     "(and drops it for %s if both graphs are identical)",
                     e->call_idx + 1, e->path, f->call_name, e->path),
                rfmt(r, "nothing to do: this is how unflatten names repeated calls"));
        return 0;
    }
    call_info *ci = *slot;
    f->ci = ci;
    if (!ci->reported_reentry) {
        ci->reported_reentry = 1;
        add(r, EXDB_SEV_ERROR, "unflatten.reentry", n->name, f->call_name,
            rfmt(r,
                 "module %s is entered again at node %s after it was left (its call began at "
                 "node %s) under the same nn_module_stack key, so unflatten makes a second call "
                 "named %s: it replaces the first call's submodule and both call_module nodes "
                 "run the second graph",
                 mod_label(f->call_name), n->name, ci->first->name, mod_label(f->call_name)),
            rfmt(r,
                 "keep the nodes of one call contiguous (move %s next to the other nodes of %s), "
                 "or give this call its own key %s@%d",
                 n->name, mod_label(f->call_name), e->path, e->call_idx + 1));
    }
    return 0;
}

/* Marks pos as inside every open frame's call. */
static void touch_frames(uwalk *w, uint32_t pos) {
    for (uint32_t i = 0; i < w->depth; i++) {
        call_info *ci = w->open[i].ci;
        if (ci && pos > ci->last_pos)
            ci->last_pos = pos;
    }
}

/* _fix_nn_module_stacks' warning for node, listing the stack's fqns. */
static const char *dropped_list(exdb_lint_report *r, const exdb_meta *m, uint32_t keep,
                                const char *node) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_putc(&b, '[');
    for (uint32_t i = 0; i < m->nstack; i++)
        exdb_buf_printf(&b, "%s'%s'", i ? ", " : "", m->stack[i].path);
    exdb_buf_putc(&b, ']');
    if (b.oom) {
        exdb_buf_free(&b);
        r->oom = 1;
        return NULL;
    }
    const char *s = rfmt(r,
                         "nn_module_stack fqns %s at node %s do not form a stack! dropping "
                         "last %u entries",
                         exdb_buf_str(&b), node, m->nstack - keep);
    exdb_buf_free(&b);
    return s;
}

static void walk_stacks(uwalk *w) {
    exdb_lint_report *r = w->r;
    uint32_t pos = 0;
    for (const exdb_node *n = w->p->graph->head; n; n = n->next, pos++) {
        if (n->id < w->nids)
            w->pos[n->id] = pos;
        if (n->op == EXDB_OP_PLACEHOLDER) {
            if (n->id < w->nids)
                w->node_module[n->id] = "";
            continue;
        }
        if (n->op == EXDB_OP_OUTPUT)
            break;
        const exdb_meta *m = n->meta;
        if (!m || !m->has_stack || m->nstack == 0) {
            add(r, EXDB_SEV_ERROR, "unflatten.no-stack", n->name, NULL,
                rfmt(r,
                     "node has no nn_module_stack: unflatten raises \"Unable to find "
                     "nn_module_stack for node %s\"",
                     n->name),
                rfmt(r,
                     "give %s the nn_module_stack of the module that computes it (e.g. the "
                     "stack of %s)",
                     n->name, n->prev ? n->prev->name : "its neighbour"));
        } else if (!(m->nstack == 1 && strcmp(m->stack[0].key, EMPTY_STACK_KEY) == 0)) {
            uint32_t keep = stack_keep(m);
            if (keep < m->nstack) {
                const char *what = dropped_list(r, m, keep, n->name);
                add(r, EXDB_SEV_WARNING, "unflatten.not-a-stack", n->name,
                    call_name_of(&w->a, m->stack[keep - 1].path, m->stack[keep - 1].call_idx), what,
                    rfmt(r,
                         "unflatten inlines %s into %s instead of calling %s; if that is not "
                         "wanted, make each stack entry's path extend the previous one",
                         n->name, mod_label(m->stack[keep - 1].path), m->stack[keep].path));
            }
            if (m->stack[0].path[0] != '\0' || m->stack[0].call_idx != 0) {
                add(r, EXDB_SEV_ERROR, "unflatten.no-root", n->name, NULL,
                    rfmt(r,
                         "nn_module_stack starts with module '%s', not the root (path \"\"): "
                         "unflatten stops outlining the root at this node",
                         m->stack[0].path),
                    rfmt(r,
                         "put the root entry (L__self__ with an empty path) first in %s's "
                         "nn_module_stack",
                         n->name));
            } else {
                /* close frames that differ, then open the rest */
                uint32_t common = 1;
                while (common < w->depth && common < keep &&
                       frame_eq(&w->open[common], &m->stack[common]))
                    common++;
                w->depth = common;
                for (uint32_t i = common; i < keep; i++)
                    if (open_frame(w, &m->stack[i], n, pos) < 0)
                        r->oom = 1;
            }
        }
        touch_frames(w, pos);
        if (n->id < w->nids)
            w->node_module[n->id] = w->open[w->depth - 1].call_name;
    }
}

/* Preserved (non-root) call signatures: inputs must exist before the call
 * starts, outputs must be computed inside it (finalize_outputs). */
static void check_preserved(uwalk *w) {
    exdb_lint_report *r = w->r;
    const exdb_program *p = w->p;
    for (uint32_t i = 0; i < p->ncalls; i++) {
        const exdb_module_call *c = &p->calls[i];
        if (!c->sig || !c->fqn[0])
            continue;
        call_info *ci = exdb_strmap_get(&w->calls, c->fqn);
        if (!ci) {
            add(r, EXDB_SEV_NOTE, "unflatten.preserved-unused", NULL, c->fqn,
                rfmt(r, "module %s has a preserved call signature but no node runs inside it",
                     c->fqn),
                rfmt(r, "nothing to do unless you expected %s to be called", c->fqn));
            continue;
        }
        for (uint32_t k = 0; k < c->sig->ninputs; k++) {
            const char *nm = c->sig->inputs[k];
            if (!nm)
                continue;
            const exdb_node *in = exdb_graph_find(p->graph, nm);
            if (!in || in->id >= w->nids || w->pos[in->id] >= ci->first_pos)
                add(r, EXDB_SEV_WARNING, "unflatten.preserved-input", ci->first->name, c->fqn,
                    rfmt(r,
                         "input %s of the preserved call %s is %s when the call starts at node "
                         "%s: unflatten passes None for it",
                         nm, c->fqn, in ? "not computed yet" : "not in the graph", ci->first->name),
                    rfmt(r, "compute %s before %s's call, or drop it from the signature", nm,
                         c->fqn));
        }
        for (uint32_t k = 0; k < c->sig->noutputs; k++) {
            const char *nm = c->sig->outputs[k];
            if (!nm)
                continue;
            const exdb_node *o = exdb_graph_find(p->graph, nm);
            if (!o) {
                add(r, EXDB_SEV_NOTE, "unflatten.preserved-output", NULL, c->fqn,
                    rfmt(r,
                         "output %s of the preserved call %s is not in the graph (removed by "
                         "dce?): unflatten returns None for it",
                         nm, c->fqn),
                    rfmt(r, "nothing to do unless a caller reads it"));
                continue;
            }
            int is_input = 0;
            for (uint32_t q = 0; q < c->sig->ninputs; q++)
                is_input |= c->sig->inputs[q] && strcmp(c->sig->inputs[q], nm) == 0;
            uint32_t op = o->id < w->nids ? w->pos[o->id] : 0;
            if (!is_input && (op < ci->first_pos || op > ci->last_pos))
                add(r, EXDB_SEV_ERROR, "unflatten.preserved-output", o->name, c->fqn,
                    rfmt(r,
                         "output %s of the preserved call %s is computed outside it: unflatten "
                         "raises \"Could not find output node %s\"",
                         nm, c->fqn, nm),
                    rfmt(r, "give %s the nn_module_stack of %s, or drop it from the signature", nm,
                         c->fqn));
        }
    }
}

/* Whether the state FQN's owner module (target minus its last atom) is
 * `scope` or below it, i.e. _sink_params in scope finds the state. */
static int owner_within(const char *target, const char *scope) {
    size_t ls = path_base_len(scope);
    if (ls == 0)
        return 1;
    return strncmp(target, scope, ls) == 0 && target[ls] == '.';
}

/* Whether another name of the same tensor as target (tied weights: one
 * storage in the archive's config) is owned within scope: upstream's
 * _sink_params then finds the tensor there under that name. */
static int alias_within(const exdb_lint_state *st, const char *target, const char *scope) {
    if (!st)
        return 0;
    const char *const *names[2] = {st->state_dict, st->constants};
    const char *const *stor[2] = {st->state_dict_storage, st->constants_storage};
    uint32_t n[2] = {st->nstate_dict, st->nconstants};
    for (int d = 0; d < 2; d++) {
        if (!names[d] || !stor[d])
            continue;
        const char *mine = NULL;
        for (uint32_t i = 0; i < n[d] && !mine; i++)
            if (strcmp(names[d][i], target) == 0)
                mine = stor[d][i];
        if (!mine || !mine[0])
            continue;
        for (uint32_t i = 0; i < n[d]; i++)
            if (strcmp(stor[d][i], mine) == 0 && strcmp(names[d][i], target) != 0 &&
                owner_within(names[d][i], scope))
                return 1;
    }
    return 0;
}

/* Parameters whose placeholder has no user, in a program read
 * without the archive's configs: the mark tied weights leave (export keeps
 * one placeholder per name and feeds every use from one of them), which
 * exdb cannot confirm without the storages. A note: torch sinks the tensor
 * under the used name's owner too; exdb assumes distinct tensors. */
static void check_unknown_aliases(uwalk *w) {
    const exdb_program *p = w->p;
    if (w->state && w->state->have_state_dict)
        return;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        /* parameters only: an unused buffer is common on its own
         * (BatchNorm's num_batches_tracked in eval mode) */
        if (!s->target || !s->name || s->kind != EXDB_IN_PARAMETER)
            continue;
        const exdb_node *ph = exdb_graph_find(p->graph, s->name);
        if (!ph || ph->nusers)
            continue;
        add(w->r, EXDB_SEV_NOTE, "unflatten.aliasing-unknown", ph->name, NULL,
            rfmt(w->r,
                 "%s %s is never used: if it is tied to another name (one tensor, as tied "
                 "embeddings are), torch.export.unflatten sinks that tensor under both names; "
                 "without the archive's weights config exdb takes every name for its own "
                 "tensor",
                 exdb_input_kind_name(s->kind), s->target),
            rfmt(w->r, "load the .pt2 archive: its weights config says which names share a "
                       "tensor"));
    }
}

/* State used by modules that are neither its owner nor an ancestor of it
 * (and, with the archive's configs, not under another name of the same
 * tensor either). */
static void check_state(uwalk *w) {
    exdb_lint_report *r = w->r;
    const exdb_program *p = w->p;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        if (!s->target || !s->name ||
            (s->kind != EXDB_IN_PARAMETER && s->kind != EXDB_IN_BUFFER &&
             s->kind != EXDB_IN_TENSOR_CONSTANT && s->kind != EXDB_IN_CUSTOM_OBJ))
            continue;
        const exdb_node *ph = exdb_graph_find(p->graph, s->name);
        if (!ph)
            continue;
        const char *dot = strrchr(s->target, '.');
        const char *owner =
            dot ? exdb_arena_strndup(&w->a, s->target, (size_t)(dot - s->target)) : "";
        for (uint32_t u = 0; u < ph->nusers; u++) {
            const exdb_node *user = ph->users[u];
            if (user->op == EXDB_OP_OUTPUT || user->id >= w->nids || !w->node_module[user->id])
                continue;
            const char *mod = w->node_module[user->id];
            if (owner_within(s->target, mod) || alias_within(w->state, s->target, mod))
                continue;
            /* one finding per (state, module): a map from module to the last
             * state reported in it, so a mask fed to every layer stays
             * linear in its users */
            void **last = exdb_strmap_put(&w->reported, mod, NULL);
            if (!last) {
                r->oom = 1;
                return;
            }
            if (*last == (void *)(uintptr_t)(i + 1))
                continue;
            *last = (void *)(uintptr_t)(i + 1);
            add(r, EXDB_SEV_WARNING, "unflatten.state-outside-owner", user->name, mod,
                rfmt(r,
                     "%s %s (owned by %s) is used in module %s, which is not its owner or an "
                     "ancestor of it: unflatten cannot turn it into a get_attr there and passes "
                     "it in as an argument from a common ancestor",
                     exdb_input_kind_name(s->kind), s->target, mod_label(owner), mod_label(mod)),
                rfmt(r, "expected for shared or tied state; otherwise use %s inside %s", s->target,
                     mod_label(owner)));
        }
    }
}

uint32_t exdb_lint_unflatten(exdb_lint_report *r, const exdb_program *p,
                             const exdb_lint_state *state) {
    uint32_t errors0 = r->count[EXDB_SEV_ERROR];
    if (p->ncalls && p->calls[0].fqn[0] != '\0')
        add(r, EXDB_SEV_ERROR, "unflatten.call-graph", NULL, p->calls[0].fqn,
            rfmt(r, "expected first fqn to be empty string, got '%s'", p->calls[0].fqn),
            rfmt(r, "module_call_graph must start with the root entry (fqn \"\")"));
    uwalk w = {.r = r, .p = p, .nids = p->graph->next_id, .state = state};
    exdb_arena_init(&w.a);
    exdb_strmap_init(&w.calls, &w.a);
    exdb_strmap_init(&w.reported, &w.a);
    w.cap = 16;
    w.open = exdb_arena_alloc(&w.a, w.cap * sizeof *w.open);
    w.node_module = exdb_arena_calloc(&w.a, w.nids ? w.nids : 1, sizeof *w.node_module);
    w.pos = exdb_arena_calloc(&w.a, w.nids ? w.nids : 1, sizeof *w.pos);
    if (!w.open || !w.node_module || !w.pos) {
        r->oom = 1;
    } else {
        w.open[0] = (frame){"", NULL, 0, "", NULL};
        w.depth = 1;
        walk_stacks(&w);
        check_preserved(&w);
        check_state(&w);
        check_unknown_aliases(&w);
    }
    exdb_arena_destroy(&w.a);
    return r->count[EXDB_SEV_ERROR] - errors0;
}

uint32_t exdb_lint_program(exdb_lint_report *r, const exdb_program *p,
                           const exdb_lint_state *state) {
    uint32_t errors0 = r->count[EXDB_SEV_ERROR];
    exdb_lint_graph(r, p->graph, NULL, NULL);
    for (uint32_t i = 0; i < p->nsubgraphs; i++) {
        const char *path = exdb_lint_subgraph_path(r, p, i);
        exdb_lint_graph_in(r, p->subgraphs[i].graph, NULL, NULL,
                           path ? path : p->subgraphs[i].name);
    }
    exdb_lint_signature(r, p, state);
    exdb_lint_unflatten(r, p, state);
    return r->count[EXDB_SEV_ERROR] - errors0;
}

/* ---- rendering */

void exdb_lint_format(exdb_buf *b, const exdb_lint_report *r) {
    for (uint32_t i = 0; i < r->n; i++) {
        const exdb_finding *f = &r->items[i];
        exdb_buf_printf(b, "%s: ", exdb_severity_name(f->sev));
        /* where: "node N (module M, subgraph G): ", any part may be absent */
        const char *sep = f->node ? " (" : "";
        if (f->node)
            exdb_buf_printf(b, "node %s", f->node);
        if (f->module) {
            exdb_buf_printf(b, "%smodule %s", sep, mod_label(f->module));
            sep = ", ";
        }
        if (f->graph) {
            exdb_buf_printf(b, "%ssubgraph %s", sep, f->graph);
            sep = ", ";
        }
        if (f->node && (f->module || f->graph))
            exdb_buf_putc(b, ')');
        if (f->node || f->module || f->graph)
            exdb_buf_puts(b, ": ");
        exdb_buf_printf(b, "%s -- fix: %s [%s]\n", f->what, f->fix, f->check);
    }
    exdb_buf_printf(b, "%u error%s, %u warning%s, %u note%s.%s\n", r->count[0],
                    r->count[0] == 1 ? "" : "s", r->count[1], r->count[1] == 1 ? "" : "s",
                    r->count[2], r->count[2] == 1 ? "" : "s",
                    r->oom ? " (out of memory: some findings are missing)" : "");
}

static void json_str_or_null(exdb_buf *b, const char *s) {
    if (s)
        exdb_buf_json_str(b, s);
    else
        exdb_buf_puts(b, "null");
}

void exdb_lint_format_json(exdb_buf *b, const exdb_lint_report *r) {
    exdb_buf_putc(b, '[');
    for (uint32_t i = 0; i < r->n; i++) {
        const exdb_finding *f = &r->items[i];
        exdb_buf_puts(b, i ? ",\n {" : "{");
        exdb_buf_printf(b, "\"severity\": \"%s\", \"check\": ", exdb_severity_name(f->sev));
        exdb_buf_json_str(b, f->check);
        exdb_buf_puts(b, ", \"node\": ");
        json_str_or_null(b, f->node);
        exdb_buf_puts(b, ", \"module\": ");
        json_str_or_null(b, f->module);
        exdb_buf_puts(b, ", \"graph\": ");
        json_str_or_null(b, f->graph);
        exdb_buf_puts(b, ", \"message\": ");
        exdb_buf_json_str(b, f->what);
        exdb_buf_puts(b, ", \"fix\": ");
        exdb_buf_json_str(b, f->fix);
        exdb_buf_putc(b, '}');
    }
    exdb_buf_puts(b, "]\n");
}
