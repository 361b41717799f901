/* prepass.c - what UnflattenedModule.__init__ does to the flat graph before
 * outlining: deepcopy(export_module.graph), _inplace_buffer_and_input_mutations,
 * _fix_nn_module_stacks and _root_module_type. The program's own graph is
 * never touched: the run works on its copy. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/fx/dce.h"
#include "core/fx/graph_check.h"
#include "core/unflatten/prepass.h"

#include "core/base/strbuf.h"

static exdb_node *map_copied(void *ctx, exdb_node *n) {
    exdb_node **by_id = ctx;
    return by_id[n->id];
}

#define PREFETCH 8

/* deepcopy(graph): Graph.graph_copy through node_copy, so names pass
 * through the new graph's namespace exactly as in FX. */
static int copy_flat(exdb_urun *r, exdb_error *err) {
    const exdb_graph *src = r->prog->graph;
    r->flat = exdb_graph_new(&r->arena);
    /* its name tables and nodes sized once: doubling them left their
     * old tables in the run's arena (8 MB at 141k nodes) */
    if (!r->flat || exdb_graph_reserve(r->flat, src->count, src->base_count.count) < 0)
        return exdb_errorf(err, "out of memory");
    /* old node id -> copy (the program graph stays untouched) */
    exdb_node **by_id =
        exdb_arena_calloc(&r->arena, src->next_id ? src->next_id : 1, sizeof *by_id);
    if (!by_id)
        return exdb_errorf(err, "out of memory");
    /* each copy probes the names table (2^21 slots, 32 MB at 1M nodes) at
     * a random place: the slot of the name PREFETCH nodes ahead is fetched
     * meanwhile (a copy keeps its node's name, whose hash the node has) */
    const exdb_node *ahead = src->head;
    for (int k = 0; k < PREFETCH && ahead; k++)
        ahead = ahead->next;
    for (exdb_node *n = src->head; n; n = n->next) {
        if (ahead) {
            exdb_strmap_prefetch(&r->flat->names, exdb_node_name_hash(ahead));
            ahead = ahead->next;
        }
        exdb_node *c = exdb_graph_node_copy(r->flat, n, map_copied, by_id);
        if (!c)
            return exdb_errorf(err, "out of memory");
        by_id[n->id] = c;
    }
    return 0;
}

/* Replaces every use of old by repl except in repl itself (the
 * delete_user_cb of replace_all_uses_with) and in the output node `out`.
 *
 * Upstream rewrites the output node too, once per mutation: with M
 * mutations that copies the M-long output tuple M times (quadratic: 2,500
 * buffer mutations in the 141k-node synthetic program cost a second). Its
 * rewritten args are thrown away right after the loop (output_node.args is
 * rebuilt from the snapshot taken before any replacement), and moving the
 * output node to the end of its inputs' user lists leaves the other users'
 * order alone; the final exdb_node_set_args puts the output node where FX
 * has it. So skipping it changes nothing observable. */
static int replace_uses_except(exdb_node *old, exdb_node *repl, const exdb_node *out) {
    uint32_t count = old->nusers;
    exdb_node **users = malloc((count ? count : 1) * sizeof *users);
    if (!users)
        return -1;
    memcpy(users, old->users, count * sizeof *users);
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++)
        if (users[i] != repl && users[i] != out)
            rc = exdb_node_replace_input_with(users[i], old, repl);
    free(users);
    return rc;
}

/* _inplace_buffer_and_input_mutations */
/* mutation_name_to_input_name, built once (upstream's dict comprehensions;
 * a search per mutation would be quadratic): buffer_fqn_to_input_name (last
 * input wins), the buffer mutations, then the user-input mutations on top. */
static int mutation_inputs(exdb_urun *r, exdb_strmap *mut_input, exdb_error *err) {
    const exdb_program *p = r->prog;
    exdb_strmap buffer_input;
    exdb_strmap_init(&buffer_input, &r->arena);
    exdb_strmap_init(mut_input, &r->arena);
    for (uint32_t j = 0; j < p->ninputs; j++) {
        const exdb_input_spec *in = &p->inputs[j];
        if (in->kind != EXDB_IN_BUFFER || !in->target)
            continue;
        void **slot = exdb_strmap_put(&buffer_input, in->target, NULL);
        if (!slot)
            return exdb_errorf(err, "out of memory");
        *slot = (void *)in->name;
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < p->noutputs; i++) {
            const exdb_output_spec *o = &p->outputs[i];
            if (!o->name || !o->target)
                continue;
            const char *input_name = NULL;
            if (pass == 0 && o->kind == EXDB_OUT_BUFFER_MUTATION)
                input_name = exdb_strmap_get(&buffer_input, o->target);
            else if (pass == 1 && o->kind == EXDB_OUT_USER_INPUT_MUTATION)
                input_name = o->target;
            else
                continue;
            void **slot = exdb_strmap_put(mut_input, o->name, NULL);
            if (!slot)
                return exdb_errorf(err, "out of memory");
            *slot = (void *)input_name;
        }
    return 0;
}

/* One mutation output m: aten.copy_(input, m) right after it, taking over
 * m's uses except the output's. */
static int insert_copy(exdb_urun *r, const exdb_strmap *mut_input, exdb_arg *m, uint32_t k,
                       exdb_error *err) {
    exdb_graph *g = r->flat;
    if (m->kind != EXDB_ARG_NODE)
        return exdb_errorf(err, "output %u: a mutation output must be a node", k);
    exdb_node *mut = m->u.node;
    const char *input_name = exdb_strmap_get(mut_input, mut->name);
    if (!input_name)
        return exdb_errorf(err, "%s: KeyError: mutation output not in the graph signature",
                           mut->name);
    exdb_node *input = exdb_graph_find(g, input_name);
    if (!input || input->op != EXDB_OP_PLACEHOLDER)
        return exdb_errorf(err, "%s: KeyError: no placeholder \"%s\" for the mutation", mut->name,
                           input_name);
    exdb_arg args;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 2, &args) < 0)
        return exdb_errorf(err, "out of memory");
    args.u.items[0] = exdb_arg_node(input);
    args.u.items[1] = exdb_arg_node(mut);
    exdb_insert_mode mode = g->insert_mode;
    exdb_node *ref = g->insert_ref;
    exdb_graph_insert_after(g, mut);
    exdb_node *cp = exdb_graph_create_node(g, EXDB_OP_CALL_FUNCTION, "torch.ops.aten.copy_.default",
                                           EXDB_T_OP, &args, NULL, NULL);
    g->insert_mode = mode;
    g->insert_ref = ref;
    if (!cp)
        return exdb_errorf(err, "out of memory");
    cp->meta = mut->meta;
    if (replace_uses_except(mut, cp, g->tail) < 0)
        return exdb_errorf(err, "out of memory");
    return 0;
}

static int inplace_mutations(exdb_urun *r, exdb_error *err) {
    const exdb_program *p = r->prog;
    exdb_graph *g = r->flat;
    exdb_node *out = g->tail;
    if (!out || out->op != EXDB_OP_OUTPUT || out->args.n != 1)
        return exdb_errorf(err, "_inplace_buffer_and_input_mutations: expected output node with "
                                "op='output' and 1 arg");
    exdb_arg *ret = &out->args.u.items[0];
    uint32_t nmut = 0;
    for (uint32_t i = 0; i < p->noutputs; i++)
        if (p->outputs[i].kind == EXDB_OUT_BUFFER_MUTATION ||
            p->outputs[i].kind == EXDB_OUT_USER_INPUT_MUTATION)
            nmut++;
    if (!nmut)
        return 0;
    if ((ret->kind != EXDB_ARG_TUPLE && ret->kind != EXDB_ARG_LIST) || ret->n < nmut)
        return exdb_errorf(err,
                           "_inplace_buffer_and_input_mutations: the output holds fewer values "
                           "than the %u mutations of the signature",
                           nmut);
    /* snapshot of return_args: the slice taken before any replacement */
    exdb_arg old = *ret;
    exdb_arg *items = exdb_arena_alloc(&r->arena, (old.n ? old.n : 1) * sizeof *items);
    if (!items)
        return exdb_errorf(err, "out of memory");
    memcpy(items, old.u.items, old.n * sizeof *items);
    exdb_strmap mut_input;
    if (mutation_inputs(r, &mut_input, err) < 0)
        return -1;
    for (uint32_t k = 0; k < nmut; k++)
        if (insert_copy(r, &mut_input, &items[k], k, err) < 0)
            return -1;
    /* output_node.args = ((user_outputs),) from the old return_args */
    exdb_arg res, oargs;
    if (exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, old.n - nmut, &res) < 0 ||
        exdb_arg_seq(&r->arena, EXDB_ARG_TUPLE, 1, &oargs) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = nmut; i < old.n; i++)
        res.u.items[i - nmut] = items[i];
    oargs.u.items[0] = res;
    if (exdb_node_set_args(out, &oargs, NULL) < 0)
        return exdb_errorf(err, "out of memory");
    return 0;
}

/* _is_prefix(candidate, target) on fqn.split("@")[0] of both: a plain
 * string prefix, strictly shorter. Lengths stand for the split, so no
 * copies are made (this runs for every stack entry of every node). */
static int is_prefix(const char *c, size_t lc, const char *t, size_t lt) {
    return lc < lt && strncmp(c, t, lc) == 0;
}

static int add_warning(exdb_urun *r, const char *w) {
    if (r->nwarnings == r->warnings_cap) {
        const char **nw =
            exdb_arena_grow(&r->arena, r->warnings, r->nwarnings, &r->warnings_cap, sizeof *nw, 8);
        if (!nw)
            return -1;
        r->warnings = nw;
    }
    r->warnings[r->nwarnings++] = w;
    return 0;
}

/* _fix_nn_module_stacks: keeps the longest leading run of fqns in which each
 * is a strict string prefix of the next; calls into non-descendants are thus
 * inlined into the caller. torch's loader gives every node but placeholders
 * and the output an nn_module_stack, {} when the program has none, and
 * `prev_fqn, *next_fqns = fqns` cannot unpack an empty one. */
static int fix_stacks(exdb_urun *r, exdb_error *err) {
    for (exdb_node *n = r->flat->head; n; n = n->next) {
        const exdb_meta *m = n->meta;
        if (n->op == EXDB_OP_PLACEHOLDER || n->op == EXDB_OP_OUTPUT)
            continue;
        if (!m || !m->has_stack || m->nstack == 0) {
            r->init_error = exdb_arena_printf(
                &r->arena, "%s (_fix_nn_module_stacks: node %s has no nn_module_stack)",
                EXDB_PREPASS_NO_STACK, n->name);
            return r->init_error ? 0 : exdb_errorf(err, "out of memory");
        }
        const char *prev = m->stack[0].path;
        size_t lprev = strcspn(prev, "@");
        uint32_t valid = 1;
        for (uint32_t i = 1; i < m->nstack; i++) {
            const char *cur = m->stack[i].path;
            size_t lcur = strcspn(cur, "@");
            if (!is_prefix(prev, lprev, cur, lcur))
                break;
            valid++;
            prev = cur;
            lprev = lcur;
        }
        if (valid < m->nstack) {
            exdb_meta *nm = exdb_arena_alloc(&r->arena, sizeof *nm);
            if (!nm)
                return exdb_errorf(err, "out of memory");
            *nm = *m;
            nm->nstack = valid;
            n->meta = nm;
            const char *w = exdb_arena_printf(
                &r->arena,
                "nn_module_stack fqns at node %s do not form a stack! dropping last %u "
                "entries",
                n->name, m->nstack - valid);
            if (!w || add_warning(r, w) < 0)
                return exdb_errorf(err, "out of memory");
        }
    }
    return 0;
}

/* torch.export.unflatten first calls _remove_effect_tokens, which ends
 * with eliminate_dead_code() on the program's graph (and on every HOP
 * subgraph: exdb_attrs_apply), in place on the ExportedProgram, even
 * when there are no tokens: dead nodes never reach the outliner. The run's
 * copy is cleaned the same way (a warning names what went); the loaded
 * program is left as it was (docs/conformance.md). */
static int remove_dead(exdb_urun *r, exdb_error *err) {
    exdb_dce_log log;
    exdb_dce_log_init(&log);
    exdb_dce_opts o = {.impure_random = 1};
    int n = exdb_dce_run(r->flat, &o, &log, err);
    if (n > 0) {
        exdb_buf b;
        exdb_buf_init(&b);
        exdb_buf_printf(&b,
                        "unflatten removes %d dead node%s first (_remove_effect_tokens calls "
                        "eliminate_dead_code):",
                        n, n == 1 ? "" : "s");
        for (uint32_t i = 0; i < log.n && i < 8; i++)
            exdb_buf_printf(&b, " %s", log.items[log.n - 1 - i].node->name);
        if (log.n > 8)
            exdb_buf_printf(&b, " ... (%u more)", log.n - 8);
        const char *w = b.oom ? NULL : exdb_arena_strndup(&r->arena, exdb_buf_str(&b), b.len);
        exdb_buf_free(&b);
        if (!w || add_warning(r, w) < 0)
            n = exdb_errorf(err, "out of memory");
    }
    exdb_dce_log_free(&log);
    return n < 0 ? -1 : 0;
}

/* _root_module_type: the type of the first stack entry whose path is "". */
static const char *root_type(const exdb_graph *g) {
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (!n->meta || !n->meta->has_stack)
            continue;
        for (uint32_t i = 0; i < n->meta->nstack; i++)
            if (!n->meta->stack[i].path[0])
                return n->meta->stack[i].type;
    }
    return NULL;
}

int exdb_prepass(exdb_urun *r, exdb_error *err) {
    const exdb_program *p = r->prog;
    if (!p->graph)
        return exdb_errorf(err, "unflatten: the program has no graph");
    if (p->ncalls == 0 || strcmp(p->calls[0].fqn, "") != 0)
        return exdb_errorf(err, "unflatten: expected first fqn to be empty string, got '%s'",
                           p->ncalls ? p->calls[0].fqn : "(no module_call_graph)");
    for (uint32_t i = 0; i < p->ninputs; i++)
        if (p->inputs[i].kind == EXDB_IN_TOKEN)
            /* TODO(unflatten): _remove_effect_tokens before outlining. */
            return exdb_errorf(err,
                               "unflatten: %s: effect tokens (_remove_effect_tokens) are not "
                               "supported yet",
                               p->inputs[i].name ? p->inputs[i].name : "token");
    for (uint32_t i = 0; i < p->ncalls; i++) {
        if (!p->calls[i].sig)
            continue;
        void **slot = exdb_strmap_put(&r->sigs, p->calls[i].fqn, NULL);
        if (!slot)
            return exdb_errorf(err, "out of memory");
        *slot = p->calls[i].sig;
    }
    if (copy_flat(r, err) < 0 || remove_dead(r, err) < 0 || inplace_mutations(r, err) < 0 ||
        fix_stacks(r, err) < 0)
        return -1;
    r->root_type = root_type(r->flat);
    r->nnodes = r->flat->count;
    r->nodes = exdb_arena_alloc(&r->arena, (r->nnodes ? r->nnodes : 1) * sizeof *r->nodes);
    r->nseen_ids = r->flat->next_id;
    r->seen = exdb_arena_calloc(&r->arena, r->nseen_ids ? r->nseen_ids : 1, 1);
    if (!r->nodes || !r->seen)
        return exdb_errorf(err, "out of memory");
    uint32_t i = 0;
    for (exdb_node *n = r->flat->head; n; n = n->next)
        r->nodes[i++] = n;
    assert(exdb_graph_ok(r->flat));
    return 0;
}
