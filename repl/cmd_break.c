/* cmd_break.c - breakpoints and watchpoints on the unflatten run, as gdb's.
 *
 * A breakpoint is tested after every event a moving command applies
 * (cmd_unflatten.c's drive): a flat node copied, a module frame entered or
 * exited, a node whose target matches a glob copied, an event of a kind;
 * a watchpoint fires when a flat node gets a new entry in some frame's
 * node_map or node_to_placeholder. Each may carry a condition on the event
 * ("if call == 2", "if fqn ~ encoder.*"). The table lives in the session,
 * so a fresh session (the fuzz harness makes one per input) starts empty. */
#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "core/export/program.h"
#include "core/fx/stacktrace.h"
#include "core/unflatten/unflatten.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/unodemap.h"

typedef enum { BP_NODE, BP_ENTER, BP_EXIT, BP_OP, BP_EVENT, BP_WATCH, BP_LINE } bp_kind;

/* A condition "VAR OP VALUE" on the event that would stop the run. */
typedef enum { V_CALL, V_DEPTH, V_STEP, V_EVENT, V_FQN, V_NODE, V_TARGET } cond_var;
typedef enum { O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE, O_GLOB } cond_op;

typedef struct bp {
    int num;
    bp_kind kind;
    char *arg; /* node name, fqn or op glob; event kind name */
    int event_kind;
    int enabled, temporary;
    int momentary;      /* until/advance's location: no number, gone after the command */
    uint32_t max_depth; /* momentary: only in frames this deep or shallower (0: any) */
    uint32_t hits;
    uint32_t ignore; /* `ignore N COUNT`: crossings still to pass without stopping */
    char *commands;  /* `commands N`: lines run when it stops ('\n' after each), or NULL */
    char *cond;      /* its text, NULL when none */
    cond_var var;
    cond_op op;
    char *value;
    long number;
    /* watch: the frames (by index) already mapping the node */
    exdb_node *node;
    uint32_t *frames, nframes, frames_cap;
} bp;

typedef struct exdb_bptable {
    bp *v;
    uint32_t n, cap;
    int next_num;
    const void *armed; /* the run the watchpoints were armed on */
    /* the last stop at breakpoints: their commands (the `silent` lines
     * left out), run after the command that stopped; whether every one of
     * them is silent */
    char *pending;
    int silent;
} exdb_bptable;

static const char *const kind_words[] = {"node",  "enter",    "exit", "op",
                                         "event", "node-map", "line"};

static void bp_clear(bp *b) {
    free(b->commands);
    free(b->arg);
    free(b->cond);
    free(b->value);
    free(b->frames);
}

void cmd_break_free(session *s) {
    exdb_bptable *t = s->bps;
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++)
        bp_clear(&t->v[i]);
    free(t->v);
    free(t->pending);
    free(t);
    s->bps = NULL;
}

static exdb_bptable *table(session *s) {
    if (!s->bps)
        s->bps = calloc(1, sizeof *s->bps);
    return s->bps;
}

/* ---- conditions */

static const char *const var_names[] = {"call", "depth", "step",   "event",
                                        "fqn",  "node",  "target", NULL};
static const char *const op_names[] = {"==", "!=", "<", "<=", ">", ">=", "~", NULL};

/* Parses "VAR OP VALUE" from words into b; -1 after an error. */
static int parse_cond(session *s, bp *b, int argc, char **argv) {
    if (argc != 3)
        return cmd_fail(s, "A condition is VAR OP VALUE: VAR one of call, depth, step, event, "
                           "fqn, node, target; OP one of == != < <= > >= ~ (glob).");
    int v = -1, o = -1;
    for (int i = 0; var_names[i]; i++)
        if (strcmp(argv[0], var_names[i]) == 0)
            v = i;
    for (int i = 0; op_names[i]; i++)
        if (strcmp(argv[1], op_names[i]) == 0)
            o = i;
    if (v < 0)
        return cmd_fail(s,
                        "Unknown condition variable \"%s\": expected call, depth, step, event, "
                        "fqn, node or target.",
                        argv[0]);
    if (o < 0)
        return cmd_fail(s, "Unknown comparison \"%s\": expected == != < <= > >= or ~.", argv[1]);
    int numeric = v <= V_EVENT;
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (numeric && (o == O_GLOB || !*argv[2] || *end))
        return cmd_fail(s, "\"%s\" compares with a number (==, !=, <, <=, >, >=).", argv[0]);
    if (!numeric && o != O_EQ && o != O_NE && o != O_GLOB)
        return cmd_fail(s, "\"%s\" compares with ==, != or ~ (glob).", argv[0]);
    size_t len = strlen(argv[0]) + strlen(argv[1]) + strlen(argv[2]) + 3;
    char *text = malloc(len), *value = strdup(argv[2]);
    if (!text || !value) {
        free(text);
        free(value);
        return cmd_fail(s, "out of memory");
    }
    snprintf(text, len, "%s %s %s", argv[0], argv[1], argv[2]);
    free(b->cond);
    free(b->value);
    b->cond = text;
    b->value = value;
    b->var = (cond_var)v;
    b->op = (cond_op)o;
    b->number = n;
    return 0;
}

static int cmp_num(long a, cond_op op, long b) {
    switch (op) {
    case O_EQ:
        return a == b;
    case O_NE:
        return a != b;
    case O_LT:
        return a < b;
    case O_LE:
        return a <= b;
    case O_GT:
        return a > b;
    case O_GE:
        return a >= b;
    default:
        return 0;
    }
}

static int cond_holds(const bp *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    if (!b->cond)
        return 1;
    const exdb_urun *r = u->run;
    const exdb_uframe *f =
        ev->frame >= 0 && (uint32_t)ev->frame < r->nframes ? r->frames[ev->frame] : NULL;
    const exdb_node *n =
        ev->flat >= 0 && (uint32_t)ev->flat < r->nnodes ? r->nodes[ev->flat] : NULL;
    const char *str = NULL;
    switch (b->var) {
    case V_CALL:
        return f && cmp_num(f->num_calls + 1, b->op, b->number);
    case V_DEPTH:
        return cmp_num((long)ev->depth, b->op, b->number);
    case V_STEP:
        return ev->flat >= 0 && cmp_num(ev->flat, b->op, b->number);
    case V_EVENT:
        return cmp_num((long)u->pos, b->op, b->number);
    case V_FQN:
        str = f ? (f->child_fqn ? f->child_fqn : "") : NULL;
        break;
    case V_NODE:
        str = n ? n->name : NULL;
        break;
    case V_TARGET:
        str = n ? n->target : NULL;
        break;
    }
    if (!str)
        return 0;
    if (b->op == O_GLOB)
        return fnmatch(b->value, str, 0) == 0;
    return (strcmp(str, b->value) == 0) == (b->op == O_EQ);
}

/* ---- matching */

/* A module glob against a frame: "a.b" matches every call of a.b, "a.b@1"
 * only its second call. */
static int module_matches(const char *pattern, const exdb_uframe *f) {
    if (!f || !f->child_fqn)
        return 0;
    if (fnmatch(pattern, f->child_fqn, 0) == 0)
        return 1;
    return !strchr(pattern, '@') && f->fqn && fnmatch(pattern, f->fqn, 0) == 0;
}

/* An op glob against a target as FX prints it, with or without torch.ops. */
static int op_matches(const char *pattern, const char *target) {
    if (!target)
        return 0;
    if (fnmatch(pattern, target, 0) == 0)
        return 1;
    return strncmp(target, "torch.ops.", 10) == 0 && fnmatch(pattern, target + 10, 0) == 0;
}

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
    return exdb_unodemap_get(&f->node_map, n) || exdb_unodemap_get(&f->node_to_placeholder, n);
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

/* Whether a node's stack trace passes through the FILE:LINE of spec. */
static int node_at_line(const exdb_node *n, const char *spec) {
    size_t flen;
    uint32_t line;
    return n && n->meta && n->meta->stack_trace &&
           exdb_stack_parse_location(spec, &flen, &line) == 0 &&
           exdb_stack_at(n->meta->stack_trace, spec, flen, line);
}

/* break line FILE:LINE: a COPY of the first node of a run of nodes made at
 * that line (the flat node before it is not), so a line that makes ten
 * nodes stops once, and again when a later call runs it again. */
static int line_hit(const bp *b, const exdb_urun *r, const exdb_uevent *ev, const exdb_node *n) {
    if (ev->kind != EXDB_EV_COPY || !node_at_line(n, b->arg))
        return 0;
    return ev->flat == 0 || !node_at_line(r->nodes[ev->flat - 1], b->arg);
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
        int match = 0;
        switch (b->kind) {
        case BP_NODE:
            match = ev->kind == EXDB_EV_COPY && n && strcmp(n->name, b->arg) == 0;
            break;
        case BP_ENTER:
            match = ev->kind == EXDB_EV_ENTER && module_matches(b->arg, f);
            break;
        case BP_EXIT:
            match = ev->kind == EXDB_EV_EXIT && module_matches(b->arg, f);
            break;
        case BP_OP:
            match = ev->kind == EXDB_EV_COPY && n && n->op == EXDB_OP_CALL_FUNCTION &&
                    op_matches(b->arg, n->target);
            break;
        case BP_EVENT:
            match = ev->kind == b->event_kind;
            break;
        case BP_LINE:
            match = line_hit(b, r, ev, n);
            break;
        case BP_WATCH:
            w = watch_hit(b, u, ev);
            if (w) /* a new mapping is reported once, even when disabled */
                add_frame(b, w->index);
            match = w != NULL;
            break;
        }
        if (!match || !b->enabled || !cond_holds(b, u, ev))
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
        if (b->kind == BP_WATCH) {
            const exdb_node *to = exdb_unodemap_get(&w->node_map, b->node);
            int ph = !to;
            if (!to)
                to = exdb_unodemap_get(&w->node_to_placeholder, b->node);
            exdb_buf_printf(why, "Watchpoint %d: node-map %%%s", b->num, b->arg);
            exdb_buf_printf(&details, "  %s[%%%s] = %%%s in %s\n",
                            ph ? "node_to_placeholder" : "node_map", b->arg, to ? to->name : "?",
                            w->child_fqn && w->child_fqn[0] ? w->child_fqn : "<root>");
        } else {
            exdb_buf_printf(why, "%sreakpoint %d", b->temporary ? "Temporary b" : "B", b->num);
        }
        if (count) {
            b->hits++;
            if (b->temporary) {
                bp_clear(b);
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

/* ---- commands */

/* "node %relu", "enter module encoder.*"... what a breakpoint stops on. */
static void describe(exdb_buf *o, const bp *b) {
    switch (b->kind) {
    case BP_NODE:
        exdb_buf_printf(o, "node %%%s", b->arg);
        break;
    case BP_ENTER:
        exdb_buf_printf(o, "enter module %s", b->arg);
        break;
    case BP_EXIT:
        exdb_buf_printf(o, "exit module %s", b->arg);
        break;
    case BP_OP:
        exdb_buf_printf(o, "op %s", b->arg);
        break;
    case BP_EVENT:
        exdb_buf_printf(o, "event %s", b->arg);
        break;
    case BP_WATCH:
        exdb_buf_printf(o, "node-map %%%s", b->arg);
        break;
    case BP_LINE:
        exdb_buf_printf(o, "line %s", b->arg);
        break;
    }
}

/* Does any module the program calls match the glob (the "@N" of a call
 * name aside)? */
static int module_exists(const exdb_program *p, const char *pattern) {
    char base[512];
    snprintf(base, sizeof base, "%s", pattern);
    char *at = strchr(base, '@');
    if (at)
        *at = '\0';
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (fnmatch(base, p->calls[i].fqn, 0) == 0)
            return 1;
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        if (n->meta)
            for (uint32_t k = 0; k < n->meta->nstack; k++)
                if (fnmatch(base, n->meta->stack[k].path, 0) == 0)
                    return 1;
    return 0;
}

/* Nodes are looked up in the graph the outliner walks: the flat graph
 * after unflatten's prepasses, which add the copy_ nodes of mutations. */
static int node_exists(session *s, const char *name) {
    if (exdb_graph_find(s->prog->graph, name))
        return 1;
    exdb_unflatten *u = cmd_unflatten_run(s);
    return u && exdb_graph_find(u->run->flat, name);
}

static int op_exists(session *s, const char *pattern) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    const exdb_graph *g = u ? u->run->flat : s->prog->graph;
    for (const exdb_node *n = g->head; n; n = n->next)
        if (n->op == EXDB_OP_CALL_FUNCTION && op_matches(pattern, n->target))
            return 1;
    return 0;
}

/* break line FILE:LINE: -1 after an error when it is no location or no
 * node's trace passes there. */
static int line_missing(session *s, const char *spec) {
    size_t flen;
    uint32_t line;
    if (exdb_stack_parse_location(spec, &flen, &line) < 0)
        return cmd_fail(
            s, "Expected FILE:LINE (a file suffix will do: resnet.py:92), found \"%s\".", spec);
    exdb_unflatten *u = cmd_unflatten_run(s);
    const exdb_graph *g = u ? u->run->flat : s->prog->graph;
    for (const exdb_node *n = g->head; n; n = n->next)
        if (node_at_line(n, spec))
            return 0;
    return cmd_fail(s, "No node's stack trace is at %s (\"info lines\" lists the lines).", spec);
}

/* break/tbreak/watch: the words after the command, up to "if". A
 * momentary breakpoint (until/advance) is silent and unnumbered. */
static int add_bp_ex(session *s, int temporary, int watch, int momentary, uint32_t max_depth,
                     int argc, char **argv) {
    int nwords = argc - 1, ifat = -1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "if") == 0) {
            ifat = i;
            nwords = i - 1;
            break;
        }
    bp b = {0};
    b.enabled = 1;
    b.temporary = temporary;
    b.momentary = momentary;
    b.max_depth = max_depth;
    const char *arg = NULL;
    if (watch) {
        if (nwords != 2 || strcmp(argv[1], "node-map") != 0)
            return cmd_fail(s, "Usage: watch node-map NODE [if COND]");
        b.kind = BP_WATCH;
        arg = argv[2];
    } else if (nwords == 1) {
        b.kind = BP_NODE;
        arg = argv[1];
    } else if (nwords == 2) {
        static const char *const kinds[] = {"module", "exit", "op", "event", "line", NULL};
        static const bp_kind kind_of[] = {BP_ENTER, BP_EXIT, BP_OP, BP_EVENT, BP_LINE};
        int k = cmd_pick(s, "break", argv[1], kinds);
        if (k < 0)
            return -1;
        b.kind = kind_of[k];
        arg = argv[2];
    } else {
        return cmd_fail(s,
                        momentary ? "Usage: %s NODE | module FQN | exit FQN | op GLOB | event "
                                    "KIND | line FILE:LINE | EVENT-NUMBER"
                                  : "Usage: break NODE | module FQN | exit FQN | op GLOB | "
                                    "event KIND | line FILE:LINE [if COND]",
                        argv[0]);
    }
    if ((b.kind == BP_NODE || b.kind == BP_WATCH) && arg[0] == '%')
        arg++;
    if (b.kind == BP_NODE || b.kind == BP_WATCH) {
        if (!node_exists(s, arg))
            return cmd_node_not_found(s, arg);
    } else if (b.kind == BP_ENTER || b.kind == BP_EXIT) {
        if (!module_exists(s->prog, arg))
            return cmd_fail(s, "No module matches \"%s\" (\"info module-call-graph\" lists them).",
                            arg);
    } else if (b.kind == BP_OP) {
        if (!op_exists(s, arg))
            return cmd_fail(s, "No node's target matches \"%s\" (e.g. aten.relu*, *conv*).", arg);
    } else if (b.kind == BP_LINE) {
        if (line_missing(s, arg) < 0)
            return -1;
    } else {
        b.event_kind = -1;
        for (int k = 0; k <= EXDB_EV_DONE; k++)
            if (strcasecmp(arg, exdb_unflatten_event_kind_name(k)) == 0)
                b.event_kind = k;
        if (b.event_kind < 0)
            return cmd_fail(s,
                            "Unknown event \"%s\": expected copy, enter, exit, ival, attrs, "
                            "state, sink, dedup, dispatch, reorder or done.",
                            arg);
    }
    if (ifat > 0 && parse_cond(s, &b, argc - ifat - 1, argv + ifat + 1) < 0)
        return -1;
    exdb_bptable *t = table(s);
    b.arg = strdup(arg);
    if (!t || !b.arg) {
        bp_clear(&b);
        return cmd_fail(s, "out of memory");
    }
    if (b.kind == BP_EVENT)
        for (char *c = b.arg; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    if (t->n == t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : 8;
        bp *nv = realloc(t->v, ncap * sizeof *nv);
        if (!nv) {
            bp_clear(&b);
            return cmd_fail(s, "out of memory");
        }
        t->v = nv;
        t->cap = ncap;
    }
    b.num = momentary ? 0 : ++t->next_num;
    t->v[t->n++] = b;
    t->armed = NULL; /* a new watchpoint arms at the next move */
    if (momentary)
        return 0;
    exdb_buf_printf(&s->buf, "%s %d: ",
                    watch       ? "Watchpoint"
                    : temporary ? "Temporary breakpoint"
                                : "Breakpoint",
                    b.num);
    describe(&s->buf, &b);
    if (b.cond)
        exdb_buf_printf(&s->buf, " if %s", b.cond);
    cmd_flush(s, 1);
    cmd_json_add(s, "number", cJSON_CreateNumber(b.num));
    return 0;
}

static int add_bp(session *s, int temporary, int watch, int argc, char **argv) {
    return add_bp_ex(s, temporary, watch, 0, 0, argc, argv);
}

int cmd_break_add(session *s, int temporary, int argc, char **argv) {
    return add_bp(s, temporary, 0, argc, argv);
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

int cmd_break_momentary(session *s, uint32_t max_depth, int argc, char **argv) {
    return add_bp_ex(s, 0, 0, 1, max_depth, argc, argv);
}

void cmd_break_clear_momentary(session *s) {
    exdb_bptable *t = s->bps;
    for (uint32_t i = 0; t && i < t->n;) {
        if (t->v[i].momentary) {
            bp_clear(&t->v[i]);
            memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
            t->n--;
        } else {
            i++;
        }
    }
}

static int cmd_break(session *s, int argc, char **argv) {
    return add_bp(s, 0, 0, argc, argv);
}

static int cmd_tbreak(session *s, int argc, char **argv) {
    return add_bp(s, 1, 0, argc, argv);
}

static int cmd_watch(session *s, int argc, char **argv) {
    return add_bp(s, 0, 1, argc, argv);
}

static bp *find_num(exdb_bptable *t, int num) {
    for (uint32_t i = 0; t && i < t->n; i++)
        if (t->v[i].num == num && !t->v[i].momentary)
            return &t->v[i];
    return NULL;
}

/* "a\nb\n" as ["a", "b"]. */
static cJSON *lines_json(const char *text) {
    cJSON *arr = cJSON_CreateArray();
    for (const char *l = text; arr && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char *one = strndup(l, len);
        if (one)
            cJSON_AddItemToArray(arr, cJSON_CreateString(one));
        free(one);
        l += len + (nl != NULL);
    }
    return arr;
}

/* info breakpoints' JSON: one object per breakpoint shown (momentary
 * ones, made by until/advance, are not). */
static cJSON *breakpoints_json(const exdb_bptable *t) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && t && i < t->n; i++) {
        const bp *b = &t->v[i];
        if (b->momentary)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "number", b->num);
        cJSON_AddStringToObject(o, "type", b->kind == BP_WATCH ? "watchpoint" : "breakpoint");
        cJSON_AddStringToObject(o, "on", kind_words[b->kind]);
        cJSON_AddStringToObject(o, "what", b->arg);
        cJSON_AddBoolToObject(o, "enabled", b->enabled);
        cJSON_AddBoolToObject(o, "temporary", b->temporary);
        cJSON_AddNumberToObject(o, "hits", b->hits);
        cJSON_AddNumberToObject(o, "ignore", b->ignore);
        cJSON_AddItemToObject(o, "commands", lines_json(b->commands ? b->commands : ""));
        if (b->cond)
            cJSON_AddStringToObject(o, "condition", b->cond);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* JSON mode: the table after a command changed it (delete, enable,
 * disable, condition), as info breakpoints gives it. */
static void table_changed(session *s) {
    if (s->json)
        cmd_json_add(s, "breakpoints", breakpoints_json(s->bps));
}

/* The breakpoint numbered by word, or NULL after an error. */
static bp *find_bp(session *s, const char *word) {
    char *end;
    long n = strtol(word, &end, 10);
    if (!*word || *end)
        return cmd_fail(s, "Expected a breakpoint number, found \"%s\".", word), NULL;
    for (uint32_t i = 0; s->bps && i < s->bps->n; i++)
        if (s->bps->v[i].num == n)
            return &s->bps->v[i];
    cmd_fail(s, "No breakpoint number %ld.", n);
    return NULL;
}

static int cmd_delete(session *s, int argc, char **argv) {
    exdb_bptable *t = s->bps;
    if (argc > 1 && strcmp(argv[1], "display") == 0) /* gdb's delete display N */
        return cmd_display_delete(s, argc - 2, argv + 2);
    if (argc == 1) {
        cmd_break_free(s);
        table_changed(s);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        bp *b = find_bp(s, argv[i]);
        if (!b)
            return -1;
        bp_clear(b);
        size_t at = (size_t)(b - t->v);
        memmove(b, b + 1, (t->n - at - 1) * sizeof *b);
        t->n--;
    }
    table_changed(s);
    return 0;
}

static int set_enabled(session *s, int argc, char **argv, int on) {
    if (argc > 1 && strcmp(argv[1], "display") == 0) /* gdb's enable/disable display N */
        return cmd_display_enable(s, argc - 2, argv + 2, on);
    for (uint32_t i = 0; argc == 1 && s->bps && i < s->bps->n; i++)
        s->bps->v[i].enabled = on;
    for (int i = 1; i < argc; i++) {
        bp *b = find_bp(s, argv[i]);
        if (!b)
            return -1;
        b->enabled = on;
    }
    table_changed(s);
    return 0;
}

static int cmd_enable(session *s, int argc, char **argv) {
    return set_enabled(s, argc, argv, 1);
}

static int cmd_disable(session *s, int argc, char **argv) {
    return set_enabled(s, argc, argv, 0);
}

static int cmd_condition(session *s, int argc, char **argv) {
    bp *b = find_bp(s, argv[1]);
    if (!b)
        return -1;
    if (argc == 2) {
        free(b->cond);
        free(b->value);
        b->cond = b->value = NULL;
        fprintf(s->out, "Breakpoint %d now unconditional.\n", b->num);
    } else if (parse_cond(s, b, argc - 2, argv + 2) < 0) {
        return -1;
    }
    cmd_json_add(s, "breakpoint", cJSON_CreateNumber(b->num));
    table_changed(s);
    return 0;
}

/* ignore N COUNT: gdb's ignore counts. The next COUNT times breakpoint N
 * is reached (its condition true) it does not stop; each still counts as
 * a hit. */
static int cmd_ignore(session *s, int argc, char **argv) {
    (void)argc;
    bp *b = find_bp(s, argv[1]);
    uint32_t n;
    if (!b || cmd_parse_count(s, argv[2], &n) < 0)
        return -1;
    b->ignore = n;
    if (n == 0)
        fprintf(s->out, "Will stop next time breakpoint %d is reached.\n", b->num);
    else if (n == 1)
        fprintf(s->out, "Will ignore next crossing of breakpoint %d.\n", b->num);
    else
        fprintf(s->out, "Will ignore next %u crossings of breakpoint %d.\n", n, b->num);
    cmd_json_add(s, "breakpoint", cJSON_CreateNumber(b->num));
    cmd_json_add(s, "ignore", cJSON_CreateNumber(n));
    return 0;
}

/* Reads the lines of a `commands` body up to "end" from where the command
 * came from (trimmed, blank lines and # comments dropped) into body; 0, or
 * -1 after an error (a line that is no command: the rest up to "end" is
 * still read, so a script does not run it). */
static int read_body(session *s, exdb_buf *body) {
    int rc = 0, nlines = 0;
    char *line;
    while ((line = s->read_line(s, ">"))) {
        char *t = line, *e = line + strlen(line);
        while (*t == ' ' || *t == '\t')
            t++;
        while (e > t && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
            *--e = '\0';
        if (strcmp(t, "end") == 0) {
            free(line);
            return rc;
        }
        if (!*t || *t == '#') {
            free(line);
            continue;
        }
        if (rc == 0 && !(nlines == 0 && strcmp(t, "silent") == 0)) {
            int amb = 0;
            const command *c = session_line_command(s, t, &amb);
            if (!c)
                rc = cmd_fail(s, "%s command in the breakpoint's commands: \"%s\".",
                              amb ? "Ambiguous" : "Undefined", t);
            else if (strcmp(c->name, "commands") == 0)
                rc = cmd_fail(s, "\"commands\" cannot be nested in a breakpoint's commands.");
        }
        exdb_buf_printf(body, "%s\n", t);
        nlines++;
        free(line);
    }
    if (exdb_interrupted)
        return cmd_fail(s, "Quit");
    return rc; /* the end of the input ends the list, as gdb takes it */
}

/* commands [N...] ... end: what gdb's does. The lines after the command,
 * up to "end", run each time one of the breakpoints stops the run (after
 * the stopping command, its stop message and the auto-displays); a first
 * line "silent" leaves out the stop message and the displays. No lines:
 * the breakpoints' commands are removed. Without N: the last breakpoint
 * made. */
static int cmd_commands(session *s, int argc, char **argv) {
    int nums[64], n = 0;
    exdb_bptable *t = s->bps;
    for (int i = 1; i < argc && n < 64; i++) {
        bp *b = find_bp(s, argv[i]);
        if (!b)
            return -1;
        nums[n++] = b->num;
    }
    if (argc == 1) {
        if (!t || !t->next_num || !find_num(t, t->next_num))
            return cmd_fail(s, "No breakpoints specified.");
        nums[n++] = t->next_num;
    }
    if (!s->read_line)
        return cmd_fail(s, "\"commands\" reads its lines from a script, standard input or the "
                           "prompt (not from -ex).");
    if (s->interactive && s->source_depth == 0 && !s->in_bp_commands) {
        exdb_buf_puts(&s->buf, "Type commands for breakpoint(s) ");
        for (int i = 0; i < n; i++)
            exdb_buf_printf(&s->buf, "%s%d", i ? ", " : "", nums[i]);
        exdb_buf_puts(&s->buf, ", one per line.\nEnd with a line saying just \"end\".\n");
        cmd_flush(s, 1);
    }
    exdb_buf body;
    exdb_buf_init(&body);
    if (read_body(s, &body) < 0) {
        exdb_buf_free(&body);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        bp *b = find_num(s->bps, nums[i]);
        if (!b)
            continue; /* deleted by nothing here, but stay safe */
        free(b->commands);
        b->commands = body.len ? strdup(exdb_buf_str(&body)) : NULL;
    }
    if (s->json) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(nums[i]));
        cmd_json_add(s, "breakpoints", arr);
        cmd_json_add(s, "commands", lines_json(body.len ? exdb_buf_str(&body) : ""));
    }
    exdb_buf_free(&body);
    return 0;
}

int cmd_break_info(session *s) {
    exdb_bptable *t = s->bps;
    cJSON *arr = s->json ? breakpoints_json(t) : NULL;
    uint32_t shown = 0;
    for (uint32_t i = 0; t && i < t->n; i++)
        shown += !t->v[i].momentary;
    if (!shown) {
        fputs("No breakpoints or watchpoints.\n", s->out);
        cmd_json_add(s, "breakpoints", arr);
        return 0;
    }
    exdb_buf_puts(&s->buf, "Num  Type        Disp  Enb  Hits  What\n");
    exdb_buf w;
    exdb_buf_init(&w);
    for (uint32_t i = 0; i < t->n; i++) {
        const bp *b = &t->v[i];
        if (b->momentary)
            continue;
        exdb_buf_reset(&w);
        describe(&w, b);
        if (b->cond)
            exdb_buf_printf(&w, " if %s", b->cond);
        exdb_buf_printf(&s->buf, "%-4d %-11s %-5s %-4s %-5u %s\n", b->num,
                        b->kind == BP_WATCH ? "watchpoint" : "breakpoint",
                        b->temporary ? "del" : "keep", b->enabled ? "y" : "n", b->hits,
                        exdb_buf_str(&w));
        /* as gdb, under the breakpoint: its ignore count and commands */
        if (b->ignore == 1)
            exdb_buf_puts(&s->buf, "        Will ignore next crossing of breakpoint.\n");
        else if (b->ignore)
            exdb_buf_printf(&s->buf, "        Will ignore next %u crossings of breakpoint.\n",
                            b->ignore);
        for (const char *l = b->commands; l && *l;) {
            const char *nl = strchr(l, '\n');
            size_t len = nl ? (size_t)(nl - l) : strlen(l);
            exdb_buf_printf(&s->buf, "        %.*s\n", (int)len, l);
            l += len + (nl != NULL);
        }
    }
    exdb_buf_free(&w);
    cmd_flush(s, 1);
    cmd_json_add(s, "breakpoints", arr);
    return 0;
}

#define BREAK_HELP                                                                                 \
    "break NODE           after the flat node NODE is copied into a frame\n"                       \
    "break module FQN     when a frame for module FQN is created (FQN@N: only that call;\n"        \
    "                     globs: encoder.layers.*.attn)\n"                                         \
    "break exit FQN       when a frame for FQN is finalized (outlining)\n"                         \
    "break op GLOB        after a node whose target matches GLOB is copied (aten.relu*;\n"         \
    "                     torch.ops. may be left out)\n"                                           \
    "break event KIND     at an event of that kind: sink, dedup, dispatch, ival, attrs,\n"         \
    "                     state, reorder, done, copy, enter, exit\n"                               \
    "break line FILE:LINE after the first node made at that line of the Python is copied\n"        \
    "                     (a frame of its stack_trace is there: the innermost, or a call\n"        \
    "                     of a module at that line); FILE may be a suffix (resnet.py:92)\n"        \
    "Any of them may end with \"if VAR OP VALUE\": VAR is call (the frame's call number,\n"        \
    "as backtrace shows it), depth, step (flat node index), event, fqn, node or target;\n"         \
    "OP is == != < <= > >= for numbers, == != or ~ (glob) for names. continue, next, finish\n"     \
    "and run stop at them; \"info breakpoints\" lists them."

/* The subcommand words watch reads itself (a unique prefix names one). */
static const subcommand watch_subs[] = {{"node-map", NULL, -1, 1}, {NULL, NULL, 0, 0}};

/* The subcommand words delete reads itself (a unique prefix names one). */
static const subcommand display_subs[] = {{"display", NULL, -1, 1}, {NULL, NULL, 0, 0}};

const command break_commands[] = {
    {"break", 1, -1, CMD_NEEDS_PROGRAM,
     "break NODE|module FQN|exit FQN|op GLOB|event KIND|line FILE:LINE [if C]",
     "Stop the unflatten run at a node, a module call, an op, an event or a source line.",
     BREAK_HELP, cmd_break, NULL, NULL},
    {"tbreak", 1, -1, CMD_NEEDS_PROGRAM, "tbreak ...", "A breakpoint deleted when first hit.",
     BREAK_HELP, cmd_tbreak, NULL, NULL},
    {"watch", 2, -1, CMD_NEEDS_PROGRAM, "watch node-map NODE [if COND]",
     "Stop when NODE gets mapped in a frame (node_map or node_to_placeholder).",
     "Fires once per frame that maps the flat node: where it is copied, where a child\n"
     "frame makes a placeholder for it, where an exiting frame hands its output back to\n"
     "the parent. Conditions as for break (\"help break\").",
     cmd_watch, watch_subs, NULL},
    {"delete", 0, -1, 0, "delete [N...]|display [N...]",
     "Delete breakpoints N... (all without N), or auto-displays.", NULL, cmd_delete, display_subs,
     NULL},
    {"disable", 0, -1, 0, "disable [N...]|display [N...]",
     "Disable breakpoints N... (all without N), or auto-displays.", NULL, cmd_disable, display_subs,
     NULL},
    {"enable", 0, -1, 0, "enable [N...]|display [N...]",
     "Enable breakpoints N... (all without N), or auto-displays.", NULL, cmd_enable, display_subs,
     NULL},
    {"ignore", 2, 2, 0, "ignore N COUNT",
     "Pass breakpoint N the next COUNT times it is reached (0: stop again).",
     "As gdb's ignore counts: each crossing passed still counts as a hit; \"info\n"
     "breakpoints\" shows the count left. reverse-continue passes a breakpoint whose\n"
     "count is not 0 (and does not use it up).",
     cmd_ignore, NULL, NULL},
    {"commands", 0, -1, 0, "commands [N...]",
     "Commands to run when breakpoint N stops the run, up to a line \"end\".",
     "As gdb's: the lines after \"commands N\" (in a script, on standard input or at the\n"
     "prompt, which asks with \">\"), up to a line \"end\", run each time breakpoint N\n"
     "stops the run, after the stop message and the auto-displays. A first line\n"
     "\"silent\" leaves both out. A command that moves the run (continue, step, run...)\n"
     "ends the list: the commands after it do not run, those of the breakpoint it stops\n"
     "at do. Without N: the last breakpoint made. \"commands N\" and \"end\" alone remove\n"
     "N's commands. \"info breakpoints\" lists them under each breakpoint.",
     cmd_commands, NULL, NULL},
    {"condition", 1, 4, 0, "condition N [VAR OP VALUE]",
     "Stop at breakpoint N only when the condition holds (none: always).",
     "See \"help break\" for the variables.", cmd_condition, NULL, NULL},
};
const size_t break_ncommands = sizeof break_commands / sizeof *break_commands;
