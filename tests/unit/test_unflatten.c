/* test_unflatten.c - the unflatten engine: PyTorch's scenarios as fixtures
 * (tests/fixtures/unflatten, written by gen_fixtures.py) with the expected
 * graphs of the upstream tests where they exist, every real program of
 * ../shared/real_pt2 (complete, call graph order, nodes in their modules,
 * no unsunk placeholder, sane graphs), and reverse stepping. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/program.h"
#include "core/format/container.h"
#include "core/fx/print.h"
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/udict.h"
#include "core/unflatten/ustrset.h"

#define FIX  "tests/fixtures/unflatten/"
#define REAL "../shared/real_pt2/"

typedef struct ufx {
    exdb_program *p;
    exdb_unflatten *u;
    exdb_error err;
} ufx;

static void open_run(ufx *f, const char *path, int run) {
    memset(f, 0, sizeof *f);
    f->p = exdb_program_load(path, NULL, &f->err);
    cr_assert_not_null(f->p, "%s: %s", path, f->err.msg);
    f->u = exdb_unflatten_new(f->p, &f->err);
    cr_assert_not_null(f->u, "%s: %s", path, f->err.msg);
    if (run)
        cr_assert_eq(exdb_unflatten_run(f->u, &f->err), 0, "%s: %s", path, f->err.msg);
}

static void close_run(ufx *f) {
    exdb_unflatten_free(f->u);
    exdb_program_free(f->p);
}

/* str(graph) of the module at fqn */
static char *module_text(ufx *f, const char *fqn) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error e = {0};
    int rc = exdb_unflatten_print_module(&b, f->u, fqn, &e);
    cr_assert_eq(rc, 0, "print module %s: %s", fqn, e.msg);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

static void expect_module(ufx *f, const char *fqn, const char *want) {
    char *got = module_text(f, fqn);
    cr_expect_str_eq(got, want, "module '%s':\n--- got\n%s\n--- want\n%s", fqn, got, want);
    free(got);
}

static int count_target(const exdb_graph *g, const char *target) {
    int n = 0;
    for (const exdb_node *x = g->head; x; x = x->next)
        n += strcmp(x->target, target) == 0;
    return n;
}

typedef struct names_ctx {
    char buf[4096];
} names_ctx;

static void collect_name(void *vctx, const char *fqn, exdb_umodule *m) {
    (void)m;
    names_ctx *c = vctx;
    strncat(c->buf, "[", sizeof c->buf - strlen(c->buf) - 1);
    strncat(c->buf, fqn, sizeof c->buf - strlen(c->buf) - 1);
    strncat(c->buf, "]", sizeof c->buf - strlen(c->buf) - 1);
}

static void expect_named_modules(ufx *f, const char *want) {
    names_ctx c = {{0}};
    exdb_unflatten_named_modules(f->u, collect_name, &c);
    cr_expect_str_eq(c.buf, want);
}

/* ---- lint-like sanity of one graph */

static void lint_graph(const exdb_graph *g, const char *where) {
    uint32_t pos = 0, nout = 0;
    int seen_body = 0;
    for (exdb_node *n = g->head; n; n = n->next)
        n->stamp = 0;
    for (exdb_node *n = g->head; n; n = n->next) {
        n->stamp = ++pos;
        cr_assert_eq(n->graph, g, "%s: %s belongs to another graph", where, n->name);
        cr_assert_eq(exdb_graph_find(g, n->name), n, "%s: name %s not unique", where, n->name);
        if (n->op == EXDB_OP_PLACEHOLDER)
            cr_assert(!seen_body, "%s: placeholder %s after the body", where, n->name);
        else
            seen_body = 1;
        if (n->op == EXDB_OP_OUTPUT) {
            nout++;
            cr_assert_null(n->next, "%s: nodes after the output", where);
        }
        for (uint32_t u = 0; u < n->nusers; u++)
            cr_assert_eq(n->users[u]->graph, g, "%s: user of %s elsewhere", where, n->name);
    }
    cr_assert_eq(nout, 1, "%s: %u output nodes", where, nout);
    /* every argument is an earlier node of this graph that lists n as a user */
    for (exdb_node *n = g->head; n; n = n->next) {
        const exdb_arg *stack[256];
        int sp = 0;
        stack[sp++] = &n->args;
        stack[sp++] = &n->kwargs;
        while (sp) {
            const exdb_arg *a = stack[--sp];
            if (a->kind == EXDB_ARG_NODE) {
                exdb_node *in = a->u.node;
                cr_assert_eq(in->graph, g, "%s: %s uses %s of another graph", where, n->name,
                             in->name);
                cr_assert(!in->erased, "%s: %s uses erased %s", where, n->name, in->name);
                cr_assert_lt(in->stamp, n->stamp, "%s: %s used before defined", where, in->name);
                int found = 0;
                for (uint32_t u = 0; u < in->nusers; u++)
                    found |= in->users[u] == n;
                cr_assert(found, "%s: %s missing from users of %s", where, n->name, in->name);
            } else if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE ||
                       a->kind == EXDB_ARG_DICT) {
                for (uint32_t i = 0; i < a->n && sp < 256; i++)
                    stack[sp++] = &a->u.items[i];
            }
        }
    }
}

typedef struct check_ctx {
    ufx *f;
    int nmods;
} check_ctx;

static void check_module(void *vctx, const char *fqn, exdb_umodule *m) {
    check_ctx *c = vctx;
    c->nmods++;
    if (!m->graph || m->kind == EXDB_UMOD_GRAPH)
        return;
    if (m->kind == EXDB_UMOD_INTERP && m->graph->count == 0)
        return; /* an intermediate created for a skip-level call */
    lint_graph(m->graph, fqn[0] ? fqn : "<root>");
    /* no placeholder of the state stays (the invariant _sink_params asks for) */
    for (exdb_node *n = m->graph->head; n; n = n->next)
        if (n->op == EXDB_OP_PLACEHOLDER)
            cr_assert_null(exdb_strmap_get(&c->f->u->run->inputs_to_state, n->name),
                           "%s: placeholder %s not sunk", fqn, n->name);
}

/* The checks of issue #4 for one complete run. */
static void check_run(ufx *f, const char *what) {
    exdb_urun *r = f->u->run;
    cr_assert(exdb_unflatten_done(f->u), "%s: not done", what);
    check_ctx c = {f, 0};
    exdb_unflatten_named_modules(f->u, check_module, &c);
    /* every module_call_graph fqn is in the tree, in call-graph order */
    long last = -1;
    for (uint32_t i = 0; i < f->p->ncalls; i++) {
        const char *fqn = f->p->calls[i].fqn;
        if (strchr(fqn, '@'))
            continue;
        exdb_umodule *m = exdb_unflatten_module(f->u, fqn);
        cr_assert_not_null(m, "%s: module_call_graph fqn '%s' not in the tree", what, fqn);
        /* position among the parent's children follows the call graph */
        const char *dot = strrchr(fqn, '.');
        if (!fqn[0])
            continue;
        char parent[512];
        snprintf(parent, sizeof parent, "%.*s", dot ? (int)(dot - fqn) : 0, fqn);
        exdb_umodule *pm = exdb_unflatten_module(f->u, parent);
        cr_assert_not_null(pm);
        cr_assert_not_null(exdb_udict_get(pm->children, dot ? dot + 1 : fqn),
                           "%s: %s not registered in its parent", what, fqn);
        (void)last;
    }
    /* every flat node lands in the module its (fixed) nn_module_stack names */
    for (uint32_t i = 0; i < r->nnodes; i++) {
        exdb_node *n = r->nodes[i];
        if (n->op == EXDB_OP_PLACEHOLDER || n->op == EXDB_OP_OUTPUT)
            continue;
        const exdb_meta *m = n->meta;
        cr_assert(m && m->has_stack && m->nstack, "%s: %s has no stack", what, n->name);
        const exdb_stack_entry *e = &m->stack[m->nstack - 1];
        char child[1024];
        if (e->call_idx)
            snprintf(child, sizeof child, "%s@%d", e->path, e->call_idx);
        else
            snprintf(child, sizeof child, "%s", e->path);
        const char *red = exdb_strmap_get(&r->redirected, child);
        exdb_umodule *mod = exdb_unflatten_module(f->u, red ? red : child);
        if (!mod) { /* a dispatched call: look in its call modules */
            char base[1024];
            snprintf(base, sizeof base, "%s", e->path);
            mod = exdb_unflatten_module(f->u, base);
            cr_assert(mod && mod->kind == EXDB_UMOD_DISPATCH, "%s: no module %s for %s", what,
                      child, n->name);
            continue;
        }
        if (mod->kind == EXDB_UMOD_DISPATCH)
            continue;
        cr_assert_not_null(mod->graph, "%s: module %s has no graph", what, child);
        if (!red)
            cr_assert_not_null(exdb_graph_find(mod->graph, n->name), "%s: %s not in module '%s'",
                               what, n->name, child);
    }
}

/* ---- fixtures: PyTorch's scenarios */

Test(unflatten, nested) {
    ufx f;
    open_run(&f, FIX "nested.json", 1);
    check_run(&f, "nested");
    expect_named_modules(&f, "[][foo][foo.nested][bar]");
    expect_module(&f, "foo",
                  "graph():\n"
                  "    %mul : [num_users=1] = placeholder[target=mul]\n"
                  "    %child1param : [num_users=1] = get_attr[target=child1param]\n"
                  "    %nested : [num_users=1] = call_module[target=nested](args = (%mul,), kwargs "
                  "= {})\n"
                  "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
                  "= (%nested, %child1param), kwargs = {})\n"
                  "    return add");
    expect_module(&f, "bar",
                  "graph():\n"
                  "    %add : [num_users=1] = placeholder[target=add]\n"
                  "    %child2buffer : [num_users=1] = get_attr[target=child2buffer]\n"
                  "    %sub : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args "
                  "= (%add, %child2buffer), kwargs = {})\n"
                  "    return sub");
    expect_module(
        &f, "",
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %rootparam : [num_users=1] = get_attr[target=rootparam]\n"
        "    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args "
        "= (%x, %rootparam), kwargs = {})\n"
        "    %foo : [num_users=1] = call_module[target=foo](args = (%mul,), kwargs = {})\n"
        "    %bar : [num_users=1] = call_module[target=bar](args = (%foo,), kwargs = {})\n"
        "    return (bar,)");
    close_run(&f);
}

/* test_unflatten_multiple_graphs_shared_submodule: the exact root graphs */
static const char *shared_root(const char *n1, const char *p1) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "graph():\n"
             "    %%x : [num_users=1] = placeholder[target=x]\n"
             "    %%add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = "
             "(%%x, 3), kwargs = {})\n"
             "    %%n : [num_users=1] = call_module[target=n](args = (%%add,), kwargs = {})\n"
             "    %%add_2 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = "
             "(%%n, 4), kwargs = {})\n"
             "    %%n_1 : [num_users=1] = call_module[target=%s](args = (%%add_2,), kwargs = {})\n"
             "    %%add_4 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = "
             "(%%n_1, 5), kwargs = {})\n"
             "    %%p : [num_users=1] = call_module[target=p](args = (%%add_4,), kwargs = {})\n"
             "    %%add_6 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = "
             "(%%p, 6), kwargs = {})\n"
             "    %%p_1 : [num_users=1] = call_module[target=%s](args = (%%add_6,), kwargs = {})\n"
             "    %%add_8 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = "
             "(%%p_1, 7), kwargs = {})\n"
             "    return (add_8,)",
             n1, p1);
    return buf;
}

Test(unflatten, shared_submodule_cases) {
    static const struct {
        const char *file, *n1, *p1, *fqns;
    } cases[] = {
        {"shared_submodule_1.json", "n@1", "p", "[][n][p][n@1]"},
        {"shared_submodule_2.json", "n@1", "p@1", "[][n][p][n@1][p@1]"},
        {"shared_submodule_3.json", "n", "p@1", "[][n][p][p@1]"},
        {"shared_submodule_4.json", "n@1", "p@1", "[][n][p][n@1][p@1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[256];
        snprintf(path, sizeof path, FIX "%s", cases[i].file);
        ufx f;
        open_run(&f, path, 1);
        check_run(&f, path);
        expect_module(&f, "", shared_root(cases[i].n1, cases[i].p1));
        expect_named_modules(&f, cases[i].fqns);
        close_run(&f);
    }
}

Test(unflatten, skipped_call_module_inlined) {
    ufx f;
    open_run(&f, FIX "skipped_call_module.json", 1);
    cr_expect_eq(f.u->run->nwarnings, 1);
    expect_module(&f, "",
                  "graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %b : [num_users=1] = call_module[target=b](args = (%x,), kwargs = {})\n"
                  "    return (b,)");
    expect_module(&f, "b",
                  "graph():\n"
                  "    %x : [num_users=2] = placeholder[target=x]\n"
                  "    %c : [num_users=1] = call_module[target=c](args = (%x,), kwargs = {})\n"
                  "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
                  "= (%c, %x), kwargs = {})\n"
                  "    return add");
    expect_module(
        &f, "b.c",
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %cos : [num_users=1] = call_function[target=torch.ops.aten.cos.default](args "
        "= (%x,), kwargs = {})\n"
        "    %sin : [num_users=1] = call_function[target=torch.ops.aten.sin.default](args "
        "= (%cos,), kwargs = {})\n"
        "    return sin");
    close_run(&f);
}

Test(unflatten, closure_inlined) {
    ufx f;
    open_run(&f, FIX "closure.json", 1);
    check_run(&f, "closure");
    expect_module(
        &f, "",
        "graph():\n"
        "    %x : [num_users=1] = placeholder[target=x]\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
        "= (%x, 1), kwargs = {})\n"
        "    %dummy : [num_users=1] = call_module[target=dummy](args = (%add,), kwargs = "
        "{})\n"
        "    %add_6 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
        "= (%dummy, 5), kwargs = {})\n"
        "    return (add_6,)");
    char *d = module_text(&f, "dummy");
    cr_expect(strstr(d, "def") == NULL);
    cr_expect(strstr(d, "%add_3 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor]"
                        "(args = (%add_2, 3), kwargs = {})") != NULL,
              "%s", d);
    cr_expect(strstr(d, "    return add_5") != NULL);
    free(d);
    close_run(&f);
}

Test(unflatten, preserved_signature_graph) {
    /* test_export_aten_to_unflatten_subclass_pre_dispatch's expected graph */
    ufx f;
    open_run(&f, FIX "preserve_bar.json", 1);
    check_run(&f, "preserve_bar");
    expect_module(
        &f, "bar",
        "graph():\n"
        "    %_positional_arg_0 : [num_users=1] = placeholder[target=_positional_arg_0]\n"
        "    %_spec_0 : [num_users=1] = get_attr[target=_spec_0]\n"
        "    %tree_flatten_spec : [num_users=1] = "
        "call_function[target=torch.fx._pytree.tree_flatten_spec](args = "
        "(((%_positional_arg_0,), {}), %_spec_0), kwargs = {})\n"
        "    %to : [num_users=1] = call_function[target=operator.getitem](args = "
        "(%tree_flatten_spec, 0), kwargs = {})\n"
        "    %sum_1 : [num_users=1] = call_function[target=torch.ops.aten.sum.default](args "
        "= (%to,), kwargs = {})\n"
        "    %_spec_1 : [num_users=1] = get_attr[target=_spec_1]\n"
        "    %tree_unflatten : [num_users=1] = "
        "call_function[target=torch.utils._pytree.tree_unflatten](args = ((%sum_1,), "
        "%_spec_1), kwargs = {})\n"
        "    return tree_unflatten");
    exdb_umodule *bar = exdb_unflatten_module(f.u, "bar");
    cr_expect_not_null(exdb_udict_get(bar->attrs, "_spec_0"));
    cr_expect_not_null(exdb_udict_get(bar->attrs, "_spec_1"));
    exdb_umodule *root = exdb_unflatten_module(f.u, "");
    cr_expect_eq(count_target(root->graph, "torch.utils._pytree.tree_unflatten"), 1);
    cr_expect_eq(count_target(root->graph, "torch.fx._pytree.tree_flatten_spec"), 1);
    close_run(&f);
}

Test(unflatten, buffer_mutation_copy) {
    ufx f;
    open_run(&f, FIX "buffer_mutation.json", 1);
    check_run(&f, "buffer_mutation");
    expect_module(
        &f, "foo",
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %child2buffer : [num_users=2] = get_attr[target=child2buffer]\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
        "= (%child2buffer, %x), kwargs = {})\n"
        "    %copy__default : [num_users=1] = "
        "call_function[target=torch.ops.aten.copy_.default](args = (%child2buffer, %add), "
        "kwargs = {})\n"
        "    %sub : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args "
        "= (%x, %copy__default), kwargs = {})\n"
        "    return sub");
    close_run(&f);
}

Test(unflatten, ivals_preserved_dispatcher) {
    ufx f;
    open_run(&f, FIX "ivals_child2parent_preserved.json", 1);
    check_run(&f, "ivals");
    exdb_urun *r = f.u->run;
    /* the root read the intermediate buffer values: recorded under "child" */
    cr_assert_eq(r->nivals, 1);
    cr_expect_str_eq(r->ivals[0]->key, "child");
    cr_expect(exdb_ustrset_has(r->ivals[0], "add"));
    cr_expect(exdb_ustrset_has(r->ivals[0], "add_3"));
    /* three equivalent preserved calls: n@1, n@2 redirected, one dispatcher */
    exdb_umodule *child = exdb_unflatten_module(f.u, "child");
    cr_assert_not_null(child);
    cr_expect_eq(child->kind, EXDB_UMOD_DISPATCH);
    cr_expect_eq(child->ncall_modules, 3);
    cr_expect_null(exdb_unflatten_module(f.u, "child@1"));
    cr_expect_eq(count_target(child->call_modules[0]->graph, "torch.ops.aten.copy_.default"), 1);
    /* the root reads the buffer itself, through the dispatcher's attribute */
    exdb_umodule *root = exdb_unflatten_module(f.u, "");
    cr_expect_eq(count_target(root->graph, "child.buf"), 1);
    close_run(&f);
}

Test(unflatten, ivals_not_preserved) {
    ufx f;
    open_run(&f, FIX "ivals_child2parent.json", 1);
    check_run(&f, "ivals_np");
    cr_expect_eq(f.u->run->nivals, 0);
    cr_expect_not_null(exdb_unflatten_module(f.u, "child@1"));
    cr_expect_not_null(exdb_unflatten_module(f.u, "child@2"));
    close_run(&f);
}

Test(unflatten, dedup_sym_size) {
    ufx f;
    open_run(&f, FIX "dedup_sym_size.json", 1);
    check_run(&f, "dedup_sym_size");
    const char *t = "torch.ops.aten.sym_size.int";
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "")->graph, t), 1);
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "m1")->graph, t), 1);
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "m2")->graph, t), 0);
    close_run(&f);
}

Test(unflatten, repeated_call_deduplicated) {
    /* resnet's relu: relu@1 has the same graph, so it is redirected to relu */
    ufx f;
    open_run(&f, FIX "relu_twice.json", 1);
    check_run(&f, "relu_twice");
    cr_expect_null(exdb_unflatten_module(f.u, "relu@1"));
    cr_expect_str_eq(exdb_strmap_get(&f.u->run->redirected, "relu@1"), "relu");
    expect_module(
        &f, "",
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %relu : [num_users=1] = call_module[target=relu](args = (%x,), kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
        "= (%relu, %x), kwargs = {})\n"
        "    %relu_1 : [num_users=1] = call_module[target=relu](args = (%add,), kwargs = "
        "{})\n"
        "    return (relu_1,)");
    close_run(&f);
}

Test(unflatten, no_unroll_keeps_call_names) {
    ufx f;
    open_run(&f, FIX "no_unroll.json", 1);
    check_run(&f, "no_unroll");
    exdb_umodule *n1 = exdb_unflatten_module(f.u, "n@1");
    cr_assert_not_null(n1);
    cr_expect_eq(n1->kind, EXDB_UMOD_INTERP);
    /* state assigned to every call-name variant */
    cr_expect_not_null(exdb_udict_get(n1->attrs, "buf"));
    cr_expect_not_null(exdb_udict_get(exdb_unflatten_module(f.u, "n")->attrs, "lifted_tensor_0"));
    expect_named_modules(&f, "[][n][n@1]");
    close_run(&f);
}

Test(unflatten, dispatcher) {
    ufx f;
    open_run(&f, FIX "dispatch.json", 1);
    check_run(&f, "dispatch");
    exdb_umodule *n = exdb_unflatten_module(f.u, "n");
    cr_assert_eq(n->kind, EXDB_UMOD_DISPATCH);
    cr_expect_eq(n->ncall_modules, 3);
    cr_expect_eq(n->call_modules[0], n->call_modules[1]);
    cr_expect_neq(n->call_modules[0], n->call_modules[2]);
    cr_expect_str_eq(n->type, "test.N");
    /* call indices elided in the root */
    exdb_umodule *root = exdb_unflatten_module(f.u, "");
    int calls = 0;
    for (exdb_node *x = root->graph->head; x; x = x->next)
        if (x->op == EXDB_OP_CALL_MODULE) {
            calls++;
            cr_expect_str_eq(x->target, "n");
        }
    cr_expect_eq(calls, 3);
    expect_named_modules(&f, "[][n]");
    close_run(&f);
}

Test(unflatten, double_nested_creates_intermediate) {
    ufx f;
    open_run(&f, FIX "double_nested.json", 1);
    check_run(&f, "double_nested");
    expect_named_modules(&f, "[][submod][submod.subsubmod]");
    expect_module(
        &f, "",
        "graph():\n"
        "    %x : [num_users=2] = placeholder[target=x]\n"
        "    %submod_subsubmod : [num_users=1] = call_module[target=submod.subsubmod](args "
        "= (%x,), kwargs = {})\n"
        "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args "
        "= (%x, %submod_subsubmod), kwargs = {})\n"
        "    return (add,)");
    close_run(&f);
}

Test(unflatten, nested_access_root_reads_child_buffer) {
    ufx f;
    open_run(&f, FIX "nested_access.json", 1);
    check_run(&f, "nested_access");
    exdb_umodule *root = exdb_unflatten_module(f.u, "");
    cr_expect_eq(count_target(root->graph, "foo.child2buffer"), 1);
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "foo")->graph, "child2buffer"), 1);
    close_run(&f);
}

Test(unflatten, submodule_ordering) {
    ufx f;
    open_run(&f, FIX "submodule_ordering.json", 1);
    expect_named_modules(&f, "[][mod2][mod3][mod1]");
    close_run(&f);
}

/* ---- more feature groups: exact graphs where upstream prints them */

/* the attribute name of m, or NULL */
static const exdb_uattr *attr_of(ufx *f, const char *fqn, const char *name) {
    exdb_umodule *m = exdb_unflatten_module(f->u, fqn);
    cr_assert_not_null(m, "no module '%s'", fqn);
    return exdb_udict_get(m->attrs, name);
}

static int count_op(const exdb_graph *g, exdb_op op) {
    int n = 0;
    for (const exdb_node *x = g->head; x; x = x->next)
        n += x->op == op;
    return n;
}

/* test_nn_module_stack: the leaf-most module's graph, as upstream prints it */
Test(unflatten, nn_module_stack) {
    ufx f;
    open_run(&f, FIX "nn_module_stack.json", 1);
    check_run(&f, "nn_module_stack");
    expect_named_modules(&f, "[][bar][bar.leaf][bar.leaf.linear]");
    expect_module(&f, "bar.leaf.linear",
                  "graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %weight : [num_users=1] = get_attr[target=weight]\n"
                  "    %bias : [num_users=1] = get_attr[target=bias]\n"
                  "    %permute : [num_users=1] = call_function[target=torch.ops.aten.permute."
                  "default](args = (%weight, [1, 0]), kwargs = {})\n"
                  "    %addmm : [num_users=1] = call_function[target=torch.ops.aten.addmm.default]"
                  "(args = (%bias, %x, %permute), kwargs = {})\n"
                  "    return addmm");
    /* hasattr(ufm, "bar.buffer"); the root reads it outside bar's call */
    const exdb_uattr *buf = attr_of(&f, "bar", "buffer");
    cr_assert_not_null(buf);
    cr_expect_eq(buf->kind, EXDB_UATTR_BUFFER);
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "")->graph, "bar.buffer"), 1);
    close_run(&f);
}

/* test_nn_module_stack_shared_submodule: both leaf-most graphs as upstream
 * prints them; bar_different.leaf's second call (same graph) is redirected */
Test(unflatten, nn_module_stack_shared_submodule) {
    ufx f;
    open_run(&f, FIX "nn_module_stack_shared.json", 1);
    check_run(&f, "nn_module_stack_shared");
    expect_module(&f, "bar.leaf.linear",
                  "graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %weight : [num_users=1] = get_attr[target=weight]\n"
                  "    %bias : [num_users=1] = get_attr[target=bias]\n"
                  "    %linear : [num_users=1] = call_function[target=torch.ops.aten.linear."
                  "default](args = (%x, %weight, %bias), kwargs = {})\n"
                  "    return linear");
    expect_module(&f, "bar_different.leaf.linear",
                  "graph():\n"
                  "    %add_2 : [num_users=1] = placeholder[target=add_2]\n"
                  "    %weight : [num_users=1] = get_attr[target=weight]\n"
                  "    %bias : [num_users=1] = get_attr[target=bias]\n"
                  "    %linear_1 : [num_users=1] = call_function[target=torch.ops.aten.linear."
                  "default](args = (%add_2, %weight, %bias), kwargs = {})\n"
                  "    return linear_1");
    cr_expect_str_eq(exdb_strmap_get(&f.u->run->redirected, "bar_different.leaf@1"),
                     "bar_different.leaf");
    cr_expect_null(exdb_unflatten_module(f.u, "bar_different.leaf@1"));
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "bar_different")->graph, "leaf"), 2);
    cr_expect_not_null(attr_of(&f, "bar", "buffer"));
    close_run(&f);
}

/* test_cond_unflatten: the branch graphs are get_attr'd in m1's frame, so
 * _copy_graph_attrs puts them on m1 (HOP get_attr subgraphs) */
Test(unflatten, cond_graph_attrs) {
    ufx f;
    open_run(&f, FIX "cond.json", 1);
    check_run(&f, "cond");
    exdb_umodule *m1 = exdb_unflatten_module(f.u, "m1");
    cr_assert_not_null(m1);
    cr_expect_eq(count_target(m1->graph, "true_graph_0"), 1);
    cr_expect_eq(count_target(m1->graph, "false_graph_0"), 1);
    cr_expect_eq(count_target(m1->graph, "torch.ops.higher_order.cond"), 1);
    static const char *const branches[] = {"m1.true_graph_0", "m1.false_graph_0"};
    static const char *const ops[] = {"torch.ops.aten.add.Tensor", "torch.ops.aten.sub.Tensor"};
    for (int i = 0; i < 2; i++) {
        exdb_umodule *g = exdb_unflatten_module(f.u, branches[i]);
        cr_assert_not_null(g, "%s", branches[i]);
        cr_expect_eq(g->kind, EXDB_UMOD_GRAPH);
        cr_expect_eq(count_op(g->graph, EXDB_OP_PLACEHOLDER), 2);
        cr_expect_eq(count_target(g->graph, ops[i]), 1);
    }
    /* the root only calls m1; nothing of the HOP is left there */
    exdb_umodule *root = exdb_unflatten_module(f.u, "");
    cr_expect_eq(count_op(root->graph, EXDB_OP_GET_ATTR), 0);
    cr_expect_eq(count_target(root->graph, "m1"), 1);
    close_run(&f);
}

/* test_set_grad_unflatten: wrap_with_set_grad_enabled's region (submod_1)
 * lands on m1 */
Test(unflatten, set_grad_graph_attrs) {
    ufx f;
    open_run(&f, FIX "set_grad.json", 1);
    check_run(&f, "set_grad");
    exdb_umodule *sub = exdb_unflatten_module(f.u, "m1.submod_1");
    cr_assert_not_null(sub);
    cr_expect_eq(sub->kind, EXDB_UMOD_GRAPH);
    cr_expect_eq(count_target(sub->graph, "torch.ops.aten.add.Tensor"), 1);
    exdb_umodule *m1 = exdb_unflatten_module(f.u, "m1");
    cr_expect_eq(count_target(m1->graph, "torch.ops.higher_order.wrap_with_set_grad_enabled"), 1);
    cr_expect_eq(count_target(m1->graph, "submod_1"), 1);
    close_run(&f);
}

/* test_unflatten_constant_tensor: the lifted constant sinks into submod */
Test(unflatten, constant_tensor) {
    ufx f;
    open_run(&f, FIX "constant_tensor.json", 1);
    check_run(&f, "constant_tensor");
    const exdb_uattr *c = attr_of(&f, "submod", "lifted_tensor_0");
    cr_assert_not_null(c);
    cr_expect_eq(c->kind, EXDB_UATTR_CONST);
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "submod")->graph, "lifted_tensor_0"), 1);
    cr_expect_eq(count_op(exdb_unflatten_module(f.u, "")->graph, EXDB_OP_GET_ATTR), 0);
    close_run(&f);
}

/* test_unflatten_constant_obj: a TorchBind object sinks like a tensor */
Test(unflatten, constant_obj) {
    ufx f;
    open_run(&f, FIX "constant_obj.json", 1);
    check_run(&f, "constant_obj");
    const exdb_uattr *c = attr_of(&f, "submod", "attr");
    cr_assert_not_null(c);
    cr_expect_eq(c->kind, EXDB_UATTR_CONST);
    exdb_umodule *sub = exdb_unflatten_module(f.u, "submod");
    cr_expect_eq(count_target(sub->graph, "attr"), 1);
    cr_expect_eq(count_target(sub->graph, "torch.ops.higher_order.call_torchbind"), 1);
    close_run(&f);
}

/* test_unflatten_asserts: the runtime asserts on the unbacked x.item() stay
 * in the module that made them; y.size(0) is computed once, in the root,
 * and passed in (m1, m3 are not preserved) */
Test(unflatten, asserts_unbacked_symints) {
    ufx f;
    open_run(&f, FIX "asserts.json", 1);
    check_run(&f, "asserts");
    static const char *const mods[] = {"m1", "m3"};
    for (int i = 0; i < 2; i++) {
        exdb_graph *g = exdb_unflatten_module(f.u, mods[i])->graph;
        cr_expect_eq(count_target(g, "torch.ops.aten._assert_scalar.default"), 2, "%s", mods[i]);
        cr_expect_eq(count_target(g, "torch.ops.aten.sym_constrain_range_for_size.default"), 1);
        cr_expect_eq(count_target(g, "torch.ops.aten.item.default"), 1);
        cr_expect_eq(count_target(g, "torch.ops.aten.sym_size.int"), 0);
        cr_expect_not_null(exdb_graph_find(g, "sym_size_int_1"));
        cr_expect_eq(exdb_graph_find(g, "sym_size_int_1")->op, EXDB_OP_PLACEHOLDER);
    }
    exdb_graph *root = exdb_unflatten_module(f.u, "")->graph;
    cr_expect_eq(count_target(root, "torch.ops.aten.sym_size.int"), 1);
    cr_expect_eq(count_target(root, "torch.ops.aten._assert_scalar.default"), 0);
    close_run(&f);
}

/* test_unflatten_param_list_dict: containers without a graph; the root's
 * get_attrs address param_list.0, param_dict.key_0... and each lands right
 * after the last placeholder (inserting_after: the last one sunk first) */
Test(unflatten, param_list_dict) {
    ufx f;
    open_run(&f, FIX "param_list_dict.json", 1);
    check_run(&f, "param_list_dict");
    expect_named_modules(&f, "[][param_list][param_dict]");
    cr_expect_eq(exdb_unflatten_module(f.u, "param_list")->kind, EXDB_UMOD_PLAIN);
    cr_expect_not_null(attr_of(&f, "param_list", "1"));
    cr_expect_not_null(attr_of(&f, "param_dict", "key_0"));
    static const char *const order[] = {"x", "param_dict.key_1", "param_dict.key_0", "param_list.1",
                                        "param_list.0"};
    const exdb_node *n = exdb_unflatten_module(f.u, "")->graph->head;
    for (int i = 0; i < 5; i++, n = n->next) {
        cr_assert_not_null(n);
        cr_expect_str_eq(n->target, order[i]);
    }
    close_run(&f);
}

/* test_unflatten_placeholder_update_child2parent_swap: the user-input
 * mutation (dropout_ on x) stays in the preserved child as a copy_ back
 * into x; the root reads x itself (copy_ is mutable: no ival recorded) */
Test(unflatten, input_mutation_preserved_child) {
    ufx f;
    open_run(&f, FIX "placeholder_update.json", 1);
    check_run(&f, "placeholder_update");
    exdb_graph *child = exdb_unflatten_module(f.u, "child")->graph;
    exdb_node *cp = exdb_graph_find(child, "copy__default");
    cr_assert_not_null(cp);
    cr_expect_str_eq(cp->args.u.items[0].u.node->name, "x");
    cr_expect_str_eq(cp->args.u.items[1].u.node->name, "dropout");
    exdb_graph *root = exdb_unflatten_module(f.u, "")->graph;
    cr_expect_eq(count_target(root, "torch.ops.aten.copy_.default"), 0);
    exdb_node *mul = exdb_graph_find(root, "mul");
    cr_assert_not_null(mul);
    cr_expect_eq(mul->args.u.items[0].u.node, exdb_graph_find(root, "x"));
    cr_expect_eq(f.u->run->nivals, 0);
    close_run(&f);
}

/* test_unflatten_none: a None argument and a None output of a preserved
 * call (ConstantArgument): _constant_1 in the child, None in the trees */
Test(unflatten, preserved_constant_arguments) {
    ufx f;
    open_run(&f, FIX "preserve_none.json", 1);
    check_run(&f, "preserve_none");
    exdb_graph *m2 = exdb_unflatten_module(f.u, "m2")->graph;
    cr_expect_not_null(exdb_graph_find(m2, "_constant_1"));
    char *t = module_text(&f, "m2");
    cr_expect(strstr(t, "tree_unflatten](args = ((%add_1, None), %_spec_1)") != NULL, "%s", t);
    free(t);
    t = module_text(&f, "");
    cr_expect(strstr(t, "tree_unflatten](args = ([%add, None], %_spec_0)") != NULL, "%s", t);
    cr_expect(strstr(t, "return (getitem_4, None)") != NULL, "%s", t);
    free(t);
    close_run(&f);
}

/* A preserved call with a constant argument, m2(x, 3): the signature's
 * ConstantArgument(value=3) goes into the caller's tree_unflatten as the
 * value itself (input_nodes.append(input.value)), not None; the child
 * still names its getitem _constant_1 and leaves it unused. */
Test(unflatten, preserved_constant_argument_value) {
    ufx f;
    open_run(&f, FIX "preserve_const.json", 1);
    check_run(&f, "preserve_const");
    const exdb_call_signature *sig = f.p->calls[1].sig;
    cr_assert_not_null(sig);
    cr_expect_null(sig->inputs[1]);
    cr_expect_eq(sig->input_values[1].kind, EXDB_ARG_INT);
    cr_expect_eq(sig->input_values[1].u.i, 3);
    cr_expect_eq(sig->input_values[0].kind, EXDB_ARG_NONE);
    char *t = module_text(&f, "");
    cr_expect(strstr(t, "tree_unflatten](args = ([%add, 3], %_spec_0)") != NULL, "%s", t);
    cr_expect(strstr(t, "call_module[target=m2](args = (%getitem_2, %getitem_3)") != NULL, "%s", t);
    free(t);
    t = module_text(&f, "m2");
    cr_expect(strstr(t, "%_constant_1 : [num_users=0] = call_function[target=operator.getitem]("
                        "args = (%tree_flatten_spec, 1)") != NULL,
              "%s", t);
    cr_expect(strstr(t, "aten.add.Tensor](args = (%add, 3)") != NULL, "%s", t);
    free(t);
    close_run(&f);
}

/* test_simple_alias: m.bias is the root's bias. Strict export keeps one
 * placeholder (target "bias"); the archive's weights config says m.bias
 * shares its tensor, so m sinks it as its own bias and both attributes are
 * one object (id(unep.m.bias) == id(unep.bias)). */
Test(unflatten, simple_alias) {
    static const char *const files[] = {FIX "simple_alias.pt2", FIX "simple_alias_unused.pt2"};
    for (int i = 0; i < 2; i++) {
        ufx f;
        open_run(&f, files[i], 1);
        check_run(&f, files[i]);
        const exdb_uattr *rb = attr_of(&f, "", "bias"), *mb = attr_of(&f, "m", "bias");
        cr_assert(rb && mb, "%s", files[i]);
        cr_expect_eq(rb->kind, EXDB_UATTR_PARAM);
        cr_expect_eq(mb->identity, rb->identity, "%s: m.bias is not bias", files[i]);
        cr_expect_neq(attr_of(&f, "m", "weight")->identity, rb->identity);
        exdb_graph *m = exdb_unflatten_module(f.u, "m")->graph;
        cr_expect_eq(count_target(m, "bias"), 1);
        cr_expect_eq(count_op(m, EXDB_OP_PLACEHOLDER), 1);
        /* (b): the root's own bias is unused */
        cr_expect_eq(count_target(exdb_unflatten_module(f.u, "")->graph, "bias"), i ? 0 : 1);
        close_run(&f);
    }
}

/* test_unused_aliases: alpha, beta, gamma are one Parameter; all three come
 * back as attributes of that one object */
Test(unflatten, unused_aliases) {
    ufx f;
    open_run(&f, FIX "unused_aliases.pt2", 1);
    check_run(&f, "unused_aliases");
    const exdb_uattr *a = attr_of(&f, "", "alpha"), *b = attr_of(&f, "", "beta"),
                     *g = attr_of(&f, "", "gamma");
    cr_assert(a && b && g);
    cr_expect(a->kind == EXDB_UATTR_PARAM && b->kind == EXDB_UATTR_PARAM &&
              g->kind == EXDB_UATTR_PARAM);
    cr_expect(a->identity == b->identity && b->identity == g->identity);
    close_run(&f);
}

/* test_constant_aliasing: foo and m2.foo are one constant with one input;
 * m2 sinks its use as its own foo */
Test(unflatten, constant_aliasing) {
    ufx f;
    open_run(&f, FIX "constant_aliasing.pt2", 1);
    check_run(&f, "constant_aliasing");
    const exdb_uattr *a = attr_of(&f, "", "foo"), *b = attr_of(&f, "m2", "foo");
    cr_assert(a && b);
    cr_expect_eq(a->kind, EXDB_UATTR_CONST);
    cr_expect_eq(a->identity, b->identity);
    cr_expect_eq(count_target(exdb_unflatten_module(f.u, "m2")->graph, "foo"), 1);
    const char **targets = exdb_strmap_get(&f.u->run->inputs_to_state, "c_foo");
    cr_assert_not_null(targets);
    cr_expect_str_eq(targets[0], "foo");
    cr_expect_str_eq(targets[1], "m2.foo");
    cr_expect_null(targets[2]);
    close_run(&f);
}

/* Without an archive the signature is all there is: the bare program of
 * simple_alias leaves m's use of the root's bias as a placeholder, the way
 * upstream would without the state dict. */
Test(unflatten, alias_needs_the_archive) {
    ufx f;
    memset(&f, 0, sizeof f);
    exdb_program *p = exdb_program_load(FIX "simple_alias.pt2", NULL, &f.err);
    cr_assert_not_null(p, "%s", f.err.msg);
    p->container_kind = EXDB_CONT_JSON; /* as if loaded from the bare JSON */
    f.p = p;
    f.u = exdb_unflatten_new(p, &f.err);
    cr_assert_not_null(f.u);
    cr_assert_eq(exdb_unflatten_run(f.u, &f.err), 0, "%s", f.err.msg);
    cr_expect_null(attr_of(&f, "m", "bias"));
    cr_expect_not_null(exdb_graph_find(exdb_unflatten_module(f.u, "m")->graph, "p_bias"));
    close_run(&f);
}

/* Dead-code elimination removes every node of some calls, so the call
 * names have gaps: c's calls 1 and 3 are dead, its frames are c@1 and c@3.
 * _assign_attr(c.w) makes a plain Module c and gives w to every _modules key
 * matching c(@\\d+)?: c, c@1 and c@3 (c@3's get_attr needs it when sinking;
 * dedup then retargets c@3's call to c@1). */
Test(unflatten, call_gap) {
    ufx f;
    open_run(&f, FIX "call_gap.json", 1);
    check_run(&f, "call_gap");
    expect_named_modules(&f, "[][c][c@1]");
    const exdb_uattr *c = attr_of(&f, "c", "w"), *c1 = attr_of(&f, "c@1", "w");
    cr_assert(c && c1);
    cr_expect_eq(c->kind, EXDB_UATTR_PARAM);
    cr_expect_eq(c->identity, c1->identity);
    cr_expect_eq(exdb_unflatten_module(f.u, "c")->kind, EXDB_UMOD_PLAIN);
    cr_expect_str_eq(exdb_strmap_get(&f.u->run->redirected, "c@3"), "c@1");
    expect_module(&f, "c@1",
                  "graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %w : [num_users=1] = get_attr[target=w]\n"
                  "    %mul_1 : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor]"
                  "(args = (%x, %w), kwargs = {})\n"
                  "    return mul_1");
    close_run(&f);
}

/* The nested gap: a, a.b and a.b.c each have their first call dead. The
 * plain Module _assign_attr(a.b.c.buf) makes under a@1.b@3 (reached only
 * through the scan of a@1's keys: b is missing there, b@3 is not) is in
 * the tree, where torch's named_modules lists it, and c@3 has buf. */
Test(unflatten, call_gap_nested) {
    ufx f;
    open_run(&f, FIX "call_gap_nested.json", 1);
    expect_named_modules(&f, "[][a][a.b][a.b.c][a@1][a@1.b@3][a@1.b@3.c@3][a@1.b@3.c][a@1.b]"
                             "[a@1.b.c]");
    const exdb_uattr *a = attr_of(&f, "a.b.c", "buf"), *b = attr_of(&f, "a@1.b@3.c@3", "buf"),
                     *c = attr_of(&f, "a@1.b@3.c", "buf");
    cr_assert(a && b && c);
    cr_expect_eq(b->kind, EXDB_UATTR_BUFFER);
    cr_expect(a->identity == b->identity && b->identity == c->identity);
    close_run(&f);
}

/* Preserving b.c whose only call is dead: _dispatch_modules' _get_attr
 * (self, "b.c") fails on the prefix atom b, which is _get_attr_via_attr_list's
 * AssertionError, not getattr's AttributeError (that is for a last atom). */
Test(unflatten, error_preserved_dead_parent) {
    ufx f;
    open_run(&f, FIX "error_preserved_dead_parent.json", 0);
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_run(f.u, &e), -1);
    cr_expect(strncmp(e.msg, "AssertionError: Attribute 'b' not found in model (", 50) == 0, "%s",
              e.msg);
    close_run(&f);
}

Test(unflatten, error_no_nn_module_stack) {
    ufx f;
    open_run(&f, FIX "error_no_stack.json", 0);
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_run(f.u, &e), -1);
    /* torch.export.load gives mul an empty stack, which torch 2.13's
     * _fix_nn_module_stacks cannot unpack: UnflattenedModule.__init__
     * raises before outlining, so the first step fails */
    cr_expect(strncmp(e.msg,
                      "ValueError: not enough values to unpack (expected at least 1, got 0) "
                      "(_fix_nn_module_stacks: node mul has no nn_module_stack)",
                      200) == 0,
              "%s", e.msg);
    cr_expect_eq(f.u->pos, 0);
    /* stepping again reports the same error; going back stays at the start */
    cr_expect_eq(exdb_unflatten_step(f.u, NULL, NULL), -1);
    cr_assert_eq(exdb_unflatten_goto(f.u, 0, &e), 0, "%s", e.msg);
    cr_expect_eq(f.u->pos, 0);
    close_run(&f);
}

/* ---- stepping */

static char *dump(ufx *f) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_unflatten_dump(&b, f->u);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* torch.export.unflatten raises in the event after the last one applied,
 * of phase `phase`, with torch's exception and message first: the run
 * stops there, says so again when stepped, and going back then forward
 * again reaches the same state and the same error. */
static void expect_fails_in(const char *path, int last_kind, int phase, const char *want) {
    ufx f;
    open_run(&f, path, 0);
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_run(f.u, &e), -1, "%s: completes", path);
    cr_expect_eq(strncmp(e.msg, want, strlen(want)), 0, "%s: %s", path, e.msg);
    cr_expect(strstr(e.msg, " (") != NULL, "%s: no explanation: %s", path, e.msg);
    uint32_t pos = f.u->pos;
    cr_assert_gt(pos, 2);
    cr_expect_eq(f.u->log[pos - 1].kind, last_kind, "%s", path);
    cr_expect_eq(f.u->run->phase, phase, "%s", path);
    cr_expect_eq(exdb_unflatten_step(f.u, NULL, NULL), -1);
    char *at = dump(&f);
    cr_assert_eq(exdb_unflatten_goto(f.u, pos - 2, &e), 0, "%s", e.msg);
    exdb_error e2 = {0};
    cr_assert_eq(exdb_unflatten_run(f.u, &e2), -1);
    cr_expect_str_eq(e2.msg, e.msg);
    cr_expect_eq(f.u->pos, pos);
    char *again = dump(&f);
    cr_expect_str_eq(again, at, "%s: the state at the error differs after going back", path);
    free(at);
    free(again);
    close_run(&f);
}

#define CORPUS "tests/conformance/corpus/scenarios/"

/* al and a.b are one module, so a.b.r@1 and al.r@1 are one key of one
 * shared _modules dict: _deduplicate_modules pops it for al.r@1, then
 * again for a.b.r@1, and torch raises KeyError: 'r@1' there. */
Test(unflatten, dedup_pops_a_shared_call_name_twice) {
    expect_fails_in(CORPUS "dedup_alias_pop_twice__strict/program.pt2", EXDB_EV_DEDUP,
                    EXDB_UPH_DEDUP, "KeyError: 'r@1' (_deduplicate_modules");
    /* non-strict export names both calls al: nothing is popped twice */
    ufx f;
    open_run(&f, CORPUS "dedup_alias_pop_twice__nonstrict/program.pt2", 1);
    close_run(&f);
}

/* UnflattenedModule.__init__ ends with self.graph.lint() of the root graph
 * against the module tree as deduplication left it: a root call of a.b@2
 * retargeted to the equivalent a.b@1 (made in a@1, not in a), a get_attr
 * of a state path whose module lost it to an alias. torch raises there,
 * after REORDER: the DONE event fails. */
Test(unflatten, root_graph_final_lint) {
    static const char *const outside[] = {CORPUS "root_lint_outside_call__strict/program.pt2",
                                          CORPUS "root_lint_outside_call__nonstrict/program.pt2"};
    for (int i = 0; i < 2; i++)
        expect_fails_in(outside[i], EXDB_EV_REORDER, EXDB_UPH_FINAL,
                        "RuntimeError: Node a_b_2 target a.b@1 references nonexistent attribute "
                        "b@1 of a (");
    expect_fails_in(CORPUS "root_lint_alias_state__strict/program.pt2", EXDB_EV_REORDER,
                    EXDB_UPH_FINAL,
                    "RuntimeError: Node al_c_buf target al.c.buf references nonexistent "
                    "attribute buf of al.c (");
    /* non-strict export names the buffer m.c.buf: the root lints clean */
    ufx f;
    open_run(&f, CORPUS "root_lint_alias_state__nonstrict/program.pt2", 1);
    cr_expect_eq(f.u->log[f.u->pos - 1].kind, EXDB_EV_DONE);
    close_run(&f);
}

Test(unflatten, stepping_events) {
    ufx f;
    open_run(&f, FIX "nested.json", 0);
    exdb_error e = {0};
    exdb_uevent ev;
    /* 4 placeholders copied into the root */
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(exdb_unflatten_step(f.u, &ev, &e), 1);
        cr_expect_eq(ev.kind, EXDB_EV_COPY);
    }
    cr_assert_eq(exdb_unflatten_step(f.u, &ev, &e), 1); /* mul */
    cr_assert_eq(exdb_unflatten_step(f.u, &ev, &e), 1);
    cr_expect_eq(ev.kind, EXDB_EV_ENTER);
    cr_expect_eq(exdb_unflatten_depth(f.u), 2);
    cr_expect_str_eq(exdb_unflatten_frame(f.u, 1)->child_fqn, "foo");
    /* next: over foo.nested (entered, div copied, exited) to the next COPY
     * in foo, as the REPL's `next` (both go through exdb_step_go) */
    cr_assert_eq(exdb_step_next(f.u, &e), 1);
    cr_expect_eq(exdb_unflatten_depth(f.u), 2);
    cr_expect_eq(f.u->pos, 10);
    cr_expect_eq(f.u->log[8].kind, EXDB_EV_EXIT);
    cr_expect_eq(f.u->log[f.u->pos - 1].kind, EXDB_EV_COPY);
    /* where the reverse commands go from here (event 10, COPY add in foo) */
    cr_expect_eq(exdb_step_reverse_copies(f.u, 1), 8); /* after COPY div */
    cr_expect_eq(exdb_step_reverse_copies(f.u, 2), 5); /* after COPY mul */
    cr_expect_eq(exdb_step_reverse_copies(f.u, 99), 0);
    cr_expect_eq(exdb_step_reverse_next(f.u), 6); /* foo's ENTER, over foo.nested */
    uint32_t k = 99;
    cr_expect_eq(exdb_step_reverse_finish(f.u, 2, &k), 0);
    cr_expect_eq(k, 5); /* just before foo was entered */
    cr_expect_eq(exdb_step_reverse_finish(f.u, 1, &k), -1);
    /* finish foo */
    cr_assert_eq(exdb_step_finish(f.u, &e), 1);
    cr_expect_eq(exdb_unflatten_depth(f.u), 1);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_unflatten_describe(&b, f.u, &f.u->log[f.u->pos - 1]);
    cr_expect_str_eq(exdb_buf_str(&b), "EXIT foo (1 node copied)");
    exdb_buf_free(&b);
    cr_assert_eq(exdb_unflatten_run(f.u, &e), 0);
    cr_expect(exdb_unflatten_done(f.u));
    uint32_t total = f.u->pos;
    cr_expect_eq(f.u->log[total - 1].kind, EXDB_EV_DONE);
    close_run(&f);
}

/* forward k then back k gives the state at k (full dumps compared) */
static void reverse_check(const char *path, uint32_t seed) {
    ufx f;
    open_run(&f, path, 1);
    uint32_t total = f.u->pos;
    exdb_error e = {0};
    srand(seed);
    for (int t = 0; t < 2; t++) {
        uint32_t k = (uint32_t)rand() % total;
        uint32_t j = 1 + (uint32_t)rand() % (total - k);
        cr_assert_eq(exdb_unflatten_goto(f.u, k, &e), 0, "%s", e.msg);
        char *a = dump(&f);
        cr_assert_eq(exdb_unflatten_goto(f.u, k + j, &e), 0, "%s", e.msg);
        cr_assert_eq(exdb_unflatten_back(f.u, j, &e), 0, "%s", e.msg);
        cr_assert_eq(f.u->pos, k);
        char *b = dump(&f);
        cr_assert_str_eq(a, b, "%s: state at %u differs after +%u/-%u", path, k, j, j);
        free(a);
        free(b);
    }
    close_run(&f);
}

/* ---- random goto sequences: every state reached by undo or redo is the
 * state the plain forward run had at that event, byte for byte (the whole
 * arena as far as it was used then, and the run struct) and as a dump. */

typedef struct snap_block {
    const unsigned char *base;
    size_t n;
    unsigned char *copy;
} snap_block;

typedef struct snap {
    uint32_t k;
    char *dump;
    snap_block blocks[64];
    uint32_t nblocks;
    unsigned char *obj;
    size_t obj_n;
} snap;

static void snap_block_cb(void *ctx, const void *p, size_t n) {
    snap *s = ctx;
    cr_assert_lt(s->nblocks, 64);
    snap_block *b = &s->blocks[s->nblocks++];
    b->base = p;
    b->n = n;
    b->copy = malloc(n ? n : 1);
    memcpy(b->copy, p, n);
}

static void snap_take(ufx *f, snap *s) {
    memset(s, 0, sizeof *s);
    s->k = f->u->pos;
    s->dump = dump(f);
    exdb_urun *r = f->u->run;
    size_t off = offsetof(exdb_urun, prog);
    s->obj_n = sizeof *r - off;
    s->obj = malloc(s->obj_n);
    memcpy(s->obj, (char *)r + off, s->obj_n);
    exdb_arena_each_used(&r->arena, snap_block_cb, s);
}

static void snap_check(ufx *f, const snap *s, const char *path, const char *how) {
    cr_assert_eq(f->u->pos, s->k);
    exdb_urun *r = f->u->run;
    size_t off = offsetof(exdb_urun, prog);
    cr_assert(memcmp(s->obj, (char *)r + off, s->obj_n) == 0, "%s: run struct at %u differs %s",
              path, s->k, how);
    for (uint32_t i = 0; i < s->nblocks; i++) {
        const snap_block *b = &s->blocks[i];
        if (memcmp(b->copy, b->base, b->n) == 0)
            continue;
        for (size_t o = 0; o < b->n; o++)
            cr_assert(b->copy[o] == b->base[o],
                      "%s: arena byte %zu of block %u at event %u differs %s (an unrecorded "
                      "store?)",
                      path, o, i, s->k, how);
    }
    char *d = dump(f);
    cr_assert_str_eq(d, s->dump, "%s: dump at %u differs %s", path, s->k, how);
    free(d);
}

static void snap_free(snap *s) {
    free(s->dump);
    free(s->obj);
    for (uint32_t i = 0; i < s->nblocks; i++)
        free(s->blocks[i].copy);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Snapshots at every event when the run has at most `all` events, else at
 * nsnap random ones, taken on the first (plain) forward run; then ngoto
 * random jumps between them, both ways, each checked. */
static void goto_check(const char *path, uint32_t seed, uint32_t all, uint32_t nsnap,
                       uint32_t ngoto) {
    ufx f;
    open_run(&f, path, 1);
    uint32_t total = f.u->pos;
    close_run(&f);
    open_run(&f, path, 0);
    srand(seed);
    uint32_t n = total + 1 <= all ? total + 1 : nsnap;
    uint32_t *ks = malloc(n * sizeof *ks);
    for (uint32_t i = 0; i < n; i++)
        ks[i] = n == total + 1 ? i : (uint32_t)rand() % (total + 1);
    ks[0] = 0;
    if (n > 1)
        ks[n - 1] = total;
    qsort(ks, n, sizeof *ks, cmp_u32);
    snap *snaps = calloc(n, sizeof *snaps);
    exdb_error e = {0};
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_eq(exdb_unflatten_goto(f.u, ks[i], &e), 0, "%s", e.msg);
        snap_take(&f, &snaps[i]);
    }
    cr_assert_eq(exdb_unflatten_run(f.u, &e), 0, "%s", e.msg);
    char how[64];
    for (uint32_t t = 0; t < ngoto; t++) {
        uint32_t i = (uint32_t)rand() % n;
        snprintf(how, sizeof how, "(jump %u from %u)", t, f.u->pos);
        cr_assert_eq(exdb_unflatten_goto(f.u, snaps[i].k, &e), 0, "%s", e.msg);
        snap_check(&f, &snaps[i], path, how);
        if (t % 3 == 2 && snaps[i].k < total) { /* single steps forward too */
            exdb_uevent ev;
            cr_assert_eq(exdb_unflatten_step(f.u, &ev, &e), 1, "%s", e.msg);
            cr_assert_eq(ev.kind, f.u->log[snaps[i].k].kind);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        snap_free(&snaps[i]);
    free(snaps);
    free(ks);
    close_run(&f);

    /* back, then on past the recorded events: the rest runs for real */
    open_run(&f, path, 0);
    cr_assert_eq(exdb_unflatten_goto(f.u, total / 2, &e), 0, "%s", e.msg);
    cr_assert_eq(exdb_unflatten_goto(f.u, total / 4, &e), 0, "%s", e.msg);
    cr_assert_eq(exdb_unflatten_run(f.u, &e), 0, "%s", e.msg);
    cr_assert_eq(f.u->pos, total);
    char *a = dump(&f);
    close_run(&f);
    open_run(&f, path, 1);
    char *b = dump(&f);
    cr_assert_str_eq(a, b, "%s: the run finished after going back differs", path);
    free(a);
    free(b);
    close_run(&f);
}

static const char *const goto_fixtures[] = {"nested.json",
                                            "ivals_child2parent_preserved.json",
                                            "dispatch.json",
                                            "cond.json",
                                            "nn_module_stack_shared.json",
                                            "constant_aliasing.pt2",
                                            "preserve_none.json",
                                            "preserve_const.json"};

Test(unflatten, goto_sequences_fixtures) {
    for (size_t i = 0; i < sizeof goto_fixtures / sizeof *goto_fixtures; i++) {
        char path[512];
        snprintf(path, sizeof path, FIX "%s", goto_fixtures[i]);
        goto_check(path, (uint32_t)i + 11, 400, 0, 60);
    }
}

/* every fixture of the directory, every event snapshotted */
Test(unflatten, goto_sequences_all_fixtures, .timeout = 300) {
    DIR *d = opendir(FIX);
    cr_assert_not_null(d);
    struct dirent *de;
    uint32_t seed = 100;
    int n = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strstr(de->d_name, "error") ||
            (strcmp(de->d_name + l - 5, ".json") && strcmp(de->d_name + l - 4, ".pt2")))
            continue;
        char path[1024];
        snprintf(path, sizeof path, FIX "%s", de->d_name);
        /* fixtures unflatten refuses are the error tests' business */
        exdb_error e = {0};
        exdb_program *p = exdb_program_load(path, NULL, &e);
        exdb_unflatten *u = p ? exdb_unflatten_new(p, &e) : NULL;
        int ok = u && exdb_unflatten_run(u, &e) == 0;
        exdb_unflatten_free(u);
        exdb_program_free(p);
        if (!ok)
            continue;
        goto_check(path, seed++, 400, 0, 40);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 20);
}

/* the module-graph shapes (gen_modgraph.py): shared empty _modules dicts,
 * indexed dicts (64 calls, 45 children of the root), runs of empty
 * modules: every state reached by undo or redo is the forward run's */
Test(unflatten, goto_sequences_modgraph_fixtures, .timeout = 300) {
    static const char *const names[] = {
        "mcg_runs.json", "mcg_3.json",          "calls_64.json",
        "wide_9.json",   "deep_32.json",        "graphless_2.json",
        "args_65.json",  "calls_param_12.json", "kept_many_users.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[512];
        snprintf(path, sizeof path, "tests/fixtures/modgraph/%s", names[i]);
        goto_check(path, (uint32_t)i + 200, 400, 60, 40);
    }
}

Test(unflatten, reverse_stepping_fixtures) {
    reverse_check(FIX "nested.json", 1);
    reverse_check(FIX "ivals_child2parent_preserved.json", 2);
    reverse_check(FIX "dispatch.json", 3);
    reverse_check(FIX "cond.json", 4);
    reverse_check(FIX "nn_module_stack_shared.json", 5);
    reverse_check(FIX "constant_aliasing.pt2", 6);
    reverse_check(FIX "preserve_none.json", 7);
}

/* ---- every real program */

static int is_model(const char *n) {
    size_t l = strlen(n);
    return l > 11 && strcmp(n + l - 11, "_model.json") == 0 && !strstr(n, "weights");
}

Test(unflatten, real_programs, .timeout = 600) {
    DIR *d = opendir(REAL);
    if (!d) {
        cr_skip_test("no %s", REAL);
        return;
    }
    struct dirent *de;
    int n = 0;
    uint32_t seed = 7;
    while ((de = readdir(d))) {
        if (!is_model(de->d_name))
            continue;
        char path[1024];
        snprintf(path, sizeof path, REAL "%s", de->d_name);
        ufx f;
        open_run(&f, path, 1);
        check_run(&f, de->d_name);
        if (strstr(de->d_name, "resnet18")) {
            /* BasicBlock's relu called twice: relu@1 deduplicated into relu */
            cr_expect_null(exdb_unflatten_module(f.u, "layer1.0.relu@1"));
            cr_expect_str_eq(exdb_strmap_get(&f.u->run->redirected, "layer1.0.relu@1"),
                             "layer1.0.relu");
            exdb_umodule *blk = exdb_unflatten_module(f.u, "layer1.0");
            cr_expect_eq(count_target(blk->graph, "relu"), 2);
        }
        close_run(&f);
        reverse_check(path, seed);
        goto_check(path, seed++, 0, 12, 30);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 1);
}

/* Every store an event makes into memory older than the event is recorded
 * (EXDB_WILL_WRITE before it): the journal's verification copies the
 * memory in use at each event's start and finds the changed words the
 * event did not record. Over the unflatten fixtures and the torch-made
 * conformance scenarios, including the events of runs that end in
 * torch's errors. */
static void verify_dir(const char *dir, const char *member, int *nprog) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s%s", dir, de->d_name, member);
        exdb_error e = {0};
        exdb_program *p = exdb_program_load(path, NULL, &e);
        exdb_unflatten *u = p ? exdb_unflatten_new(p, &e) : NULL;
        if (!u) {
            exdb_program_free(p);
            continue;
        }
        exdb_journal_verify(&u->journal, 1);
        (void)exdb_unflatten_run(u, &e);
        cr_expect_eq(u->journal.unrecorded, 0,
                     "%s: %zu words changed without a journal record by the events (the "
                     "first at %p)",
                     path, u->journal.unrecorded, u->journal.unrecorded_at);
        exdb_unflatten_free(u);
        exdb_program_free(p);
        (*nprog)++;
    }
    closedir(d);
}

Test(unflatten, every_store_is_journaled, .timeout = 300) {
    int n = 0;
    verify_dir("tests/fixtures/unflatten", "", &n);
    verify_dir("tests/conformance/corpus/scenarios", "/program.pt2", &n);
    cr_expect_geq(n, 150);
}

/* ---- a finished run for commands that only read the tree */

/* The session's run recorded to its end is brought there by its journal
 * and back to where it was (the same bytes); otherwise a fresh run that
 * records nothing (a second journal doubled render's memory). */
Test(unflatten, finished_run_leaves_the_position) {
    ufx f;
    open_run(&f, FIX "nested.json", 1);
    uint32_t total = f.u->pos;
    char *end = dump(&f);
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_goto(f.u, total / 2, &e), 0, "%s", e.msg);
    snap s;
    snap_take(&f, &s);
    exdb_ufinished h;
    exdb_unflatten *u = exdb_unflatten_finished(f.u, f.p, &h, &e);
    cr_assert_eq(u, f.u, "the session's run, not a fresh one");
    cr_assert_null(h.fresh);
    cr_assert(exdb_unflatten_done(u));
    char *d = dump(&f);
    cr_assert_str_eq(d, end);
    free(d);
    exdb_unflatten_finished_end(&h);
    snap_check(&f, &s, "nested.json", "after the finished run was read");
    snap_free(&s);

    /* not recorded to the end: a fresh run, without journal records */
    exdb_unflatten *part = exdb_unflatten_new(f.p, &e);
    cr_assert_not_null(part, "%s", e.msg);
    cr_assert_eq(exdb_unflatten_goto(part, 2, &e), 0, "%s", e.msg);
    u = exdb_unflatten_finished(part, f.p, &h, &e);
    cr_assert_not_null(u, "%s", e.msg);
    cr_assert_eq(u, h.fresh);
    cr_assert(exdb_unflatten_done(u));
    cr_assert_eq(u->journal.n, 0, "the fresh run recorded %zu words", u->journal.n);
    ufx g = {.p = f.p, .u = u};
    d = dump(&g);
    cr_assert_str_eq(d, end);
    free(d);
    exdb_unflatten_finished_end(&h);
    cr_assert_eq(part->pos, 2);
    exdb_unflatten_free(part);
    free(end);
    close_run(&f);
}

/* Recording off (exdb_unflatten_set_recording, what scripts/bench/bench_goto
 * measures against): going back rebuilds the run from the start and
 * replays, and every state it reaches is the recorded run's (dumps
 * compared); turning recording off is refused after event 0. */
Test(unflatten, unrecorded_goto_replays_the_same_states) {
    const char *path = "tests/fixtures/example.json";
    ufx rec, plain;
    open_run(&rec, path, 1);
    open_run(&plain, path, 0);
    cr_assert_eq(exdb_unflatten_set_recording(plain.u, 0), 0);
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_run(plain.u, &e), 0, "%s", e.msg);
    cr_assert_eq(plain.u->pos, rec.u->pos);
    cr_assert_eq(exdb_unflatten_set_recording(plain.u, 1), -1, "only at event 0");
    uint32_t total = rec.u->pos;
    const uint32_t ks[] = {total / 2, 3, total - 1, 0, total / 3, total};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        cr_assert_eq(exdb_unflatten_goto(rec.u, ks[i], &e), 0, "%s", e.msg);
        cr_assert_eq(exdb_unflatten_goto(plain.u, ks[i], &e), 0, "%s", e.msg);
        cr_assert_eq(plain.u->pos, ks[i]);
        char *a = dump(&rec), *b = dump(&plain);
        cr_assert_str_eq(a, b, "state at %u differs without recording", ks[i]);
        free(a);
        free(b);
    }
    cr_assert_eq(exdb_unflatten_back(plain.u, 2, &e), 0, "%s", e.msg);
    cr_assert_eq(plain.u->pos, total - 2);
    close_run(&rec);
    close_run(&plain);
}

/* preserve_bar.json with bar's in_spec replaced by spec (a JSON string's
 * contents), loaded from memory; unflatten's error. */
static const char *bar_in_spec_error(const char *spec) {
    static exdb_error err;
    FILE *fp = fopen(FIX "preserve_bar.json", "rb");
    cr_assert_not_null(fp);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    char *bar = strstr(text, "\"fqn\": \"bar\"");
    cr_assert_not_null(bar);
    char *s = strstr(bar, "\"in_spec\": \"");
    cr_assert_not_null(s);
    s += strlen("\"in_spec\": \"");
    char *e = strstr(s, "\",\n");
    cr_assert_not_null(e);
    size_t len = (size_t)(s - text) + strlen(spec) + strlen(e);
    char *json = malloc(len + 1);
    cr_assert_not_null(json);
    snprintf(json, len + 1, "%.*s%s%s", (int)(s - text), text, spec, e);
    memset(&err, 0, sizeof err);
    exdb_program *p = exdb_program_from_json(json, len, "bar.json", &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), -1, "ran");
    exdb_unflatten_free(u);
    exdb_program_free(p);
    return err.msg;
}

#define SPEC_LEAF "{\\\"type\\\": null, \\\"context\\\": null, \\\"children_spec\\\": []}"
#define SPEC(t, ...)                                                                               \
    "{\\\"type\\\": \\\"" t                                                                        \
    "\\\", \\\"context\\\": \\\"null\\\", \\\"children_spec\\\": [" __VA_ARGS__ "]}"
#define SPEC_DICT                                                                                  \
    "{\\\"type\\\": \\\"builtins.dict\\\", \\\"context\\\": \\\"[]\\\", \\\"children_spec\\\": "   \
    "[]}"

/* _ModuleFrame.__init__'s checks of a preserved call's in_spec: a tuple of
 * two, (args) a tuple, (kwargs) a dict; torch 2.13 prints the type found
 * as str(spec.type): "<class 'list'>", None for a leaf */
Test(unflatten, preserved_in_spec_shape_checked) {
    const char *e =
        bar_in_spec_error("[1, " SPEC("builtins.tuple", SPEC("builtins.tuple", SPEC_LEAF)) "]");
    cr_assert(
        strstr(e, "AssertionError: expected in_spec to have 2 children, got 1 (module 'bar')"),
        "%s", e);
    e = bar_in_spec_error(
        "[1, " SPEC("builtins.list", SPEC("builtins.tuple", SPEC_LEAF) ", " SPEC_DICT) "]");
    cr_assert(
        strstr(
            e,
            "AssertionError: expected in_spec.type to be tuple, got <class 'list'> (module 'bar')"),
        "%s", e);
    e = bar_in_spec_error("[1, " SPEC("builtins.tuple", SPEC_LEAF ", " SPEC_DICT) "]");
    cr_assert(
        strstr(e, "AssertionError: expected args_spec.type to be tuple, got None (module 'bar')"),
        "%s", e);
    e = bar_in_spec_error("[1, " SPEC(
        "builtins.tuple", SPEC("builtins.tuple", SPEC_LEAF) ", " SPEC("builtins.list")) "]");
    cr_assert(strstr(e, "AssertionError: expected kwargs_spec.type to be dict, got <class 'list'> "
                        "(module 'bar')"),
              "%s", e);
}

/* The journal of a recorded run: consistent, and its memory (what
 * bench_goto reports) counted */
Test(unflatten, journal_of_a_run_checks_and_counts_its_bytes) {
    ufx f;
    open_run(&f, FIX "nested.json", 1);
    exdb_error e = {0};
    cr_assert_eq(exdb_journal_check(&f.u->journal, &e), 0, "%s", e.msg);
    cr_assert_gt(exdb_journal_bytes(&f.u->journal), 0);
    close_run(&f);
}
