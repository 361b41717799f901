/* cmd_render.c - the `render` command: pictures of the program through
 * viz/ (Graphviz cgraph + gvc). The settings are the session's (s->render),
 * changed with `set layout ...`, `set render-limit N`..., or per call with
 * render --layout/--limit. */
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "json_answers.h"
#include "core/unflatten/unflatten.h"
#include "session.h"
#include "viz/render.h"

/* A complete unflatten run for `render module` and `render tree`: the
 * session's own when it is at DONE, else a fresh one run to the end in
 * *fresh (freed by the caller), so the user's stepping position is left
 * where it is. NULL (error printed) when unflatten fails. */
static const exdb_unflatten *finished_run(session *s, exdb_unflatten **fresh) {
    *fresh = NULL;
    if (s->run && !s->run->failed && exdb_unflatten_done(s->run))
        return s->run;
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(s->prog, &err);
    if (!u || exdb_unflatten_run(u, &err) < 0) {
        exdb_unflatten_free(u);
        cmd_fail(s, "render: the program does not unflatten: %s", err.msg);
        return NULL;
    }
    *fresh = u;
    return u;
}

static const char *const views[] = {"flat", "modules", "module", "tree", "frame", "run", NULL};
enum { V_FLAT, V_MODULES, V_MODULE, V_TREE, V_FRAME, V_RUN };

/* A count option's value: 1..max, else -1. */
static long count_arg(const char *val, long max) {
    char *end;
    long n = val ? strtol(val, &end, 10) : 0;
    return !val || *end || n < 1 || n > max ? -1 : n;
}

/* The options after `render VIEW` (view v) into *view, *set and *out. -1
 * (error printed) on an unknown option or a bad value. */
static int parse_render_args(session *s, int v, int argc, char **argv, exdb_viz_view *view,
                             exdb_viz_settings *set, const char **out) {
    exdb_error err = {0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!val)
                return cmd_fail(s, "render: %s needs a file name", a);
            *out = val;
            i++;
        } else if (strcmp(a, "--by-module") == 0 && v == V_FLAT) {
            view->by_module = 1;
        } else if (strcmp(a, "--depth") == 0 && v == V_MODULES) {
            long d = count_arg(val, 1000);
            if (d < 0)
                return cmd_fail(s, "render: --depth needs a number >= 1");
            view->depth = (int)d;
            i++;
        } else if (strcmp(a, "--layout") == 0 || strcmp(a, "--limit") == 0 ||
                   strcmp(a, "--rankdir") == 0) {
            if (!val)
                return cmd_fail(s, "render: %s needs a value", a);
            if (exdb_viz_set(set, strcmp(a, "--limit") == 0 ? "render-limit" : a + 2, val, &err) <
                0)
                return cmd_fail(s, "render: %s", err.msg);
            i++;
        } else if (strcmp(a, "--hide") == 0 && v == V_FLAT) {
            if (!val || val[0] == '-')
                return cmd_fail(s, "render: --hide needs a list: params,buffers,constants,"
                                   "getitems,dead");
            if (exdb_viz_parse_hide(val, &view->hide, &err) < 0)
                return cmd_fail(s, "render: %s", err.msg);
            i++;
        } else if (strcmp(a, "--force") == 0) {
            view->force = 1;
        } else if (strcmp(a, "--no-dup") == 0) {
            view->no_dup = 1;
        } else if (strcmp(a, "--window") == 0 && v == V_FRAME) {
            long w = count_arg(val, 100000);
            if (w < 0)
                return cmd_fail(s, "render: --window needs a number >= 1");
            view->window = (int)w;
            i++;
        } else if (v == V_MODULE && !view->fqn && a[0] != '-') {
            view->fqn = a;
        } else {
            return cmd_fail(s, "render: unknown option \"%s\" for %s.  Try \"help render\".", a,
                            views[v]);
        }
    }
    return 0;
}

/* "Wrote FILE: ..." with what was drawn (and the JSON answer's file). */
static void report_render(session *s, int v, const exdb_viz_view *view, const char *out,
                          const exdb_viz_stats *st) {
    if ((v == V_MODULES || v == V_RUN) && exdb_viz_format_of(out) == EXDB_FMT_HTML) {
        /* the module view you open and close: laid out by the page */
        fprintf(s->out,
                "Wrote %s: %u module calls, %u nodes, %u edges; opens at depth %d, the page lays "
                "a module out when it is opened.\n",
                out, st->clusters, st->nodes, st->edges, view->depth ? view->depth : 1);
    } else {
        fprintf(s->out, "Wrote %s: %u node%s, %u edge%s, %u cluster%s", out, st->nodes,
                st->nodes == 1 ? "" : "s", st->edges, st->edges == 1 ? "" : "s", st->clusters,
                st->clusters == 1 ? "" : "s");
        if (st->dup_nodes)
            fprintf(s->out, " (%u dashed cop%s of high-fan-out nodes)", st->dup_nodes,
                    st->dup_nodes == 1 ? "y" : "ies");
        if (s->timing) {
            fprintf(s->out, "; built in %.2f s", st->build_s);
            if (st->engine)
                fprintf(s->out, ", %s layout %.2f s, rendered in %.2f s", st->engine, st->layout_s,
                        st->write_s);
            else
                fprintf(s->out, ", written in %.2f s", st->write_s);
        } else if (st->engine) {
            fprintf(s->out, "; %s layout", st->engine);
        }
        fputs(".\n", s->out);
    }
    if (st->note[0])
        fprintf(s->out, "%s\n", st->note);
    if (s->json)
        cmd_json_add(s, "file", ja_render_file(out, views[v], st));
}

static int cmd_render(session *s, int argc, char **argv) {
    if (strcmp(argv[1], "diff") == 0)
        return cmd_diff_render(s, argc, argv);
    int v = cmd_pick(s, "render", argv[1], views);
    if (v < 0)
        return -1;
    static const exdb_view_kind kinds[] = {EXDB_VIEW_FLAT, EXDB_VIEW_MODULES, EXDB_VIEW_MODULE,
                                           EXDB_VIEW_TREE, EXDB_VIEW_FRAME, EXDB_VIEW_RUN};
    exdb_viz_view view = {.kind = kinds[v]};
    exdb_viz_settings set = s->render;
    const char *out = NULL;
    if (parse_render_args(s, v, argc, argv, &view, &set, &out) < 0)
        return -1;
    if (!out)
        return cmd_fail(s, "render: say where to write: -o FILE.{dot,svg,png,pdf,html}");
    if (v == V_MODULE && !view.fqn)
        return cmd_fail(s, "render: module needs a module path (\"\" for the root): render "
                           "module FQN -o FILE");
    exdb_viz_source src = {.prog = s->prog};
    exdb_unflatten *fresh = NULL;
    if (v == V_MODULE || v == V_TREE || v == V_RUN) {
        if (!(src.done = finished_run(s, &fresh)))
            return -1;
    } else if (v == V_FRAME) {
        if (!(src.cur = cmd_unflatten_run(s)))
            return -1;
        src.frame_level = s->selected_frame;
    }
    exdb_viz_stats st;
    exdb_error err = {0};
    set.interrupt = &exdb_interrupted; /* Ctrl-C kills the layout, not exdb */
    int rc = exdb_viz_render(&src, &view, &set, out, &st, &err);
    exdb_unflatten_free(fresh);
    if (rc < 0)
        return cmd_fail(s, "%s", err.msg);
    report_render(s, v, &view, out, &st);
    return 0;
}

const command render_commands[] = {
    {"render", 1, -1, CMD_NEEDS_PROGRAM,
     "render flat|modules|module FQN|tree|frame|diff [FILE] [OPTIONS] -o "
     "FILE.{dot,svg,png,pdf,html}",
     "Draw the program or the unflattener with Graphviz.",
     "render flat [--by-module] [--hide LIST]\n"
     "                                the exported graph; --by-module nests the nodes in\n"
     "                                one cluster per module call (fqn@N for repeated calls);\n"
     "                                --hide leaves out a comma list of params, buffers,\n"
     "                                constants (state: all three), getitems (the producer\n"
     "                                links to their users, \"[i]\") and dead (nodes nothing\n"
     "                                uses); state nothing uses sits beside its module's\n"
     "                                first node\n"
     "render modules [--depth N]      module-level dataflow: modules cut at N FQN levels\n"
     "                                (default 2) as nodes, values crossing them as edges;\n"
     "                                as .html the module view you open and close: the\n"
     "                                modules collapsed to depth N (default 1), a click\n"
     "                                opens a module in place, search opens the path\n"
     "render module FQN               one unflattened module's graph (\"\" is the root):\n"
     "                                placeholders, get_attr of its state, call_module\n"
     "                                nodes naming the child they call; a module with no\n"
     "                                graph (a ModuleList never called) draws its submodules;\n"
     "                                a dispatcher one cluster per call, named n, n@1...\n"
     "                                (\"call 2 of 3\", as bt); module n@1 draws that call\n"
     "render tree                     the unflattened module hierarchy: types, call counts,\n"
     "                                dispatchers, shared (deduplicated) modules in red\n"
     "render frame [--window N]       the outliner now: the frame stack (#0 innermost, as\n"
     "                                bt; the selected frame highlighted), N flat nodes\n"
     "                                either side of the cursor (default 12) done/pending,\n"
     "                                the frame's graph and its node_map edges; after\n"
     "                                outlining, the module the event (SINK, DEDUP, DISPATCH)\n"
     "                                works on, the node it changed red\n"
     "render run -o FILE.html         the outliner replayed in the module view: a timeline\n"
     "                                of every event (step, scrub, next SINK/DEDUP/DISPATCH),\n"
     "                                the frame stack, the node or module it changed\n"
     "render diff [FILE]              the loaded program's diff with FILE (help diff)\n"
     "module and tree use a complete unflatten run; when the session's run is not at\n"
     "the end a separate one is made, and the stepping position does not move.\n"
     "Options:\n"
     "  -o FILE            the format follows the extension: .dot .svg .png .pdf .html\n"
     "                     (.html: one self-contained page with the SVG, pan and zoom,\n"
     "                     search by node name (zooms to the match), click a node for\n"
     "                     its details)\n"
     "  --layout dot|sfdp|auto   layout engine (auto: dot up to 1,500 nodes, else sfdp)\n"
     "  --rankdir TB|LR|auto     top to bottom or left to right (auto: the view's own)\n"
     "  --limit N          refuse image layout above N nodes (default 2000); .dot never\n"
     "  --force            lay out even above the limit\n"
     "  --no-dup           draw each node once (by default a node with more than 8 far\n"
     "                     uses gets one dashed copy per use: dot is very slow otherwise)\n"
     "Placeholders are coloured by kind: user input blue, parameter orange, buffer green,\n"
     "constant purple, token red; mutations are red edges into the output. Node ids in\n"
     "SVG are the FX node names; tooltips show the full node, its value, module stack\n"
     "and source line. Labels use DejaVu Sans. Files are rendered in\n"
     "memory, then written atomically, never over the loaded program and only over a\n"
     "regular file (not a device, a FIFO or a link).",
     cmd_render, NULL, NULL},
};
const size_t render_ncommands = sizeof render_commands / sizeof *render_commands;
