/* load_path.h - JSON paths for the loader's messages
 * ("$.graph_module.graph.nodes[3].inputs[0].arg"), built on the C stack as
 * the loader descends and only formatted when an error is reported; and the
 * quoting of names inside messages.
 *
 * Names: the loader is split by what it loads (docs/pt2-format.md), one file
 * each: load_path.c (exdb_load_path_*), load_value.c (exdb_load_value_*),
 * load_meta.c (exdb_load_meta*), load_arg.c (exdb_load_arg*), load_node.c
 * (exdb_load_node*), load_graph.c (exdb_load_graph*), load_signature.c
 * (exdb_load_signature*, the module_call_graph too); any other exdb_load_*
 * name is load.c's (the loader's state, messages, text checks and typed
 * accessors); program.c is the top level (exdb_program_*, program.h). Each
 * load_X.h declares what load_X.c defines; they are private to core/export
 * (not libexdb's API). */
#ifndef EXDB_CORE_EXPORT_LOAD_PATH_H
#define EXDB_CORE_EXPORT_LOAD_PATH_H

#include <stddef.h>

typedef struct jpath {
    const struct jpath *up;
    const char *key; /* ".key" step, or NULL for an index step */
    long idx;
} jpath;

#define PKEY(parent, k) ((jpath){(parent), (k), -1})
#define PIDX(parent, i) ((jpath){(parent), NULL, (long)(i)})

enum { QS = 128 }; /* buffer size for exdb_load_path_qs() */

/* s[0..n) quoted for a message, bytes that are not text escaped too
 * (\u0000, \xNN). Returns out. */
const char *exdb_load_path_quote_raw(char *out, size_t cap, const char *s, size_t n);
/* A C string quoted for a message, cut to about 80 characters. Returns out. */
const char *exdb_load_path_qs(char *out, size_t cap, const char *s);
/* p as "$.a.b[3]" into buf. */
void exdb_load_path_fmt(const jpath *p, char *buf, size_t cap);

#endif
