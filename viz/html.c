/* html.c - the HTML viewer: one self-contained page (no network) holding
 * the SVG Graphviz made, with pan (drag), zoom (wheel, buttons), search by
 * node name (exact names first, then prefixes, then substrings; Enter
 * cycles through the matches), which zooms to the match, centres it and
 * marks it (the other nodes dimmed), and a details panel that shows a
 * clicked node's or cluster's tooltip (the full FX node).
 *
 * The page also takes its state from the URL fragment, so it can be
 * checked headless (tests/viz/html_chromium.sh): "#search=relu" searches
 * on load, "#select=NAME" shows a node's details, "#click=NAME" clicks the
 * node's shape (the same path as a mouse click), "#zoom=2" zooms in. It
 * records what it did on <body>: data-ready, data-nodes, data-hits,
 * data-selected, data-viewbox / data-home (after / before zoom), data-focus
 * (the centre of the match a search went to),
 * data-errors (uncaught script errors), data-paintms (ms from the start of
 * navigation to the task after the first frame painted), and with "#measure=1"
 * data-overflow (node labels wider than their shape, as the browser draws
 * the font), which `chromium --headless --dump-dom` prints. The script and
 * the style are viz/viewer/svgpage.js and svgpage.css, embedded by the build
 * (viz/assets.h). */
#include <stdio.h>
#include <string.h>

#include "viz/assets.h"
#include "viz/view.h"
#include "viz/html.h"
#include "viz/xmlsafe.h"

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"generator\" content=\"exdb\">\n<title>";

/* Between the title and the picture: the page's style (viz/viewer/svgpage.css)
 * goes between page_style_open and page_bar. */
static const char page_style_open[] = "</title>\n<style>\n";

static const char page_bar[] =
    "</style>\n</head>\n<body>\n"
    "<div id=\"bar\"><input id=\"q\" type=\"search\" placeholder=\"search node name (Enter: "
    "next)\" aria-label=\"search\">\n"
    "<button id=\"fit\" title=\"fit to window\">fit</button>"
    "<button id=\"zin\" title=\"zoom in\">+</button>"
    "<button id=\"zout\" title=\"zoom out\">&minus;</button>\n"
    "<span id=\"status\"></span></div>\n"
    "<div id=\"main\"><div id=\"view\">\n";

/* After the picture: the details panel, then the script (viz/viewer/svgpage.js). */
static const char page_tail[] =
    "</div>\n<div id=\"details\"><b id=\"dname\">click a node</b><pre id=\"dtext\">"
    "Drag to pan, wheel to zoom, type a name to search (/); keys: n next match, f fit, "
    "arrows walk from a selected node (up: its first input's producer, down: its first "
    "user), Escape clears.</pre><div id=\"dlinks\"></div></div></div>\n"
    "<script>\n";

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

int vz_write_html(FILE *f, const char *svg, size_t len, const char *title) {
    /* Only the <svg> element: the XML prolog and DOCTYPE are not HTML. */
    fputs(page_head, f);
    vz_html_escape(f, title ? title : "exdb");
    fputs(page_style_open, f);
    fputs(vz_asset_base_css, f);
    fputs(vz_asset_svgpage_css, f);
    fputs(page_bar, f);
    if (vz_write_svg(f, svg, len, 0) < 0)
        return -1;
    fputs(page_tail, f);
    fputs(vz_asset_base_js, f);
    fputs(vz_asset_svgpage_js, f);
    fputs("</script>\n</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}
