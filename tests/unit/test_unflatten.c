/* test_unflatten.c - the unflatten engine: PyTorch's scenarios as fixtures
 * (tests/fixtures/unflatten, written by gen_fixtures.py) with the expected
 * graphs of the upstream tests where they exist, every real program of
 * ../shared/real_pt2 (complete, call graph order, nodes in their modules,
 * no unsunk placeholder, sane graphs), and reverse stepping. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/print.h"
#include "core/unflatten.h"

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
        void **slot = exdb_strmap_find(&pm->children->index, dot ? dot + 1 : fqn);
        cr_assert(slot && *slot, "%s: %s not registered in its parent", what, fqn);
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
    cr_expect_not_null(exdb_udict_get(&bar->attrs, "_spec_0"));
    cr_expect_not_null(exdb_udict_get(&bar->attrs, "_spec_1"));
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
    cr_expect_not_null(exdb_udict_get(&n1->attrs, "buf"));
    cr_expect_not_null(exdb_udict_get(&exdb_unflatten_module(f.u, "n")->attrs, "lifted_tensor_0"));
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

Test(unflatten, error_no_nn_module_stack) {
    ufx f;
    open_run(&f, FIX "error_no_stack.json", 0);
    exdb_error e = {0};
    cr_assert_eq(exdb_unflatten_run(f.u, &e), -1);
    cr_expect(strstr(e.msg, "Unable to find nn_module_stack for node mul") != NULL, "%s", e.msg);
    cr_expect(strstr(e.msg, "<root>") != NULL, "%s", e.msg);
    cr_expect_eq(f.u->pos, 2); /* x copied, add copied, then the error */
    /* stepping again reports the same error; going back still works */
    cr_expect_eq(exdb_unflatten_step(f.u, NULL, NULL), -1);
    cr_assert_eq(exdb_unflatten_goto(f.u, 1, &e), 0, "%s", e.msg);
    cr_expect_eq(f.u->pos, 1);
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
    /* next: over foo.nested */
    cr_assert_eq(exdb_unflatten_next(f.u, &e), 1);
    cr_expect_eq(exdb_unflatten_depth(f.u), 2);
    cr_expect_eq(f.u->log[f.u->pos - 1].kind, EXDB_EV_EXIT);
    /* finish foo */
    cr_assert_eq(exdb_unflatten_finish(f.u, &e), 1);
    cr_expect_eq(exdb_unflatten_depth(f.u), 1);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_unflatten_describe(&b, f.u, &f.u->log[f.u->pos - 1]);
    cr_expect_str_eq(exdb_buf_str(&b), "EXIT foo (1 nodes copied)");
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

Test(unflatten, reverse_stepping_fixtures) {
    reverse_check(FIX "nested.json", 1);
    reverse_check(FIX "ivals_child2parent_preserved.json", 2);
    reverse_check(FIX "dispatch.json", 3);
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
        reverse_check(path, seed++);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 1);
}
