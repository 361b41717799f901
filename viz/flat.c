/* flat.c - the `flat` view: the exported graph node for node, optionally
 * clustered by nn_module_stack (`--by-module`), plus the labels, tooltips
 * and colours every program view shares. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/program.h"
#include "core/fx/print.h"
#include "core/export/describe.h"
#include "viz/view.h"
#include "viz/flat.h"
#include "viz/hide.h"

/* Placeholder fill colours by signature kind (ColorBrewer pastels). */
const char *vz_input_fill(exdb_input_kind k) {
    switch (k) {
    case EXDB_IN_USER_INPUT:
        return "#9ecae1";
    case EXDB_IN_PARAMETER:
        return "#fdd49e";
    case EXDB_IN_BUFFER:
        return "#c7e9c0";
    case EXDB_IN_TENSOR_CONSTANT:
        return "#dadaeb";
    case EXDB_IN_CUSTOM_OBJ:
        return "#e0e0e0";
    case EXDB_IN_TOKEN:
        return "#fcbba1";
    case EXDB_IN_CONSTANT_INPUT:
        return "#f0f0f0";
    }
    return "#f0f0f0";
}

int vz_index_inputs(exdb_strmap *inputs, const exdb_program *p) {
    int rc = 0;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        void **slot = p->inputs[i].name ? exdb_strmap_put(inputs, p->inputs[i].name, NULL) : NULL;
        if (slot)
            *slot = (void *)(uintptr_t)(i + 1);
        else if (p->inputs[i].name)
            rc = -1;
    }
    return rc;
}

#define MUTATION_COLOR "#cb181d"
/* flag in flat --by-module's node -> cluster array: unused state moved to
 * its owner's cluster */
#define UNUSED_STATE   0x80000000u
#define LINE_MAX_CHARS 64

void exdb_viz_short_target(exdb_buf *b, const exdb_node *n) {
    const char *t = n->target ? n->target : "";
    if (n->tkind == EXDB_T_OP || n->tkind == EXDB_T_HOP) {
        if (strncmp(t, "torch.ops.", 10) == 0)
            t += 10;
        const char *last = strrchr(t, '.');
        const char *first = strchr(t, '.');
        /* ns.op.overload -> ns.op; a HOP (higher_order.name) stays whole. */
        if (n->tkind == EXDB_T_OP && last && first && last != first) {
            exdb_buf_put(b, t, (size_t)(last - t));
            return;
        }
    }
    exdb_buf_puts(b, t);
}

const exdb_stack_entry *vz_leaf_entry(const exdb_node *n) {
    if (!n->meta)
        return NULL;
    for (uint32_t i = n->meta->nstack; i-- > 0;)
        if (n->meta->stack[i].path && n->meta->stack[i].path[0])
            return &n->meta->stack[i];
    return NULL;
}

static int is_getitem(const exdb_node *n) {
    return n->op == EXDB_OP_CALL_FUNCTION && n->target &&
           strcmp(n->target, "operator.getitem") == 0;
}

/* The label of an FX node: its name, the short target, the value. tmp is
 * scratch space, reused from node to node. */
static void fx_label(exdb_buf *b, const exdb_node *n, const char *kind_line, exdb_buf *tmp) {
    vz_put_text(b, n->name, LINE_MAX_CHARS, 0);
    if (kind_line) {
        vz_put_nl(b);
        vz_put_text(b, kind_line, LINE_MAX_CHARS, 0);
    }
    if ((n->op == EXDB_OP_CALL_FUNCTION && !is_getitem(n)) || n->op == EXDB_OP_CALL_METHOD ||
        n->op == EXDB_OP_CALL_MODULE || n->op == EXDB_OP_GET_ATTR) {
        exdb_buf_reset(tmp);
        if (n->op == EXDB_OP_CALL_FUNCTION) {
            exdb_viz_short_target(tmp, n);
        } else {
            exdb_buf_puts(tmp, exdb_op_name((exdb_op)n->op));
            exdb_buf_putc(tmp, ' ');
            exdb_buf_puts(tmp, n->target ? n->target : "");
        }
        vz_put_nl(b);
        vz_put_text(b, exdb_buf_str(tmp), LINE_MAX_CHARS, 0);
    }
    if (n->meta && n->meta->val) {
        exdb_buf_reset(tmp);
        exdb_format_val(tmp, n->meta->val);
        if (tmp->len) {
            vz_put_nl(b);
            vz_put_text(b, exdb_buf_str(tmp), LINE_MAX_CHARS, 0);
        }
    }
    b->oom |= tmp->oom; /* cut-short pieces make a cut-short label */
}

void vz_fx_label(exdb_buf *b, const exdb_node *n, const char *kind_line) {
    exdb_buf t;
    exdb_buf_init(&t);
    fx_label(b, n, kind_line, &t);
    exdb_buf_free(&t);
}

/* One frame of a Python traceback: the "File ..., line N, in f" line and
 * the source line under it. */
typedef struct tb_frame {
    const char *file, *code;
    size_t file_len, code_len;
    int in_torch; /* a file of torch itself (.../torch/...), not the user's */
} tb_frame;

/* The next non-blank line at *st, trimmed, advancing *st past it. */
static const char *next_line(const char **st, size_t *len) {
    const char *s = *st;
    while (*s == ' ' || *s == '\n')
        s++;
    const char *e = strchr(s, '\n');
    *len = e ? (size_t)(e - s) : strlen(s);
    *st = s + *len;
    while (*len && s[*len - 1] == ' ')
        (*len)--;
    return s;
}

/* Whether s[0..len) holds "/torch/" (a slash at a time: a tooltip per node). */
static int has_torch_dir(const char *s, size_t len) {
    const char *end = s + len;
    for (const char *t = s; (t = memchr(t, '/', (size_t)(end - t))) && t + 7 <= end; t++)
        if (memcmp(t, "/torch/", 7) == 0)
            return 1;
    return 0;
}

/* The innermost frame of a stack trace and the innermost one outside
 * torch's own files (the user's line: torch.export records the traceback
 * outermost first, so both are among the last). */
static void last_frames(const char *st, tb_frame *inner, tb_frame *user) {
    memset(inner, 0, sizeof *inner);
    memset(user, 0, sizeof *user);
    while (*st) {
        size_t len;
        const char *l = next_line(&st, &len);
        if (!len)
            break;
        if (len < 5 || strncmp(l, "File ", 5) != 0)
            continue;
        tb_frame f = {.file = l, .file_len = len};
        const char *save = st;
        size_t clen;
        const char *c = next_line(&st, &clen);
        if (clen && !(clen >= 5 && strncmp(c, "File ", 5) == 0)) {
            f.code = c;
            f.code_len = clen;
        } else {
            st = save;
        }
        f.in_torch = has_torch_dir(l, len);
        *inner = f;
        if (!f.in_torch)
            *user = f;
    }
}

/* (put, not printf: a tooltip per node of the flat view) */
static void put_frame(exdb_buf *b, const char *title, const tb_frame *f) {
    exdb_buf_putc(b, '\n');
    exdb_buf_puts(b, title);
    exdb_buf_puts(b, ":\n  ");
    exdb_buf_put(b, f->file, f->file_len > 300 ? 300 : f->file_len);
    if (f->code) {
        exdb_buf_puts(b, "\n    ");
        exdb_buf_put(b, f->code, f->code_len > 200 ? 200 : f->code_len);
    }
}

/* The value a node produces: "f32[8, 32] torch.float32", as print node. */
static void put_value(exdb_buf *b, const exdb_node *n, exdb_buf *tmp) {
    if (!n->meta || !n->meta->val)
        return;
    exdb_buf_reset(tmp);
    exdb_format_val(tmp, n->meta->val);
    if (!tmp->len)
        return;
    exdb_buf_printf(b, "\nvalue: %s", exdb_buf_str(tmp));
    if (n->meta->val->kind == EXDB_VAL_TENSOR)
        exdb_buf_printf(b, " %s", exdb_dtype_name(n->meta->val->u.t->dtype));
}

/* The tooltip of an FX node (see fx_label for tmp): the node as FX prints
 * it, its value, its module stack (outermost first, as print node shows
 * it) and where in the source it was made: the user's line and, when that
 * is not the innermost frame, the innermost (a torch.nn module's forward). */
static void fx_tooltip(exdb_buf *b, const exdb_node *n, exdb_buf *tmp) {
    exdb_buf out;
    exdb_buf_init(&out);
    exdb_format_node(&out, n);
    exdb_print_arg_names(&out, n, "\nnamed: ");
    put_value(&out, n, tmp);
    const exdb_meta *m = n->meta;
    int header = 0;
    for (uint32_t i = 0; m && i < m->nstack; i++) {
        const exdb_stack_entry *e = &m->stack[i];
        if (!e->path || !e->path[0])
            continue;
        if (!header++)
            exdb_buf_puts(&out, "\nmodule stack:");
        exdb_buf_printf(&out, "\n  %s", e->path);
        if (e->call_idx)
            exdb_buf_printf(&out, "@%d", e->call_idx);
        exdb_buf_printf(&out, "  %s", e->type ? e->type : "?");
    }
    if (m && exdb_meta_stack_trace(m) && exdb_meta_stack_trace(m)[0]) {
        tb_frame inner, user;
        last_frames(exdb_meta_stack_trace(m), &inner, &user);
        if (user.file)
            put_frame(&out, "source", &user);
        if (inner.file && inner.file != user.file)
            put_frame(&out, user.file ? "innermost frame" : "source (innermost frame)", &inner);
    }
    vz_put_text(b, exdb_buf_str(&out), 1500, 0);
    b->oom |= out.oom | tmp->oom;
    exdb_buf_free(&out);
}

void vz_fx_source(exdb_buf *b, const exdb_node *n) {
    const exdb_meta *m = n->meta;
    if (!m || !exdb_meta_stack_trace(m) || !exdb_meta_stack_trace(m)[0])
        return;
    tb_frame inner, user;
    last_frames(exdb_meta_stack_trace(m), &inner, &user);
    if (user.file)
        put_frame(b, "source", &user);
    if (inner.file && inner.file != user.file)
        put_frame(b, user.file ? "innermost frame" : "source (innermost frame)", &inner);
}

void vz_fx_tooltip(exdb_buf *b, const exdb_node *n) {
    exdb_buf t;
    exdb_buf_init(&t);
    fx_tooltip(b, n, &t);
    exdb_buf_free(&t);
}

void vz_node_label_to(exdb_buf *b, const vz_node *n, exdb_buf *tmp) {
    if (n->label)
        exdb_buf_puts(b, n->label);
    else if (n->fx)
        fx_label(b, n->fx, n->kind_line, tmp);
}

void vz_node_tooltip_to(exdb_buf *b, const vz_node *n, exdb_buf *tmp) {
    if (n->tooltip) {
        exdb_buf_puts(b, n->tooltip);
    } else if (n->fx) {
        fx_tooltip(b, n->fx, tmp);
        if (n->kind_line) {
            vz_put_nl(b);
            vz_put_text(b, n->kind_line, 0, 0);
            if (n->kind_tip) {
                exdb_buf_putc(b, ' ');
                vz_put_text(b, n->kind_tip, 0, 0);
            }
        }
    }
}

/* ---- the view */

typedef struct flat_ctx {
    vz_graph *vg;
    const exdb_program *prog;
    uint32_t *vidx;    /* FX node id -> view node */
    uint32_t *pos;     /* FX node id -> position in the graph */
    exdb_strmap stack; /* raw nn_module_stack text -> cluster + 1 */
    exdb_strmap calls; /* "parent\x1fkey" -> cluster + 1 */
    exdb_strmap paths; /* module path -> cluster + 1 of its first call */
    exdb_strmap outs;  /* output value name -> edge label for its output specs */
    exdb_buf tmp;
    uint8_t *hidden; /* FX node id -> VZ_HIDDEN_*, or NULL */
    uint32_t nhidden[VZ_HIDDEN_KINDS];
    exdb_strmap inputs;   /* placeholder name -> input spec + 1 */
    uint32_t *cl;         /* --by-module: FX node id -> cluster (| UNUSED_STATE) */
    uint32_t *anchor;     /* --by-module: cluster -> its first non-placeholder node */
    const exdb_node *cur; /* the user whose inputs are being linked */
    int by_module;
    int state_in_cluster; /* cur has a parameter/buffer input drawn in its cluster */
} flat_ctx;

static const char *const depth_fill[] = {"#f7fbff", "#eaf2fa", "#dde9f5", "#d0e1f0", "#c4d8eb"};

/* The cluster of one module call under parent, created on first sight.
 * A call is its stack key (which carries @N for repeated calls). */
static uint32_t call_cluster(flat_ctx *c, uint32_t parent, const exdb_stack_entry *e,
                             uint32_t depth) {
    exdb_buf_reset(&c->tmp);
    exdb_buf_printf(&c->tmp, "%u\x1f%s", parent, e->key ? e->key : e->path);
    void *v = exdb_strmap_get(&c->calls, exdb_buf_str(&c->tmp));
    if (v)
        return (uint32_t)((uintptr_t)v - 1);
    vz_graph *vg = c->vg;
    const char *key = vz_str(vg, &c->tmp);
    exdb_buf_reset(&c->tmp);
    exdb_buf_puts(&c->tmp, "cluster_");
    exdb_buf_puts(&c->tmp, e->path);
    if (e->call_idx)
        exdb_buf_printf(&c->tmp, "@%d", e->call_idx);
    uint32_t k = vz_add_cluster(vg, vz_str(vg, &c->tmp), parent);
    if (k == VZ_NONE)
        return 0;
    const char *type = e->type ? e->type : "";
    const char *dot = strrchr(type, '.');
    exdb_buf_reset(&c->tmp);
    vz_put_text(&c->tmp, e->path, 0, 0);
    if (e->call_idx)
        exdb_buf_printf(&c->tmp, "@%d", e->call_idx);
    exdb_buf_puts(&c->tmp, "  ");
    vz_put_text(&c->tmp, dot ? dot + 1 : type, 0, 0);
    vg->clusters[k].label = vz_str(vg, &c->tmp);
    exdb_buf_reset(&c->tmp);
    vz_put_text(&c->tmp, e->key, 0, 0);
    exdb_buf_puts(&c->tmp, ": ");
    vz_put_text(&c->tmp, type, 0, 0);
    vg->clusters[k].tooltip = vz_str(vg, &c->tmp);
    vg->clusters[k].fill = depth_fill[depth % (sizeof depth_fill / sizeof *depth_fill)];
    void **slot = exdb_strmap_put(&c->calls, key, NULL);
    if (slot)
        *slot = (void *)(uintptr_t)(k + 1);
    else
        vg->oom = 1;
    slot = exdb_strmap_put(&c->paths, e->path, NULL);
    if (slot && !*slot)
        *slot = (void *)(uintptr_t)(k + 1);
    else if (!slot)
        vg->oom = 1;
    return k;
}

/* The innermost cluster of n's module stack (0: the root graph). Nodes of
 * one call share the raw stack text, so most lookups are one hash. */
static uint32_t node_cluster(flat_ctx *c, const exdb_node *n) {
    if (!n->meta || !n->meta->nstack || !n->meta->nn_module_stack)
        return 0;
    void **slot = exdb_strmap_put(&c->stack, n->meta->nn_module_stack, NULL);
    if (slot && *slot)
        return (uint32_t)((uintptr_t)*slot - 1);
    uint32_t parent = 0, depth = 0;
    for (uint32_t i = 0; i < n->meta->nstack; i++) {
        const exdb_stack_entry *e = &n->meta->stack[i];
        if (!e->path || !e->path[0])
            continue; /* the root module: the whole graph */
        parent = call_cluster(c, parent, e, depth++);
    }
    if (slot)
        *slot = (void *)(uintptr_t)(parent + 1);
    return parent;
}

/* Sets state_in_cluster when u is a placeholder drawn in cur's cluster. */
static void find_state_input(void *ctx, exdb_node *u) {
    flat_ctx *c = ctx;
    uint32_t a = c->vidx[u->id], b = c->vidx[c->cur->id];
    if (u->op == EXDB_OP_PLACEHOLDER && a != VZ_NONE &&
        c->vg->nodes[a].cluster == c->vg->nodes[b].cluster)
        c->state_in_cluster = 1;
}

/* The "[i]" label of the edge from u into n when n is u[i] (a getitem of a
 * multi-output node), else NULL. tmp is scratch. */
static const char *getitem_label(vz_graph *vg, exdb_buf *tmp, const exdb_node *n,
                                 const exdb_node *u) {
    if (!is_getitem(n) || n->args.n < 2 || n->args.u.items[0].kind != EXDB_ARG_NODE ||
        n->args.u.items[0].u.node != u || n->args.u.items[1].kind != EXDB_ARG_INT)
        return NULL;
    exdb_buf_reset(tmp);
    exdb_buf_printf(tmp, "[%lld]", (long long)n->args.u.items[1].u.i);
    return vz_str(vg, tmp);
}

static void link_input(void *ctx, exdb_node *u) {
    flat_ctx *c = ctx;
    const exdb_node *n = c->cur;
    long long via = -1; /* u is a hidden getitem: the edge comes from its producer */
    if (c->hidden && c->hidden[u->id] == VZ_HIDDEN_GETITEM) {
        const exdb_node *src = vz_getitem_source(u, &via);
        u = (exdb_node *)src;
    }
    vz_edge e = {.from = c->vidx[u->id], .to = c->vidx[n->id]};
    if (e.from == VZ_NONE || e.to == VZ_NONE)
        return;
    if (!c->cl && c->vg->nodes[e.from].rank_with == e.to + 1)
        e.minlen = "0"; /* an input beside its first user (vz_place_inputs) */
    e.label = getitem_label(c->vg, &c->tmp, n, u);
    if (!e.label && via >= 0 && n->op != EXDB_OP_OUTPUT) {
        exdb_buf_reset(&c->tmp);
        exdb_buf_printf(&c->tmp, "[%lld]", via);
        e.label = vz_str(c->vg, &c->tmp);
    }
    if (e.label) {
        /* an output of a multi-output node: labelled "[i]" */
    } else if (n->op == EXDB_OP_OUTPUT) {
        const char *l = exdb_strmap_get(&c->outs, u->name);
        if (l && l[0] == '!') { /* a mutation: red */
            e.label = l + 1;
            e.color = MUTATION_COLOR;
        } else {
            e.label = l;
        }
    } else if (c->state_in_cluster && u->op != EXDB_OP_PLACEHOLDER &&
               c->vg->nodes[e.from].cluster != c->vg->nodes[e.to].cluster) {
        /* n's parameters sit in n's cluster on the rank above n. When the
         * value coming into the cluster is one rank above n too, the
         * cluster starts on the last rank of the cluster before it (the
         * previous block): sibling clusters then overlap by one rank, dot
         * cannot stack them and draws the model as a staircase (resnet18
         * 14,455 x 8,002 pt; 9,463 x 9,891 with this, the width now being the
         * row of unused num_batches_tracked buffers). A longer edge into
         * the cluster removes the overlap. (minlen=0 on the parameter
         * edges also works, but dot 2.43 fails to route the flat edges
         * that makes: "triangulation failed", lost edges.) */
        e.minlen = "2";
    }
    vz_add_edge(c->vg, &e);
}

/* Labels for the output node's incoming edges: each value's output specs
 * ("buffer_mutation encoder.layers.0.attn.calls"); a leading '!' marks a
 * mutation. Plain user outputs get no label. */
static void output_labels(flat_ctx *c, const exdb_node *out) {
    const exdb_program *p = c->prog;
    if (!out || out->args.n < 1)
        return;
    const exdb_arg *tup = &out->args.u.items[0];
    if (tup->kind != EXDB_ARG_TUPLE && tup->kind != EXDB_ARG_LIST)
        return;
    for (uint32_t i = 0; i < tup->n && i < p->noutputs; i++) {
        const exdb_arg *a = &tup->u.items[i];
        if (a->kind != EXDB_ARG_NODE)
            continue;
        const exdb_output_spec *o = &p->outputs[i];
        void **slot = exdb_strmap_put(&c->outs, a->u.node->name, NULL);
        if (!slot) {
            c->vg->oom = 1;
            return;
        }
        const char *prev = *slot;
        int mut = o->kind != EXDB_OUT_USER_OUTPUT && o->kind != EXDB_OUT_LOSS_OUTPUT;
        exdb_buf_reset(&c->tmp);
        if (mut || (prev && prev[0] == '!'))
            exdb_buf_putc(&c->tmp, '!');
        if (prev && prev[0]) {
            exdb_buf_puts(&c->tmp, prev + (prev[0] == '!'));
            vz_put_nl(&c->tmp);
        }
        if (o->kind != EXDB_OUT_USER_OUTPUT) {
            exdb_buf_puts(&c->tmp, exdb_output_kind_name(o->kind));
            if (o->target) {
                exdb_buf_putc(&c->tmp, ' ');
                vz_put_text(&c->tmp, o->target, LINE_MAX_CHARS, 0);
            }
        }
        *slot = (void *)vz_str(c->vg, &c->tmp);
    }
}

/* Adds FX node n to the view (see vz_view_flat). */
static void add_fx_node(flat_ctx *c, const exdb_node *n) {
    const exdb_program *p = c->prog;
    vz_node v = {.name = n->name, .order = c->pos[n->id], .dup_ok = 1};
    const char *kind_line = NULL, *kind_tip = NULL;
    if (n->op == EXDB_OP_PLACEHOLDER) {
        uintptr_t s = (uintptr_t)exdb_strmap_get(&c->inputs, n->name);
        v.shape = "ellipse";
        v.style = "filled";
        if (s) {
            const exdb_input_spec *is = &p->inputs[s - 1];
            v.fill = vz_input_fill(is->kind);
            /* The label says the kind; the state FQN goes to the tooltip. */
            kind_line = exdb_input_kind_name(is->kind);
            kind_tip = is->target;
        }
    } else if (n->op == EXDB_OP_OUTPUT) {
        v.shape = "invhouse";
        v.style = "filled";
        v.fill = "#9ecae1";
    } else if (is_getitem(n)) {
        v.fill = "#f2f2f2";
    } else if (n->op == EXDB_OP_GET_ATTR) {
        v.fill = "#e0e0e0";
    }
    v.fx = n;
    v.kind_line = kind_line;
    v.kind_tip = kind_tip;
    if (c->cl)
        v.cluster = c->cl[n->id] & ~UNUSED_STATE;
    c->vidx[n->id] = vz_add_node(c->vg, &v);
    if (c->cl && n->op != EXDB_OP_PLACEHOLDER && c->vidx[n->id] != VZ_NONE &&
        c->anchor[v.cluster] == VZ_NONE)
        c->anchor[v.cluster] = c->vidx[n->id];
}

/* An input of the node about to be added, added first when it is a
 * placeholder not drawn yet (foreach_input callback). */
static void place_input(void *ctx, exdb_node *u) {
    flat_ctx *c = ctx;
    if (u->op == EXDB_OP_PLACEHOLDER && c->vidx[u->id] == VZ_NONE &&
        !(c->hidden && c->hidden[u->id]))
        add_fx_node(c, u);
}

/* --by-module: every node to the cluster of its module call. A parameter,
 * buffer or constant placeholder has no module stack, so it is drawn in
 * its users' cluster when they all share one, next to the module that
 * owns it. -1 when out of memory. */
static int assign_clusters(flat_ctx *c) {
    const exdb_program *p = c->prog;
    const exdb_graph *g = p->graph;
    c->cl = calloc((size_t)g->next_id + 1, sizeof *c->cl);
    if (!c->cl)
        return -1;
    uint32_t *cl = c->cl;
    for (const exdb_node *n = g->head; n; n = n->next)
        cl[n->id] = node_cluster(c, n);
    for (const exdb_node *n = g->head; n; n = n->next) {
        uintptr_t s = (uintptr_t)exdb_strmap_get(&c->inputs, n->name);
        if (n->op != EXDB_OP_PLACEHOLDER || !s || !n->nusers ||
            p->inputs[s - 1].kind == EXDB_IN_USER_INPUT)
            continue;
        uint32_t k = cl[n->users[0]->id];
        for (uint32_t i = 1; i < n->nusers && k; i++)
            if (cl[n->users[i]->id] != k)
                k = 0;
        cl[n->id] = k;
    }
    return 0;
}

/* --by-module: state nobody uses (a BatchNorm's num_batches_tracked) goes
 * to the cluster of the module that owns it, beside one of its nodes
 * (rank=same, below): in the root they made one row across the whole
 * picture (20 in resnet18, most of its 9,463 pt width). */
static void unused_state_clusters(flat_ctx *c) {
    const exdb_program *p = c->prog;
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        uintptr_t s = (uintptr_t)exdb_strmap_get(&c->inputs, n->name);
        if (n->op != EXDB_OP_PLACEHOLDER || !s || n->nusers ||
            p->inputs[s - 1].kind == EXDB_IN_USER_INPUT || !p->inputs[s - 1].target)
            continue;
        const char *t = p->inputs[s - 1].target, *dot = strrchr(t, '.');
        if (!dot)
            continue;
        exdb_buf_reset(&c->tmp);
        exdb_buf_put(&c->tmp, t, (size_t)(dot - t));
        uintptr_t k = (uintptr_t)exdb_strmap_get(&c->paths, exdb_buf_str(&c->tmp));
        if (k)
            c->cl[n->id] = (uint32_t)(k - 1) | UNUSED_STATE;
    }
}

/* --by-module: cluster -> its first non-placeholder node (unused state
 * goes beside it), filled as nodes are added. -1 when out of memory. */
static int alloc_anchors(flat_ctx *c) {
    c->anchor = malloc(((size_t)c->vg->nclusters + 1) * sizeof *c->anchor);
    if (!c->anchor)
        return -1;
    for (uint32_t k = 0; k <= c->vg->nclusters; k++)
        c->anchor[k] = VZ_NONE;
    return 0;
}

/* The view nodes, every FX node not hidden. Each input is added right
 * before its first user (the flat view): dot orders a rank by the order
 * nodes were made, and with the ~300 parameters and buffers of resnet50
 * made first, above the whole graph, it drew the blocks as a staircase
 * 7,540 pt wide. */
static void add_nodes(flat_ctx *c) {
    const exdb_graph *g = c->prog->graph;
    const uint8_t *hidden = c->hidden;
    uint32_t at = 0;
    for (const exdb_node *n = g->head; n; n = n->next, at++) {
        c->pos[n->id] = at;
        c->vidx[n->id] = VZ_NONE;
    }
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (hidden && hidden[n->id])
            continue;
        if (!c->cl && n->op == EXDB_OP_PLACEHOLDER && n->nusers)
            continue;
        if (!c->cl)
            exdb_node_foreach_input((exdb_node *)n, place_input, c);
        add_fx_node(c, n);
    }
    for (const exdb_node *n = g->head; n; n = n->next)
        if (c->vidx[n->id] == VZ_NONE && !(hidden && hidden[n->id]))
            add_fx_node(c, n); /* inputs only hidden nodes use */
}

/* Where inputs and unused state are drawn: --by-module, unused state
 * beside the first node of its owner's cluster; else each input beside
 * its first user and unused state beside its module's other state. */
static void place_state(flat_ctx *c) {
    vz_graph *vg = c->vg;
    const exdb_program *p = c->prog;
    for (const exdb_node *n = c->cl ? p->graph->head : NULL; n; n = n->next) {
        if (!(c->cl[n->id] & UNUSED_STATE) || c->vidx[n->id] == VZ_NONE)
            continue;
        uint32_t a = c->anchor[c->cl[n->id] & ~UNUSED_STATE];
        if (a != VZ_NONE)
            vg->nodes[c->vidx[n->id]].rank_with = a + 1;
    }
    if (!c->cl && (vz_place_inputs(vg, p->graph, c->vidx, c->pos) < 0 ||
                   vz_place_unused_state(vg, p, c->vidx, c->pos) < 0))
        vg->oom = 1;
}

/* The edges: every drawn node's inputs, in program order. */
static void link_nodes(flat_ctx *c) {
    vz_graph *vg = c->vg;
    for (const exdb_node *n = c->prog->graph->head; n; n = n->next) {
        c->cur = n;
        c->state_in_cluster = 0;
        if (c->by_module && c->vidx[n->id] != VZ_NONE && vg->nodes[c->vidx[n->id]].cluster)
            exdb_node_foreach_input((exdb_node *)n, find_state_input, c);
        exdb_node_foreach_input((exdb_node *)n, link_input, c);
    }
}

/* "PATH: flat graph [by module], N nodes; hidden: ..." */
static void flat_title(flat_ctx *c) {
    const exdb_program *p = c->prog;
    uint32_t count = p->graph->count;
    exdb_buf lab;
    exdb_buf_init(&lab);
    exdb_buf_printf(&lab, "%s: flat graph%s, %u node%s", p->path ? p->path : "program",
                    c->by_module ? " by module" : "", count, count == 1 ? "" : "s");
    vz_hidden_title(&lab, c->nhidden);
    exdb_buf reslab;
    exdb_buf_init(&reslab);
    vz_put_text(&reslab, exdb_buf_str(&lab), 0, 0);
    reslab.oom |= lab.oom;
    c->vg->title = vz_str(c->vg, &reslab);
    exdb_buf_free(&reslab);
    exdb_buf_free(&lab);
}

static void flat_ctx_free(flat_ctx *c) {
    exdb_buf_free(&c->tmp);
    free(c->hidden);
    free(c->cl);
    free(c->anchor);
    free(c->vidx);
    free(c->pos);
}

int vz_view_flat(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 exdb_error *err) {
    const exdb_program *p = src->prog;
    const exdb_graph *g = p->graph;
    flat_ctx c = {.vg = vg, .prog = p, .by_module = view->by_module};
    exdb_buf_init(&c.tmp);
    c.vidx = malloc(((size_t)g->next_id + 1) * sizeof *c.vidx);
    c.pos = malloc(((size_t)g->next_id + 1) * sizeof *c.pos);
    if (!c.vidx || !c.pos || vz_reserve(vg, g->count, 0) < 0)
        goto oom;
    exdb_strmap_init(&c.stack, &vg->arena);
    exdb_strmap_init(&c.calls, &vg->arena);
    exdb_strmap_init(&c.paths, &vg->arena);
    exdb_strmap_init(&c.outs, &vg->arena);
    exdb_strmap_init(&c.inputs, &vg->arena);
    if (vz_index_inputs(&c.inputs, p) < 0)
        vg->oom = 1;
    output_labels(&c, exdb_graph_output(g));
    c.hidden = view->hide ? vz_hidden_nodes(p, &c.inputs, view->hide, c.nhidden) : NULL;
    if (view->hide && !c.hidden)
        goto oom;
    if (view->by_module) {
        if (assign_clusters(&c) < 0)
            goto oom;
        unused_state_clusters(&c);
        if (alloc_anchors(&c) < 0)
            goto oom;
    }
    add_nodes(&c);
    place_state(&c);
    link_nodes(&c);
    flat_title(&c);
    vg->oom |= c.tmp.oom; /* a lookup key cut short */
    flat_ctx_free(&c);
    if (vg->oom)
        return exdb_errorf(err, "render: out of memory");
    return 0;
oom:
    flat_ctx_free(&c);
    return exdb_errorf(err, "render: out of memory");
}

/* ---- helpers for the views of unflattened graphs */

typedef struct link_ctx {
    vz_graph *vg;
    const uint32_t *vidx;
    const exdb_node *cur;
    exdb_buf tmp;
} link_ctx;

static void link_one(void *ctx, exdb_node *u) {
    link_ctx *c = ctx;
    const exdb_node *n = c->cur;
    vz_edge e = {.from = c->vidx[u->id], .to = c->vidx[n->id]};
    if (e.from == VZ_NONE || e.to == VZ_NONE)
        return;
    e.label = getitem_label(c->vg, &c->tmp, n, u);
    vz_add_edge(c->vg, &e);
}

void vz_link_graph(vz_graph *vg, const exdb_graph *g, const uint32_t *vidx) {
    link_ctx c = {.vg = vg, .vidx = vidx};
    exdb_buf_init(&c.tmp);
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (vidx[n->id] == VZ_NONE)
            continue;
        c.cur = n;
        exdb_node_foreach_input((exdb_node *)n, link_one, &c);
    }
    exdb_buf_free(&c.tmp);
}

const char *vz_op_fill(const exdb_node *n) {
    if (n->op == EXDB_OP_OUTPUT)
        return "#9ecae1";
    if (is_getitem(n))
        return "#f2f2f2";
    if (n->op == EXDB_OP_GET_ATTR)
        return "#e0e0e0";
    if (n->op == EXDB_OP_CALL_MODULE)
        return "#fff7bc";
    return NULL;
}

void vz_set_title(vz_graph *vg, const char *plain) {
    exdb_buf b;
    exdb_buf_init(&b);
    vz_put_text(&b, plain, 0, 0);
    vg->title = vz_str(vg, &b);
    exdb_buf_free(&b);
}
