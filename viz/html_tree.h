/* html_tree.h - what html_tree.c defines for the other views. */
#ifndef EXDB_VIZ_HTML_TREE_H
#define EXDB_VIZ_HTML_TREE_H

#include "viz/view.h"

/* The whole page: the module tree collapsed below depth open_depth (>= 1;
 * 1: only the root open), modules opening in place on a click, search
 * opening the path to a match (html_tree.c). */
int vz_write_tree_html(FILE *f, const exdb_program *p, int open_depth, const char *title,
                       vz_tree_stats *st, exdb_error *err);

#endif
