/* cmd_find.c - find [GLOB] [--op OP] [--target GLOB] [--module GLOB]
 * [--dtype D] [--shape S] [--users N] [--line FILE:LINE] (also `info
 * nodes`): the flat graph's nodes that pass every filter, one line each.
 * The matching is core/fx/nodematch.c; one pass over the graph. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "core/format/schema.h"
#include "core/fx/nodematch.h"
#include "core/fx/print.h"
#include "core/fx/stacktrace.h"

int cmd_find_is_glob(const char *word) {
    return strpbrk(word, "*?[") != NULL;
}

/* The words after find into f; 0, or -1 after an error. */
static int parse_filters(session *s, exdb_node_filter *f, int argc, char **argv) {
    static const char *const opts[] = {"--op",    "--target", "--module", "--dtype",
                                       "--shape", "--users",  "--line",   NULL};
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (w[0] != '-' || w[1] != '-') {
            if (f->name)
                return cmd_fail(s, "find takes one name glob; \"%s\" is a second.", w);
            f->name = w;
            continue;
        }
        int o = cmd_pick(s, "find", w, opts);
        if (o < 0)
            return -1;
        if (i + 1 >= argc)
            return cmd_fail(s, "%s needs a value.", opts[o]);
        const char *v = argv[++i];
        switch (o) {
        case 0:
            if ((f->op = exdb_op_from_name(v)) < 0)
                return cmd_fail(s,
                                "Unknown op \"%s\": expected placeholder, get_attr, "
                                "call_function, call_method, call_module or output.",
                                v);
            break;
        case 1:
            f->target = v;
            break;
        case 2:
            f->module = v;
            break;
        case 3:
            if ((f->dtype = exdb_nodematch_dtype(v)) < 0)
                return cmd_fail(s, "Unknown dtype \"%s\" (f32, torch.float32, i64, bf16...).", v);
            break;
        case 4:
            if (exdb_nodematch_shape(f, v) < 0)
                return cmd_fail(s,
                                "A shape is sizes between commas: 1,*,224,224 (* any size, "
                                "s0 a symbolic size), found \"%s\".",
                                v);
            break;
        case 5: {
            uint32_t n;
            if (cmd_parse_count(s, v, &n) < 0)
                return -1;
            f->users = n;
            break;
        }
        default:
            if (exdb_stack_parse_location(v, &f->file_len, &f->line) < 0)
                return cmd_fail(s, "Expected FILE:LINE (a file suffix will do), found \"%s\".", v);
            f->file = v;
            break;
        }
    }
    return 0;
}

/* The innermost module of n's nn_module_stack ("" when none). */
static const char *node_module(const exdb_node *n) {
    const exdb_meta *m = n->meta;
    return m && m->nstack && m->stack[m->nstack - 1].path ? m->stack[m->nstack - 1].path : "";
}

/* v: n's value as print shows it (empty without one; n may be NULL); a
 * value cut short by out of memory marks the answer incomplete. */
static void node_value(session *s, const exdb_node *n, exdb_buf *v) {
    exdb_buf_init(v);
    if (n && n->meta)
        exdb_format_val(v, n->meta->val);
    if (v->oom)
        s->buf.oom = 1;
}

void cmd_find_match(session *s, const exdb_node *n, const char *indent, struct cJSON *arr) {
    exdb_buf val;
    node_value(s, n, &val);
    const char *what = n->op == EXDB_OP_CALL_FUNCTION ? n->target : exdb_op_name(n->op);
    exdb_buf_printf(&s->buf, "%s%%%s  %s", indent, n->name, what);
    if (val.len)
        exdb_buf_printf(&s->buf, "  %s", exdb_buf_str(&val));
    if (*node_module(n))
        exdb_buf_printf(&s->buf, "  in %s", node_module(n));
    exdb_buf_printf(&s->buf, "  (%u user%s)\n", n->nusers, cmd_s(n->nusers));
    cJSON *o = arr ? cJSON_CreateObject() : NULL;
    if (o) {
        cJSON_AddStringToObject(o, "name", n->name);
        cJSON_AddStringToObject(o, "op", exdb_op_name(n->op));
        cJSON_AddStringToObject(o, "target", n->target ? n->target : "");
        cJSON_AddStringToObject(o, "value", exdb_buf_str(&val));
        cJSON_AddStringToObject(o, "module", node_module(n));
        cJSON_AddNumberToObject(o, "users", n->nusers);
        cJSON_AddItemToArray(arr, o);
    }
    exdb_buf_free(&val);
}

/* find / info nodes: argv[0] is "find" or "nodes". */
int cmd_find(session *s, int argc, char **argv) {
    exdb_node_filter f;
    exdb_nodematch_init(&f);
    if (parse_filters(s, &f, argc, argv) < 0)
        return -1;
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    uint32_t count = 0;
    for (const exdb_node *n = s->prog->graph->head; n; n = n->next) {
        if (!exdb_nodematch(&f, n))
            continue;
        count++;
        cmd_find_match(s, n, "", arr);
    }
    exdb_buf_printf(&s->buf, "%u node%s match%s.\n", count, cmd_s(count), count == 1 ? "es" : "");
    cmd_flush(s, 1);
    cmd_json_add(s, "count", cJSON_CreateNumber(count));
    cmd_json_add(s, "matches", arr);
    return 0;
}

static int cmd_find_fn(session *s, int argc, char **argv) {
    return cmd_find(s, argc, argv);
}

/* ---- whatis NAME: what a name is, in one line (gdb's whatis) */

/* The class nn_module_stack records for module path fqn, or NULL. */
static const char *module_class(const exdb_program *p, const char *fqn) {
    for (const exdb_node *n = p->graph->head; n; n = n->next)
        for (uint32_t i = 0; n->meta && i < n->meta->nstack; i++)
            if (strcmp(n->meta->stack[i].path, fqn) == 0)
                return n->meta->stack[i].type;
    return NULL;
}

static int whatis_answer(session *s, const char *name, const char *kind) {
    cmd_flush(s, 1);
    if (s->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddStringToObject(o, "kind", kind);
        cmd_json_add(s, "whatis", o);
    }
    return 0;
}

static int cmd_whatis(session *s, int argc, char **argv) {
    const exdb_program *p = s->prog;
    const char *name = argv[1];
    const exdb_node *n = exdb_graph_find(p->graph, name);
    if (n) {
        exdb_buf_printf(&s->buf, "node %s: %s", n->name, exdb_op_name(n->op));
        if (n->op == EXDB_OP_CALL_FUNCTION || n->op == EXDB_OP_GET_ATTR)
            exdb_buf_printf(&s->buf, " %s", n->target);
        for (uint32_t i = 0; n->op == EXDB_OP_PLACEHOLDER && i < p->ninputs; i++)
            if (p->inputs[i].name && strcmp(p->inputs[i].name, n->name) == 0)
                exdb_buf_printf(&s->buf, " (%s%s%s)", exdb_input_kind_name(p->inputs[i].kind),
                                p->inputs[i].target ? " " : "",
                                p->inputs[i].target ? p->inputs[i].target : "");
        exdb_buf v;
        node_value(s, n, &v);
        if (v.len)
            exdb_buf_printf(&s->buf, " -> %s", exdb_buf_str(&v));
        exdb_buf_free(&v);
        return whatis_answer(s, name, "node");
    }
    for (uint32_t i = 0; i < p->ninputs; i++)
        if (p->inputs[i].target && strcmp(p->inputs[i].target, name) == 0) {
            exdb_buf_printf(&s->buf, "%s %s: placeholder %s",
                            exdb_input_kind_name(p->inputs[i].kind), name,
                            p->inputs[i].name ? p->inputs[i].name : "(none)");
            const exdb_node *ph =
                p->inputs[i].name ? exdb_graph_find(p->graph, p->inputs[i].name) : NULL;
            exdb_buf v;
            node_value(s, ph, &v);
            if (v.len)
                exdb_buf_printf(&s->buf, " -> %s", exdb_buf_str(&v));
            exdb_buf_free(&v);
            return whatis_answer(s, name, "state");
        }
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (strcmp(p->calls[i].fqn, name) == 0) {
            const char *cls = module_class(p, name);
            exdb_buf_printf(&s->buf, "module %s: %s", name[0] ? name : "<root>",
                            cls ? cls : "(class unknown: no nn_module_stack names it)");
            return whatis_answer(s, name, "module");
        }
    return cmd_fail(s, "No node, state or module \"%s\" in the program.", name);
}

const command find_commands[] = {
    {"find", 0, -1, CMD_NEEDS_PROGRAM,
     "find [GLOB] [--op OP] [--target GLOB] [--module GLOB] [--dtype D] [--shape S] ...",
     "The flat graph's nodes that pass every filter (also \"info nodes\").",
     "GLOB matches the node's name (fnmatch: *, ?, [...]). Filters, all of which must hold:\n"
     "  --op OP          placeholder, get_attr, call_function, call_method, call_module, output\n"
     "  --target GLOB    the target as FX prints it; \"torch.ops.\" may be left out\n"
     "                   (--target 'aten.conv*')\n"
     "  --module GLOB    the fqn of any module of its nn_module_stack (\"layer1.*\")\n"
     "  --dtype D        its tensor's dtype: f32, torch.float32, bf16, i64...\n"
     "  --shape S        its tensor's shape: 1,*,224,224 (* any size; a symbolic size\n"
     "                   by its text: s77,8)\n"
     "  --users N        len(node.users): --users 0 finds dead values\n"
     "  --line FILE:LINE a frame of its stack_trace is at that line (a file suffix)\n"
     "Each match: its name, target (or op), value, innermost module and users.\n"
     "\"print node GLOB\" prints every node the glob matches in full.",
     cmd_find_fn, NULL, NULL},
    {"whatis", 1, 1, CMD_NEEDS_PROGRAM, "whatis NAME",
     "What NAME is, in one line: a node, a state name or a module (as gdb's whatis).",
     "node relu: call_function torch.ops.aten.relu.default -> f32[8, 32]\n"
     "parameter embed.weight: placeholder p_embed_weight -> f32[32, 16]\n"
     "module encoder.layers.0: demo.EncoderLayer (the class nn_module_stack records)\n"
     "\"print NAME\" prints the node or the module in full.",
     cmd_whatis},
};
const size_t find_ncommands = sizeof find_commands / sizeof *find_commands;
