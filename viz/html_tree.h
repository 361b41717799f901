/* html_tree.h - what html_tree.c defines for the other views. */
#ifndef EXDB_VIZ_HTML_TREE_H
#define EXDB_VIZ_HTML_TREE_H

#include "viz/view.h"

struct exdb_program_diff;
struct exdb_unflatten;

/* The whole page: the module tree collapsed below depth open_depth (>= 1;
 * 1: only the root open), modules opening in place on a click, search
 * opening the path to a match (html_tree.c). With diff (p is its B), the
 * page colours what changed from A (render diff -o FILE.html); with run (a
 * finished unflatten run of p) it replays the run's events on a timeline
 * (render run -o FILE.html). */
int vz_write_tree_html(FILE *f, const exdb_program *p, int open_depth, const char *title,
                       const struct exdb_program_diff *diff, const struct exdb_unflatten *run,
                       vz_tree_stats *st, exdb_error *err);

/* The same page for any other view's graph vg (render flat|tree|frame|module
 * -o FILE.html): its clusters are the modules, a cluster of over
 * VZ_SECTION nodes cut into sections (graph_data.c); view names the view
 * (body data-view); expand: the page opens with every box open (up to the
 * script's budget). */
int vz_write_view_html(FILE *f, const vz_graph *vg, const exdb_program *p, const char *view,
                       int expand, const char *title, vz_tree_stats *st, exdb_error *err);

#endif
