/* run_data.c - the outliner replayed in the module view page: `render run
 * -o FILE.html`. Every event of a finished unflatten run as JSON for the
 * page's timeline (viz/viewer/modpage.js): [kind, "the event as `step`
 * prints it", "explain's summary", flat node name or "", frame fqn (ENTER,
 * EXIT, COPY) or the module a later-phase event worked on, or ""]. */
#include <stdio.h>
#include <string.h>

#include "core/unflatten/describe.h"
#include "core/unflatten/explain.h"
#include "core/unflatten/unflatten.h"
#include "viz/view.h"
#include "viz/noderec.h"
#include "viz/tree_data.h"
#include "viz/run_data.h"

/* b's JSON into the page's <script> element, and b emptied for the next. */
static void put(FILE *f, exdb_buf *b) {
    vz_put_script_json(f, b);
    exdb_buf_reset(b);
}

/* The module an event is about: its frame's fqn, or its work item's. */
static const char *event_module(const exdb_unflatten *u, const exdb_uevent *ev, char *buf,
                                size_t size) {
    const exdb_urun *r = u->run;
    if (ev->frame >= 0 && (uint32_t)ev->frame < r->nframes)
        return exdb_urun_frame_name(r->frames[ev->frame]);
    const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
    /* DEDUP: the call it redirected ("fqn@N" for call_idx N + 1, as
     * nn_module_stack names it) */
    if (w && ev->kind == EXDB_EV_DEDUP && w->a >= 0 && (uint32_t)w->a < r->nparts && w->b >= 0 &&
        (uint32_t)w->b < r->parts[w->a].n) {
        const exdb_uentry *en = &r->parts[w->a].entries[w->b];
        if (en->fqn && en->call_idx > 1) {
            snprintf(buf, size, "%s@%d", en->fqn, en->call_idx - 1);
            return buf;
        }
        return en->fqn ? en->fqn : "";
    }
    return w && w->name ? w->name : "";
}

int vz_write_run_data(FILE *f, const exdb_unflatten *u, exdb_error *err) {
    exdb_buf b, t;
    exdb_buf_init(&b);
    exdb_buf_init(&t);
    const exdb_urun *r = u->run;
    fputs("<script type=\"application/json\" id=\"run\">[", f);
    for (uint32_t i = 0; i < u->nlog && i < u->pos; i++) {
        const exdb_uevent *ev = &u->log[i];
        exdb_buf_printf(&b, "%s[", i ? "," : "");
        exdb_buf_json_str(&b, exdb_unflatten_event_kind_name(ev->kind));
        exdb_buf_putc(&b, ',');
        exdb_buf_reset(&t);
        exdb_unflatten_describe(&t, u, ev);
        exdb_buf_json_str(&b, exdb_buf_str(&t));
        exdb_buf_putc(&b, ',');
        exdb_buf_reset(&t);
        exdb_explain_summary(&t, u, ev);
        exdb_buf_json_str(&b, exdb_buf_str(&t));
        exdb_buf_putc(&b, ',');
        const exdb_node *n =
            ev->flat >= 0 && (uint32_t)ev->flat < r->nnodes ? r->nodes[ev->flat] : NULL;
        exdb_buf_json_str(&b, n ? n->name : "");
        exdb_buf_putc(&b, ',');
        char buf[512];
        const char *m = event_module(u, ev, buf, sizeof buf);
        exdb_buf_json_str(&b, m ? m : "");
        exdb_buf_putc(&b, ']');
        put(f, &b);
    }
    fputs("]</script>\n", f);
    int oom = b.oom || t.oom;
    exdb_buf_free(&b);
    exdb_buf_free(&t);
    return oom || ferror(f) ? exdb_errorf(err, "render: could not write the run (out of memory?)")
                            : 0;
}
