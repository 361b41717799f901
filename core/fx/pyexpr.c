/* pyexpr.c - see pyexpr.h. Mirrors torch/fx/graph.py: _format_target,
 * magic_methods / inplace_methods, emit_node's _tensor_annotation and
 * stringify_shape. */
#include "core/fx/pyexpr.h"

#include <string.h>

#include "core/fx/sympy.h"
#include "core/format/schema.h"

/* graph.py's _color_codes */
#define RED       "\033[31m"
#define BLUE      "\033[34m"
#define DIM_BLUE  "\033[2m\033[34m"
#define DIM_GREEN "\033[2m\033[32m"
#define RESET     "\033[0m"

static void color(exdb_buf *b, int colored, const char *code, const char *s, size_t n) {
    if (colored)
        exdb_buf_puts(b, code);
    exdb_buf_put(b, s, n);
    if (colored)
        exdb_buf_puts(b, RESET);
}

/* str.isidentifier() for the ASCII names FX targets hold; a byte >= 0x80
 * is taken as a letter (Python accepts most non-ASCII letters). */
int exdb_fx_is_identifier(const char *s, size_t n) {
    if (!n || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!(ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch >= 0x80))
            return 0;
    }
    return 1;
}

/* _format_target(base, target): "self.layer1.0.conv" as
 * getattr(self.layer1, "0").conv. */
void exdb_fx_format_target(exdb_buf *b, const char *base, const char *target) {
    exdb_buf r;
    exdb_buf_init(&r);
    exdb_buf_puts(&r, base);
    for (const char *p = target;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (exdb_fx_is_identifier(p, n)) {
            exdb_buf_putc(&r, '.');
            exdb_buf_put(&r, p, n);
        } else {
            exdb_buf t;
            exdb_buf_init(&t);
            exdb_buf_printf(&t, "getattr(%s, \"%.*s\")", exdb_buf_str(&r), (int)n, p);
            exdb_buf_free(&r);
            r = t;
        }
        if (!dot)
            break;
        p = dot + 1;
    }
    if (r.oom)
        b->oom = 1;
    exdb_buf_puts(b, exdb_buf_str(&r));
    exdb_buf_free(&r);
}

/* One dimension list: stringify_shape (str() of each entry). */
static void shape(exdb_buf *b, const exdb_sym *d, uint32_t n) {
    exdb_buf_putc(b, '[');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            exdb_buf_puts(b, ", ");
        if (d[i].expr)
            exdb_sympy_str(b, d[i].expr);
        else
            exdb_buf_put_i64(b, (long long)d[i].v.i);
    }
    exdb_buf_putc(b, ']');
}

void exdb_fx_tensor_annotation(exdb_buf *b, const exdb_tensor_meta *t, int stride, int device,
                               int colored) {
    exdb_buf tmp;
    exdb_buf_init(&tmp);
    const char *ab = exdb_dtype_abbr(t->dtype);
    color(b, colored, RED, ab, strlen(ab));
    shape(&tmp, t->sizes, t->ndim);
    color(b, colored, BLUE, tmp.s ? tmp.s : "", tmp.len);
    /* _tensor_annotation colours the stride and device even when empty */
    exdb_buf_reset(&tmp);
    if (stride) {
        if (t->strides)
            shape(&tmp, t->strides, t->ndim);
        else
            exdb_buf_puts(&tmp, "[]");
    }
    color(b, colored, DIM_BLUE, tmp.s ? tmp.s : "", tmp.len);
    exdb_buf_reset(&tmp);
    if (device) {
        exdb_buf_puts(&tmp, t->device_type ? t->device_type : "cpu");
        if (t->device_index >= 0)
            exdb_buf_printf(&tmp, ":%d", t->device_index);
    }
    color(b, colored, DIM_GREEN, tmp.s ? tmp.s : "", tmp.len);
    if (tmp.oom)
        b->oom = 1;
    exdb_buf_free(&tmp);
}

/* graph.py's magic_methods (reflectable ones included) and inplace_methods */
static const char *const magic[][2] = {{"eq", "{} == {}"},
                                       {"ne", "{} != {}"},
                                       {"lt", "{} < {}"},
                                       {"gt", "{} > {}"},
                                       {"le", "{} <= {}"},
                                       {"ge", "{} >= {}"},
                                       {"pos", "+{}"},
                                       {"neg", "-{}"},
                                       {"invert", "~{}"},
                                       {"add", "{} + {}"},
                                       {"sub", "{} - {}"},
                                       {"mul", "{} * {}"},
                                       {"floordiv", "{} // {}"},
                                       {"truediv", "{} / {}"},
                                       {"div", "{} / {}"},
                                       {"mod", "{} % {}"},
                                       {"pow", "{} ** {}"},
                                       {"lshift", "{} << {}"},
                                       {"rshift", "{} >> {}"},
                                       {"and_", "{} & {}"},
                                       {"or_", "{} | {}"},
                                       {"xor", "{} ^ {}"},
                                       {"getitem", "{}[{}]"},
                                       {"matmul", "{} @ {}"},
                                       {NULL, NULL}};
static const char *const inplace[][2] = {
    {"iadd", "{} += {}"},     {"iand", "{} &= {}"},       {"ifloordiv", "{} //= {}"},
    {"ilshift", "{} <<= {}"}, {"imod", "{} %= {}"},       {"imul", "{} *= {}"},
    {"imatmul", "{} @= {}"},  {"ior", "{} |= {}"},        {"ipow", "{} **= {}"},
    {"irshift", "{} >>= {}"}, {"isub", "{} -= {}"},       {"itruediv", "{} /= {}"},
    {"ixor", "{} ^= {}"},     {"setitem", "{}[{}] = {}"}, {NULL, NULL}};

const char *exdb_fx_operator_format(const exdb_node *n, int inplace_op) {
    const char *const(*table)[2] = inplace_op ? inplace : magic;
    if (n->tkind != EXDB_T_PYFN || strncmp(n->target, "operator.", 9) != 0)
        return NULL;
    for (int i = 0; table[i][0]; i++)
        if (strcmp(n->target + 9, table[i][0]) == 0)
            return table[i][1];
    return NULL;
}
