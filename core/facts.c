/* facts.c - fingerprints of a loaded program for tests that compare exdb
 * with what Python's json module reads from the same file
 * (scripts/real_expect.py). */
#include <string.h>

#include "print.h"
#include "sha1.h"

/* "node_names_sha1 HEX": SHA-1 of the FX names of the serialized nodes,
 * newline-joined, in graph order. A serialized node's FX node is the first
 * one rebuilt from it (its getitems follow it and share its src index). */
void exdb_print_name_digest(exdb_buf *b, const exdb_program *p) {
    exdb_sha1 s;
    exdb_sha1_init(&s);
    int32_t last = -1;
    int first = 1;
    for (const exdb_node *n = p->graph->head; n; n = n->next) {
        if (n->src < 0 || n->src == last)
            continue;
        last = n->src;
        if (!first)
            exdb_sha1_update(&s, "\n", 1);
        exdb_sha1_update(&s, n->name, strlen(n->name));
        first = 0;
    }
    char hex[41];
    exdb_sha1_hex(&s, hex);
    exdb_buf_printf(b, "node_names_sha1 %s\n", hex);
}
