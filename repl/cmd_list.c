/* cmd_list.c - list (flat nodes around the cursor while outlining, the
 * later phases' decisions after it) and info events (see cmd_list.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "json_answers.h"
#include "core/fx/print.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/explain.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/phases.h"
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"
#include "cmd_list.h"
#include "cmd_unflatten.h"

/* ---- list: the flat nodes around the cursor */

/* The module a flat node runs in: its innermost nn_module_stack entry. */
static void node_module(exdb_buf *b, const exdb_node *n) {
    const exdb_meta *m = n->meta;
    if (!m || !m->has_stack || !m->nstack) {
        exdb_buf_puts(b, "-");
        return;
    }
    const exdb_stack_entry *e = &m->stack[m->nstack - 1];
    exdb_buf_puts(b, cmd_unflatten_label(e->path));
    if (e->call_idx)
        exdb_buf_printf(b, "@%d", e->call_idx);
}

static const char *node_what(const exdb_node *n) {
    if (n->op != EXDB_OP_CALL_FUNCTION)
        return exdb_op_name(n->op);
    return strncmp(n->target, "torch.ops.", 10) == 0 ? n->target + 10 : n->target;
}

/* Flat index of a node named by name or index, or -1 (error printed). */
static long flat_index(session *s, const exdb_unflatten *u, const char *word) {
    const exdb_urun *r = u->run;
    char *end;
    long v = strtol(word, &end, 10);
    if (*word && !*end) {
        if (v < 0 || (uint32_t)v >= r->nnodes)
            return cmd_fail(s, "No flat node %s (there are %u).", word, r->nnodes);
        return v;
    }
    const char *name = word[0] == '%' ? word + 1 : word;
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (strcmp(r->nodes[i]->name, name) == 0)
            return (long)i;
    return cmd_node_not_found(s, name);
}

/* ---- the later phases' decisions (list after outlining, info events) */

static int later_kind(int kind) {
    return kind != EXDB_EV_COPY && kind != EXDB_EV_ENTER && kind != EXDB_EV_EXIT;
}

/* The event kind a later phase's work items become, or -1. */
static int phase_event(int phase) {
    const exdb_phase *ph = exdb_phases_get(phase);
    return ph && ph->plan ? ph->event : -1;
}

/* The phases still ahead, in PyTorch's order, as "SINK, DEDUP, ...". */
static void phases_ahead(exdb_buf *b, const exdb_urun *r) {
    int n = 0;
    for (int p = EXDB_UPH_IVALS; p < EXDB_UPH_DONE; p++) {
        const exdb_phase *ph = exdb_phases_get(p);
        if (p > r->phase || (p == r->phase && (!ph->plan || !r->phase_started)))
            exdb_buf_printf(b, "%s%s", n++ ? ", " : "", ph->name);
    }
}

/* A pending work item of the current phase, as a decision to come: its
 * kind and subject, dimmed and lined up with the events' text (pad). */
static void pending_line(session *s, exdb_unflatten *u, const exdb_uwork *w, int pad, cJSON *o) {
    int ek = phase_event(u->run->phase);
    const char *kind = exdb_unflatten_event_kind_name(ek);
    const exdb_uentry *call = ek == EXDB_EV_DEDUP ? cmd_unflatten_dedup_call(u, w) : NULL;
    const char *name = call ? call->fqn : w->name ? w->name : "";
    if (ek == EXDB_EV_DISPATCH && !name[0])
        name = "(call indices elided)";
    exdb_buf_printf(&s->buf, "%*s%s%s %s", pad, "", cmd_color(s, C_DIM), kind,
                    cmd_unflatten_label(name));
    if (call)
        exdb_buf_printf(&s->buf, " call_idx=%d", call->call_idx);
    exdb_buf_puts(&s->buf, cmd_color(s, C_RESET));
    if (o) {
        cJSON_AddStringToObject(o, "kind", kind);
        cJSON_AddStringToObject(o, "subject", name);
        if (call)
            cJSON_AddNumberToObject(o, "call_idx", call->call_idx);
        cJSON_AddBoolToObject(o, "done", 0);
    }
}

/* list after outlining: the decisions of the later phases around the
 * cursor. Done ones are events ([K] ...); the cursor (=>) is the next
 * decision: the current phase's next work item, or the next phase. */
static int list_decisions(session *s, exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    uint32_t first = u->pos; /* the first later-phase event */
    while (first > 0 && later_kind(u->log[first - 1].kind))
        first--;
    uint32_t ndone = u->pos - first;
    uint32_t npend = r->phase_started && phase_event(r->phase) >= 0 && r->work_pos < r->nwork
                         ? r->nwork - r->work_pos
                         : 0;
    exdb_buf ahead;
    exdb_buf_init(&ahead);
    if (exdb_unflatten_done(u))
        exdb_buf_puts(&ahead, "(unflatten complete)");
    else
        phases_ahead(&ahead, r);
    /* pending lines line up with the events' text after "[K] " */
    int pad = snprintf(NULL, 0, "[%u] ", u->pos + 1);
    uint32_t nlines = ndone + npend + (ahead.len > 0);
    long size = s->listsize > 0 ? s->listsize : 10;
    long cursor = ndone, start;
    if (s->last_was_list && s->list_decisions && s->list_next >= 0) {
        start = s->list_next;
        if (start >= (long)nlines) {
            exdb_buf_free(&ahead);
            return cmd_fail(s, "Line number %ld out of range; there %s %u decision%s.", start,
                            nlines == 1 ? "is" : "are", nlines, cmd_s(nlines));
        }
    } else {
        start = cursor - (size - 1) / 2;
        if (start + size > (long)nlines)
            start = (long)nlines - size;
        if (start < 0)
            start = 0;
    }
    long end = start + size < (long)nlines ? start + size : (long)nlines;
    if (!(s->last_was_list && s->list_decisions)) /* a repeated list goes on without it */
        exdb_buf_printf(&s->buf,
                        "# later phases: outlining ended at event %u (\"list NODE\" lists flat "
                        "nodes)\n",
                        first);
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (long i = start; i < end; i++) {
        const char *mark = i == cursor ? "=>" : "  ";
        exdb_buf_printf(&s->buf, "%s%s%s ", cmd_color(s, C_GREEN), mark, cmd_color(s, C_RESET));
        cJSON *o = arr ? cJSON_CreateObject() : NULL;
        if (i < (long)ndone) {
            uint32_t k = first + (uint32_t)i + 1;
            cmd_unflatten_event_text(s, &s->buf, u, k, &u->log[k - 1]);
            if (o) {
                cJSON_Delete(o);
                o = cmd_unflatten_event_json(s, u, k, &u->log[k - 1]);
                cJSON_AddBoolToObject(o, "done", 1);
            }
        } else if (i < (long)(ndone + npend)) {
            pending_line(s, u, &r->work[r->work_pos + (uint32_t)(i - (long)ndone)], pad, o);
        } else {
            exdb_buf_printf(&s->buf, "%*s%s%s%s%s", pad, "", cmd_color(s, C_DIM),
                            exdb_unflatten_done(u) ? "" : "then: ", exdb_buf_str(&ahead),
                            cmd_color(s, C_RESET));
            if (o) {
                cJSON_AddStringToObject(o, "kind", exdb_unflatten_done(u) ? "END" : "PHASES");
                cJSON_AddStringToObject(o, "subject", exdb_buf_str(&ahead));
                cJSON_AddBoolToObject(o, "done", 0);
            }
        }
        if (o) {
            cJSON_AddBoolToObject(o, "cursor", i == cursor);
            cJSON_AddItemToArray(arr, o);
        }
        exdb_buf_putc(&s->buf, '\n');
    }
    if (nlines == 0)
        exdb_buf_puts(&s->buf, "(no decisions)\n");
    exdb_buf_free(&ahead);
    s->list_next = end;
    s->list_decisions = 1;
    cmd_flush(s, 1);
    cmd_json_add(s, "decisions", arr);
    return 0;
}

/* Reads "A-B", "A-", "-B" or "A" into [*a, *b]; 0, or -1 (not a range). */
static int parse_range(const char *w, uint32_t *a, uint32_t *b) {
    char *end;
    const char *dash = strchr(w, '-');
    if (!*w || (!dash && (*w < '0' || *w > '9')))
        return -1;
    if (!dash) {
        long v = strtol(w, &end, 10);
        if (*end || v < 0)
            return -1;
        *a = *b = (uint32_t)v;
        return 0;
    }
    *a = 1;
    *b = UINT32_MAX;
    if (dash != w) {
        long v = strtol(w, &end, 10);
        if (end != dash || v < 0)
            return -1;
        *a = (uint32_t)v;
    }
    if (dash[1]) {
        long v = strtol(dash + 1, &end, 10);
        if (*end || v < 0)
            return -1;
        *b = (uint32_t)v;
    }
    return 0;
}

/* info events [A-B] [KIND|later]: the event log up to the cursor. */
int cmd_list_info_events(session *s, exdb_unflatten *u, int argc, char **argv) {
    uint32_t a = 1, b = UINT32_MAX;
    int kind = -1, later = 0;
    for (int i = 1; i < argc; i++) {
        if (parse_range(argv[i], &a, &b) == 0)
            continue;
        if (strcasecmp(argv[i], "later") == 0) {
            later = 1;
            continue;
        }
        kind = -1;
        for (int k = 0; k <= EXDB_EV_DONE; k++)
            if (strcasecmp(argv[i], exdb_unflatten_event_kind_name(k)) == 0)
                kind = k;
        if (kind < 0)
            return cmd_fail(s,
                            "info events: expected a range (A-B, A-, -B, K), \"later\" or an event "
                            "kind (copy, enter, exit, ival, attrs, state, sink, dedup, dispatch, "
                            "reorder, done), found \"%s\".",
                            argv[i]);
    }
    if (a == 0)
        a = 1;
    uint32_t last = b < u->pos ? b : u->pos, n = 0;
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t k = a; k <= last; k++) {
        const exdb_uevent *e = &u->log[k - 1];
        if ((kind >= 0 && e->kind != kind) || (later && !later_kind(e->kind)))
            continue;
        cmd_unflatten_event_text(s, &s->buf, u, k, e);
        exdb_buf_putc(&s->buf, '\n');
        if (arr)
            cJSON_AddItemToArray(arr, cmd_unflatten_event_json(s, u, k, e));
        n++;
    }
    if (!n)
        exdb_buf_printf(&s->buf, "No events%s up to the cursor (event %u).\n",
                        kind >= 0 || later || a > 1 || b < UINT32_MAX ? " match" : "", u->pos);
    if (u->nlog > u->pos && b > u->pos)
        exdb_buf_printf(&s->buf,
                        "(events %u-%u were reached before going back: \"goto %u\" replays them)\n",
                        u->pos + 1, u->nlog, u->nlog);
    cmd_flush(s, 1);
    cmd_json_add(s, "events", arr);
    return 0;
}

int cmd_list(session *s, int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "source") == 0)
        return cmd_source_list(s, argc - 1, argv + 1);
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (!u)
        return -1;
    const exdb_urun *r = u->run;
    int outlining = r->phase <= EXDB_UPH_OUTER_OUTPUT;
    if (!outlining && argc == 1)
        return list_decisions(s, u);
    s->list_decisions = 0;
    long cursor = outlining ? (long)r->idx : -1, start;
    long size = s->listsize > 0 ? s->listsize : 10;
    if (argc > 1) {
        long at = flat_index(s, u, argv[1]);
        if (at < 0)
            return -1;
        start = at - (size - 1) / 2;
    } else if (s->last_was_list && s->list_next >= 0 && !s->list_decisions) {
        start = s->list_next;
    } else {
        start = (cursor >= 0 ? cursor : (long)r->nnodes) - (size - 1) / 2;
    }
    if (start + size > (long)r->nnodes)
        start = (long)r->nnodes - size;
    if (start < 0)
        start = 0;
    if (s->last_was_list && argc == 1 && s->list_next >= (long)r->nnodes)
        return cmd_fail(s, "Line number %ld out of range; the flat graph has %u node%s.",
                        s->list_next, r->nnodes, cmd_s(r->nnodes));
    long end = start + size < (long)r->nnodes ? start + size : (long)r->nnodes;
    int32_t *fr = cmd_frames_copy(u);
    if (!fr)
        return cmd_fail(s, "out of memory");
    int wn = 4, ww = 4;
    exdb_buf mod;
    exdb_buf_init(&mod);
    for (long i = start; i < end; i++) {
        int l = (int)strlen(r->nodes[i]->name) + 1, t = (int)strlen(node_what(r->nodes[i]));
        wn = l > wn ? l : wn;
        ww = t > ww ? t : ww;
    }
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (long i = start; i < end; i++) {
        const exdb_node *n = r->nodes[i];
        int done = r->seen[n->id] != 0;
        const exdb_uframe *f = cmd_unflatten_frame_by_index(u, fr[i]);
        exdb_buf_reset(&mod);
        node_module(&mod, n);
        const char *mark = i == cursor ? "=>" : "  ";
        exdb_buf_printf(&s->buf, "%s%s%s %5ld  %-6s  %%%-*s  %-*s  %s", cmd_color(s, C_GREEN), mark,
                        cmd_color(s, C_RESET), i, done ? "copied" : "", wn - 1, n->name, ww,
                        node_what(n), exdb_buf_str(&mod));
        if (done && f && n->meta && n->meta->nstack &&
            strcmp(cmd_unflatten_label(f->child_fqn), exdb_buf_str(&mod)) != 0)
            exdb_buf_printf(&s->buf, "  (into %s)", cmd_unflatten_label(f->child_fqn));
        exdb_buf_putc(&s->buf, '\n');
        if (arr) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "index", (double)i);
            cJSON_AddStringToObject(o, "node", n->name);
            cJSON_AddStringToObject(o, "what", node_what(n));
            cJSON_AddStringToObject(o, "module", exdb_buf_str(&mod));
            cJSON_AddBoolToObject(o, "copied", done);
            cJSON_AddBoolToObject(o, "cursor", i == cursor);
            if (done && f)
                cJSON_AddStringToObject(o, "frame", f->child_fqn ? f->child_fqn : "");
            cJSON_AddItemToArray(arr, o);
        }
    }
    exdb_buf_free(&mod);
    free(fr);
    s->list_next = end;
    cmd_flush(s, 1);
    cmd_json_add(s, "nodes", arr);
    return 0;
}
