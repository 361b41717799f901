/* noderec.h - the viewer's JSON record of one FX node and the table of
 * source lines the records share (noderec.c), for the pages of the module
 * view (tree_data.c) and of every other view (graph_data.c). */
#ifndef EXDB_VIZ_NODEREC_H
#define EXDB_VIZ_NODEREC_H

#include "viz/view.h"

typedef struct vz_noderec {
    const exdb_program *prog;
    const exdb_strmap *inputs; /* vz_index_inputs's map of prog */
    exdb_arena *arena;
    exdb_strmap srcs; /* source text -> index + 0 (1-based) */
    uint32_t nsrcs;
    exdb_buf tmp, srcbuf;
    int oom;
} vz_noderec;

/* Starts r (its strings in arena, which outlives it). */
void vz_noderec_init(vz_noderec *r, const exdb_program *p, const exdb_strmap *inputs,
                     exdb_arena *arena);
void vz_noderec_free(vz_noderec *r);

/* Appends ["kind", name, "target", "value", "node text", source index,
 * fill, "named args" of n to b, without the closing bracket (the caller
 * adds its own fields): name, when not NULL, replaces n's (a view's node
 * name), fill when not NULL n's own (placeholders by input kind, else by
 * op). Named args as print node's `named:` line ("input=%x, stride=[2,
 * 2]"; "" when the file names none); the source (the stack trace's user and
 * innermost lines) is an index into the page's source table. */
void vz_noderec_put(vz_noderec *r, exdb_buf *b, const exdb_node *n, const char *kind,
                    const char *name, const char *fill);

/* The index of text (len bytes, NUL-ended) in the page's string table, the
 * source table (0 for ""): each text is written once however many nodes
 * share it. */
uint32_t vz_noderec_intern(vz_noderec *r, const char *text, size_t len);

/* The source table as <script id="srcs">["", "source:\n  File ...", ...]
 * (index 0: none). */
void vz_noderec_put_sources(vz_noderec *r, FILE *f, exdb_buf *b);

/* Each node's line of `print code` (GraphModule.code of g, exdb_python_code)
 * as <script id="code">{"name": "convolution = torch.ops.aten...(...)", ...}:
 * the panel's "print code" line, parsed when a panel first shows one. Not
 * for a graph over VZ_CODE_NODES nodes: the 100k synthetic program's
 * 141k lines made its flat page 13 MB bigger and its first screen 20%
 * slower. */
#define VZ_CODE_NODES 20000
void vz_noderec_put_code(vz_noderec *r, FILE *f, exdb_buf *b, const exdb_graph *g);

/* b's JSON text into a <script> element: '<' as \u003c, so that no text
 * ends the element (every page's data). */
void vz_put_script_json(FILE *f, const exdb_buf *b);

#endif
