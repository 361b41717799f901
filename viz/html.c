/* html.c - what the pages and SVG files share: HTML escaping, and the SVG
 * writer of `render ... -o F.svg` (Graphviz's SVG with text drawn at its
 * exact size at any zoom, and viz/viewer/svgopen.js, which scrolls a
 * browser to where the graph starts). Every view's HTML page is the module
 * view's page (html_tree.c). */
#include <stdio.h>
#include <string.h>

#include "viz/assets.h"
#include "viz/view.h"
#include "viz/html.h"
#include "viz/xmlsafe.h"

void vz_html_escape(FILE *f, const char *s) {
    vz_xml_escape(f, s);
}

/* Browsers hint glyphs at the size they are drawn: a picture scaled down
 * to fit a window draws its labels relatively wider than Graphviz measured
 * them, and they overflow their boxes (3 of the example's flat view in
 * the viewer; 33 without the page's font rule). geometricPrecision draws
 * text at its exact outline size at every zoom. */
#define SVG_TEXT_ATTR " text-rendering=\"geometricPrecision\""

int vz_write_svg(FILE *f, const char *svg, size_t len, int whole) {
    const char *start = svg;
    const char *end = svg + len;
    while (start < end && !(end - start >= 5 && memcmp(start, "<svg", 4) == 0 &&
                            (start[4] == ' ' || start[4] == '\n' || start[4] == '>')))
        start++;
    if (start >= end)
        return -1;
    if (whole)
        fwrite(svg, 1, (size_t)(start - svg), f);
    fputs("<svg" SVG_TEXT_ATTR, f);
    if (!whole) {
        fwrite(start + 4, 1, (size_t)(end - start - 4), f);
        return ferror(f) ? -1 : 0;
    }
    /* A file of its own gets viz/viewer/svgopen.js before its </svg>: a
     * browser opening it scrolls to where the graph starts. */
    const char *close = end - 6;
    while (close > start && memcmp(close, "</svg>", 6) != 0)
        close--;
    if (close <= start)
        close = end;
    fwrite(start + 4, 1, (size_t)(close - start - 4), f);
    fprintf(f, "<script><![CDATA[\n%s]]></script>\n", vz_asset_svgopen_js);
    fwrite(close, 1, (size_t)(end - close), f);
    return ferror(f) ? -1 : 0;
}
