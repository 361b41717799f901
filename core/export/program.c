/* program.c - ExportedProgram JSON -> exdb_program (program.h): the top level.
 *
 * C twin of torch/_export/serde/serialize.py's ExportedProgramDeserializer and
 * GraphModuleDeserializer: rebuilds the FX graph exactly as PyTorch does
 * (placeholders, one call_function per serialized node, getitem nodes for
 * multi-output ops, one output node) with PyTorch's naming, and reads the
 * graph signature, module_call_graph and the rest. Schemas 2 (unions as
 * objects with every alternative, all but one null) through 8.20 (single-key
 * unions) are read; see docs/pt2-format.md §12.
 *
 * This file is the top level (schema version, versions, range constraints,
 * the order of the parts) and the public entry points; what each part is
 * made of is loaded by load_signature.c, load_graph.c, load_node.c,
 * load_arg.c, load_meta.c and load_value.c over load.c's accessors (the
 * names are explained in load.h); a program opened from the reopen cache
 * by program_cache.c, which shares this file's steps (program_impl.h); the
 * build in a thread of its own by program_thread.c.
 *
 * Errors name the file and the JSON path of the offending value, e.g.
 *   model.json: $.graph_module.graph.nodes[12].inputs[0].arg: unknown Argument kind "as_foo"
 * and besides the JSON shape, the checks PyTorch's loader and its
 * ExportedProgram verifier make: values defined once and before use, specs
 * pairing up with graph inputs/outputs by count and by name. */
#include "core/export/program.h"

#include "core/base/filemap.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/export/cache.h"
#include "core/export/load.h"
#include "core/export/load_graph.h"
#include "core/export/load_meta.h"
#include "core/export/load_shape.h"
#include "core/export/load_signature.h"
#include "core/export/program_impl.h"
#include "core/export/snapshot.h"
#include "core/format/container.h"
#include "core/fx/graph_check.h"

/* qsort order of subgraphs_by_owner: by the owner node's address. */
static int by_owner(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)(*(struct exdb_subgraph *const *)a)->owner;
    uintptr_t y = (uintptr_t)(*(struct exdb_subgraph *const *)b)->owner;
    return x < y ? -1 : x > y;
}

/* Indexes the subgraphs by name (and by owner node) once all are loaded (entries no longer
 * move): exdb_program_subgraph is then one hash lookup, not a scan of a
 * list that a program of N higher-order ops makes N long. */
int exdb_program_index_subgraphs(exdb_program *P) {
    exdb_strmap_init(&P->subgraph_names, &P->arena);
    if (exdb_strmap_reserve(&P->subgraph_names, P->nsubgraphs) < 0)
        return -1;
    for (uint32_t i = 0; i < P->nsubgraphs; i++) {
        /* the top-level GraphModule's attributes only: a subgraph's own
         * subgraphs are attributes of its GraphModule (register_module on
         * the deserializer's module of the moment) and reuse the names */
        if (!P->subgraphs[i].owner || P->subgraphs[i].owner->graph != P->graph)
            continue;
        void **slot = exdb_strmap_put(&P->subgraph_names, P->subgraphs[i].name, NULL);
        if (!slot)
            return -1;
        *slot = &P->subgraphs[i];
    }
    if (!P->nsubgraphs)
        return 0;
    P->subgraphs_by_owner =
        exdb_arena_alloc(&P->arena, P->nsubgraphs * sizeof *P->subgraphs_by_owner);
    if (!P->subgraphs_by_owner)
        return -1;
    for (uint32_t i = 0; i < P->nsubgraphs; i++)
        P->subgraphs_by_owner[i] = &P->subgraphs[i];
    qsort(P->subgraphs_by_owner, P->nsubgraphs, sizeof *P->subgraphs_by_owner, by_owner);
    return 0;
}

const struct exdb_subgraph *exdb_program_subgraph(const exdb_program *p, const char *name) {
    return exdb_strmap_get(&p->subgraph_names, name);
}

const struct exdb_subgraph *exdb_program_subgraph_in(const exdb_program *p, const exdb_graph *g,
                                                     const char *name) {
    if (g == p->graph)
        return exdb_program_subgraph(p, name);
    const struct exdb_subgraph *found = NULL;
    for (uint32_t i = 0; i < p->nsubgraphs; i++)
        if (p->subgraphs[i].owner && p->subgraphs[i].owner->graph == g &&
            strcmp(p->subgraphs[i].name, name) == 0)
            found = &p->subgraphs[i];
    return found;
}

const struct exdb_subgraph *exdb_program_subgraph_owned(const exdb_program *p,
                                                        const exdb_node *owner) {
    uint32_t lo = 0, hi = p->subgraphs_by_owner ? p->nsubgraphs : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const exdb_node *o = p->subgraphs_by_owner[mid]->owner;
        if (o == owner)
            return p->subgraphs_by_owner[mid];
        if ((uintptr_t)o < (uintptr_t)owner)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int load_kv_strings(loader *L, const exdb_json *j, const jpath *p, exdb_kv **out,
                           uint32_t *n) {
    if (!j)
        return 0;
    if (exdb_load_need_obj(L, j, p) < 0)
        return -1;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    if (!*out)
        return exdb_load_oom(L);
    *n = j->len;
    for (uint32_t i = 0; i < j->len; i++) {
        const exdb_json *e = &j->u.kids[i];
        jpath ep = PKEY(p, e->key);
        if (exdb_load_check_key(L, e->key, p) < 0)
            return -1;
        (*out)[i].key = e->key;
        if (e->type == EXDB_JSTRING) {
            if (exdb_load_check_str(L, e, &ep) < 0)
                return -1;
            (*out)[i].value = e->u.str;
        } else if (e->type == EXDB_JNUMBER) {
            (*out)[i].value = exdb_arena_strndup(L->a, e->u.str, e->len);
        } else {
            return exdb_load_fail(L, &ep, "expected a string or number, found %s",
                                  exdb_json_type_name(e));
        }
    }
    return 0;
}

/* schema_version at the top level: {"major", "minor"} or a plain int
 * (schema <= 2), refused outside 2..8. */
static int schema_version(loader *L, const exdb_json *root, const jpath *top) {
    exdb_program *P = L->prog;
    const exdb_json *sv = exdb_json_get(root, "schema_version");
    jpath svp = PKEY(top, "schema_version");
    if (!sv)
        return exdb_load_fail(L, top,
                              "missing key \"schema_version\" (is this a torch.export program?)");
    int64_t major = 0, minor = 0;
    if (sv->type == EXDB_JNUMBER) {
        if (exdb_load_as_int(L, sv, &svp, &major) < 0)
            return -1;
    } else if (sv->type == EXDB_JOBJECT) {
        jpath mp = PKEY(&svp, "major"), np = PKEY(&svp, "minor");
        if (exdb_load_as_int(L, exdb_json_get(sv, "major"), &mp, &major) < 0)
            return -1;
        const exdb_json *mi = exdb_json_get(sv, "minor");
        if (mi && exdb_load_as_int(L, mi, &np, &minor) < 0)
            return -1;
    } else {
        return exdb_load_fail(L, &svp,
                              "expected {\"major\": int, \"minor\": int} or an int, found %s",
                              exdb_json_type_name(sv));
    }
    if (major < 2 || major > 8) {
        if (sv->type == EXDB_JNUMBER)
            return exdb_load_fail(
                L, &svp, "schema version %" PRId64 " is not supported (exdb reads 2 to 8.x)",
                major);
        return exdb_load_fail(L, &svp,
                              "schema version %" PRId64 ".%" PRId64
                              " is not supported (exdb reads 2 to 8.x)",
                              major, minor);
    }
    P->schema_major = (int)major;
    P->schema_minor = (int)minor;
    L->legacy_unions = major < 5;
    return 0;
}

/* The min_val / max_val of range constraint e (at ep) into r: an integer,
 * or null or an infinity for no bound. */
static int range_bounds(loader *L, const exdb_json *e, const jpath *ep, exdb_range *r) {
    r->min_inf = -1;
    r->max_inf = 1;
    for (int w = 0; w < 2; w++) {
        const char *k = w ? "max_val" : "min_val";
        const exdb_json *b = exdb_load_get_opt(e, k);
        jpath bp = PKEY(ep, k);
        if (!b)
            continue;
        double d;
        int64_t iv;
        if (exdb_json_int(b, &iv) == 0) {
            if (w) {
                r->max = iv;
                r->has_max = 1;
            } else {
                r->min = iv;
                r->has_min = 1;
            }
        } else if (exdb_json_double(b, &d) == 0 && isinf(d)) {
            /* unbounded: _int_to_sympy_int maps math.inf to int_oo, -inf to -int_oo */
            if (w)
                r->max_inf = d > 0 ? 1 : -1;
            else
                r->min_inf = d > 0 ? 1 : -1;
        } else if (b->type == EXDB_JNUMBER) {
            return exdb_load_fail(L, &bp,
                                  "expected an integer that fits in 64 bits (or null or Infinity "
                                  "for no bound), found %.*s%s",
                                  (int)(b->len > 40 ? 40 : b->len), b->u.str,
                                  b->len > 40 ? "..." : "");
        } else {
            return exdb_load_fail(
                L, &bp, "expected an integer (or null or Infinity for no bound), found %s",
                exdb_json_type_name(b));
        }
    }
    return 0;
}

/* range_constraints: symbol -> {min_val, max_val}. */
static int load_ranges(loader *L, const exdb_json *rc, const jpath *rcp) {
    exdb_program *P = L->prog;
    if (exdb_load_need_obj(L, rc, rcp) < 0)
        return -1;
    P->ranges = exdb_arena_calloc(L->a, rc->len ? rc->len : 1, sizeof *P->ranges);
    if (!P->ranges)
        return exdb_load_oom(L);
    P->nranges = rc->len;
    for (uint32_t i = 0; i < rc->len; i++) {
        const exdb_json *e = &rc->u.kids[i];
        jpath ep = PKEY(rcp, e->key);
        exdb_range *r = &P->ranges[i];
        if (exdb_load_check_key(L, e->key, rcp) < 0)
            return -1;
        r->symbol = e->key;
        if (exdb_load_need_obj(L, e, &ep) < 0 || range_bounds(L, e, &ep, r) < 0)
            return -1;
        if (!exdb_range_valid(r)) { /* ValueRanges.__init__ */
            char lo[32], hi[32];
            exdb_range_bound(r, 0, lo, sizeof lo);
            exdb_range_bound(r, 1, hi, sizeof hi);
            return exdb_load_fail(L, &ep, "ValueRangeError: Invalid ranges [%s:%s]", lo, hi);
        }
    }
    return 0;
}

void exdb_range_bound(const exdb_range *r, int upper, char *out, size_t n) {
    if (upper ? r->has_max : r->has_min)
        snprintf(out, n, "%lld", (long long)(upper ? r->max : r->min));
    else
        snprintf(out, n, "%s", (upper ? r->max_inf >= 0 : r->min_inf > 0) ? "int_oo" : "-int_oo");
}

int exdb_range_valid(const exdb_range *r) {
    /* lower <= upper, with -int_oo < every integer < int_oo */
    int lo_rank = r->has_min ? 0 : r->min_inf > 0 ? 1 : -1;
    int hi_rank = r->has_max ? 0 : r->max_inf < 0 ? -1 : 1;
    if (lo_rank != hi_rank)
        return lo_rank < hi_rank;
    return lo_rank != 0 || r->min <= r->max;
}

/* graph_module (at gmp): the signature first (constant inputs take their
 * names from it), the graph, the names the signature's specs give its
 * inputs and outputs, the module_call_graph and the metadata. */
static int load_graph_module(loader *L, const exdb_json *gm, const jpath *gmp, int shape,
                             const exdb_load_shape_tally *tally) {
    exdb_program *P = L->prog;
    const exdb_json *sig = exdb_json_get(gm, "signature");
    jpath sigp = PKEY(gmp, "signature");
    if (!sig)
        return exdb_load_fail(L, gmp, "missing key \"signature\" (expected an object)");
    const char *saved[2];
    exdb_load_root_begin(L, 1, saved); /* the root DOM's strings only */
    int rc = exdb_load_signature(L, sig, &sigp);
    exdb_load_root_end(L, saved);
    if (rc < 0)
        return -1;
    const exdb_json *jg = exdb_json_get(gm, "graph");
    jpath gp = PKEY(gmp, "graph");
    if (!jg)
        return exdb_load_fail(L, gmp, "missing key \"graph\" (expected an object)");
    if (exdb_load_need_obj(L, jg, &gp) < 0)
        return -1;
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    P->nserialized_nodes = exdb_json_is(nodes, EXDB_JARRAY) ? nodes->len : 0;
    /* specs and graph inputs/outputs pair up one to one (checked before the
     * graph is built: constant inputs take their names from the specs) */
    const exdb_json *gins = exdb_json_get(jg, "inputs");
    const exdb_json *gouts = exdb_json_get(jg, "outputs");
    if (exdb_json_is(gins, EXDB_JARRAY) && gins->len != P->ninputs) {
        jpath isp = PKEY(&sigp, "input_specs");
        return exdb_load_fail(
            L, &isp, "%u input spec%s for %u graph input%s (they pair up one to one, in order)",
            P->ninputs, P->ninputs == 1 ? "" : "s", gins->len, gins->len == 1 ? "" : "s");
    }
    if (exdb_json_is(gouts, EXDB_JARRAY) && gouts->len != P->noutputs) {
        jpath osp2 = PKEY(&sigp, "output_specs");
        return exdb_load_fail(
            L, &osp2, "%u output spec%s for %u graph output%s (they pair up one to one, in order)",
            P->noutputs, P->noutputs == 1 ? "" : "s", gouts->len, gouts->len == 1 ? "" : "s");
    }
    if (shape) { /* the node counts only (load_shape.c) */
        if (exdb_load_shape_graph(L, jg, &gp, tally, &P->shape) < 0)
            return -1;
    } else {
        if (!(P->graph = exdb_graph_new(L->a)))
            return exdb_load_oom(L);
        if (exdb_load_graph(L, jg, &gp, P->graph, 0) < 0)
            return -1;
        if (exdb_program_index_subgraphs(P) < 0)
            return exdb_load_oom(L);
        if (exdb_load_signature_check_names(L, &sigp) < 0)
            return -1;
    }
    const exdb_json *mcg = exdb_load_get_opt(gm, "module_call_graph");
    if (mcg) {
        jpath mp = PKEY(gmp, "module_call_graph");
        exdb_load_root_begin(L, 1, saved); /* the root DOM's strings only */
        rc = exdb_load_signature_call_graph(L, mcg, &mp);
        exdb_load_root_end(L, saved);
        if (rc < 0)
            return -1;
    }
    jpath mdp = PKEY(gmp, "metadata");
    const exdb_json *md = exdb_load_get_opt(gm, "metadata");
    if (md && md->type == EXDB_JOBJECT &&
        load_kv_strings(L, md, &mdp, &P->gm_metadata, &P->ngm_metadata) < 0)
        return -1;
    return 0;
}

/* The top level: schema version, versions and verifiers, range
 * constraints, then the graph module (load_graph_module); shape: the
 * node counts instead of the graph (the first pass's tally, or NULL). */
static int load_program(loader *L, const exdb_json *root, int shape,
                        const exdb_load_shape_tally *tally) {
    exdb_program *P = L->prog;
    const jpath *top = NULL; /* "$" itself */
    if (!exdb_json_is(root, EXDB_JOBJECT))
        return exdb_load_fail(L, top, "expected an ExportedProgram object, found %s",
                              exdb_json_type_name(root));
    L->root_clean = (root->flags & EXDB_JTEXT_CLEAN) != 0;
    if (schema_version(L, root, top) < 0)
        return -1;
    const exdb_json *tv = exdb_load_get_opt(root, "torch_version");
    const exdb_json *dia = exdb_load_get_opt(root, "dialect");
    jpath tvp = PKEY(top, "torch_version"), dp = PKEY(top, "dialect");
    if (exdb_json_is(tv, EXDB_JSTRING) && exdb_load_check_str(L, tv, &tvp) < 0)
        return -1;
    if (exdb_json_is(dia, EXDB_JSTRING) && exdb_load_check_str(L, dia, &dp) < 0)
        return -1;
    P->torch_version = exdb_json_is(tv, EXDB_JSTRING) ? tv->u.str : NULL;
    P->dialect = exdb_json_is(dia, EXDB_JSTRING) ? dia->u.str : NULL;
    const exdb_json *ver = exdb_load_get_opt(root, "verifiers");
    if (ver) {
        jpath vp = PKEY(top, "verifiers");
        if (exdb_load_str_list(L, ver, &vp, &P->verifiers, &P->nverifiers) < 0)
            return -1;
    }
    jpath osp = PKEY(top, "opset_version");
    if (load_kv_strings(L, exdb_load_get_opt(root, "opset_version"), &osp, &P->opset, &P->nopset) <
        0)
        return -1;
    const exdb_json *rc = exdb_load_get_opt(root, "range_constraints");
    if (rc) {
        jpath rcp = PKEY(top, "range_constraints");
        if (load_ranges(L, rc, &rcp) < 0)
            return -1;
    }
    const exdb_json *gm = exdb_json_get(root, "graph_module");
    jpath gmp = PKEY(top, "graph_module");
    if (!gm)
        return exdb_load_fail(L, top, "missing key \"graph_module\" (expected an object)");
    if (exdb_load_need_obj(L, gm, &gmp) < 0)
        return -1;
    if (shape && L->legacy_unions)
        return -1; /* schema < 5: not read shape first */
    return load_graph_module(L, gm, &gmp, shape, tally);
}

static uint32_t ahead_min = EXDB_JSON_AHEAD_MIN;
static uint32_t lazy_meta_min = EXDB_LAZY_META_MIN;

void exdb_program_lazy_meta(uint32_t min_nodes) {
    lazy_meta_min = min_nodes;
}

int exdb_program_meta_error(exdb_program *p, exdb_error *err) {
    if (!p || !p->meta_defer.pending)
        return 0;
    p->meta_defer.pending = 0;
    *err = p->meta_defer.err;
    return -1;
}

/* Flags the main graph's nodes (delimited by the skim) EXDB_JRAW_DEFER on
 * a program with at least lazy_meta_min of them: their metadata's text
 * fields are parsed when first read (exdb_load_meta_read). */
static void defer_meta(loader *L, const exdb_json *root) {
    const exdb_json *g = exdb_json_get(exdb_json_get(root, "graph_module"), "graph");
    const exdb_json *nodes = exdb_json_get(g, "nodes");
    if (!exdb_json_is(nodes, EXDB_JARRAY) || nodes->len < lazy_meta_min)
        return;
    for (uint32_t i = 0; i < nodes->len; i++) {
        exdb_json *e = &nodes->u.kids[i];
        if (e->type == EXDB_JRAW && (e->flags & EXDB_JRAW_ASCII))
            e->flags |= EXDB_JRAW_DEFER;
    }
    exdb_load_meta_defer_on(L->prog, L->fname);
}

void exdb_program_parse_ahead(uint32_t min_elements) {
    ahead_min = min_elements;
}

/* The main graph's tensor_values and nodes (as exdb_load_graph reads them:
 * the last of repeated keys, the tables first) parsed ahead in a second
 * thread (core/format/json_ahead.h) when the program is big enough. */
static void start_ahead(loader *L, const exdb_json *root) {
    const exdb_json *g = exdb_json_get(exdb_json_get(root, "graph_module"), "graph");
    if (!exdb_json_is(g, EXDB_JOBJECT))
        return;
    /* tensor_values entries are read off their text (load_value.c's
     * tensor_meta_text), parsed only when not in serialize.py's form */
    const exdb_json *tables[2] = {NULL, exdb_json_get(g, "nodes")};
    if (!exdb_json_is(tables[1], EXDB_JARRAY))
        tables[1] = NULL;
    L->strs.mu = &L->strs_mu; /* the thread's pools share the arena */
    L->ahead = exdb_json_ahead_start(tables, 2, L->prog->buf, &L->strs, L->fname, ahead_min);
}

static uint32_t shape_min = EXDB_SHAPE_FIRST_MIN;

uint32_t exdb_program_shape_min(void) {
    return shape_min;
}

uint32_t exdb_program_shape_first(uint32_t min_nodes) {
    uint32_t was = shape_min;
    shape_min = min_nodes;
    return was;
}

void exdb_program_node_counts(const exdb_program *p, exdb_node_counts *c) {
    if (!p->graph) {
        *c = p->shape;
        return;
    }
    memset(c, 0, sizeof *c);
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        c->ops[n->op < 6 ? n->op : 0]++;
        c->getitems += n->op == EXDB_OP_CALL_FUNCTION && strcmp(n->target, "operator.getitem") == 0;
    }
    c->nodes = p->graph->count;
}

uint32_t exdb_program_subgraph_count(const exdb_program *p) {
    return p->graph ? p->nsubgraphs : p->shape_nsubgraphs;
}

/* Frees what the load kept (the DOM, the loader's tables): the program
 * is built, or given up. */
void exdb_program_pending_free(struct exdb_program_pending *pd) {
    if (!pd)
        return;
    pthread_mutex_destroy(&pd->L.strs_mu);
    exdb_arena_destroy(&pd->L.node_dom);
    exdb_arena_destroy(&pd->dom);
    exdb_arena_destroy(&pd->hit_dom);
    exdb_cache_hit_free(&pd->hit);
    free(pd);
}

/* The text read: its pages given back (read again only for lazy
 * metadata), and -1 with err saying so when the file under a mapped text
 * was truncated or rewritten meanwhile. */
int exdb_program_text_read(const char *buf, size_t len, const char *fname, exdb_error *err) {
    exdb_filemap_drop(buf, buf, buf + len);
    if (!exdb_filemap_changed(buf))
        return 0;
    exdb_error_clear(err);
    return exdb_errorf(err, "%s changed on disk since it was loaded; load it again", fname);
}

/* The IR of P from the first pass's DOM (load_program), as the load has
 * always built it; -1 with the load's message in err. */
static int build(exdb_program *P, struct exdb_program_pending *pd, exdb_error *err) {
    loader *L = &pd->L;
    L->err = err;
    defer_meta(L, pd->root);
    start_ahead(L, pd->root);
    int rc = load_program(L, pd->root, 0, NULL);
    exdb_json_ahead_stop(L->ahead);
    L->ahead = NULL;
    if (exdb_program_text_read(P->buf, P->json_bytes, L->fname, err) < 0)
        rc = -1;
    if (rc == 0) {
        assert(exdb_graph_ok(P->graph));
        for (uint32_t i = 0; i < P->nsubgraphs; i++)
            assert(exdb_graph_ok(P->subgraphs[i].graph));
    }
    return rc;
}

/* Whether root is a program to open shape first: schema >= 5 (checked by
 * the shape read), at least shape_min nodes in its main graph. */
static int shape_worth(const exdb_json *root) {
    const exdb_json *g = exdb_json_get(exdb_json_get(root, "graph_module"), "graph");
    const exdb_json *nodes = exdb_json_get(g, "nodes");
    return exdb_json_is(nodes, EXDB_JARRAY) && nodes->len >= shape_min;
}

/* The shape read (load_program's parts but the graph, whose node counts
 * load_shape.c reads off the text) in a loader of its own, so that the
 * build starts from nothing counted. 0 when it read everything; -1 when it
 * could not say (any error: the build then gives the load's answer). */
int exdb_program_read_shape(exdb_program *P, const exdb_json *root,
                            const exdb_load_shape_tally *tally, const char *fname,
                            exdb_error *serr) {
    exdb_arena scratch;
    exdb_arena_init(&scratch);
    loader S = {.prog = P,
                .a = &P->arena,
                .args = &P->args_arena,
                .fname = fname,
                .err = serr,
                .reserve_left = P->json_bytes / RESERVE_BYTES + 64};
    exdb_arena_init(&S.node_dom);
    S.strs = exdb_jstrings_on(&scratch);
    exdb_strmap_init(&S.stacks, &scratch);
    exdb_strmap_init(&S.modules, &scratch);
    int rc = load_program(&S, root, 1, tally);
    exdb_arena_destroy(&S.node_dom);
    exdb_arena_destroy(&scratch);
    exdb_filemap_drop(P->buf, P->buf, P->buf + P->json_bytes);
    if (rc == 0 && exdb_filemap_changed(P->buf))
        rc = -1;
    return rc;
}

/* the main graph's inputs, nodes and tensor metadata and the signature's
 * input specs: delimited by the first pass, read by the loader (the specs
 * and inputs off their text: load_signature.c, load_graph.c) */
static const char *const lazy_prefix[] = {"graph_module"};
static const char *const lazy_last[] = {"graph/inputs", "graph/nodes", "graph/tensor_values",
                                        "signature/input_specs", NULL};

int exdb_program_first_pass(const char *buf, size_t len, exdb_arena *a, exdb_jstrings *strs,
                            const char *fname, const exdb_json_lazy_hook *hook, exdb_json **root,
                            exdb_error *err) {
    return exdb_json_parse_lazy_hooked(buf, len, a, strs, fname, lazy_prefix, 1, lazy_last, hook,
                                       root, err);
}

/* A program of text buf[0..len) named name, and its load (*pdp: the
 * loader set up, the DOM's arena); NULL when memory ran out (buf
 * released). */
exdb_program *exdb_program_new(char *buf, size_t len, const char *name,
                               struct exdb_program_pending **pdp, exdb_error *err) {
    exdb_program *P = calloc(1, sizeof *P);
    struct exdb_program_pending *pd = P ? calloc(1, sizeof *pd) : NULL;
    if (!pd) {
        free(P);
        exdb_mem_release(buf);
        exdb_errorf(err, "%s: out of memory", name);
        return NULL;
    }
    exdb_arena_init(&P->arena);
    exdb_arena_init(&P->args_arena);
    exdb_arena_init(&P->text_arena);
    P->buf = buf;
    P->json_bytes = len;
    P->path = exdb_arena_strdup(&P->arena, name);
    P->member = P->path;
    P->model = "model";
    loader *L = &pd->L;
    *L = (loader){.prog = P,
                  .a = &P->arena,
                  .args = &P->args_arena,
                  .fname = P->path ? P->path : name,
                  .err = err,
                  .reserve_left = len / RESERVE_BYTES + 64};
    exdb_arena_init(&L->node_dom);
    L->strs = exdb_jstrings_on(&P->text_arena);
    pthread_mutex_init(&L->strs_mu, NULL);
    /* The DOM lives in its own arena, dropped once the IR is built. The
     * main graph's nodes (~3/4 of the JSON) and tensor metadata (a DOM of
     * ~3 bytes per byte: 30 small values in 250 bytes) are parsed one at a
     * time into L->node_dom as exdb_load_graph reaches them, so their DOM never
     * exists all at once: peak memory is the buffer, the rest of the DOM
     * and the IR. */
    exdb_arena_init(&pd->dom);
    exdb_arena_init(&pd->hit_dom);
    exdb_strmap_init(&L->stacks, &pd->dom); /* the memo table goes with the DOM */
    exdb_strmap_init(&L->modules, &pd->dom);
    if (!P->path)
        exdb_errorf(err, "%s: out of memory", name);
    *pdp = pd;
    return P;
}

exdb_program *exdb_program_open_json(char *buf, size_t len, const char *name, int shape_first,
                                     exdb_error *err) {
    struct exdb_program_pending *pd;
    exdb_program *P = exdb_program_new(buf, len, name, &pd, err);
    if (!P)
        return NULL;
    loader *L = &pd->L;
    int rc = -1;
    /* opened shape first: the main graph's nodes counted as the first
     * pass delimits them (load_shape.h), not read again after it; but the
     * first shape_min, which a program of fewer nodes (opened whole)
     * never needs counted: exdb_load_shape_graph walks those */
    exdb_load_shape_tally *tally = shape_first ? exdb_load_shape_tally_new(L, shape_min) : NULL;
    exdb_json_lazy_hook hook = {exdb_load_shape_tally_hook, exdb_load_shape_tally_held, tally};
    int parsed = -1;
    /* the DOM's memory populated beside the first pass (mem.h), as the
     * IR's beside the loader */
    int helped = tally && len >= EXDB_MEM_AHEAD_MIN && exdb_mem_ahead_start();
    if (P->path)
        parsed = exdb_program_first_pass(buf, len, &pd->dom, &L->strs, L->fname,
                                         tally ? &hook : NULL, &pd->root, err);
    if (helped)
        exdb_mem_ahead_stop();
    exdb_load_shape_tally_finish(tally);
    if (parsed == 0) {
        exdb_error serr = {0};
        int shaped = shape_first && shape_worth(pd->root) &&
                     exdb_program_read_shape(P, pd->root, tally, L->fname, &serr) == 0;
        exdb_load_shape_tally_free(tally);
        tally = NULL;
        if (shaped) {
            P->pending = pd; /* exdb_program_build builds the rest */
            return P;
        }
        if (exdb_error_oom(&serr)) /* said as such, not taken for a fault of the file */
            *err = serr;
        else
            rc = build(P, pd, err);
    } else if (P->path) {
        exdb_program_text_read(buf, len, L->fname, err);
    }
    exdb_load_shape_tally_free(tally);
    exdb_program_pending_free(pd);
    if (rc < 0) {
        exdb_program_free(P);
        return NULL;
    }
    return P;
}

exdb_program *exdb_program_from_json(char *buf, size_t len, const char *name, exdb_error *err) {
    return exdb_program_open_json(buf, len, name, 0, err);
}

/* The loader as the first pass left it, for a build (again, after one
 * that ran out of memory): nothing counted, no graph. */
static void loader_restart(exdb_program *P, struct exdb_program_pending *pd) {
    loader *L = &pd->L;
    exdb_strmap_init(&L->stacks, &pd->dom);
    exdb_strmap_init(&L->modules, &pd->dom);
    L->last_stack = NULL;
    L->module_bytes = 0;
    L->nnodes = 0;
    L->subgraphs_cap = 0;
    L->reserve_left = P->json_bytes / RESERVE_BYTES + 64;
    L->clean_lo = L->clean_hi = NULL;
    L->dropped = NULL;
    L->ahead = NULL;
}

/* One build of p: 0 (pd is then to be freed), -1 refused (pd->failed,
 * the message kept), -2 out of memory; the shape's fields put back but on
 * success. */
int exdb_program_attempt(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err) {
    memcpy(pd->saved, (char *)p + LOADED_FROM, sizeof pd->saved);
    exdb_error e = {0};
    /* from the IR entry when there is one (1: none) */
    int rc = pd->cold ? exdb_program_cache_ir_open(p, pd, &e) : 1, from_ir = rc == 0;
    if (rc == 1) {
        rc = pd->cold ? exdb_program_cache_cold_pass(p, pd, &e) : 0;
        if (rc == 0) {
            loader_restart(p, pd);
            rc = build(p, pd, &e);
        }
    }
    if (rc == 0 && pd->hit.data) /* the entry's counts are the file's */
        rc = exdb_program_cache_check(p, pd, &e);
    if (rc == 0 && !from_ir) /* the next build of the file from its IR entry */
        exdb_program_cache_ir_put(p, pd);
    if (rc == 0)
        return 0;
    /* what a failed build leaves is not read: the shape stands */
    memcpy((char *)p + LOADED_FROM, pd->saved, sizeof pd->saved);
    *err = e;
    if (exdb_error_oom(&e))
        return -2; /* a later call tries again */
    pd->failed = 1;
    pd->err = e;
    return -1;
}

int exdb_program_build(exdb_program *p, exdb_error *err) {
    exdb_program_wait(p);
    struct exdb_program_pending *pd = p->pending;
    if (!pd)
        return 0;
    if (pd->failed) {
        *err = pd->err;
        return -1;
    }
    int rc = exdb_program_attempt(p, pd, err);
    if (rc == 0) {
        p->pending = NULL;
        exdb_program_pending_free(pd);
    }
    return rc;
}

/* Messages name "FILE: MEMBER" for archives, the file alone otherwise
 * (malloc'd; NULL when memory ran out). */
char *exdb_program_label(const char *path, int kind, const char *member) {
    if (kind == EXDB_CONT_JSON)
        return strdup(path);
    size_t n = strlen(path) + strlen(member) + 3;
    char *label = malloc(n);
    if (label)
        snprintf(label, n, "%s: %s", path, member);
    return label;
}

/* exdb_program_load and exdb_program_open (shape_first). */
static exdb_program *open_path(const char *path, const char *model, int shape_first,
                               exdb_error *err) {
    exdb_container *c;
    if (exdb_container_open(path, &c, err) < 0)
        return NULL;
    const char *member;
    exdb_program *P = shape_first ? exdb_program_cache_open(c, path, model, &member) : NULL;
    if (!P) {
        char *buf;
        size_t len;
        uint64_t hash;
        if (exdb_container_read_program_to_load(c, model, &buf, &len, &member, &hash, err) < 0) {
            exdb_container_close(c);
            return NULL;
        }
        char *label = exdb_program_label(path, (int)exdb_container_kind_of(c), member);
        /* exdb_program_from_json, through snapshot.c: it keeps what run and
         * save need from c and the text (its hash, taken as it was read) */
        P = label ? exdb_snapshot_load(c, model, buf, len, hash, label, shape_first, err) : NULL;
        if (!label) {
            exdb_mem_release(buf);
            exdb_errorf(err, "%s: out of memory", path);
        }
        free(label);
        /* opened shape first: the next open reads the cache */
        if (P && P->pending && !exdb_filemap_changed(P->buf))
            exdb_cache_put(path, model, member, P, P->pending->root);
        if (P && P->pending && model) /* the model asked for: the IR entry's key */
            P->pending->model = exdb_arena_strdup(&P->arena, model);
    }
    if (P) {
        int kind = (int)exdb_container_kind_of(c);
        P->path = exdb_arena_strdup(&P->arena, path);
        P->member = exdb_arena_strdup(&P->arena, member);
        P->container_kind = kind;
        const char *name = model                                ? model
                           : exdb_container_model_count(c) == 1 ? exdb_container_model_name(c, 0)
                                                                : NULL;
        if (name)
            P->model = exdb_arena_strdup(&P->arena, name);
        if (!P->path || !P->member || (name && !P->model)) {
            exdb_errorf(err, "%s: out of memory", path);
            exdb_program_free(P);
            P = NULL;
        }
    }
    exdb_container_close(c);
    return P;
}

exdb_program *exdb_program_load(const char *path, const char *model, exdb_error *err) {
    return open_path(path, model, 0, err);
}

exdb_program *exdb_program_open(const char *path, const char *model, exdb_error *err) {
    return open_path(path, model, 1, err);
}

void exdb_program_free(exdb_program *p) {
    if (!p)
        return;
    exdb_program_wait(p);
    if (p->pending && p->pending->cold)
        p->buf = NULL; /* the cache entry's text, freed with it */
    exdb_program_pending_free(p->pending);
    exdb_program_cache_kept_free(p->cache_kept);
    for (exdb_meta_fail *f = p->meta_defer.fails, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    free(p->meta_defer.memo);
    exdb_arena_destroy(&p->arena);
    exdb_arena_destroy(&p->args_arena);
    exdb_arena_destroy(&p->text_arena);
    exdb_mem_release(p->buf);
    free(p);
}
