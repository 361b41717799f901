/* facts.h - fingerprints of a loaded program for tests that compare exdb
 * with what Python's json module reads from the same file
 * (scripts/real_expect.py). */
#ifndef EXDB_CORE_EXPORT_FACTS_H
#define EXDB_CORE_EXPORT_FACTS_H

#include "core/base/strbuf.h"
#include "core/export/program.h"

/* "node_names_sha1 HEX" of the serialized nodes' FX names. */
void exdb_print_name_digest(exdb_buf *b, const exdb_program *p);
/* The facts scripts/real_expect.py prints from Python's json, for the tests. */
void exdb_print_facts(exdb_buf *b, const exdb_program *p);

#endif
