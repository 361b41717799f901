/* dotwrite.h - what dotwrite.c defines for the other views. */
#ifndef EXDB_VIZ_DOTWRITE_H
#define EXDB_VIZ_DOTWRITE_H

#include "viz/view.h"

/* Appends vg as DOT to b: the bytes agwrite writes for vz_emit(vg, 0).
 * 0 when written, -1 when out of memory, 1 when vg is one dotwrite.c does
 * not write (a name that would make cgraph merge or reorder objects: then
 * nothing is appended and the caller goes through cgraph). Fills st's
 * counts as vz_emit does. */
int vz_dot_write(const vz_graph *vg, exdb_buf *b, exdb_viz_stats *st);

/* Where vz_dot_write_to gives the text as it is made: put(ctx, text, len)
 * takes each piece of at least piece bytes (0: VZ_DOT_PIECE), the last
 * one the rest (a file being written: render -o x.dot), so a big view's
 * DOT is never held whole. */
enum { VZ_DOT_PIECE = 1 << 20 };
typedef struct vz_dot_sink {
    void (*put)(void *ctx, const char *text, size_t len);
    void *ctx;
    size_t piece;
} vz_dot_sink;
/* vz_dot_write, the text given to sink piece by piece (b is the scratch
 * buffer, left empty when done; on 1 nothing was given). */
int vz_dot_write_to(const vz_graph *vg, exdb_buf *b, const vz_dot_sink *sink, exdb_viz_stats *st);

/* Set: every DOT goes through vz_emit and agwrite (the tests' oracle). */
extern int vz_dot_agwrite;

#endif
