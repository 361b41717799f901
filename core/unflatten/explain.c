/* explain.c - unflatten explaining itself (see explain.h): the later
 * phases' decisions from what their phase files recorded (sink.h,
 * dedup.h, dispatch.h, modtree.h), the facts of the program behind a
 * kept input (frames, nn_module_stack, mutated buffers), and the errors a
 * run stops at, with the unflatten pre-flight lint's findings about the
 * node they name. */
#include "core/unflatten/explain.h"

#include <ctype.h>
#include <string.h>

#include "core/unflatten/describe.h"
#include "core/unflatten/preflight.h"
#include "core/unflatten/unodemap.h"
#include "core/unflatten/dedup.h"
#include "core/unflatten/dispatch.h"
#include "core/unflatten/sink.h"

static const char *lab(const char *fqn) {
    return fqn && fqn[0] ? fqn : "<root>";
}

static const char *plural(uint32_t n) {
    return n == 1 ? "" : "s";
}

/* The work item of a later-phase event of the current run, or NULL. */
static const exdb_uwork *work_of(const exdb_unflatten *u, const exdb_uevent *ev, int kind) {
    return ev->kind == kind ? exdb_unflatten_event_work(u, ev) : NULL;
}

int32_t exdb_explain_sink(const exdb_unflatten *u, const exdb_uevent *ev,
                          const exdb_sink_rec **recs) {
    const exdb_uwork *w = work_of(u, ev, EXDB_EV_SINK);
    return w ? exdb_sink_decisions(u->run, w, recs) : -1;
}

int exdb_explain_dedup(const exdb_unflatten *u, const exdb_uevent *ev, exdb_dedup_why *why) {
    const exdb_uwork *w = work_of(u, ev, EXDB_EV_DEDUP);
    return w ? exdb_dedup_explain(u->run, w, ev->aux, why) : -1;
}

int exdb_explain_dispatch(const exdb_unflatten *u, const exdb_uevent *ev, exdb_dispatch_info *out) {
    const exdb_uwork *w = work_of(u, ev, EXDB_EV_DISPATCH);
    if (!w)
        return -1;
    exdb_dispatch_describe(w, out);
    return 0;
}

/* "parameter", "buffer", "constant" or "state": what kind of state a
 * state name is in the program's signature. */
static const char *state_kind(const exdb_program *p, const char *state) {
    for (uint32_t i = 0; i < p->ninputs; i++)
        if (p->inputs[i].target && strcmp(p->inputs[i].target, state) == 0)
            return p->inputs[i].kind == EXDB_IN_PARAMETER ? "parameter"
                   : p->inputs[i].kind == EXDB_IN_BUFFER  ? "buffer"
                                                          : "constant";
    return "state";
}

/* The buffer mutation output writing state, or NULL. */
static const exdb_output_spec *mutation_of(const exdb_program *p, const char *state) {
    for (uint32_t i = 0; i < p->noutputs; i++)
        if (p->outputs[i].kind == EXDB_OUT_BUFFER_MUTATION && p->outputs[i].target &&
            strcmp(p->outputs[i].target, state) == 0)
            return &p->outputs[i];
    return NULL;
}

/* ---- the summary and detail of one event */

static void sink_counts(exdb_buf *b, const exdb_sink_rec *recs, int32_t n) {
    uint32_t c[3] = {0, 0, 0};
    for (int32_t i = 0; i < n; i++)
        c[recs[i].outcome]++;
    if (!n) {
        exdb_buf_puts(b, ": no state placeholders");
        return;
    }
    static const char *const what[3] = {"get_attr", "unused erased", "kept as input"};
    const char *sep = ": ";
    for (int i = 0; i < 3; i++)
        if (c[i]) {
            exdb_buf_printf(b, "%s%u %s", sep, c[i], what[i]);
            sep = ", ";
        }
}

void exdb_explain_summary(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_urun *r = u->run;
    const exdb_sink_rec *recs;
    exdb_dedup_why why;
    exdb_dispatch_info di;
    int32_t n;
    if ((n = exdb_explain_sink(u, ev, &recs)) >= 0) {
        sink_counts(b, recs, n);
    } else if (exdb_explain_dedup(u, ev, &why) == 0) {
        if (ev->aux)
            exdb_buf_printf(b, ": equal to %s call_idx=%d", lab(why.other->fqn),
                            why.other->call_idx);
        else if (why.node)
            exdb_buf_printf(b, ": differs from %s call_idx=%d at %%%s", lab(why.other->fqn),
                            why.other->call_idx, why.node->name);
    } else if (exdb_explain_dispatch(u, ev, &di) == 0) {
        if (di.ncalls)
            exdb_buf_printf(b, ": %u calls, one InterpreterModuleDispatcher", di.ncalls);
        else if (di.nelided >= 0)
            exdb_buf_printf(b, ": %d call_module target%s", di.nelided,
                            plural((uint32_t)di.nelided));
    } else if (ev->kind == EXDB_EV_REORDER && r->phase > EXDB_UPH_REORDER) {
        if (!r->nreorder_moves && !r->nreorder_added)
            exdb_buf_puts(b, ": order unchanged");
        if (r->nreorder_moves)
            exdb_buf_printf(b, ": children of %u module%s reordered", r->nreorder_moves,
                            plural(r->nreorder_moves));
        if (r->nreorder_added)
            exdb_buf_printf(b, "%s%u empty module%s added", r->nreorder_moves ? ", " : ": ",
                            r->nreorder_added, plural(r->nreorder_added));
    }
}

/* Why a kept placeholder stayed an input, in a few words. */
static void kept_why(exdb_buf *b, const exdb_sink_rec *x, const char *module) {
    int ol = exdb_sink_owner_len(x->state);
    const char *owner = ol ? x->state : "<root>";
    int olen = ol ? ol : 6;
    switch (x->reason) {
    case EXDB_SINK_SHARED:
        exdb_buf_printf(b, "one tensor under %u names (%s, ...), none inside %s", x->nstates,
                        x->state, lab(module));
        break;
    case EXDB_SINK_OUTER:
        exdb_buf_printf(b, "owned by %.*s, an enclosing module, which passes it in", olen, owner);
        break;
    default:
        exdb_buf_printf(b, "owned by %.*s, outside %s: used from outside its owner", olen, owner,
                        lab(module));
        break;
    }
}

static void sink_detail(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_sink_rec *recs;
    int32_t n = exdb_explain_sink(u, ev, &recs);
    const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
    if (n < 0 || !w)
        return;
    for (int32_t i = 0; i < n; i++) {
        const exdb_sink_rec *x = &recs[i];
        const char *kind = state_kind(u->prog, x->state);
        if (x->outcome == EXDB_SINK_GET_ATTR)
            exdb_buf_printf(b, "  get_attr  %%%s -> %s  (%s %s)\n", x->placeholder, x->attr, kind,
                            x->state);
        else if (x->outcome == EXDB_SINK_ERASED)
            exdb_buf_printf(b, "  erased    %%%s  (%s %s, unused in this graph)\n", x->placeholder,
                            kind, x->state);
        else {
            exdb_buf_printf(b, "  input     %%%s  (%s %s): ", x->placeholder, kind, x->state);
            kept_why(b, x, w->name);
            exdb_buf_putc(b, '\n');
        }
    }
}

static void dedup_detail(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    exdb_dedup_why why;
    if (exdb_explain_dedup(u, ev, &why) < 0)
        return;
    exdb_buf_printf(b, "  compared with %u earlier call%s of the same module object\n",
                    why.nearlier, plural(why.nearlier));
    if (ev->aux == 1)
        exdb_buf_printf(b, "  equal to %s call_idx=%d: call_module %%%s now targets it\n",
                        lab(why.other->fqn), why.other->call_idx,
                        why.entry->parent_call_module->name);
    else if (ev->aux == 2)
        exdb_buf_printf(b,
                        "  equal to %s call_idx=%d (another fqn): set_submodule on %s makes "
                        "this call's attribute that call's module object\n",
                        lab(why.other->fqn), why.other->call_idx, lab(why.entry->parent_fqn));
    else if (why.line >= 0) {
        exdb_buf_printf(b, "  first difference from %s call_idx=%d, line %d (node %%%s):\n",
                        lab(why.other->fqn), why.other->call_idx, why.line,
                        why.node ? why.node->name : "?");
        exdb_buf_printf(b, "    this:   %.*s\n", why.this_line ? why.this_len : 11,
                        why.this_line ? why.this_line : "(no node)");
        exdb_buf_printf(b, "    first:  %.*s\n", why.other_line ? why.other_len : 11,
                        why.other_line ? why.other_line : "(no node)");
    }
}

static void dispatch_detail(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    exdb_dispatch_info di;
    if (exdb_explain_dispatch(u, ev, &di) < 0)
        return;
    for (uint32_t i = 0; i < di.ncalls; i++)
        exdb_buf_printf(b, "  call %u: %s%s%.0d -> module #%u\n", i + 1, di.base,
                        di.idx[i] ? "@" : "", di.idx[i], di.mods[i]->id);
    if (di.ncalls)
        exdb_buf_printf(b, "  %s is now one InterpreterModuleDispatcher over them\n", di.base);
    for (int32_t i = 0; i < di.nelided; i++)
        exdb_buf_printf(b, "  elided    %s\n", di.elided[i]);
}

static void names_line(exdb_buf *b, const char *const *names, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        exdb_buf_printf(b, "%s%s", i ? ", " : "", names[i]);
}

static void reorder_detail(exdb_buf *b, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    if (r->phase <= EXDB_UPH_REORDER)
        return;
    for (uint32_t i = 0; i < r->nreorder_added; i++)
        exdb_buf_printf(b, "  added     %s (in the call graph, never called: an empty module)\n",
                        r->reorder_added[i]);
    for (uint32_t i = 0; i < r->nreorder_moves; i++) {
        const exdb_reorder_move *m = &r->reorder_moves[i];
        exdb_buf_printf(b, "  children of %s: ", lab(m->parent));
        names_line(b, m->after, m->n);
        exdb_buf_puts(b, "  (were ");
        names_line(b, m->before, m->n);
        exdb_buf_puts(b, ")\n");
    }
}

void exdb_explain_detail(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    switch (ev->kind) {
    case EXDB_EV_SINK:
        sink_detail(b, u, ev);
        break;
    case EXDB_EV_DEDUP:
        dedup_detail(b, u, ev);
        break;
    case EXDB_EV_DISPATCH:
        dispatch_detail(b, u, ev);
        break;
    case EXDB_EV_REORDER:
        reorder_detail(b, u);
        break;
    default:
        break;
    }
}

/* ---- the facts behind a kept input */

/* "a -> a.b" of a node's nn_module_stack as unflatten read it. */
static void stack_text(exdb_buf *b, const exdb_node *n) {
    const exdb_meta *m = n->meta;
    if (!m || !m->has_stack || !m->nstack) {
        exdb_buf_puts(b, "no nn_module_stack");
        return;
    }
    exdb_buf_puts(b, "nn_module_stack ");
    for (uint32_t i = 0; i < m->nstack; i++)
        exdb_buf_printf(b, "%s%s%s%.0d", i ? " -> " : "", lab(m->stack[i].path),
                        m->stack[i].call_idx ? "@" : "", m->stack[i].call_idx);
}

/* _fix_nn_module_stacks' warning about node, or NULL. */
static const char *truncation_of(const exdb_urun *r, const char *node) {
    size_t ln = strlen(node);
    for (uint32_t i = 0; i < r->nwarnings; i++) {
        const char *at = strstr(r->warnings[i], "at node ");
        if (at && strncmp(at + 8, node, ln) == 0 && at[8 + ln] == ' ')
            return r->warnings[i];
    }
    return NULL;
}

/* The frame a flat node was copied into, or NULL: the deepest frame whose
 * node_map has it (its callers map it to the call's outputs too). */
static const exdb_uframe *frame_of(const exdb_urun *r, const exdb_node *x) {
    const exdb_uframe *best = NULL;
    for (uint32_t i = 0; i < r->nframes; i++)
        if ((!best || r->frames[i]->depth > best->depth) &&
            exdb_unodemap_get(&r->frames[i]->node_map, x))
            best = r->frames[i];
    return best;
}

/* The frames that took x in as a placeholder, and x's first users with
 * their frames and stacks; returns how many users had a truncated stack. */
static uint32_t use_facts(exdb_buf *b, const exdb_urun *r, const exdb_node *x) {
    exdb_buf_printf(b, "  frames that took %%%s in as an input:", x->name);
    uint32_t nf = 0;
    for (uint32_t i = 0; i < r->nframes; i++)
        if (exdb_unodemap_get(&r->frames[i]->node_to_placeholder, x))
            exdb_buf_printf(b, "%s %s (frame %u)", nf++ ? "," : "", lab(r->frames[i]->child_fqn),
                            r->frames[i]->index);
    exdb_buf_puts(b, nf ? "\n" : " none\n");
    uint32_t truncated = 0;
    for (uint32_t i = 0; i < x->nusers && i < 4; i++) {
        const exdb_node *user = x->users[i];
        const exdb_uframe *f = frame_of(r, user);
        exdb_buf_printf(b, "  used by %%%s in %s (", user->name, f ? lab(f->child_fqn) : "?");
        stack_text(b, user);
        exdb_buf_puts(b, ")\n");
        const char *t = truncation_of(r, user->name);
        if (t) {
            exdb_buf_printf(b, "    _fix_nn_module_stacks: %s\n", t);
            truncated++;
        }
    }
    if (x->nusers > 4)
        exdb_buf_printf(b, "  ... and %u more users\n", x->nusers - 4);
    return truncated;
}

/* Why x stayed an input of `module`: the owner, the frames and nodes that
 * used it, what in the program made it so, and the fix. */
static void kept_facts(exdb_buf *b, const exdb_unflatten *u, const exdb_sink_rec *x,
                       const char *module) {
    const exdb_urun *r = u->run;
    int ol = exdb_sink_owner_len(x->state);
    exdb_buf_printf(b, "%%%s was not sunk into %s: it stays a placeholder there.\n", x->placeholder,
                    lab(module));
    exdb_buf_printf(b, "  %s %s is owned by %.*s", state_kind(u->prog, x->state), x->state,
                    ol ? ol : 6, ol ? x->state : "<root>");
    if (x->nstates > 1)
        exdb_buf_printf(b, " (one tensor under %u state names)", x->nstates);
    exdb_buf_puts(b, "\n");
    const exdb_node *flat = exdb_graph_find(r->flat, x->placeholder);
    uint32_t truncated = flat ? use_facts(b, r, flat) : 0;
    const exdb_output_spec *mut = mutation_of(u->prog, x->state);
    if (mut)
        exdb_buf_printf(b,
                        "  the buffer is mutated: the program returns its new value (%%%s) and "
                        "unflatten writes it back with copy_ in the module of the mutation\n",
                        mut->name ? mut->name : "?");
    exdb_buf_puts(b, "Why: ");
    if (x->reason == EXDB_SINK_SHARED)
        exdb_buf_printf(b,
                        "tied state: the names share one tensor and _sink_params sinks it only "
                        "where a name's owner contains the use; here none does.\nFix: nothing "
                        "if the tying is intended (the enclosing module passes it in); to sink "
                        "it here, use it only through %s's own name.\n",
                        lab(module));
    else if (x->reason == EXDB_SINK_OUTER)
        exdb_buf_printf(b,
                        "a call from the owner: %.*s passes its own %s into %s's forward, so "
                        "%s receives it as an argument and the owner sinks it.\nFix: nothing to "
                        "do; to have %s hold it, register it on %s.\n",
                        ol ? ol : 6, ol ? x->state : "<root>", state_kind(u->prog, x->state),
                        lab(module), lab(module), lab(module), lab(module));
    else if (truncated)
        exdb_buf_printf(b,
                        "a truncated nn_module_stack: its user's stack was cut by "
                        "_fix_nn_module_stacks (the entries did not extend each other), so the "
                        "use landed in %s, outside the owner.\nFix: make each nn_module_stack "
                        "entry's path extend the previous one (call submodules from their "
                        "parent), or re-export so the metadata is intact.\n",
                        lab(module));
    else
        exdb_buf_printf(b,
                        "a use from outside the owner: code of %s reads %s directly, and "
                        "_sink_params only makes a get_attr in the owner or its ancestors; the "
                        "common ancestor sinks it and passes it in.\nFix: compute with %s inside "
                        "%.*s's forward (call the module instead of reading its state), or pass "
                        "the tensor as an argument; expected for state shared on purpose.\n",
                        lab(module), x->state, x->state, ol ? ol : 6, ol ? x->state : "<root>");
}

/* ---- explain K */

/* _call_name(entry.fqn, entry.call_idx): fqn, then fqn@1, fqn@2... */
static void call_name(exdb_buf *b, const exdb_uentry *e) {
    exdb_buf_puts(b, e->fqn);
    if (e->call_idx > 1)
        exdb_buf_printf(b, "@%d", e->call_idx - 1);
}

static void explain_sink(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_sink_rec *recs;
    int32_t n = exdb_explain_sink(u, ev, &recs);
    const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
    exdb_buf_puts(b, "Rule (_sink_params): a placeholder that inputs_to_state maps to a state "
                     "name becomes a get_attr in the module whose path is a prefix of that name "
                     "(call indices \"@N\" ignored), erased when unused; one whose names are all "
                     "outside the module stays an input, passed in by the caller.\n");
    if (n < 0 || !w)
        return;
    exdb_buf_printf(b, "Module %s:\n", lab(w->name));
    sink_detail(b, u, ev);
    for (int32_t i = 0; i < n; i++)
        if (recs[i].outcome == EXDB_SINK_KEPT)
            kept_facts(b, u, &recs[i], w->name);
}

static void explain_dedup(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    exdb_dedup_why why;
    exdb_buf_puts(b, "Rule (_deduplicate_modules): each call of a module object is compared "
                     "with the earlier calls by _check_graph_equivalence (one line per node: op, "
                     "target for call_function and get_attr, arguments by position). An equal "
                     "call with the same fqn is dropped and its call_module retargeted; an equal "
                     "call under another fqn shares the earlier module object.\n");
    if (exdb_explain_dedup(u, ev, &why) < 0)
        return;
    dedup_detail(b, u, ev);
    if (ev->aux == 0 && why.line >= 0) {
        const exdb_uentry *e = why.entry, *o = why.other;
        exdb_buf_printf(b,
                        "Why: the graphs differ at line %d, so call %d of %s keeps its own "
                        "submodule (",
                        why.line, e->call_idx, e->fqn);
        call_name(b, e);
        exdb_buf_puts(b, ").\nFix: if both calls should share one module, make them compute the "
                         "same ops on the same kinds of arguments (a data-dependent branch, a "
                         "shape baked in as a constant or a mutation in one call makes them "
                         "differ); \"diff module ");
        call_name(b, o);
        exdb_buf_putc(b, ' ');
        call_name(b, e);
        exdb_buf_puts(b, "\" shows the two graphs side by side.\n");
    }
}

static void explain_rule(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    switch (ev->kind) {
    case EXDB_EV_COPY:
        exdb_buf_puts(b, "Rule (_ModuleFrame.run_from): a node whose nn_module_stack equals the "
                         "open frames' modules is copied into the innermost frame (copy_node); "
                         "its inputs from outside become placeholders of that frame.\n");
        break;
    case EXDB_EV_ENTER:
        exdb_buf_puts(b, "Rule (_ModuleFrame.run_from): a node whose nn_module_stack extends the "
                         "open frames opens a new _ModuleFrame for the next entry; a key seen "
                         "before gets the next call index (fqn@N).\n");
        break;
    case EXDB_EV_EXIT:
        exdb_buf_puts(b, "Rule (_ModuleFrame.run_from): the next node's nn_module_stack no "
                         "longer contains this frame's module, so finalize_outputs wires the "
                         "values used later into the parent's call_module node.\n");
        break;
    case EXDB_EV_DISPATCH:
        exdb_buf_puts(b, "Rule (_dispatch_modules): a module whose call signature is preserved "
                         "and that is called more than once becomes one "
                         "InterpreterModuleDispatcher over its calls' modules (fqn, fqn@1, ...); "
                         "then call_module targets of dispatched fqns lose their \"@N\".\n");
        dispatch_detail(b, u, ev);
        break;
    case EXDB_EV_REORDER:
        exdb_buf_puts(b, "Rule (_reorder_submodules): submodules are re-registered in "
                         "module_call_graph order (then named_modules order); call-graph fqns "
                         "missing from the tree are added as empty torch.nn.Module.\n");
        reorder_detail(b, u);
        break;
    case EXDB_EV_IVAL:
        exdb_buf_puts(b, "Rule (_IVals.update): a functionalized buffer mutation read inside a "
                         "module call gets its aten.copy_ back in that module's graph.\n");
        break;
    case EXDB_EV_ATTRS:
        exdb_buf_puts(b, "Rule (_copy_graph_attrs): the higher-order op subgraphs a module's "
                         "nodes use are copied onto that module.\n");
        break;
    case EXDB_EV_STATE:
        exdb_buf_puts(b, "Rule (_assign_attr): every parameter, buffer and constant is assigned "
                         "on the module its name's prefix names (created as needed).\n");
        break;
    default:
        exdb_buf_puts(b, "Rule: the root graph passed self.graph.lint(): the unflattened module "
                         "is complete.\n");
        break;
    }
}

void exdb_explain_event(exdb_buf *b, const exdb_unflatten *u, uint32_t k) {
    if (k == 0 || k > u->pos) {
        exdb_buf_printf(b, "Event %u is not in the current run (it is at event %u).\n", k, u->pos);
        return;
    }
    const exdb_uevent *ev = &u->log[k - 1];
    exdb_buf_printf(b, "Event %u: ", k);
    exdb_unflatten_describe(b, u, ev);
    exdb_explain_summary(b, u, ev);
    exdb_buf_putc(b, '\n');
    if (ev->kind == EXDB_EV_SINK)
        explain_sink(b, u, ev);
    else if (ev->kind == EXDB_EV_DEDUP)
        explain_dedup(b, u, ev);
    else
        explain_rule(b, u, ev);
}

/* ---- explain NAME */

/* Whether name is a state placeholder or a state name of the program. */
static int is_state(const exdb_program *p, const char *name) {
    for (uint32_t i = 0; i < p->ninputs; i++)
        if (p->inputs[i].kind != EXDB_IN_USER_INPUT &&
            ((p->inputs[i].name && strcmp(p->inputs[i].name, name) == 0) ||
             (p->inputs[i].target && strcmp(p->inputs[i].target, name) == 0)))
            return 1;
    return 0;
}

int exdb_explain_state(exdb_buf *b, const exdb_unflatten *u, const char *name) {
    if (!is_state(u->prog, name))
        return -1;
    uint32_t found = 0;
    for (uint32_t k = 1; k <= u->pos; k++) {
        const exdb_uevent *ev = &u->log[k - 1];
        const exdb_sink_rec *recs;
        int32_t n = exdb_explain_sink(u, ev, &recs);
        const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
        for (int32_t i = 0; i < n && w; i++) {
            const exdb_sink_rec *x = &recs[i];
            if (strcmp(x->placeholder, name) != 0 && strcmp(x->state, name) != 0)
                continue;
            found++;
            exdb_buf_printf(b, "[%u] SINK %s: ", k, lab(w->name));
            if (x->outcome == EXDB_SINK_GET_ATTR)
                exdb_buf_printf(b, "%%%s became get_attr %s (%s %s is in this module's scope)\n",
                                x->placeholder, x->attr, state_kind(u->prog, x->state), x->state);
            else if (x->outcome == EXDB_SINK_ERASED)
                exdb_buf_printf(b, "%%%s erased: %s is in scope but unused here\n", x->placeholder,
                                x->state);
            else {
                exdb_buf_puts(b, "kept as input\n");
                kept_facts(b, u, x, w->name);
            }
        }
    }
    if (!found)
        exdb_buf_printf(b,
                        "No SINK event up to event %u handled %s (_sink_params runs after "
                        "outlining: \"unflatten run\" or \"continue\" first).\n",
                        u->pos, name);
    return 0;
}

/* ---- explain after an error */

/* What exdb knows about one kind of unflatten error: a piece of its
 * message, torch's rule behind it, the usual cause and the fix. */
typedef struct err_kind {
    const char *match, *rule, *cause, *fix;
} err_kind;

static const err_kind err_kinds[] = {
    {"not enough values to unpack (expected at least 1, got 0)",
     "UnflattenedModule.__init__ runs _fix_nn_module_stacks before outlining; it unpacks the "
     "fqns of every node's nn_module_stack (prev_fqn, *next_fqns = fqns), and torch.export.load "
     "gives a node saved without one an empty stack ({}), which cannot be unpacked.",
     "the node the message names has no nn_module_stack in the saved program (torch's own "
     "message does not say which): a graph pass created it without copying the metadata, or "
     "the program was not made by torch.export.export.",
     "copy the meta of the node it replaces (new.meta = old.meta.copy()) in the pass that made "
     "it, or export the model again with torch.export.export."},
    {"Unable to find nn_module_stack",
     "_ModuleFrame.run_from reads node.meta[\"nn_module_stack\"] of every node after the "
     "placeholders to know which module call it belongs to.",
     "the node has no nn_module_stack: a graph pass created it without copying the metadata, "
     "or the program was not made by torch.export.export.",
     "copy the meta of the node it replaces (new.meta = old.meta.copy()) in the pass that made "
     "it, or export the model again with torch.export.export."},
    {"is not a descendant of parent module",
     "_compute_accessor requires a call's fqn to extend its parent frame's fqn: unflatten "
     "attaches each call under the module that called it.",
     "a call from outside the parent: a module calls a submodule that is not its own "
     "descendant (e.g. self.a's forward calls the model's self.b).",
     "call the submodule from its parent, or register it under the module that calls it "
     "(self.a.b = b)."},
    {"Could not find output node",
     "finalize_outputs of a preserved call looks up each output of its module_call_graph "
     "signature among the nodes of the call.",
     "an output of the preserved module was computed outside the call (inlined into the "
     "caller, or the call was skipped).",
     "do not preserve that module's signature (preserve_module_call_signature), or make the "
     "module compute and return the value itself."},
    {"do not form a stack",
     "_fix_nn_module_stacks keeps the leading entries whose paths extend each other and "
     "drops the rest (a warning in torch).",
     "a truncated nn_module_stack: the node ran in a module that is not a descendant of the "
     "one before it in the stack.",
     "call submodules from their parent so each stack entry's path extends the previous one."},
    {"not start at the root", "every nn_module_stack starts with the root module (path \"\").",
     "the node's stack was written by hand or by a pass that dropped the root entry.",
     "put the root entry (L__self__, path \"\") first in the node's nn_module_stack."},
    {"_deduplicate_modules",
     "_deduplicate_modules removes a later call name that equals an earlier call of the same "
     "module; the _modules dict it pops from is shared by every name of one module object.",
     "one module reachable under two names (self.al = self.a.b) called through both, so the "
     "same call name is popped twice.",
     "call the module through one name only, or give the alias its own module."},
    {"self.graph.lint()",
     "UnflattenedModule.__init__ lints the root graph after dedup and dispatch: every "
     "call_module and get_attr target must resolve on the module tree.",
     "dedup retargeted or removed a call name the root still uses (a call under another "
     "parent), or state used outside its owner resolves nowhere.",
     "call the module from one parent, or use state only inside its owner."},
    {"_IVals",
     "_IVals re-inserts the aten.copy_ of a functionalized buffer mutation in the module "
     "call that read it.",
     "a mutated buffer's intermediate value lacks the metadata _IVals reads.",
     "export the mutation inside the buffer's owner, or export with the mutation kept."},
    {"expected state_attr",
     "_sink_params resolves a sunk placeholder's state name on the module; it must be a "
     "tensor or script object there.",
     "the state name does not resolve on the module the run built (a merged or aliased call "
     "lost it).",
     "use the state only inside its owner, or call the module through one name."},
    {"_dispatch_modules",
     "_dispatch_modules looks up every preserved call of the module_call_graph on the tree.",
     "a preserved module's call was never outlined (its nodes were inlined into the caller).",
     "do not preserve that module's signature, or keep its call in the graph."},
};

/* The node an error message names ("node X"), copied into buf, or NULL. */
static const char *named_node(const char *msg, char *buf, size_t cap) {
    const char *p = strstr(msg, "node ");
    if (!p)
        return NULL;
    p += 5;
    size_t n = 0;
    while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '_') && n + 1 < cap)
        n++;
    if (!n)
        return NULL;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* The pre-flight lint's findings about node (or, without one, its errors):
 * what it found in the program before running unflatten. */
static void lint_facts(exdb_buf *b, const exdb_unflatten *u, const char *node) {
    exdb_lint_report rep;
    exdb_lint_report_init(&rep);
    exdb_lint_unflatten(&rep, u->prog, NULL);
    uint32_t shown = 0;
    for (uint32_t i = 0; i < rep.n && shown < 4; i++) {
        const exdb_finding *f = &rep.items[i];
        if (node ? !f->node || strcmp(f->node, node) != 0 : f->sev != EXDB_SEV_ERROR)
            continue;
        exdb_buf_printf(b, "  lint [%s] %s: %s\n    fix: %s\n", f->check,
                        exdb_severity_name(f->sev), f->what ? f->what : "?", f->fix ? f->fix : "-");
        shown++;
    }
    if (rep.oom)
        b->oom = 1;
    exdb_lint_report_free(&rep);
}

int exdb_explain_error(exdb_buf *b, const exdb_unflatten *u) {
    if (!u->failed)
        return -1;
    const char *msg = u->err.msg;
    const err_kind *k = NULL;
    for (size_t i = 0; i < sizeof err_kinds / sizeof *err_kinds && !k; i++)
        if (strstr(msg, err_kinds[i].match))
            k = &err_kinds[i];
    exdb_buf_printf(b, "The run stopped at an error after event %u:\n  %s\n", u->pos, msg);
    if (k)
        exdb_buf_printf(b, "Rule: %s\n", k->rule);
    exdb_buf_puts(b, "Facts:\n");
    if (u->pos) {
        exdb_buf_printf(b, "  the last event done: [%u] ", u->pos);
        exdb_unflatten_describe(b, u, &u->log[u->pos - 1]);
        exdb_buf_putc(b, '\n');
    }
    const exdb_urun *r = u->run;
    for (uint32_t i = r->depth; i > 0; i--)
        exdb_buf_printf(b, "  open frame #%u: %s\n", r->depth - i, lab(r->stack[i - 1]->child_fqn));
    char nb[EXDB_MAX_NAME_BYTES + 1];
    const char *node = named_node(msg, nb, sizeof nb);
    const exdb_node *n = node ? exdb_graph_find(r->flat, node) : NULL;
    if (n) {
        exdb_buf_printf(b, "  node %%%s: ", n->name);
        stack_text(b, n);
        exdb_buf_putc(b, '\n');
        const char *t = truncation_of(r, n->name);
        if (t)
            exdb_buf_printf(b, "    _fix_nn_module_stacks: %s\n", t);
    }
    lint_facts(b, u, n ? n->name : NULL);
    if (k)
        exdb_buf_printf(b, "Why: %s\nFix: %s\n", k->cause, k->fix);
    else
        exdb_buf_puts(b, "exdb has no explanation of this error yet; the facts above and "
                         "\"lint unflatten\" are what it knows.\n");
    return 0;
}
