/* breakpoint.c - breakpoints of the unflatten run (see breakpoint.h): the
 * session's table, conditions on the event ("if call == 2", "if fqn ~
 * encoder.*"), the globs a location matches, and a location read from the
 * words of break, tbreak, watch, until and advance, checked against the
 * program. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "breakpoint.h"
#include "core/export/program.h"
#include "core/unflatten/describe.h"
#include "core/fx/stacktrace.h"

void breakpoint_clear(bp *b) {
    free(b->commands);
    free(b->arg);
    free(b->cond);
    free(b->value);
    free(b->frames);
}

exdb_bptable *breakpoint_table(session *s) {
    if (!s->bps)
        s->bps = calloc(1, sizeof *s->bps);
    return s->bps;
}

/* ---- conditions */

static const char *const var_names[] = {"call", "depth", "step",   "event",
                                        "fqn",  "node",  "target", NULL};
static const char *const op_names[] = {"==", "!=", "<", "<=", ">", ">=", "~", NULL};

int breakpoint_parse_cond(session *s, bp *b, int argc, char **argv) {
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

int breakpoint_cond_holds(const bp *b, const exdb_unflatten *u, const exdb_uevent *ev) {
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

int breakpoint_module_matches(const char *pattern, const exdb_uframe *f) {
    if (!f || !f->child_fqn)
        return 0;
    if (fnmatch(pattern, f->child_fqn, 0) == 0)
        return 1;
    return !strchr(pattern, '@') && f->fqn && fnmatch(pattern, f->fqn, 0) == 0;
}

int breakpoint_op_matches(const char *pattern, const char *target) {
    if (!target)
        return 0;
    if (fnmatch(pattern, target, 0) == 0)
        return 1;
    return strncmp(target, "torch.ops.", 10) == 0 && fnmatch(pattern, target + 10, 0) == 0;
}

int breakpoint_at_line(const exdb_node *n, const char *spec) {
    size_t flen;
    uint32_t line;
    return n && n->meta && exdb_meta_stack_trace(n->meta) &&
           exdb_stack_parse_location(spec, &flen, &line) == 0 &&
           exdb_stack_at(exdb_meta_stack_trace(n->meta), spec, flen, line);
}

void breakpoint_describe(exdb_buf *o, const bp *b) {
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

/* ---- locations */

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
        if (n->op == EXDB_OP_CALL_FUNCTION && breakpoint_op_matches(pattern, n->target))
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
        if (breakpoint_at_line(n, spec))
            return 0;
    return cmd_fail(s, "No node's stack trace is at %s (\"info lines\" lists the lines).", spec);
}

/* The kind of location the words name (BP_NODE... from "module", "op"...),
 * *arg its argument; -1 after a usage error. */
static int location_kind(session *s, bp *b, int watch, int momentary, int nwords, char **argv,
                         const char **arg) {
    if (watch) {
        if (nwords != 2 || strcmp(argv[1], "node-map") != 0)
            return cmd_fail(s, "Usage: watch node-map NODE [if COND]");
        b->kind = BP_WATCH;
        *arg = argv[2];
    } else if (nwords == 1) {
        b->kind = BP_NODE;
        *arg = argv[1];
    } else if (nwords == 2) {
        static const char *const kinds[] = {"module", "exit", "op", "event", "line", NULL};
        static const bp_kind kind_of[] = {BP_ENTER, BP_EXIT, BP_OP, BP_EVENT, BP_LINE};
        int k = cmd_pick(s, "break", argv[1], kinds);
        if (k < 0)
            return -1;
        b->kind = kind_of[k];
        *arg = argv[2];
    } else {
        return cmd_fail(s,
                        momentary ? "Usage: %s NODE | module FQN | exit FQN | op GLOB | event "
                                    "KIND | line FILE:LINE | EVENT-NUMBER"
                                  : "Usage: break NODE | module FQN | exit FQN | op GLOB | "
                                    "event KIND | line FILE:LINE [if COND]",
                        argv[0]);
    }
    if ((b->kind == BP_NODE || b->kind == BP_WATCH) && (*arg)[0] == '%')
        (*arg)++;
    return 0;
}

/* Whether the location exists in the program (an event kind: sets
 * b->event_kind); -1 after an error naming what is missing. */
static int location_exists(session *s, bp *b, const char *arg) {
    if (b->kind == BP_NODE || b->kind == BP_WATCH) {
        if (!node_exists(s, arg))
            return cmd_node_not_found(s, arg);
    } else if (b->kind == BP_ENTER || b->kind == BP_EXIT) {
        if (!module_exists(s->prog, arg))
            return cmd_fail(s, "No module matches \"%s\" (\"info module-call-graph\" lists them).",
                            arg);
    } else if (b->kind == BP_OP) {
        if (!op_exists(s, arg))
            return cmd_fail(s, "No node's target matches \"%s\" (e.g. aten.relu*, *conv*).", arg);
    } else if (b->kind == BP_LINE) {
        if (line_missing(s, arg) < 0)
            return -1;
    } else {
        b->event_kind = -1;
        for (int k = 0; k <= EXDB_EV_DONE; k++)
            if (strcasecmp(arg, exdb_unflatten_event_kind_name(k)) == 0)
                b->event_kind = k;
        if (b->event_kind < 0)
            return cmd_fail(s,
                            "Unknown event \"%s\": expected copy, enter, exit, ival, attrs, "
                            "state, sink, dedup, dispatch, reorder or done.",
                            arg);
    }
    return 0;
}

int breakpoint_parse(session *s, bp *b, int watch, int momentary, int argc, char **argv) {
    int nwords = argc - 1, ifat = -1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "if") == 0) {
            ifat = i;
            nwords = i - 1;
            break;
        }
    const char *arg = NULL;
    if (location_kind(s, b, watch, momentary, nwords, argv, &arg) < 0 ||
        location_exists(s, b, arg) < 0)
        return -1;
    if (ifat > 0 && breakpoint_parse_cond(s, b, argc - ifat - 1, argv + ifat + 1) < 0)
        return -1;
    b->arg = strdup(arg);
    if (!b->arg) {
        breakpoint_clear(b);
        return cmd_fail(s, "out of memory");
    }
    if (b->kind == BP_EVENT)
        for (char *c = b->arg; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    return 0;
}
