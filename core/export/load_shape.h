/* load_shape.h - the main graph's node counts read off the text, without
 * building the graph: what `info program` and the load line print of a
 * program opened shape first (program.h's exdb_program_open).
 *
 * Names: load_shape.c defines exdb_load_shape_* (load.h has the loader's
 * file names). */
#ifndef EXDB_CORE_EXPORT_LOAD_SHAPE_H
#define EXDB_CORE_EXPORT_LOAD_SHAPE_H

#include "core/export/load.h"

/* The main graph's nodes counted by the first pass as it delimits them:
 * a tally made with loader L (its file name, its program's text; the
 * tally counts in a loader of its own), told of each lazy element by
 * exdb_json_parse_lazy_hooked (exdb_load_shape_tally_hook as the hook's
 * fn, the tally as its ctx). The first skip nodes are not counted by it
 * (a program of fewer is not opened shape first: exdb_load_shape_graph
 * walks them after the first pass when it is). NULL when memory ran out. */
typedef struct exdb_load_shape_tally exdb_load_shape_tally;
exdb_load_shape_tally *exdb_load_shape_tally_new(const loader *L, uint32_t skip);
void exdb_load_shape_tally_hook(void *ctx, const char *key, uint32_t i, const exdb_json *e);
/* The text before what it returns may be given back (the first text of
 * the nodes not counted yet), or NULL: anything (the hook's held). */
const char *exdb_load_shape_tally_held(void *ctx);
/* Counts what is left: call it when the first pass is done, before
 * exdb_load_shape_graph reads the tally. */
void exdb_load_shape_tally_finish(exdb_load_shape_tally *t);
void exdb_load_shape_tally_free(exdb_load_shape_tally *t);

/* The node counts of graph jg (at gp) as exdb_load_graph would build it
 * (placeholders, one call_function per node and the getitems of its
 * outputs, a get_attr node per subgraph argument, the output node) into
 * *c, and the subgraphs (nested ones too) into L->prog->shape_nsubgraphs.
 * -1 when it cannot say for sure: the graph is not as a load would accept
 * it, or an as_graph is anywhere but a node's argument in the form the
 * load reads; the message in L->err then says nothing the load would.
 * The getitems are tally t's when it counted jg's nodes, else read off
 * the text again (t NULL, or a tally of another array). */
int exdb_load_shape_graph(loader *L, const exdb_json *jg, const jpath *gp,
                          const exdb_load_shape_tally *t, exdb_node_counts *c);

#endif
