/* cmd_break_check.c - whether an event of the unflatten run stops it at a
 * breakpoint or watchpoint (cmd_break_check, after every event a moving
 * command applies: cmd_unflatten.c's drive), the watchpoints' memory of
 * the mappings that exist (cmd_break_arm), and the commands of the
 * breakpoints the last stop was at. */
#include <stdlib.h>
#include <string.h>

#include "breakpoint.h"
#include "core/unflatten/describe.h"

static int has_frame(const bp *b, uint32_t index) {
    for (uint32_t i = 0; i < b->nframes; i++)
        if (b->frames[i] == index)
            return 1;
    return 0;
}

static void add_frame(bp *b, uint32_t index) {
    if (b->nframes == b->frames_cap) {
        uint32_t ncap = b->frames_cap ? b->frames_cap * 2 : 8;
        uint32_t *nf = realloc(b->frames, ncap * sizeof *nf);
        if (!nf)
            return;
        b->frames = nf;
        b->frames_cap = ncap;
    }
    b->frames[b->nframes++] = index;
}

static int maps(const exdb_uframe *f, const exdb_node *n) {
    return exdb_unflatten_mapped(&f->node_map, n) ||
           exdb_unflatten_mapped(&f->node_to_placeholder, n);
}

void cmd_break_arm(session *s, const exdb_unflatten *u) {
    exdb_bptable *t = s->bps;
    if (!t)
        return;
    const exdb_urun *r = u->run;
    t->armed = r;
    for (uint32_t i = 0; i < t->n; i++) {
        bp *b = &t->v[i];
        if (b->kind != BP_WATCH)
            continue;
        b->nframes = 0;
        b->node = exdb_graph_find(r->flat, b->arg);
        if (!b->node)
            continue;
        for (uint32_t k = 0; k < r->nframes; k++)
            if (maps(r->frames[k], b->node))
                add_frame(b, k);
    }
}

/* A watchpoint: a frame touched by the event that maps the node anew. */
static const exdb_uframe *watch_hit(bp *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_urun *r = u->run;
    if (!b->node || ev->frame < 0 || (uint32_t)ev->frame >= r->nframes)
        return NULL;
    const exdb_uframe *cand[2] = {r->frames[ev->frame], r->frames[ev->frame]->parent};
    for (int i = 0; i < 2; i++)
        if (cand[i] && !has_frame(b, cand[i]->index) && maps(cand[i], b->node))
            return cand[i];
    return NULL;
}

/* The first line of a breakpoint's commands is `silent`: its stop is not
 * announced (gdb's). */
static int is_silent(const bp *b) {
    return b->commands && strncmp(b->commands, "silent\n", 7) == 0;
}

/* A breakpoint stops the run: its commands are queued to run after the
 * command that moved (before a temporary breakpoint is deleted with
 * them); the stop is silent when every breakpoint stopping there is. */
static void note_stop(exdb_bptable *t, const bp *b, int first) {
    if (first) {
        free(t->pending);
        t->pending = NULL;
        t->silent = 1;
    }
    t->silent &= is_silent(b);
    const char *body = b->commands ? b->commands + (is_silent(b) ? 7 : 0) : "";
    if (!*body)
        return;
    size_t have = t->pending ? strlen(t->pending) : 0, n = strlen(body);
    char *p = realloc(t->pending, have + n + 1);
    if (!p)
        return;
    memcpy(p + have, body, n + 1);
    t->pending = p;
}

/* break line FILE:LINE: a COPY of the first node of a run of nodes made at
 * that line (the flat node before it is not), so a line that makes ten
 * nodes stops once, and again when a later call runs it again. */
static int line_hit(const bp *b, const exdb_urun *r, const exdb_uevent *ev, const exdb_node *n) {
    if (ev->kind != EXDB_EV_COPY || !breakpoint_at_line(n, b->arg))
        return 0;
    return ev->flat == 0 || !breakpoint_at_line(r->nodes[ev->flat - 1], b->arg);
}

/* Whether event ev (in frame f, at flat node n, either NULL) is where b
 * stops, its condition aside. A watchpoint: *w is the frame mapping the
 * node anew, remembered there (a new mapping is reported once, even when
 * the watchpoint is disabled). */
static int bp_matches(bp *b, const exdb_unflatten *u, const exdb_uevent *ev, const exdb_uframe *f,
                      const exdb_node *n, const exdb_uframe **w) {
    switch (b->kind) {
    case BP_NODE:
        return ev->kind == EXDB_EV_COPY && n && strcmp(n->name, b->arg) == 0;
    case BP_ENTER:
        return ev->kind == EXDB_EV_ENTER && breakpoint_module_matches(b->arg, f);
    case BP_EXIT:
        return ev->kind == EXDB_EV_EXIT && breakpoint_module_matches(b->arg, f);
    case BP_OP:
        return ev->kind == EXDB_EV_COPY && n && n->op == EXDB_OP_CALL_FUNCTION &&
               breakpoint_op_matches(b->arg, n->target);
    case BP_EVENT:
        return ev->kind == b->event_kind;
    case BP_LINE:
        return line_hit(b, u->run, ev, n);
    case BP_WATCH:
        *w = watch_hit(b, u, ev);
        if (*w)
            add_frame(b, (*w)->index);
        return *w != NULL;
    }
    return 0;
}

/* Names a breakpoint that stops the run in why ("Temporary breakpoint 2",
 * "Watchpoint 3: node-map %x"), a watchpoint's new mapping (in frame w)
 * in details. */
static void name_stop(const bp *b, const exdb_uframe *w, exdb_buf *why, exdb_buf *details) {
    if (b->kind != BP_WATCH) {
        exdb_buf_printf(why, "%sreakpoint %d", b->temporary ? "Temporary b" : "B", b->num);
        return;
    }
    const exdb_node *to = exdb_unflatten_mapped(&w->node_map, b->node);
    int ph = !to;
    if (!to)
        to = exdb_unflatten_mapped(&w->node_to_placeholder, b->node);
    exdb_buf_printf(why, "Watchpoint %d: node-map %%%s", b->num, b->arg);
    exdb_buf_printf(details, "  %s[%%%s] = %%%s in %s\n", ph ? "node_to_placeholder" : "node_map",
                    b->arg, to ? to->name : "?",
                    w->child_fqn && w->child_fqn[0] ? w->child_fqn : "<root>");
}

/* Every breakpoint is tested (so each watchpoint sees every new mapping
 * once, whatever else stops the run there); all that hit are named, gdb
 * style: "Breakpoint 2, Watchpoint 3: node-map %x" and the watchpoints'
 * details on the following lines. */
int cmd_break_check(session *s, const exdb_unflatten *u, const exdb_uevent *ev, int count,
                    exdb_buf *why) {
    exdb_bptable *t = s->bps;
    if (!t || !t->n)
        return 0;
    if (t->armed != u->run)
        cmd_break_arm(s, u);
    const exdb_urun *r = u->run;
    const exdb_uframe *f =
        ev->frame >= 0 && (uint32_t)ev->frame < r->nframes ? r->frames[ev->frame] : NULL;
    const exdb_node *n =
        ev->flat >= 0 && (uint32_t)ev->flat < r->nnodes ? r->nodes[ev->flat] : NULL;
    int first = 0, momentary = 0;
    exdb_buf details;
    exdb_buf_init(&details);
    for (uint32_t i = 0; i < t->n; i++) {
        bp *b = &t->v[i];
        const exdb_uframe *w = NULL;
        if (!bp_matches(b, u, ev, f, n, &w) || !b->enabled || !breakpoint_cond_holds(b, u, ev))
            continue;
        if (b->momentary) {
            /* until LOCATION: where the event happens, the frame copying a
             * node or creating a child frame, must not be deeper */
            uint32_t home = ev->depth - (ev->kind == EXDB_EV_ENTER && ev->depth);
            if (!b->max_depth || home <= b->max_depth)
                momentary = 1;
            continue;
        }
        if (b->ignore) { /* gdb: a crossing ignored still counts as a hit */
            if (count) {
                b->hits++;
                b->ignore--;
            }
            continue;
        }
        note_stop(t, b, !first);
        if (!first)
            first = b->num;
        else
            exdb_buf_puts(why, ", ");
        name_stop(b, w, why, &details);
        if (count) {
            b->hits++;
            if (b->temporary) {
                breakpoint_clear(b);
                memmove(b, b + 1, (t->n - i - 1) * sizeof *b);
                t->n--;
                i--;
            }
        }
    }
    if (details.len) {
        exdb_buf_putc(why, '\n');
        exdb_buf_puts(why, exdb_buf_str(&details));
    }
    exdb_buf_free(&details);
    return first ? first : momentary ? -1 : 0;
}

void cmd_break_begin_command(session *s) {
    if (!s->bps)
        return;
    free(s->bps->pending);
    s->bps->pending = NULL;
    s->bps->silent = 0;
}

char *cmd_break_take_commands(session *s) {
    if (!s->bps)
        return NULL;
    char *p = s->bps->pending;
    s->bps->pending = NULL;
    return p;
}

int cmd_break_silent(const session *s) {
    return s->bps && s->bps->silent;
}
