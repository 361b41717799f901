/* layoutproc.h - Graphviz's layout and rendering, in a child process when
 * the caller can be interrupted (see layoutproc.c). */
#ifndef EXDB_VIZ_LAYOUTPROC_H
#define EXDB_VIZ_LAYOUTPROC_H

#include <graphviz/gvc.h>
#include <signal.h>
#include <stddef.h>

#include "core/base/error.h"

/* The rendered bytes of one graph. */
typedef struct vz_laid_out {
    char *data; /* gvRenderData's buffer (gv_owned) or malloc's */
    size_t len;
    int gv_owned;
    double layout_s; /* gvLayout's time */
} vz_laid_out;

/* Lays g out with engine and renders it as format `as` into out. With
 * interrupt NULL, in this process; otherwise in a forked child that a set
 * *interrupt (polled every 100 ms) kills: -1 "PATH: render interrupted".
 * A child Graphviz ends (exit or crash) is a -1 naming how it ended. */
int vz_layout_render(GVC_t *gvc, Agraph_t *g, const char *engine, const char *as,
                     volatile sig_atomic_t *interrupt, vz_laid_out *out, const char *path,
                     exdb_error *err);

void vz_laid_out_free(vz_laid_out *out);

#endif
