/* render.c - settings, view dispatch, and writing: DOT through agwrite,
 * images through gvLayout + gvRenderData, all into memory first; then
 * core/base/outfile.c writes the file (atomically, only over a regular file,
 * its temporary removed if a signal ends exdb meanwhile). */
#include <errno.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/outfile.h"
#include "core/export/diff.h"
#include "core/export/snapshot.h"
#include "viz/gvcontext.h"
#include "viz/layoutproc.h"
#include "viz/view.h"
#include "viz/cgdisc.h"
#include "viz/diff.h"
#include "viz/dotwrite.h"
#include "viz/emit.h"
#include "viz/flat.h"
#include "viz/frame.h"
#include "viz/html.h"
#include "viz/html_tree.h"
#include "viz/modules.h"
#include "viz/tree.h"
#include "viz/umodule.h"

/* dot's cost grows much faster than linearly (0.34 s at 1.2k nodes, 192 s
 * at 11.7k, Graphviz 2.43 here; 30 s for the 3.6k-node modules view of the
 * 100k synthetic program, where sfdp took 4.9 s). Above this many drawn
 * nodes (copies included) `auto` picks sfdp. */
#define AUTO_DOT_MAX 1500

/* ---- settings */

void exdb_viz_settings_default(exdb_viz_settings *s) {
    s->layout = EXDB_VIZ_LAYOUT_AUTO;
    s->rankdir = EXDB_VIZ_RANKDIR_AUTO;
    s->render_limit = 2000;
    s->dup_fanout = 8;
    s->dup_span = 16;
    s->interrupt = NULL;
}

const char *exdb_viz_layout_name(exdb_viz_layout l) {
    return l == EXDB_VIZ_LAYOUT_DOT ? "dot" : l == EXDB_VIZ_LAYOUT_SFDP ? "sfdp" : "auto";
}

static int parse_u32(const char *v, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (!*v || *end || errno || x > UINT32_MAX || v[0] == '-')
        return -1;
    *out = (uint32_t)x;
    return 0;
}

int exdb_viz_set(exdb_viz_settings *s, const char *name, const char *value, exdb_error *err) {
    if (strcmp(name, "layout") == 0) {
        if (strcmp(value, "auto") == 0)
            s->layout = EXDB_VIZ_LAYOUT_AUTO;
        else if (strcmp(value, "dot") == 0)
            s->layout = EXDB_VIZ_LAYOUT_DOT;
        else if (strcmp(value, "sfdp") == 0)
            s->layout = EXDB_VIZ_LAYOUT_SFDP;
        else
            return exdb_errorf(err, "layout \"%s\": expected dot, sfdp or auto", value);
        return 0;
    }
    if (strcmp(name, "rankdir") == 0) {
        if (strcasecmp(value, "auto") == 0)
            s->rankdir = EXDB_VIZ_RANKDIR_AUTO;
        else if (strcasecmp(value, "TB") == 0)
            s->rankdir = EXDB_VIZ_RANKDIR_TB;
        else if (strcasecmp(value, "LR") == 0)
            s->rankdir = EXDB_VIZ_RANKDIR_LR;
        else
            return exdb_errorf(err, "rankdir \"%s\": expected TB, LR or auto", value);
        return 0;
    }
    uint32_t *field = strcmp(name, "render-limit") == 0        ? &s->render_limit
                      : strcmp(name, "render-dup-fanout") == 0 ? &s->dup_fanout
                      : strcmp(name, "render-dup-span") == 0   ? &s->dup_span
                                                               : NULL;
    if (!field)
        return exdb_errorf(err, "no render setting \"%s\"", name);
    if (parse_u32(value, field) < 0)
        return exdb_errorf(err, "%s \"%s\": expected a number >= 0", name, value);
    return 0;
}

static const char *rankdir_name(exdb_viz_rankdir r) {
    return r == EXDB_VIZ_RANKDIR_TB ? "TB" : r == EXDB_VIZ_RANKDIR_LR ? "LR" : "auto";
}

void exdb_viz_setting_show(exdb_buf *b, const exdb_viz_settings *s, const char *name) {
    if (strcmp(name, "layout") == 0)
        exdb_buf_printf(b, "layout: %s\n", exdb_viz_layout_name(s->layout));
    else if (strcmp(name, "rankdir") == 0)
        exdb_buf_printf(b, "rankdir: %s\n", rankdir_name(s->rankdir));
    else if (strcmp(name, "render-limit") == 0)
        exdb_buf_printf(b, "render-limit: %u\n", s->render_limit);
    else if (strcmp(name, "render-dup-fanout") == 0)
        exdb_buf_printf(b, "render-dup-fanout: %u\n", s->dup_fanout);
    else if (strcmp(name, "render-dup-span") == 0)
        exdb_buf_printf(b, "render-dup-span: %u\n", s->dup_span);
}

int exdb_viz_parse_hide(const char *list, unsigned *hide, exdb_error *err) {
    static const struct {
        const char *word;
        unsigned bit;
    } words[] = {{"params", EXDB_VIZ_HIDE_PARAMS},
                 {"parameters", EXDB_VIZ_HIDE_PARAMS},
                 {"buffers", EXDB_VIZ_HIDE_BUFFERS},
                 {"constants", EXDB_VIZ_HIDE_CONSTANTS},
                 {"getitems", EXDB_VIZ_HIDE_GETITEMS},
                 {"dead", EXDB_VIZ_HIDE_DEAD},
                 {"state", EXDB_VIZ_HIDE_PARAMS | EXDB_VIZ_HIDE_BUFFERS | EXDB_VIZ_HIDE_CONSTANTS},
                 {"none", 0}};
    *hide = 0;
    for (const char *w = list; *w;) {
        size_t len = strcspn(w, ",");
        size_t i = 0, n = sizeof words / sizeof *words;
        while (i < n && !(strlen(words[i].word) == len && strncmp(words[i].word, w, len) == 0))
            i++;
        if (i == n)
            return exdb_errorf(err,
                               "--hide: \"%.*s\": expected a comma list of params, buffers, "
                               "constants, state, getitems, dead",
                               (int)len, w);
        *hide |= words[i].bit;
        w += len + (w[len] == ',');
    }
    return 0;
}

exdb_viz_format exdb_viz_format_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot)
        return EXDB_FMT_NONE;
    static const struct {
        const char *ext;
        exdb_viz_format f;
    } exts[] = {{".dot", EXDB_FMT_DOT}, {".gv", EXDB_FMT_DOT},  {".svg", EXDB_FMT_SVG},
                {".png", EXDB_FMT_PNG}, {".pdf", EXDB_FMT_PDF}, {".html", EXDB_FMT_HTML}};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
        if (strcasecmp(dot, exts[i].ext) == 0)
            return exts[i].f;
    return EXDB_FMT_NONE;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- building */

/* Fills vg with the view, high-fan-out nodes duplicated. vg must be
 * vz_init'ed; the caller vz_free()s it. */
static int build(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                 const exdb_viz_settings *set, int no_dup, exdb_viz_stats *st, exdb_error *err) {
    if (!src || !src->prog)
        return exdb_errorf(err, "render: no program loaded");
    int rc;
    switch (view->kind) {
    case EXDB_VIEW_FLAT:
        rc = vz_view_flat(vg, src, view, err);
        break;
    case EXDB_VIEW_MODULES:
        rc = vz_view_modules(vg, src, view, err);
        break;
    case EXDB_VIEW_MODULE:
        rc = vz_view_module(vg, src, view, err);
        break;
    case EXDB_VIEW_TREE:
        rc = vz_view_tree(vg, src, view, err);
        break;
    case EXDB_VIEW_FRAME:
        rc = vz_view_frame(vg, src, view, err);
        break;
    case EXDB_VIEW_DIFF:
        rc = vz_view_diff(vg, src, view, err);
        break;
    default:
        return exdb_errorf(err, "render: unknown view");
    }
    if (rc < 0)
        return -1;
    if (set->rankdir != EXDB_VIZ_RANKDIR_AUTO)
        vg->rankdir = set->rankdir == EXDB_VIZ_RANKDIR_LR ? "LR" : "TB";
    return vz_duplicate(vg, set, view->no_dup || no_dup, st, err);
}

/* Writes vg as DOT, appended to b: by dotwrite.c, or through cgraph (with
 * the disciplines of cgdisc.c) and agwrite for a graph dotwrite.c declines
 * and for the tests that compare the two. */
static int write_dot(vz_graph *vg, exdb_buf *b, const vz_dot_sink *sink, exdb_viz_stats *st,
                     exdb_error *err) {
    int own = vz_dot_agwrite ? 1 : vz_dot_write_to(vg, b, sink, st);
    if (own <= 0)
        return own == 0 ? 0 : exdb_errorf(err, "render: out of memory writing DOT");
    Agraph_t *g = vz_emit(vg, 0, st, err);
    if (!g)
        return -1;
    int rc = vz_write(g, NULL, b) == 0 ? 0 : exdb_errorf(err, "render: out of memory writing DOT");
    vz_close(g);
    if (rc == 0 && sink && b->len) { /* cgraph's DOT is made whole */
        sink->put(sink->ctx, b->s, b->len);
        exdb_buf_reset(b);
    }
    return rc;
}

static void put_out(void *ctx, const char *text, size_t len) {
    exdb_out_put(ctx, text, len);
}

/* The DOT of vg into path a piece at a time as dotwrite.c makes it (a
 * 1M-node program's tree view is 67 MB of DOT, never held whole), through
 * a temporary file renamed over path at the end, as exdb_out_write. */
static int write_dot_file(vz_graph *vg, const char *path, exdb_viz_stats *st, exdb_error *err) {
    exdb_outstream o;
    if (exdb_out_begin(&o, path, 1, err) < 0)
        return -1;
    exdb_buf b;
    exdb_buf_init(&b);
    vz_dot_sink sink = {put_out, &o, 0};
    int rc = write_dot(vg, &b, &sink, st, err);
    exdb_buf_free(&b);
    if (rc < 0) {
        exdb_out_abort(&o);
        return -1;
    }
    return exdb_out_end(&o, 0666, err);
}

/* ---- writing */

/* True when path names the same file as the loaded program (following
 * symbolic links), so `render` never overwrites its input: the file it was
 * loaded from (its identity then), or what is at its absolute path now. A
 * `cd` since the load changes neither. */
static int is_program_file(const exdb_viz_source *src, const char *path) {
    const exdb_snapshot *snap = src->prog->snapshot;
    struct stat a, b;
    if (stat(path, &a) < 0)
        return 0;
    if (snap && (uint64_t)a.st_dev == snap->dev && (uint64_t)a.st_ino == snap->ino)
        return 1;
    const char *prog = snap ? exdb_snapshot_abs_path(snap) : src->prog->path;
    return prog && stat(prog, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Graph attributes that keep a layout affordable for its engine and size. */
static void tune_layout(Agraph_t *g, const char *engine, uint32_t nodes) {
    if (strcmp(engine, "sfdp") == 0) {
        /* prism gives the tidier picture, but its overlap removal took
         * 13.3 s of the 100k synthetic program's modules view (1,794
         * nodes) where scaling the layout took 2.8 s (sfdp CLI, same
         * loaded machine); "true" (no removal) took 192 s in splines. */
        agattr(g, AGRAPH, "overlap", nodes > 1000 ? "scale" : "prism");
        agattr(g, AGRAPH, "outputorder", "edgesfirst");
        if (nodes > 2000)
            agattr(g, AGRAPH, "splines", "false");
        return;
    }
    /* No nslimit/nslimit1: small values bound dot's position phase, but
     * dot 2.43 segfaulted with nslimit=0.2 on the 100k-node synthetic
     * program's modules view (3.6k nodes), in-process and in the CLI. */
    agattr(g, AGRAPH, "ranksep", "0.3");
    agattr(g, AGRAPH, "nodesep", "0.2");
}

/* One Graphviz context for the whole process. Graphviz 2.43's pango
 * plugin caches a font name pointer in a static variable across contexts;
 * after gvFreeContext the next context's first label compares against
 * freed memory (ASan: heap-use-after-free in textspan_size). Keeping one
 * context avoids that and the plugin loading on every render. */
static GVC_t *context(void) {
    static GVC_t *gvc;
    if (!gvc)
        gvc = vz_gvcontext_new();
    return gvc;
}

static const char *engine_for(const exdb_viz_settings *set, uint32_t nodes) {
    if (set->layout == EXDB_VIZ_LAYOUT_DOT)
        return "dot";
    if (set->layout == EXDB_VIZ_LAYOUT_SFDP)
        return "sfdp";
    return nodes <= AUTO_DOT_MAX ? "dot" : "sfdp";
}

static const char *format_name(exdb_viz_format f) {
    switch (f) {
    case EXDB_FMT_SVG:
        return "svg";
    case EXDB_FMT_PNG:
        return "png";
    case EXDB_FMT_PDF:
        return "pdf";
    default:
        return "dot";
    }
}

static const char *view_hint(const exdb_viz_view *view) {
    if (view->kind == EXDB_VIEW_MODULES)
        return "try a smaller --depth";
    if (view->kind == EXDB_VIEW_MODULE)
        return "try one of its children (\"render tree\" shows them), write .dot instead";
    if (view->kind == EXDB_VIEW_TREE)
        return "write .dot instead, or try --layout sfdp";
    return "try \"render modules --depth 1\" or --depth 2, write .dot instead";
}

/* The views' names, by exdb_viz_view_kind. */
static const char *const view_names[] = {"flat",  "modules", "module", "tree",
                                         "frame", "diff",    "run"};

/* The HTML page's title: "exdb: module layer1.0 - resnet18.json". */
static const char *page_title(const exdb_viz_source *src, const exdb_viz_view *view, char *buf,
                              size_t size) {
    const char *path = src->prog && src->prog->path ? src->prog->path : "program";
    const char *slash = strrchr(path, '/');
    snprintf(buf, size, "exdb: %s%s%s - %s", view_names[view->kind],
             view->kind == EXDB_VIEW_MODULE ? " " : "",
             view->kind == EXDB_VIEW_MODULE && view->fqn ? view->fqn : "",
             slash ? slash + 1 : path);
    return buf;
}

/* What a render produced, in memory: Graphviz's buffer (gvRenderData),
 * or ours (DOT text, the HTML page). */
typedef struct rendered {
    vz_laid_out img;
    exdb_buf text;
    char *page; /* open_memstream's, freed with free */
    size_t pagelen;
} rendered;

static void rendered_free(rendered *r) {
    vz_laid_out_free(&r->img);
    exdb_buf_free(&r->text);
    free(r->page);
}

/* The SVG file, built in memory through html.c's writer. */
static int svg_file(rendered *r) {
    FILE *m = open_memstream(&r->page, &r->pagelen);
    if (!m)
        return -1;
    int rc = vz_write_svg(m, r->img.data, r->img.len, 1);
    if (fclose(m) != 0)
        rc = -1;
    return rc;
}

/* Lays g out and renders it into r: never to a file, because Graphviz's
 * file writer calls exit(1) on a short write (a full disk ended the
 * session). -1 with a message naming path and what failed. */
static int render_image(Agraph_t *g, exdb_viz_format fmt, const char *engine,
                        const exdb_viz_settings *set, const exdb_viz_source *src,
                        const exdb_viz_view *view, const char *path, exdb_viz_stats *st,
                        rendered *r, exdb_error *err) {
    tune_layout(g, engine, st->nodes);
    GVC_t *gvc = context();
    if (!gvc)
        return exdb_errorf(err, "%s: Graphviz could not start (out of memory?)", path);
    double t1 = now();
    const char *as = fmt == EXDB_FMT_HTML ? "svg" : format_name(fmt);
    if (vz_gvcontext_can_render(gvc, as) == 0) /* the wheel: no cairo plugin */
        return exdb_errorf(err,
                           "%s: this exdb's Graphviz has no %s renderer (use .svg, .html or "
                           "a build from source with Graphviz's cairo plugin)",
                           path, as);
    if (vz_layout_render(gvc, g, engine, as, set->interrupt, &r->img, path, err) < 0)
        return -1;
    st->layout_s = r->img.layout_s;
    double t2 = t1 + r->img.layout_s;
    if (fmt == EXDB_FMT_SVG && svg_file(r) < 0)
        return exdb_errorf(err, "%s: could not write the SVG (out of memory, or no <svg>)", path);
    st->write_s = now() - t2;
    return 0;
}

/* The view graph built for fmt: copies of hub nodes only for dot (sfdp
 * has no trouble with hubs and copies would only double its work), and
 * image formats refused above the render limit. *sfdp: the layout;
 * *fallback: the view drawn (view, or view clustered by module). */
static int build_for(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                     exdb_viz_view *fallback, const exdb_viz_settings *set, exdb_viz_format fmt,
                     const char *path, int *sfdp, exdb_viz_stats *st, exdb_error *err) {
    *sfdp = 0;
    if (vz_init(vg) < 0)
        return exdb_errorf(err, "render: out of memory");
    if (build(vg, src, view, set, 0, st, err) < 0)
        return -1;
    /* a flat view too big for dot is drawn as the module view (modules
     * cut at depth 2: efficientnet_v2_l's 2,569 nodes become 15), never
     * silently as an sfdp snake; the note says so and names the options */
    if (fmt != EXDB_FMT_DOT && view->kind == EXDB_VIEW_FLAT && !view->by_module &&
        set->layout == EXDB_VIZ_LAYOUT_AUTO && st->real_nodes > AUTO_DOT_MAX) {
        snprintf(st->note, sizeof st->note,
                 "note: %u nodes are too many to draw flat: drew the module view (render modules "
                 "--depth 2) instead; --layout sfdp draws them flat, --hide state,dead fewer, "
                 "render modules -o FILE.html opens every module in the browser",
                 st->real_nodes);
        *fallback = (exdb_viz_view){.kind = EXDB_VIEW_MODULES, .depth = 2, .no_dup = view->no_dup};
        view = fallback;
        vz_free(vg);
        if (vz_init(vg) < 0 || build(vg, src, view, set, 0, st, err) < 0)
            return -1;
    }
    /* engine_for sees the node count before copies here, so a graph laid
     * out by sfdp gets none */
    if (fmt != EXDB_FMT_DOT && strcmp(engine_for(set, st->real_nodes), "sfdp") == 0 &&
        st->dup_nodes) {
        vz_free(vg);
        if (vz_init(vg) < 0 || build(vg, src, view, set, 1, st, err) < 0)
            return -1;
        *sfdp = 1;
    }
    if (fmt != EXDB_FMT_DOT && st->real_nodes > set->render_limit && !view->force)
        return exdb_errorf(err,
                           "%s: the view has %u nodes, over the render limit of %u (layout could "
                           "take minutes): %s, or add --force (or raise --limit)",
                           path, st->real_nodes, set->render_limit, view_hint(view));
    return 0;
}

/* `render modules -o FILE.html`: the module view you open and close
 * (html_tree.c), laid out by the page itself, so no Graphviz and no render
 * limit; `render diff -o FILE.html` the same page of the other program,
 * coloured by the diff. Made in memory, written as every render is. */
static int render_tree_page(const exdb_viz_source *src, const exdb_viz_view *view, const char *path,
                            exdb_viz_stats *st, exdb_error *err) {
    char *page = NULL;
    size_t len = 0;
    char title[512];
    vz_tree_stats ts = {0};
    double t0 = now();
    FILE *m = open_memstream(&page, &len);
    if (!m)
        return exdb_errorf(err, "%s: out of memory", path);
    const exdb_program *p = view->kind == EXDB_VIEW_DIFF ? src->diff->b : src->prog;
    int rc = vz_write_tree_html(m, p, view->depth, page_title(src, view, title, sizeof title),
                                view->kind == EXDB_VIEW_DIFF ? src->diff : NULL,
                                view->kind == EXDB_VIEW_RUN ? src->done : NULL, &ts, err);
    if (fclose(m) != 0 && rc == 0)
        rc = exdb_errorf(err, "%s: out of memory making the page", path);
    st->build_s = now() - t0;
    st->nodes = st->real_nodes = ts.nodes;
    st->edges = ts.edges;
    st->clusters = ts.modules ? ts.modules - 1 : 0; /* module calls: all but the root */
    if (rc == 0) {
        double t1 = now();
        rc = exdb_out_write(path, page, len, 0666, 1, err);
        st->write_s = now() - t1;
    }
    free(page);
    return rc;
}

/* `render flat|tree|frame|module -o FILE.html`: the module view's page
 * drawing the view graph (html_tree.c, graph_data.c), laid out by the page
 * itself a cluster or section at a time, so no Graphviz and no render
 * limit; the view built as for DOT but without copies of hub nodes (the
 * page draws its own). */
static int render_view_page(const exdb_viz_source *src, const exdb_viz_view *view,
                            const exdb_viz_settings *set, const char *path, exdb_viz_stats *st,
                            exdb_error *err) {
    vz_graph vg;
    if (vz_init(&vg) < 0)
        return exdb_errorf(err, "render: out of memory");
    double t0 = now();
    if (build(&vg, src, view, set, 1, st, err) < 0) {
        vz_free(&vg);
        return -1;
    }
    char *page = NULL;
    size_t len = 0;
    char title[512];
    vz_tree_stats ts = {0};
    int rc = -1;
    FILE *m = open_memstream(&page, &len);
    if (!m) {
        vz_free(&vg);
        return exdb_errorf(err, "%s: out of memory", path);
    }
    int expand = view->kind == EXDB_VIEW_FRAME || view->kind == EXDB_VIEW_MODULE ||
                 view->kind == EXDB_VIEW_DIFF || view->by_module;
    rc = vz_write_view_html(m, &vg, src->prog, view_names[view->kind], expand,
                            page_title(src, view, title, sizeof title), &ts, err);
    if (fclose(m) != 0 && rc == 0)
        rc = exdb_errorf(err, "%s: out of memory making the page", path);
    st->build_s = now() - t0;
    st->nodes = st->real_nodes = vg.nnodes;
    st->edges = vg.nedges;
    st->clusters = vg.nclusters ? vg.nclusters - 1 : 0;
    vz_free(&vg);
    if (rc == 0) {
        double t1 = now();
        rc = exdb_out_write(path, page, len, 0666, 1, err);
        st->write_s = now() - t1;
    }
    free(page);
    return rc;
}

int exdb_viz_render(const exdb_viz_source *src, const exdb_viz_view *view,
                    const exdb_viz_settings *set, const char *path, exdb_viz_stats *stats,
                    exdb_error *err) {
    exdb_viz_stats st_local;
    exdb_viz_stats *st = stats ? stats : &st_local;
    memset(st, 0, sizeof *st);
    exdb_viz_format fmt = exdb_viz_format_of(path);
    if (fmt == EXDB_FMT_NONE)
        return exdb_errorf(err, "%s: unknown extension: use .dot, .svg, .png, .pdf or .html", path);
    if (src && src->prog && is_program_file(src, path))
        return exdb_errorf(err, "%s: is the loaded program; refusing to overwrite it", path);
    if (exdb_out_check(path, 1, err) < 0) /* before the work: a FIFO, /dev/null... */
        return -1;

    if (view->kind == EXDB_VIEW_RUN && (fmt != EXDB_FMT_HTML || !src || !src->done))
        return exdb_errorf(err,
                           "%s: render run writes only .html (the outliner replayed in the "
                           "module view)",
                           path);
    if (fmt == EXDB_FMT_HTML && (view->kind == EXDB_VIEW_MODULES || view->kind == EXDB_VIEW_RUN ||
                                 (view->kind == EXDB_VIEW_DIFF && src && src->diff))) {
        if (!src || !src->prog)
            return exdb_errorf(err, "render: no program loaded");
        return render_tree_page(src, view, path, st, err);
    }
    if (fmt == EXDB_FMT_HTML)
        return src && src->prog ? render_view_page(src, view, set, path, st, err)
                                : exdb_errorf(err, "render: no program loaded");
    double t0 = now();
    vz_graph vg;
    int sfdp;
    rendered r = {0};
    exdb_buf_init(&r.text);
    Agraph_t *g = NULL;
    exdb_viz_view fallback = *view;
    int rc = build_for(&vg, src, view, &fallback, set, fmt, path, &sfdp, st, err);
    view = &fallback; /* the view drawn: clustered when a flat view was too big */
    if (rc == 0 && fmt != EXDB_FMT_DOT && !(g = vz_emit(&vg, 1, st, err)))
        rc = -1;
    st->build_s = now() - t0;
    if (rc == 0 && fmt == EXDB_FMT_DOT) {
        double t1 = now();
        rc = write_dot_file(&vg, path, st, err);
        st->write_s = now() - t1;
    } else if (rc == 0) {
        st->engine = sfdp ? "sfdp" : engine_for(set, st->nodes);
        if (set->layout == EXDB_VIZ_LAYOUT_AUTO && strcmp(st->engine, "sfdp") == 0 && !st->note[0])
            snprintf(st->note, sizeof st->note,
                     "note: %u nodes: laid out by sfdp, not dot (dot would take minutes)%s; "
                     "--layout dot insists",
                     st->nodes, st->clusters ? ", which does not keep clusters together" : "");
        rc = render_image(g, fmt, st->engine, set, src, view, path, st, &r, err);
    }
    vz_close(g);
    vz_free(&vg);
    if (rc == 0 && fmt != EXDB_FMT_DOT) { /* DOT: written as it was made */
        const char *data = r.page ? r.page : r.img.data ? r.img.data : exdb_buf_str(&r.text);
        size_t len = r.page ? r.pagelen : r.img.data ? r.img.len : r.text.len;
        rc = exdb_out_write(path, data, len, 0666, 1, err);
    }
    rendered_free(&r);
    return rc;
}

int exdb_viz_dot(const exdb_viz_source *src, const exdb_viz_view *view,
                 const exdb_viz_settings *set, exdb_buf *b, exdb_viz_stats *stats,
                 exdb_error *err) {
    exdb_viz_stats st_local;
    exdb_viz_stats *st = stats ? stats : &st_local;
    memset(st, 0, sizeof *st);
    vz_graph vg;
    if (vz_init(&vg) < 0)
        return exdb_errorf(err, "render: out of memory");
    double t0 = now();
    if (build(&vg, src, view, set, 0, st, err) < 0) {
        vz_free(&vg);
        return -1;
    }
    st->build_s = now() - t0;
    /* Straight into b: no stream, so the 68 MB of the 100k synthetic
     * program's flat view are copied once. */
    double t1 = now();
    int rc = write_dot(&vg, b, NULL, st, err);
    st->write_s = now() - t1;
    vz_free(&vg);
    if (rc < 0)
        exdb_errorf(err, "render: could not write DOT text");
    return rc;
}
