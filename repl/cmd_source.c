/* cmd_source.c - the user's Python lines, as gdb shows C source: `info
 * line NODE`, `list source [NODE|FILE:LINE]`, `info lines [FQN]`, `info
 * calls FQN`, `set substitute-path FROM TO`, and the " at FILE:LINE" that
 * STEP lines and backtrace frames end with. A node's source line is the
 * innermost frame of its stack_trace (what print_readable shows above its
 * code); a module call's line is the frame of the first node of that call
 * that calls the module (exdb_stack_call_sites says how it is found). The
 * reading is in core/fx/stacktrace.c and core/fx/sourcelines.c. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "core/fx/sourcelines.h"
#include "core/fx/stacktrace.h"
#include "core/unflatten/unflatten.h"

/* `set substitute-path` rules, in the order they were made. */
struct exdb_source_paths {
    char **from, **to;
    uint32_t n, cap;
};

void cmd_source_free(session *s) {
    struct exdb_source_paths *p = s->source_paths;
    if (!p)
        return;
    for (uint32_t i = 0; i < p->n; i++) {
        free(p->from[i]);
        free(p->to[i]);
    }
    free(p->from);
    free(p->to);
    free(p);
    s->source_paths = NULL;
}

/* set substitute-path FROM TO (a rule for FROM is replaced), or
 * set substitute-path FROM (its rule removed), as gdb's set and unset. */
int cmd_source_set_substitute(session *s, int argc, char **argv) {
    if (argc < 2 || argc > 3)
        return cmd_fail(s, "Usage: set substitute-path FROM TO   (FROM alone removes its rule)");
    if (!s->source_paths && !(s->source_paths = calloc(1, sizeof *s->source_paths)))
        return cmd_fail(s, "out of memory");
    struct exdb_source_paths *p = s->source_paths;
    uint32_t i = 0;
    while (i < p->n && strcmp(p->from[i], argv[1]) != 0)
        i++;
    if (argc == 2) {
        if (i == p->n)
            return cmd_fail(s, "No substitution rule for \"%s\".", argv[1]);
        free(p->from[i]);
        free(p->to[i]);
        memmove(p->from + i, p->from + i + 1, (p->n - i - 1) * sizeof *p->from);
        memmove(p->to + i, p->to + i + 1, (p->n - i - 1) * sizeof *p->to);
        p->n--;
        return 0;
    }
    if (i == p->n && p->n == p->cap) {
        uint32_t ncap = p->cap ? p->cap * 2 : 4;
        char **nf = realloc(p->from, ncap * sizeof *nf);
        if (nf)
            p->from = nf;
        char **nt = nf ? realloc(p->to, ncap * sizeof *nt) : NULL;
        if (!nt)
            return cmd_fail(s, "out of memory");
        p->to = nt;
        p->cap = ncap;
    }
    char *from = strdup(argv[1]), *to = strdup(argv[2]);
    if (!from || !to) {
        free(from);
        free(to);
        return cmd_fail(s, "out of memory");
    }
    if (i < p->n) {
        free(p->from[i]);
        free(p->to[i]);
    } else {
        p->n++;
    }
    p->from[i] = from;
    p->to[i] = to;
    return 0;
}

/* show's line: "substitute-path: FROM -> TO, ..." or "none". */
void cmd_source_show_substitute(const session *s, exdb_buf *b) {
    const struct exdb_source_paths *p = s->source_paths;
    exdb_buf_puts(b, "substitute-path:");
    for (uint32_t i = 0; p && i < p->n; i++)
        exdb_buf_printf(b, "%s %s -> %s", i ? "," : "", p->from[i], p->to[i]);
    exdb_buf_puts(b, p && p->n ? "\n" : " none\n");
}

/* ---- how a line is shown */

/* The last component of a frame's file: "resnet.py". */
static const char *base_name(const exdb_stack_frame *f, int *len) {
    const char *b = f->file;
    for (uint32_t i = 0; i < f->file_len; i++)
        if (f->file[i] == '/')
            b = f->file + i + 1;
    *len = (int)(f->file + f->file_len - b);
    return b;
}

/* " at resnet.py:148" */
static void put_at(session *s, exdb_buf *b, const exdb_stack_frame *f) {
    int bl;
    const char *bn = base_name(f, &bl);
    exdb_buf_printf(b, " at %s%.*s:%u%s", cmd_color(s, C_GREEN), bl, bn, f->line,
                    cmd_color(s, C_RESET));
}

static cJSON *frame_json(const exdb_stack_frame *f) {
    cJSON *o = cJSON_CreateObject();
    char *t = malloc(f->file_len + f->func_len + f->code_len + 3);
    if (!o || !t) {
        free(t);
        return o;
    }
    memcpy(t, f->file, f->file_len);
    t[f->file_len] = '\0';
    cJSON_AddStringToObject(o, "file", t);
    cJSON_AddNumberToObject(o, "line", f->line);
    memcpy(t, f->func, f->func_len);
    t[f->func_len] = '\0';
    cJSON_AddStringToObject(o, "function", t);
    memcpy(t, f->code, f->code_len);
    t[f->code_len] = '\0';
    cJSON_AddStringToObject(o, "code", t);
    free(t);
    return o;
}

void cmd_source_node_at(session *s, exdb_buf *b, const exdb_node *n) {
    exdb_stack_frame f;
    if (n && n->meta && exdb_stack_innermost(exdb_meta_stack_trace(n->meta), &f))
        put_at(s, b, &f);
}

/* The flat node whose ENTER made frame f (a scan of the events so far). */
static const exdb_node *frame_first_node(const exdb_unflatten *u, const exdb_uframe *f) {
    for (uint32_t k = 0; k < u->pos && k < u->nlog; k++) {
        const exdb_uevent *ev = &u->log[k];
        if (ev->kind == EXDB_EV_ENTER && ev->frame == (int32_t)f->index && ev->flat >= 0 &&
            (uint32_t)ev->flat < u->run->nnodes)
            return u->run->nodes[ev->flat];
    }
    return NULL;
}

/* Where frame f's module was called from: the call site of its entry in
 * the trace of n, the node that made the frame. */
static int frame_site(const exdb_uframe *f, const exdb_node *n, exdb_stack_frame *site) {
    if (!f->parent || !n || !f->fqn)
        return 0;
    int32_t e = exdb_source_entry_of(n, f->fqn);
    return e >= 0 && exdb_source_call_site(n, (uint32_t)e, site);
}

void cmd_source_enter_at(session *s, exdb_buf *b, const exdb_uframe *f, const exdb_node *n) {
    exdb_stack_frame site;
    if (frame_site(f, n, &site))
        put_at(s, b, &site);
}

void cmd_source_frame_at(session *s, exdb_buf *b, const exdb_unflatten *u, const exdb_uframe *f) {
    if (f->parent)
        cmd_source_enter_at(s, b, f, frame_first_node(u, f));
}

/* ---- info line NODE */

static const exdb_node *node_arg(session *s, const char *word) {
    const exdb_node *n = exdb_graph_find(s->prog->graph, word[0] == '%' ? word + 1 : word);
    if (!n)
        cmd_node_not_found(s, word[0] == '%' ? word + 1 : word);
    return n;
}

static const char *label(const char *fqn) {
    return fqn && *fqn ? fqn : "<root>";
}

/* info line NODE: its source line, and the module stack with the line
 * each module was called from. */
static int info_line(session *s, int argc, char **argv) {
    if (argc != 2)
        return cmd_fail(s, "Usage: info line NODE");
    const exdb_node *n = node_arg(s, argv[1]);
    if (!n)
        return -1;
    exdb_stack_frame f;
    const exdb_meta *m = n->meta;
    cJSON *o = s->json ? cJSON_CreateObject() : NULL;
    cJSON_AddStringToObject(o, "node", n->name);
    if (!m || !exdb_stack_innermost(exdb_meta_stack_trace(m), &f)) {
        exdb_buf_printf(&s->buf, "%%%s has no source line: its stack_trace is %s.\n", n->name,
                        m && exdb_meta_stack_trace(m) ? "without a File line" : "absent");
        cJSON_AddNullToObject(o, "source");
    } else {
        int bl;
        const char *bn = base_name(&f, &bl);
        exdb_buf_printf(&s->buf, "%%%s is at %.*s:%u in %.*s:\n    %.*s\n  file %.*s\n", n->name,
                        bl, bn, f.line, (int)f.func_len, f.func, (int)f.code_len, f.code,
                        (int)f.file_len, f.file);
        if (o)
            cJSON_AddItemToObject(o, "source", frame_json(&f));
    }
    cJSON *mods = o ? cJSON_AddArrayToObject(o, "modules") : NULL;
    if (m && m->nstack)
        exdb_buf_puts(&s->buf, "  module stack, innermost first:\n");
    int w = 0;
    for (uint32_t i = 0; m && i < m->nstack; i++) {
        int l = (int)strlen(label(m->stack[i].path));
        w = l > w ? l : w;
    }
    for (uint32_t i = m ? m->nstack : 0; i-- > 0;) {
        const exdb_stack_entry *e = &m->stack[i];
        exdb_stack_frame site;
        int has = exdb_source_call_site(n, i, &site);
        exdb_buf_printf(&s->buf, "    %-*s  %s", w, label(e->path), e->type ? e->type : "");
        if (has) {
            exdb_buf_puts(&s->buf, "  called");
            put_at(s, &s->buf, &site);
            exdb_buf_printf(&s->buf, ": %.*s", (int)site.code_len, site.code);
        }
        exdb_buf_putc(&s->buf, '\n');
        cJSON *mo = mods ? cJSON_CreateObject() : NULL;
        if (mo) {
            cJSON_AddStringToObject(mo, "fqn", e->path ? e->path : "");
            cJSON_AddStringToObject(mo, "type", e->type ? e->type : "");
            if (has)
                cJSON_AddItemToObject(mo, "call_site", frame_json(&site));
            else
                cJSON_AddNullToObject(mo, "call_site");
            cJSON_AddItemToArray(mods, mo);
        }
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "line", o);
    return 0;
}

/* ---- list source [NODE|FILE:LINE] */

/* The frame of some node's trace at FILE:LINE (the file a suffix), for
 * its whole path and code. */
static int find_location(const exdb_graph *g, const char *file, size_t flen, uint32_t line,
                         exdb_stack_frame *out) {
    exdb_stack_frame fr[EXDB_MAX_FRAMES];
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (!n->meta || !exdb_meta_stack_trace(n->meta) ||
            !exdb_stack_at(exdb_meta_stack_trace(n->meta), file, flen, line))
            continue;
        uint32_t k = exdb_stack_frames(exdb_meta_stack_trace(n->meta), fr, EXDB_MAX_FRAMES);
        for (uint32_t i = 0; i < k && i < EXDB_MAX_FRAMES; i++)
            if (fr[i].line == line && exdb_stack_file_matches(&fr[i], file, flen)) {
                *out = fr[i];
                return 1;
            }
    }
    return 0;
}

/* The node at the stop: the last COPY event's. */
static const exdb_node *stop_node(session *s) {
    const exdb_unflatten *u = s->run;
    for (uint32_t k = u ? u->pos : 0; k-- > 0;)
        if (k < u->nlog && u->log[k].kind == EXDB_EV_COPY && u->log[k].flat >= 0 &&
            (uint32_t)u->log[k].flat < u->run->nnodes)
            return u->run->nodes[u->log[k].flat];
    return NULL;
}

/* The lines of the file at path around line (set listsize of them) into
 * s->buf and arr; 0, or -1 with errno when it cannot be read. */
static int list_file(session *s, const char *path, uint32_t line, cJSON *arr) {
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    long size = s->listsize > 0 ? s->listsize : 10;
    long first = (long)line - size / 2, last;
    if (first < 1)
        first = 1;
    last = first + size - 1;
    char *text = NULL;
    size_t cap = 0;
    long no = 0, got;
    while (no < last && (got = getline(&text, &cap, fp)) >= 0) {
        if (++no < first)
            continue;
        while (got && (text[got - 1] == '\n' || text[got - 1] == '\r'))
            text[--got] = '\0';
        exdb_buf_printf(&s->buf, "%s%-5ld %s\n", no == (long)line ? "=> " : "   ", no, text);
        cJSON *o = arr ? cJSON_CreateObject() : NULL;
        if (o) {
            cJSON_AddNumberToObject(o, "line", (double)no);
            cJSON_AddStringToObject(o, "text", text);
            cJSON_AddItemToArray(arr, o);
        }
    }
    free(text);
    fclose(fp);
    if (no < (long)line)
        exdb_buf_printf(&s->buf, "(the file has %ld line%s: not line %u)\n", no,
                        cmd_s((uint64_t)no), line);
    return 0;
}

/* list source: the file of a node's source line (or of FILE:LINE) around
 * that line, through the substitute-path rules; the line text from the
 * trace when the file is not here. */
int cmd_source_list(session *s, int argc, char **argv) {
    if (argc > 2)
        return cmd_fail(s, "Usage: list source [NODE|FILE:LINE]");
    exdb_stack_frame f;
    const exdb_node *n = NULL;
    size_t flen;
    uint32_t line;
    if (argc == 2 && !exdb_graph_find(s->prog->graph, argv[1] + (argv[1][0] == '%')) &&
        exdb_stack_parse_location(argv[1], &flen, &line) == 0) {
        if (!find_location(s->prog->graph, argv[1], flen, line, &f))
            return cmd_fail(s, "No node's stack trace is at %s.", argv[1]);
    } else {
        n = argc == 2 ? node_arg(s, argv[1]) : stop_node(s);
        if (!n)
            return argc == 2 ? -1
                             : cmd_fail(s, "No node to list: give a NODE or FILE:LINE, or step "
                                           "to a node first.");
        if (!n->meta || !exdb_stack_innermost(exdb_meta_stack_trace(n->meta), &f))
            return cmd_fail(s, "%%%s has no stack_trace with a File line: no source to list.",
                            n->name);
    }
    exdb_buf path;
    exdb_buf_init(&path);
    const struct exdb_source_paths *p = s->source_paths;
    int subst =
        exdb_stack_substitute(&path, f.file, f.file_len, p ? (const char *const *)p->from : NULL,
                              p ? (const char *const *)p->to : NULL, p ? p->n : 0);
    if (path.oom) {
        exdb_buf_free(&path);
        return cmd_fail(s, "out of memory");
    }
    int bl;
    const char *bn = base_name(&f, &bl);
    exdb_buf_printf(&s->buf, "%.*s:%u in %.*s", bl, bn, f.line, (int)f.func_len, f.func);
    if (n)
        exdb_buf_printf(&s->buf, " (%%%s)", n->name);
    if (subst)
        exdb_buf_printf(&s->buf, ", read from %s", exdb_buf_str(&path));
    exdb_buf_puts(&s->buf, ":\n");
    cJSON *o = s->json ? frame_json(&f) : NULL;
    cJSON *arr = o ? cJSON_AddArrayToObject(o, "lines") : NULL;
    int found = list_file(s, exdb_buf_str(&path), f.line, arr) == 0;
    if (!found) {
        exdb_buf_printf(&s->buf,
                        "%s: %s (\"set substitute-path FROM TO\" if the tree moved).\n"
                        "The line, from the stack trace:\n=> %-5u %.*s\n",
                        exdb_buf_str(&path), strerror(errno), f.line, (int)f.code_len, f.code);
    }
    if (o) {
        cJSON_AddStringToObject(o, "path", exdb_buf_str(&path));
        cJSON_AddBoolToObject(o, "found", found);
        if (n)
            cJSON_AddStringToObject(o, "node", n->name);
    }
    exdb_buf_free(&path);
    cmd_flush(s, 1);
    cmd_json_add(s, "source", o);
    return 0;
}

/* ---- info lines [FQN], info calls FQN */

/* Whether some node or the module_call_graph knows module fqn. */
static int module_known(const exdb_program *p, const char *fqn) {
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (strcmp(p->calls[i].fqn, fqn) == 0)
            return 1;
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        if (exdb_source_entry_of(n, fqn) >= 0)
            return 1;
    return 0;
}

/* The type nn_module_stack gives module fqn, or "". */
static const char *module_type(const exdb_graph *g, const char *fqn) {
    for (const exdb_node *n = g->head; n; n = n->next) {
        int32_t e = exdb_source_entry_of(n, fqn);
        if (e >= 0 && n->meta->stack[e].type)
            return n->meta->stack[e].type;
    }
    return "";
}

/* info lines [FQN]: the nodes of a module grouped by their line in its
 * code (without FQN: every node by its own source line). */
static int info_lines(session *s, int argc, char **argv) {
    if (argc > 2)
        return cmd_fail(s, "Usage: info lines [FQN]");
    const char *fqn = argc == 2 ? argv[1] : NULL;
    if (fqn && *fqn && !module_known(s->prog, fqn))
        return cmd_fail(s, "No module \"%s\" (\"info modules\" lists them).", fqn);
    exdb_source_lines l;
    if (exdb_source_lines_group(s->prog->graph, fqn, &l) < 0)
        return cmd_fail(s, "out of memory");
    if (fqn && *fqn)
        exdb_buf_printf(&s->buf, "Lines of %s (%s): ", fqn, module_type(s->prog->graph, fqn));
    else
        exdb_buf_puts(&s->buf, "Source lines of the graph: ");
    exdb_buf_printf(&s->buf, "%u node%s on %u line%s", l.nnodes, cmd_s(l.nnodes), l.ngroups,
                    cmd_s(l.ngroups));
    if (l.nuntraced)
        exdb_buf_printf(&s->buf, ", %u without a stack trace", l.nuntraced);
    exdb_buf_puts(&s->buf, "\n");
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (uint32_t i = 0; i < l.ngroups; i++) {
        const exdb_source_group *g = &l.groups[i];
        int bl;
        const char *bn = base_name(&g->frame, &bl);
        exdb_buf_printf(&s->buf, "%s%.*s:%u%s  %.*s\n   ", cmd_color(s, C_GREEN), bl, bn,
                        g->frame.line, cmd_color(s, C_RESET), (int)g->frame.code_len,
                        g->frame.code);
        cJSON *o = arr ? frame_json(&g->frame) : NULL;
        cJSON *nodes = o ? cJSON_AddArrayToObject(o, "nodes") : NULL;
        for (uint32_t k = 0; k < g->nnodes; k++) {
            exdb_buf_printf(&s->buf, " %%%s", g->nodes[k]->name);
            if (nodes)
                cJSON_AddItemToArray(nodes, cJSON_CreateString(g->nodes[k]->name));
        }
        exdb_buf_putc(&s->buf, '\n');
        if (o)
            cJSON_AddItemToArray(arr, o);
    }
    if (s->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "module", fqn ? fqn : "");
        cJSON_AddNumberToObject(o, "nodes", l.nnodes);
        cJSON_AddNumberToObject(o, "untraced", l.nuntraced);
        cJSON_AddItemToObject(o, "groups", arr);
        cmd_json_add(s, "lines", o);
    }
    exdb_source_lines_free(&l);
    cmd_flush(s, 1);
    return 0;
}

/* info calls FQN: every call of the module (one per nn_module_stack key)
 * with the line it was called from. */
static int info_calls(session *s, int argc, char **argv) {
    if (argc != 2)
        return cmd_fail(s, "Usage: info calls FQN");
    const char *fqn = argv[1];
    if (!*fqn)
        return cmd_fail(s, "The root module is not called from a line of the program.");
    if (!module_known(s->prog, fqn))
        return cmd_fail(s, "No module \"%s\" (\"info modules\" lists them).", fqn);
    exdb_source_call *calls;
    int32_t n = exdb_source_calls(s->prog->graph, fqn, &calls);
    if (n < 0)
        return cmd_fail(s, "out of memory");
    exdb_buf_printf(&s->buf, "%s (%s): %d call%s", fqn, module_type(s->prog->graph, fqn), n,
                    cmd_s((uint64_t)n));
    const char *prev = NULL;
    uint32_t prev_len = 0;
    for (int32_t i = 0; i < n; i++) {
        const exdb_source_call *c = &calls[i];
        exdb_buf_printf(&s->buf, "%s call %d", i ? "," : ":", i + 1);
        if (!c->has_site) {
            exdb_buf_puts(&s->buf, " at ?");
            continue;
        }
        int bl;
        const char *bn = base_name(&c->site, &bl);
        int same = prev && prev_len == (uint32_t)bl && memcmp(prev, bn, (size_t)bl) == 0;
        exdb_buf_printf(&s->buf, " at %.*s:%u", same ? 0 : bl, bn, c->site.line);
        prev = bn;
        prev_len = (uint32_t)bl;
    }
    exdb_buf_putc(&s->buf, '\n');
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    for (int32_t i = 0; i < n; i++) {
        const exdb_source_call *c = &calls[i];
        exdb_buf_printf(&s->buf, "  call %d: %u node%s from %%%s (%s)", i + 1, c->nnodes,
                        cmd_s(c->nnodes), c->first->name, c->key);
        if (c->has_site) {
            put_at(s, &s->buf, &c->site);
            exdb_buf_printf(&s->buf, ": %.*s", (int)c->site.code_len, c->site.code);
        }
        exdb_buf_putc(&s->buf, '\n');
        cJSON *o = arr ? cJSON_CreateObject() : NULL;
        if (o) {
            cJSON_AddNumberToObject(o, "call", i + 1);
            cJSON_AddStringToObject(o, "key", c->key);
            cJSON_AddStringToObject(o, "first_node", c->first->name);
            cJSON_AddNumberToObject(o, "nodes", c->nnodes);
            if (c->has_site)
                cJSON_AddItemToObject(o, "call_site", frame_json(&c->site));
            else
                cJSON_AddNullToObject(o, "call_site");
            cJSON_AddItemToArray(arr, o);
        }
    }
    free(calls);
    cmd_flush(s, 1);
    cmd_json_add(s, "module", cJSON_CreateString(fqn));
    cmd_json_add(s, "calls", arr);
    return 0;
}

int cmd_source_info(session *s, const char *what, int argc, char **argv) {
    if (strcmp(what, "line") == 0)
        return info_line(s, argc, argv);
    if (strcmp(what, "lines") == 0)
        return info_lines(s, argc, argv);
    return info_calls(s, argc, argv);
}
