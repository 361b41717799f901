/* html_tree.c - the HTML viewer of every view: `render modules -o
 * FILE.html` (the module view you open and close, also of render diff and
 * render run) and `render flat|tree|frame|module -o FILE.html` (the same
 * page drawing the view's graph, its clusters as the modules:
 * graph_data.c). One self-contained page (no network) holding the module
 * list and every module call's dataflow graph as JSON (tree_data.c), and a
 * script that lays a graph out when its module is opened: the page opens
 * at the root's graph with its submodules as closed boxes (depth 1; more
 * with --depth); a click on a closed box opens it in place (the box grows
 * into its own graph, the rest laid out around it, the box kept where it
 * was on screen), a click on an open box's title closes it. Search finds
 * module paths and node names (exact, then prefixes, then substrings;
 * Enter: next) and opens every module on the way to the match. Graphviz
 * cannot be asked for one layout per open/closed state of thousands of
 * modules, and laying out each module once took 15 ms each (6 minutes for
 * the 100k synthetic program's 21k module calls), so the layout (layers
 * by longest path, barycentre order, balanced positions; a far edge drawn
 * to a dashed copy of its busier end) is the page's, done per module the
 * first time it is opened. Each module's JSON is parsed only then.
 *
 * As html.c's page it takes commands from the URL fragment for headless
 * checks (tests/viz/html_chromium.sh): "#click=FQN" clicks a module's box
 * (again to close it: "#click=a&click=a"), "#click=NODE" a node,
 * "#search=S", "#zoom=2", "#measure=1"; and records on <body>: data-ready,
 * data-errors, data-modules, data-open (the open modules' paths),
 * data-shown (boxes drawn), data-hits, data-selected, data-focus,
 * data-viewbox, data-overflow, data-loadms (milliseconds from the start
 * of navigation to the first drawing) and data-paintms (to the task after
 * the first frame painted: make bench's time to first screen). The script and the style are
 * viz/viewer/modpage.js and modpage.css, embedded by the build (viz/assets.h). */
#include <stdio.h>
#include <string.h>

#include "viz/assets.h"
#include "viz/view.h"
#include "viz/diff_data.h"
#include "viz/run_data.h"
#include "viz/html.h"
#include "viz/html_tree.h"
#include "viz/tree_data.h"
#include "viz/graph_data.h"

/* The page up to its data: title, style, the bar, the view and the panel
 * (help: the panel's first text); body carries attrs. */
static void page_open(FILE *f, const char *title, const char *attrs, const char *help) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"exdb\">\n<title>",
          f);
    vz_html_escape(f, title ? title : "exdb");
    fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body %s>\n", vz_asset_base_css,
            vz_asset_modpage_css, attrs);
    fputs("<div id=\"bar\"><input id=\"q\" type=\"search\" placeholder=\"search name, op, "
          "arg= or module (Enter: next)\" aria-label=\"search\">\n"
          "<button id=\"fit\" title=\"fit to window\">fit</button>"
          "<button id=\"zin\" title=\"zoom in\">+</button>"
          "<button id=\"zout\" title=\"zoom out\">&minus;</button>"
          "<button id=\"openall\" title=\"open every box (e)\">expand all</button>"
          "<button id=\"closeall\" title=\"close every box (c)\">collapse all</button>"
          "<button id=\"state\" title=\"draw parameters and buffers as nodes of their own\">"
          "show state</button>\n"
          "<span id=\"status\"></span></div>\n"
          "<div id=\"main\"><div id=\"view\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
          "text-rendering=\"geometricPrecision\"></svg></div>\n"
          "<div id=\"details\"><b id=\"dname\">",
          f);
    fputs(help, f);
    fputs(" Drag to pan, wheel to zoom, type a name, an op, arg=value or a module path to "
          "search (/); keys: n next match, f fit, e expand all, c collapse all, arrows walk "
          "from a selected node (up: its first input, down: its first user).</pre>"
          "<div id=\"dlinks\"></div></div></div>\n",
          f);
}

static int page_close(FILE *f, exdb_error *err) {
    fprintf(f, "<script>\n%s%s</script>\n</body>\n</html>\n", vz_asset_base_js,
            vz_asset_modpage_js);
    return ferror(f) ? exdb_errorf(err, "render: could not write the page") : 0;
}

int vz_write_tree_html(FILE *f, const exdb_program *p, int open_depth, const char *title,
                       const struct exdb_program_diff *diff, const struct exdb_unflatten *run,
                       vz_tree_stats *st, exdb_error *err) {
    char attrs[64];
    snprintf(attrs, sizeof attrs, "data-depth=\"%d\"", open_depth > 0 ? open_depth : 1);
    page_open(f, title, attrs,
              "click a module to open it</b><pre id=\"dtext\">A closed module is a yellow box: "
              "click it to open it in place, click an open module's title to close it.");
    if (vz_write_tree_data(f, p, st, err) < 0 || (diff && vz_write_diff_data(f, diff, err) < 0) ||
        (run && vz_write_run_data(f, run, err) < 0))
        return -1;
    return page_close(f, err);
}

int vz_write_view_html(FILE *f, const vz_graph *vg, const exdb_program *p, const char *view,
                       int expand, const char *title, vz_tree_stats *st, exdb_error *err) {
    char attrs[96];
    snprintf(attrs, sizeof attrs, "data-depth=\"1\" data-view=\"%s\"%s", view,
             expand ? " data-expand=\"1\"" : "");
    page_open(f, title, attrs,
              "click a node for its details</b><pre id=\"dtext\">A yellow box is a group of "
              "nodes (a module, a cluster of the view, or a section of 1000 nodes in the "
              "view's order): click it to open it in place, click an open box's title to "
              "close it.");
    if (vz_write_graph_data(f, vg, p, st, err) < 0)
        return -1;
    return page_close(f, err);
}
