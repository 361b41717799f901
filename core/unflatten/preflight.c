/* preflight.c - what torch.export.unflatten would trip on, found by
 * replaying its walk over nn_module_stack on the flat graph before running
 * it: torch/export/unflatten.py's _ModuleFrame.run_from,
 * _fix_nn_module_stacks, finalize_outputs and _sink_params, with their
 * messages. See preflight.h. */
#include "core/unflatten/preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/strmap.h"
#include "core/unflatten/prepass.h"

uint32_t exdb_lint_unflatten_failed(exdb_lint_report *r, const char *msg) {
    exdb_lint_add(r, EXDB_SEV_ERROR, "unflatten.failed", NULL, NULL,
                  exdb_lint_printf(r, "unflatten fails: %s", msg),
                  "see the unflatten.* findings above; \"run\" stops at the failing event");
    return 1;
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
            exdb_lint_add(
                r, EXDB_SEV_NOTE, "unflatten.repeated-call", n->name, f->call_name,
                exdb_lint_printf(
                    r,
                    "call %d of module %s starts here: unflatten outlines it as submodule %s "
                    "(and drops it for %s if both graphs are identical)",
                    e->call_idx + 1, e->path, f->call_name, e->path),
                exdb_lint_printf(r, "nothing to do: this is how unflatten names repeated calls"));
        return 0;
    }
    call_info *ci = *slot;
    if (!ci) /* its first frame ran out of memory making it */
        return -1;
    f->ci = ci;
    if (!ci->reported_reentry) {
        ci->reported_reentry = 1;
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "unflatten.reentry", n->name, f->call_name,
            exdb_lint_printf(
                r,
                "module %s is entered again at node %s after it was left (its call began at "
                "node %s) under the same nn_module_stack key, so unflatten makes a second call "
                "named %s: it replaces the first call's submodule and both call_module nodes "
                "run the second graph",
                exdb_lint_module_label(f->call_name), n->name, ci->first->name,
                exdb_lint_module_label(f->call_name)),
            exdb_lint_printf(
                r,
                "keep the nodes of one call contiguous (move %s next to the other nodes of %s), "
                "or give this call its own key %s@%d",
                n->name, exdb_lint_module_label(f->call_name), e->path, e->call_idx + 1));
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
    const char *s =
        exdb_lint_printf(r,
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
            exdb_lint_add(
                r, EXDB_SEV_ERROR, "unflatten.no-stack", n->name, NULL,
                exdb_lint_printf(r,
                                 "node has no nn_module_stack: torch.export.load gives it an "
                                 "empty one and unflatten raises \"%s\" (_fix_nn_module_stacks)",
                                 EXDB_PREPASS_NO_STACK),
                exdb_lint_printf(
                    r,
                    "give %s the nn_module_stack of the module that computes it (e.g. the "
                    "stack of %s)",
                    n->name, n->prev ? n->prev->name : "its neighbour"));
        } else if (!(m->nstack == 1 && strcmp(m->stack[0].key, EMPTY_STACK_KEY) == 0)) {
            uint32_t keep = stack_keep(m);
            if (keep < m->nstack) {
                const char *what = dropped_list(r, m, keep, n->name);
                exdb_lint_add(
                    r, EXDB_SEV_WARNING, "unflatten.not-a-stack", n->name,
                    call_name_of(&w->a, m->stack[keep - 1].path, m->stack[keep - 1].call_idx), what,
                    exdb_lint_printf(
                        r,
                        "unflatten inlines %s into %s instead of calling %s; if that is not "
                        "wanted, make each stack entry's path extend the previous one",
                        n->name, exdb_lint_module_label(m->stack[keep - 1].path),
                        m->stack[keep].path));
            }
            if (m->stack[0].path[0] != '\0' || m->stack[0].call_idx != 0) {
                exdb_lint_add(
                    r, EXDB_SEV_ERROR, "unflatten.no-root", n->name, NULL,
                    exdb_lint_printf(
                        r,
                        "nn_module_stack starts with module '%s', not the root (path \"\"): "
                        "unflatten stops outlining the root at this node",
                        m->stack[0].path),
                    exdb_lint_printf(
                        r,
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
            exdb_lint_add(
                r, EXDB_SEV_NOTE, "unflatten.preserved-unused", NULL, c->fqn,
                exdb_lint_printf(
                    r, "module %s has a preserved call signature but no node runs inside it",
                    c->fqn),
                exdb_lint_printf(r, "nothing to do unless you expected %s to be called", c->fqn));
            continue;
        }
        for (uint32_t k = 0; k < c->sig->ninputs; k++) {
            const char *nm = c->sig->inputs[k];
            if (!nm)
                continue;
            const exdb_node *in = exdb_graph_find(p->graph, nm);
            if (!in || in->id >= w->nids || w->pos[in->id] >= ci->first_pos)
                exdb_lint_add(
                    r, EXDB_SEV_WARNING, "unflatten.preserved-input", ci->first->name, c->fqn,
                    exdb_lint_printf(
                        r,
                        "input %s of the preserved call %s is %s when the call starts at node "
                        "%s: unflatten passes None for it",
                        nm, c->fqn, in ? "not computed yet" : "not in the graph", ci->first->name),
                    exdb_lint_printf(r,
                                     "compute %s before %s's call, or drop it from the signature",
                                     nm, c->fqn));
        }
        for (uint32_t k = 0; k < c->sig->noutputs; k++) {
            const char *nm = c->sig->outputs[k];
            if (!nm)
                continue;
            const exdb_node *o = exdb_graph_find(p->graph, nm);
            if (!o) {
                exdb_lint_add(
                    r, EXDB_SEV_NOTE, "unflatten.preserved-output", NULL, c->fqn,
                    exdb_lint_printf(
                        r,
                        "output %s of the preserved call %s is not in the graph (removed by "
                        "dce?): unflatten returns None for it",
                        nm, c->fqn),
                    exdb_lint_printf(r, "nothing to do unless a caller reads it"));
                continue;
            }
            int is_input = 0;
            for (uint32_t q = 0; q < c->sig->ninputs; q++)
                is_input |= c->sig->inputs[q] && strcmp(c->sig->inputs[q], nm) == 0;
            uint32_t op = o->id < w->nids ? w->pos[o->id] : 0;
            if (!is_input && (op < ci->first_pos || op > ci->last_pos))
                exdb_lint_add(
                    r, EXDB_SEV_ERROR, "unflatten.preserved-output", o->name, c->fqn,
                    exdb_lint_printf(
                        r,
                        "output %s of the preserved call %s is computed outside it: unflatten "
                        "raises \"Could not find output node %s\"",
                        nm, c->fqn, nm),
                    exdb_lint_printf(
                        r, "give %s the nn_module_stack of %s, or drop it from the signature", nm,
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
        exdb_lint_add(
            w->r, EXDB_SEV_NOTE, "unflatten.aliasing-unknown", ph->name, NULL,
            exdb_lint_printf(
                w->r,
                "%s %s is never used: if it is tied to another name (one tensor, as tied "
                "embeddings are), torch.export.unflatten sinks that tensor under both names; "
                "without the archive's weights config exdb takes every name for its own "
                "tensor",
                exdb_input_kind_name(s->kind), s->target),
            exdb_lint_printf(w->r,
                             "load the .pt2 archive: its weights config says which names share a "
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
            exdb_lint_add(
                r, EXDB_SEV_WARNING, "unflatten.state-outside-owner", user->name, mod,
                exdb_lint_printf(
                    r,
                    "%s %s (owned by %s) is used in module %s, which is not its owner or an "
                    "ancestor of it: unflatten cannot turn it into a get_attr there and passes "
                    "it in as an argument from a common ancestor",
                    exdb_input_kind_name(s->kind), s->target, exdb_lint_module_label(owner),
                    exdb_lint_module_label(mod)),
                exdb_lint_printf(r, "expected for shared or tied state; otherwise use %s inside %s",
                                 s->target, exdb_lint_module_label(owner)));
        }
    }
}

uint32_t exdb_lint_unflatten(exdb_lint_report *r, const exdb_program *p,
                             const exdb_lint_state *state) {
    uint32_t errors0 = r->count[EXDB_SEV_ERROR];
    if (p->ncalls && p->calls[0].fqn[0] != '\0')
        exdb_lint_add(
            r, EXDB_SEV_ERROR, "unflatten.call-graph", NULL, p->calls[0].fqn,
            exdb_lint_printf(r, "expected first fqn to be empty string, got '%s'", p->calls[0].fqn),
            exdb_lint_printf(r, "module_call_graph must start with the root entry (fqn \"\")"));
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
