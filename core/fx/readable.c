/* readable.c - see readable.h. Mirrors torch/fx/graph_module.py's
 * _print_readable and torch/nn/modules/module.py's _addindent. */
#include "core/fx/readable.h"

#include <string.h>

static int is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* nn.Module's _addindent(s, 4): every line after the first indented by 4,
 * blank (whitespace-only) lines emptied; one line stays as it is. */
static void addindent(exdb_buf *out, const char *s, size_t len) {
    const char *nl = memchr(s, '\n', len);
    if (!nl) {
        exdb_buf_put(out, s, len);
        return;
    }
    exdb_buf_put(out, s, (size_t)(nl - s));
    const char *p = nl + 1, *end = s + len;
    for (;;) {
        exdb_buf_putc(out, '\n');
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *q = p;
        while (q < e && is_space(*q))
            q++;
        if (q < e) {
            exdb_buf_puts(out, "    ");
            exdb_buf_put(out, p, (size_t)(e - p));
        }
        if (e == end)
            break;
        p = e + 1;
    }
}

int exdb_print_readable(exdb_buf *out, const exdb_readable_mod *m, const exdb_codegen_opts *o,
                        uint32_t *lines) {
    exdb_codegen_opts vo = *o;
    vo.verbose = 1;
    vo.pytree = m->pytree;
    exdb_buf src, code;
    exdb_buf_init(&src);
    exdb_buf_init(&code);
    int rc = exdb_python_code(&src, m->graph, &vo, lines);
    if (lines)
        for (uint32_t i = 0; i < m->graph->count; i++)
            lines[i] = lines[i] > 2 ? lines[i] - 2 : 0;
    const char *s = exdb_buf_str(&src);
    while (*s == '\n')
        s++;
    exdb_buf_printf(&code, "class %s(torch.nn.Module):\n", m->name);
    exdb_buf_puts(&code, s);
    addindent(out, exdb_buf_str(&code), code.len);
    exdb_buf_reset(&code);
    for (uint32_t i = 0; i < m->nchildren && rc == 0; i++) {
        exdb_buf_putc(&code, '\n');
        rc = exdb_print_readable(&code, &m->children[i], o, NULL);
    }
    addindent(out, exdb_buf_str(&code), code.len);
    if (src.oom || code.oom || out->oom)
        rc = -1;
    exdb_buf_free(&src);
    exdb_buf_free(&code);
    return rc;
}
