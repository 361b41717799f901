/* render.h - graph pictures through Graphviz: cgraph builds the graph,
 * agwrite writes DOT, gvc lays it out and renders SVG/PNG/PDF.
 *
 * A view turns the program (and later the unflattener's state) into a small
 * "view graph" (viz/view.h): nodes, edges and nested clusters with their
 * labels. One emitter turns every view graph into cgraph, duplicating
 * high-fan-out nodes and keeping DOT writing linear, so a new view only has
 * to produce a view graph. The views that need the unflattener (module FQN,
 * tree, frame) take its runs through exdb_viz_source.
 *
 * viz/ depends on core/ only; the REPL's `render` command calls it. */
#ifndef EXDB_VIZ_RENDER_H
#define EXDB_VIZ_RENDER_H

#include <signal.h>
#include <stdint.h>

#include "core/base/error.h"
#include "core/export/program.h"
#include "core/base/strbuf.h"

typedef enum {
    EXDB_VIEW_FLAT,    /* the exported graph (with --by-module: module clusters) */
    EXDB_VIEW_MODULES, /* module-level dataflow, modules collapsed to a depth */
    /* Views of the unflattener (exdb_viz_source.done / .cur). */
    EXDB_VIEW_MODULE, /* one unflattened module's graph: view.fqn */
    EXDB_VIEW_TREE,   /* the unflattened module hierarchy */
    EXDB_VIEW_FRAME,  /* the outliner's state at the current event */
    EXDB_VIEW_DIFF,   /* two programs: exdb_viz_source.diff (viz/diff.c) */
    EXDB_VIEW_RUN,    /* the outliner replayed, .html only: exdb_viz_source.done (run_data.c) */
} exdb_view_kind;

typedef enum { EXDB_VIZ_LAYOUT_AUTO, EXDB_VIZ_LAYOUT_DOT, EXDB_VIZ_LAYOUT_SFDP } exdb_viz_layout;

typedef enum {
    EXDB_FMT_NONE = -1,
    EXDB_FMT_DOT,
    EXDB_FMT_SVG,
    EXDB_FMT_PNG,
    EXDB_FMT_PDF,
    EXDB_FMT_HTML, /* the self-contained viewer: the SVG, pan/zoom, search, details */
} exdb_viz_format;

/* Which way dot ranks a picture: each view's own (top to bottom, the tree
 * left to right), or one for all. */
typedef enum { EXDB_VIZ_RANKDIR_AUTO, EXDB_VIZ_RANKDIR_TB, EXDB_VIZ_RANKDIR_LR } exdb_viz_rankdir;

/* Session-wide settings (`set layout`, `set render-limit`, ...). */
typedef struct exdb_viz_settings {
    exdb_viz_layout layout;
    exdb_viz_rankdir rankdir;
    uint32_t render_limit; /* image layout refused above this many nodes */
    uint32_t dup_fanout;   /* duplicate nodes with more uses than this; 0 = never */
    uint32_t dup_span;     /* ...but only the uses further away than this (node order) */
    /* Set by a SIGINT handler: layout runs in a child that a set flag
     * kills (viz/layoutproc.c). NULL: in this process, not interruptible. */
    volatile sig_atomic_t *interrupt;
} exdb_viz_settings;

/* What `render flat --hide` leaves out (a bit set). */
enum {
    EXDB_VIZ_HIDE_PARAMS = 1,    /* parameter placeholders */
    EXDB_VIZ_HIDE_BUFFERS = 2,   /* buffer placeholders */
    EXDB_VIZ_HIDE_CONSTANTS = 4, /* tensor constant and constant placeholders */
    EXDB_VIZ_HIDE_GETITEMS = 8,  /* getitems: the producer links to their users, "[i]" */
    EXDB_VIZ_HIDE_DEAD = 16,     /* nodes nothing uses (unused buffers, _unused getitems) */
};

/* One render request. */
typedef struct exdb_viz_view {
    exdb_view_kind kind;
    int by_module;   /* flat: nested clusters by nn_module_stack */
    unsigned hide;   /* flat: EXDB_VIZ_HIDE_* bits */
    int depth;       /* modules: collapse below this many FQN levels (>= 1) */
    int no_dup;      /* never duplicate high-fan-out nodes */
    int force;       /* lay out even above the render limit */
    const char *fqn; /* EXDB_VIEW_MODULE */
    int window;      /* frame: flat nodes drawn either side of the cursor (0: 12) */
} exdb_viz_view;

/* What a render produced (counts are the cgraph graph's). */
typedef struct exdb_viz_stats {
    uint32_t nodes, edges, clusters; /* clusters: subgraphs named cluster* */
    uint32_t real_nodes;             /* nodes that are not duplicated copies */
    uint32_t dup_nodes;              /* dashed copies of high-fan-out nodes */
    uint32_t groups;                 /* invisible grouping subgraphs (see emit.c) */
    const char *engine;              /* layout engine used, NULL for DOT output */
    double build_s, layout_s, write_s;
    char note[320]; /* a line for the user when the view drawn is not the one asked for */
} exdb_viz_stats;

struct exdb_unflatten;
struct exdb_program_diff;

/* The state a view may draw from. Views of the flat program need only prog;
 * `module` and `tree` need a complete unflatten run of it (done), `frame`
 * the session's run at its current event (cur) and the selected frame. */
typedef struct exdb_viz_source {
    const exdb_program *prog;
    const struct exdb_unflatten *done;    /* at DONE; module, tree */
    const struct exdb_unflatten *cur;     /* any event; frame */
    uint32_t frame_level;                 /* frame: backtrace level, 0 = innermost */
    const struct exdb_program_diff *diff; /* diff: prog's diff with another program */
} exdb_viz_source;

void exdb_viz_settings_default(exdb_viz_settings *s);
/* Sets one setting from text ("layout" "sfdp"): "layout", "rankdir",
 * "render-limit", "render-dup-fanout", "render-dup-span" (the REPL's
 * settings table, repl/settings.c, names them). -1 with a message on
 * error. */
int exdb_viz_set(exdb_viz_settings *s, const char *name, const char *value, exdb_error *err);
/* "layout: auto\n" for `show layout`: one setting's line. */
void exdb_viz_setting_show(exdb_buf *b, const exdb_viz_settings *s, const char *name);
const char *exdb_viz_layout_name(exdb_viz_layout l);
/* "params,buffers,constants,getitems,dead" (any comma list, "none") into
 * EXDB_VIZ_HIDE_* bits. -1 with a message naming a word it does not know. */
int exdb_viz_parse_hide(const char *list, unsigned *hide, exdb_error *err);

/* The format a file name asks for, by extension; EXDB_FMT_NONE if unknown. */
exdb_viz_format exdb_viz_format_of(const char *path);

/* Renders a view to path (format by extension). The file is written
 * atomically (a temporary file in the same directory, then rename) and is
 * never the loaded program file. Image formats are refused above the render
 * limit unless view->force; DOT never is. stats may be NULL. */
int exdb_viz_render(const exdb_viz_source *src, const exdb_viz_view *view,
                    const exdb_viz_settings *set, const char *path, exdb_viz_stats *stats,
                    exdb_error *err);

/* The view as DOT text in b (for tests and `render ... -o -` later). */
int exdb_viz_dot(const exdb_viz_source *src, const exdb_viz_view *view,
                 const exdb_viz_settings *set, exdb_buf *b, exdb_viz_stats *stats, exdb_error *err);

/* "aten.convolution" for "torch.ops.aten.convolution.default": the
 * namespace and op of an OpOverload, the HOP name, else the target. */
void exdb_viz_short_target(exdb_buf *b, const exdb_node *n);

#endif
