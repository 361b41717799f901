/* umodule.h - what umodule.c defines for the other views. */
#ifndef EXDB_VIZ_UMODULE_H
#define EXDB_VIZ_UMODULE_H

#include "viz/view.h"

int vz_view_module(vz_graph *vg, const exdb_viz_source *src, const exdb_viz_view *view,
                   exdb_error *err);

struct exdb_sink_rec;

/* What the frame view marks in a module: node, drawn bold red (the node
 * a later-phase event changed); at a SINK event its decisions (sink[0..
 * nsink)): the placeholders it kept as inputs orange, their tooltips
 * saying why, the get_attr nodes it made bold. */
typedef struct vz_umark {
    const exdb_node *node;
    const struct exdb_sink_rec *sink;
    int32_t nsink;
} vz_umark;

/* The module at fqn of u (a dispatcher's call "n@1" too) as `module FQN`
 * draws it, titled "module FQN: ..."; mk: what to mark, or NULL. The
 * frame view uses it for the later phases' events (umodule.c). */
int vz_view_umodule(vz_graph *vg, const struct exdb_unflatten *u, const char *fqn,
                    const vz_umark *mk, exdb_error *err);

#endif
