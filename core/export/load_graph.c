/* load_graph.c - see load_graph.h. */
#include "core/export/load_graph.h"

#include <string.h>

#include "core/base/mem.h"
#include "core/export/load_arg.h"
#include "core/export/load_node.h"
#include "core/export/load_sigtext.h"
#include "core/export/load_value.h"

/* as_graph: the subgraph (its own namespace and value names) registered
 * under GraphArgument.name, and a get_attr node of that name in the parent,
 * created before the node that uses it. */
int exdb_load_graph_subgraph_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p,
                                 exdb_arg *out) {
    const char *name;
    if (exdb_load_need_obj(L, v, p) < 0 || exdb_load_get_str(L, v, "name", p, &name) < 0)
        return -1;
    const exdb_json *jg = exdb_json_get(v, "graph");
    jpath gp = PKEY(p, "graph");
    if (exdb_load_need_obj(L, jg, &gp) < 0)
        return -1;
    exdb_graph *sub = exdb_graph_new(L->a);
    if (!sub)
        return exdb_load_oom(L);
    if (exdb_load_graph(L, jg, &gp, sub, 1) < 0)
        return -1;
    exdb_node *ga =
        exdb_graph_create_node(sc->g, EXDB_OP_GET_ATTR, name, EXDB_T_STR, NULL, NULL, name);
    if (!ga)
        return exdb_load_oom(L);
    exdb_program *P = L->prog;
    if (P->nsubgraphs == L->subgraphs_cap) {
        /* doubling: the copies left behind in the arena add up to less than
         * the final list (one copy per subgraph was quadratic: 3 GB at 16k) */
        uint32_t ncap = L->subgraphs_cap ? 2 * L->subgraphs_cap : 8;
        struct exdb_subgraph *ns = exdb_arena_alloc(L->a, (size_t)ncap * sizeof *ns);
        if (!ns)
            return exdb_load_oom(L);
        if (P->nsubgraphs)
            memcpy(ns, P->subgraphs, P->nsubgraphs * sizeof *ns);
        P->subgraphs = ns;
        L->subgraphs_cap = ncap;
    }
    struct exdb_subgraph *e = &P->subgraphs[P->nsubgraphs++];
    e->name = name;
    e->graph = sub;
    e->owner = ga;
    *out = exdb_arg_node(ga);
    return 0;
}

/* The placeholder target of constant graph input i:
 * `self.signature.input_specs[i].arg.name or f"arg{i}"`. PyTorch consults
 * the top-level signature even inside a subgraph, and so does exdb. */
static const char *constant_input_name(loader *L, uint32_t i) {
    exdb_program *P = L->prog;
    if (i < P->ninputs && P->inputs[i].name && P->inputs[i].name[0])
        return P->inputs[i].name;
    return exdb_arena_printf(L->a, "arg%u", i);
}

/* Graph output value (deserialize_graph_output). */
static int load_output_value(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                             exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, j, p, "a graph output", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    memset(out, 0, sizeof *out);
    if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0)
        return exdb_load_arg_tensor_ref(L, sc, v, &vp, out);
    if (strcmp(tag, "as_sym_int") == 0)
        return exdb_load_arg_sym_ref(L, sc, v, &vp, 0, out);
    if (strcmp(tag, "as_sym_float") == 0)
        return exdb_load_arg_sym_ref(L, sc, v, &vp, 1, out);
    if (strcmp(tag, "as_sym_bool") == 0)
        return exdb_load_arg_sym_ref(L, sc, v, &vp, 2, out);
    if (strcmp(tag, "as_int") == 0)
        return exdb_load_arg_int(L, sc, v, &vp, out);
    if (strcmp(tag, "as_float") == 0)
        return exdb_load_arg_float(L, sc, v, &vp, out);
    if (strcmp(tag, "as_bool") == 0)
        return exdb_load_arg_bool(L, sc, v, &vp, out);
    if (strcmp(tag, "as_none") == 0)
        return 0;
    /* PyTorch refuses anything else; exdb reads it as an argument */
    return exdb_load_arg(L, sc, j, p, out);
}

/* Room in g and sc->values for what the graph will hold: one name per input
 * and node, or per value if there are more values (the getitems of
 * multi-output nodes name values too); one value per entry of the value
 * tables. Capped, so a file with a huge value table and few nodes cannot
 * make the loader reserve nodes it will never create, and within what is
 * left of the loader's budget (reserve_left). */
static int reserve(loader *L, gscope *sc, exdb_graph *g, const exdb_json *ins,
                   const exdb_json *nodes) {
    uint64_t nn = (uint64_t)ins->len + nodes->len, cap = 2 * nn + 64;
    uint64_t est64 = nn > sc->mcount ? nn : sc->mcount;
    est64 = est64 < cap ? est64 : cap;
    est64 = est64 < L->reserve_left ? est64 : L->reserve_left;
    L->reserve_left -= est64;
    uint32_t est = (uint32_t)est64;
    uint32_t nbases = ins->len + (nodes->len < 64 ? nodes->len : 64);
    if (exdb_graph_reserve(g, est + 1, nbases < est + 1 ? nbases : est + 1) < 0 ||
        (sc->mcount && exdb_strmap_reserve(&sc->values, sc->mcount) < 0))
        return exdb_load_oom(L);
    return 0;
}

/* Constant graph input i (an int, float, bool, None or string: ins' element
 * at ep): a placeholder named after its signature name, whose val is the
 * constant; no value other nodes can refer to. */
static int constant_input(loader *L, gscope *sc, exdb_graph *g, const exdb_json *e, const jpath *ep,
                          uint32_t i) {
    const char *target = constant_input_name(L, i);
    exdb_arg *ca = exdb_arena_alloc(L->a, sizeof *ca);
    exdb_val *cval = exdb_arena_calloc(L->a, 1, sizeof *cval);
    if (!target || !ca || !cval)
        return exdb_load_oom(L);
    if (load_output_value(L, sc, e, ep, ca) < 0)
        return -1;
    cval->kind = EXDB_VAL_CONST;
    cval->u.arg = ca;
    exdb_node *ph =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, target, EXDB_T_STR, NULL, NULL, NULL);
    if (!ph || exdb_load_node_set_val(L, ph, cval) < 0)
        return exdb_load_oom(L);
    return 0;
}

/* graph.placeholder(name), then placeholder_node.name = name (vp: the
 * name's object). */
static int placeholder(loader *L, gscope *sc, exdb_graph *g, const char *name, const jpath *vp) {
    exdb_node *ph =
        exdb_graph_create_node(g, EXDB_OP_PLACEHOLDER, name, EXDB_T_STR, NULL, NULL, NULL);
    if (!ph)
        return exdb_load_oom(L);
    return exdb_load_node_sync(L, sc, ph, name, vp);
}

/* Graph input i, e (at ep), into a placeholder of g. */
static int load_input(loader *L, gscope *sc, exdb_graph *g, const exdb_json *e, const jpath *ep,
                      uint32_t i) {
    const char *tag;
    const exdb_json *v;
    char q[QS];
    if (exdb_load_get_union(L, e, ep, "a graph input", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(ep, tag);
    const char *name = NULL;
    if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0 ||
        strcmp(tag, "as_token") == 0) {
        if (exdb_load_need_obj(L, v, &vp) < 0 || exdb_load_get_str(L, v, "name", &vp, &name) < 0)
            return -1;
    } else if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_bool") == 0 ||
               strcmp(tag, "as_sym_float") == 0) {
        if (exdb_load_node_sym_name(L, v, &vp, "a symbolic graph input", &name) < 0)
            return -1;
    } else if (strcmp(tag, "as_int") == 0 || strcmp(tag, "as_float") == 0 ||
               strcmp(tag, "as_bool") == 0 || strcmp(tag, "as_none") == 0 ||
               strcmp(tag, "as_string") == 0) {
        return constant_input(L, sc, g, e, ep, i);
    } else {
        return exdb_load_fail(L, ep,
                              "unsupported graph input kind %s (expected \"as_tensor\", "
                              "\"as_custom_obj\", \"as_sym_int\" or a constant)",
                              exdb_load_path_qs(q, sizeof q, tag));
    }
    return placeholder(L, sc, g, name, &vp);
}

/* The graph inputs ins (at ip): placeholders, named exactly as the values
 * they are (tensors, custom objects, named SymInts) or constants; the main
 * graph's read off their text when they are {"as_tensor": {"name": N}}
 * as torch writes them (load_sigtext.h), else parsed (first read: lazy). */
static int load_inputs(loader *L, gscope *sc, exdb_graph *g, const exdb_json *ins,
                       const jpath *ip) {
    for (uint32_t i = 0; i < ins->len; i++) {
        jpath ep = PIDX(ip, i);
        const exdb_json *e = &ins->u.kids[i];
        const char *t, *name;
        size_t n;
        uint32_t nlen;
        if (exdb_load_sigtext_input(e, &t, &n)) {
            /* its name decoded as the parse would (no check: plain ASCII) */
            jpath vp = PKEY(&ep, "as_tensor");
            if (exdb_json_string_at(t - 1, t + n + 1, L->prog->buf, &L->strs, L->fname, &name,
                                    &nlen, L->err) < 0 ||
                placeholder(L, sc, g, name, &vp) < 0)
                return -1;
            continue;
        }
        const char *was[2] = {L->clean_lo, L->clean_hi};
        exdb_json parsed;
        e = exdb_load_root_entry(L, e, &L->strs, &parsed);
        int rc = e ? load_input(L, sc, g, e, &ep, i) : -1;
        L->clean_lo = was[0];
        L->clean_hi = was[1];
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The output node, returning outs (at op). */
static int load_output_node(loader *L, gscope *sc, const exdb_json *jg, const exdb_json *outs,
                            const jpath *op) {
    exdb_graph *g = sc->g;
    exdb_arg res;
    const exdb_json *single = exdb_load_get_opt(jg, "is_single_tensor_return");
    if (single && single->type == EXDB_JTRUE) {
        if (outs->len != 1)
            return exdb_load_fail(L, op,
                                  "is_single_tensor_return is true, so expected 1 output, found %u",
                                  outs->len);
        jpath ep = PIDX(op, 0);
        if (load_output_value(L, sc, &outs->u.kids[0], &ep, &res) < 0)
            return -1;
    } else {
        if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, outs->len, &res) < 0)
            return exdb_load_oom(L);
        for (uint32_t i = 0; i < outs->len; i++) {
            jpath ep = PIDX(op, i);
            if (load_output_value(L, sc, &outs->u.kids[i], &ep, &res.u.items[i]) < 0)
                return -1;
        }
    }
    exdb_arg args;
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, 1, &args) < 0)
        return exdb_load_oom(L);
    args.u.items[0] = res;
    if (!exdb_graph_create_node(g, EXDB_OP_OUTPUT, "output", EXDB_T_STR, &args, NULL, NULL))
        return exdb_load_oom(L);
    return 0;
}

/* Nodes ahead of the one being built whose value names are prefetched. */
#define PREFETCH_AHEAD 8

/* Starts loading the slot of m (if any) that a name of hash h probes first. */
static void prefetch_slot(const exdb_strmap *m, uint32_t h) {
    if (!m || !m->cap)
        return;
    /* the first probe's slot and the line after it: a probe for a new name
     * reads a few slots (the tables are up to 3/4 full) */
    const char *slot = (const char *)&m->slots[exdb_strmap_home(h, m->cap - 1)];
    __builtin_prefetch(slot);
    __builtin_prefetch(slot + 64);
}

/* The slots in m and m2 (or NULL) of the name holder's {"as_tensor":
 * {"name": N}} gives (if it is that): found and hashed once for both. */
static void prefetch_tensor(const exdb_strmap *m, const exdb_strmap *m2, const exdb_json *holder) {
    const exdb_json *nm = exdb_json_get(exdb_json_get(holder, "as_tensor"), "name");
    if (!nm || nm->type != EXDB_JSTRING)
        return;
    uint32_t h = exdb_strmap_hash(nm->u.str);
    prefetch_slot(m, h);
    prefetch_slot(m2, h);
}

/* A hint, with no effect on the result: the name and value tables of a
 * big graph outgrow the cache, and each node's new name and the values its
 * arguments name were a cache (and TLB) miss apiece, a third of the load
 * at 1M nodes. Node i + PREFETCH_AHEAD, when the parse-ahead thread has
 * parsed it already, has its output names' slots in both tables and its
 * tensor arguments' slots in the value table fetched while node i is
 * built. */
static void prefetch_node(loader *L, gscope *sc, const exdb_json *nodes, uint32_t i) {
    if (!L->ahead || i + PREFETCH_AHEAD >= nodes->len)
        return;
    const exdb_json *jn = exdb_json_ahead_peek(L->ahead, &nodes->u.kids[i + PREFETCH_AHEAD]);
    const exdb_json *outs = exdb_json_get(jn, "outputs");
    if (outs && outs->type == EXDB_JARRAY)
        for (uint32_t k = 0; k < outs->len && k < 4; k++)
            prefetch_tensor(&sc->values, &sc->g->names, &outs->u.kids[k]);
    const exdb_json *ins = exdb_json_get(jn, "inputs");
    if (ins && ins->type == EXDB_JARRAY)
        for (uint32_t k = 0; k < ins->len && k < 8; k++)
            prefetch_tensor(&sc->values, NULL, exdb_json_get(&ins->u.kids[k], "arg"));
}

/* deserialize_graph: placeholders, nodes, output. Named inputs (tensors,
 * custom objects, named SymInts) print exactly as named; constant inputs
 * (ints, floats, bools, None, strings) get create_name's version of their
 * signature name and are not values other nodes can refer to. */
static int load_graph(loader *L, const exdb_json *jg, const jpath *gp, exdb_graph *g, int is_sub) {
    gscope sc = {.g = g, .jgraph = jg};
    exdb_strmap_init(&sc.values, L->a);
    exdb_strmap_init(&sc.metas, L->a);
    if (exdb_load_value_tables(L, &sc, gp) < 0)
        return -1;
    const exdb_json *ins = exdb_json_get(jg, "inputs");
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    const exdb_json *outs = exdb_json_get(jg, "outputs");
    jpath ip = PKEY(gp, "inputs"), np = PKEY(gp, "nodes"), op = PKEY(gp, "outputs");
    if (exdb_load_need_arr(L, ins, &ip) < 0 || exdb_load_need_arr(L, nodes, &np) < 0 ||
        exdb_load_need_arr(L, outs, &op) < 0)
        return -1;
    L->nnodes += (uint64_t)ins->len + nodes->len;
    if (L->nnodes > EXDB_MAX_NODES)
        return exdb_load_fail(
            L, &np,
            "%u nodes and %u graph inputs (%llu in all graphs so far) exceed the limit "
            "of %d nodes",
            nodes->len, ins->len, (unsigned long long)L->nnodes, EXDB_MAX_NODES);
    if (reserve(L, &sc, g, ins, nodes) < 0)
        return -1;
    /* the main graph's inputs: strings of the root DOM only */
    const char *saved[2];
    exdb_load_root_begin(L, !is_sub, saved);
    int rc = load_inputs(L, &sc, g, ins, &ip);
    exdb_load_root_end(L, saved);
    if (rc < 0)
        return -1;
    for (uint32_t i = 0; i < nodes->len; i++) {
        jpath ep = PIDX(&np, i);
        const exdb_json *jn = &nodes->u.kids[i];
        exdb_json parsed;
        if (!(jn = exdb_load_table_entry(L, jn, &parsed)))
            return -1;
        prefetch_node(L, &sc, nodes, i);
        if (exdb_load_node(L, &sc, jn, &ep, is_sub ? -1 : (int32_t)i) < 0)
            return -1;
    }
    return load_output_node(L, &sc, jg, outs, &op);
}

int exdb_load_graph(loader *L, const exdb_json *jg, const jpath *gp, exdb_graph *g, int is_sub) {
    int helped = !is_sub && L->prog->json_bytes >= EXDB_MEM_AHEAD_MIN && exdb_mem_ahead_start();
    int rc = load_graph(L, jg, gp, g, is_sub);
    if (helped)
        exdb_mem_ahead_stop();
    return rc;
}
