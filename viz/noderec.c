/* noderec.c - the viewer's JSON record of one FX node (noderec.h): what a
 * node's box and panel show in the module view and in every other view's
 * page, and the source table the records point into. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/format/schema.h"
#include "core/fx/readable.h" /* exdb_python_code (codegen.h) */
#include "core/fx/print.h"
#include "viz/flat.h"
#include "viz/noderec.h"

void vz_noderec_init(vz_noderec *r, const exdb_program *p, const exdb_strmap *inputs,
                     exdb_arena *arena) {
    *r = (vz_noderec){.prog = p, .inputs = inputs, .arena = arena};
    exdb_strmap_init(&r->srcs, arena);
    exdb_buf_init(&r->tmp);
    exdb_buf_init(&r->srcbuf);
}

void vz_noderec_free(vz_noderec *r) {
    exdb_buf_free(&r->tmp);
    exdb_buf_free(&r->srcbuf);
}

void vz_put_script_json(FILE *f, const exdb_buf *b) {
    const char *s = exdb_buf_str(b);
    for (const char *lt; (lt = strchr(s, '<'));) {
        fwrite(s, 1, (size_t)(lt - s), f);
        fputs("\\u003c", f);
        s = lt + 1;
    }
    fputs(s, f);
}

static const exdb_input_spec *input_spec(const vz_noderec *r, const exdb_node *n) {
    uintptr_t s = (uintptr_t)exdb_strmap_get(r->inputs, n->name);
    return s ? &r->prog->inputs[s - 1] : NULL;
}

/* The fill of a node: placeholders by input kind, else by op. */
static const char *fill_of(const vz_noderec *r, const exdb_node *n) {
    if (n->op == EXDB_OP_PLACEHOLDER) {
        const exdb_input_spec *in = input_spec(r, n);
        return vz_input_fill(in ? in->kind : EXDB_IN_USER_INPUT);
    }
    const char *f = vz_op_fill(n);
    return f ? f : "#ffffff";
}

uint32_t vz_noderec_intern(vz_noderec *r, const char *text, size_t len) {
    if (!len)
        return 0;
    void **slot = exdb_strmap_find(&r->srcs, text);
    if (!slot) {
        const char *key = exdb_arena_strndup(r->arena, text, len);
        slot = key ? exdb_strmap_put(&r->srcs, key, NULL) : NULL;
        if (!slot) {
            r->oom = 1;
            return 0;
        }
        *slot = (void *)(uintptr_t)++r->nsrcs;
    }
    return (uint32_t)(uintptr_t)*slot;
}

/* The index of n's source lines in the table (0: none). */
static uint32_t source_of(vz_noderec *r, const exdb_node *n) {
    exdb_buf_reset(&r->srcbuf);
    vz_fx_source(&r->srcbuf, n);
    return r->srcbuf.oom ? 0 : vz_noderec_intern(r, exdb_buf_str(&r->srcbuf), r->srcbuf.len);
}

void vz_noderec_put(vz_noderec *r, exdb_buf *b, const exdb_node *n, const char *kind,
                    const char *name, const char *fill) {
    exdb_buf_printf(b, "[\"%s\",", kind);
    exdb_buf_json_str(b, name ? name : n->name);
    exdb_buf_putc(b, ',');
    exdb_buf_reset(&r->tmp);
    if (n->op == EXDB_OP_CALL_FUNCTION || n->op == EXDB_OP_CALL_METHOD) {
        exdb_viz_short_target(&r->tmp, n);
    } else if (n->op == EXDB_OP_PLACEHOLDER) {
        const exdb_input_spec *in = input_spec(r, n);
        exdb_buf_puts(&r->tmp, in ? exdb_input_kind_name(in->kind) : "placeholder");
        if (in && in->target)
            exdb_buf_printf(&r->tmp, " %s", in->target);
    } else if (n->op != EXDB_OP_OUTPUT) {
        exdb_buf_printf(&r->tmp, "%s %s", exdb_op_name((exdb_op)n->op), n->target ? n->target : "");
    }
    exdb_buf_json_str(b, exdb_buf_str(&r->tmp));
    exdb_buf_putc(b, ',');
    exdb_buf_reset(&r->tmp);
    if (n->meta && n->meta->val) {
        exdb_format_val(&r->tmp, n->meta->val);
        if (n->meta->val->kind == EXDB_VAL_TENSOR)
            exdb_buf_printf(&r->tmp, " %s", exdb_dtype_name(n->meta->val->u.t->dtype));
    }
    exdb_buf_json_str(b, exdb_buf_str(&r->tmp));
    exdb_buf_putc(b, ',');
    exdb_buf_reset(&r->tmp);
    exdb_format_node(&r->tmp, n);
    exdb_buf_json_str(b, exdb_buf_str(&r->tmp));
    exdb_buf_printf(b, ",%u,", source_of(r, n));
    exdb_buf_json_str(b, fill ? fill : fill_of(r, n));
    exdb_buf_putc(b, ',');
    exdb_buf_reset(&r->tmp);
    exdb_print_arg_names(&r->tmp, n, "");
    exdb_buf_json_str(b, exdb_buf_str(&r->tmp));
    r->oom |= r->tmp.oom || r->srcbuf.oom;
}

void vz_noderec_put_sources(vz_noderec *r, FILE *f, exdb_buf *b) {
    const char **tab = calloc((size_t)r->nsrcs + 1, sizeof *tab);
    if (!tab) {
        r->oom = 1;
        return;
    }
    for (uint32_t i = 0; i < r->srcs.cap; i++)
        if (r->srcs.slots[i].key && r->srcs.slots[i].val)
            tab[(uintptr_t)r->srcs.slots[i].val] = exdb_strmap_slot_key(&r->srcs.slots[i]);
    fputs("<script type=\"application/json\" id=\"srcs\">[\"\"", f);
    for (uint32_t i = 1; i <= r->nsrcs; i++) {
        exdb_buf_reset(b);
        exdb_buf_putc(b, ',');
        exdb_buf_json_str(b, tab[i] ? tab[i] : "");
        vz_put_script_json(f, b);
    }
    fputs("]</script>\n", f);
    free(tab);
}

void vz_noderec_put_code(vz_noderec *r, FILE *f, exdb_buf *b, const exdb_graph *g) {
    if (g->count > VZ_CODE_NODES)
        return;
    exdb_buf code;
    exdb_buf_init(&code);
    exdb_codegen_opts o = {0};
    uint32_t *lines = calloc((size_t)g->count + 1, sizeof *lines);
    uint32_t *starts = NULL, nlines = 0;
    if (!lines || exdb_python_code(&code, g, &o, lines) < 0)
        goto oom;
    const char *text = exdb_buf_str(&code);
    for (size_t i = 0; i < code.len; i++)
        nlines += text[i] == '\n';
    starts = malloc(((size_t)nlines + 2) * sizeof *starts);
    if (!starts)
        goto oom;
    nlines = 0;
    starts[nlines++] = 0;
    for (size_t i = 0; i < code.len; i++)
        if (text[i] == '\n')
            starts[nlines++] = (uint32_t)i + 1;
    fputs("<script type=\"application/json\" id=\"code\">{", f);
    uint32_t i = 0, k = 0;
    for (const exdb_node *n = g->head; n; n = n->next, i++) {
        if (!lines[i] || lines[i] > nlines)
            continue;
        const char *at = text + starts[lines[i] - 1], *end = strchr(at, '\n');
        while (*at == ' ')
            at++;
        exdb_buf_reset(b);
        exdb_buf_puts(b, k++ ? "," : "");
        exdb_buf_json_str(b, n->name);
        exdb_buf_putc(b, ':');
        exdb_buf_reset(&r->tmp);
        exdb_buf_put(&r->tmp, at, end ? (size_t)(end - at) : strlen(at));
        exdb_buf_json_str(b, exdb_buf_str(&r->tmp));
        vz_put_script_json(f, b);
    }
    fputs("}</script>\n", f);
    r->oom |= r->tmp.oom || code.oom;
    goto out;
oom:
    r->oom = 1;
out:
    free(lines);
    free(starts);
    exdb_buf_free(&code);
}
