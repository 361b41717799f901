/* umodule.c - the `module FQN` view: one module of the unflattened program
 * as its InterpreterModule graph (what print_readable shows for it): its
 * placeholders, get_attr nodes of the state sunk into it, and call_module
 * nodes naming the child they call. A dispatcher
 * (InterpreterModuleDispatcher) draws one cluster per call module. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unflatten/unflatten.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/tree.h"
#include "viz/umodule.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/udict.h"
#include "core/unflatten/sink.h"

/* The attribute a get_attr target names inside m ("layer1.0.conv1.weight"
 * in the root: the prefix is a module path, the last atom the attribute). */
static const exdb_uattr *resolve_attr(exdb_umodule *m, const char *target) {
    if (!target)
        return NULL;
    const char *dot = strrchr(target, '.');
    if (dot) {
        char path[512];
        size_t len = (size_t)(dot - target);
        if (len >= sizeof path)
            return NULL;
        memcpy(path, target, len);
        path[len] = '\0';
        m = exdb_modtree_get_path(m, path);
        target = dot + 1;
    }
    return m ? exdb_udict_get(m->attrs, target) : NULL;
}

static const char *attr_kind(const exdb_uattr *a, const char **fill) {
    switch (a->kind) {
    case EXDB_UATTR_PARAM:
        *fill = vz_input_fill(EXDB_IN_PARAMETER);
        return "parameter";
    case EXDB_UATTR_BUFFER:
        *fill = vz_input_fill(EXDB_IN_BUFFER);
        return a->persistent ? "buffer" : "buffer (non-persistent)";
    case EXDB_UATTR_CONST:
        *fill = vz_input_fill(EXDB_IN_TENSOR_CONSTANT);
        return "constant";
    case EXDB_UATTR_SPEC:
        return "TreeSpec";
    default:
        return "subgraph";
    }
}

/* The full path of a child called as `target` from the module at fqn. */
static const char *child_path(vz_graph *vg, const char *fqn, const char *target) {
    exdb_buf b;
    exdb_buf_init(&b);
    if (fqn[0])
        exdb_buf_printf(&b, "%s.", fqn);
    exdb_buf_puts(&b, target ? target : "");
    const char *s = vz_str(vg, &b);
    exdb_buf_free(&b);
    return s;
}

/* At a SINK event: a placeholder it kept as an input drawn orange and
 * bold, its tooltip saying why; a get_attr it made from a placeholder
 * drawn bold, its tooltip naming the placeholder. */
static void sink_mark(vz_graph *vg, const vz_umark *mk, const exdb_node *n, vz_node *v,
                      exdb_buf *b) {
    for (int32_t i = 0; i < mk->nsink; i++) {
        const exdb_sink_rec *x = &mk->sink[i];
        if (n->op == EXDB_OP_PLACEHOLDER && x->outcome == EXDB_SINK_KEPT &&
            strcmp(n->name, x->placeholder) == 0) {
            static const char *const why[] = {
                "its state is owned by an enclosing module, which passes it in",
                "its state is owned by a module outside this one",
                "one tensor under several state names, none inside this module"};
            exdb_buf_reset(b);
            exdb_buf_printf(b, "at this SINK (state %s): %s", x->state,
                            why[x->reason <= EXDB_SINK_SHARED ? x->reason : 0]);
            v->kind_line = "kept as an input";
            v->kind_tip = vz_str(vg, b);
            v->fill = "#fd8d3c";
            v->style = "filled,bold";
            return;
        }
        if (n->op == EXDB_OP_GET_ATTR && x->outcome == EXDB_SINK_GET_ATTR && x->attr && n->target &&
            strcmp(n->target, x->attr) == 0) {
            exdb_buf_reset(b);
            exdb_buf_printf(b, "%s; SINK made it from placeholder %s",
                            v->kind_tip ? v->kind_tip : x->state, x->placeholder);
            v->kind_tip = vz_str(vg, b);
            v->style = "filled,bold";
            return;
        }
    }
}

/* Draws one module graph into cluster `cl`. Node names are the FX names,
 * made unique with ~N when a dispatcher draws several call graphs. mark, a
 * node of the graph drawn bold red (the node a later-phase event changed,
 * for the frame view), or NULL. */
static int draw_graph(vz_graph *vg, exdb_umodule *m, const char *fqn, uint32_t cl,
                      const vz_umark *mk) {
    const exdb_node *mark = mk ? mk->node : NULL;
    const exdb_graph *g = m->graph;
    uint32_t *vidx = malloc(((size_t)g->next_id + 1) * sizeof *vidx);
    if (!vidx)
        return -1;
    for (uint32_t i = 0; i <= g->next_id; i++)
        vidx[i] = VZ_NONE;
    exdb_buf b;
    exdb_buf_init(&b);
    uint32_t at = 0;
    for (const exdb_node *n = g->head; n; n = n->next, at++) {
        vz_node v = {.name = vz_unique_name(vg, n->name), .order = at, .fx = n, .cluster = cl};
        v.fill = vz_op_fill(n);
        if (n->op == EXDB_OP_PLACEHOLDER) {
            v.shape = "ellipse";
            v.style = "filled";
            v.fill = vz_input_fill(EXDB_IN_USER_INPUT);
            v.dup_ok = 1;
        } else if (n->op == EXDB_OP_OUTPUT) {
            v.shape = "invhouse";
            v.style = "filled";
        } else if (n->op == EXDB_OP_GET_ATTR) {
            const exdb_uattr *a = resolve_attr(m, n->target);
            v.dup_ok = 1;
            if (a) {
                v.kind_line = attr_kind(a, &v.fill);
                v.kind_tip = a->state;
            }
        } else if (n->op == EXDB_OP_CALL_MODULE) {
            /* The child it calls, after dedup's retargeting. */
            const char *path = child_path(vg, fqn, n->target);
            exdb_umodule *child = exdb_modtree_get_path(m, n->target ? n->target : "");
            exdb_buf_reset(&b);
            exdb_buf_printf(&b, "-> %s", path);
            if (child && child->type) {
                const char *ty = strrchr(child->type, '.');
                exdb_buf_printf(&b, " (%s)", ty ? ty + 1 : child->type);
            }
            v.kind_line = vz_str(vg, &b);
            exdb_buf_reset(&b);
            exdb_buf_printf(&b, "child module: %s, %s #%u: render module %s", path,
                            child ? exdb_modtree_kind_name(child) : "missing",
                            child ? child->id : 0, path);
            v.kind_tip = vz_str(vg, &b);
        }
        if (n == mark) {
            v.fill = "#fb6a4a";
            v.style = v.shape ? "filled,bold" : "rounded,filled,bold";
        }
        if (mk && mk->nsink > 0)
            sink_mark(vg, mk, n, &v, &b);
        vidx[n->id] = vz_add_node(vg, &v);
    }
    vz_link_graph(vg, g, vidx);
    exdb_buf_free(&b);
    free(vidx);
    return vg->oom ? -1 : 0;
}

/* Appends "fqn@K  call K+1 of N": a dispatcher's call by the name
 * `render module`, `print module` and `break module` take and the 1-based
 * number bt and print module show (call 1 is fqn, call K+1 is fqn@K). */
static void call_title(exdb_buf *b, const char *fqn, uint32_t i, uint32_t n) {
    exdb_buf_puts(b, fqn);
    if (i)
        exdb_buf_printf(b, "@%u", i);
    exdb_buf_printf(b, "  call %u of %u", i + 1, n);
}

/* A dispatcher (InterpreterModuleDispatcher): one cluster per call module,
 * each named and labelled with the call's name. */
static int draw_dispatcher(vz_graph *vg, exdb_umodule *m, const char *fqn, const vz_umark *mk) {
    exdb_buf b, tb;
    exdb_buf_init(&b);
    exdb_buf_init(&tb);
    int rc = 0;
    for (uint32_t i = 0; i < m->ncall_modules && rc == 0; i++) {
        exdb_umodule *cm = m->call_modules[i];
        if (!cm->graph)
            continue;
        exdb_buf_reset(&b);
        exdb_buf_printf(&b, "cluster_%s", fqn);
        if (i)
            exdb_buf_printf(&b, "@%u", i);
        uint32_t k = vz_add_cluster(vg, vz_str(vg, &b), 0);
        exdb_buf_reset(&b);
        call_title(&b, fqn, i, m->ncall_modules);
        exdb_buf_printf(&b, ": InterpreterModule #%u, %u node%s", cm->id, cm->graph->count,
                        cm->graph->count == 1 ? "" : "s");
        for (uint32_t j = 0; j < i; j++)
            if (m->call_modules[j] == cm) {
                /* _deduplicate_modules redirected this call to call j's module */
                exdb_buf_printf(&b, " (call %u's module: deduplicated)", j + 1);
                break;
            }
        exdb_buf_reset(&tb);
        vz_put_text(&tb, exdb_buf_str(&b), 0, 0);
        tb.oom |= b.oom;
        if (k != VZ_NONE) {
            vg->clusters[k].label = vz_str(vg, &tb);
            vg->clusters[k].fill = "#f7fbff";
            exdb_buf_puts(&tb, "\\nrender module ");
            vz_put_text(&tb, vg->clusters[k].name + 8, 0, 0);
            exdb_buf_puts(&tb, " draws this call alone");
            vg->clusters[k].tooltip = vz_str(vg, &tb);
        }
        rc = k == VZ_NONE ? -1 : draw_graph(vg, cm, fqn, k, mk);
    }
    exdb_buf_free(&b);
    exdb_buf_free(&tb);
    return rc;
}

/* One call of a dispatcher, "n@1" (call 2 of n): its graph, titled with
 * the call it is; its call_module nodes name n's children. */
static int draw_call(vz_graph *vg, const exdb_unflatten *u, const char *fqn, exdb_umodule *call,
                     const vz_umark *mk, exdb_buf *t) {
    const char *at = strrchr(fqn, '@');
    exdb_buf base;
    exdb_buf_init(&base);
    exdb_buf_put(&base, fqn, (size_t)(at - fqn));
    exdb_umodule *d = exdb_unflatten_module(u, exdb_buf_str(&base));
    uint32_t k = (uint32_t)strtoul(at + 1, NULL, 10);
    exdb_buf_printf(t, ", call %u of %u of the dispatcher %s, %u node%s", k + 1,
                    d ? d->ncall_modules : 0, exdb_buf_str(&base), call->graph->count,
                    call->graph->count == 1 ? "" : "s");
    int rc = draw_graph(vg, call, exdb_buf_str(&base), 0, mk);
    exdb_buf_free(&base);
    return rc;
}

/* The error for a path with no module; "n@5" of a dispatcher n with
 * fewer calls names the calls there are. */
static int no_module(const exdb_unflatten *u, const char *fqn, exdb_error *err) {
    const char *at = strrchr(fqn, '@');
    exdb_umodule *d = NULL;
    if (at) {
        exdb_buf base;
        exdb_buf_init(&base);
        exdb_buf_put(&base, fqn, (size_t)(at - fqn));
        d = exdb_unflatten_module(u, exdb_buf_str(&base));
        exdb_buf_free(&base);
    }
    if (d && d->kind == EXDB_UMOD_DISPATCH && d->ncall_modules)
        return exdb_errorf(err,
                           "render: no call \"%s\": the dispatcher %.*s has %u call%s, %.*s to "
                           "%.*s@%u",
                           fqn, (int)(at - fqn), fqn, d->ncall_modules,
                           d->ncall_modules == 1 ? "" : "s", (int)(at - fqn), fqn, (int)(at - fqn),
                           fqn, d->ncall_modules - 1);
    return exdb_errorf(err,
                       "render: no module \"%s\" in the unflattened module (\"info modules\" "
                       "lists them)",
                       fqn);
}

int vz_view_umodule(vz_graph *vg, const exdb_unflatten *u, const char *fqn, const vz_umark *mk,
                    exdb_error *err) {
    exdb_umodule *m = exdb_unflatten_module(u, fqn);
    exdb_umodule *call = m ? NULL : exdb_unflatten_dispatch_call(u, fqn);
    if (!m && !call)
        return no_module(u, fqn, err);
    if (call && !call->graph)
        return exdb_errorf(err, "render: the call %s has no graph", fqn);
    exdb_buf t;
    exdb_buf_init(&t);
    exdb_buf_printf(&t, "module %s: %s", fqn[0] ? fqn : "<root>",
                    exdb_modtree_kind_name(m ? m : call));
    if ((m ? m : call)->type)
        exdb_buf_printf(&t, " (%s)", (m ? m : call)->type);
    int rc;
    if (call && !m) {
        rc = draw_call(vg, u, fqn, call, mk, &t);
    } else if (m->kind == EXDB_UMOD_PLAIN ||
               (m->kind != EXDB_UMOD_DISPATCH && (!m->graph || !m->graph->count))) {
        /* No graph of its own: a plain torch.nn.Module (made by setattr of
         * a nested path), or the empty InterpreterModule create_module
         * makes for a container that is never called (a ModuleList
         * iterated in forward). Its submodules, as `tree` draws them. */
        rc = t.oom ? exdb_errorf(err, "render: out of memory")
                   : vz_view_subtree(vg, u, fqn, exdb_buf_str(&t), err);
        exdb_buf_free(&t);
        return rc;
    } else if (m->kind == EXDB_UMOD_DISPATCH) {
        exdb_buf_printf(&t, ", %u call%s (%s", m->ncall_modules, m->ncall_modules == 1 ? "" : "s",
                        fqn);
        for (uint32_t i = 1; i < m->ncall_modules && i < 4; i++)
            exdb_buf_printf(&t, ", %s@%u", fqn, i);
        exdb_buf_puts(&t, m->ncall_modules > 4 ? ", ...)" : ")");
        rc = draw_dispatcher(vg, m, fqn, mk);
    } else {
        exdb_buf_printf(&t, ", %u node%s", m->graph->count, m->graph->count == 1 ? "" : "s");
        rc = draw_graph(vg, m, fqn, 0, mk);
    }
    if (rc == 0)
        vz_set_title(vg, exdb_buf_str(&t));
    vg->oom |= t.oom;
    exdb_buf_free(&t);
    return rc < 0 || vg->oom ? exdb_errorf(err, "render: out of memory") : 0;
}

int vz_view_module(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                   exdb_error *err) {
    if (!src->done)
        return exdb_errorf(err, "render: no complete unflatten run");
    return vz_view_umodule(vg, src->done, view->fqn ? view->fqn : "", NULL, err);
}
