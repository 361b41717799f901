/* gvcontext.h - a Graphviz context with its layout and render plugins. */
#ifndef EXDB_VIZ_GVCONTEXT_H
#define EXDB_VIZ_GVCONTEXT_H

#include <graphviz/gvc.h>

/* A new Graphviz context, NULL when out of memory. A normal build lets gvc
 * load the plugins installed with Graphviz (its config6 file); the wheel's
 * build (EXDB_GV_BUILTINS) hands gvc the plugins linked into exdb itself
 * (dot, neato and sfdp, core: DOT, SVG; gvtext.c's text layout) and reads
 * no plugin directory. */
GVC_t *vz_gvcontext_new(void);

/* 1 when gvc can write the output format fmt ("png"), 0 when not (the
 * wheel's build has no cairo plugin for png and pdf). */
int vz_gvcontext_can_render(GVC_t *gvc, const char *fmt);

#endif
