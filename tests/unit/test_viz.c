/* test_viz.c - rendering: DOT read back with agread (node, edge and
 * cluster counts equal the program's and, for a big generated graph, the
 * view graph's, with its texts and cluster nesting), duplicated hub nodes,
 * SVG well-formed with one element per node id, the render limit, atomic
 * writes that never hit the program, and the modules view of real
 * programs. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fx/print.h"
#include "core/export/program.h"
#include "core/unflatten/unflatten.h"
#include "viz/render.h"
#include "viz/view.h"
#include "viz/cgdisc.h"
#include "viz/emit.h"
#include "viz/flat.h"

#include "testutil.h"

#define EXAMPLE "tests/fixtures/example.json"

static void setup(void) {
    test_tmpdir_make("viz");
}

TestSuite(viz, .init = setup, .fini = test_tmpdir_remove);

static exdb_program *load(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    return p;
}

static exdb_viz_settings settings(void) {
    exdb_viz_settings s;
    exdb_viz_settings_default(&s);
    return s;
}

/* Subgraphs named cluster*, at any depth. */
static int count_clusters(Agraph_t *g) {
    int n = 0;
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s))
        n += (strncmp(agnameof(s), "cluster", 7) == 0) + count_clusters(s);
    return n;
}

static Agraph_t *find_subg(Agraph_t *g, const char *name) {
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
        if (strcmp(agnameof(s), name) == 0)
            return s;
        Agraph_t *r = find_subg(s, name);
        if (r)
            return r;
    }
    return NULL;
}

static void count_input(void *ctx, exdb_node *u) {
    (void)u;
    (*(int *)ctx)++;
}

/* FX edges: one per distinct input of each node. */
static int fx_edges(const exdb_graph *g) {
    int n = 0;
    for (exdb_node *x = g->head; x; x = x->next)
        exdb_node_foreach_input(x, count_input, &n);
    return n;
}

/* Distinct module calls: distinct chains of non-root stack keys. */
static int fx_calls(const exdb_graph *g) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_strmap seen;
    exdb_strmap_init(&seen, &a);
    exdb_buf b;
    exdb_buf_init(&b);
    int n = 0;
    for (const exdb_node *x = g->head; x; x = x->next) {
        if (!x->meta)
            continue;
        exdb_buf_reset(&b);
        for (uint32_t i = 0; i < x->meta->nstack; i++) {
            const exdb_stack_entry *e = &x->meta->stack[i];
            if (!e->path[0])
                continue;
            exdb_buf_printf(&b, "/%s", e->key);
            if (!exdb_strmap_find(&seen, exdb_buf_str(&b))) {
                *exdb_strmap_put(&seen, exdb_arena_strdup(&a, exdb_buf_str(&b)), NULL) = &seen;
                n++;
            }
        }
    }
    exdb_buf_free(&b);
    exdb_arena_destroy(&a);
    return n;
}

static Agraph_t *dot_of(const exdb_program *p, exdb_viz_view view, exdb_viz_settings set,
                        exdb_viz_stats *st) {
    exdb_viz_source src = {.prog = p};
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    cr_assert_eq(exdb_viz_dot(&src, &view, &set, &b, st, &err), 0, "%s", err.msg);
    Agraph_t *g = agmemread(b.s);
    cr_assert_not_null(g, "agread failed on:\n%.400s", b.s);
    exdb_buf_free(&b);
    return g;
}

Test(viz, flat_dot_counts_equal_the_graph) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT, .no_dup = 1};
    exdb_viz_stats st;
    Agraph_t *g = dot_of(p, view, settings(), &st);
    cr_assert_eq(agnnodes(g), (int)p->graph->count);
    cr_assert_eq(agnedges(g), fx_edges(p->graph));
    cr_assert_eq(count_clusters(g), 0);
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        cr_assert_not_null(agnode(g, (char *)n->name, 0), "node %s missing", n->name);
    /* getitem edges carry the index; targets are shortened. */
    Agnode_t *gi = agnode(g, "getitem", 0);
    Agedge_t *e = agfstin(g, gi);
    cr_assert_str_eq(agget(e, "label"), "[0]");
    cr_assert(strstr(agget(agnode(g, "addmm", 0), "label"), "aten.addmm\\n") ||
              strstr(agget(agnode(g, "addmm", 0), "label"), "aten.addmm\n"));
    /* Placeholders coloured by kind, mutations red into the output. */
    cr_assert_str_eq(agget(agnode(g, "x", 0), "fillcolor"), vz_input_fill(EXDB_IN_USER_INPUT));
    cr_assert_str_eq(agget(agnode(g, "p_embed_weight", 0), "fillcolor"),
                     vz_input_fill(EXDB_IN_PARAMETER));
    cr_assert_str_eq(agget(agnode(g, "b_encoder_layers_0_attn_calls", 0), "fillcolor"),
                     vz_input_fill(EXDB_IN_BUFFER));
    Agedge_t *m = agedge(g, agnode(g, "add", 0), agnode(g, "output", 0), NULL, 0);
    cr_assert_not_null(m);
    cr_assert(strstr(agget(m, "label"), "buffer_mutation"));
    cr_assert(strstr(agget(agnode(g, "addmm", 0), "tooltip"), "\\nsource:\\n  File "));
    agclose(g);
    exdb_program_free(p);
}

Test(viz, by_module_has_one_cluster_per_call) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT, .by_module = 1, .no_dup = 1};
    exdb_viz_stats st;
    Agraph_t *g = dot_of(p, view, settings(), &st);
    cr_assert_eq(agnnodes(g), (int)p->graph->count);
    cr_assert_eq(agnedges(g), fx_edges(p->graph));
    cr_assert_eq(count_clusters(g), fx_calls(p->graph));
    cr_assert_eq((int)st.clusters, fx_calls(p->graph));
    /* A repeated call is its own cluster: act and act@1. */
    cr_assert_not_null(find_subg(g, "cluster_encoder.layers.0.act"));
    cr_assert_not_null(find_subg(g, "cluster_encoder.layers.0.act@1"));
    cr_assert(strstr(agget(agnode(g, "relu_1", 0), "label"), "relu_1"));
    agclose(g);
    exdb_program_free(p);
}

/* The nearest enclosing cluster of subgraph s ("" for the root): groups
 * are invisible to dot and do not count. */
static const char *cluster_parent(Agraph_t *s) {
    for (Agraph_t *p = agparent(s); p; p = agparent(p))
        if (strncmp(agnameof(p), "cluster", 7) == 0)
            return agnameof(p);
    return "";
}

/* Checks each cluster under g against the view's (cl: name -> vz_cluster):
 * its label and its nearest enclosing cluster. Returns how many it saw. */
static int check_clusters(Agraph_t *g, const vz_graph *vg, const exdb_strmap *cl) {
    int n = 0;
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
        if (strncmp(agnameof(s), "cluster", 7) == 0) {
            const vz_cluster *c = exdb_strmap_get(cl, agnameof(s));
            cr_assert_not_null(c, "%s", agnameof(s));
            cr_assert_str_eq(cluster_parent(s), c->parent ? vg->clusters[c->parent].name : "");
            cr_assert_str_eq(agget(s, "label"), c->label);
            n++;
        }
        n += check_clusters(s, vg, cl);
    }
    return n;
}

/* Most direct subgraphs under any one graph. */
static int max_fanout(Agraph_t *g) {
    int n = 0, most = 0;
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
        n++;
        int k = max_fanout(s);
        most = k > most ? k : most;
    }
    return n > most ? n : most;
}

/* Every DOT goes through cgraph: a generated view of 25,000 nodes (more
 * than the old direct writer's threshold) in 2,500 sibling clusters under
 * one cluster, with a hub whose 100 far uses get dashed copies, a rank
 * pair and texts that need escaping, written by vz_write to a FILE and to
 * a buffer (the same bytes) and read back by agread: the view graph's
 * nodes, edges and clusters, each cluster in its parent, the texts and
 * shared tooltips intact. */
Test(viz, big_view_dot_reads_back_whole) {
    enum { NCL = 2500, PER = 10 };
    vz_graph vg;
    cr_assert_eq(vz_init(&vg), 0);
    uint32_t top = vz_add_cluster(&vg, "cluster_layers", 0);
    vg.clusters[top].label = "layers";
    exdb_buf b;
    exdb_buf_init(&b);
    vz_put_text(&b, "say \"hi\" \\ a\nsecond line \\", 0, 0);
    const char *odd = vz_str(&vg, &b);
    vz_node hub = {.name = "hub", .tooltip = "the hub\\nshared", .fill = "#ffeda0", .dup_ok = 1};
    cr_assert_eq(vz_add_node(&vg, &hub), 0);
    char name[64];
    for (uint32_t c = 0; c < NCL; c++) {
        snprintf(name, sizeof name, "cluster_layers.%u", c);
        uint32_t cl = vz_add_cluster(&vg, exdb_arena_strdup(&vg.arena, name), top);
        vg.clusters[cl].label = vg.clusters[cl].name + 8;
        for (uint32_t k = 0; k < PER; k++) {
            uint32_t order = 1 + c * PER + k;
            snprintf(name, sizeof name, "n_%u", order);
            vz_node n = {.name = exdb_arena_strdup(&vg.arena, name),
                         .label = k == 3 ? odd : NULL,
                         .cluster = cl,
                         .order = order};
            uint32_t i = vz_add_node(&vg, &n);
            cr_assert_eq(i, order);
            vz_edge e = {.from = i - 1, .to = i, .label = k == 5 ? "[0]" : NULL};
            vz_add_edge(&vg, &e);
            if (c % 25 == 0 && k == 0) {
                vz_edge h = {.from = 0, .to = i, .color = "#d62728"};
                vz_add_edge(&vg, &h);
            }
        }
    }
    vg.nodes[2].rank_with = 1 + 1; /* n_2 beside n_1 */
    cr_assert_eq(vg.nnodes, 1 + NCL * PER);
    exdb_viz_settings set = settings();
    exdb_viz_stats st;
    exdb_error err = {0};
    cr_assert_eq(vz_duplicate(&vg, &set, 0, &st, &err), 0);
    cr_assert_eq(st.dup_nodes, NCL / 25 - 1, "%u copies", st.dup_nodes); /* n_1 is near */

    Agraph_t *g = vz_emit(&vg, 0, &st, &err);
    cr_assert_not_null(g, "%s", err.msg);
    cr_assert_leq(max_fanout(g), 32);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(vz_write(g, f, NULL), 0);
    fclose(f);
    exdb_buf_reset(&b);
    cr_assert_eq(vz_write(g, NULL, &b), 0);
    vz_close(g);
    cr_assert_eq(b.len, len);
    cr_assert(memcmp(b.s, text, len) == 0);
    exdb_buf_free(&b);

    g = agmemread(text);
    cr_assert_not_null(g);
    cr_assert_eq(agnnodes(g), (int)vg.nnodes);
    cr_assert_eq(agnedges(g), (int)vg.nedges);
    cr_assert_eq(count_clusters(g), (int)vg.nclusters - 1);
    exdb_strmap cl;
    exdb_strmap_init(&cl, &vg.arena);
    for (uint32_t c = 1; c < vg.nclusters; c++)
        *exdb_strmap_put(&cl, vg.clusters[c].name, NULL) = &vg.clusters[c];
    cr_assert_eq(check_clusters(g, &vg, &cl), (int)vg.nclusters - 1);
    for (uint32_t i = 0; i < vg.nnodes; i++) {
        const vz_node *v = &vg.nodes[i];
        Agnode_t *n = agnode(g, (char *)v->name, 0);
        cr_assert_not_null(n, "%s", v->name);
        cr_assert_str_eq(agget(n, "id"), v->name);
        cr_assert_str_eq(agget(n, "label"), v->label ? v->label : "\\N");
        cr_assert_str_eq(agget(n, "tooltip"), v->tooltip ? v->tooltip : "");
        cr_assert_str_eq(agget(n, "fillcolor"), v->fill ? v->fill : "white");
    }
    cr_assert_str_eq(agget(agnode(g, "n_4", 0), "label"), odd);
    cr_assert_str_eq(agget(agnode(g, "hub~3", 0), "style"), "rounded,filled,dashed");
    Agraph_t *rank = find_subg(g, "rank~2");
    cr_assert_not_null(rank);
    cr_assert_eq(agnnodes(rank), 2);
    cr_assert_str_eq(agget(rank, "rank"), "same");
    agclose(g);
    free(text);
    vz_free(&vg);
}

Test(viz, hubs_get_one_dashed_copy_per_far_use) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_settings set = settings();
    set.dup_fanout = 1; /* every node with 2+ far uses */
    set.dup_span = 2;
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    exdb_viz_stats st;
    Agraph_t *g = dot_of(p, view, set, &st);
    cr_assert_gt(st.dup_nodes, 0);
    cr_assert_eq(agnnodes(g), (int)(p->graph->count + st.dup_nodes));
    cr_assert_eq(agnedges(g), fx_edges(p->graph)); /* uses are moved, not added */
    int copies = 0;
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        if (!strchr(agnameof(n), '~'))
            continue;
        copies++;
        cr_assert(strstr(agget(n, "style"), "dashed"));
        cr_assert_eq(agdegree(g, n, 1, 1), 1, "%s", agnameof(n));
    }
    cr_assert_eq(copies, (int)st.dup_nodes);
    agclose(g);
    /* The default settings leave the small example alone except real hubs. */
    exdb_viz_view nodup = {.kind = EXDB_VIEW_FLAT, .no_dup = 1};
    g = dot_of(p, nodup, set, &st);
    cr_assert_eq(st.dup_nodes, 0);
    agclose(g);
    exdb_program_free(p);
}

/* Occurrences of id="NAME" in text. */
static int count_id(const char *text, const char *name) {
    char pat[512];
    snprintf(pat, sizeof pat, "id=\"%s\"", name);
    int n = 0;
    for (const char *s = text; (s = strstr(s, pat)); s += strlen(pat))
        n++;
    return n;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

static void xmllint_ok(const char *path) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>&1", path);
    cr_assert_eq(system(cmd), 0, "xmllint rejects %s", path);
}

Test(viz, svg_is_well_formed_with_one_element_per_node) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set = settings();
    exdb_error err = {0};
    exdb_viz_view views[] = {{.kind = EXDB_VIEW_FLAT}, {.kind = EXDB_VIEW_FLAT, .by_module = 1}};
    for (int v = 0; v < 2; v++) {
        const char *out = test_tpath(v ? "bym.svg" : "flat.svg");
        exdb_viz_stats st;
        cr_assert_eq(exdb_viz_render(&src, &views[v], &set, out, &st, &err), 0, "%s", err.msg);
        cr_assert_str_eq(st.engine, "dot");
        xmllint_ok(out);
        char *svg = slurp(out);
        for (const exdb_node *n = p->graph->head; n; n = n->next)
            cr_assert_eq(count_id(svg, n->name), 1, "id %s", n->name);
        free(svg);
    }
    exdb_program_free(p);
}

Test(viz, images_refused_above_the_limit_dot_never) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set = settings();
    cr_assert_eq(exdb_viz_set(&set, "render-limit", "10", NULL), 0);
    exdb_error err = {0};
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("a.svg"), NULL, &err), -1);
    cr_assert(strstr(err.msg, "render limit"), "%s", err.msg);
    cr_assert(strstr(err.msg, "modules --depth"), "%s", err.msg);
    cr_assert_eq(access(test_tpath("a.svg"), F_OK), -1);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("a.dot"), NULL, &err), 0, "%s",
                 err.msg);
    view.force = 1;
    cr_assert_eq(exdb_viz_set(&set, "layout", "sfdp", NULL), 0);
    exdb_viz_stats st;
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("a.png"), &st, &err), 0, "%s",
                 err.msg);
    cr_assert_str_eq(st.engine, "sfdp");
    exdb_program_free(p);
}

Test(viz, never_overwrites_the_program_and_leaves_no_temp_files) {
    /* The program under an image name: loading goes by content. */
    char *text = slurp(EXAMPLE);
    const char *copy = test_tpath("prog.svg");
    FILE *f = fopen(copy, "wb");
    fputs(text, f);
    fclose(f);
    exdb_program *p = load(copy);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set = settings();
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    exdb_error err = {0};
    char same[600];
    snprintf(same, sizeof same, "%s/./prog.svg", test_tdir);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, same, NULL, &err), -1);
    cr_assert(strstr(err.msg, "refusing"), "%s", err.msg);
    /* A symbolic link to the program is caught too. */
    cr_assert_eq(symlink(copy, test_tpath("prog.dot")), 0);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("prog.dot"), NULL, &err), -1);
    cr_assert(strstr(err.msg, "refusing"), "%s", err.msg);
    char *after = slurp(copy);
    cr_assert_str_eq(after, text);
    free(after);
    unlink(test_tpath("prog.dot"));
    exdb_error_clear(&err);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("x.txt"), NULL, &err), -1);
    cr_assert(strstr(err.msg, "extension"), "%s", err.msg);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("out.dot"), NULL, &err), 0, "%s",
                 err.msg);
    /* Only the program and the output are left: no temporary files
     * (which are dotfiles: count those too). */
    DIR *d = opendir(test_tdir);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d)))
        files += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    cr_assert_eq(files, 2);
    struct stat sb;
    cr_assert_eq(stat(test_tpath("out.dot"), &sb), 0);
    cr_assert(sb.st_mode & S_IRGRP || (sb.st_mode & 0777) == (0666 & ~umask(022)));
    free(text);
    exdb_program_free(p);
}

/* A write that runs out of room (a full disk; here RLIMIT_FSIZE, which
 * fails the same write() with EFBIG) is an error naming the file and the
 * reason, in every format, and leaves nothing behind. Graphviz's own file
 * writer called exit(1) on the short write ("gvwrite_no_z problem"), which
 * ended the session; so each render runs in a child that must come back. */
Test(viz, a_write_that_fails_is_an_error_not_an_exit) {
    exdb_program *p = load(EXAMPLE);
    static const char *const exts[] = {"svg", "png", "pdf", "html", "dot"};
    for (int i = 0; i < 5; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/g.%s", test_tdir, exts[i]);
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_neq(pid, -1);
        if (pid == 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = {4096, 4096};
            setrlimit(RLIMIT_FSIZE, &rl);
            exdb_viz_source src = {.prog = p};
            exdb_viz_settings set = settings();
            exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
            exdb_error err = {0};
            char want[700];
            snprintf(want, sizeof want, "%s: cannot write: %s", path, strerror(EFBIG));
            int rc = exdb_viz_render(&src, &view, &set, path, NULL, &err);
            _exit(rc == -1 && strcmp(err.msg, want) == 0 ? 0 : 7);
        }
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, ".%s: status %#x", exts[i],
                  status);
        DIR *d = opendir(test_tdir);
        struct dirent *de;
        while ((de = readdir(d)))
            cr_assert(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."), ".%s left %s", exts[i],
                      de->d_name);
        closedir(d);
    }
    exdb_program_free(p);
}

/* render -o onto a FIFO: refused before any work (renaming over it would
 * replace it; as root over /dev/null, the device). */
Test(viz, refuses_targets_that_are_not_regular_files) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set = settings();
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    exdb_error err = {0};
    cr_assert_eq(mkfifo(test_tpath("pipe.svg"), 0600), 0);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, test_tpath("pipe.svg"), NULL, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a FIFO): refusing to replace it"), "%s",
              err.msg);
    struct stat st;
    cr_assert_eq(lstat(test_tpath("pipe.svg"), &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
    exdb_program_free(p);
}

Test(viz, modules_view_of_the_example) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_view view = {.kind = EXDB_VIEW_MODULES, .depth = 1};
    exdb_viz_stats st;
    Agraph_t *g = dot_of(p, view, settings(), &st);
    /* embed, encoder, head, the user input x and the output. */
    cr_assert_eq(agnnodes(g), 5);
    cr_assert_not_null(agnode(g, "encoder", 0));
    cr_assert(strstr(agget(agnode(g, "encoder", 0), "label"), "mutates 2 buffers"));
    cr_assert_not_null(agedge(g, agnode(g, "embed", 0), agnode(g, "encoder", 0), NULL, 0));
    agclose(g);
    view.depth = 3;
    g = dot_of(p, view, settings(), &st);
    cr_assert_not_null(agnode(g, "encoder.layers.0", 0));
    cr_assert_not_null(agnode(g, "encoder.norm", 0));
    cr_assert_eq(count_clusters(g), 2); /* encoder, encoder.layers */
    agclose(g);
    exdb_program_free(p);
}

/* A parent with thousands of sibling clusters: grouped, no graph with more
 * than GROUP_MAX (32) direct subgraphs and the root with one, so agwrite
 * stays linear, and agread still sees every cluster. */
Test(viz, many_sibling_clusters_are_grouped) {
    vz_graph vg;
    cr_assert_eq(vz_init(&vg), 0);
    char name[64];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "cluster_layers.%d", i);
        uint32_t c = vz_add_cluster(&vg, exdb_arena_strdup(&vg.arena, name), 0);
        snprintf(name, sizeof name, "n%d", i);
        vz_node n = {.name = exdb_arena_strdup(&vg.arena, name), .cluster = c, .order = i};
        uint32_t k = vz_add_node(&vg, &n);
        if (i) {
            vz_edge e = {.from = k - 1, .to = k};
            vz_add_edge(&vg, &e);
        }
    }
    exdb_error err = {0};
    exdb_viz_stats st;
    Agraph_t *g = vz_emit(&vg, 0, &st, &err);
    cr_assert_not_null(g);
    cr_assert_gt(st.groups, 0);
    cr_assert_eq(agnsubg(g), 1);
    cr_assert_leq(max_fanout(g), 32);
    char *t = NULL;
    size_t l;
    FILE *f = open_memstream(&t, &l);
    cr_assert_eq(vz_write(g, f, NULL), 0);
    fclose(f);
    vz_close(g);
    g = agmemread(t);
    cr_assert_eq(count_clusters(g), 3000);
    cr_assert_eq(agnnodes(g), 3000);
    cr_assert_eq(agnedges(g), 2999);
    agclose(g);
    free(t);
    vz_free(&vg);
}

Test(viz, real_programs_render) {
    static const char *models[] = {"resnet18", "mobilenet_v3_small", "vit_b_16"};
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/TheCBaH__pytorch.models.pt2__%s__model.json",
                 test_real_dir(), models[i]);
        if (access(path, R_OK) != 0)
            continue;
        exdb_program *p = load(path);
        exdb_viz_source src = {.prog = p};
        exdb_viz_settings set = settings();
        exdb_error err = {0};
        exdb_viz_view mv = {.kind = EXDB_VIEW_MODULES, .depth = 2};
        const char *out = test_tpath("m.svg");
        cr_assert_eq(exdb_viz_render(&src, &mv, &set, out, NULL, &err), 0, "%s: %s", models[i],
                     err.msg);
        xmllint_ok(out);
        exdb_viz_view fv = {.kind = EXDB_VIEW_FLAT, .no_dup = 1};
        exdb_viz_stats st;
        Agraph_t *g = dot_of(p, fv, set, &st);
        cr_assert_eq(agnnodes(g), (int)p->graph->count, "%s", models[i]);
        cr_assert_eq(agnedges(g), fx_edges(p->graph), "%s", models[i]);
        agclose(g);
        fv.by_module = 1;
        g = dot_of(p, fv, set, &st);
        cr_assert_eq(count_clusters(g), fx_calls(p->graph), "%s", models[i]);
        agclose(g);
        exdb_program_free(p);
    }
}

Test(viz, settings_and_names) {
    exdb_viz_settings s = settings();
    exdb_error err = {0};
    cr_assert_eq(exdb_viz_set(&s, "layout", "dot", &err), 0);
    cr_assert_eq(s.layout, EXDB_VIZ_LAYOUT_DOT);
    cr_assert_eq(exdb_viz_set(&s, "layout", "neato", &err), -1);
    cr_assert_eq(exdb_viz_set(&s, "render-limit", "-1", &err), -1);
    cr_assert_eq(exdb_viz_set(&s, "nope", "1", &err), -1);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_viz_setting_show(&b, &s, "layout");
    exdb_viz_setting_show(&b, &s, "rankdir");
    exdb_viz_setting_show(&b, &s, "render-limit");
    exdb_viz_setting_show(&b, &s, "nope");
    cr_assert_str_eq(b.s, "layout: dot\nrankdir: auto\nrender-limit: 2000\n");
    exdb_buf_free(&b);
    cr_assert_eq(exdb_viz_format_of("a/b.c/x.SVG"), EXDB_FMT_SVG);
    cr_assert_eq(exdb_viz_format_of("a.b/x"), EXDB_FMT_NONE);
    cr_assert_eq(exdb_viz_format_of("x.gv"), EXDB_FMT_DOT);
}

/* ---- the views of the unflattener */

static exdb_unflatten *finished(const exdb_program *p) {
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), 0, "%s", err.msg);
    return u;
}

static Agraph_t *dot_of_src(const exdb_viz_source *src, exdb_viz_view view, exdb_viz_stats *st) {
    exdb_viz_settings set = settings();
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    cr_assert_eq(exdb_viz_dot(src, &view, &set, &b, st, &err), 0, "%s", err.msg);
    Agraph_t *g = agmemread(b.s);
    cr_assert_not_null(g, "agread failed on:\n%.400s", b.s);
    exdb_buf_free(&b);
    return g;
}

Test(viz, module_view_is_the_module_graph_with_children_named) {
    exdb_program *p = load(EXAMPLE);
    exdb_unflatten *u = finished(p);
    exdb_viz_source src = {.prog = p, .done = u};
    exdb_viz_view view = {.kind = EXDB_VIEW_MODULE, .fqn = "encoder.layers.0", .no_dup = 1};
    exdb_viz_stats st;
    Agraph_t *g = dot_of_src(&src, view, &st);
    exdb_umodule *m = exdb_unflatten_module(u, "encoder.layers.0");
    cr_assert_eq(agnnodes(g), (int)m->graph->count);
    cr_assert_eq(agnedges(g), fx_edges(m->graph));
    int calls = 0;
    for (const exdb_node *n = m->graph->head; n; n = n->next) {
        Agnode_t *an = agnode(g, (char *)n->name, 0);
        cr_assert_not_null(an, "node %s missing", n->name);
        if (n->op == EXDB_OP_CALL_MODULE) {
            /* the child's full path is in the label and the tooltip */
            char want[256];
            snprintf(want, sizeof want, "encoder.layers.0.%s", n->target);
            cr_assert(strstr(agget(an, "label"), want), "%s", agget(an, "label"));
            cr_assert(strstr(agget(an, "tooltip"), want));
            calls++;
        }
    }
    cr_assert_gt(calls, 2);
    agclose(g);
    /* a missing module is an error naming it */
    exdb_viz_settings set = settings();
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    view.fqn = "encoder.nosuch";
    cr_assert_eq(exdb_viz_dot(&src, &view, &set, &b, NULL, &err), -1);
    cr_assert(strstr(err.msg, "\"encoder.nosuch\""), "%s", err.msg);
    exdb_buf_free(&b);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* A module with no graph of its own draws its subtree, as `tree` would:
 * the empty InterpreterModule unflatten makes for a ModuleList iterated in
 * forward, and a plain torch.nn.Module (a ParameterList). */
Test(viz, module_without_a_graph_draws_its_submodules) {
    exdb_program *p = load("tests/fixtures/unflatten/module_list.json");
    exdb_unflatten *u = finished(p);
    exdb_viz_source src = {.prog = p, .done = u};
    exdb_viz_view view = {.kind = EXDB_VIEW_MODULE, .fqn = "layers", .no_dup = 1};
    exdb_viz_stats st;
    Agraph_t *g = dot_of_src(&src, view, &st);
    const char *want[] = {"layers", "layers.0", "layers.1", "layers.1.act"};
    cr_assert_eq(agnnodes(g), 4);
    for (int i = 0; i < 4; i++)
        cr_assert_not_null(agnode(g, (char *)want[i], 0), "%s missing", want[i]);
    cr_assert_not_null(agedge(g, agnode(g, "layers", 0), agnode(g, "layers.1", 0), NULL, 0));
    cr_assert_not_null(agedge(g, agnode(g, "layers.1", 0), agnode(g, "layers.1.act", 0), NULL, 0));
    cr_assert_eq(agnedges(g), 3);
    cr_assert_null(agnode(g, "<root>", 0));
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);

    p = load("tests/fixtures/unflatten/param_list_dict.json");
    u = finished(p);
    src = (exdb_viz_source){.prog = p, .done = u};
    cr_assert_eq(exdb_unflatten_module(u, "param_list")->kind, EXDB_UMOD_PLAIN);
    view.fqn = "param_list";
    g = dot_of_src(&src, view, &st);
    cr_assert_eq(agnnodes(g), 1);
    cr_assert(strstr(agget(agnode(g, "param_list", 0), "tooltip"), "parameters=2"));
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

static void count_path(void *ctx, const char *fqn, exdb_umodule *m) {
    (void)fqn;
    (void)m;
    (*(int *)ctx)++;
}

Test(viz, tree_has_one_node_per_module_path_and_marks_dedup_and_dispatch) {
    exdb_program *p = load(EXAMPLE);
    exdb_unflatten *u = finished(p);
    exdb_viz_source src = {.prog = p, .done = u};
    exdb_viz_stats st;
    Agraph_t *g = dot_of_src(&src, (exdb_viz_view){.kind = EXDB_VIEW_TREE}, &st);
    int paths = 0;
    exdb_unflatten_named_modules(u, count_path, &paths);
    cr_assert_eq(agnnodes(g), paths);
    cr_assert_eq(agnedges(g), paths - 1);
    cr_assert_not_null(agnode(g, "encoder.layers.0.attn", 0));
    /* act is called twice: the second call was deduplicated into it */
    const char *act = agget(agnode(g, "encoder.layers.0.act", 0), "label");
    cr_assert(strstr(act, "calls=2") && strstr(act, "1 deduplicated call"), "%s", act);
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);

    p = load("tests/fixtures/unflatten/dispatch.json");
    u = finished(p);
    src = (exdb_viz_source){.prog = p, .done = u};
    g = dot_of_src(&src, (exdb_viz_view){.kind = EXDB_VIEW_TREE}, &st);
    const char *n = agget(agnode(g, "n", 0), "label");
    cr_assert(strstr(n, "Dispatcher calls=3"), "%s", n);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "n#%d", i);
        Agnode_t *c = agnode(g, name, 0);
        cr_assert_not_null(c, "%s", name);
        cr_assert_not_null(agedge(g, agnode(g, "n", 0), c, NULL, 0));
    }
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* The frame view stays bounded: the window, two notes and the frame's
 * picked nodes, whatever the program size; the cursor is marked. */
Test(viz, frame_view_is_bounded_and_marks_the_cursor) {
    exdb_program *p = load(EXAMPLE);
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    for (int i = 0; i < 60; i++)
        cr_assert_eq(exdb_unflatten_step(u, NULL, &err), 1, "%s", err.msg);
    exdb_viz_source src = {.prog = p, .cur = u};
    exdb_viz_stats st;
    Agraph_t *g = dot_of_src(&src, (exdb_viz_view){.kind = EXDB_VIEW_FRAME, .window = 3}, &st);
    const exdb_urun *r = u->run;
    cr_assert_lt(r->idx, r->nnodes);
    cr_assert_eq(r->phase, EXDB_UPH_BODY);
    Agnode_t *cur = agnode(g, (char *)r->nodes[r->idx]->name, 0);
    cr_assert_not_null(cur);
    cr_assert(strstr(agget(cur, "label"), "cursor"));
    /* window 7 + 2 notes + stack + frame graph (<= 2*3 tail + 7 mapped + 1 note) */
    cr_assert_leq(agnnodes(g), 7 + 2 + (int)r->depth + 14 + 1, "%d nodes", agnnodes(g));
    cr_assert_eq(count_clusters(g), 3);
    cr_assert_not_null(agnode(g, "flat~before", 0));
    cr_assert_not_null(agnode(g, "flat~after", 0));
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

Test(viz, html_page_is_self_contained) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set = settings();
    exdb_error err = {0};
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    const char *out = test_tpath("flat.html");
    exdb_viz_stats st;
    cr_assert_eq(exdb_viz_render(&src, &view, &set, out, &st, &err), 0, "%s", err.msg);
    char *page = slurp(out);
    cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    cr_assert_null(strstr(page, "<?xml"));
    cr_assert_null(strstr(page, "src=\"http"));
    cr_assert_not_null(strstr(page, "<script>"));
    /* the viewer's page (every view's): each node's record once, drawn by its script */
    char pat[512];
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        snprintf(pat, sizeof pat, "[\"o\",\"%s\",", n->name);
        const char *at = strstr(page, pat);
        cr_assert_not_null(at, "record of %s", n->name);
        cr_assert_null(strstr(at + 1, pat), "two records of %s", n->name);
    }
    free(page);
    exdb_program_free(p);
}

/* flat --by-module of resnet18: no staircase. Parameters of a block's
 * first op used to put the block on the last rank of the block before
 * (dot then laid sibling blocks out diagonally), and the unused
 * num_batches_tracked buffers made one row across the top. Checked on the
 * layout: blocks of a stage are stacked (their x ranges overlap), and the
 * picture is taller than wide. Both DOT writers agree. */
Test(viz, by_module_stacks_sibling_clusters) {
    char path[512];
    snprintf(path, sizeof path, "%s/TheCBaH__pytorch.models.pt2__resnet18__model.json",
             test_real_dir());
    if (access(path, R_OK) != 0)
        return;
    exdb_program *p = load(path);
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT, .by_module = 1};
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set = settings();
    exdb_error err = {0};
    vz_graph vg;
    cr_assert_eq(vz_init(&vg), 0);
    cr_assert_eq(vz_view_flat(&vg, &src, &view, &err), 0, "%s", err.msg);
    cr_assert_eq(vz_duplicate(&vg, &set, 0, NULL, &err), 0);
    /* the unused buffer sits in its BatchNorm's cluster */
    uint32_t b = vz_find(&vg, "b_bn1_num_batches_tracked");
    cr_assert_neq(b, VZ_NONE);
    cr_assert_str_eq(vg.clusters[vg.nodes[b].cluster].name, "cluster_bn1");
    cr_assert_neq(vg.nodes[b].rank_with, 0);
    Agraph_t *g = vz_emit(&vg, 1, NULL, &err);
    cr_assert_not_null(g);
    GVC_t *gvc = gvContext();
    cr_assert_eq(gvLayout(gvc, g, "dot"), 0);
    Agraph_t *s0 = find_subg(g, "cluster_layer1.0"), *s1 = find_subg(g, "cluster_layer1.1");
    cr_assert(s0 && s1);
    boxf b0 = GD_bb(s0), b1 = GD_bb(s1), all = GD_bb(g);
    cr_assert(b0.LL.x < b1.UR.x && b1.LL.x < b0.UR.x, "layer1.0 x %.0f-%.0f, layer1.1 x %.0f-%.0f",
              b0.LL.x, b0.UR.x, b1.LL.x, b1.UR.x);
    cr_assert_gt(all.UR.y - all.LL.y, all.UR.x - all.LL.x, "%.0f x %.0f pt", all.UR.x - all.LL.x,
                 all.UR.y - all.LL.y);
    gvFreeLayout(gvc, g);
    vz_close(g);
    vz_free(&vg);
    exdb_program_free(p);
}
