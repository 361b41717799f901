/* umodule.h - what umodule.c defines for the other views. */
#ifndef EXDB_VIZ_UMODULE_H
#define EXDB_VIZ_UMODULE_H

#include "viz/view.h"

int vz_view_module(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                   exdb_error *err);

/* The module at fqn of u (a dispatcher's call "n@1" too) as `module FQN`
 * draws it, titled "module FQN: ..."; mark: a node drawn bold red, or NULL.
 * The frame view uses it for the later phases' events (umodule.c). */
int vz_view_umodule(vz_graph *vg, const struct exdb_unflatten *u, const char *fqn,
                    const exdb_node *mark, exdb_error *err);

#endif
