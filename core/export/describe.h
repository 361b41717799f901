/* describe.h - a program's signature as ExportGraphSignature.__str__ prints
 * it, and exdb's own summaries of a program, its call graph and a node. */
#ifndef EXDB_CORE_EXPORT_DESCRIBE_H
#define EXDB_CORE_EXPORT_DESCRIBE_H

#include "core/base/strbuf.h"
#include "core/export/program.h"

/* ExportGraphSignature.__str__ */
void exdb_print_signature(exdb_buf *b, const exdb_program *p);
/* exdb's own summaries. */
void exdb_print_program_info(exdb_buf *b, const exdb_program *p);
void exdb_print_call_graph(exdb_buf *b, const exdb_program *p);
/* The schema's names of n's positional args (meta arg_names), NULL when
 * the file did not name them all or n calls something else than the node
 * they were loaded for. */
const char *const *exdb_arg_names_of(const exdb_node *n);

/* lead, then n's positional args with the schema's names ("stride=[2, 2],
 * padding=[3, 3]"); nothing when the file did not name them all. */
void exdb_print_arg_names(exdb_buf *b, const exdb_node *n, const char *lead);

void exdb_print_node_info(exdb_buf *b, const exdb_program *p, const exdb_node *n);

#endif
