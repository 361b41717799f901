/* facts.c - fingerprints of a loaded program for tests that compare exdb
 * with what Python's json module reads from the same file
 * (scripts/real_expect.py). */
#include <string.h>

#include "core/export/facts.h"

#include "core/base/sha1.h"
#include "core/format/schema.h"

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

void exdb_print_facts(exdb_buf *b, const exdb_program *p) {
    const char *base = strrchr(p->path, '/');
    base = base ? base + 1 : p->path;
    exdb_buf_printf(b, "file %s\nschema %d.%d\n", base, p->schema_major, p->schema_minor);
    exdb_buf_printf(b, "nodes %u\n", p->nserialized_nodes);
    exdb_buf_printf(b, "inputs %u\noutputs %u\n", p->ninputs, p->noutputs);
    /* kinds in first-appearance order */
    for (int which = 0; which < 2; which++) {
        exdb_buf_puts(b, which ? "output_kinds" : "input_kinds");
        int seen[8] = {0}, order[8], no = 0;
        uint32_t cnt[8] = {0};
        uint32_t n = which ? p->noutputs : p->ninputs;
        for (uint32_t i = 0; i < n; i++) {
            int k = which ? (int)p->outputs[i].kind : (int)p->inputs[i].kind;
            if (!seen[k]) {
                seen[k] = 1;
                order[no++] = k;
            }
            cnt[k]++;
        }
        for (int i = 0; i < no; i++)
            exdb_buf_printf(b, " %s=%u",
                            which ? exdb_output_kind_name((exdb_output_kind)order[i])
                                  : exdb_input_kind_name((exdb_input_kind)order[i]),
                            cnt[order[i]]);
        exdb_buf_putc(b, '\n');
    }
    exdb_buf_printf(b, "module_call_graph %u\n", p->ncalls);
}
