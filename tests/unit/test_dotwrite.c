/* test_dotwrite.c - viz/dotwrite.c writes the bytes agwrite writes: every
 * DOT exdb makes of the test programs (each fixture, its flat, --no-dup,
 * --by-module, --hide, modules, module, tree and frame views, a diff),
 * resnet18 and the 10k synthetic program when they are here, and view
 * graphs made to hit agstrcanon's quoting and line splitting, rank pairs
 * across clusters and names dotwrite.c leaves to cgraph, written both ways
 * and compared byte for byte. agwrite is the oracle: any difference fails. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/export/diff.h"
#include "core/export/program.h"
#include "core/unflatten/unflatten.h"
#include "viz/cgdisc.h"
#include "viz/dotwrite.h"
#include "viz/emit.h"
#include "viz/render.h"
#include "viz/view.h"

#include "testutil.h"

/* The oracle is Graphviz 2.42's agwrite with cgdisc.c's disciplines (which
 * list subgraphs in creation order): another Graphviz writes other bytes. */
static void oracle_or_skip(void) {
#ifndef EXDB_CGRAPH_FAST
    cr_skip_test("dotwrite: agwrite here is not Graphviz 2.42's, which dotwrite.c mirrors");
#endif
}

/* Fails at the first byte the two texts differ at, showing both. */
static void same_bytes(const char *own, size_t own_len, const char *ag, size_t ag_len,
                       const char *what) {
    size_t i = 0;
    while (i < own_len && i < ag_len && own[i] == ag[i])
        i++;
    if (i == own_len && i == ag_len)
        return;
    size_t from = i > 120 ? i - 120 : 0;
    cr_assert_fail("%s: dotwrite.c and agwrite differ at byte %zu (lengths %zu, %zu)\n"
                   "dotwrite: %.200s\nagwrite:  %.200s",
                   what, i, own_len, ag_len, own + from, ag + from);
}

static char *dot(const exdb_viz_source *src, const exdb_viz_view *view, int agw, size_t *len) {
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    vz_dot_agwrite = agw;
    int rc = exdb_viz_dot(src, view, &set, &b, NULL, &err);
    vz_dot_agwrite = 0;
    if (rc != 0) { /* a view this program has not (module "" of a graphless one) */
        exdb_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    char *s = malloc(b.len + 1);
    memcpy(s, exdb_buf_str(&b), b.len + 1);
    exdb_buf_free(&b);
    return s;
}

/* One view both ways; 1 when it was written. */
static int compare_view(const exdb_viz_source *src, exdb_viz_view view, const char *what) {
    size_t la = 0, lb = 0;
    char *ag = dot(src, &view, 1, &la);
    char *own = dot(src, &view, 0, &lb);
    cr_assert_eq(!ag, !own, "%s: one writer failed", what);
    if (ag)
        same_bytes(own, lb, ag, la, what);
    free(ag);
    free(own);
    return ag != NULL;
}

/* Every view of the program at path; how many were written. */
static int compare_program(const char *path, int all) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    if (!p)
        return 0;
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    int done = u && exdb_unflatten_run(u, &err) == 0;
    exdb_unflatten *cur = done ? exdb_unflatten_new(p, &err) : NULL;
    for (int i = 0; cur && i < 25 && exdb_unflatten_step(cur, NULL, &err) == 1; i++)
        ;
    exdb_viz_source src = {.prog = p, .done = done ? u : NULL, .cur = cur};
    const exdb_viz_view views[] = {
        {.kind = EXDB_VIEW_FLAT},
        {.kind = EXDB_VIEW_FLAT, .by_module = 1},
        {.kind = EXDB_VIEW_MODULES, .depth = 2},
        {.kind = EXDB_VIEW_TREE},
        {.kind = EXDB_VIEW_FLAT, .no_dup = 1},
        {.kind = EXDB_VIEW_FLAT, .by_module = 1, .hide = 31},
        {.kind = EXDB_VIEW_MODULES, .depth = 1},
        {.kind = EXDB_VIEW_MODULES, .depth = 3},
        {.kind = EXDB_VIEW_MODULE, .fqn = ""},
        {.kind = EXDB_VIEW_FRAME, .window = 3},
        {.kind = EXDB_VIEW_FRAME},
    };
    int n = 0;
    for (size_t i = 0; i < (all ? sizeof views / sizeof *views : 3); i++) {
        char what[600];
        snprintf(what, sizeof what, "%s, view %zu", path, i);
        n += compare_view(&src, views[i], what);
    }
    exdb_unflatten_free(cur);
    exdb_unflatten_free(u);
    exdb_program_free(p);
    return n;
}

static int compare_dir(const char *dir) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[1024];
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_type == DT_DIR)
            n += compare_dir(path);
        else if ((len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) ||
                 (len > 4 && strcmp(e->d_name + len - 4, ".pt2") == 0))
            n += compare_program(path, 1);
    }
    closedir(d);
    return n;
}

Test(dotwrite, every_fixture_view_is_agwrites_bytes, .timeout = 600) {
    oracle_or_skip();
    int n = compare_dir("tests/fixtures");
    cr_assert_gt(n, 300, "only %d views written", n);
}

Test(dotwrite, diff_view_is_agwrites_bytes) {
    oracle_or_skip();
    exdb_error err = {0};
    exdb_program *a = exdb_program_load("tests/fixtures/diff/v1.json", NULL, &err);
    exdb_program *b = exdb_program_load("tests/fixtures/diff/v2.json", NULL, &err);
    cr_assert(a && b, "%s", err.msg);
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d, "%s", err.msg);
    exdb_viz_source src = {.prog = a, .diff = d};
    cr_assert_eq(compare_view(&src, (exdb_viz_view){.kind = EXDB_VIEW_DIFF}, "diff v1 v2"), 1);
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}

Test(dotwrite, real_and_synthetic_programs_are_agwrites_bytes, .timeout = 900) {
    oracle_or_skip();
    char path[512];
    snprintf(path, sizeof path, "%s/TheCBaH__pytorch.models.pt2__resnet18__model.json",
             test_real_dir());
    if (access(path, R_OK) == 0)
        cr_assert_eq(compare_program(path, 1), 11);
    else
        cr_log_warn("dotwrite: %s is not here: resnet18 skipped", path);
    /* a synthetic program (make bench's, else made here: python3 is a test
     * dependency, scripts/deps.sh test) */
    const char *synth = "build/bench/synth_10k.json";
    char dir[] = "/tmp/exdb-dotwrite-XXXXXX", made[64], cmd[160];
    int ours = access(synth, R_OK) != 0 && mkdtemp(dir);
    if (ours) {
        snprintf(made, sizeof made, "%s/synth_10k.json", dir);
        snprintf(cmd, sizeof cmd, "python3 scripts/gen_synth.py --nodes 10000 --out %s", made);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        synth = made;
    }
    cr_assert_eq(compare_program(synth, 0), 3);
    if (ours) {
        unlink(made);
        rmdir(dir);
    }
}

/* ---- view graphs made for the corners */

static void put_pieces(void *ctx, const char *text, size_t len) {
    exdb_buf *b = ctx;
    cr_assert_gt(len, 0, "an empty piece");
    exdb_buf_put(b, text, len);
    exdb_buf_putc(b, '\x01'); /* where a piece ended */
}

/* vz_dot_write_to with pieces of at least piece bytes gives, piece after
 * piece, the text vz_dot_write makes whole. */
static void same_in_pieces(const vz_graph *vg, const exdb_buf *whole, size_t piece) {
    exdb_buf b, scratch;
    exdb_buf_init(&b);
    exdb_buf_init(&scratch);
    vz_dot_sink sink = {put_pieces, &b, piece};
    cr_assert_eq(vz_dot_write_to(vg, &scratch, &sink, NULL), 0);
    cr_assert_eq(scratch.len, 0, "text left in the scratch buffer");
    exdb_buf joined;
    exdb_buf_init(&joined);
    size_t pieces = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (b.s[i] == '\x01')
            pieces++;
        else
            exdb_buf_putc(&joined, b.s[i]);
    }
    same_bytes(exdb_buf_str(&joined), joined.len, exdb_buf_str(whole), whole->len, "in pieces");
    if (piece == 1 && vg->nnodes > 1) /* a piece per node at least in the end */
        cr_assert_geq(pieces, 2, "%zu pieces for %u nodes", pieces, vg->nnodes);
    else if (piece == 0) /* pieces of VZ_DOT_PIECE bytes at least */
        cr_assert(pieces >= 1 && pieces <= whole->len / VZ_DOT_PIECE + 1, "%zu pieces of %zu bytes",
                  pieces, whole->len);
    exdb_buf_free(&b);
    exdb_buf_free(&scratch);
    exdb_buf_free(&joined);
}

/* The view graph both ways; returns vz_dot_write's answer. */
static int compare_graph(vz_graph *vg, const char *what) {
    exdb_viz_stats st1 = {0}, st2 = {0};
    exdb_error err = {0};
    Agraph_t *g = vz_emit(vg, 0, &st1, &err);
    cr_assert_not_null(g, "%s", err.msg);
    exdb_buf ag, own;
    exdb_buf_init(&ag);
    exdb_buf_init(&own);
    cr_assert_eq(vz_write(g, NULL, &ag), 0);
    vz_close(g);
    int rc = vz_dot_write(vg, &own, &st2);
    cr_assert_neq(rc, -1);
    if (rc == 0) {
        same_bytes(exdb_buf_str(&own), own.len, exdb_buf_str(&ag), ag.len, what);
        same_in_pieces(vg, &own, 1);
        same_in_pieces(vg, &own, 0);
        cr_assert_eq(st1.nodes, st2.nodes);
        cr_assert_eq(st1.groups, st2.groups);
    } else {
        cr_assert_eq(own.len, 0, "declined but wrote");
    }
    exdb_buf_free(&ag);
    exdb_buf_free(&own);
    return rc;
}

/* Strings agstrcanon treats apart: IDs, numbers, keywords, quotes,
 * backslashes, non-ASCII, and long ones it splits. */
static const char *const odd[] = {
    "a",    "_x",    "node",       "Graph",       "subgraphs", "EDGE",        "1",
    "-1.5", "1.2.3", "1-2",        ".",           "-",         ".5",          "5.",
    "-.",   "a b",   "say \"hi\"", "back\\slash", "tr\\",      "caf\xc3\xa9", "\xc3\xa9t\xc3\xa9",
    "x.y",  "a-b",   "",           "0x1F",        "12ab",      "\"",          "\\\"",
    "a\tb"};

static const char *long_text(vz_graph *vg, unsigned seed, size_t len) {
    static const char alphabet[] = "ab_.-  \"\\\\,:/09\xc3\xa9[]";
    char *s = exdb_arena_alloc(&vg->arena, len + 1);
    for (size_t i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        s[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    if (len && s[len - 1] == '\\') /* vz texts never end in a lone backslash */
        s[len - 1] = 'z';
    s[len] = '\0';
    return s;
}

Test(dotwrite, canon_corners_are_agwrites_bytes) {
    oracle_or_skip();
    vz_graph vg;
    cr_assert_eq(vz_init(&vg), 0);
    uint32_t c1 = vz_add_cluster(&vg, "cluster_a.b", 0);
    uint32_t c2 = vz_add_cluster(&vg, "cluster_c", c1);
    vg.clusters[c1].label = "";
    vg.clusters[c2].label = "c \"two\"";
    vg.clusters[c2].fill = "#ffeeee";
    vg.title = "title: \"odd\" \\ things";
    vg.newrank = 1;
    vg.ordering = "out";
    size_t nodd = sizeof odd / sizeof *odd;
    for (uint32_t i = 0; i < 400; i++) {
        char name[64];
        if (i < nodd && odd[i][0])
            snprintf(name, sizeof name, "%s", odd[i]);
        else
            snprintf(name, sizeof name, i % 3 ? "n%u" : "n_%u.x", i);
        vz_node n = {.name = exdb_arena_strdup(&vg.arena, name),
                     .label = i % 5 == 0 ? long_text(&vg, i, 100 + i * 3 % 300)
                              : i < nodd ? odd[i]
                                         : NULL,
                     .tooltip = i % 7 == 0 ? long_text(&vg, i + 99, i % 400) : NULL,
                     .fill = i % 11 == 0  ? "white"
                             : i % 4 == 0 ? "#abcdef"
                                          : NULL,
                     .shape = i % 13 == 0 ? "box" : NULL,
                     .style = i % 17 == 0 ? "" : NULL,
                     .cluster = i % 9 == 0   ? c2
                                : i % 9 == 1 ? c1
                                             : 0,
                     .order = i};
        cr_assert_neq(vz_add_node(&vg, &n), VZ_NONE, "%s", name);
    }
    for (uint32_t i = 0; i < 400; i++) {
        if (i % 6 == 0) /* beside a node of another cluster too, or itself */
            vg.nodes[i].rank_with = (i % 12 == 0 ? (i + 1) % 400 : i) + 1;
        vz_edge e = {.from = (i * 7) % 400,
                     .to = (i * 13 + 5) % 400,
                     .label = i % 10 == 0 ? odd[i % nodd] : NULL,
                     .color = i % 8 == 0 ? "#d62728" : NULL,
                     .style = i % 9 == 0 ? "dashed" : NULL,
                     .tooltip = i % 5 == 0 ? long_text(&vg, i, 200) : NULL,
                     .minlen = i % 4 == 0 ? (i % 8 ? "0" : "1") : NULL};
        cr_assert_neq(vz_add_edge(&vg, &e), VZ_NONE);
        vz_edge back = {.from = e.to, .to = e.from}; /* predecessors later in order */
        if (i % 3 == 0)
            cr_assert_neq(vz_add_edge(&vg, &back), VZ_NONE);
    }
    cr_assert_eq(compare_graph(&vg, "corners"), 0);
    vz_free(&vg);
}

/* Names cgraph would merge or list out of creation order are left to it,
 * and what is written is still agwrite's. */
Test(dotwrite, names_cgraph_orders_otherwise_are_declined) {
    oracle_or_skip();
    static const char *const names[] = {"rank~1", "group~2", "bad\x01name"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        vz_graph vg;
        cr_assert_eq(vz_init(&vg), 0);
        vz_node a = {.name = "a", .rank_with = 2}, b = {.name = "b"},
                c = {.name = names[k], .order = 2};
        vz_add_node(&vg, &a);
        vz_add_node(&vg, &b);
        vz_add_node(&vg, &c);
        cr_assert_eq(compare_graph(&vg, names[k]), 1, "%s", names[k]);
        vz_free(&vg);
    }
}
