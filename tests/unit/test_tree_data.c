/* test_tree_data.c - the data of the module view you open and close
 * (viz/tree_data.c): the module list and each module call's own graph, read
 * back as JSON from the page's <script> elements. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/export/program.h"
#include "viz/render.h"
#include "viz/view.h"
#include "viz/tree_data.h"

#include "testutil.h"

#define EXAMPLE "tests/fixtures/example.json"

static void setup(void) {
    test_tmpdir_make("tree_data");
}

TestSuite(tree_data, .init = setup, .fini = test_tmpdir_remove);

/* The page's data, written to memory. */
static char *tree_data(const exdb_program *p, vz_tree_stats *st) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    exdb_error err = {0};
    cr_assert_eq(vz_write_tree_data(f, p, st, &err), 0, "%s", err.msg);
    fclose(f);
    return buf;
}

/* The JSON of <script type="application/json" id="ID">. */
static cJSON *script_json(const char *page, const char *id) {
    char open[64];
    snprintf(open, sizeof open, "<script type=\"application/json\" id=\"%s\">", id);
    const char *s = strstr(page, open);
    cr_assert_not_null(s, "no script %s", id);
    s += strlen(open);
    const char *e = strstr(s, "</script>");
    cr_assert_not_null(e);
    char *text = strndup(s, (size_t)(e - s));
    cr_assert_null(strchr(text, '<'), "a '<' in the data of %s", id);
    cJSON *j = cJSON_Parse(text);
    cr_assert_not_null(j, "script %s is not JSON", id);
    free(text);
    return j;
}

static int mod_index(cJSON *mods, const char *fqn) {
    for (int i = 0; i < cJSON_GetArraySize(mods); i++)
        if (strcmp(cJSON_GetArrayItem(cJSON_GetArrayItem(mods, i), 0)->valuestring, fqn) == 0)
            return i;
    cr_assert_fail("no module %s", fqn);
    return -1;
}

/* The index of the node of kind (and name) in a module graph, -1 if none. */
static int node_index(cJSON *g, const char *kind, const char *name_or_child) {
    cJSON *n = cJSON_GetObjectItem(g, "n");
    for (int i = 0; i < cJSON_GetArraySize(n); i++) {
        cJSON *it = cJSON_GetArrayItem(n, i);
        if (strcmp(cJSON_GetArrayItem(it, 0)->valuestring, kind) != 0)
            continue;
        cJSON *a = cJSON_GetArrayItem(it, 1);
        if (!name_or_child || (cJSON_IsString(a) && strcmp(a->valuestring, name_or_child) == 0) ||
            (cJSON_IsNumber(a) && a->valueint == atoi(name_or_child)))
            return i;
    }
    return -1;
}

static int has_edge(cJSON *g, int from, int to) {
    cJSON *e = cJSON_GetObjectItem(g, "e");
    for (int i = 0; i < cJSON_GetArraySize(e); i++) {
        cJSON *it = cJSON_GetArrayItem(e, i);
        if (cJSON_GetArrayItem(it, 0)->valueint == from &&
            cJSON_GetArrayItem(it, 1)->valueint == to)
            return 1;
    }
    return 0;
}

static cJSON *graph_of(const char *page, int m) {
    char id[32];
    snprintf(id, sizeof id, "g%d", m);
    return script_json(page, id);
}

/* The example's modules form the FQN tree (the Sequential encoder.layers
 * between encoder and its blocks, a repeated call act@1 as its own
 * module); the encoder's graph is its own op, its children as boxes, the
 * values it gets from outside as inputs and its output. */
Test(tree_data, example_module_graphs) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(EXAMPLE, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    vz_tree_stats st;
    char *page = tree_data(p, &st);
    cJSON *mods = script_json(page, "mods");
    cr_assert_eq(cJSON_GetArraySize(mods), (int)st.modules);
    cJSON *root = cJSON_GetArrayItem(mods, 0);
    cr_assert_str_eq(cJSON_GetArrayItem(root, 0)->valuestring, "");
    cr_assert_eq(cJSON_GetArrayItem(root, 2)->valueint, -1);
    int enc = mod_index(mods, "encoder"), layers = mod_index(mods, "encoder.layers");
    int l0 = mod_index(mods, "encoder.layers.0");
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(mods, enc), 2)->valueint, 0);
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(mods, layers), 2)->valueint, enc);
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(mods, l0), 2)->valueint, layers);
    cr_assert_eq(
        cJSON_GetArrayItem(cJSON_GetArrayItem(mods, mod_index(mods, "encoder.layers.0.act@1")), 2)
            ->valueint,
        l0);
    /* every FX node but the state placeholders is drawn once, in its module */
    int own = 0, fx = 0;
    for (int i = 0; i < cJSON_GetArraySize(mods); i++)
        own += cJSON_GetArrayItem(cJSON_GetArrayItem(mods, i), 3)->valueint;
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        fx++;
    cr_assert_eq(own + 39, fx, "%d own ops of %d nodes (39 state placeholders)", own, fx);
    cr_assert_eq(cJSON_GetArrayItem(root, 4)->valueint, own);

    cJSON *g = graph_of(page, enc);
    char child[16];
    snprintf(child, sizeof child, "%d", layers);
    int box = node_index(g, "m", child), in = node_index(g, "i", "addmm");
    int mul = node_index(g, "o", "mul_2"), gain = node_index(g, "i", "p_encoder_gain");
    int out = node_index(g, "x", NULL);
    cr_assert(box >= 0 && in >= 0 && mul >= 0 && gain >= 0 && out >= 0);
    cr_assert_eq(node_index(g, "o", "addmm_1"), -1, "a node of a submodule drawn in encoder");
    cr_assert(has_edge(g, in, box), "the embedding's output goes into encoder.layers");
    cr_assert(has_edge(g, gain, mul), "the parameter goes into the op that reads it");
    cr_assert(has_edge(g, mul, out));
    cJSON_Delete(g);
    /* the root: parameters are not drawn where no own op reads them */
    g = graph_of(page, 0);
    cr_assert_eq(node_index(g, "o", "p_encoder_gain"), -1);
    cr_assert_eq(node_index(g, "i", NULL), -1, "the root has no inputs from outside");
    cr_assert(node_index(g, "o", "x") >= 0 && node_index(g, "o", "output") >= 0);
    cJSON_Delete(g);
    cJSON *srcs = script_json(page, "srcs");
    cr_assert(cJSON_GetArraySize(srcs) >= 1);
    cJSON_Delete(srcs);
    cJSON_Delete(mods);
    free(page);
    exdb_program_free(p);
}

/* `render modules -o FILE.html` writes the page you open and close, not
 * a Graphviz picture; other formats still draw the modules view. */
Test(tree_data, render_modules_html_is_the_tree_page) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(EXAMPLE, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_viz_view view = {.kind = EXDB_VIEW_MODULES, .depth = 2};
    char out[512];
    snprintf(out, sizeof out, "%s/m.html", test_tdir);
    exdb_viz_stats st;
    cr_assert_eq(exdb_viz_render(&src, &view, &set, out, &st, &err), 0, "%s", err.msg);
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    static char page[1 << 20];
    size_t n = fread(page, 1, sizeof page - 1, f);
    page[n] = '\0';
    fclose(f);
    cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    cr_assert_not_null(strstr(page, "<body data-depth=\"2\">"));
    cr_assert_not_null(strstr(page, "id=\"mods\""));
    cr_assert_null(strstr(page, "<svg width"), "a Graphviz picture in the page");
    cr_assert_null(strstr(page, "src=\"http"));
    cr_assert_eq(st.clusters, 27, "module calls, the root not counted");
    exdb_program_free(p);
}

/* Whether graph g (a module's {"n": [...]}) has an own node named name. */
static int has_node(cJSON *g, const char *name) {
    cJSON *n = cJSON_GetObjectItem(g, "n");
    for (int i = 0; i < cJSON_GetArraySize(n); i++) {
        cJSON *x = cJSON_GetArrayItem(n, i);
        if (cJSON_GetArraySize(x) > 1 && strcmp(cJSON_GetArrayItem(x, 0)->valuestring, "o") == 0 &&
            strcmp(cJSON_GetArrayItem(x, 1)->valuestring, name) == 0)
            return 1;
    }
    return 0;
}

/* `render flat -o FILE.html` of a view over 1000 nodes (efficientnet_v2_l:
 * 2,569) is cut into sections of 1000 in the view's order (viz/graph_data.c),
 * where each placeholder sits beside its first user: the first section
 * holds the first conv2d and its weight, not 1000 of the 1,549 placeholders. */
Test(tree_data, flat_page_sections_keep_placeholders_with_their_users) {
    char path[512];
    snprintf(path, sizeof path,
             "%s/TheCBaH__pytorch.models.pt2__efficientnet_v2_l@209890a1__model.json",
             test_real_dir());
    if (access(path, R_OK) != 0)
        return;
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    char out[512];
    snprintf(out, sizeof out, "%s/flat.html", test_tdir);
    exdb_viz_stats st;
    cr_assert_eq(exdb_viz_render(&src, &view, &set, out, &st, &err), 0, "%s", err.msg);
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *page = malloc((size_t)len + 1);
    cr_assert_eq(fread(page, 1, (size_t)len, f), (size_t)len);
    page[len] = '\0';
    fclose(f);
    cJSON *mods = script_json(page, "mods");
    cr_assert_eq(cJSON_GetArraySize(mods), 4, "the root and 3 sections");
    int s1 = mod_index(mods, "nodes 1-1000");
    char id[32];
    snprintf(id, sizeof id, "g%d", s1);
    cJSON *g = script_json(page, id);
    cr_assert(has_node(g, "conv2d"), "the first op is in the first section");
    cr_assert(has_node(g, "p_features_0_0_weight"), "its weight beside it");
    cJSON_Delete(g);
    cJSON_Delete(mods);
    free(page);
    exdb_program_free(p);
}
