/* test_viz_views.c - what the pictures of the unflattener say: a
 * dispatcher's calls named and numbered as bt, print module and break
 * name them (render module n@1 works), deduplicated calls counted from the
 * DEDUP events, frames numbered by level as bt does, and the frame view at
 * a later-phase event drawing the module that event works on. */
#include <criterion/criterion.h>

#include <graphviz/cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/export/program.h"
#include "core/unflatten/unflatten.h"
#include "viz/render.h"

#include "testutil.h"
#include "core/unflatten/describe.h"

static void setup(void) {
    test_tmpdir_make("vizv");
}

TestSuite(viz_views, .init = setup, .fini = test_tmpdir_remove);

#define EXAMPLE  "tests/fixtures/example.json"
#define DISPATCH "tests/fixtures/unflatten/dispatch.json"

static exdb_program *load(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    return p;
}

static exdb_unflatten *finished(const exdb_program *p) {
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), 0, "%s", err.msg);
    return u;
}

/* The view as DOT read back by agmemread; err_out: when not NULL, the view
 * is expected to fail and its message is copied there. */
static Agraph_t *view_of(const exdb_viz_source *src, exdb_viz_view view, char *err_out) {
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    view.no_dup = 1;
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    int rc = exdb_viz_dot(src, &view, &set, &b, NULL, &err);
    if (err_out) {
        cr_assert_eq(rc, -1);
        snprintf(err_out, 512, "%.500s", err.msg);
        exdb_buf_free(&b);
        return NULL;
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    Agraph_t *g = agmemread(b.s);
    cr_assert_not_null(g, "agread failed on:\n%.400s", b.s);
    exdb_buf_free(&b);
    return g;
}

static Agraph_t *subg(Agraph_t *g, const char *name) {
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
        if (strcmp(agnameof(s), name) == 0)
            return s;
        Agraph_t *r = subg(s, name);
        if (r)
            return r;
    }
    return NULL;
}

static const char *glabel(Agraph_t *g) {
    return agget(g, "label");
}

static const char *nattr(Agraph_t *g, const char *node, const char *attr) {
    Agnode_t *n = agnode(g, (char *)node, 0);
    cr_assert_not_null(n, "no node %s", node);
    return agget(n, (char *)attr);
}

/* issue 16 items 11, 12: `render module n@1` draws call 2 of n, the
 * dispatcher's clusters are named and numbered the same way, and a call
 * that is not there names the ones that are. */
Test(viz_views, dispatcher_calls_are_named_as_bt_and_print_name_them) {
    exdb_program *p = load(DISPATCH);
    exdb_unflatten *u = finished(p);
    exdb_viz_source src = {.prog = p, .done = u};
    exdb_umodule *call = exdb_unflatten_dispatch_call(u, "n@1");
    cr_assert_not_null(call);

    Agraph_t *g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_MODULE, .fqn = "n@1"}, NULL);
    cr_assert_eq(agnnodes(g), (int)call->graph->count);
    cr_assert(strstr(glabel(g), "module n@1: InterpreterModule") &&
                  strstr(glabel(g), "call 2 of 3 of the dispatcher n"),
              "%s", glabel(g));
    agclose(g);

    g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_MODULE, .fqn = "n"}, NULL);
    static const char *const names[] = {"cluster_n", "cluster_n@1", "cluster_n@2"};
    static const char *const labels[] = {"n  call 1 of 3", "n@1  call 2 of 3", "n@2  call 3 of 3"};
    for (int i = 0; i < 3; i++) {
        Agraph_t *s = subg(g, names[i]);
        cr_assert_not_null(s, "%s", names[i]);
        cr_assert(strncmp(glabel(s), labels[i], strlen(labels[i])) == 0, "%s", glabel(s));
    }
    cr_assert(strstr(glabel(g), "3 calls (n, n@1, n@2)"), "%s", glabel(g));
    agclose(g);

    char msg[512];
    view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_MODULE, .fqn = "n@3"}, msg);
    cr_assert(strstr(msg, "the dispatcher n has 3 calls, n to n@2"), "%s", msg);

    g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_TREE}, NULL);
    const char *l = nattr(g, "n#1", "label");
    cr_assert(strncmp(l, "n@1 (call 2 of 3)", 17) == 0, "%s", l);
    cr_assert(strncmp(nattr(g, "n#0", "label"), "n (call 1 of 3)", 15) == 0);
    cr_assert(strncmp(nattr(g, "n#1", "tooltip"), "n@1\\n", 5) == 0, "%s",
              nattr(g, "n#1", "tooltip"));
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* The DEDUP events of a run that redirected or aliased a call. */
static uint32_t dedups(const exdb_unflatten *u) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < u->pos; i++)
        n += u->log[i].kind == EXDB_EV_DEDUP && u->log[i].aux != 0;
    return n;
}

/* issue 16 item 13: "N deduplicated calls" counts the DEDUP events that
 * pointed a call at the module, not every call a dispatcher dispatches
 * (dispatch.json: one redirect, the label said 3). */
Test(viz_views, tree_counts_the_deduplications_that_happened) {
    static const struct {
        const char *path, *node, *want;
    } cases[] = {
        {DISPATCH, "n", "\\n1 deduplicated call"},
        {"tests/fixtures/unflatten/ivals_child2parent_preserved.json", "child",
         "\\n2 deduplicated calls"},
        {EXAMPLE, "encoder.layers.0.act", "\\n1 deduplicated call"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        exdb_program *p = load(cases[i].path);
        exdb_unflatten *u = finished(p);
        exdb_viz_source src = {.prog = p, .done = u};
        Agraph_t *g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_TREE}, NULL);
        const char *l = nattr(g, cases[i].node, "label");
        const char *at = strstr(l, cases[i].want);
        cr_assert(at && (at[strlen(cases[i].want)] == '\0' || at[strlen(cases[i].want)] == '\\'),
                  "%s: %s", cases[i].path, l);
        /* every label's count together: the events */
        uint32_t total = 0;
        for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
            const char *d = strstr(agget(n, "label"), " deduplicated call");
            if (d) {
                while (d > agget(n, "label") && d[-1] >= '0' && d[-1] <= '9')
                    d--;
                total += (uint32_t)atoi(d);
            }
        }
        cr_assert_eq(total, dedups(u), "%s: %u in labels, %u events", cases[i].path, total,
                     dedups(u));
        agclose(g);
        exdb_unflatten_free(u);
        exdb_program_free(p);
    }
}

/* issue 16 item 12: the frame view numbers frames as bt does (#0 the
 * innermost; node "frameN" is what `frame N` selects), and says which
 * frame was created when as info frame does. */
Test(viz_views, frame_view_numbers_frames_as_bt) {
    exdb_program *p = load(EXAMPLE);
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    for (int i = 0; i < 60; i++)
        cr_assert_eq(exdb_unflatten_step(u, NULL, &err), 1, "%s", err.msg);
    uint32_t depth = exdb_unflatten_depth(u);
    cr_assert_geq(depth, 3);
    const exdb_uframe *inner = exdb_unflatten_frame(u, depth - 1);
    const exdb_uframe *up1 = exdb_unflatten_frame(u, depth - 2);
    cr_assert_gt(inner->index, depth, "the innermost frame is not frame #index");
    exdb_viz_source src = {.prog = p, .cur = u};
    Agraph_t *g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FRAME, .window = 3}, NULL);
    char want[256];
    for (uint32_t level = 0; level < depth; level++) {
        char name[32];
        snprintf(name, sizeof name, "frame%u", level);
        snprintf(want, sizeof want, "#%u ", level);
        cr_assert(strncmp(nattr(g, name, "label"), want, strlen(want)) == 0, "%s: %s", name,
                  nattr(g, name, "label"));
    }
    snprintf(want, sizeof want, "#0 %s (the %uth frame created)", inner->child_fqn,
             inner->index + 1);
    cr_assert(strncmp(nattr(g, "frame0", "tooltip"), want, strlen(want)) == 0, "%s",
              nattr(g, "frame0", "tooltip"));
    Agraph_t *fr = subg(g, "cluster_frame");
    cr_assert(strncmp(glabel(fr), "#0 ", 3) == 0, "%s", glabel(fr));
    /* the root frame names its class as bt does ("#2  <root>  demo.TinyModel") */
    char root[32];
    snprintf(root, sizeof root, "frame%u", depth - 1);
    cr_assert(strstr(nattr(g, root, "label"), "demo.TinyModel"), "%s", nattr(g, root, "label"));
    agclose(g);
    /* the frame `up` selects */
    src.frame_level = 1;
    g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FRAME, .window = 3}, NULL);
    snprintf(want, sizeof want, "#1 %s: its graph", up1->child_fqn);
    fr = subg(g, "cluster_frame");
    cr_assert(strncmp(glabel(fr), want, strlen(want)) == 0, "%s", glabel(fr));
    int in_frame1 = 0;
    for (Agnode_t *n = agfstnode(fr); n; n = agnxtnode(fr, n))
        in_frame1 += strncmp(agnameof(n), "frame1/", 7) == 0;
    cr_assert_gt(in_frame1, 0);
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* Goes to the first event of kind at or after event `from`. */
static const exdb_uevent *goto_kind(exdb_unflatten *u, uint32_t from, int kind) {
    exdb_error err = {0};
    cr_assert_eq(exdb_unflatten_goto(u, from, &err), 0, "%s", err.msg);
    while (!u->pos || u->log[u->pos - 1].kind != kind)
        cr_assert_eq(exdb_unflatten_step(u, NULL, &err), 1, "no such event: %s", err.msg);
    return &u->log[u->pos - 1];
}

/* issue 16 item 16: after outlining the frame view draws the module the
 * event works on (it drew the root frame and the last flat nodes): a SINK
 * its module, a DEDUP the parent whose call it redirected (that call_module
 * node red), a DISPATCH the dispatcher. */
Test(viz_views, frame_view_draws_the_module_a_later_event_works_on) {
    exdb_program *p = load(EXAMPLE);
    exdb_unflatten *u = finished(p);
    exdb_viz_source src = {.prog = p, .cur = u};
    goto_kind(u, 0, EXDB_EV_SINK);
    const exdb_uwork *w = exdb_unflatten_event_work(u, &u->log[u->pos - 1]);
    cr_assert(w && w->name && w->name[0]);
    exdb_umodule *m = exdb_unflatten_module(u, w->name);
    Agraph_t *g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FRAME}, NULL);
    char want[256];
    snprintf(want, sizeof want, ": SINK %s\\nmodule %s: InterpreterModule", w->name, w->name);
    cr_assert(strstr(glabel(g), want), "%s", glabel(g));
    cr_assert_eq(agnnodes(g), (int)m->graph->count);
    cr_assert_null(subg(g, "cluster_stack"));
    agclose(g);

    goto_kind(u, u->pos, EXDB_EV_DEDUP);
    g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FRAME}, NULL);
    cr_assert(strstr(glabel(g), "DEDUP same fqn: call redirected\\nmodule encoder.layers.0: "),
              "%s", glabel(g));
    cr_assert_str_eq(nattr(g, "act_1", "fillcolor"), "#fb6a4a");
    cr_assert(strstr(nattr(g, "act_1", "label"), "-> encoder.layers.0.act"));
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);

    p = load(DISPATCH);
    u = finished(p);
    src = (exdb_viz_source){.prog = p, .cur = u};
    goto_kind(u, 0, EXDB_EV_DISPATCH);
    g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FRAME}, NULL);
    cr_assert(strstr(glabel(g), "DISPATCH n\\nmodule n: InterpreterModuleDispatcher"), "%s",
              glabel(g));
    cr_assert_not_null(subg(g, "cluster_n@2"));
    agclose(g);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* issue 16 item 14: a node's tooltip (also the HTML viewer's details)
 * shows the user's source line and the innermost frame, not the outermost
 * frame every node shares, and the value's shape and dtype and the whole
 * module stack. */
Test(viz_views, tooltips_show_the_innermost_frame_value_and_module_stack) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    Agraph_t *g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FLAT}, NULL);
    const char *t = nattr(g, "relu", "tooltip");
    static const char *const want[] = {
        "\\nvalue: f32[8, 32] torch.float32\\n",
        "\\nmodule stack:\\n  encoder  demo.Encoder\\n",
        "\\n  encoder.layers.0.act  torch.nn.modules.activation.ReLU\\n",
        "\\nsource:\\n  File \"/home/dev/src/tinyenc/demo.py\", line 32, in forward\\n    x = x + "
        "self.act(self.attn(self.norm1(x)))\\n",
        "\\ninnermost frame:\\n  File \"/home/dev/.venv/lib/python3.12/site-packages/torch/nn/"
        "modules/activation.py\", line 143, in forward\\n    return F.relu(",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_assert(strstr(t, want[i]), "no \"%s\" in %s", want[i], t);
    /* the outermost frame (the model's forward, the same for every node) */
    cr_assert_null(strstr(t, "line 57"), "%s", t);
    agclose(g);
    exdb_program_free(p);

    /* resnet18: the tooltips' source lines differ from node to node */
    char path[512];
    snprintf(path, sizeof path, "%s/TheCBaH__pytorch.models.pt2__resnet18__model.json",
             test_real_dir());
    if (access(path, R_OK) != 0)
        return;
    p = load(path);
    src.prog = p;
    g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FLAT}, NULL);
    char first[512] = "";
    int differ = 0;
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        const char *s = strstr(agget(n, "tooltip"), "\\nsource:");
        if (!s)
            continue;
        const char *e = strstr(s + 9, "\\n    ");
        int len = e ? (int)(e - s) : (int)strlen(s);
        if (!first[0])
            snprintf(first, sizeof first, "%.*s", len, s);
        else if (strncmp(first, s, (size_t)len) != 0)
            differ++;
    }
    cr_assert_gt(differ, 10, "every node's source line is %s", first);
    agclose(g);
    exdb_program_free(p);
}

/* issue 16 item 18: labels are measured and drawn with one font, DejaVu
 * Sans (installed with the project), not "Helvetica", which Graphviz and
 * the viewer each replaced with a font of their own; and SVG text is drawn
 * at its exact size at every zoom. (tests/viz/html_chromium.sh checks in a
 * browser that the font is installed and no label overflows.) */
Test(viz_views, svg_names_one_installed_font_and_exact_text) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_error err = {0};
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    char out[512];
    snprintf(out, sizeof out, "%s/flat.svg", test_tdir);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, out, NULL, &err), 0, "%s", err.msg);
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    static char svg[1 << 20];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    fclose(f);
    svg[n] = '\0';
    cr_assert(strstr(svg, "<svg text-rendering=\"geometricPrecision\" "), "%.400s", svg);
    cr_assert(strstr(svg, "font-family=\"DejaVu Sans,sans-Serif\""));
    cr_assert_null(strstr(svg, "Helvetica"));
    exdb_program_free(p);
}

/* The size of an SVG file ("width="8050pt" height="..."), in points. */
static void svg_size(const char *path, double *w, double *h) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char head[2048];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    const char *s = strstr(head, "<svg");
    cr_assert_not_null(s);
    const char *ws = strstr(s, " width=\""), *hs = strstr(s, " height=\"");
    cr_assert(ws && hs);
    *w = atof(ws + 8);
    *h = atof(hs + 9);
}

/* issue 16 item 17: resnet50's flat view was a 22,323 x 15,218 pt
 * staircase with its unused buffers in a row across the top. Inputs now
 * sit beside their first user and unused state beside its module's other
 * state; --hide state,dead leaves the ops. */
Test(viz_views, resnet50_flat_is_no_staircase) {
    char path[512];
    snprintf(path, sizeof path, "%s/TheCBaH__pytorch.models.pt2__resnet50__model.json",
             test_real_dir());
    if (access(path, R_OK) != 0)
        return;
    exdb_program *p = load(path);
    exdb_viz_source src = {.prog = p};
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_error err = {0};
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    char out[512];
    snprintf(out, sizeof out, "%s/r50.svg", test_tdir);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, out, NULL, &err), 0, "%s", err.msg);
    double w, h;
    svg_size(out, &w, &h);
    cr_assert_lt(w, 7000, "%.0f x %.0f pt", w, h);
    cr_assert_lt(w, h / 2, "%.0f x %.0f pt", w, h);
    cr_assert_eq(exdb_viz_parse_hide("state,dead", &view.hide, &err), 0, "%s", err.msg);
    cr_assert_eq(exdb_viz_render(&src, &view, &set, out, NULL, &err), 0, "%s", err.msg);
    svg_size(out, &w, &h);
    cr_assert_lt(w, 2000, "%.0f x %.0f pt", w, h);
    exdb_program_free(p);
}

/* The rank=same subgraph of g holding node `name`, at any depth (written
 * as DOT, rank pairs sit under invisible groups: emit.c's place_ranks). */
static Agraph_t *rank_of(Agraph_t *g, const char *name) {
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
        if (strcmp(agget(s, "rank"), "same") == 0 && agnode(s, (char *)name, 0))
            return s;
        Agraph_t *r = rank_of(s, name);
        if (r)
            return r;
    }
    return NULL;
}

/* The view graph's inputs beside their first user: same rank, minlen 0. */
Test(viz_views, inputs_sit_beside_their_first_user) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    Agraph_t *g = view_of(&src, (exdb_viz_view){.kind = EXDB_VIEW_FLAT}, NULL);
    /* p_head_weight and its first user share a rank=same subgraph */
    Agraph_t *rank = rank_of(g, "p_head_weight");
    cr_assert_not_null(rank);
    Agnode_t *w = agnode(g, "p_head_weight", 0);
    Agedge_t *e = agfstout(g, w);
    cr_assert_not_null(agnode(rank, agnameof(aghead(e)), 0));
    cr_assert_str_eq(agget(e, "minlen"), "0");
    agclose(g);
    exdb_program_free(p);
}

/* --hide: each word leaves its nodes out; a hidden getitem's users link
 * to the producer with "[i]"; the title counts what was hidden. */
Test(viz_views, hide_leaves_out_what_it_names) {
    exdb_program *p = load(EXAMPLE);
    exdb_viz_source src = {.prog = p};
    exdb_error err = {0};
    exdb_viz_view view = {.kind = EXDB_VIEW_FLAT};
    cr_assert_eq(exdb_viz_parse_hide("params,buffers,constants,getitems,dead", &view.hide, &err),
                 0);
    cr_assert_eq(view.hide, EXDB_VIZ_HIDE_PARAMS | EXDB_VIZ_HIDE_BUFFERS | EXDB_VIZ_HIDE_CONSTANTS |
                                EXDB_VIZ_HIDE_GETITEMS | EXDB_VIZ_HIDE_DEAD);
    cr_assert_eq(exdb_viz_parse_hide("params,nope", &view.hide, &err), -1);
    cr_assert(strstr(err.msg, "\"nope\""), "%s", err.msg);
    cr_assert_eq(exdb_viz_parse_hide("params", &view.hide, &err), 0);
    Agraph_t *g = view_of(&src, view, NULL);
    int params = 0, drawn = 0;
    for (uint32_t i = 0; i < p->ninputs; i++)
        if (p->inputs[i].kind == EXDB_IN_PARAMETER) {
            params++;
            drawn += agnode(g, (char *)p->inputs[i].name, 0) != NULL;
        }
    cr_assert_gt(params, 10);
    cr_assert_eq(drawn, 0);
    cr_assert_eq(agnnodes(g), (int)p->graph->count - params);
    char want[64];
    snprintf(want, sizeof want, "; hidden: %d parameters", params);
    cr_assert(strstr(glabel(g), want), "%s", glabel(g));
    agclose(g);

    cr_assert_eq(exdb_viz_parse_hide("getitems", &view.hide, &err), 0);
    g = view_of(&src, view, NULL);
    int getitems = 0;
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        int gi = n->op == EXDB_OP_CALL_FUNCTION && strcmp(n->target, "operator.getitem") == 0;
        getitems += gi;
        cr_assert(!gi || !agnode(g, (char *)n->name, 0), "%s drawn", n->name);
    }
    cr_assert_gt(getitems, 0);
    /* the layer norm's users read it through "[0]" */
    Agnode_t *ln = agnode(g, "native_layer_norm", 0);
    cr_assert_not_null(ln);
    Agedge_t *e = agfstout(g, ln);
    cr_assert_not_null(e);
    cr_assert_str_eq(agget(e, "label"), "[0]");
    agclose(g);

    cr_assert_eq(exdb_viz_parse_hide("dead", &view.hide, &err), 0);
    g = view_of(&src, view, NULL);
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        cr_assert(n->nusers || n->op == EXDB_OP_OUTPUT || !agnode(g, (char *)n->name, 0),
                  "%s drawn", n->name);
    agclose(g);
    exdb_program_free(p);
}

/* set rankdir: auto keeps each view's own (the tree left to right), TB
 * and LR apply to every view. */
Test(viz_views, rankdir_setting) {
    exdb_program *p = load(EXAMPLE);
    exdb_unflatten *u = finished(p);
    exdb_viz_source src = {.prog = p, .done = u};
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_error err = {0};
    static const struct {
        const char *value;
        exdb_view_kind kind;
        const char *want;
    } cases[] = {{"auto", EXDB_VIEW_FLAT, "TB"},
                 {"auto", EXDB_VIEW_TREE, "LR"},
                 {"LR", EXDB_VIEW_FLAT, "LR"},
                 {"lr", EXDB_VIEW_MODULE, "LR"},
                 {"TB", EXDB_VIEW_TREE, "TB"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_assert_eq(exdb_viz_set(&set, "rankdir", cases[i].value, &err), 0, "%s", err.msg);
        exdb_viz_view view = {.kind = cases[i].kind, .fqn = "encoder"};
        exdb_buf b;
        exdb_buf_init(&b);
        cr_assert_eq(exdb_viz_dot(&src, &view, &set, &b, NULL, &err), 0, "%s", err.msg);
        Agraph_t *g = agmemread(b.s);
        cr_assert_str_eq(agget(g, "rankdir"), cases[i].want, "%s", cases[i].value);
        agclose(g);
        exdb_buf_free(&b);
    }
    cr_assert_eq(exdb_viz_set(&set, "rankdir", "BT", &err), -1);
    exdb_buf b;
    exdb_buf_init(&b);
    cr_assert_eq(exdb_viz_set(&set, "rankdir", "LR", &err), 0);
    exdb_viz_setting_show(&b, &set, "rankdir");
    cr_assert_str_eq(b.s, "rankdir: LR\n");
    exdb_buf_free(&b);
    exdb_unflatten_free(u);
    exdb_program_free(p);
}
