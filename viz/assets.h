/* assets.h - the viewer's JavaScript and CSS (viz/viewer/), embedded in
 * the binary as NUL-ended strings by scripts/embed.sh (build/gen/viz_assets.c). */
#ifndef EXDB_ASSETS_H
#define EXDB_ASSETS_H

/* The style the page starts with (html_tree.c). */
extern const char vz_asset_base_css[];
/* The script the page starts with: exdbFirstScreen (html_tree.c). */
extern const char vz_asset_base_js[];

/* In each SVG file (html.c's vz_write_svg): a browser opening it scrolls to the graph's start. */
extern const char vz_asset_svgopen_js[];

/* The viewer page of every view (html_tree.c): render VIEW -o F.html. */
extern const char vz_asset_modpage_css[];
extern const char vz_asset_modpage_js[];

#endif
