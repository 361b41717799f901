/* cmd_diff.c - `diff FILE` (the loaded program against another, node by
 * node, then module by module after unflatten), `diff module X Y` (two
 * calls of a module as _deduplicate_modules compares them), `render diff`
 * and the command-line mode `exdb diff A B` (status as diff(1)). The
 * comparisons are core's (core/export/diff.h, core/unflatten/moddiff.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "json_answers.h"
#include "core/export/diff.h"
#include "core/fx/print.h"
#include "core/unflatten/moddiff.h"
#include "session.h"
#include "viz/render.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/unflatten.h"

/* A diff of the session's program (A) with FILE (B). */
typedef struct diff_run {
    exdb_program *b;
    exdb_program_diff *pd;
    exdb_moddiff *md; /* NULL when not compared */
    char why_no_modules[EXDB_ERROR_MAX +
                        64]; /* why md is NULL ("" when modules were not asked for) */
} diff_run;

static void run_free(diff_run *r) {
    exdb_moddiff_free(r->md);
    exdb_diff_free(r->pd);
    exdb_program_free(r->b);
}

/* A finished unflatten run of p: the session's own when it is at the end
 * or its recorded events reach it, else a fresh one
 * (exdb_unflatten_finished; end *h after use). NULL with err when p does
 * not unflatten. */
static const exdb_unflatten *finished(session *s, const exdb_program *p, exdb_ufinished *h,
                                      exdb_error *err) {
    return exdb_unflatten_finished(p == s->prog ? s->run : NULL, p, h, err);
}

static void modules_diff(session *s, diff_run *r) {
    exdb_error err = {0};
    exdb_ufinished fa = {0}, fb = {0};
    const exdb_unflatten *ua = finished(s, s->prog, &fa, &err);
    const char *who = "A";
    const exdb_unflatten *ub = NULL;
    if (ua) {
        who = "B";
        ub = finished(s, r->b, &fb, &err);
    }
    if (ua && ub)
        r->md = exdb_moddiff_trees(ua, ub, r->pd, &err);
    if (!r->md)
        snprintf(r->why_no_modules, sizeof r->why_no_modules, "%s%s%s", ua && ub ? "" : who,
                 ua && ub ? "" : " does not unflatten: ", err.msg);
    exdb_unflatten_finished_end(&fb);
    exdb_unflatten_finished_end(&fa);
}

/* Loads file and compares; -1 after printing a one-line error. */
static int diff_compute(session *s, const char *file, int modules, diff_run *r) {
    memset(r, 0, sizeof *r);
    exdb_error err = {0};
    r->b = exdb_program_load(file, NULL, &err);
    if (!r->b)
        return cmd_fail(s, "diff: %s", err.msg);
    r->pd = exdb_diff_programs(s->prog, r->b, &err);
    if (!r->pd) {
        run_free(r);
        return cmd_fail(s, "%s", err.msg);
    }
    if (modules)
        modules_diff(s, r);
    return 0;
}

static int differs(const diff_run *r) {
    return !exdb_diff_equal(r->pd) || (r->md && r->md->n);
}

/* ---- text */

static void put_node(exdb_buf *b, char mark, const exdb_node *n, exdb_buf *tmp) {
    exdb_buf_printf(b, "  %c ", mark);
    exdb_format_node(b, n);
    if (n->meta && n->meta->val) {
        exdb_buf_reset(tmp);
        exdb_format_val(tmp, n->meta->val);
        if (tmp->len)
            exdb_buf_printf(b, "  %s", exdb_buf_str(tmp));
    }
    exdb_buf_putc(b, '\n');
}

static void put_field(exdb_buf *b, const char *field, const exdb_arg *x, const exdb_arg *y) {
    exdb_buf_printf(b, "      %s: ", field);
    exdb_format_arg(b, x);
    exdb_buf_puts(b, " -> ");
    exdb_format_arg(b, y);
    exdb_buf_putc(b, '\n');
}

/* What a diff line calls n's module: the innermost nn_module_stack path
 * with its call, "<root>" for a stack whose entries name only the root, and
 * what it is for a node without one (placeholders, outputs, nodes torch's
 * tracer left unattributed): "no module stack" or "empty module stack". */
static const char *module_label(exdb_arena *ar, const exdb_node *n) {
    const char *mod = exdb_diff_node_module(ar, n);
    if (mod && mod[0])
        return mod;
    if (!n->meta || !n->meta->has_stack)
        return "no module stack";
    return n->meta->nstack ? "<root>" : "empty module stack";
}

/* The JSON "module": the path, "" for the root, null without a stack. */
static const char *module_json(exdb_arena *ar, const exdb_node *n) {
    if (!n->meta || !n->meta->has_stack || !n->meta->nstack)
        return NULL;
    return exdb_diff_node_module(ar, n);
}

static void put_changed(exdb_buf *b, const exdb_diff_pair *p, exdb_arena *ar, exdb_buf *tmp) {
    exdb_buf_printf(b, "  ~ %s", p->a->name);
    if (p->what & EXDB_DIFF_NAME)
        exdb_buf_printf(b, " -> %s", p->b->name);
    exdb_buf_printf(b, "  [%s]\n", module_label(ar, p->b));
    if (p->what & EXDB_DIFF_TARGET)
        exdb_buf_printf(b, "      target: %s %s -> %s %s\n", exdb_op_name((exdb_op)p->a->op),
                        p->a->target ? p->a->target : "", exdb_op_name((exdb_op)p->b->op),
                        p->b->target ? p->b->target : "");
    if (p->what & EXDB_DIFF_ARGS)
        put_field(b, "args", &p->a->args, &p->b->args);
    if (p->what & EXDB_DIFF_KWARGS)
        put_field(b, "kwargs", &p->a->kwargs, &p->b->kwargs);
    if (p->what & EXDB_DIFF_VALUE) {
        exdb_buf_puts(b, "      value: ");
        exdb_buf_reset(tmp);
        if (p->a->meta && p->a->meta->val)
            exdb_format_val(tmp, p->a->meta->val);
        exdb_buf_printf(b, "%s -> ", tmp->len ? exdb_buf_str(tmp) : "(none)");
        exdb_buf_reset(tmp);
        if (p->b->meta && p->b->meta->val)
            exdb_format_val(tmp, p->b->meta->val);
        exdb_buf_printf(b, "%s\n", tmp->len ? exdb_buf_str(tmp) : "(none)");
    }
    if (p->what & EXDB_DIFF_MODULE) {
        exdb_buf_printf(b, "      module: %s -> %s\n", module_label(ar, p->a),
                        module_label(ar, p->b));
    }
}

static void put_summary(exdb_buf *b, const diff_run *r) {
    const exdb_program_diff *d = r->pd;
    if (!differs(r)) {
        exdb_buf_printf(b, "Programs are equal: %u node%s matched", d->nmatched,
                        cmd_s(d->nmatched));
        if (d->nrenamed)
            exdb_buf_printf(b, " (%u renamed)", d->nrenamed);
        exdb_buf_puts(b, r->md ? ", same module tree.\n" : ".\n");
        return;
    }
    exdb_buf_printf(b, "Programs differ: %u node%s added, %u removed, %u changed", d->nadded,
                    cmd_s(d->nadded), d->nremoved, d->nchanged);
    exdb_buf_printf(b, " (%u matched, %u renamed)", d->nmatched, d->nrenamed);
    exdb_buf_printf(b, "; %u signature, %u call graph, %u program difference%s", d->nsig, d->ncalls,
                    d->nitems - d->nsig - d->ncalls, cmd_s(d->nitems - d->nsig - d->ncalls));
    if (r->md)
        exdb_buf_printf(b, "; %u module%s differ%s", r->md->n, cmd_s(r->md->n),
                        r->md->n == 1 ? "s" : "");
    exdb_buf_puts(b, ".\n");
}

static void put_items(exdb_buf *b, const exdb_program_diff *d, uint32_t from, uint32_t to,
                      const char *title) {
    if (from == to)
        return;
    exdb_buf_printf(b, "%s:\n", title);
    for (uint32_t i = from; i < to; i++) {
        const exdb_diff_item *it = &d->items[i];
        /* inputs and outputs say which; call graph entries and fields do not */
        int sec = !strcmp(it->section, "input") || !strcmp(it->section, "output");
        exdb_buf_printf(b, "  %c %s%s%s", it->change, sec ? it->section : "", sec ? " " : "",
                        it->key);
        if (it->change != '~')
            exdb_buf_printf(b, ": %s\n", it->change == '+' ? it->b : it->a);
        else if (strcmp(it->field, it->key) == 0)
            exdb_buf_printf(b, ": %s -> %s\n", it->a ? it->a : "", it->b ? it->b : "");
        else
            exdb_buf_printf(b, ": %s: %s -> %s\n", it->field, it->a ? it->a : "",
                            it->b ? it->b : "");
    }
}

static void put_ops(exdb_buf *b, const exdb_program_diff *d) {
    if (!d->nops)
        return;
    exdb_buf_puts(b, "Ops (calls in A -> B):\n");
    for (uint32_t i = 0; i < d->nops; i++)
        exdb_buf_printf(b, "  %c %-56s %u -> %u\n", d->ops[i].b > d->ops[i].a ? '+' : '-',
                        d->ops[i].target, d->ops[i].a, d->ops[i].b);
}

static void put_modules(exdb_buf *b, const diff_run *r) {
    if (!r->md) {
        if (r->why_no_modules[0])
            exdb_buf_printf(b, "Modules: not compared: %s\n", r->why_no_modules);
        return;
    }
    if (!r->md->n)
        return;
    exdb_buf_printf(b, "Modules (after unflatten: %u and %u paths):\n", r->md->a_modules,
                    r->md->b_modules);
    for (uint32_t i = 0; i < r->md->n; i++) {
        const exdb_moddiff_item *it = &r->md->items[i];
        const char *fqn = it->fqn[0] ? it->fqn : "<root>";
        if (it->change != '~') {
            const char *cls = it->change == '+' ? it->b_class : it->a_class;
            const char *ty = it->change == '+' ? it->b_type : it->a_type;
            int32_t n = it->change == '+' ? it->b_nodes : it->a_nodes;
            exdb_buf_printf(b, "  %c %s  %s%s%s", it->change, fqn, cls, ty ? " " : "",
                            ty ? ty : "");
            if (n >= 0)
                exdb_buf_printf(b, " (%d node%s)", n, cmd_s((uint64_t)n));
            exdb_buf_putc(b, '\n');
            continue;
        }
        exdb_buf_printf(b, "  ~ %s:", fqn);
        const char *sep = " ";
        if (strcmp(it->a_class, it->b_class) != 0) {
            exdb_buf_printf(b, "%sclass %s -> %s", sep, it->a_class, it->b_class);
            sep = "; ";
        }
        if (!it->a_type != !it->b_type || (it->a_type && strcmp(it->a_type, it->b_type))) {
            exdb_buf_printf(b, "%stype %s -> %s", sep, it->a_type ? it->a_type : "(none)",
                            it->b_type ? it->b_type : "(none)");
            sep = "; ";
        }
        if (it->a_nodes != it->b_nodes) {
            exdb_buf_printf(b, "%snodes %d -> %d", sep, it->a_nodes, it->b_nodes);
            sep = "; ";
        }
        if (it->added || it->removed || it->changed)
            exdb_buf_printf(b, "%sflat nodes %u added, %u removed, %u changed", sep, it->added,
                            it->removed, it->changed);
        exdb_buf_putc(b, '\n');
    }
}

static void diff_text(exdb_buf *b, const exdb_program *a, const diff_run *r) {
    const exdb_program_diff *d = r->pd;
    put_summary(b, r);
    exdb_buf_printf(b, "--- %s (torch %s, %u nodes)\n+++ %s (torch %s, %u nodes)\n", a->path,
                    a->torch_version ? a->torch_version : "?", a->graph->count, r->b->path,
                    r->b->torch_version ? r->b->torch_version : "?", r->b->graph->count);
    exdb_buf tmp;
    exdb_buf_init(&tmp);
    exdb_arena ar;
    exdb_arena_init(&ar);
    put_items(b, d, d->nsig + d->ncalls, d->nitems, "Program");
    put_ops(b, d);
    if (d->nadded)
        exdb_buf_printf(b, "Nodes added (%u):\n", d->nadded);
    for (uint32_t i = 0; i < d->nadded; i++)
        put_node(b, '+', d->added[i], &tmp);
    if (d->nremoved)
        exdb_buf_printf(b, "Nodes removed (%u):\n", d->nremoved);
    for (uint32_t i = 0; i < d->nremoved; i++)
        put_node(b, '-', d->removed[i], &tmp);
    if (d->nchanged)
        exdb_buf_printf(b, "Nodes changed (%u):\n", d->nchanged);
    for (uint32_t i = 0; i < d->nchanged; i++)
        put_changed(b, &d->changed[i], &ar, &tmp);
    if (d->nrenamed) {
        exdb_buf_printf(b, "Nodes renamed (%u):", d->nrenamed);
        for (uint32_t i = 0; i < d->nrenamed; i++)
            exdb_buf_printf(b, "%s %s -> %s", i ? "," : "", d->renamed[i].a->name,
                            d->renamed[i].b->name);
        exdb_buf_putc(b, '\n');
    }
    put_items(b, d, 0, d->nsig, "Signature");
    put_items(b, d, d->nsig, d->nsig + d->ncalls, "Module call graph");
    put_modules(b, r);
    b->oom |= tmp.oom;
    exdb_buf_free(&tmp);
    exdb_arena_destroy(&ar);
}

/* ---- JSON (docs/json.md, "diff") */

static cJSON *str_or_null(const char *s) {
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *json_side(const exdb_program *p) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", p->path ? p->path : "");
    cJSON_AddItemToObject(o, "torch_version", str_or_null(p->torch_version));
    cJSON_AddNumberToObject(o, "nodes", p->graph->count);
    return o;
}

static cJSON *json_node(const exdb_node *n, exdb_arena *ar) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", n->name);
    cJSON_AddStringToObject(o, "op", exdb_op_name((exdb_op)n->op));
    cJSON_AddItemToObject(o, "target", str_or_null(n->target));
    cJSON_AddItemToObject(o, "module", str_or_null(module_json(ar, n)));
    cJSON_AddItemToObject(o, "value", ja_val(n->meta ? n->meta->val : NULL));
    return o;
}

/* A node's args as a list, its kwargs as an object (as "node" has them). */
static cJSON *json_args(const exdb_arg *a) {
    cJSON *o = a->kind == EXDB_ARG_DICT ? cJSON_CreateObject() : cJSON_CreateArray();
    for (uint32_t i = 0; o && i < a->n; i++) {
        if (a->kind == EXDB_ARG_DICT)
            cJSON_AddItemToObject(o, a->keys[i], ja_arg(&a->u.items[i]));
        else
            cJSON_AddItemToArray(o, ja_arg(&a->u.items[i]));
    }
    return o;
}

static cJSON *json_pair(const exdb_diff_pair *p, exdb_arena *ar) {
    static const struct {
        uint32_t bit;
        const char *name;
    } bits[] = {{EXDB_DIFF_NAME, "name"},   {EXDB_DIFF_TARGET, "target"},
                {EXDB_DIFF_ARGS, "args"},   {EXDB_DIFF_KWARGS, "kwargs"},
                {EXDB_DIFF_VALUE, "value"}, {EXDB_DIFF_MODULE, "module"}};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "a", json_node(p->a, ar));
    cJSON_AddItemToObject(o, "b", json_node(p->b, ar));
    cJSON *w = cJSON_AddArrayToObject(o, "what");
    for (size_t i = 0; w && i < sizeof bits / sizeof *bits; i++)
        if (p->what & bits[i].bit)
            cJSON_AddItemToArray(w, cJSON_CreateString(bits[i].name));
    if (p->what & EXDB_DIFF_ARGS) {
        cJSON_AddItemToObject(o, "args_a", json_args(&p->a->args));
        cJSON_AddItemToObject(o, "args_b", json_args(&p->b->args));
    }
    if (p->what & EXDB_DIFF_KWARGS) {
        cJSON_AddItemToObject(o, "kwargs_a", json_args(&p->a->kwargs));
        cJSON_AddItemToObject(o, "kwargs_b", json_args(&p->b->kwargs));
    }
    return o;
}

static cJSON *json_items(const exdb_program_diff *d, uint32_t from, uint32_t to) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = from; i < to; i++) {
        const exdb_diff_item *it = &d->items[i];
        cJSON *o = cJSON_CreateObject();
        char ch[2] = {it->change, 0};
        cJSON_AddStringToObject(o, "change", ch);
        cJSON_AddStringToObject(o, "section", it->section);
        cJSON_AddStringToObject(o, "key", it->key);
        cJSON_AddItemToObject(o, "field", str_or_null(it->field));
        cJSON_AddItemToObject(o, "a", str_or_null(it->a));
        cJSON_AddItemToObject(o, "b", str_or_null(it->b));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *json_modules(const diff_run *r) {
    if (!r->md)
        return cJSON_CreateNull();
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; i < r->md->n; i++) {
        const exdb_moddiff_item *it = &r->md->items[i];
        cJSON *o = cJSON_CreateObject();
        char ch[2] = {it->change, 0};
        cJSON_AddStringToObject(o, "change", ch);
        cJSON_AddStringToObject(o, "fqn", it->fqn);
        cJSON_AddItemToObject(o, "class_a", str_or_null(it->a_class));
        cJSON_AddItemToObject(o, "class_b", str_or_null(it->b_class));
        cJSON_AddItemToObject(o, "type_a", str_or_null(it->a_type));
        cJSON_AddItemToObject(o, "type_b", str_or_null(it->b_type));
        cJSON_AddItemToObject(
            o, "nodes_a", it->a_nodes < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(it->a_nodes));
        cJSON_AddItemToObject(
            o, "nodes_b", it->b_nodes < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(it->b_nodes));
        cJSON_AddNumberToObject(o, "flat_added", it->added);
        cJSON_AddNumberToObject(o, "flat_removed", it->removed);
        cJSON_AddNumberToObject(o, "flat_changed", it->changed);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *diff_json(const exdb_program *a, const diff_run *r) {
    const exdb_program_diff *d = r->pd;
    exdb_arena ar;
    exdb_arena_init(&ar);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "equal", !differs(r));
    cJSON_AddItemToObject(o, "a", json_side(a));
    cJSON_AddItemToObject(o, "b", json_side(r->b));
    cJSON *n = cJSON_AddObjectToObject(o, "nodes");
    if (n) {
        cJSON_AddNumberToObject(n, "matched", d->nmatched);
        cJSON_AddNumberToObject(n, "matched_by_name", d->nby_name);
        cJSON *arr = cJSON_AddArrayToObject(n, "added");
        for (uint32_t i = 0; arr && i < d->nadded; i++)
            cJSON_AddItemToArray(arr, json_node(d->added[i], &ar));
        arr = cJSON_AddArrayToObject(n, "removed");
        for (uint32_t i = 0; arr && i < d->nremoved; i++)
            cJSON_AddItemToArray(arr, json_node(d->removed[i], &ar));
        arr = cJSON_AddArrayToObject(n, "changed");
        for (uint32_t i = 0; arr && i < d->nchanged; i++)
            cJSON_AddItemToArray(arr, json_pair(&d->changed[i], &ar));
        arr = cJSON_AddArrayToObject(n, "renamed");
        for (uint32_t i = 0; arr && i < d->nrenamed; i++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "a", d->renamed[i].a->name);
            cJSON_AddStringToObject(p, "b", d->renamed[i].b->name);
            cJSON_AddItemToArray(arr, p);
        }
    }
    cJSON *ops = cJSON_AddArrayToObject(o, "ops");
    for (uint32_t i = 0; ops && i < d->nops; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "target", d->ops[i].target);
        cJSON_AddNumberToObject(x, "a", d->ops[i].a);
        cJSON_AddNumberToObject(x, "b", d->ops[i].b);
        cJSON_AddItemToArray(ops, x);
    }
    cJSON_AddItemToObject(o, "signature", json_items(d, 0, d->nsig));
    cJSON_AddItemToObject(o, "module_call_graph", json_items(d, d->nsig, d->nsig + d->ncalls));
    cJSON_AddItemToObject(o, "program", json_items(d, d->nsig + d->ncalls, d->nitems));
    cJSON_AddItemToObject(o, "modules", json_modules(r));
    cJSON_AddItemToObject(o, "modules_error",
                          str_or_null(r->why_no_modules[0] ? r->why_no_modules : NULL));
    exdb_arena_destroy(&ar);
    return o;
}

/* ---- commands */

/* The status `exdb diff A B` exits with: 0 equal, 1 different, 2 trouble. */
static int last_status = 2;

static int cmd_diff_module(session *s, int argc, char **argv);

static int cmd_diff(session *s, int argc, char **argv) {
    if (strcmp(argv[1], "module") == 0)
        return cmd_diff_module(s, argc, argv);
    const char *file = NULL;
    int modules = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-modules") == 0)
            modules = 0;
        else if (argv[i][0] == '-' && argv[i][1])
            return cmd_fail(s, "diff: unknown option \"%s\".  Try \"help diff\".", argv[i]);
        else if (!file)
            file = argv[i];
        else
            return cmd_fail(s, "diff: one file to compare with.  Try \"help diff\".");
    }
    if (!file)
        return cmd_fail(s, "diff: say which program to compare with: diff FILE");
    last_status = 2;
    diff_run r;
    if (diff_compute(s, file, modules, &r) < 0)
        return -1;
    free(s->diff_file);
    s->diff_file = strdup(file);
    diff_text(&s->buf, s->prog, &r);
    cmd_flush(s, 0);
    if (s->json)
        cmd_json_add(s, "diff", diff_json(s->prog, &r));
    last_status = differs(&r);
    run_free(&r);
    return 0;
}

/* The line of a _check_graph_equivalence dump without its "i: ". */
static const char *dump_body(const char *line) {
    const char *c = strchr(line, ':');
    return c ? c + 2 : line;
}

static void modcalls_text(exdb_buf *b, const exdb_modcalls *c) {
    if (c->first < 0) {
        exdb_buf_printf(b, "%s and %s are equivalent (%u node%s, _check_graph_equivalence)",
                        c->fqn[0], c->fqn[1], c->n[0], cmd_s(c->n[0]));
        if (c->merged_into)
            exdb_buf_printf(b, ": _deduplicate_modules merged %s into %s.\n", c->fqn[1],
                            c->merged_into);
        else if (c->mod[0] == c->mod[1])
            exdb_buf_puts(b, ": one module object.\n");
        else
            exdb_buf_puts(b, ".\n");
    } else {
        uint32_t i = (uint32_t)c->first;
        exdb_buf_printf(b,
                        "%s and %s differ at node %u (%s / %s): _deduplicate_modules keeps "
                        "them apart.\n",
                        c->fqn[0], c->fqn[1], i, i < c->n[0] ? c->nodes[0][i]->name : "(none)",
                        i < c->n[1] ? c->nodes[1][i]->name : "(none)");
    }
    int w = 12;
    for (uint32_t i = 0; i < c->n[0]; i++) {
        int l = (int)strlen(dump_body(c->lines[0][i]));
        w = l > w ? l : w;
    }
    w = w > 60 ? 60 : w;
    exdb_buf_printf(b, "       %-*.*s | %s\n", w, w, c->fqn[0], c->fqn[1]);
    for (uint32_t i = 0; i < c->n[0] || i < c->n[1]; i++) {
        const char *x = i < c->n[0] ? dump_body(c->lines[0][i]) : "";
        const char *y = i < c->n[1] ? dump_body(c->lines[1][i]) : "";
        int same = i < c->n[0] && i < c->n[1] && strcmp(x, y) == 0;
        exdb_buf_printf(b, "%c %4u  %-*.*s | %s\n", same ? ' ' : '!', i, w, w, x, same ? "=" : y);
    }
}

static cJSON *modcalls_json(const exdb_modcalls *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "a", c->fqn[0]);
    cJSON_AddStringToObject(o, "b", c->fqn[1]);
    cJSON_AddStringToObject(o, "class_a", exdb_modtree_class_name(c->mod[0]));
    cJSON_AddStringToObject(o, "class_b", exdb_modtree_class_name(c->mod[1]));
    cJSON_AddBoolToObject(o, "equivalent", c->first < 0);
    cJSON_AddBoolToObject(o, "same_object", c->mod[0] == c->mod[1]);
    cJSON_AddItemToObject(o, "merged_into", str_or_null(c->merged_into));
    uint32_t f = (uint32_t)c->first;
    cJSON_AddItemToObject(o, "first_difference",
                          c->first < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(c->first));
    cJSON_AddItemToObject(o, "first_a",
                          str_or_null(c->first >= 0 && f < c->n[0] ? c->nodes[0][f]->name : NULL));
    cJSON_AddItemToObject(o, "first_b",
                          str_or_null(c->first >= 0 && f < c->n[1] ? c->nodes[1][f]->name : NULL));
    for (int side = 0; side < 2; side++) {
        cJSON *arr = cJSON_AddArrayToObject(o, side ? "lines_b" : "lines_a");
        for (uint32_t i = 0; arr && i < c->n[side]; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateString(c->lines[side][i]));
    }
    return o;
}

static int cmd_diff_module(session *s, int argc, char **argv) {
    if (argc != 4)
        return cmd_fail(s, "diff module: two module paths or calls: diff module n n@1");
    exdb_error err = {0};
    exdb_ufinished fresh;
    const exdb_unflatten *u = finished(s, s->prog, &fresh, &err);
    if (!u)
        return cmd_fail(s, "diff module: the program does not unflatten: %s", err.msg);
    exdb_modcalls *c = exdb_moddiff_calls(u, argv[2], argv[3], &err);
    if (!c) {
        exdb_unflatten_finished_end(&fresh);
        return cmd_fail(s, "%s", err.msg);
    }
    modcalls_text(&s->buf, c);
    cmd_flush(s, 0);
    if (s->json)
        cmd_json_add(s, "module_diff", modcalls_json(c));
    exdb_modcalls_free(c);
    exdb_unflatten_finished_end(&fresh);
    return 0;
}

/* render diff [FILE] -o OUT (render's options parsed by cmd_render.c into
 * view and set). */
int cmd_diff_render(session *s, const char *file, const char *out, exdb_viz_view *view,
                    exdb_viz_settings *set) {
    exdb_error err = {0};
    if (!file && !(file = s->diff_file))
        return cmd_fail(s, "render diff: say which program to compare with: render diff FILE -o "
                           "OUT (or run \"diff FILE\" first)");
    if (!out)
        return cmd_fail(s, "render: say where to write: -o FILE.{dot,svg,png,pdf,html}");
    diff_run r;
    if (diff_compute(s, file, 0, &r) < 0)
        return -1;
    exdb_viz_source src = {.prog = s->prog, .diff = r.pd};
    exdb_viz_stats st;
    set->interrupt = &exdb_interrupted;
    int rc = exdb_viz_render(&src, view, set, out, &st, &err);
    run_free(&r);
    if (rc < 0)
        return cmd_fail(s, "%s", err.msg);
    fprintf(s->out, "Wrote %s: %u node%s, %u edge%s", out, st.nodes, cmd_s(st.nodes), st.edges,
            cmd_s(st.edges));
    if (st.engine)
        fprintf(s->out, "; %s layout", st.engine);
    fputs(".\n", s->out);
    if (s->json)
        cmd_json_add(s, "file", ja_render_file(out, "diff", &st));
    return 0;
}

/* exdb diff [--json] [--no-modules] A B: prints the diff, exits 0 when the
 * programs are equal, 1 when they differ, 2 on trouble (as diff(1)). */
int cmd_diff_main(int argc, char **argv) {
    const char *files[2] = {NULL, NULL};
    int nfiles = 0, json = 0, modules = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--no-modules") == 0)
            modules = 0;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr,
                    "exdb diff: unknown option %s (usage: exdb diff [--json] "
                    "[--no-modules] A B)\n",
                    argv[i]);
            return 2;
        } else if (nfiles < 2)
            files[nfiles++] = argv[i];
        else
            nfiles = 3;
    }
    if (nfiles != 2) {
        fprintf(stderr, "exdb diff: two programs to compare (usage: exdb diff [--json] "
                        "[--no-modules] A B)\n");
        return 2;
    }
    session s;
    session_init(&s);
    s.json = json;
    exdb_error err = {0};
    s.prog = exdb_program_load(files[0], NULL, &err);
    int rc = 2;
    if (!s.prog) {
        fprintf(stderr, "exdb diff: %s\n", err.msg);
    } else {
        /* through session_exec, so --json gets the answer's envelope */
        size_t n = strlen(files[1]) + 32;
        char *line = malloc(n);
        last_status = 2;
        if (line && !strchr(files[1], '\'')) {
            snprintf(line, n, "diff '%s'%s", files[1], modules ? "" : " --no-modules");
            session_exec(&s, line);
        } else if (line) {
            char *words[] = {"diff", (char *)files[1], "--no-modules", NULL};
            cmd_diff(&s, modules ? 2 : 3, words);
        }
        free(line);
        rc = last_status;
    }
    session_free(&s);
    return rc;
}

const command diff_commands[] = {
    {"diff", 1, 3, CMD_NEEDS_PROGRAM, "diff FILE [--no-modules] | diff module X Y",
     "Compare the program with another, node by node and module by module.",
     "diff FILE          the loaded program (A) against FILE (B): nodes matched by name,\n"
     "                   then by structure where names shifted (docs/diff.md); nodes\n"
     "                   added, removed, changed (target, args, kwargs, value, module)\n"
     "                   and renamed; the graph signature, the module_call_graph and the\n"
     "                   program's fields; then both unflattened, the module tree path\n"
     "                   by path (class, type, graph size, flat nodes changed in each\n"
     "                   module call). --no-modules skips unflattening.\n"
     "diff module X Y    two modules or calls of the unflattened program (\"n n@1\"; a\n"
     "                   dispatcher's call K is n@K) side by side as\n"
     "                   _deduplicate_modules compares them, naming the first node that\n"
     "                   kept them apart (or the call dedup merged)\n"
     "render diff [FILE] -o d.svg draws B's graph with A's removed nodes: added green,\n"
     "                   removed red, changed orange (FILE: the last diff's).\n"
     "From the shell: exdb diff [--json] [--no-modules] A B exits 0 when equal, 1 when\n"
     "different, 2 on an error, as diff(1).",
     cmd_diff, NULL, NULL},
};
const size_t diff_ncommands = sizeof diff_commands / sizeof *diff_commands;
