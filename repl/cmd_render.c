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
#include "commands.h"
#include "viz/render.h"

/* A complete unflatten run for `render module` and `render tree`
 * (exdb_unflatten_finished: the session's own, or a fresh one), so the
 * user's stepping position is left where it is once *h is ended. NULL
 * (error printed) when unflatten fails. */
static const exdb_unflatten *finished_run(session *s, exdb_ufinished *h) {
    exdb_error err = {0};
    const exdb_unflatten *u = exdb_unflatten_finished(s->run, s->prog, h, &err);
    if (!u)
        cmd_fail(s, "render: the program does not unflatten: %s", err.msg);
    return u;
}

/* ---- render's options: one row each (the views below list the ones
 * they take). --layout, --rankdir and --limit change the session's
 * settings (set layout, set render-limit...) for this call. */

static const char *const layouts[] = {"dot", "sfdp", "auto", NULL};
static const char *const rankdirs[] = {"TB", "LR", "auto", NULL};

static const cmd_opt opt_out = {.name = "-o",
                                .alias = "--output",
                                .kind = OPT_FILE,
                                .arg = "FILE",
                                .help = "the format follows the extension: .dot .svg .png "
                                        ".pdf .html"};
static const cmd_opt opt_layout = {.name = "--layout",
                                   .kind = OPT_VALUE,
                                   .arg = "dot|sfdp|auto",
                                   .values = layouts,
                                   .help = "layout engine (auto: dot up to 1,500 nodes)"};
static const cmd_opt opt_rankdir = {.name = "--rankdir",
                                    .kind = OPT_VALUE,
                                    .arg = "TB|LR|auto",
                                    .values = rankdirs,
                                    .help = "top to bottom or left to right"};
static const cmd_opt opt_limit = {.name = "--limit",
                                  .kind = OPT_VALUE,
                                  .arg = "N",
                                  .help = "refuse image layout above N nodes (default 2000)"};
static const cmd_opt opt_force = {.name = "--force", .help = "lay out even above the limit"};
static const cmd_opt opt_no_dup = {.name = "--no-dup", .help = "draw each node once"};
static const cmd_opt opt_by_module = {.name = "--by-module", .help = "one cluster per module call"};
static const char *const hides[] = {"params",   "buffers", "constants", "state",
                                    "getitems", "dead",    NULL};
static const cmd_opt opt_hide = {.name = "--hide",
                                 .kind = OPT_VALUE,
                                 .arg = "LIST",
                                 .values = hides,
                                 .need = "a list: params,buffers,constants,getitems,dead",
                                 .help = "leave out a comma list of node kinds"};
static const cmd_opt opt_depth = {.name = "--depth",
                                  .kind = OPT_COUNT,
                                  .arg = "N",
                                  .min = 1,
                                  .max = 1000,
                                  .help = "cut modules at N FQN levels"};
static const cmd_opt opt_window = {.name = "--window",
                                   .kind = OPT_COUNT,
                                   .arg = "N",
                                   .min = 1,
                                   .max = 100000,
                                   .help = "flat nodes either side of the cursor"};

/* The options every view takes come first, in this order (render_common). */
#define RENDER_COMMON &opt_out, &opt_layout, &opt_rankdir, &opt_limit, &opt_force, &opt_no_dup

static const cmd_opt *const flat_opts[] = {RENDER_COMMON, &opt_by_module, &opt_hide, NULL};
static const cmd_opt *const modules_opts[] = {RENDER_COMMON, &opt_depth, NULL};
static const cmd_opt *const common_opts[] = {RENDER_COMMON, NULL};
static const cmd_opt *const frame_opts[] = {RENDER_COMMON, &opt_window, NULL};
static const cmd_opt *const diff_opts[] = {RENDER_COMMON, &opt_hide, NULL};

static int render_common(session *s, const cmd_parsed *p, const cmd_opt *const *opts,
                         exdb_viz_view *view, exdb_viz_settings *set, const char **out) {
    static const struct {
        const cmd_opt *opt;
        const char *setting;
    } settings_opts[] = {
        {&opt_layout, "layout"}, {&opt_rankdir, "rankdir"}, {&opt_limit, "render-limit"}};
    exdb_error err = {0};
    for (size_t i = 0; i < sizeof settings_opts / sizeof *settings_opts; i++) {
        const char *val = cmd_opt_val(p, opts, settings_opts[i].opt);
        if (val && exdb_viz_set(set, settings_opts[i].setting, val, &err) < 0)
            return cmd_fail(s, "render: %s", err.msg);
    }
    *out = cmd_opt_val(p, opts, &opt_out);
    view->force = cmd_opt_val(p, opts, &opt_force) != NULL;
    view->no_dup = cmd_opt_val(p, opts, &opt_no_dup) != NULL;
    return 0;
}

/* "Wrote FILE: ..." with what was drawn (and the JSON answer's file). */
static void report_render(session *s, const char *name, const exdb_viz_view *view, const char *out,
                          const exdb_viz_stats *st) {
    if ((view->kind == EXDB_VIEW_MODULES || view->kind == EXDB_VIEW_RUN) &&
        exdb_viz_format_of(out) == EXDB_FMT_HTML) {
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
        cmd_json_add(s, "file", ja_render_file(out, name, st));
}

/* render VIEW [ARG] [OPTIONS]: word is the view's row, argv[0] its word. */
static int render_view(session *s, const char *word, int argc, char **argv);

/* The views, one row each: the word, the options it takes, its completer
 * and the exdb_view_kind render_view draws (its usage and help lines are in
 * render's help below). */
static const subcommand render_subs[] = {
    {"flat", render_view, -1, 0, flat_opts, .kind = EXDB_VIEW_FLAT},
    {"modules", render_view, -1, 0, modules_opts, .kind = EXDB_VIEW_MODULES},
    {"module", render_view, -1, 0, common_opts, CMPL_MODULE, .kind = EXDB_VIEW_MODULE},
    {"tree", render_view, -1, 0, common_opts, .kind = EXDB_VIEW_TREE},
    {"frame", render_view, -1, 0, frame_opts, .kind = EXDB_VIEW_FRAME},
    {"run", render_view, -1, 0, common_opts, .kind = EXDB_VIEW_RUN},
    {"diff", render_view, -1, 0, diff_opts, CMPL_FILE, .kind = EXDB_VIEW_DIFF},
    {NULL},
};

static int render_view(session *s, const char *word, int argc, char **argv) {
    const subcommand *sub = render_subs;
    while (strcmp(sub->word, word) != 0)
        sub++;
    exdb_viz_view view = {.kind = (exdb_view_kind)sub->kind};
    exdb_viz_settings set = s->render;
    const char *out = NULL;
    cmd_parsed p;
    if (cmd_opts_parse(s, "render", word, sub->opts, argc, argv, 1, &p) < 0 ||
        render_common(s, &p, sub->opts, &view, &set, &out) < 0)
        return -1;
    int takes_arg = view.kind == EXDB_VIEW_MODULE || view.kind == EXDB_VIEW_DIFF;
    if (p.nrest > takes_arg)
        return cmd_fail(s, "render: unknown option \"%s\" for %s.  Try \"help render\".",
                        p.rest[takes_arg], word);
    const char *hide = cmd_opt_val(&p, sub->opts, &opt_hide);
    exdb_error err = {0};
    if (hide && exdb_viz_parse_hide(hide, &view.hide, &err) < 0)
        return cmd_fail(s, "render: %s", err.msg);
    if (view.kind == EXDB_VIEW_DIFF)
        return cmd_diff_render(s, p.nrest ? p.rest[0] : NULL, out, &view, &set);
    view.by_module = cmd_opt_val(&p, sub->opts, &opt_by_module) != NULL;
    view.depth = (int)cmd_opt_num(&p, sub->opts, &opt_depth);
    view.window = (int)cmd_opt_num(&p, sub->opts, &opt_window);
    view.fqn = view.kind == EXDB_VIEW_MODULE && p.nrest ? p.rest[0] : NULL;
    if (!out)
        return cmd_fail(s, "render: say where to write: -o FILE.{dot,svg,png,pdf,html}");
    if (view.kind == EXDB_VIEW_MODULE && !view.fqn)
        return cmd_fail(s, "render: module needs a module path (\"\" for the root): render "
                           "module FQN -o FILE");
    exdb_viz_source src = {.prog = s->prog};
    exdb_ufinished fin = {0};
    if (view.kind == EXDB_VIEW_MODULE || view.kind == EXDB_VIEW_TREE ||
        view.kind == EXDB_VIEW_RUN) {
        if (!(src.done = finished_run(s, &fin)))
            return -1;
    } else if (view.kind == EXDB_VIEW_FRAME) {
        if (!(src.cur = cmd_unflatten_run(s)))
            return -1;
        src.frame_level = s->selected_frame;
    }
    exdb_viz_stats st;
    set.interrupt = &exdb_interrupted; /* Ctrl-C kills the layout, not exdb */
    int rc = exdb_viz_render(&src, &view, &set, out, &st, &err);
    exdb_unflatten_finished_end(&fin);
    if (rc < 0)
        return cmd_fail(s, "%s", err.msg);
    report_render(s, word, &view, out, &st);
    return 0;
}

static int cmd_render(session *s, int argc, char **argv) {
    int amb;
    return command_run_subcommand(s, command_lookup("render", &amb), argc, argv);
}

const command render_commands[] = {
    {"render", 1, -1, CMD_NEEDS_PROGRAM,
     "render flat|modules|module FQN|tree|frame|run|diff [FILE] [OPTIONS] -o "
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
     "                     (.html: one self-contained page, the same viewer for every\n"
     "                     view, laid out a box at a time (no --limit): pan and zoom,\n"
     "                     search names, ops, arg=value, modules; click a node for its\n"
     "                     panel, its inputs and users one click away)\n"
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
     cmd_render, render_subs, NULL, NULL, CMPL_NONE},
};
const size_t render_ncommands = sizeof render_commands / sizeof *render_commands;
