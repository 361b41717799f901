/* umodule.c - the `module FQN` view: one module of the unflattened program
 * as its InterpreterModule graph (what print_readable shows for it): its
 * placeholders, get_attr nodes of the state sunk into it, and call_module
 * nodes naming the child they call. A dispatcher
 * (InterpreterModuleDispatcher) draws one cluster per call module. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/unflatten.h"
#include "viz/view.h"

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
        m = exdb_umod_get_path(m, path);
        target = dot + 1;
    }
    return m ? exdb_udict_get(&m->attrs, target) : NULL;
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

/* Draws one module graph into cluster `cl`. Node names are the FX names,
 * made unique with ~N when a dispatcher draws several call graphs. */
static int draw_graph(vz_graph *vg, exdb_umodule *m, const char *fqn, uint32_t cl) {
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
            exdb_umodule *child = exdb_umod_get_path(m, n->target ? n->target : "");
            exdb_buf_reset(&b);
            exdb_buf_printf(&b, "-> %s", path);
            if (child && child->type) {
                const char *ty = strrchr(child->type, '.');
                exdb_buf_printf(&b, " (%s)", ty ? ty + 1 : child->type);
            }
            v.kind_line = vz_str(vg, &b);
            exdb_buf_reset(&b);
            exdb_buf_printf(&b, "child module: %s, %s #%u: render module %s", path,
                            child ? exdb_umod_kind_name(child) : "missing", child ? child->id : 0,
                            path);
            v.kind_tip = vz_str(vg, &b);
        }
        vidx[n->id] = vz_add_node(vg, &v);
    }
    vz_link_graph(vg, g, vidx);
    exdb_buf_free(&b);
    free(vidx);
    return vg->oom ? -1 : 0;
}

int vz_view_module(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                   exdb_error *err) {
    const exdb_unflatten *u = src->done;
    const char *fqn = view->fqn ? view->fqn : "";
    if (!u)
        return exdb_errorf(err, "render: no complete unflatten run");
    exdb_umodule *m = exdb_unflatten_module(u, fqn);
    if (!m)
        return exdb_errorf(err,
                           "render: no module \"%s\" in the unflattened module (\"info modules\" "
                           "lists them)",
                           fqn);
    exdb_buf t;
    exdb_buf_init(&t);
    exdb_buf_printf(&t, "module %s: %s", fqn[0] ? fqn : "<root>", exdb_umod_kind_name(m));
    if (m->type)
        exdb_buf_printf(&t, " (%s)", m->type);
    if (m->kind == EXDB_UMOD_PLAIN ||
        (m->kind != EXDB_UMOD_DISPATCH && (!m->graph || !m->graph->count))) {
        /* No graph of its own: a plain torch.nn.Module (made by setattr of
         * a nested path), or the empty InterpreterModule create_module
         * makes for a container that is never called (a ModuleList
         * iterated in forward). Its submodules, as `tree` draws them. */
        int rc = t.oom ? exdb_errorf(err, "render: out of memory")
                       : vz_view_subtree(vg, u, fqn, exdb_buf_str(&t), err);
        exdb_buf_free(&t);
        return rc;
    }
    if (m->kind == EXDB_UMOD_DISPATCH) {
        exdb_buf_printf(&t, ", %u calls", m->ncall_modules);
        for (uint32_t i = 0; i < m->ncall_modules; i++) {
            exdb_umodule *cm = m->call_modules[i];
            if (!cm->graph)
                continue;
            exdb_buf b;
            exdb_buf_init(&b);
            exdb_buf_printf(&b, "cluster_call%u", i);
            uint32_t k = vz_add_cluster(vg, vz_str(vg, &b), 0);
            exdb_buf_reset(&b);
            /* The calls are named fqn, fqn@1, fqn@2... (_call_name). */
            exdb_buf_puts(&b, fqn);
            if (i)
                exdb_buf_printf(&b, "@%u", i);
            exdb_buf_printf(&b, "  call %u: InterpreterModule #%u, %u nodes", i, cm->id,
                            cm->graph->count);
            exdb_buf tb;
            exdb_buf_init(&tb);
            vz_put_text(&tb, exdb_buf_str(&b), 0, 0);
            tb.oom |= b.oom;
            if (k != VZ_NONE) {
                vg->clusters[k].label = vz_str(vg, &tb);
                vg->clusters[k].fill = "#f7fbff";
            }
            exdb_buf_free(&tb);
            exdb_buf_free(&b);
            if (k == VZ_NONE || draw_graph(vg, cm, fqn, k) < 0) {
                exdb_buf_free(&t);
                return exdb_errorf(err, "render: out of memory");
            }
        }
    } else {
        exdb_buf_printf(&t, ", %u nodes", m->graph->count);
        if (draw_graph(vg, m, fqn, 0) < 0) {
            exdb_buf_free(&t);
            return exdb_errorf(err, "render: out of memory");
        }
    }
    vz_set_title(vg, exdb_buf_str(&t));
    vg->oom |= t.oom;
    exdb_buf_free(&t);
    return vg->oom ? exdb_errorf(err, "render: out of memory") : 0;
}
