/* describe.c - the run in words: events, the backtrace, frames, `info
 * modules`, `print module` and the full dumps tests compare (see
 * describe.h). */
#include "core/unflatten/describe.h"
#include "core/unflatten/phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fx/print.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unflatten.h"
#include "core/unflatten/unodemap.h"

/* print_mod / dump_mod's context */
typedef struct mod_ctx {
    exdb_buf *b;
    const exdb_urun *r;
    uint8_t *seen;   /* the dump: modules already dumped at an earlier path */
    uint32_t *calls; /* the listing: call sites per module id (paths may be many) */
} mod_ctx;

const char *exdb_unflatten_event_kind_name(int kind) {
    static const char *const names[] = {"COPY", "ENTER", "EXIT",     "IVAL",    "ATTRS", "STATE",
                                        "SINK", "DEDUP", "DISPATCH", "REORDER", "DONE"};
    return kind >= 0 && kind <= EXDB_EV_DONE ? names[kind] : "?";
}

static const char *fqn_or_root(const char *f) {
    return f && f[0] ? f : "<root>";
}

void exdb_unflatten_describe(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_urun *r = u->run;
    exdb_buf_puts(b, exdb_unflatten_event_kind_name(ev->kind));
    const exdb_uframe *f =
        ev->frame >= 0 && (uint32_t)ev->frame < r->nframes ? r->frames[ev->frame] : NULL;
    const exdb_node *n =
        ev->flat >= 0 && (uint32_t)ev->flat < r->nnodes ? r->nodes[ev->flat] : NULL;
    switch (ev->kind) {
    case EXDB_EV_COPY:
        exdb_buf_printf(b, " %%%s into %s", n ? n->name : "?", f ? fqn_or_root(f->child_fqn) : "?");
        break;
    case EXDB_EV_ENTER:
        if (f)
            exdb_buf_printf(b, " %s (call %d of %s) at %%%s", f->child_fqn, f->num_calls + 1,
                            f->module_id, n ? n->name : "?");
        break;
    case EXDB_EV_EXIT:
        if (f)
            exdb_buf_printf(b, " %s (%u node%s copied)", fqn_or_root(f->child_fqn), f->ncopied,
                            f->ncopied == 1 ? "" : "s");
        break;
    case EXDB_EV_DEDUP:
        exdb_buf_puts(b, ev->aux == 1   ? " same fqn: call redirected"
                         : ev->aux == 2 ? " other fqn: module aliased"
                                        : " no equivalent earlier call");
        break;
    default:
        break;
    }
    const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
    if (w && w->name && ev->kind != EXDB_EV_DEDUP && ev->kind != EXDB_EV_DISPATCH)
        exdb_buf_printf(b, " %s", fqn_or_root(w->name));
    if (w && ev->kind == EXDB_EV_DISPATCH)
        exdb_buf_printf(b, " %s", w->name && w->name[0] ? w->name : "(call indices elided)");
}

const exdb_uwork *exdb_unflatten_event_work(const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_urun *r = u->run;
    int ph = exdb_phases_of_event(ev->kind);
    if (ph < 0 || ev->item < 0)
        return NULL;
    const exdb_uwork *list = NULL;
    uint32_t n = 0;
    if (ph == r->phase && r->phase_started) {
        list = r->work;
        n = r->nwork;
    } else if (ph < r->phase) {
        list = r->done_work[ph];
        n = r->done_nwork[ph];
    }
    return list && (uint32_t)ev->item < n ? &list[ev->item] : NULL;
}

void exdb_unflatten_backtrace(exdb_buf *b, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    for (uint32_t i = r->depth; i > 0; i--) {
        const exdb_uframe *f = r->stack[i - 1];
        exdb_buf_printf(b, "#%u  %s", r->depth - i, fqn_or_root(f->child_fqn));
        if (f->parent)
            exdb_buf_printf(b, " (call %d, module %s)", f->num_calls + 1, f->module_id);
        exdb_buf_printf(b, " %s, %u node%s copied%s\n", f->type ? f->type : "", f->ncopied,
                        f->ncopied == 1 ? "" : "s", f->sig ? ", preserved signature" : "");
    }
}

static void print_map(exdb_buf *b, const char *title, const exdb_unodemap *m) {
    exdb_buf_printf(b, "%s (%u):\n", title, m->n);
    for (uint32_t i = 0; i < m->n; i++)
        exdb_buf_printf(b, "  %s -> %s\n", m->e[i].key->name, m->e[i].val->name);
}

void exdb_unflatten_print_frame(exdb_buf *b, const exdb_unflatten *u, const exdb_uframe *f) {
    (void)u;
    exdb_buf_printf(b, "frame %u: %s", f->index, fqn_or_root(f->child_fqn));
    exdb_buf_printf(b, " stack [");
    for (uint32_t i = 0; i < f->depth; i++)
        exdb_buf_printf(b, "%s('%s', %s, %d)", i ? ", " : "", f->stack_fqn[i],
                        f->stack_ty[i] ? f->stack_ty[i] : "None", f->stack_calls[i]);
    exdb_buf_printf(b, "]%s\n", f->finalized ? " finalized" : "");
    print_map(b, "node_map", &f->node_map);
    print_map(b, "node_to_placeholder", &f->node_to_placeholder);
}

static void print_mod(void *vctx, const char *fqn, exdb_umodule *m) {
    mod_ctx *c = vctx;
    uint32_t depth = 0;
    for (const char *p = fqn; *p; p++)
        depth += *p == '.';
    if (fqn[0])
        depth++;
    for (uint32_t i = 0; i < depth; i++)
        exdb_buf_puts(c->b, "  ");
    exdb_buf_printf(c->b, "%s  %s",
                    fqn[0] ? strrchr(fqn, '.') ? strrchr(fqn, '.') + 1 : fqn : "<root>",
                    exdb_modtree_class_name(m));
    if (m->type)
        exdb_buf_printf(c->b, "  %s", m->type);
    if (m->kind == EXDB_UMOD_INTERP || m->kind == EXDB_UMOD_DISPATCH) {
        uint32_t calls = m->kind == EXDB_UMOD_DISPATCH        ? m->ncall_modules
                         : c->calls && m->id < c->r->nmodules ? c->calls[m->id]
                                                              : exdb_modtree_call_count(c->r, m);
        exdb_buf_printf(c->b, "  calls=%u", calls);
    }
    if (m->graph)
        exdb_buf_printf(c->b, "  nodes=%u", m->graph->count);
    uint32_t np, nb, nc;
    exdb_modtree_count_state(m, &np, &nb, &nc);
    if (np || nb || nc)
        exdb_buf_printf(c->b, "  params=%u buffers=%u constants=%u", np, nb, nc);
    exdb_buf_putc(c->b, '\n');
}

void exdb_unflatten_print_modules(exdb_buf *b, const exdb_unflatten *u) {
    mod_ctx c = {b, u->run, NULL, exdb_modtree_call_counts(u->run)};
    if (!c.calls || exdb_modtree_named_modules(u->run, print_mod, &c) < 0)
        b->oom = 1;
    free(c.calls);
}

int exdb_unflatten_print_module(exdb_buf *b, const exdb_unflatten *u, const char *fqn,
                                exdb_error *err) {
    exdb_umodule *m = exdb_modtree_get_path(u->run->root, fqn);
    if (!m && (m = exdb_unflatten_dispatch_call(u, fqn)) != NULL && m->graph) {
        exdb_print_graph(b, m->graph);
        return 0;
    }
    if (!m)
        return exdb_errorf(err, "No module \"%s\" in the unflattened module.", fqn);
    if (m->kind == EXDB_UMOD_DISPATCH) {
        /* each call's graph under a header naming it as everywhere else */
        for (uint32_t i = 0; i < m->ncall_modules; i++) {
            if (i)
                exdb_buf_puts(b, "\n\n");
            exdb_buf_printf(b, "# call %u of %u: %s", i + 1, m->ncall_modules, fqn);
            if (i)
                exdb_buf_printf(b, "@%u", i);
            exdb_buf_putc(b, '\n');
            if (m->call_modules[i]->graph)
                exdb_print_graph(b, m->call_modules[i]->graph);
        }
        return 0;
    }
    if (!m->graph)
        return exdb_errorf(err, "Module \"%s\" is a plain torch.nn.Module: it has no graph.", fqn);
    exdb_print_graph(b, m->graph);
    return 0;
}

static void dump_mod(void *vctx, const char *fqn, exdb_umodule *m) {
    mod_ctx *c = vctx;
    if (c->seen && m->id < c->r->nmodules) {
        if (c->seen[m->id]) { /* shared modules multiply the paths: dump each once */
            exdb_buf_printf(c->b, "module '%s' #%u (dumped above)\n", fqn, m->id);
            return;
        }
        c->seen[m->id] = 1;
    }
    exdb_buf_printf(c->b, "module '%s' #%u %s type=%s\n", fqn, m->id, exdb_modtree_class_name(m),
                    m->type ? m->type : "None");
    for (uint32_t i = 0; i < m->attrs->n; i++) {
        const exdb_uattr *a = m->attrs->vals[i];
        if (a)
            exdb_buf_printf(c->b, "  attr %s kind=%d state=%s spec=%s\n", m->attrs->keys[i],
                            a->kind, a->state ? a->state : "", a->spec_text ? a->spec_text : "");
    }
    for (uint32_t i = 0; i < m->ncall_modules; i++)
        exdb_buf_printf(c->b, "  call_module #%u\n", m->call_modules[i]->id);
    if (m->graph) {
        exdb_print_graph(c->b, m->graph);
        exdb_buf_putc(c->b, '\n');
    }
}

void exdb_unflatten_dump(exdb_buf *b, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    exdb_buf_printf(b, "pos %u phase %u idx %u depth %u frames %u modules %u work %u/%u\n", u->pos,
                    r->phase, r->idx, r->depth, r->nframes, r->nmodules, r->work_pos, r->nwork);
    exdb_unflatten_backtrace(b, u);
    for (uint32_t i = 0; i < r->nframes; i++)
        exdb_unflatten_print_frame(b, u, r->frames[i]);
    exdb_buf_puts(b, "seen_nodes:");
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->seen[r->nodes[i]->id])
            exdb_buf_printf(b, " %s", r->nodes[i]->name);
    exdb_buf_putc(b, '\n');
    for (uint32_t p = 0; p < r->nparts; p++) {
        exdb_buf_printf(b, "seen_modules[%s]:", r->parts[p].module_id);
        for (uint32_t e = 0; e < r->parts[p].n; e++) {
            const exdb_uentry *en = &r->parts[p].entries[e];
            exdb_buf_printf(b, " (%s, %s, %d, #%u, %%%s)", en->parent_fqn, en->fqn, en->call_idx,
                            en->module->id, en->parent_call_module->name);
        }
        exdb_buf_putc(b, '\n');
    }
    for (uint32_t i = 0; i < r->nseen_attrs; i++) {
        exdb_buf_printf(b, "seen_attrs[%s]:", r->seen_attrs[i]->key);
        for (uint32_t k = 0; k < r->seen_attrs[i]->n; k++)
            exdb_buf_printf(b, " %s", r->seen_attrs[i]->items[k]);
        exdb_buf_putc(b, '\n');
    }
    for (uint32_t i = 0; i < r->nivals; i++) {
        exdb_buf_printf(b, "ivals[%s]:", r->ivals[i]->key);
        for (uint32_t k = 0; k < r->ivals[i]->n; k++)
            exdb_buf_printf(b, " %s", r->ivals[i]->items[k]);
        exdb_buf_putc(b, '\n');
    }
    mod_ctx c = {b, r, calloc(r->nmodules ? r->nmodules : 1, 1), NULL};
    if (!c.seen || exdb_modtree_named_modules((exdb_urun *)r, dump_mod, &c) < 0)
        b->oom = 1;
    free(c.seen);
}

exdb_node *exdb_unflatten_mapped(const exdb_unodemap *m, const exdb_node *k) {
    return exdb_unodemap_get(m, k);
}
