/* cmd_code.c - print code / print readable / save code: the Python
 * torch.fx generates for the flat graph, a module of the unflattened tree
 * or the graph a frame is building (core/fx/codegen.h), and the line of it
 * print node shows. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_code.h"
#include "command.h"
#include "core/export/program.h"
#include "core/format/container.h"
#include "core/export/graph_module.h"
#include "core/fx/readable.h"
#include "core/export/unlift.h"
#include "core/base/outfile.h"
#include "core/unflatten/unflatten.h"
#include "session.h"

/* What one command asks for. */
typedef struct code_req {
    int readable;
    exdb_codegen_opts o;
    int where; /* W_FLAT, W_MODULE (fqn; NULL: ep.module()), W_FRAME (level) */
    const char *fqn;
    uint32_t level;
    const char *file; /* save code */
    int force;
} code_req;

enum { W_FLAT, W_MODULE, W_FRAME };

/* print code [module [FQN] | frame [N]], print readable [--stride]
 * [--device] [--color] [module FQN | frame [N]]; argv[0] is the
 * subcommand. With file_too, the last word is the file (save code). */
static int parse(session *s, code_req *r, int argc, char **argv, int file_too) {
    const char *usage = file_too      ? "Usage: save code [--force] [module [FQN]] FILE"
                        : r->readable ? "Usage: print readable [--stride] [--device] [--color] "
                                        "[module [FQN] | frame [N]]"
                                      : "Usage: print code [module [FQN] | frame [N]]";
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (r->readable && strcmp(argv[i], "--stride") == 0)
            r->o.include_stride = 1;
        else if (r->readable && strcmp(argv[i], "--device") == 0)
            r->o.include_device = 1;
        else if (r->readable && strcmp(argv[i], "--color") == 0)
            r->o.colored = 1;
        else if (file_too && strcmp(argv[i], "--force") == 0)
            r->force = 1;
        else
            return cmd_fail(s, "%s", usage);
    }
    if (file_too) {
        if (i >= argc)
            return cmd_fail(s, "%s", usage);
        r->file = argv[--argc];
    }
    if (i == argc)
        return 0;
    if (strcmp(argv[i], "module") == 0 && argc - i <= 2) {
        r->where = W_MODULE;
        r->fqn = argc - i == 2 ? argv[i + 1] : NULL;
        return 0;
    }
    if (strcmp(argv[i], "frame") == 0 && argc - i <= 2 && !file_too) {
        r->where = W_FRAME;
        r->level = s->selected_frame;
        if (argc - i == 2)
            return cmd_parse_count(s, argv[i + 1][0] == '#' ? argv[i + 1] + 1 : argv[i + 1],
                                   &r->level);
        return 0;
    }
    return cmd_fail(s, "%s", usage);
}

/* The GraphModule children of a module of the tree (HOP subgraphs that
 * _copy_graph_attrs moved in, and theirs: control flow nested in control
 * flow), in _modules order. */
static int module_children(exdb_arena *a, const exdb_umodule *m, exdb_readable_mod *rm,
                           uint32_t depth) {
    const exdb_udict *d = m->children;
    uint32_t n = 0;
    for (uint32_t i = 0; d && i < d->n; i++)
        n += d->vals[i] && ((exdb_umodule *)d->vals[i])->kind == EXDB_UMOD_GRAPH;
    if (!n)
        return 0;
    exdb_readable_mod *ch = exdb_arena_calloc(a, n, sizeof *ch);
    if (!ch)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        const exdb_umodule *c = d->vals[i];
        if (!c || c->kind != EXDB_UMOD_GRAPH)
            continue;
        exdb_readable_mod *x = &ch[k++];
        x->name = d->keys[i];
        x->graph = c->graph;
        if (depth < 10000 && module_children(a, c, x, depth + 1) < 0)
            return -1;
    }
    rm->children = ch;
    rm->nchildren = k;
    return 0;
}

/* In JSON mode, *lines_out becomes {node: its statement's line} for g
 * (lines as exdb_python_code fills them). */
static void lines_json(const session *s, const exdb_graph *g, const uint32_t *lines,
                       cJSON **lines_out) {
    if (!s->json || !lines_out || !lines)
        return;
    cJSON *o = cJSON_CreateObject();
    uint32_t i = 0;
    for (const exdb_node *n = g->head; n && o; n = n->next, i++)
        if (lines[i])
            cJSON_AddNumberToObject(o, n->name, lines[i]);
    cJSON_Delete(*lines_out);
    *lines_out = o;
}

/* Appends the code (or readable text) of one module graph; lines as
 * exdb_python_code's. */
static int module_text(session *s, const code_req *r, exdb_arena *a, const exdb_umodule *m,
                       const char *fqn, exdb_buf *out, cJSON **lines_out) {
    exdb_readable_mod rm = {0};
    rm.name = m->kind == EXDB_UMOD_ROOT ? "UnflattenedModule" : "InterpreterModule";
    rm.graph = m->graph;
    if (m->kind == EXDB_UMOD_GRAPH) {
        /* a HOP subgraph asked for itself: GraphModule.print_readable
         * names its class after its type (_get_name()), its children
         * after their attributes */
        rm.name = "GraphModule";
    }
    if (module_children(a, m, &rm, 0) < 0) {
        return -1;
    }
    uint32_t *lines = lines_out ? calloc(m->graph->count + 1, sizeof *lines) : NULL;
    int rc = r->readable ? exdb_print_readable(out, &rm, &r->o, lines)
                         : exdb_python_code(out, m->graph, &r->o, lines);
    if (rc == 0)
        lines_json(s, m->graph, lines, lines_out);
    free(lines);
    return rc;
}

/* print code/readable module FQN: a dispatcher's calls joined as its
 * print_readable joins them (code: each call under a "# call" line). */
static int module_code(session *s, const code_req *r, exdb_buf *out, cJSON **lines_out) {
    exdb_unflatten *u = cmd_modules_shown_run(s);
    if (!u)
        return -1;
    if (u->failed || !exdb_unflatten_done(u))
        return cmd_fail(s, "The unflatten run did not finish: there is no module tree.");
    exdb_umodule *m = exdb_unflatten_module(u, r->fqn);
    if (!m)
        m = exdb_unflatten_dispatch_call(u, r->fqn);
    if (!m)
        return cmd_fail(s, "No module \"%s\" in the unflattened module.", r->fqn);
    if (m->kind == EXDB_UMOD_PLAIN)
        return cmd_fail(s, "Module \"%s\" is a plain torch.nn.Module: it has no graph.", r->fqn);
    exdb_arena a;
    exdb_arena_init(&a);
    int rc = 0;
    if (m->kind == EXDB_UMOD_DISPATCH) {
        for (uint32_t i = 0; i < m->ncall_modules && rc == 0; i++) {
            if (i && r->readable)
                exdb_buf_putc(out, '\n');
            if (!r->readable)
                exdb_buf_printf(out, "%s# call %u of %u\n", i ? "\n" : "", i + 1, m->ncall_modules);
            rc = module_text(s, r, &a, m->call_modules[i], r->fqn, out, NULL);
        }
    } else {
        rc = module_text(s, r, &a, m, r->fqn, out, lines_out);
    }
    exdb_arena_destroy(&a);
    return rc < 0 ? cmd_fail(s, "out of memory") : 0;
}

/* The frame at level (0 = innermost), as print frame finds it. */
static const exdb_uframe *frame_at(session *s, uint32_t level) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    return u ? cmd_frames_at(s, u, level) : NULL;
}

/* print code module: ep.module().code, the graph _unlift makes with its
 * _PyTreeCodeGen. torch adds the _guards_fn call when the loaded program
 * has example inputs, which a .pt2 archive always carries. */
static int cmd_code_module_unlifted(session *s, int readable, const exdb_codegen_opts *o,
                                    exdb_buf *out, cJSON **lines_out) {
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_pytree_info pt;
    exdb_error err = {0};
    int guards = s->prog->container_kind == EXDB_CONT_PT2;
    exdb_graph *g = exdb_unlift(&a, s->prog, guards, &pt, &err);
    int rc;
    if (!g) {
        rc = cmd_fail(s, "%s", err.msg);
    } else {
        exdb_codegen_opts uo = *o;
        uo.pytree = &pt;
        exdb_readable_mod m = {.name = "GraphModule", .graph = g, .pytree = &pt};
        uint32_t *lines = calloc(g->count + 1, sizeof *lines);
        rc = !lines || exdb_readable_attr_children(&a, s->prog, &m) < 0 ||
                     exdb_unlift_clean_children(&a, &m, 0, &err) < 0
                 ? -1
             : readable ? exdb_print_readable(out, &m, &uo, lines)
                        : exdb_python_code(out, g, &uo, lines);
        if (rc < 0)
            cmd_fail(s, "out of memory");
        else
            lines_json(s, g, lines, lines_out);
        free(lines);
    }
    exdb_arena_destroy(&a);
    return rc;
}

/* The text a request names into out, and in JSON mode its graph's node
 * lines in *lines_out; with stream, a graph's plain code is written out as
 * it is made instead (*stream set; a big graph's text is not held whole).
 * 0, or -1 after printing an error. */
static int produce(session *s, const code_req *r, exdb_buf *out, cJSON **lines_out, int *stream) {
    if (stream && r->where == W_MODULE)
        *stream = 0;
    if (r->where == W_MODULE && r->fqn)
        return module_code(s, r, out, lines_out);
    if (r->where == W_MODULE)
        return cmd_code_module_unlifted(s, r->readable, &r->o, out, lines_out);
    const exdb_graph *g = s->prog->graph;
    const char *cls = "InterpreterModule"; /* a frame's graph becomes one's */
    if (r->where == W_FRAME) {
        const exdb_uframe *f = frame_at(s, r->level);
        if (!f)
            return -1;
        g = f->graph;
        if (!f->parent)
            cls = "UnflattenedModule";
    }
    if (stream && *stream && !r->readable) {
        /* print(gm.code): the text and a newline */
        cmd_stream st;
        cmd_stream_begin(s, &st);
        int rc = exdb_python_code_write(g, &r->o, NULL, EXDB_CODE_PIECE, cmd_stream_put, &st);
        if (rc == 0)
            cmd_stream_put(&st, "\n", 1);
        if (cmd_stream_end(&st) < 0)
            return -1;
        return rc < 0 ? cmd_fail(s, "out of memory") : 0;
    }
    if (stream)
        *stream = 0;
    uint32_t *lines = calloc(g->count + 1, sizeof *lines);
    if (!lines)
        return cmd_fail(s, "out of memory");
    int rc;
    if (r->readable && r->where == W_FLAT) {
        exdb_arena a;
        exdb_arena_init(&a);
        exdb_readable_mod *m = exdb_readable_program(&a, s->prog);
        rc = m ? exdb_print_readable(out, m, &r->o, lines) : -1;
        exdb_arena_destroy(&a);
    } else if (r->readable) {
        exdb_readable_mod m = {.name = cls, .graph = g};
        rc = exdb_print_readable(out, &m, &r->o, lines);
    } else {
        rc = exdb_python_code(out, g, &r->o, lines);
    }
    if (rc == 0)
        lines_json(s, g, lines, lines_out);
    free(lines);
    return rc < 0 ? cmd_fail(s, "out of memory") : 0;
}

int cmd_code_print(session *s, int readable, int argc, char **argv) {
    code_req r = {.readable = readable};
    if (parse(s, &r, argc, argv, 0) < 0)
        return -1;
    exdb_buf out;
    exdb_buf_init(&out);
    cJSON *lines = NULL;
    int stream = !s->json && !readable;
    int rc = produce(s, &r, &out, &lines, &stream);
    if (stream) /* written already */
        return rc;
    if (rc == 0 && s->json) {
        /* "code": the text exactly; "lines": {node: its statement's line} */
        cmd_json_add(s, "code", cJSON_CreateString(exdb_buf_str(&out)));
        if (lines)
            cmd_json_add(s, "lines", lines);
        lines = NULL;
    }
    if (rc == 0) {
        /* print(gm.code) / print_readable(): the text and a newline; the
         * text is the output when there is none yet, not copied into it */
        if (!s->buf.len && !s->buf.oom) {
            exdb_buf_free(&s->buf);
            s->buf = out;
            exdb_buf_init(&out);
        } else {
            exdb_buf_put(&s->buf, out.s ? out.s : "", out.len);
        }
        exdb_buf_putc(&s->buf, '\n');
        cmd_flush(s, 0);
    }
    cJSON_Delete(lines);
    exdb_buf_free(&out);
    return rc;
}

int cmd_code_save(session *s, int argc, char **argv) {
    code_req r = {0};
    if (parse(s, &r, argc, argv, 1) < 0)
        return -1;
    exdb_buf out;
    exdb_buf_init(&out);
    int rc = produce(s, &r, &out, NULL, NULL);
    if (rc == 0) {
        /* a Python file: the code without its leading blank lines and the
         * last line's indent, ending with a newline */
        const char *t = exdb_buf_str(&out);
        while (*t == '\n')
            t++;
        size_t len = strlen(t);
        while (len && (t[len - 1] == ' ' || t[len - 1] == '\n'))
            len--;
        exdb_buf file;
        exdb_buf_init(&file);
        exdb_buf_put(&file, t, len);
        exdb_buf_putc(&file, '\n');
        exdb_error err = {0};
        if (file.oom)
            rc = cmd_fail(s, "out of memory");
        else if (exdb_out_write(r.file, file.s, file.len, 0644, r.force, &err) < 0)
            rc = cmd_fail(s, "%s", err.msg);
        else {
            exdb_buf_printf(&s->buf, "Saved %s\n", r.file);
            cJSON *f = s->json ? cJSON_CreateObject() : NULL;
            if (f) {
                cJSON_AddStringToObject(f, "path", r.file);
                cJSON_AddNumberToObject(f, "bytes", (double)file.len);
                cJSON_AddStringToObject(f, "code",
                                        r.where == W_FLAT ? "flat"
                                        : r.fqn           ? "module"
                                                          : "unlifted");
                cmd_json_add(s, "file", f);
            }
        }
        exdb_buf_free(&file);
        cmd_flush(s, 0);
    }
    exdb_buf_free(&out);
    return rc;
}

/* print node: the node's statement in print code and its line there. */
void cmd_code_node_line(session *s, const exdb_node *n, cJSON *node_json) {
    if (n->graph != s->prog->graph)
        return;
    exdb_buf t;
    exdb_buf_init(&t);
    uint32_t line;
    int rc = exdb_python_code_node(&t, s->prog->graph, n, &line);
    if (rc < 0 || t.oom)
        s->buf.oom = 1; /* the answer is incomplete: cmd_flush says so */
    else if (line) {
        exdb_buf_printf(&s->buf, "  code:      line %u: %s\n", line, exdb_buf_str(&t));
        cJSON *c = node_json ? cJSON_AddObjectToObject(node_json, "code") : NULL;
        if (c) {
            cJSON_AddNumberToObject(c, "line", line);
            cJSON_AddStringToObject(c, "text", exdb_buf_str(&t));
        }
    }
    exdb_buf_free(&t);
}
