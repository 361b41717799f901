/* emit.h - what emit.c defines for the other views. */
#ifndef EXDB_VIZ_EMIT_H
#define EXDB_VIZ_EMIT_H

#include "viz/view.h"

/* The font of every label. Graphviz sizes boxes with the font fontconfig
 * finds for this name, and the SVG names it for the viewer: "Helvetica"
 * was measured as whatever fontconfig substituted (Liberation Sans where
 * graphviz's recommended fonts-liberation2 is installed) and drawn as
 * whatever the viewer substituted (DejaVu Sans, wider: labels overflowed).
 * DejaVu Sans is installed with the project (scripts/deps.sh:
 * fonts-dejavu-core, which fontconfig also depends on), so layout measures
 * the font Linux viewers draw; a viewer without it falls back to a sans
 * serif (Helvetica, Arial), which is narrower, so text still fits. */
#define VZ_FONT "DejaVu Sans,sans-Serif"

/* Gives high-fan-out nodes one dashed copy per far use (see emit.c)
 * unless no_dup; records real and copied node counts in st. */
int vz_duplicate(vz_graph *vg, const exdb_viz_settings *set, int no_dup, exdb_viz_stats *st,
                 exdb_error *err);

Agraph_t *vz_emit(vz_graph *vg, int layout, exdb_viz_stats *st, exdb_error *err);

#endif
