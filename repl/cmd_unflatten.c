/* cmd_unflatten.c - stepping torch.export.unflatten as gdb steps a program.
 *
 * The engine (core/unflatten/unflatten.h) applies one event at a time: COPY a flat
 * node into the current frame, ENTER a module frame, EXIT it, then the
 * later phases (IVAL, ATTRS, STATE, SINK, DEDUP, DISPATCH, REORDER, DONE).
 * Every moving command here is one call of drive(): run events until the
 * command's own condition, a breakpoint (cmd_break.c) or Ctrl-C stops it,
 * printing the events in the vocabulary of PyTorch's own outliner trace
 * (_ModuleFrame.print: "STEP", "copying", "Creating new stack frame for",
 * "outlining"). Going backwards replays the run to an earlier event (the
 * run is deterministic); the event log tells where to go.
 *
 * Event numbers: "[K]" is the K-th event; the state shown is the one right
 * after it, so `goto K` comes back to it. Frame numbers are backtrace
 * levels: #0 is the innermost frame. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "json_answers.h"
#include "core/fx/print.h"
#include "core/unflatten/phases.h"
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/explain.h"
#include "core/unflatten/modtree.h"

/* The session's run for the loaded program, created (at event 0) when
 * needed; `load` frees it with the program it belongs to. */
static exdb_unflatten *get_run(session *s, int fresh) {
    if (s->run && fresh) {
        exdb_unflatten_free(s->run);
        s->run = NULL;
    }
    if (!s->run) {
        exdb_error err = {0};
        s->run = exdb_unflatten_new(s->prog, &err);
        if (!s->run) {
            cmd_fail(s, "%s", err.msg);
            return NULL;
        }
        /* what the prepasses did to the flat graph before outlining (the
         * dead nodes unflatten removes, stacks _fix_nn_module_stacks cut),
         * once per run: notes, not output, so on standard error (what
         * `print code` writes stays exactly code), and in JSON their own
         * field */
        const exdb_urun *r = s->run->run;
        cJSON *arr = s->json && r->nwarnings ? cJSON_CreateArray() : NULL;
        FILE *notes = s->json || !r->nwarnings ? NULL : output_notes(s);
        if (notes)
            fflush(s->out);
        for (uint32_t i = 0; i < r->nwarnings; i++) {
            if (arr)
                cJSON_AddItemToArray(arr, cJSON_CreateString(r->warnings[i]));
            else if (notes)
                fprintf(notes, "note: %s\n", r->warnings[i]);
        }
        if (notes)
            fflush(notes);
        cmd_json_add(s, "notes", arr);
    }
    return s->run;
}

struct exdb_unflatten *cmd_unflatten_run(session *s) {
    return get_run(s, 0);
}

void cmd_unflatten_forget(session *s) {
    exdb_unflatten_free(s->run);
    s->run = NULL;
    s->selected_frame = 0;
    s->list_next = -1;
}

const char *cmd_unflatten_label(const char *fqn) {
    return fqn && fqn[0] ? fqn : "<root>";
}

const exdb_uframe *cmd_unflatten_frame_by_index(const exdb_unflatten *u, int32_t index) {
    return index >= 0 && (uint32_t)index < u->run->nframes ? u->run->frames[index] : NULL;
}

const exdb_node *cmd_unflatten_flat_at(const exdb_unflatten *u, int32_t index) {
    return index >= 0 && (uint32_t)index < u->run->nnodes ? u->run->nodes[index] : NULL;
}

/* ---- one event, as a line and as JSON */

/* The call a DEDUP work item compares with the earlier calls of its
 * module (a seen_modules entry), or NULL. */
const exdb_uentry *cmd_unflatten_dedup_call(const exdb_unflatten *u, const exdb_uwork *w) {
    const exdb_urun *r = u->run;
    if (!w || w->a < 0 || (uint32_t)w->a >= r->nparts || w->b < 0 ||
        (uint32_t)w->b >= r->parts[w->a].n)
        return NULL;
    return &r->parts[w->a].entries[w->b];
}

/* "[K] STEP i in FRAME: copying %x : ..." for an event of the current run
 * (the frames it names exist: frames are kept after they exit). */
void cmd_unflatten_event_text(session *s, exdb_buf *b, const exdb_unflatten *u, uint32_t k,
                              const exdb_uevent *ev) {
    const exdb_uframe *f = cmd_unflatten_frame_by_index(u, ev->frame);
    const exdb_node *n = cmd_unflatten_flat_at(u, ev->flat);
    exdb_buf_printf(b, "%s[%u]%s ", cmd_color(s, C_DIM), k, cmd_color(s, C_RESET));
    switch (ev->kind) {
    case EXDB_EV_COPY:
        exdb_buf_printf(b, "STEP %d in %s: %scopying%s ", ev->flat,
                        cmd_unflatten_label(f ? f->child_fqn : NULL), cmd_color(s, C_GREEN),
                        cmd_color(s, C_RESET));
        if (n)
            exdb_format_node(b, n);
        cmd_source_node_at(s, b, n);
        return;
    case EXDB_EV_ENTER:
        if (!f)
            break;
        exdb_buf_printf(b, "STEP %d in %s: %sCreating new stack frame for%s %s (%s, call %d of %s)",
                        ev->flat, cmd_unflatten_label(f->parent ? f->parent->child_fqn : NULL),
                        cmd_color(s, C_CYAN), cmd_color(s, C_RESET), f->child_fqn,
                        f->type ? f->type : "None", f->num_calls + 1, f->module_id);
        cmd_source_enter_at(s, b, f, n);
        return;
    case EXDB_EV_EXIT:
        if (!f)
            break;
        exdb_buf_printf(b, "STEP %d in %s: %soutlining%s %s (%u node%s copied", ev->flat,
                        cmd_unflatten_label(f->child_fqn), cmd_color(s, C_YELLOW),
                        cmd_color(s, C_RESET), cmd_unflatten_label(f->child_fqn), f->ncopied,
                        f->ncopied == 1 ? "" : "s");
        if (f->parent_call_module && f->parent)
            exdb_buf_printf(b, "; called as %%%s in %s", f->parent_call_module->name,
                            cmd_unflatten_label(f->parent->child_fqn));
        exdb_buf_putc(b, ')');
        return;
    default:
        break;
    }
    exdb_buf_puts(b, cmd_color(s, C_BLUE));
    exdb_unflatten_describe(b, u, ev);
    const exdb_uentry *call = ev->kind == EXDB_EV_DEDUP
                                  ? cmd_unflatten_dedup_call(u, exdb_unflatten_event_work(u, ev))
                                  : NULL;
    if (call)
        exdb_buf_printf(b, " (%s call_idx=%d)", cmd_unflatten_label(call->fqn), call->call_idx);
    exdb_explain_summary(b, u, ev);
    exdb_buf_puts(b, cmd_color(s, C_RESET));
}

cJSON *cmd_unflatten_event_json(session *s, const exdb_unflatten *u, uint32_t k,
                                const exdb_uevent *ev) {
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "event", k);
    cJSON_AddStringToObject(o, "kind", k ? exdb_unflatten_event_kind_name(ev->kind) : "START");
    const exdb_node *n = cmd_unflatten_flat_at(u, ev->flat);
    const exdb_uframe *f = cmd_unflatten_frame_by_index(u, ev->frame);
    if (n) {
        cJSON_AddNumberToObject(o, "step", ev->flat);
        cJSON_AddStringToObject(o, "node", n->name);
    }
    if (f) {
        cJSON_AddNumberToObject(o, "frame", f->index);
        cJSON_AddStringToObject(o, "fqn", f->child_fqn ? f->child_fqn : "");
    }
    cJSON_AddNumberToObject(o, "depth", ev->depth);
    /* a later-phase decision: what it was about (a module fqn, a scope) */
    const exdb_uwork *w = k ? exdb_unflatten_event_work(u, ev) : NULL;
    const exdb_uentry *call = ev->kind == EXDB_EV_DEDUP ? cmd_unflatten_dedup_call(u, w) : NULL;
    if (call) {
        cJSON_AddStringToObject(o, "subject", call->fqn);
        cJSON_AddNumberToObject(o, "call_idx", call->call_idx);
    } else if (w && w->name) {
        cJSON_AddStringToObject(o, "subject", w->name);
    }
    cJSON *detail = k ? cmd_explain_detail_json(u, ev) : NULL;
    if (detail)
        cJSON_AddItemToObject(o, "detail", detail);
    exdb_buf b;
    exdb_buf_init(&b);
    int saved = s->color_now;
    s->color_now = 0;
    if (k)
        cmd_unflatten_event_text(s, &b, u, k, ev);
    else
        exdb_buf_puts(&b, "[0] start: prepasses done, nothing outlined yet");
    s->color_now = saved;
    cJSON_AddStringToObject(o, "text", exdb_buf_str(&b));
    exdb_buf_free(&b);
    return o;
}

/* ---- driving the run */

/* A moving command: the core's stop conditions (core/unflatten/step.h)
 * and what the REPL shows while the run moves. */
typedef struct drive {
    exdb_step st;
    session *s;
    int trace;        /* print every event passed (step, stepi) */
    uint32_t printed; /* the last event printed by the trace */
    exdb_buf why;     /* the breakpoint's report for the event just applied */
    cJSON *events;    /* JSON mode: the traced events */
} drive;

/* Prints event k (the one just applied) with the reason it stopped, if any. */
static void print_event(drive *d, const exdb_unflatten *u, const exdb_uevent *ev) {
    session *s = d->s;
    if (d->st.bp > 0 && !cmd_break_silent(s)) {
        const char *w = exdb_buf_str(&d->why);
        int multi = d->why.len && w[d->why.len - 1] == '\n'; /* a watchpoint's report */
        exdb_buf_printf(&s->buf, "%s%s%s%s", cmd_color(s, C_RED), w, cmd_color(s, C_RESET),
                        multi ? "" : ", ");
    }
    cmd_unflatten_event_text(s, &s->buf, u, u->pos, ev);
    exdb_buf_putc(&s->buf, '\n');
    d->printed = u->pos;
    if (s->json && d->trace) {
        if (!d->events)
            d->events = cJSON_CreateArray();
        cJSON_AddItemToArray(d->events, cmd_unflatten_event_json(s, u, u->pos, ev));
    }
}

/* The breakpoints, after each event (exdb_step's check). */
static int drive_check(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev) {
    drive *d = ctx;
    exdb_buf_reset(&d->why);
    return cmd_break_check(d->s, u, ev, 1, &d->why);
}

/* What the user sees as the run moves (exdb_step's observe): the trace,
 * and the event it stops at (not announced at a `silent` breakpoint; the
 * trace of step still shows it). */
static void drive_observe(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev, int stop) {
    drive *d = ctx;
    if (d->trace || (stop && !(d->st.bp > 0 && cmd_break_silent(d->s))))
        print_event(d, u, ev);
}

/* Where the run is, for commands that jump (goto, reverse-*, restart). */
static void print_position(session *s, const exdb_unflatten *u) {
    if (u->pos == 0)
        exdb_buf_puts(&s->buf, "[0] start: prepasses done, nothing outlined yet\n");
    else {
        cmd_unflatten_event_text(s, &s->buf, u, u->pos, &u->log[u->pos - 1]);
        exdb_buf_putc(&s->buf, '\n');
    }
}

static void json_position(session *s, const exdb_unflatten *u, const char *reason) {
    if (!s->json)
        return;
    exdb_uevent start = {0};
    start.flat = start.frame = start.item = -1;
    cmd_json_add(s, "reason", cJSON_CreateString(reason));
    cmd_json_add(s, "stop",
                 cmd_unflatten_event_json(s, u, u->pos, u->pos ? &u->log[u->pos - 1] : &start));
    cmd_json_add(s, "done", cJSON_CreateBool(exdb_unflatten_done(u)));
}

/* Refuses to move forward from the end or from an error. */
static int can_go_forward(session *s, const exdb_unflatten *u) {
    if (u->failed)
        return cmd_fail(s,
                        "The run stopped at an error after event %u: %s  (\"reverse-stepi\" or "
                        "\"restart\" to go back)",
                        u->pos, u->err.msg);
    if (exdb_unflatten_done(u))
        return cmd_fail(s,
                        "The unflatten run is complete (%u event%s).  \"restart\" goes back to "
                        "event 0, \"reverse-step\" backwards.",
                        u->pos, cmd_s(u->pos));
    return 0;
}

/* Runs the events of one command and says where it stopped; dp->st holds
 * the command's stop conditions. */
static int drive_go(session *s, exdb_unflatten *u, drive *dp, uint32_t depth) {
    drive d = *dp;
    d.s = s;
    exdb_buf_init(&d.why);
    d.st.depth = depth;
    d.st.check = drive_check;
    d.st.observe = drive_observe;
    d.st.ctx = &d;
    d.st.interrupt = &exdb_interrupted;
    cmd_break_arm(s, u);
    exdb_error err = {0};
    int rc = exdb_step_go(u, &d.st, &err);
    s->selected_frame = 0;
    s->list_next = -1;
    static const char *const reasons[] = {
        [EXDB_STOP_STEP] = "step",           [EXDB_STOP_BREAKPOINT] = "breakpoint",
        [EXDB_STOP_LOCATION] = "location",   [EXDB_STOP_FRAME_EXIT] = "frame-exit",
        [EXDB_STOP_INTERRUPT] = "interrupt", [EXDB_STOP_END] = "end",
        [EXDB_STOP_ERROR] = "error",
    };
    const char *reason = reasons[d.st.reason];
    if (rc == 0) {
        /* the end: show the last event unless the trace did */
        if (u->pos && d.printed != u->pos)
            print_position(s, u);
        exdb_buf_printf(&s->buf, "unflatten complete: %u event%s, %u module%s\n", u->pos,
                        cmd_s(u->pos), u->run->nmodules, cmd_s(u->run->nmodules));
    } else if (rc < 0) {
        if (u->pos && d.printed != u->pos)
            print_position(s, u);
    }
    if (d.st.reason == EXDB_STOP_INTERRUPT)
        exdb_buf_printf(&s->buf, "Interrupted after event %u.\n", u->pos);
    cmd_flush(s, 1);
    if (s->json) {
        if (d.events)
            cmd_json_add(s, "events", d.events);
        if (d.st.bp)
            cmd_json_add(s, "breakpoint", cJSON_CreateNumber(d.st.bp));
        if (d.st.bp > 0 && cmd_break_silent(s))
            cmd_json_add(s, "silent", cJSON_CreateTrue());
        json_position(s, u, reason);
    } else {
        cJSON_Delete(d.events);
    }
    exdb_buf_free(&d.why);
    dp->st = d.st;
    if (rc < 0)
        return cmd_fail(s, "%s", err.msg);
    return 0;
}

static int drive_run(session *s, exdb_unflatten *u, exdb_step_mode mode, uint32_t count, int trace,
                     uint32_t depth) {
    drive d = {.st = {.mode = mode, .count = count}, .trace = trace};
    return drive_go(s, u, &d, depth);
}

int cmd_unflatten_optional_count(session *s, int argc, char **argv, uint32_t *n) {
    *n = 1;
    if (argc < 2)
        return 0;
    if (cmd_parse_count(s, argv[1], n) < 0)
        return -1;
    if (*n == 0)
        return cmd_fail(s, "Expected a count of at least 1, found \"%s\".", argv[1]);
    return 0;
}

/* step/stepi/next/finish/continue share one shape. */
static int forward(session *s, int argc, char **argv, exdb_step_mode mode, int trace) {
    uint32_t n = 1;
    if (mode != EXDB_STEP_FINISH && mode != EXDB_STEP_NEVER &&
        cmd_unflatten_optional_count(s, argc, argv, &n) < 0)
        return -1;
    exdb_unflatten *u = get_run(s, 0);
    if (!u || can_go_forward(s, u) < 0)
        return -1;
    if (mode == EXDB_STEP_FINISH) {
        /* the selected frame: `up` then `finish` runs until the caller exits */
        uint32_t depth = exdb_unflatten_depth(u);
        if (s->selected_frame < depth)
            depth -= s->selected_frame;
        if (depth <= 1)
            return cmd_fail(s, "\"finish\" not meaningful in the outermost frame.");
        const exdb_uframe *f = exdb_unflatten_frame(u, depth - 1);
        fprintf(s->out, "Run till exit from #%u  %s\n", s->selected_frame,
                cmd_unflatten_label(f->child_fqn));
        int rc = drive_run(s, u, mode, 1, 0, depth);
        /* gdb prints the value returned; the outliner's is the call_module
         * node the frame left in its parent */
        if (rc == 0 && u->pos && u->log[u->pos - 1].kind == EXDB_EV_EXIT) {
            const exdb_uframe *g = cmd_unflatten_frame_by_index(u, u->log[u->pos - 1].frame);
            if (g && g->parent_call_module) {
                exdb_buf_printf(
                    &s->buf, "In %s: ", cmd_unflatten_label(g->parent ? g->parent->child_fqn : ""));
                exdb_format_node(&s->buf, g->parent_call_module);
                cmd_flush(s, 1);
            }
        }
        return rc;
    }
    return drive_run(s, u, mode, n, trace, 0);
}

static int cmd_stepi(session *s, int argc, char **argv) {
    return forward(s, argc, argv, EXDB_STEP_EVENTS, 1);
}

static int cmd_step(session *s, int argc, char **argv) {
    return forward(s, argc, argv, EXDB_STEP_COPIES, 1);
}

static int cmd_next(session *s, int argc, char **argv) {
    return forward(s, argc, argv, EXDB_STEP_NEXT, 0);
}

static int cmd_finish(session *s, int argc, char **argv) {
    return forward(s, argc, argv, EXDB_STEP_FINISH, 0);
}

static int cmd_continue(session *s, int argc, char **argv) {
    return forward(s, argc, argv, EXDB_STEP_NEVER, 0);
}

static int cmd_run(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 1);
    if (!u)
        return -1;
    return drive_run(s, u, EXDB_STEP_NEVER, 0, 0, 0);
}

/* start: as gdb's start runs to main, a temporary breakpoint on the first
 * flat node that is not a placeholder (the program's first computation),
 * then run: the placeholders copied into the root frame, the frames of the
 * modules that node belongs to entered. */
static int cmd_start(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 1);
    if (!u)
        return -1;
    const exdb_node *n = u->run->flat->head;
    while (n && n->op == EXDB_OP_PLACEHOLDER)
        n = n->next;
    if (!n)
        return cmd_fail(s, "The graph has no node but placeholders: nothing to start at.");
    char *bargv[] = {"tbreak", (char *)n->name, NULL};
    if (cmd_break_add(s, 1, 2, bargv) < 0)
        return -1;
    return drive_run(s, u, EXDB_STEP_NEVER, 0, 0, 0);
}

/* until [LOCATION] / advance LOCATION, as gdb's: run until LOCATION is
 * reached or the selected frame exits. LOCATION is an event number, a flat
 * node (stop after it is copied), or a break location (module FQN, exit
 * FQN, op GLOB, event KIND). until stops at LOCATION only in the selected
 * frame or an outer one (gdb: not in deeper calls); advance anywhere. */
static int until_cmd(session *s, int argc, char **argv, int advance) {
    exdb_unflatten *u = get_run(s, 0);
    if (!u || can_go_forward(s, u) < 0)
        return -1;
    uint32_t depth = exdb_unflatten_depth(u);
    if (s->selected_frame < depth)
        depth -= s->selected_frame;
    drive d = {.st = {.mode = EXDB_STEP_NEVER, .exit_depth = depth}};
    char *end;
    long k = strtol(argv[1], &end, 10);
    if (argc == 2 && *argv[1] && !*end) {
        if (k <= (long)u->pos)
            return cmd_fail(s,
                            "Event %ld is not ahead (the run is after event %u); \"goto %ld\" "
                            "goes back there.",
                            k, u->pos, k);
        d.st.target = (uint32_t)k;
    } else {
        const char *w = argv[1][0] == '%' ? argv[1] + 1 : argv[1];
        if (argc == 2) {
            const exdb_urun *r = u->run;
            const exdb_node *n = exdb_graph_find(r->flat, w);
            if (n && r->seen[n->id]) {
                uint32_t at = 0;
                for (uint32_t i = 0; i < u->pos && !at; i++)
                    if (u->log[i].kind == EXDB_EV_COPY &&
                        cmd_unflatten_flat_at(u, u->log[i].flat) == n)
                        at = i + 1;
                return cmd_fail(s,
                                "%%%s is already copied (event %u); \"goto %u\" goes back there.",
                                w, at, at);
            }
        }
        if (cmd_break_momentary(s, advance ? 0 : depth, argc, argv) < 0)
            return -1;
    }
    int rc = drive_go(s, u, &d, depth);
    cmd_break_clear_momentary(s);
    if (rc == 0 && d.st.exited && !d.st.located) {
        exdb_buf_printf(&s->buf, "(the frame exited before %s was reached)\n", argv[argc - 1]);
        cmd_flush(s, 1);
    }
    return rc;
}

static int cmd_until(session *s, int argc, char **argv) {
    if (argc == 1) /* no loops in the outliner: until is next */
        return forward(s, argc, argv, EXDB_STEP_NEXT, 0);
    return until_cmd(s, argc, argv, 0);
}

static int cmd_advance(session *s, int argc, char **argv) {
    return until_cmd(s, argc, argv, 1);
}

/* Goes to event k and says where the run is (unless quiet: at a silent
 * breakpoint). */
static int jump_ex(session *s, exdb_unflatten *u, uint32_t k, const char *reason, int quiet) {
    exdb_error err = {0};
    int rc = exdb_unflatten_goto(u, k, &err);
    s->selected_frame = 0;
    s->list_next = -1;
    if (!quiet)
        print_position(s, u);
    cmd_flush(s, 1);
    json_position(s, u, reason);
    return rc < 0 ? cmd_fail(s, "%s", err.msg) : 0;
}

static int jump(session *s, exdb_unflatten *u, uint32_t k, const char *reason) {
    return jump_ex(s, u, k, reason, 0);
}

static int cmd_restart(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 1);
    return u ? jump(s, u, 0, "start") : -1;
}

static int cmd_unflatten(session *s, int argc, char **argv) {
    int restart = argc > 1 && strcmp(argv[1], "restart") == 0;
    if (argc > 1 && !restart && strcmp(argv[1], "run") != 0)
        return cmd_fail(s, "Unknown argument \"%s\": expected run or restart.", argv[1]);
    if (restart)
        return cmd_restart(s, argc, argv);
    exdb_unflatten *u = get_run(s, 1);
    if (!u)
        return -1;
    exdb_error err = {0};
    if (exdb_unflatten_run(u, &err) < 0) {
        print_position(s, u);
        cmd_flush(s, 1);
        return cmd_fail(s, "%s", err.msg);
    }
    exdb_buf_printf(&s->buf, "unflatten complete: %u event%s, %u module%s\n", u->pos, cmd_s(u->pos),
                    u->run->nmodules, cmd_s(u->run->nmodules));
    cmd_flush(s, 1);
    json_position(s, u, "end");
    return 0;
}

/* Whether event k exists, the run left where it was. Past the events
 * reached so far only running there tells (the run may end, or fail,
 * first), so the run goes there and comes back: a goto out of range must
 * fail without moving, or a script stops at an error after the move. 1, or
 * 0 after printing why not. */
static int event_in_range(session *s, exdb_unflatten *u, uint32_t k) {
    if (k <= u->nlog)
        return 1;
    uint32_t from = u->pos;
    exdb_error err = {0}, back = {0};
    if (exdb_unflatten_goto(u, k, &err) == 0 && u->pos == k)
        return 1;
    exdb_buf why;
    exdb_buf_init(&why);
    if (u->failed)
        exdb_buf_printf(&why, "Event %u out of range; the run stops at an error after event %u: %s",
                        k, u->pos, u->err.msg);
    else
        exdb_buf_printf(&why, "Event %u out of range; the run has %u event%s.", k, u->pos,
                        u->pos == 1 ? "" : "s");
    if (exdb_unflatten_goto(u, from, &back) < 0)
        exdb_buf_printf(&why, " (and going back to event %u failed: %s)", from, back.msg);
    cmd_fail(s, "%s", why.oom ? "out of memory" : exdb_buf_str(&why));
    exdb_buf_free(&why);
    return 0;
}

static int cmd_goto(session *s, int argc, char **argv) {
    (void)argc;
    uint32_t k;
    if (cmd_parse_count(s, argv[1], &k) < 0)
        return -1;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    if (k > u->pos && !event_in_range(s, u, k))
        return -1;
    return jump(s, u, k, "goto");
}

static int cmd_reverse_stepi(session *s, int argc, char **argv) {
    uint32_t n;
    if (cmd_unflatten_optional_count(s, argc, argv, &n) < 0)
        return -1;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    return jump(s, u, n > u->pos ? 0 : u->pos - n, "step");
}

/* reverse-step N: back to the N-th COPY before this point (event 0 when
 * there are not that many). */
static int cmd_reverse_step(session *s, int argc, char **argv) {
    uint32_t n;
    if (cmd_unflatten_optional_count(s, argc, argv, &n) < 0)
        return -1;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    uint32_t k = exdb_step_reverse_copies(u, n);
    return jump(s, u, k, "step");
}

/* reverse-next undoes next: back to the previous COPY in this frame (or
 * its ENTER), passing over the child frames that ran in between. */
static int cmd_reverse_next(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    uint32_t k = exdb_step_reverse_next(u);
    return jump(s, u, k, "step");
}

/* reverse-finish: back to just before the current frame was entered. */
static int cmd_reverse_finish(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    uint32_t k;
    if (exdb_step_reverse_finish(u, exdb_unflatten_depth(u), &k) < 0)
        return cmd_fail(s, "\"reverse-finish\" not meaningful in the outermost frame.");
    return jump(s, u, k, "step");
}

/* reverse-continue's breakpoint test: the report of the last hit is kept. */
typedef struct rc_ctx {
    session *s;
    exdb_buf why;
    char *last_why;
} rc_ctx;

static int rc_check(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev) {
    rc_ctx *c = ctx;
    exdb_buf_reset(&c->why);
    return cmd_break_check(c->s, u, ev, 0, &c->why);
}

static void rc_observe(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev, int stop) {
    (void)u;
    (void)ev;
    (void)stop;
    rc_ctx *c = ctx;
    free(c->last_why);
    c->last_why = strdup(exdb_buf_str(&c->why));
}

/* reverse-continue: replays from the start with the breakpoints tested
 * (nothing counted), and goes to the last event before this one that hits
 * one; event 0 when none does. */
static int cmd_reverse_continue(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    uint32_t target = u->pos, last = 0;
    rc_ctx c = {.s = s};
    exdb_buf_init(&c.why);
    exdb_step st = {
        .check = rc_check, .observe = rc_observe, .ctx = &c, .interrupt = &exdb_interrupted};
    exdb_error err = {0};
    if (exdb_unflatten_goto(u, 0, &err) < 0) {
        exdb_buf_free(&c.why);
        return cmd_fail(s, "%s", err.msg);
    }
    cmd_break_arm(s, u);
    exdb_step_reverse_continue(u, target, &st, &last, &err);
    int last_bp = st.bp;
    char *last_why = c.last_why;
    exdb_buf_free(&c.why);
    int interrupted = st.reason == EXDB_STOP_INTERRUPT;
    int quiet = last_bp && !interrupted && cmd_break_silent(s);
    if (last_bp && last_why && !quiet)
        exdb_buf_printf(&s->buf, "%s%s%s%s", cmd_color(s, C_RED), last_why, cmd_color(s, C_RESET),
                        last_why[0] && last_why[strlen(last_why) - 1] == '\n' ? "" : ", ");
    else if (!interrupted && !last_bp)
        exdb_buf_puts(&s->buf, "No breakpoint before this event: back at the start.\n");
    free(last_why);
    if (interrupted) {
        exdb_buf_printf(&s->buf, "Interrupted; back at event %u.\n", target);
        last = target;
    }
    if (last_bp)
        cmd_json_add(s, "breakpoint", cJSON_CreateNumber(last_bp));
    if (quiet)
        cmd_json_add(s, "silent", cJSON_CreateTrue());
    return jump_ex(s, u, last, interrupted ? "interrupt" : last_bp ? "breakpoint" : "start", quiet);
}

#define P (CMD_NEEDS_PROGRAM | CMD_STOPS)
#define R (CMD_NEEDS_PROGRAM | CMD_REPEAT | CMD_STOPS)
#define I CMD_NEEDS_PROGRAM /* inspects: does not move the run */

/* The subcommand words unflatten reads itself (a unique prefix names one). */
static const subcommand unflatten_subs[] = {
    {"run", NULL, -1, 1}, {"restart", NULL, -1, 1}, {NULL, NULL, 0, 0}};

const command unflatten_commands[] = {
    {"run", 0, 0, P, "run",
     "Unflatten from the start until a breakpoint, Ctrl-C, an error or the end.",
     "Starts a fresh run of torch.export.unflatten (event 0) and continues it. See\n"
     "\"help unflatten\" for the events, \"help break\" for where it stops.",
     cmd_run, NULL, NULL},
    {"start", 0, 0, P, "start",
     "Run from the start to the first node that is not a placeholder (as gdb's start).",
     "Sets a temporary breakpoint on the first flat node that is not a placeholder (the\n"
     "program's first computation, as main is a C program's) and runs: the run stops\n"
     "after that node is copied, in the module frames it belongs to. A breakpoint met\n"
     "before it stops the run first, and the temporary one stays.",
     cmd_start, NULL, NULL},
    {"restart", 0, 0, P, "restart", "Back to event 0: the prepasses done, nothing outlined.", NULL,
     cmd_restart, NULL, NULL},
    {"step", 0, 1, R, "step [N]", "Run to the N-th next flat node copied, entering module frames.",
     "Prints each event passed, as PyTorch's _ModuleFrame trace words it:\n"
     "  [K] STEP i in FRAME: copying %node : ...           (copy_node)\n"
     "  [K] STEP i in FRAME: Creating new stack frame for FQN (TYPE, call N of MODULE_ID)\n"
     "  [K] STEP i in FRAME: outlining FQN (N nodes copied; called as %node in PARENT)\n"
     "[K] is the event number (\"goto K\" comes back), i the flat node index (upstream's\n"
     "node_idx), FRAME the frame doing it. Stops early at a breakpoint.",
     cmd_step, NULL, NULL},
    {"stepi", 0, 1, R, "stepi [N]", "Apply N unflatten events (default 1), printing each.",
     "Events: COPY, ENTER, EXIT (outlining), then the later phases IVAL, ATTRS, STATE,\n"
     "SINK, DEDUP, DISPATCH, REORDER and DONE (see \"help unflatten\").",
     cmd_stepi, NULL, NULL},
    {"next", 0, 1, R, "next [N]",
     "Run to the next node copied in this frame, over child module frames.", NULL, cmd_next, NULL,
     NULL},
    {"finish", 0, 0, R, "finish",
     "Run until the selected frame exits; print the call_module node left in its parent.", NULL,
     cmd_finish, NULL, NULL},
    {"continue", 0, 0, R, "continue",
     "Run until a breakpoint, a watchpoint, Ctrl-C, an error or the end.", NULL, cmd_continue, NULL,
     NULL},
    {"reverse-step", 0, 1, R, "reverse-step [N]", "Go back to the N-th flat node copied before.",
     "The run is deterministic: going back replays it from the start to that event.",
     cmd_reverse_step, NULL, NULL},
    {"reverse-stepi", 0, 1, R, "reverse-stepi [N]", "Go back N unflatten events (default 1).", NULL,
     cmd_reverse_stepi, NULL, NULL},
    {"reverse-next", 0, 0, R, "reverse-next",
     "Go back to the previous node copied in this frame, over child frames.", NULL,
     cmd_reverse_next, NULL, NULL},
    {"reverse-finish", 0, 0, R, "reverse-finish",
     "Go back to just before the current frame was created.", NULL, cmd_reverse_finish, NULL, NULL},
    {"reverse-continue", 0, 0, R, "reverse-continue",
     "Go back to the last event before this one that hits a breakpoint.", NULL,
     cmd_reverse_continue, NULL, NULL},
    {"goto", 1, 1, P, "goto K", "Go to the state right after event K (0: the start).",
     "Forwards or backwards (going back replays the run: it is deterministic). A K past the\n"
     "last event, or past an event that fails, is an error and the run stays where it is.",
     cmd_goto, NULL, NULL},
    {"until", 0, 2, P | CMD_REPEAT_BARE, "until [LOCATION]",
     "Run until LOCATION in this frame, or until the selected frame exits.",
     "Without LOCATION, as next (the outliner has no loops to skip). LOCATION is:\n"
     "  K             the state after event K (ahead of the cursor)\n"
     "  NODE          after the flat node NODE is copied into this frame or an outer one\n"
     "  module FQN    when a frame for FQN is created here (exit FQN, op GLOB, event KIND:\n"
     "                as \"help break\")\n"
     "Breakpoints still stop it. \"advance\" also stops in deeper frames.",
     cmd_until, NULL, NULL, NULL, CMPL_BREAK},
    {"advance", 1, 2, P, "advance LOCATION",
     "Run until LOCATION (anywhere), or until the selected frame exits.",
     "LOCATION as for until (K, NODE, module FQN, exit FQN, op GLOB, event KIND), but\n"
     "reached in any frame, deeper ones too. Breakpoints still stop it.",
     cmd_advance, NULL, NULL, NULL, CMPL_BREAK},
    {"unflatten", 0, 1, P, "unflatten [run|restart]",
     "Run torch.export.unflatten to the end, ignoring breakpoints (restart: event 0).",
     "Replays the newest upstream UnflattenedModule.__init__: the mutation and module-stack\n"
     "prepasses, the _ModuleFrame outliner, _IVals, _copy_graph_attrs, state assignment,\n"
     "_sink_params, _deduplicate_modules, _dispatch_modules, _reorder_submodules and the\n"
     "root graph's final Graph.lint(). Each decision is one event:\n"
     "  COPY      a flat node copied into the current frame (_ModuleFrame.copy_node)\n"
     "  ENTER     a new _ModuleFrame for a module call (fqn, call index)\n"
     "  EXIT      a frame finalized (finalize_outputs): outputs wired into the parent\n"
     "  IVAL      one aten.copy_ re-inserted by _IVals.update\n"
     "  ATTRS     one module's HOP graph attributes (_copy_graph_attrs)\n"
     "  STATE     parameters, buffers and constants assigned (_assign_attr)\n"
     "  SINK      one module's placeholders sunk into get_attr nodes (_sink_params)\n"
     "  DEDUP     one call compared with earlier calls (_deduplicate_modules)\n"
     "  DISPATCH  a multiply-called preserved fqn dispatched, or call indices elided\n"
     "  REORDER   submodules re-registered in call-graph order\n"
     "  DONE      the root graph linted (self.graph.lint()): the module is complete",
     cmd_unflatten, unflatten_subs, NULL, NULL, CMPL_NONE},
    {"backtrace", 0, 0, I, "backtrace", "The outliner's frame stack, innermost (#0) first.",
     "#N  FQN[@call]  TYPE  K copied, P placeholders, call C of MODULE_ID, as %node in PARENT\n"
     "FQN@N is the N-th extra call of a module (PyTorch's _call_name); MODULE_ID is the\n"
     "nn_module_stack key the calls share (seen_modules); %node is the call_module node\n"
     "the frame is building in its parent's graph.",
     cmd_frames_backtrace, NULL, NULL},
    {"frame", 0, 1, I, "frame [N]", "Select frame N of the backtrace (default: show the selected).",
     "info frame, info node-map, info placeholders and print frame use the selected frame.",
     cmd_frames_frame, NULL, NULL},
    {"up", 0, 1, I, "up [N]", "Select the frame N levels up (towards the root).", NULL,
     cmd_frames_up, NULL, NULL},
    {"down", 0, 1, I, "down [N]", "Select the frame N levels down (towards #0).", NULL,
     cmd_frames_down, NULL, NULL},
    {"list", 0, 2, I | CMD_REPEAT, "list [NODE|INDEX] | list source [NODE|FILE:LINE]",
     "The flat nodes around the cursor (or NODE): copied ones and the next (=>).",
     "Columns: the cursor (=> the next node the outliner looks at), the flat index\n"
     "(upstream's node_idx), copied or not, the node, its target, the module of its\n"
     "nn_module_stack (fqn@N for a repeated call) and, when it differs, the frame it was\n"
     "copied into. \"set listsize N\" sets the window; \"list\" again (or an empty line)\n"
     "shows the next nodes.\n"
     "list source [NODE|FILE:LINE]: the Python file around a node's source line (the\n"
     "innermost frame of its stack_trace; without NODE the node of the last COPY), as\n"
     "gdb's list; FILE:LINE takes a file suffix (resnet.py:92). A file that moved is\n"
     "found through \"set substitute-path FROM TO\"; a file not here shows the line\n"
     "as the stack trace has it.",
     cmd_list, NULL, NULL},
};
const size_t unflatten_ncommands = sizeof unflatten_commands / sizeof *unflatten_commands;
