/* diff_data.c - the diff of `render diff -o FILE.html`: the module view
 * page (html_tree.c) of the other program B, with the diff as JSON for its
 * script (viz/viewer/modpage.js) to colour: {"a": A's path, "b": B's,
 * "n": {B's node: ["+"] added, or ["~", "args value", A's node as FX
 * prints it] changed}, "rm": {module path in A: [A's removed nodes]}}.
 * The page folds unchanged modules (closed grey boxes) and colours the
 * others by what changed inside them, each expandable to its nodes. */
#include <stdio.h>
#include <string.h>

#include "core/export/diff.h"
#include "core/fx/print.h"
#include "viz/view.h"
#include "viz/noderec.h"
#include "viz/tree_data.h"
#include "viz/diff_data.h"

/* b's JSON into the page's <script> element, and b emptied for the next. */
static void put(FILE *f, exdb_buf *b) {
    vz_put_script_json(f, b);
    exdb_buf_reset(b);
}

/* "target args value": the EXDB_DIFF_* bits of what as words. */
static void what_words(exdb_buf *b, uint32_t what) {
    static const char *const words[] = {"name", "target", "args", "kwargs", "value", "module"};
    int first = 1;
    for (int i = 1; i < 6; i++)
        if (what & (1u << i)) {
            exdb_buf_printf(b, "%s%s", first ? "" : " ", words[i]);
            first = 0;
        }
}

/* The removed nodes of A grouped by their module path: one JSON member
 * per path, the paths in A's order of first removal. */
static void put_removed(FILE *f, exdb_buf *b, const exdb_program_diff *d, exdb_arena *a) {
    fputs(",\"rm\":{", f);
    int first_path = 1;
    for (uint32_t i = 0; i < d->nremoved; i++) {
        const char *path = exdb_diff_node_module(a, d->removed[i]);
        if (!path)
            continue;
        int seen = 0; /* grouped already under an earlier node of the same path */
        for (uint32_t j = 0; j < i && !seen; j++) {
            const char *pj = exdb_diff_node_module(a, d->removed[j]);
            seen = pj && strcmp(pj, path) == 0;
        }
        if (seen)
            continue;
        exdb_buf_puts(b, first_path ? "" : ",");
        first_path = 0;
        exdb_buf_json_str(b, path);
        exdb_buf_puts(b, ":[");
        for (uint32_t j = i, k = 0; j < d->nremoved; j++) {
            const char *pj = exdb_diff_node_module(a, d->removed[j]);
            if (!pj || strcmp(pj, path) != 0)
                continue;
            exdb_buf_puts(b, k++ ? "," : "");
            exdb_buf_json_str(b, d->removed[j]->name);
        }
        exdb_buf_putc(b, ']');
        put(f, b);
    }
    fputc('}', f);
}

int vz_write_diff_data(FILE *f, const exdb_program_diff *d, exdb_error *err) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_arena a;
    exdb_arena_init(&a);
    fputs("<script type=\"application/json\" id=\"diff\">{\"a\":", f);
    exdb_buf_json_str(&b, d->a && d->a->path ? d->a->path : "A");
    exdb_buf_puts(&b, ",\"b\":");
    exdb_buf_json_str(&b, d->b && d->b->path ? d->b->path : "B");
    exdb_buf_puts(&b, ",\"n\":{");
    put(f, &b);
    int first = 1;
    for (uint32_t i = 0; i < d->nadded; i++) {
        exdb_buf_puts(&b, first ? "" : ",");
        first = 0;
        exdb_buf_json_str(&b, d->added[i]->name);
        exdb_buf_puts(&b, ":[\"+\"]");
        put(f, &b);
    }
    exdb_buf t;
    exdb_buf_init(&t);
    for (uint32_t i = 0; i < d->nchanged; i++) {
        const exdb_diff_pair *c = &d->changed[i];
        exdb_buf_puts(&b, first ? "" : ",");
        first = 0;
        exdb_buf_json_str(&b, c->b->name);
        exdb_buf_puts(&b, ":[\"~\",");
        exdb_buf_reset(&t);
        what_words(&t, c->what);
        exdb_buf_json_str(&b, exdb_buf_str(&t));
        exdb_buf_putc(&b, ',');
        exdb_buf_reset(&t);
        exdb_format_node(&t, c->a);
        exdb_buf_json_str(&b, exdb_buf_str(&t));
        exdb_buf_putc(&b, ']');
        put(f, &b);
    }
    fputc('}', f);
    put_removed(f, &b, d, &a);
    fputs("}</script>\n", f);
    int oom = b.oom || t.oom;
    exdb_buf_free(&t);
    exdb_buf_free(&b);
    exdb_arena_destroy(&a);
    return oom || ferror(f) ? exdb_errorf(err, "render: could not write the diff (out of memory?)")
                            : 0;
}
