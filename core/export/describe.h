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
void exdb_print_node_info(exdb_buf *b, const exdb_program *p, const exdb_node *n);

#endif
