/* codegen.c - see codegen.h. Mirrors torch/fx/graph.py (torch 2.13):
 * CodeGen._gen_python_code (add_global, _get_repr, _format_args,
 * delete_unused_values, append_stacktrace_summary, emit_node), _Namespace,
 * _format_target, _parse_stack_trace and _PyTreeCodeGen; and
 * torch/fx/graph_module.py's _print_readable with nn.Module's _addindent. */
#include "core/fx/codegen.h"

#include <stdlib.h>
#include <string.h>

#include "core/fx/pyexpr.h"
#include "core/fx/pyrepr.h"
#include "core/fx/stacktrace.h"
#include "core/fx/sympy.h"
#include "core/fx/print.h"
#include "core/fx/names.h"

/* graph.py's _color_codes */
#define BLUE  "\033[34m"
#define DIM   "\033[2m"
#define RESET "\033[0m"

/* One code generation: the state _gen_python_code keeps in its closure. */
typedef struct cg {
    const exdb_graph *g;
    const exdb_codegen_opts *o;
    exdb_arena arena;
    exdb_graph *ns;      /* the _Namespace of this python_code() call */
    const char **names;  /* repr(node) in that namespace, by node id */
    uint32_t *last_use;  /* node id -> id + 1 of the user of its last use, 0: none */
    uint8_t *deleted;    /* node id -> already set to None */
    exdb_strmap globals; /* qualified name -> its global name */
    exdb_buf body;       /* "".join(body), the counters left out */
    const char **free_vars;
    uint32_t nfree, capfree;
    exdb_buf prev_summary; /* append_stacktrace_summary's prev_summary_str */
    int have_prev;
    int oom;
    /* exdb_python_code_node: the one node whose text is kept, and the
     * lines the nodes before it wrote */
    const exdb_node *only;
    uint32_t only_lines;
    /* every node keeps its name in the namespace (see identity_names) */
    int identity;
    /* each node's line as the body is made (note_line): body bytes
     * written out before body.s, the leading blank lines (known once a
     * line is not blank), newlines in the body before nl_scan */
    size_t flushed, k, nl, nl_scan;
    int k_known;
    /* exdb_python_code_write: where the text goes, the prologue once
     * written (after the last placeholder), the piece being written */
    exdb_code_write write;
    void *wctx;
    size_t piece_len;
    uint32_t nplace; /* nodes up to the last placeholder */
    int pro_done;
    uint32_t pro_lines;
    exdb_buf piece;
} cg;

static void color(cg *c, exdb_buf *b, const char *code, const char *s, size_t n) {
    if (c->o->colored)
        exdb_buf_puts(b, code);
    exdb_buf_put(b, s, n);
    if (c->o->colored)
        exdb_buf_puts(b, RESET);
}

/* _Namespace.__init__ then add_global for each of _custom_builtins: those
 * names are used from the start (each is its own object, so kept as is). */
static int reserve_name(cg *c, const char *name) {
    if (!exdb_strmap_put(&c->ns->names, name, NULL) ||
        !exdb_strmap_put(&c->ns->base_count, name, NULL))
        return -1;
    return 0;
}

/* repr(node) while python_code runs: namespace.create_name(node.name, node). */
static const char *node_name(cg *c, const exdb_node *n) {
    if (n->graph != c->g || n->id >= c->g->next_id || c->identity)
        return n->name; /* not this graph's: as str(graph) would show it */
    if (!c->names[n->id]) {
        c->names[n->id] = exdb_graph_create_name(c->ns, n->name);
        if (!c->names[n->id]) {
            c->oom = 1;
            return n->name;
        }
    }
    return c->names[n->id];
}

static const char *const builtin_fns[] = {"getattr", "setattr", "hasattr", "isinstance", "len",
                                          "abs",     "min",     "max",     "round",      "pow",
                                          "all",     "any",     "sum",     NULL};

/* _get_qualified_name(target) then add_global(qualified, target): the name
 * the generated code calls. exdb keeps a Python function target as its
 * serialized text with "_operator." shown as "operator." (load_arg.c). */
static const char *global_name(cg *c, const exdb_node *n) {
    const char *t = n->target;
    if (n->tkind == EXDB_T_OP || n->tkind == EXDB_T_HOP)
        return t; /* _is_from_torch: the qualified name itself */
    if (strncmp(t, "torch.", 6) == 0 && strncmp(t, "torch._dynamo.", 14) != 0 &&
        strncmp(t, "torch._inductor.", 16) != 0)
        return t;
    const char *q = t;
    if (strncmp(t, "builtins.", 9) == 0)
        q = t + 9;
    void **slot = exdb_strmap_find(&c->globals, q);
    if (slot)
        return *slot;
    const char *name = NULL;
    for (int i = 0; builtin_fns[i]; i++)
        if (strcmp(q, builtin_fns[i]) == 0) {
            /* a builtin is itself in _illegal_names: create_name keeps it */
            name = q;
            if (reserve_name(c, q) < 0)
                c->oom = 1;
        }
    if (!name) {
        const char *qual = strncmp(t, "operator.", 9) == 0
                               ? exdb_arena_printf(&c->arena, "_operator.%s", t + 9)
                               : t;
        name = qual ? exdb_graph_create_name(c->ns, qual) : NULL;
    }
    const char *key = exdb_arena_strdup(&c->arena, q);
    slot = key ? exdb_strmap_put(&c->globals, key, NULL) : NULL;
    if (!slot || !name) {
        c->oom = 1;
        return t;
    }
    *slot = (void *)name;
    return name;
}

/* repr() of a value inside a dict (no _get_repr there): nodes by their
 * namespace name, the rest as Python's repr. */
static void plain_repr(cg *c, exdb_buf *b, const exdb_arg *a) {
    int tuple = a->kind == EXDB_ARG_TUPLE, dict = a->kind == EXDB_ARG_DICT;
    if (a->kind == EXDB_ARG_NODE) {
        exdb_buf_puts(b, node_name(c, a->u.node));
        return;
    }
    if (!tuple && !dict && a->kind != EXDB_ARG_LIST) {
        exdb_repr_arg(b, a);
        return;
    }
    exdb_buf_putc(b, dict ? '{' : tuple ? '(' : '[');
    for (uint32_t i = 0; i < a->n; i++) {
        if (i)
            exdb_buf_puts(b, ", ");
        if (dict) {
            exdb_arg k = exdb_arg_str(a->keys[i]);
            exdb_repr_arg(b, &k);
            exdb_buf_puts(b, ": ");
        }
        plain_repr(c, b, &a->u.items[i]);
    }
    if (tuple && a->n == 1)
        exdb_buf_putc(b, ',');
    exdb_buf_putc(b, dict ? '}' : tuple ? ')' : ']');
}

/* _get_repr(arg) */
static void get_repr(cg *c, exdb_buf *b, const exdb_arg *a) {
    switch ((exdb_arg_kind)a->kind) {
    case EXDB_ARG_NODE:
        exdb_buf_puts(b, node_name(c, a->u.node));
        return;
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_LIST: {
        int tuple = a->kind == EXDB_ARG_TUPLE;
        exdb_buf_putc(b, tuple ? '(' : '[');
        for (uint32_t i = 0; i < a->n; i++) {
            if (i)
                exdb_buf_puts(b, ", ");
            get_repr(c, b, &a->u.items[i]);
        }
        if (tuple && a->n == 1)
            exdb_buf_putc(b, ',');
        exdb_buf_putc(b, tuple ? ')' : ']');
        return;
    }
    case EXDB_ARG_OPERATOR:
        if (strncmp(a->u.s, "torch.ops.", 10) == 0) { /* an OpOverload or a HOP */
            exdb_buf_puts(b, a->u.s);
            return;
        }
        break;
    default:
        break;
    }
    if (c->o->colored)
        exdb_buf_puts(b, BLUE);
    plain_repr(c, b, a);
    if (c->o->colored)
        exdb_buf_puts(b, RESET);
}

/* _format_args(args, kwargs), args from position first on. */
static void format_args(cg *c, exdb_buf *b, const exdb_node *n, uint32_t first) {
    int any = 0;
    for (uint32_t i = first; i < n->args.n; i++, any = 1) {
        if (any)
            exdb_buf_puts(b, ", ");
        get_repr(c, b, &n->args.u.items[i]);
    }
    for (uint32_t i = 0; i < n->kwargs.n; i++, any = 1) {
        if (any)
            exdb_buf_puts(b, ", ");
        exdb_buf_puts(b, n->kwargs.keys[i]);
        exdb_buf_puts(b, " = ");
        get_repr(c, b, &n->kwargs.u.items[i]);
    }
}

/* emit_node's verbose maybe_type_annotation: ': "f32[2, 3]"' for a tensor
 * value (with _tensor_annotation's stride and device when asked),
 * ': "Sym(s0)"' for a symbolic value; nothing otherwise. */
static void annotation(cg *c, exdb_buf *b, const exdb_node *n) {
    const exdb_val *v = n->meta ? n->meta->val : NULL;
    if (!c->o->verbose || !v)
        return;
    if (v->kind == EXDB_VAL_TENSOR) {
        exdb_buf_puts(b, ": \"");
        exdb_fx_tensor_annotation(b, v->u.t, c->o->include_stride, c->o->include_device,
                                  c->o->colored);
        exdb_buf_putc(b, '"');
    } else if ((v->kind == EXDB_VAL_SYMINT || v->kind == EXDB_VAL_SYMFLOAT ||
                v->kind == EXDB_VAL_SYMBOOL) &&
               v->u.sym.expr) {
        exdb_buf_puts(b, ": \"Sym(");
        exdb_sympy_str(b, v->u.sym.expr);
        exdb_buf_puts(b, ")\"");
    }
}

/* append_stacktrace_summary(node): "\n# File: ...\n" when it differs
 * from the last one written. */
static void stacktrace_summary(cg *c, const exdb_node *n) {
    if (n->op == EXDB_OP_PLACEHOLDER || n->op == EXDB_OP_OUTPUT)
        return;
    exdb_buf s, line;
    exdb_buf_init(&s);
    exdb_buf_init(&line);
    /* "#{annotation_str}{maybe_recompute_info} {stack_trace_str}"; the
     * recompute tags are torch.compile's, not in exported programs */
    exdb_buf_putc(&line, '#');
    if (n->meta && exdb_fx_annotation(&line, n->meta->custom) < 0)
        c->oom = 1;
    exdb_buf_putc(&line, ' ');
    const char *st = n->meta ? exdb_meta_stack_trace(n->meta) : NULL;
    if (!st || !*st || !exdb_stack_summary(&line, st)) /* appends nothing on 0 */
        exdb_buf_puts(&line, "No stacktrace found for following nodes");
    exdb_buf_putc(&s, '\n');
    color(c, &s, DIM, line.s, line.len);
    exdb_buf_putc(&s, '\n');
    if (s.oom || line.oom)
        c->oom = 1;
    if (!c->have_prev || s.len != c->prev_summary.len ||
        memcmp(s.s, c->prev_summary.s, s.len) != 0) {
        exdb_buf_reset(&c->prev_summary);
        exdb_buf_put(&c->prev_summary, s.s, s.len);
        c->have_prev = 1;
        exdb_buf_put(&c->body, s.s, s.len);
    }
    exdb_buf_free(&s);
    exdb_buf_free(&line);
}

/* str.format(*(_get_repr(a) for a in node.args)) of a "{} + {}" form. */
static void format_op(cg *c, exdb_buf *b, const char *fmt, const exdb_node *n) {
    uint32_t i = 0;
    for (const char *p = fmt; *p; p++) {
        if (p[0] == '{' && p[1] == '}') {
            if (i < n->args.n)
                get_repr(c, b, &n->args.u.items[i]);
            i++;
            p++;
        } else {
            exdb_buf_putc(b, *p);
        }
    }
}

/* "name: annotation = " */
static void lhs(cg *c, exdb_buf *b, const exdb_node *n) {
    exdb_buf_puts(b, node_name(c, n));
    annotation(c, b, n);
    exdb_buf_puts(b, " = ");
}

static void emit_call_function(cg *c, exdb_buf *b, const exdb_node *n) {
    const char *fmt = exdb_fx_operator_format(n, 0);
    if (fmt) {
        lhs(c, b, n);
        format_op(c, b, fmt, n);
        return;
    }
    if ((fmt = exdb_fx_operator_format(n, 1))) {
        format_op(c, b, fmt, n);
        exdb_buf_puts(b, ";  ");
        lhs(c, b, n);
        if (n->args.n)
            get_repr(c, b, &n->args.u.items[0]);
        return;
    }
    const char *gname = global_name(c, n);
    if (strcmp(gname, "getattr") == 0 && n->args.n == 2 &&
        n->args.u.items[1].kind == EXDB_ARG_STR &&
        exdb_fx_is_identifier(n->args.u.items[1].u.s, strlen(n->args.u.items[1].u.s))) {
        exdb_buf base;
        exdb_buf_init(&base);
        get_repr(c, &base, &n->args.u.items[0]);
        lhs(c, b, n);
        exdb_fx_format_target(b, exdb_buf_str(&base), n->args.u.items[1].u.s);
        if (base.oom)
            c->oom = 1;
        exdb_buf_free(&base);
        return;
    }
    lhs(c, b, n);
    exdb_buf_puts(b, gname);
    exdb_buf_putc(b, '(');
    format_args(c, b, n, 0);
    exdb_buf_putc(b, ')');
}

static int add_free_var(cg *c, const char *s) {
    if (c->nfree == c->capfree) {
        const char **nv =
            exdb_arena_grow(&c->arena, c->free_vars, c->nfree, &c->capfree, sizeof *nv, 16);
        if (!nv)
            return -1;
        c->free_vars = nv;
    }
    c->free_vars[c->nfree++] = s;
    return 0;
}

/* emit_node(node), without the line end delete_unused_values adds. */
static void emit_node(cg *c, const exdb_node *n) {
    exdb_buf *b = &c->body;
    switch ((exdb_op)n->op) {
    case EXDB_OP_PLACEHOLDER: {
        exdb_buf fv;
        exdb_buf_init(&fv);
        exdb_buf_puts(&fv, n->target);
        annotation(c, &fv, n);
        if (n->args.n) {
            exdb_buf_puts(&fv, " = ");
            get_repr(c, &fv, &n->args.u.items[0]);
        }
        const char *s = exdb_arena_strdup(&c->arena, exdb_buf_str(&fv));
        if (fv.oom || !s || add_free_var(c, s) < 0)
            c->oom = 1;
        exdb_buf_free(&fv);
        /* raw_name = node.target.replace("*", "") */
        exdb_buf raw;
        exdb_buf_init(&raw);
        for (const char *p = n->target; *p; p++)
            if (*p != '*')
                exdb_buf_putc(&raw, *p);
        const char *name = node_name(c, n);
        if (strcmp(exdb_buf_str(&raw), name) != 0)
            exdb_buf_printf(b, "%s = %s\n", name, exdb_buf_str(&raw));
        if (raw.oom)
            c->oom = 1;
        exdb_buf_free(&raw);
        return;
    }
    case EXDB_OP_CALL_METHOD: {
        exdb_buf base;
        exdb_buf_init(&base);
        if (n->args.n)
            get_repr(c, &base, &n->args.u.items[0]);
        lhs(c, b, n);
        exdb_fx_format_target(b, exdb_buf_str(&base), n->target);
        if (base.oom)
            c->oom = 1;
        exdb_buf_free(&base);
        exdb_buf_putc(b, '(');
        format_args(c, b, n, 1);
        exdb_buf_putc(b, ')');
        return;
    }
    case EXDB_OP_CALL_FUNCTION:
        emit_call_function(c, b, n);
        return;
    case EXDB_OP_CALL_MODULE:
        lhs(c, b, n);
        exdb_fx_format_target(b, "self", n->target);
        exdb_buf_putc(b, '(');
        format_args(c, b, n, 0);
        exdb_buf_putc(b, ')');
        return;
    case EXDB_OP_GET_ATTR:
        lhs(c, b, n);
        exdb_fx_format_target(b, "self", n->target);
        return;
    case EXDB_OP_OUTPUT: {
        const exdb_pytree_info *pt = c->o->pytree;
        exdb_arg none = exdb_arg_none();
        const exdb_arg *out = n->args.n ? &n->args.u.items[0] : &none;
        if (pt && pt->has_out_spec) {
            exdb_buf_puts(b, "return pytree.tree_unflatten(");
            get_repr(c, b, out);
            exdb_buf_puts(b, ", self._out_spec)");
        } else {
            exdb_buf_puts(b, "return ");
            get_repr(c, b, out);
        }
        return;
    }
    }
}

/* delete_unused_values(user): ";  a = b = None" for the values whose last
 * use this is (and the node itself when nothing uses it), then the line
 * end. */
static void delete_unused(cg *c, const exdb_node *u) {
    if (u->op == EXDB_OP_PLACEHOLDER)
        return;
    if (u->op == EXDB_OP_OUTPUT) {
        exdb_buf_putc(&c->body, '\n');
        return;
    }
    exdb_buf del;
    exdb_buf_init(&del);
    for (int k = 0; k < 2; k++) {
        const exdb_arg *root = k ? &u->kwargs : &u->args;
        /* the node leaves in order: an explicit stack over the tree */
        const exdb_arg *stack[64];
        uint32_t idx[64];
        int sp = 0;
        stack[0] = root, idx[0] = 0;
        while (sp >= 0) {
            const exdb_arg *a = stack[sp];
            if (idx[sp] >= a->n) {
                sp--;
                continue;
            }
            const exdb_arg *it = &a->u.items[idx[sp]++];
            if (it->kind == EXDB_ARG_NODE) {
                const exdb_node *in = it->u.node;
                if (in->graph == c->g && in->id < c->g->next_id &&
                    c->last_use[in->id] == u->id + 1 && !c->deleted[in->id]) {
                    c->deleted[in->id] = 1;
                    exdb_buf_puts(&del, node_name(c, in));
                    exdb_buf_puts(&del, " = ");
                }
            } else if ((it->kind == EXDB_ARG_LIST || it->kind == EXDB_ARG_TUPLE ||
                        it->kind == EXDB_ARG_DICT) &&
                       sp + 1 < 64) {
                stack[++sp] = it, idx[sp] = 0;
            }
        }
    }
    if (u->nusers == 0) {
        exdb_buf_puts(&del, node_name(c, u));
        exdb_buf_puts(&del, " = ");
    }
    if (del.len) {
        exdb_buf_puts(&del, "None");
        exdb_buf_puts(&c->body, ";  ");
        color(c, &c->body, DIM, del.s, del.len);
    }
    if (del.oom)
        c->oom = 1;
    exdb_buf_free(&del);
    exdb_buf_putc(&c->body, '\n');
}

/* register_last_uses over reversed(nodes): the user of each node's last use. */
static void arg_last_uses(cg *c, const exdb_arg *a, const exdb_node *user) {
    if (a->kind == EXDB_ARG_NODE) {
        const exdb_node *in = a->u.node;
        if (in->graph == c->g && in->id < c->g->next_id && !c->last_use[in->id])
            c->last_use[in->id] = user->id + 1;
    } else if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_DICT) {
        for (uint32_t i = 0; i < a->n; i++)
            arg_last_uses(c, &a->u.items[i], user);
    }
}

/* gen_fn_def: CodeGen's "def forward(self, a, b):", or _PyTreeCodeGen's
 * with the forward's own arguments, the annotations line and the
 * fx_pytree.tree_flatten_spec binding of the placeholders. */
static void gen_fn_def(cg *c, exdb_buf *b) {
    const exdb_pytree_info *pt = c->o->pytree;
    exdb_buf_puts(b, "def forward(self");
    if (!pt) {
        for (uint32_t i = 0; i < c->nfree; i++)
            if (i || strcmp(c->free_vars[i], "self") != 0)
                exdb_buf_printf(b, ", %s", c->free_vars[i]);
        exdb_buf_puts(b, "):");
        return;
    }
    for (uint32_t i = 0; i < pt->norig_args; i++)
        if (i || strcmp(pt->orig_args[i], "self") != 0)
            exdb_buf_printf(b, ", %s", pt->orig_args[i]);
    exdb_buf_puts(b, "):");
    if (!c->nfree)
        return;
    /* _format_annotations */
    int annotated = 0;
    for (uint32_t i = 0; i < c->nfree; i++)
        if (strchr(c->free_vars[i], ':')) {
            exdb_buf_puts(b, annotated ? "" : "\n    ");
            exdb_buf_printf(b, "%s; ", c->free_vars[i]);
            annotated = 1;
        }
    if (annotated)
        exdb_buf_putc(b, '\n');
    exdb_buf_puts(b, "\n    ");
    for (uint32_t i = 0; i < c->nfree; i++) {
        const char *v = c->free_vars[i];
        size_t n = strcspn(v, ":"); /* x.split(":")[0].split("#")[0] */
        size_t h = strcspn(v, "#");
        exdb_buf_printf(b, "%s%.*s", i ? ", " : "", (int)(h < n ? h : n), v);
    }
    exdb_buf_puts(b, ", = fx_pytree.tree_flatten_spec(");
    if (pt->args_kwargs) {
        exdb_buf_puts(b, "([");
        for (uint32_t i = 0; i < pt->nargs && i < pt->norig_args; i++)
            exdb_buf_printf(b, "%s%s", i ? ", " : "", pt->orig_args[i]);
        exdb_buf_puts(b, "], {");
        for (uint32_t i = 0; i < pt->nkwarg_keys && pt->nargs + i < pt->norig_args; i++)
            exdb_buf_printf(b, "%s'%s':%s", i ? ", " : "", pt->kwarg_keys[i],
                            pt->orig_args[pt->nargs + i]);
        exdb_buf_puts(b, "}), self._in_spec)");
    } else {
        exdb_buf_putc(b, '[');
        for (uint32_t i = 0; i < pt->norig_args; i++)
            exdb_buf_printf(b, "%s%s", i ? ", " : "", pt->orig_args[i]);
        exdb_buf_puts(b, "], self._in_spec)");
    }
}

/* Whether the namespace would give every node its own name: each name a
 * plain ASCII identifier, not one create_name refuses ("None" included:
 * codegen's obj is the node), and no target that makes a global of its own
 * name (a Python function neither torch's, nor an operator FX writes as
 * one, nor a builtin), which a later node could have to yield to. Node
 * names are unique, so then create_name(node.name) is node.name, and the
 * namespace can be skipped: most of the time of a big graph's code. */
static int identity_names(const exdb_graph *g) {
    for (const exdb_node *n = g->head; n; n = n->next) {
        const char *s = n->name;
        if (!*s || (*s >= '0' && *s <= '9'))
            return 0;
        int digit = 0;
        for (; *s; s++) {
            if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                  (*s >= '0' && *s <= '9') || *s == '_'))
                return 0;
            digit |= *s >= '0' && *s <= '9';
        }
        /* no refused name holds a digit, and most names of a big graph do */
        if (!digit && (strcmp(n->name, "None") == 0 || exdb_names_is_reserved(n->name)))
            return 0;
        if (n->op == EXDB_OP_CALL_FUNCTION && n->tkind == EXDB_T_PYFN &&
            (strncmp(n->target, "torch.", 6) != 0 ||
             strncmp(n->target, "torch._dynamo.", 14) == 0 ||
             strncmp(n->target, "torch._inductor.", 16) == 0) &&
            !exdb_fx_operator_format(n, 0) && !exdb_fx_operator_format(n, 1))
            return 0;
    }
    return 1;
}

static int cg_init(cg *c, const exdb_graph *g, const exdb_codegen_opts *o) {
    static const char *const custom_builtins[] = {"inf",    "nan",       "NoneType", "torch",
                                                  "device", "fx_pytree", "pytree",   NULL};
    memset(c, 0, sizeof *c);
    c->g = g;
    c->o = o;
    exdb_arena_init(&c->arena);
    exdb_strmap_init(&c->globals, &c->arena);
    exdb_buf_init(&c->body);
    exdb_buf_init(&c->prev_summary);
    c->ns = exdb_graph_new(&c->arena);
    size_t n = g->next_id ? g->next_id : 1;
    c->identity = identity_names(g);
    if (!c->identity) /* node names of their own: kept by node id */
        c->names = calloc(n, sizeof *c->names);
    c->last_use = calloc(n, sizeof *c->last_use);
    c->deleted = calloc(n, 1);
    if (!c->ns || (!c->identity && !c->names) || !c->last_use || !c->deleted)
        return -1;
    for (int i = 0; custom_builtins[i]; i++)
        if (reserve_name(c, custom_builtins[i]) < 0)
            return -1;
    return 0;
}

static void cg_free(cg *c) {
    exdb_buf_free(&c->piece);
    free(c->names);
    free(c->last_use);
    free(c->deleted);
    exdb_buf_free(&c->body);
    exdb_buf_free(&c->prev_summary);
    exdb_arena_destroy(&c->arena);
}

/* What emit_node does to the namespace for a node before the one
 * exdb_python_code_node wants, without its text: the global its target
 * takes, then its name, in emit_node's order; and the lines it would
 * write (one a node in the plain form, none for a placeholder that keeps
 * its name). */
static void skim_node(cg *c, const exdb_node *n) {
    if (n->op == EXDB_OP_PLACEHOLDER) {
        const char *name = node_name(c, n);
        const char *t = n->target, *m = name;
        for (; *t; t++) /* node.target.replace("*", "") != repr(node) */
            if (*t != '*' && *t != *m++)
                break;
        c->only_lines += *t || *m;
        return;
    }
    if (n->op == EXDB_OP_CALL_FUNCTION && !exdb_fx_operator_format(n, 0) &&
        !exdb_fx_operator_format(n, 1))
        global_name(c, n);
    node_name(c, n);
    c->only_lines++;
}

typedef struct use_ref {
    const exdb_node *user, *input;
} use_ref;

static int cmp_use(const void *a, const void *b) {
    const exdb_node *x = ((const use_ref *)a)->user, *y = ((const use_ref *)b)->user;
    return x < y ? -1 : x > y;
}

/* register_last_uses as far as node c->only needs it: the inputs whose
 * last use it is. A later use of an input is one of its users met after
 * the node, so one walk over the rest of the graph looks each node up
 * among the inputs' users (sorted) and reads no argument tree. */
static void only_last_uses(cg *c) {
    const exdb_node *n = c->only;
    arg_last_uses(c, &n->args, n);
    arg_last_uses(c, &n->kwargs, n);
    size_t k = 0, cap = 0;
    use_ref *refs = NULL;
    for (int pass = 0; pass < 2 && !c->oom; pass++) {
        const exdb_arg *root = pass ? &n->kwargs : &n->args;
        for (uint32_t i = 0; i < root->n; i++) {
            const exdb_arg *st[64];
            uint32_t sp = 0;
            st[sp++] = &root->u.items[i];
            while (sp && !c->oom) {
                const exdb_arg *a = st[--sp];
                if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE ||
                    a->kind == EXDB_ARG_DICT) {
                    for (uint32_t j = 0; j < a->n && sp < 64; j++)
                        st[sp++] = &a->u.items[j];
                    continue;
                }
                const exdb_node *x = a->kind == EXDB_ARG_NODE ? a->u.node : NULL;
                if (!x || x->graph != c->g || x->id >= c->g->next_id)
                    continue;
                if (k + x->nusers > cap) {
                    cap = 2 * (k + x->nusers) + 16;
                    use_ref *nr = realloc(refs, cap * sizeof *nr);
                    if (!nr) {
                        c->oom = 1;
                        break;
                    }
                    refs = nr;
                }
                for (uint32_t u = 0; u < x->nusers; u++)
                    refs[k++] = (use_ref){x->users[u], x};
            }
        }
    }
    if (k)
        qsort(refs, k, sizeof *refs, cmp_use);
    for (const exdb_node *m = n->next; m && k && !c->oom; m = m->next) {
        use_ref key = {m, NULL};
        use_ref *r = bsearch(&key, refs, k, sizeof *refs, cmp_use);
        if (!r)
            continue;
        while (r > refs && r[-1].user == m)
            r--;
        for (; r < refs + k && r->user == m; r++) /* a use after the node */
            c->last_use[r->input->id] = m->id + 1;
    }
    free(refs);
}

/* The newlines in [p, end). */
static size_t count_nl(const char *p, const char *end) {
    size_t n = 0;
    for (; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
        n++;
    return n;
}

/* _gen_python_code(...).src: "\n\n\n" + prologue + "\n" + the body with
 * its leading blank lines stripped and every line indented by 4. Its head:
 * up to the first body line's indent. */
static void put_head(exdb_buf *out, const exdb_buf *pro) {
    exdb_buf_puts(out, "\n\n\n");
    exdb_buf_put(out, pro->s, pro->len);
    exdb_buf_puts(out, "\n    ");
}

/* The lines of the prologue pro (the def line and its docstring). */
static uint32_t head_lines(const exdb_buf *pro) {
    const char *t = exdb_buf_str(pro);
    return 1 + (uint32_t)count_nl(t, t + pro->len);
}

/* b[from..len) onto out, each newline followed by the next line's indent. */
static void put_indented(exdb_buf *out, const char *b, size_t from, size_t len) {
    while (from < len) {
        const char *nl = memchr(b + from, '\n', len - from);
        size_t end = nl ? (size_t)(nl - b) + 1 : len;
        exdb_buf_put(out, b + from, end - from);
        if (nl)
            exdb_buf_puts(out, "    ");
        from = end;
    }
}

/* Whether the body has a line that is not blank yet: then c->k, the
 * leading blank lines the text strips, is known; else it is the blank
 * lines so far. */
static void find_k(cg *c) {
    const char *b = c->body.s;
    size_t p = c->k, len = c->body.len;
    while (p < len && b[p] == '\n')
        p++;
    c->k = p; /* the blank lines so far (flushed is 0 until k is known) */
    c->k_known = p < len;
}

/* Node i's line, counted from the body's first line not blank (1-based;
 * exdb_python_code adds the lines before the body), once emit_node wrote
 * its text from body offset at (find_k has looked at it): 0 when it wrote
 * none or only blank lines the text strips. */
static void note_line(cg *c, uint32_t *lines, uint32_t i, size_t at) {
    const char *b = c->body.s;
    lines[i] = 0;
    if (c->body.len == at || !c->k_known || c->flushed + at < c->k)
        return;
    c->nl += count_nl(b + c->nl_scan, b + at);
    c->nl_scan = at;
    lines[i] = (uint32_t)(c->nl - c->k + 1);
}

/* The text so far written out (exdb_python_code_write), the body
 * indented; the first piece starts with the prologue, which can be made
 * once every placeholder has been seen. */
static void write_piece(cg *c) {
    exdb_buf *p = &c->piece;
    const char *b = exdb_buf_str(&c->body);
    size_t from = 0, len = c->body.len;
    c->nl += count_nl(b + c->nl_scan, b + len);
    if (!c->pro_done) {
        exdb_buf pro;
        exdb_buf_init(&pro);
        gen_fn_def(c, &pro);
        c->pro_lines = head_lines(&pro);
        put_head(p, &pro);
        if (pro.oom)
            c->oom = 1;
        exdb_buf_free(&pro);
        c->pro_done = 1;
        if (!c->k_known)
            find_k(c);
        from = c->k; /* flushed is 0 before the first piece */
    }
    put_indented(p, b, from, len);
    if (p->oom || c->write(c->wctx, exdb_buf_str(p), p->len) < 0)
        c->oom = 1;
    exdb_buf_reset(p);
    c->flushed += len;
    c->nl_scan = 0;
    exdb_buf_reset(&c->body);
}

/* The body: every node's statement (its line in lines[] when asked), as
 * _gen_python_code's loop writes it; written out a piece at a time when
 * c->write is set. */
static void gen_body(cg *c, uint32_t *lines) {
    const exdb_graph *g = c->g;
    if (c->only)
        only_last_uses(c);
    for (const exdb_node *n = c->only ? NULL : g->tail; n; n = n->prev) {
        arg_last_uses(c, &n->args, n);
        arg_last_uses(c, &n->kwargs, n);
    }
    uint32_t i = 0;
    for (const exdb_node *n = g->head; n && !c->oom; n = n->next, i++) {
        if (c->only && c->only != n) {
            skim_node(c, n);
            continue;
        }
        if (c->o->verbose)
            stacktrace_summary(c, n);
        size_t at = c->body.len;
        emit_node(c, n);
        if (!c->k_known)
            find_k(c);
        if (lines)
            note_line(c, lines, i, at);
        delete_unused(c, n);
        if (c->only == n)
            return;
        if (c->write && i + 1 >= c->nplace && c->k_known && c->body.len >= c->piece_len)
            write_piece(c);
    }
    if (!c->body.len && !c->flushed)
        exdb_buf_puts(&c->body, "pass\n");
}

/* body[k..len) indented in place, pro in front: the text of an empty out
 * without a second copy of the body beside it (the 1M-node program's code
 * is 130 MB). realloc grows the buffer where it is (glibc moves the pages
 * of a big block, it does not copy them). 0, or -1 when memory ran out
 * (body untouched). */
static int indent_in_place(exdb_buf *body, size_t k, const exdb_buf *pro) {
    size_t nl = count_nl(body->s + k, body->s + body->len);
    size_t head = 3 + pro->len + 1 + 4, n = head + (body->len - k) + 4 * nl;
    if (k > head) /* the text would move left over lines not moved yet */
        return -1;
    char *s = realloc(body->s, n + 1);
    if (!s)
        return -1;
    /* from the end: each line moves right by 4 per newline before it */
    size_t src = body->len, dst = n;
    s[n] = '\0';
    while (src > k) {
        const char *q = s + src;
        while (q > s + k && q[-1] != '\n')
            q--;
        size_t from = (size_t)(q - s), len = src - from;
        q = from > k ? q - 1 : NULL; /* the newline before the line */
        dst -= len;
        memmove(s + dst, s + from, len);
        if (!q)
            break;
        dst -= 5;
        memcpy(s + dst, "\n    ", 5);
        src = from - 1;
    }
    memcpy(s, "\n\n\n", 3);
    memcpy(s + 3, pro->s ? pro->s : "", pro->len);
    memcpy(s + 3 + pro->len, "\n    ", 5);
    body->s = s;
    body->len = n;
    body->cap = n + 1;
    return 0;
}

/* lines[] as note_line left them, made lines of the whole text: the body's
 * first line is line 4 + pro_lines (three blank lines and the def). */
static void lines_finish(const cg *c, uint32_t *lines) {
    for (uint32_t i = 0; lines && i < c->g->count; i++)
        if (lines[i])
            lines[i] += 3 + c->pro_lines;
}

/* _gen_python_code(...).src: "\n\n\n" + prologue + "\n" + the body with
 * its leading blank lines stripped and every line indented by 4. */
int exdb_python_code(exdb_buf *out, const exdb_graph *g, const exdb_codegen_opts *o,
                     uint32_t *lines) {
    cg c;
    int rc = -1;
    if (cg_init(&c, g, o) < 0)
        goto done;
    gen_body(&c, lines);
    exdb_buf pro;
    exdb_buf_init(&pro);
    gen_fn_def(&c, &pro);
    c.pro_lines = head_lines(&pro);
    lines_finish(&c, lines);
    int pro_oom = pro.oom;
    const char *body = exdb_buf_str(&c.body);
    size_t k = 0;
    while (body[k] == '\n')
        k++;
    rc = c.oom || c.body.oom || c.prev_summary.oom || pro_oom ? -1 : 0;
    if (rc == 0 && !out->len && !out->oom && indent_in_place(&c.body, k, &pro) == 0) {
        exdb_buf_free(out);
        *out = c.body;
        exdb_buf_init(&c.body);
    } else if (rc == 0) {
        put_head(out, &pro);
        put_indented(out, body, k, c.body.len);
        rc = out->oom ? -1 : 0;
    }
    exdb_buf_free(&pro);
done:
    cg_free(&c);
    return rc;
}

int exdb_python_code_write(const exdb_graph *g, const exdb_codegen_opts *o, uint32_t *lines,
                           size_t piece, exdb_code_write write, void *ctx) {
    cg c;
    int rc = -1;
    if (cg_init(&c, g, o) < 0)
        goto done;
    c.write = write;
    c.wctx = ctx;
    c.piece_len = piece;
    uint32_t i = 0;
    for (const exdb_node *n = g->head; n; n = n->next) {
        i++;
        if (n->op == EXDB_OP_PLACEHOLDER)
            c.nplace = i;
    }
    gen_body(&c, lines);
    if (!c.oom && !c.body.oom && !c.prev_summary.oom)
        write_piece(&c); /* the rest, or all of it */
    lines_finish(&c, lines);
    rc = c.oom || c.body.oom || c.prev_summary.oom ? -1 : 0;
done:
    cg_free(&c);
    return rc;
}

/* The same text cut down to node n's own: as many string operations as a
 * whole python_code() (names, globals and last uses come from the nodes
 * before n), but no text kept but n's, so print node stays fast on a big
 * graph. The plain CodeGen, non-verbose, a graph whose body does not start
 * with blank lines (so no lstrip): what print node asks. */
int exdb_python_code_node(exdb_buf *out, const exdb_graph *g, const exdb_node *n, uint32_t *line) {
    static const exdb_codegen_opts plain = {0};
    cg c;
    int rc = -1;
    *line = 0;
    if (cg_init(&c, g, &plain) < 0)
        goto done;
    c.only = n;
    gen_body(&c, NULL);
    /* the body's first line is line 5: three blank lines and the def */
    size_t len = c.body.len;
    while (len && c.body.s[len - 1] == '\n')
        len--;
    if (len) {
        exdb_buf_put(out, c.body.s, len);
        *line = 5 + c.only_lines;
    }
    rc = c.oom || c.body.oom || c.prev_summary.oom || out->oom ? -1 : 0;
done:
    cg_free(&c);
    return rc;
}
