/* gvcontext.c - the Graphviz context (gvcontext.h). The wheel (make wheel,
 * issue 26) carries its own copies of Graphviz's libraries, and gvc's
 * run-time plugin loading would look for them in the directory Graphviz was
 * built for: with EXDB_GV_BUILTINS the plugins are linked in instead, as
 * Graphviz's own static builds do (lt_preloaded_symbols), so exdb needs no
 * plugin path or config file from the user. Labels are sized by exdb's own
 * text layout (gvtext.c): the wheel carries no pango, cairo or fonts. */
#include "viz/gvcontext.h"

#include <string.h>

#ifdef EXDB_GV_BUILTINS
#include <graphviz/gvplugin.h>

#include "viz/gvtext.h"

extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_neato_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;

static const lt_symlist_t builtins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {"gvplugin_neato_layout_LTX_library", &gvplugin_neato_layout_LTX_library},
    {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    {"gvplugin_exdb_text_LTX_library", &gvplugin_exdb_text_LTX_library},
    {0, 0},
};

/* gvContextPlugins(builtins, 0): only these plugins, no config6 read. */
GVC_t *vz_gvcontext_new(void) {
    return gvContextPlugins(builtins, 0);
}
#else
GVC_t *vz_gvcontext_new(void) {
    return gvContext();
}
#endif

/* The plugins are fixed when exdb is linked: with the builtins, core's
 * devices (svg, dot) but not cairo's (png, pdf). gvPluginList would say so
 * at run time, but Graphviz 2.42's leaks the names it lists twice. */
int vz_gvcontext_can_render(GVC_t *gvc, const char *fmt) {
    (void)gvc;
#ifdef EXDB_GV_BUILTINS
    return !strcmp(fmt, "svg") || !strcmp(fmt, "dot");
#else
    (void)fmt;
    return 1;
#endif
}
