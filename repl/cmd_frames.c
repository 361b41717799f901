/* cmd_frames.c - the outliner's frames as gdb's stack: backtrace, frame,
 * up, down, info frame, the node maps, seen nodes and modules, ivals (see
 * cmd_frames.h). */
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
#include "cmd_frames.h"
#include "cmd_unflatten.h"

/* ---- frames */

const exdb_uframe *cmd_frames_at(session *s, const exdb_unflatten *u, uint32_t level) {
    uint32_t depth = exdb_unflatten_depth(u);
    if (!depth) {
        cmd_fail(s, "No frames: %s.",
                 u->pos == 0 ? "outlining has not started (\"step\" starts it)"
                             : "outlining has finished (\"reverse-step\" goes back into it)");
        return NULL;
    }
    if (level >= depth) {
        cmd_fail(s, "No frame at level %u (the stack has %u frame%s).", level, depth,
                 depth == 1 ? "" : "s");
        return NULL;
    }
    return exdb_unflatten_frame(u, depth - 1 - level);
}

/* The frame a command names ("info node-map 2") or the selected one. */
static const exdb_uframe *frame_arg(session *s, const exdb_unflatten *u, int argc, char **argv) {
    uint32_t level = s->selected_frame;
    if (argc > 1) {
        const char *w = argv[1][0] == '#' ? argv[1] + 1 : argv[1];
        if (cmd_parse_count(s, w, &level) < 0)
            return NULL;
    }
    return cmd_frames_at(s, u, level);
}

/* A frame's module type; the root frame's stack says None, so the
 * program's root type (what UnflattenedModule is built from) stands in. */
static int str_width(const char *t) {
    return (int)strlen(t);
}

/* One backtrace line, padded to the widths of the whole stack. */
static void bt_line(session *s, const exdb_unflatten *u, const exdb_uframe *f, uint32_t level,
                    int wl, int wt) {
    exdb_buf *b = &s->buf;
    exdb_buf_printf(b, "%s#%-2u%s %s%-*s%s  %-*s", cmd_color(s, C_BOLD), level,
                    cmd_color(s, C_RESET), cmd_color(s, C_CYAN), wl,
                    cmd_unflatten_label(f->child_fqn), cmd_color(s, C_RESET), wt,
                    exdb_unflatten_frame_type(u, f));
    exdb_buf_printf(b, "  %u copied", f->ncopied);
    if (f->parent) {
        exdb_buf_printf(b, ", %u placeholder%s, call %d of %s", f->node_to_placeholder.n,
                        f->node_to_placeholder.n == 1 ? "" : "s", f->num_calls + 1, f->module_id);
        if (f->parent_call_module)
            exdb_buf_printf(b, ", as %%%s in %s", f->parent_call_module->name,
                            cmd_unflatten_label(f->parent->child_fqn));
    }
    if (f->sig)
        exdb_buf_puts(b, ", preserved signature");
    cmd_source_frame_at(s, b, u, f);
    exdb_buf_putc(b, '\n');
}

static cJSON *frame_json(const exdb_unflatten *u, const exdb_uframe *f, uint32_t level) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "level", level);
    cJSON_AddNumberToObject(o, "index", f->index);
    cJSON_AddStringToObject(o, "fqn", f->child_fqn ? f->child_fqn : "");
    cJSON_AddStringToObject(o, "type", exdb_unflatten_frame_type(u, f));
    cJSON_AddNumberToObject(o, "copied", f->ncopied);
    cJSON_AddNumberToObject(o, "placeholders", f->node_to_placeholder.n);
    if (f->parent) {
        cJSON_AddNumberToObject(o, "call", f->num_calls + 1);
        cJSON_AddStringToObject(o, "module_id", f->module_id ? f->module_id : "");
        if (f->parent_call_module)
            cJSON_AddStringToObject(o, "parent_call", f->parent_call_module->name);
    }
    cJSON_AddBoolToObject(o, "preserved", f->sig != NULL);
    return o;
}

int cmd_frames_backtrace(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (!u)
        return -1;
    uint32_t depth = exdb_unflatten_depth(u);
    if (!depth) {
        fprintf(s->out, "No frames: %s.\n",
                u->pos == 0 ? "outlining has not started (\"step\" starts it)"
                            : "outlining has finished");
        cmd_json_add(s, "frames", cJSON_CreateArray());
        return 0;
    }
    int wl = 0, wt = 0;
    for (uint32_t i = 0; i < depth; i++) {
        const exdb_uframe *f = exdb_unflatten_frame(u, i);
        int l = str_width(cmd_unflatten_label(f->child_fqn)),
            t = str_width(exdb_unflatten_frame_type(u, f));
        wl = l > wl ? l : wl;
        wt = t > wt ? t : wt;
    }
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t level = 0; level < depth; level++) {
        const exdb_uframe *f = exdb_unflatten_frame(u, depth - 1 - level);
        bt_line(s, u, f, level, wl, wt);
        if (arr)
            cJSON_AddItemToArray(arr, frame_json(u, f, level));
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "frames", arr);
    return 0;
}

/* frame [N], up [N], down [N]: select a frame and print its line. */
static int select_frame(session *s, uint32_t level) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (!u)
        return -1;
    const exdb_uframe *f = cmd_frames_at(s, u, level);
    if (!f)
        return -1;
    s->selected_frame = level;
    bt_line(s, u, f, level, 0, 0);
    cmd_flush(s, 1);
    cmd_json_add(s, "frame", frame_json(u, f, level));
    return 0;
}

int cmd_frames_frame(session *s, int argc, char **argv) {
    uint32_t level = s->selected_frame;
    if (argc > 1 && cmd_parse_count(s, argv[1][0] == '#' ? argv[1] + 1 : argv[1], &level) < 0)
        return -1;
    return select_frame(s, level);
}

int cmd_frames_up(session *s, int argc, char **argv) {
    uint32_t n;
    if (cmd_unflatten_optional_count(s, argc, argv, &n) < 0)
        return -1;
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (!u)
        return -1;
    uint32_t depth = exdb_unflatten_depth(u);
    if (depth && s->selected_frame + 1 >= depth)
        return cmd_fail(s, "Initial frame selected; you cannot go up.");
    uint32_t level = s->selected_frame + n;
    return select_frame(s, depth && level >= depth ? depth - 1 : level);
}

int cmd_frames_down(session *s, int argc, char **argv) {
    uint32_t n;
    if (cmd_unflatten_optional_count(s, argc, argv, &n) < 0)
        return -1;
    if (s->selected_frame == 0)
        return cmd_fail(s, "Bottom (innermost) frame selected; you cannot go down.");
    return select_frame(s, n > s->selected_frame ? 0 : s->selected_frame - n);
}

/* ---- inspection: info frame|node-map|placeholders|seen-nodes|seen-modules|ivals */

static void print_stack(exdb_buf *b, const exdb_uframe *f) {
    exdb_buf_puts(b, "[");
    for (uint32_t i = 0; i < f->depth; i++)
        exdb_buf_printf(b, "%s('%s', %s%s%s, %d)", i ? ", " : "", f->stack_fqn[i],
                        f->stack_ty[i] ? "'" : "", f->stack_ty[i] ? f->stack_ty[i] : "None",
                        f->stack_ty[i] ? "'" : "", f->stack_calls[i]);
    exdb_buf_puts(b, "]");
}

/* The backtrace level of frame f (0 = innermost). */
static uint32_t frame_level_of(const exdb_unflatten *u, const exdb_uframe *f) {
    uint32_t level = 0, depth = exdb_unflatten_depth(u);
    for (uint32_t i = 0; i < depth; i++)
        if (exdb_unflatten_frame(u, i) == f)
            level = depth - 1 - i;
    return level;
}

static int info_frame(session *s, const exdb_unflatten *u, const exdb_uframe *f) {
    uint32_t level = frame_level_of(u, f);
    exdb_buf *b = &s->buf;
    exdb_buf_printf(b, "Frame #%u (the %u%s frame created): %s\n", level, f->index + 1,
                    exdb_ordinal_suffix(f->index + 1), cmd_unflatten_label(f->child_fqn));
    exdb_buf_printf(b, "  module type:   %s\n", exdb_unflatten_frame_type(u, f));
    if (f->parent) {
        exdb_buf_printf(b, "  module id:     %s (call %d)\n", f->module_id, f->num_calls + 1);
        exdb_buf_printf(b, "  called as:     ");
        if (f->parent_call_module)
            exdb_format_node(b, f->parent_call_module);
        exdb_buf_printf(b, "\n                 in %s (frame #%u)\n",
                        cmd_unflatten_label(f->parent->child_fqn), level + 1);
        exdb_buf_printf(b, "  signature:     %s\n",
                        f->sig ? "preserved (module_call_graph has one for this call)"
                               : "none (inputs and outputs follow the nodes' uses)");
    }
    exdb_buf_puts(b, "  module_stack:  ");
    print_stack(b, f);
    uint32_t nodes = f->graph ? f->graph->count : 0;
    exdb_buf_printf(b, "\n  graph:         %u node%s; %u flat node%s copied\n", nodes, cmd_s(nodes),
                    f->ncopied, cmd_s(f->ncopied));
    exdb_buf_printf(b, "  node_map:      %u entr%s (\"info node-map %u\")\n", f->node_map.n,
                    f->node_map.n == 1 ? "y" : "ies", level);
    exdb_buf_printf(b, "  placeholders:  %u (\"info placeholders %u\")\n", f->node_to_placeholder.n,
                    level);
    cmd_flush(s, 1);
    cmd_json_add(s, "frame", frame_json(u, f, level));
    return 0;
}

/* info node-map / info placeholders: flat node -> this frame's node. For a
 * placeholder, the node that feeds it in the parent frame. */
static int info_map(session *s, const exdb_uframe *f, int placeholders) {
    const exdb_unodemap *m = placeholders ? &f->node_to_placeholder : &f->node_map;
    exdb_buf *b = &s->buf;
    exdb_buf_printf(b, "%s of %s (%u entr%s):\n", placeholders ? "node_to_placeholder" : "node_map",
                    cmd_unflatten_label(f->child_fqn), m->n, m->n == 1 ? "y" : "ies");
    int w = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        int l = str_width(m->e[i].key->name);
        w = l > w ? l : w;
    }
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t i = 0; i < m->n; i++) {
        exdb_buf_printf(b, "  %%%-*s -> %%%s", w, m->e[i].key->name, m->e[i].val->name);
        const exdb_node *feed = NULL;
        if (placeholders && f->parent) {
            feed = exdb_unflatten_mapped(&f->parent->node_map, m->e[i].key);
            if (!feed)
                feed = exdb_unflatten_mapped(&f->parent->node_to_placeholder, m->e[i].key);
        }
        if (feed)
            exdb_buf_printf(b, "  (fed by %%%s in %s)", feed->name,
                            cmd_unflatten_label(f->parent->child_fqn));
        else if (!placeholders && m->e[i].val->op != EXDB_OP_CALL_FUNCTION)
            exdb_buf_printf(b, "  (%s)", exdb_op_name(m->e[i].val->op));
        exdb_buf_putc(b, '\n');
        if (arr) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "flat", m->e[i].key->name);
            cJSON_AddStringToObject(o, "node", m->e[i].val->name);
            cJSON_AddStringToObject(o, "op", exdb_op_name(m->e[i].val->op));
            if (feed)
                cJSON_AddStringToObject(o, "fed_by", feed->name);
            cJSON_AddItemToArray(arr, o);
        }
    }
    cmd_flush(s, 1);
    cmd_json_add(s, placeholders ? "placeholders" : "node_map", arr);
    return 0;
}

/* The frame each flat node was copied into, from the event log (-1: none). */
int32_t *cmd_frames_copy(const exdb_unflatten *u) {
    int32_t *fr = malloc((u->run->nnodes + 1) * sizeof *fr);
    if (!fr)
        return NULL;
    for (uint32_t i = 0; i <= u->run->nnodes; i++)
        fr[i] = -1;
    for (uint32_t k = 0; k < u->pos; k++) {
        const exdb_uevent *e = &u->log[k];
        if (e->kind == EXDB_EV_COPY && e->flat >= 0 && (uint32_t)e->flat < u->run->nnodes)
            fr[e->flat] = e->frame;
    }
    return fr;
}

static int info_seen_nodes(session *s, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    int32_t *fr = cmd_frames_copy(u);
    if (!fr)
        return cmd_fail(s, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        n += r->seen[r->nodes[i]->id] != 0;
    exdb_buf_printf(&s->buf, "seen_nodes: %u of %u flat node%s copied\n", n, r->nnodes,
                    cmd_s(r->nnodes));
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        if (!r->seen[r->nodes[i]->id])
            continue;
        const exdb_uframe *f = cmd_unflatten_frame_by_index(u, fr[i]);
        exdb_buf_printf(&s->buf, "  %%%s -> %s\n", r->nodes[i]->name,
                        f ? cmd_unflatten_label(f->child_fqn) : "?");
        if (arr) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "node", r->nodes[i]->name);
            cJSON_AddStringToObject(o, "fqn", f && f->child_fqn ? f->child_fqn : "");
            cJSON_AddItemToArray(arr, o);
        }
    }
    free(fr);
    cmd_flush(s, 1);
    cmd_json_add(s, "seen_nodes", arr);
    return 0;
}

static int info_seen_modules(session *s, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    exdb_buf *b = &s->buf;
    exdb_buf_printf(b, "seen_modules: %u module id%s\n", r->nparts, r->nparts == 1 ? "" : "s");
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t p = 0; p < r->nparts; p++) {
        const exdb_upartition *pt = &r->parts[p];
        exdb_buf_printf(b, "  %s: %u call%s\n", pt->module_id, pt->n, pt->n == 1 ? "" : "s");
        cJSON *calls = arr ? cJSON_CreateArray() : NULL;
        for (uint32_t e = 0; e < pt->n; e++) {
            const exdb_uentry *en = &pt->entries[e];
            exdb_buf_printf(b, "    %s call_idx=%d in %s as %%%s (module #%u)\n",
                            cmd_unflatten_label(en->fqn), en->call_idx,
                            cmd_unflatten_label(en->parent_fqn), en->parent_call_module->name,
                            en->module->id);
            if (calls) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "fqn", en->fqn);
                cJSON_AddNumberToObject(o, "call_idx", en->call_idx);
                cJSON_AddStringToObject(o, "parent_fqn", en->parent_fqn);
                cJSON_AddStringToObject(o, "parent_call", en->parent_call_module->name);
                cJSON_AddItemToArray(calls, o);
            }
        }
        if (arr) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "module_id", pt->module_id);
            cJSON_AddItemToObject(o, "calls", calls);
            cJSON_AddItemToArray(arr, o);
        }
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "seen_modules", arr);
    return 0;
}

static int info_ivals(session *s, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    exdb_buf *b = &s->buf;
    exdb_buf_printf(b, "_IVals: %u module%s read intermediate values of mutated buffers\n",
                    r->nivals, r->nivals == 1 ? "" : "s");
    cJSON *obj = s->json ? cJSON_CreateObject() : NULL;
    for (uint32_t i = 0; i < r->nivals; i++) {
        const exdb_ustrset *set = r->ivals[i];
        exdb_buf_printf(b, "  %s:", cmd_unflatten_label(set->key));
        cJSON *names = obj ? cJSON_CreateArray() : NULL;
        for (uint32_t k = 0; k < set->n; k++) {
            exdb_buf_printf(b, " %s", set->items[k]);
            if (names)
                cJSON_AddItemToArray(names, cJSON_CreateString(set->items[k]));
        }
        exdb_buf_putc(b, '\n');
        if (obj)
            cJSON_AddItemToObject(obj, set->key, names);
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "ivals", obj);
    return 0;
}

/* ---- info WORD: each word's row in commands.c's info table points at
 * its function here (argv[0] is the word; arity is checked there) */

int cmd_frames_info_frame(session *s, const char *word, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    const exdb_uframe *f = u ? frame_arg(s, u, argc, argv) : NULL;
    if (!f)
        return -1;
    if (strcmp(word, "frame") == 0)
        return info_frame(s, u, f);
    return info_map(s, f, strcmp(word, "placeholders") == 0);
}

int cmd_frames_info_seen_nodes(session *s, const char *word, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    return u ? info_seen_nodes(s, u) : -1;
}

int cmd_frames_info_seen_modules(session *s, const char *word, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    return u ? info_seen_modules(s, u) : -1;
}

int cmd_frames_info_ivals(session *s, const char *word, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    return u ? info_ivals(s, u) : -1;
}

int cmd_frames_info_events(session *s, const char *word, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    return u ? cmd_list_info_events(s, u, argc, argv) : -1;
}

int cmd_frames_print(session *s, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (!u)
        return -1;
    if (argc > 2)
        return cmd_fail(s, "Usage: print frame [N]");
    const exdb_uframe *f = frame_arg(s, u, argc, argv);
    if (!f)
        return -1;
    exdb_buf_printf(&s->buf, "# %s, so far (%u flat node%s copied)\n",
                    cmd_unflatten_label(f->child_fqn), f->ncopied, cmd_s(f->ncopied));
    exdb_print_graph(&s->buf, f->graph);
    cmd_flush(s, 1);
    if (s->json) {
        cmd_json_add(s, "frame", frame_json(u, f, frame_level_of(u, f)));
        cmd_json_add(s, "graph", ja_graph(u->prog, f->graph));
    }
    return 0;
}
