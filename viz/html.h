/* html.h - what html.c defines for the other views. */
#ifndef EXDB_VIZ_HTML_H
#define EXDB_VIZ_HTML_H

#include "viz/view.h"

/* s with <, > and & escaped, for HTML text (html.c). */
void vz_html_escape(FILE *f, const char *s);

/* Writes Graphviz's SVG with text drawn at its exact size at any zoom
 * (html.c); whole: with the XML prolog (an .svg file), else only the
 * <svg> element. -1 when there is no <svg> element or on a write error. */
int vz_write_svg(FILE *f, const char *svg, size_t len, int whole);

#endif
