/* cmd_unflatten.c - the unflatten commands: run torch.export.unflatten on
 * the loaded program, look at the module tree and module graphs, and step
 * the engine one event at a time, forwards and backwards, as gdb steps a
 * program. (The full stepping REPL is a later issue; these drive the
 * engine API of core/unflatten.h.)
 *
 * `info modules` and `print module FQN` (in the program table) call
 * cmd_unflatten_info_modules and cmd_unflatten_print_module. */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "core/unflatten.h"

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
    }
    return s->run;
}

static void show_event(session *s, exdb_unflatten *u) {
    if (u->pos == 0) {
        exdb_buf_puts(&s->buf, "event 0: start (prepasses done)\n");
        return;
    }
    exdb_buf_printf(&s->buf, "event %u: ", u->pos);
    exdb_unflatten_describe(&s->buf, u, &u->log[u->pos - 1]);
    exdb_buf_putc(&s->buf, '\n');
}

/* Prints where the run stopped; a failed step prints its error. */
static int after_step(session *s, exdb_unflatten *u, int rc, exdb_error *err) {
    if (rc < 0) {
        show_event(s, u);
        cmd_flush(s, 1);
        return cmd_fail(s, "%s", err->msg);
    }
    show_event(s, u);
    if (rc == 0 && exdb_unflatten_done(u))
        exdb_buf_puts(&s->buf, "unflatten complete\n");
    cmd_flush(s, 1);
    return 0;
}

static int parse_count(session *s, int argc, char **argv, uint32_t *n) {
    *n = 1;
    if (argc < 2)
        return 0;
    char *end;
    long v = strtol(argv[1], &end, 10);
    if (*end || v < 0 || v > 100000000)
        return cmd_fail(s, "Expected a count, found \"%s\".", argv[1]);
    *n = (uint32_t)v;
    return 0;
}

static int cmd_unflatten(session *s, int argc, char **argv) {
    int restart = argc > 1 && strcmp(argv[1], "restart") == 0;
    if (argc > 1 && !restart && strcmp(argv[1], "run") != 0)
        return cmd_fail(s, "Unknown argument \"%s\": expected run or restart.", argv[1]);
    exdb_unflatten *u = get_run(s, 1);
    if (!u)
        return -1;
    if (restart)
        return after_step(s, u, 1, NULL);
    exdb_error err = {0};
    int rc = exdb_unflatten_run(u, &err);
    if (rc < 0)
        return after_step(s, u, rc, &err);
    exdb_buf_printf(&s->buf, "unflatten complete: %u events, %u modules\n", u->pos,
                    u->run->nmodules);
    cmd_flush(s, 1);
    return 0;
}

static int cmd_stepi(session *s, int argc, char **argv) {
    uint32_t n;
    if (parse_count(s, argc, argv, &n) < 0)
        return -1;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    exdb_error err = {0};
    int rc = 1;
    for (uint32_t i = 0; i < n && rc == 1; i++)
        rc = exdb_unflatten_step(u, NULL, &err);
    return after_step(s, u, rc, &err);
}

static int cmd_step(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    exdb_error err = {0};
    return after_step(s, u, exdb_unflatten_step_copy(u, &err), &err);
}

static int cmd_next(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    exdb_error err = {0};
    return after_step(s, u, exdb_unflatten_next(u, &err), &err);
}

static int cmd_finish(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    exdb_error err = {0};
    return after_step(s, u, exdb_unflatten_finish(u, &err), &err);
}

static int cmd_reverse_stepi(session *s, int argc, char **argv) {
    uint32_t n;
    if (parse_count(s, argc, argv, &n) < 0)
        return -1;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    exdb_error err = {0};
    int rc = exdb_unflatten_back(u, n, &err);
    return after_step(s, u, rc < 0 ? -1 : 1, &err);
}

static int cmd_goto(session *s, int argc, char **argv) {
    (void)argc;
    char *end;
    long k = strtol(argv[1], &end, 10);
    if (*end || k < 0)
        return cmd_fail(s, "Expected an event number, found \"%s\".", argv[1]);
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    exdb_error err = {0};
    int rc = exdb_unflatten_goto(u, (uint32_t)k, &err);
    return after_step(s, u, rc < 0 ? -1 : 1, &err);
}

static int cmd_backtrace(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    if (!exdb_unflatten_depth(u))
        exdb_buf_puts(&s->buf, "No frames: outlining has not started or has finished.\n");
    exdb_unflatten_backtrace(&s->buf, u);
    cmd_flush(s, 1);
    return 0;
}

static int cmd_frame(session *s, int argc, char **argv) {
    exdb_unflatten *u = get_run(s, 0);
    if (!u)
        return -1;
    uint32_t depth = exdb_unflatten_depth(u), level = 0;
    if (argc > 1) {
        char *end;
        long v = strtol(argv[1], &end, 10);
        if (*end || v < 0 || (uint32_t)v >= depth)
            return cmd_fail(s, "No frame \"%s\" (the stack has %u frames).", argv[1], depth);
        level = (uint32_t)v;
    }
    if (!depth)
        return cmd_fail(s, "No frames: outlining has not started or has finished.");
    exdb_unflatten_print_frame(&s->buf, u, exdb_unflatten_frame(u, depth - 1 - level));
    cmd_flush(s, 1);
    return 0;
}

/* The run to show: the one being stepped, or, when there is none yet, a
 * complete run (what torch.export.unflatten returns). */
static exdb_unflatten *shown_run(session *s) {
    int fresh = s->run == NULL;
    exdb_unflatten *u = get_run(s, 0);
    if (u && fresh) {
        exdb_error err = {0};
        if (exdb_unflatten_run(u, &err) < 0) {
            cmd_fail(s, "%s", err.msg);
            return NULL;
        }
    }
    return u;
}

int cmd_unflatten_info_modules(session *s) {
    exdb_unflatten *u = shown_run(s);
    if (!u)
        return -1;
    exdb_unflatten_print_modules(&s->buf, u);
    cmd_flush(s, 1);
    return 0;
}

int cmd_unflatten_print_module(session *s, const char *fqn) {
    exdb_unflatten *u = shown_run(s);
    if (!u)
        return -1;
    exdb_error err = {0};
    if (exdb_unflatten_print_module(&s->buf, u, fqn, &err) < 0) {
        exdb_buf_reset(&s->buf);
        return cmd_fail(s, "%s", err.msg);
    }
    cmd_flush(s, 1);
    return 0;
}

const command unflatten_commands[] = {
    {"unflatten", 0, 1, CMD_NEEDS_PROGRAM, "unflatten [run|restart]",
     "Run torch.export.unflatten on the program (restart: back to event 0).",
     "Replays the newest upstream UnflattenedModule.__init__: the mutation and module-stack\n"
     "prepasses, the _ModuleFrame outliner, _IVals, _copy_graph_attrs, state assignment,\n"
     "_sink_params, _deduplicate_modules, _dispatch_modules, _reorder_submodules. Each\n"
     "decision is one event (COPY, ENTER, EXIT, IVAL, ATTRS, STATE, SINK, DEDUP, DISPATCH,\n"
     "REORDER, DONE) that stepi/step/next/finish/reverse-stepi/goto move through.",
     cmd_unflatten},
    {"stepi", 0, 1, CMD_NEEDS_PROGRAM, "stepi [N]", "Apply N unflatten events (default 1).", NULL,
     cmd_stepi},
    {"step", 0, 0, CMD_NEEDS_PROGRAM, "step", "Run to the next COPY of a flat node.", NULL,
     cmd_step},
    {"next", 0, 0, CMD_NEEDS_PROGRAM, "next",
     "One event; when it enters a module frame, run until that frame exits.", NULL, cmd_next},
    {"finish", 0, 0, CMD_NEEDS_PROGRAM, "finish", "Run until the current frame exits.", NULL,
     cmd_finish},
    {"reverse-stepi", 0, 1, CMD_NEEDS_PROGRAM, "reverse-stepi [N]",
     "Go back N unflatten events (default 1).", NULL, cmd_reverse_stepi},
    {"goto", 1, 1, CMD_NEEDS_PROGRAM, "goto K", "Go to the state right after event K.", NULL,
     cmd_goto},
    {"backtrace", 0, 0, CMD_NEEDS_PROGRAM, "backtrace",
     "The outliner's frame stack, innermost first.", NULL, cmd_backtrace},
    {"frame", 0, 1, CMD_NEEDS_PROGRAM, "frame [N]",
     "node_map and node_to_placeholder of frame N of the backtrace (default 0).", NULL, cmd_frame},
};
const size_t unflatten_ncommands = sizeof unflatten_commands / sizeof *unflatten_commands;
