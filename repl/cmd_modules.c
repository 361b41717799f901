/* cmd_modules.c - the finished module tree: info modules and print module
 * (see command.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "json_answers.h"
#include "core/base/mem.h"
#include "core/fx/print.h"
#include "core/unflatten/describe.h"
#include "core/unflatten/explain.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/phases.h"
#include "core/unflatten/step.h"
#include "core/unflatten/unflatten.h"
#include "cmd_unflatten.h"

/* ---- views of the finished module (info modules, print module) */

exdb_unflatten *cmd_modules_shown_run(session *s) {
    int fresh = s->run == NULL;
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (u && fresh) {
        exdb_error err = {0};
        if (exdb_unflatten_run(u, &err) < 0) {
            /* a run cut short (out of memory) is not the user's to read:
             * the next command runs it again from the start */
            cmd_unflatten_forget(s);
            cmd_fail(s, "%s", err.msg);
            return NULL;
        }
    }
    return u;
}

/* info modules: a plain Module (a path unflatten made only as a container,
 * with no graph: a module called only as name@N, a ModuleList iterated in
 * forward, a ParameterList) has no _ty, so torch's module tree says nothing
 * of its class and the line showed a bare "Module". nn_module_stack may
 * still name the class the module had at that path: show it, or say that
 * nothing recorded it. The classes are found for the modules in the order
 * named_modules visits them, as the text lists them one a line. */
typedef struct plain_classes {
    exdb_arena a;
    exdb_strmap paths; /* the path without "@N" -> its nn_module_stack class */
    const char **path; /* per module visited: that path when plain and untyped, else NULL */
    uint32_t n, cap;
    int oom;
} plain_classes;

static void plain_visit(void *vctx, const char *fqn, exdb_umodule *m) {
    plain_classes *c = vctx;
    if (c->oom)
        return;
    if (c->n == c->cap) {
        const char **np = exdb_grow(c->path, &c->cap, sizeof *np, 64);
        if (!np) {
            c->oom = 1;
            return;
        }
        c->path = np;
    }
    char *p = NULL;
    if (m->kind == EXDB_UMOD_PLAIN && !m->type && !(p = exdb_arena_strdup(&c->a, fqn))) {
        c->oom = 1;
        return;
    }
    if (p) {
        char *w = p; /* "a@1.b@3.c" -> "a.b.c": nn_module_stack paths have no call index */
        for (const char *r = p; *r;) {
            if (*r == '@') {
                while (*r && *r != '.')
                    r++;
            } else {
                *w++ = *r++;
            }
        }
        *w = '\0';
        if (!exdb_strmap_put(&c->paths, p, NULL))
            c->oom = 1;
    }
    c->path[c->n++] = p;
}

/* Finds the classes: 0, or -1 when memory ran out (nothing is shown then). */
static int plain_classes_find(plain_classes *c, const exdb_unflatten *u) {
    exdb_arena_init(&c->a);
    exdb_strmap_init(&c->paths, &c->a);
    if (exdb_modtree_named_modules(u->run, plain_visit, c) < 0)
        c->oom = 1;
    if (c->oom)
        return -1;
    for (const exdb_node *n = c->paths.count ? u->prog->graph->head : NULL; n; n = n->next)
        for (uint32_t i = 0; n->meta && i < n->meta->nstack; i++) {
            void **v = exdb_strmap_find(&c->paths, n->meta->stack[i].path);
            if (v && !*v)
                *v = (void *)n->meta->stack[i].type;
        }
    return 0;
}

static void plain_classes_free(plain_classes *c) {
    exdb_arena_destroy(&c->a);
    free(c->path);
}

/* The class of the i-th module visited, "" when it is no plain untyped
 * module, NULL when nothing names it. */
static const char *plain_class(const plain_classes *c, uint32_t i) {
    if (i >= c->n || !c->path[i])
        return "";
    return exdb_strmap_get(&c->paths, c->path[i]);
}

/* Adds the class after "Module" on the lines of plain modules: the lines
 * from offset from on, one per module (before them, the notes of a run
 * just made). */
static void annotate_plain(exdb_buf *b, size_t from, const plain_classes *c) {
    const char *t = exdb_buf_str(b) + from;
    uint32_t lines = 0;
    for (const char *q = t; *q; q++)
        lines += *q == '\n';
    if (lines != c->n) /* not one line per module: leave the text alone */
        return;
    exdb_buf out;
    exdb_buf_init(&out);
    exdb_buf_printf(&out, "%.*s", (int)from, exdb_buf_str(b));
    uint32_t i = 0;
    for (const char *line = t; *line; i++) {
        const char *end = strchr(line, '\n'), *k = strstr(line, "  Module");
        const char *cls = plain_class(c, i);
        size_t at = k && k < end && (k[8] == '\n' || k[8] == ' ') ? (size_t)(k + 8 - line) : 0;
        if (cls && !*cls)
            at = 0;
        exdb_buf_printf(&out, "%.*s", (int)(at ? at : (size_t)(end + 1 - line)), line);
        if (at && cls)
            exdb_buf_printf(&out, "  %s (from nn_module_stack)%.*s", cls,
                            (int)(end + 1 - line - at), line + at);
        else if (at)
            exdb_buf_printf(&out, "  (class unknown: no nn_module_stack names it)%.*s",
                            (int)(end + 1 - line - at), line + at);
        line = end + 1;
    }
    exdb_buf_reset(b);
    exdb_buf_puts(b, exdb_buf_str(&out));
    b->oom |= out.oom; /* cut short: cmd_flush says so */
    exdb_buf_free(&out);
}

/* one entry of info modules' JSON answer: what named_modules(
 * remove_duplicate=False) yields, with the counts the text shows */
typedef struct module_json_ctx {
    cJSON *arr;
    const plain_classes *classes;
    uint32_t i;
    const exdb_unflatten *u;
} module_json_ctx;

/* ja_module_tree's class of the visit-th module: plain_class. */
static const char *tree_class(void *ctx, uint32_t visit) {
    return plain_class(ctx, visit);
}

static void module_json(void *vctx, const char *fqn, exdb_umodule *m) {
    module_json_ctx *c = vctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "fqn", fqn);
    cJSON_AddStringToObject(o, "kind", exdb_modtree_class_name(m));
    if (m->type && m->kind != EXDB_UMOD_GRAPH) /* type_name(): a GraphModule has none */
        cJSON_AddStringToObject(o, "type", m->type);
    else
        cJSON_AddNullToObject(o, "type");
    const char *cls = plain_class(c->classes, c->i++);
    if (!cls)
        cJSON_AddNullToObject(o, "stack_class");
    else if (*cls) /* a plain module: its class in nn_module_stack */
        cJSON_AddStringToObject(o, "stack_class", cls);
    int calls = ja_module_calls(c->u, m);
    if (calls >= 0) /* as the text's calls=N */
        cJSON_AddNumberToObject(o, "calls", calls);
    if (m->graph)
        cJSON_AddNumberToObject(o, "nodes", m->graph->count);
    uint32_t np, nb, nc;
    exdb_modtree_count_state(m, &np, &nb, &nc);
    cJSON_AddNumberToObject(o, "params", np);
    cJSON_AddNumberToObject(o, "buffers", nb);
    cJSON_AddNumberToObject(o, "constants", nc);
    cJSON_AddItemToArray(c->arr, o);
}

/* The modules' fqns in named_modules order (one per line of the text). */
typedef struct fqn_list {
    exdb_arena a;
    const char **fqn;
    uint32_t n, cap;
    int oom;
} fqn_list;

static void fqn_visit(void *vctx, const char *fqn, exdb_umodule *m) {
    fqn_list *l = vctx;
    if (l->n == l->cap) {
        const char **nf = exdb_grow(l->fqn, &l->cap, sizeof *nf, 64);
        if (!nf) {
            l->oom = 1;
            return;
        }
        l->fqn = nf;
    }
    const char *f = exdb_arena_strdup(&l->a, fqn);
    l->oom |= !f;
    l->fqn[l->n++] = f ? f : "";
}

/* Whether fqn is in the subtree of `under` (NULL: every module). */
static int in_subtree(const char *fqn, const char *under) {
    size_t n = under ? strlen(under) : 0;
    return !under || !*under || strcmp(fqn, under) == 0 ||
           (strncmp(fqn, under, n) == 0 && fqn[n] == '.');
}

/* info modules [FQN] [--full], info module FQN: keeps the lines (from
 * offset from on, one per module) of the subtree of under (only under's
 * own line when one), with the whole fqn for the short name when full (a
 * line of one module: not indented). */
static void select_lines(exdb_buf *b, size_t from, const fqn_list *l, const char *under, int full,
                         int one) {
    const char *t = exdb_buf_str(b) + from;
    uint32_t lines = 0;
    for (const char *q = t; *q; q++)
        lines += *q == '\n';
    if (lines != l->n || l->oom)
        return;
    exdb_buf out;
    exdb_buf_init(&out);
    exdb_buf_printf(&out, "%.*s", (int)from, exdb_buf_str(b));
    uint32_t i = 0;
    for (const char *line = t; *line; i++) {
        const char *end = strchr(line, '\n');
        const char *name = line + strspn(line, " ");
        const char *rest = name + strcspn(name, " ");
        if (one ? strcmp(l->fqn[i], under) == 0 : in_subtree(l->fqn[i], under)) {
            if (!one)
                exdb_buf_printf(&out, "%.*s", (int)(name - line), line);
            if (full || one)
                exdb_buf_puts(&out, l->fqn[i][0] ? l->fqn[i] : "<root>");
            else
                exdb_buf_printf(&out, "%.*s", (int)(rest - name), name);
            exdb_buf_printf(&out, "%.*s", (int)(end + 1 - rest), rest);
        }
        line = end + 1;
    }
    exdb_buf_reset(b);
    exdb_buf_puts(b, exdb_buf_str(&out));
    b->oom |= out.oom;
    exdb_buf_free(&out);
}

/* The module one names, for `info module`: NULL after the error. */
static int check_module(session *s, const fqn_list *l, const char *fqn) {
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->fqn[i], fqn) == 0)
            return 0;
    return cmd_fail(s, "No module \"%s\" in the unflattened module.", fqn);
}

int cmd_modules_info(session *s, const char *under, int full, int one) {
    exdb_unflatten *u = cmd_modules_shown_run(s);
    if (!u)
        return -1;
    fqn_list l = {0};
    exdb_arena_init(&l.a);
    if (exdb_modtree_named_modules(u->run, fqn_visit, &l) < 0)
        l.oom = 1;
    if (one && check_module(s, &l, under) < 0) {
        exdb_arena_destroy(&l.a);
        free(l.fqn);
        return -1;
    }
    if (under && !one && *under && check_module(s, &l, under) < 0) {
        exdb_arena_destroy(&l.a);
        free(l.fqn);
        return -1;
    }
    size_t from = s->buf.len;
    exdb_unflatten_print_modules(&s->buf, u);
    plain_classes classes = {0};
    if (plain_classes_find(&classes, u) < 0) {
        classes.n = 0;
        s->buf.oom = 1; /* out of memory: cmd_flush says the text is incomplete */
    }
    annotate_plain(&s->buf, from, &classes);
    if (under || full || one)
        select_lines(&s->buf, from, &l, under, full, one);
    cmd_flush(s, 1);
    if (s->json) {
        module_json_ctx c = {cJSON_CreateArray(), &classes, 0, u};
        if (exdb_modtree_named_modules(u->run, module_json, &c) < 0) {
            cmd_fail(s, "out of memory: the answer is incomplete");
            s->output_oom = 1;
        }
        /* the entries of the subtree (one: that module's, as "module_info") */
        for (cJSON *e = c.arr->child, *next; e && (under || one); e = next) {
            next = e->next;
            const char *f = cJSON_GetObjectItem(e, "fqn")->valuestring;
            if (one ? strcmp(f, under) != 0 : !in_subtree(f, under))
                cJSON_Delete(cJSON_DetachItemViaPointer(c.arr, e));
        }
        if (one) {
            cmd_json_add(s, "module_info", cJSON_DetachItemFromArray(c.arr, 0));
            cJSON_Delete(c.arr);
        } else {
            cmd_json_add(s, "modules", c.arr);
            cmd_json_add(s, "tree", ja_module_tree(u, tree_class, &classes));
        }
    }
    plain_classes_free(&classes);
    exdb_arena_destroy(&l.a);
    free(l.fqn);
    return 0;
}

int cmd_modules_print(session *s, const char *fqn) {
    exdb_unflatten *u = cmd_modules_shown_run(s);
    if (!u)
        return -1;
    exdb_error err = {0};
    if (exdb_unflatten_print_module(&s->buf, u, fqn, &err) < 0) {
        exdb_buf_reset(&s->buf);
        return cmd_fail(s, "%s", err.msg);
    }
    cmd_flush(s, 1);
    if (s->json)
        cmd_json_add(s, "module", ja_module(u, fqn));
    return 0;
}
