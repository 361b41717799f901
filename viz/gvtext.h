/* gvtext.h - a Graphviz text layout plugin that sizes labels in DejaVu Sans. */
#ifndef EXDB_VIZ_GVTEXT_H
#define EXDB_VIZ_GVTEXT_H

#include <graphviz/gvplugin.h>

/* The plugin library ("textlayout"), for gvContextPlugins' builtins. */
extern gvplugin_library_t gvplugin_exdb_text_LTX_library;

/* The width in points of the UTF-8 text s in DejaVu Sans of size pt (bold
 * when bold): the font's advance widths for ASCII, 1 em for any other
 * character (wider than most, so boxes never come out too narrow). */
double vz_gvtext_width(const char *s, double pt, int bold);

#endif
