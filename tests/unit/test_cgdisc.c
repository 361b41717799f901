/* test_cgdisc.c - viz/cgdisc.c's cgraph disciplines (arena memory, hashed
 * IDs, buffered output) lean on Graphviz 2.42's internals. They are kept
 * only because this proves them on the Graphviz the machine has: for every
 * view of the example and of real programs, the DOT they write is the same
 * graph as the DOT cgraph's own disciplines write (same nodes, edges,
 * subgraphs, each with the same attributes), and LeakSanitizer sees
 * nothing left behind. */
#include <criterion/criterion.h>

#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/export/program.h"
#include "core/unflatten/unflatten.h"
#include "viz/render.h"
#include "viz/view.h"

#include "testutil.h"

/* One object's attributes as "name=value" pairs in declaration order (the
 * same dictionary for both graphs: agmemread declares what the text has). */
static void attrs(exdb_buf *b, Agraph_t *g, int kind, void *obj) {
    for (Agsym_t *s = agnxtattr(g, kind, NULL); s; s = agnxtattr(g, kind, s)) {
        const char *v = agxget(obj, s);
        if (v && strcmp(v, s->defval) != 0)
            exdb_buf_printf(b, " %s=%s", s->name, v);
    }
}

static int cmp_lines(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends one line per node, edge and subgraph of g (subgraphs named by
 * their path, with the nodes they hold), under prefix. */
static void lines_of(exdb_buf *b, Agraph_t *root, Agraph_t *g, const char *path) {
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        exdb_buf_printf(b, "%s N %s", path, agnameof(n));
        if (g == root)
            attrs(b, root, AGNODE, n);
        exdb_buf_puts(b, "\n");
        for (Agedge_t *e = agfstout(g, n); g == root && e; e = agnxtout(g, e)) {
            exdb_buf_printf(b, "E %s -> %s", agnameof(agtail(e)), agnameof(aghead(e)));
            attrs(b, root, AGEDGE, e);
            exdb_buf_puts(b, "\n");
        }
    }
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", path, agnameof(s));
        exdb_buf_printf(b, "S %s", sub);
        attrs(b, root, AGRAPH, s);
        exdb_buf_puts(b, "\n");
        lines_of(b, root, s, sub);
    }
}

/* The DOT text as sorted lines: equal for equal graphs whatever order
 * the writer listed them in. */
static char *canonical(const char *dot) {
    Agraph_t *g = agmemread(dot);
    cr_assert_not_null(g, "agmemread failed on:\n%.400s", dot);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_puts(&b, "G");
    attrs(&b, g, AGRAPH, g);
    exdb_buf_puts(&b, "\n");
    lines_of(&b, g, g, "");
    agclose(g);
    size_t n = 0, cap = 1024;
    char **v = malloc(cap * sizeof *v);
    for (char *t = strtok(b.s, "\n"); t; t = strtok(NULL, "\n")) {
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = t;
    }
    qsort(v, n, sizeof *v, cmp_lines);
    exdb_buf out;
    exdb_buf_init(&out);
    for (size_t i = 0; i < n; i++)
        exdb_buf_printf(&out, "%s\n", v[i]);
    free(v);
    exdb_buf_free(&b);
    char *s = strdup(exdb_buf_str(&out));
    exdb_buf_free(&out);
    return s;
}

static char *dot(const exdb_viz_source *src, exdb_viz_view view, int plain) {
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    vz_cg_plain = plain;
    int rc = exdb_viz_dot(src, &view, &set, &b, NULL, &err);
    vz_cg_plain = 0;
    cr_assert_eq(rc, 0, "%s", err.msg);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* Every view of program p: the disciplines' DOT and cgraph's describe the
 * same graph. Returns how many views were compared. */
static int same_graphs(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), 0, "%s", err.msg);
    exdb_viz_source src = {.prog = p, .done = u};
    const exdb_viz_view views[] = {
        {.kind = EXDB_VIEW_FLAT},
        {.kind = EXDB_VIEW_FLAT, .no_dup = 1},
        {.kind = EXDB_VIEW_FLAT, .by_module = 1},
        {.kind = EXDB_VIEW_MODULES, .depth = 1},
        {.kind = EXDB_VIEW_MODULES, .depth = 3},
        {.kind = EXDB_VIEW_TREE},
        {.kind = EXDB_VIEW_MODULE, .fqn = ""},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
        char *fast = dot(&src, views[i], 0), *plain = dot(&src, views[i], 1);
        char *a = canonical(fast), *b = canonical(plain);
        cr_assert(strlen(a) > 10);
        cr_assert_str_eq(a, b, "%s, view %zu: the disciplines wrote another graph", path, i);
        free(a);
        free(b);
        free(fast);
        free(plain);
        n++;
    }
    exdb_unflatten_free(u);
    exdb_program_free(p);
    return n;
}

Test(cgdisc, example_views_equal_cgraphs_own) {
    cr_assert_eq(same_graphs("tests/fixtures/example.json"), 7);
}

Test(cgdisc, real_program_views_equal_cgraphs_own) {
    static const char *models[] = {"resnet18", "vit_b_16", "efficientnet_b0"};
    int done = 0;
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/TheCBaH__pytorch.models.pt2__%s__model.json",
                 test_real_dir(), models[i]);
        if (access(path, R_OK) == 0)
            done += same_graphs(path);
    }
    if (!done)
        cr_log_warn("cgdisc: %s is not here: real programs skipped", test_real_dir());
    else
        cr_assert_eq(done, 21, "compared %d views", done);
}

/* The canonical form does see a difference (a check that cannot fail
 * would prove nothing). */
Test(cgdisc, canonical_form_tells_graphs_apart) {
    char *a = canonical("digraph { a -> b; subgraph cluster_x { a } }");
    char *b = canonical("digraph { subgraph cluster_x { a }; a -> b }");
    char *c = canonical("digraph { a -> b; subgraph cluster_x { b } }");
    char *d = canonical("digraph { a -> b [label=x]; subgraph cluster_x { a } }");
    cr_assert_str_eq(a, b);
    cr_assert_str_neq(a, c);
    cr_assert_str_neq(a, d);
    free(a);
    free(b);
    free(c);
    free(d);
}
