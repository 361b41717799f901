/* lint.c - torch.fx.Graph.lint() (torch/fx/graph.py; docs/unflatten-notes.md
 * §2) with upstream's messages, the trailing "\n{graph}" dump dropped
 * (findings are one line; `print graph` shows it), and the report the
 * signature checks (core/export/siglint.c) and the unflatten pre-flight
 * (core/unflatten/preflight.c) add their findings to. */
#include "core/base/mem.h"
#include "core/fx/lint.h"
#include "core/fx/lintchecks.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/strmap.h"

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

const char *exdb_lint_module_label(const char *fqn) {
    return fqn[0] ? fqn : "<root>";
}

const char *exdb_severity_name(exdb_severity s) {
    return s == EXDB_SEV_ERROR ? "error" : s == EXDB_SEV_WARNING ? "warning" : "note";
}

const char *exdb_lint_printf(exdb_lint_report *r, const char *fmt, ...) {
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

void exdb_lint_add(exdb_lint_report *r, exdb_severity sev, const char *check, const char *node,
                   const char *module, const char *what, const char *fix) {
    if (!what) {
        r->oom = 1;
        return;
    }
    if (r->n == r->cap) {
        exdb_finding *ni = exdb_grow(r->items, &r->cap, sizeof *ni, 16);
        if (!ni) {
            r->oom = 1;
            return;
        }
        r->items = ni;
    }
    assert(exdb_lintchecks_find(check)); /* every check id is a row of the catalog */
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
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "fx.foreign-arg", u, ac->module,
            exdb_lint_printf(
                r,
                "Argument '%s' of Node '%s' does not belong to this Graph, but was used as an "
                "argument! If you are copying nodes from another graph, make sure to use "
                "``arg_transform`` on node_copy() to remap values",
                arg->name, u),
            exdb_lint_printf(r, "map '%s' to a node of this graph (node_copy's arg_transform)",
                             arg->name));
    } else if (arg->id >= ac->nseen || !ac->seen[arg->id]) {
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "fx.use-before-def", u, ac->module,
            exdb_lint_printf(
                r,
                "Argument '%s' of Node '%s' was used before it has been defined! Please check "
                "that Nodes in the graph are topologically ordered",
                arg->name, u),
            arg == ac->user ? exdb_lint_printf(r, "'%s' must not use itself as an argument", u)
                            : exdb_lint_printf(r, "move '%s' above '%s'", arg->name, u));
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
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "fx.target-missing", n->name, module,
                exdb_lint_printf(r, "Node %s target %s references nonexistent attribute %s of %.*s",
                                 n->name, t, atom, seen_len, t),
                exdb_lint_printf(r, "add the attribute %s to the module, or retarget the node",
                                 qual));
            break;
        }
        if (n->op == EXDB_OP_CALL_MODULE && k != EXDB_ATTR_MODULE) {
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "fx.target-not-module", n->name, module,
                exdb_lint_printf(r, "Node %s target %s %s of %.*s does not reference an nn.Module",
                                 n->name, t, atom, seen_len, t),
                exdb_lint_printf(r, "make %s a submodule, or use get_attr/call_function", qual));
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
        const exdb_strmap_slot *s = &g->names.slots[exdb_strmap_home(h, g->names.cap - 1)];
        if (exdb_strmap_slot_key(s) == n->name && s->val == n)
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
            ix->keys[off / sizeof(exdb_node)] = exdb_strmap_slot_key(s);
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
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "fx.unknown-opcode", n->name, module_fqn,
                exdb_lint_printf(r, "Node %s had unknown opcode %d!", n->name, n->op),
                exdb_lint_printf(r,
                                 "recreate %s with one of placeholder, get_attr, call_function, "
                                 "call_method, call_module, output",
                                 n->name));
        int in_table = in_names(g, n);
        if (n->graph != g)
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "fx.foreign-node", n->name, module_fqn,
                exdb_lint_printf(r, "Node '%s' does not belong to this Graph!", n->name),
                exdb_lint_printf(r, "copy %s into this graph with node_copy instead of linking it",
                                 n->name));
        else if (!in_table)
            exdb_lint_add(r, EXDB_SEV_ERROR, "fx.side-table", n->name, module_fqn,
                          exdb_lint_printf(r, "Node '%s' is not added to the side table", n->name),
                          exdb_lint_printf(
                              r, "create nodes through the graph so their names are registered"));
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
                exdb_lint_add(r, EXDB_SEV_ERROR, "fx.duplicate-name", n->name, module_fqn,
                              exdb_lint_printf(r, "Node redefined name %s!", n->name),
                              exdb_lint_printf(r, "rename one of the nodes called %s", n->name));
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
            exdb_buf_printf(b, "%smodule %s", sep, exdb_lint_module_label(f->module));
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
