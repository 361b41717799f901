/* assets.h - the viewer's JavaScript and CSS (viz/viewer/), embedded in
 * the binary as NUL-ended strings by scripts/embed.sh (build/gen/viz_assets.c). */
#ifndef EXDB_ASSETS_H
#define EXDB_ASSETS_H

/* The style both pages start with (html.c, html_tree.c). */
extern const char vz_asset_base_css[];
/* The script both pages start with: exdbFirstScreen (html.c, html_tree.c). */
extern const char vz_asset_base_js[];

/* The page around one Graphviz SVG (html.c): render flat|tree|frame|module -o F.html. */
extern const char vz_asset_svgpage_css[];
extern const char vz_asset_svgpage_js[];

/* In each SVG file (html.c's vz_write_svg): a browser opening it scrolls to the graph's start. */
extern const char vz_asset_svgopen_js[];

/* The module view you open and close (html_tree.c): render modules -o F.html. */
extern const char vz_asset_modpage_css[];
extern const char vz_asset_modpage_js[];

#endif
