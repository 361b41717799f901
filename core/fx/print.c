/* print.c - see print.h. The FX formats are those of torch/fx/node.py
 * (_format_node_impl, _format_arg) and torch/fx/graph.py (Graph.__str__,
 * print_tabular); docs/unflatten-notes.md §4 lists them with examples. */
#include "core/fx/print.h"

#include "core/format/schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void exdb_py_float(double d, char out[32]) {
    if (isnan(d)) {
        strcpy(out, "nan");
        return;
    }
    if (isinf(d)) {
        strcpy(out, d < 0 ? "-inf" : "inf");
        return;
    }
    /* The fewest significant digits that read back as d. More digits never
     * read back worse (the nearest p+1-digit decimal is at least as near
     * as the nearest p-digit one), so after the common 1-digit case a
     * binary search finds it: 4 tries instead of up to 17 for a value
     * like 9.797958971132712. */
    char e[40];
    int prec = 1;
    snprintf(e, sizeof e, "%.0e", d);
    if (strtod(e, NULL) != d) {
        int lo = 2, hi = 17;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            snprintf(e, sizeof e, "%.*e", mid - 1, d);
            if (strtod(e, NULL) == d)
                hi = mid;
            else
                lo = mid + 1;
        }
        prec = lo;
        snprintf(e, sizeof e, "%.*e", prec - 1, d);
    }
    /* e = [-]d[.ddd]e[+-]XX */
    const char *p = e;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    char digits[24];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    digits[nd] = '\0';
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    int exp = atoi(p + 1);
    char *w = out;
    if (neg)
        *w++ = '-';
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++)
                *w++ = i < nd ? digits[i] : '0';
            *w++ = '.';
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++)
                    *w++ = digits[i];
            else
                *w++ = '0';
        } else {
            *w++ = '0';
            *w++ = '.';
            for (int i = 0; i < -exp - 1; i++)
                *w++ = '0';
            for (int i = 0; i < nd; i++)
                *w++ = digits[i];
        }
        *w = '\0';
    } else {
        *w++ = digits[0];
        if (nd > 1) {
            *w++ = '.';
            for (int i = 1; i < nd; i++)
                *w++ = digits[i];
        }
        sprintf(w, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

/* str(complex): "(1-2j)", "2j", "(1+0j)". */
static void py_complex(exdb_buf *b, double re, double im) {
    char r[32], i[32];
    exdb_py_float(im, i);
    /* Python prints components with repr but drops a trailing ".0" */
    size_t li = strlen(i);
    if (li > 2 && strcmp(i + li - 2, ".0") == 0)
        i[li - 2] = '\0';
    if (re == 0 && !signbit(re)) {
        exdb_buf_printf(b, "%sj", i);
        return;
    }
    exdb_py_float(re, r);
    size_t lr = strlen(r);
    if (lr > 2 && strcmp(r + lr - 2, ".0") == 0)
        r[lr - 2] = '\0';
    exdb_buf_printf(b, "(%s%s%sj)", r, (im >= 0 || isnan(im)) && i[0] != '-' ? "+" : "", i);
}

/* Python repr(str): single quotes unless the text has a ' and no ", with
 * backslash escapes for the quote, backslash and control characters. */
static void py_str_repr(exdb_buf *b, const char *s) {
    int sq = strchr(s, '\'') != NULL, dq = strchr(s, '"') != NULL;
    char q = (sq && !dq) ? '"' : '\'';
    exdb_buf_putc(b, q);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == (unsigned char)q || c == '\\') {
            exdb_buf_putc(b, '\\');
            exdb_buf_putc(b, (char)c);
        } else if (c == '\n') {
            exdb_buf_puts(b, "\\n");
        } else if (c == '\t') {
            exdb_buf_puts(b, "\\t");
        } else if (c == '\r') {
            exdb_buf_puts(b, "\\r");
        } else if (c < 0x20 || c == 0x7f) {
            exdb_buf_printf(b, "\\x%02x", c);
        } else {
            exdb_buf_putc(b, (char)c);
        }
    }
    exdb_buf_putc(b, q);
}

/* An operator passed as a value (as_operator), as Python shows it: str() of
 * an OpOverload is "aten.add.Tensor" and its repr
 * "<OpOverload(op='aten.add', overload='Tensor')>"; a HOP shows its name;
 * operator.* and math.* functions are builtins ("<built-in function add>"),
 * torch.* ones plain functions ("<function sym_max at 0x7f...>").
 * Anything else (an unresolved target stays a string) is shown as written. */
static void operator_str(exdb_buf *b, const char *s, int repr) {
    if (strncmp(s, "torch.ops.higher_order.", 23) == 0) {
        exdb_buf_puts(b, s + 23);
    } else if (strncmp(s, "torch.ops.", 10) == 0) {
        const char *o = s + 10, *last = strrchr(o, '.');
        if (repr && last && last != strchr(o, '.'))
            exdb_buf_printf(b, "<OpOverload(op='%.*s', overload='%s')>", (int)(last - o), o,
                            last + 1);
        else
            exdb_buf_puts(b, o);
    } else if (strncmp(s, "operator.", 9) == 0 || strncmp(s, "_operator.", 10) == 0 ||
               strncmp(s, "math.", 5) == 0) {
        exdb_buf_printf(b, "<built-in function %s>", strrchr(s, '.') + 1);
    } else if (strncmp(s, "torch.", 6) == 0) {
        /* a Python function (torch.sym_max, the functorch wrappers
         * torch._functorch.predispatch.*): its repr's address is the
         * process's, which exdb cannot know */
        exdb_buf_printf(b, "<function %s at 0x%s>", strrchr(s, '.') + 1, "????????????");
    } else {
        exdb_buf_puts(b, s);
    }
}

/* str() of the scalar kinds, shared by _format_arg and repr. */
static int scalar_str(exdb_buf *b, const exdb_arg *a, int repr) {
    char f[32];
    switch ((exdb_arg_kind)a->kind) {
    case EXDB_ARG_NONE:
        exdb_buf_puts(b, "None");
        return 1;
    case EXDB_ARG_INT:
        exdb_buf_put_i64(b, (long long)a->u.i);
        return 1;
    case EXDB_ARG_FLOAT:
        exdb_py_float(a->u.f, f);
        exdb_buf_puts(b, f);
        return 1;
    case EXDB_ARG_BOOL:
        exdb_buf_puts(b, a->u.i ? "True" : "False");
        return 1;
    case EXDB_ARG_STR:
        if (repr)
            py_str_repr(b, a->u.s);
        else
            exdb_buf_puts(b, a->u.s);
        return 1;
    case EXDB_ARG_DTYPE:
        exdb_buf_puts(b, exdb_dtype_name((int)a->u.i));
        return 1;
    case EXDB_ARG_LAYOUT:
        exdb_buf_puts(b, exdb_layout_name((int)a->u.i));
        return 1;
    case EXDB_ARG_MEMFMT:
        exdb_buf_puts(b, exdb_memory_format_name((int)a->u.i));
        return 1;
    case EXDB_ARG_DEVICE:
        if (repr) {
            const char *colon = strchr(a->u.s, ':');
            if (colon)
                exdb_buf_printf(b, "device(type='%.*s', index=%s)", (int)(colon - a->u.s), a->u.s,
                                colon + 1);
            else
                exdb_buf_printf(b, "device(type='%s')", a->u.s);
        } else {
            exdb_buf_puts(b, a->u.s);
        }
        return 1;
    case EXDB_ARG_COMPLEX:
        py_complex(b, a->u.c[0], a->u.c[1]);
        return 1;
    case EXDB_ARG_OPERATOR:
        operator_str(b, a->u.s, repr);
        return 1;
    default:
        return 0;
    }
}

/* A list, tuple or dict: _format_arg's text (repr 0: strings bare, nodes as
 * %name) or repr()'s (repr 1: strings quoted, nodes by name). */
static void seq(exdb_buf *b, const exdb_arg *a, int repr) {
    int tuple = a->kind == EXDB_ARG_TUPLE, dict = a->kind == EXDB_ARG_DICT;
    exdb_buf_putc(b, dict ? '{' : tuple ? '(' : '[');
    for (uint32_t i = 0; i < a->n; i++) {
        if (i)
            exdb_buf_puts(b, ", ");
        if (dict) {
            if (repr)
                py_str_repr(b, a->keys[i]);
            else
                exdb_buf_puts(b, a->keys[i]);
            exdb_buf_puts(b, ": ");
        }
        if (repr)
            exdb_repr_arg(b, &a->u.items[i]);
        else
            exdb_format_arg(b, &a->u.items[i]);
    }
    if (tuple && a->n == 1)
        exdb_buf_putc(b, ',');
    exdb_buf_putc(b, dict ? '}' : tuple ? ')' : ']');
}

void exdb_format_arg(exdb_buf *b, const exdb_arg *a) {
    if (a->kind == EXDB_ARG_NODE) {
        exdb_buf_putc(b, '%');
        exdb_buf_puts(b, a->u.node->name);
        return;
    }
    if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_DICT) {
        seq(b, a, 0);
        return;
    }
    scalar_str(b, a, 0);
}

void exdb_repr_arg(exdb_buf *b, const exdb_arg *a) {
    if (a->kind == EXDB_ARG_NODE) {
        exdb_buf_puts(b, a->u.node->name);
        return;
    }
    if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_DICT) {
        seq(b, a, 1);
        return;
    }
    scalar_str(b, a, 1);
}

/* Python str(value) of an argument: scalars by str(), a node by its name,
 * containers by repr() (what str() of a tuple or list does). */
static void str_arg(exdb_buf *b, const exdb_arg *a) {
    if (a->kind == EXDB_ARG_LIST || a->kind == EXDB_ARG_TUPLE || a->kind == EXDB_ARG_DICT ||
        a->kind == EXDB_ARG_NODE)
        exdb_repr_arg(b, a);
    else
        scalar_str(b, a, 0);
}

/* "%name : [num_users=N] = OP[target=T]", without printf: this runs for
 * every node of a DOT tooltip (141k of them in the 100k synthetic program). */
static void node_head(exdb_buf *b, const exdb_node *n, const char *op) {
    exdb_buf_putc(b, '%');
    exdb_buf_puts(b, n->name);
    exdb_buf_puts(b, " : [num_users=");
    exdb_buf_put_u32(b, n->nusers);
    exdb_buf_puts(b, "] = ");
    exdb_buf_puts(b, op);
    exdb_buf_puts(b, "[target=");
    exdb_buf_puts(b, n->target ? n->target : "(null)");
    exdb_buf_putc(b, ']');
}

void exdb_format_node(exdb_buf *b, const exdb_node *n) {
    switch ((exdb_op)n->op) {
    case EXDB_OP_PLACEHOLDER:
        node_head(b, n, "placeholder");
        if (n->args.n) {
            exdb_buf_puts(b, "(default=");
            str_arg(b, &n->args.u.items[0]);
            exdb_buf_putc(b, ')');
        }
        return;
    case EXDB_OP_GET_ATTR:
        node_head(b, n, "get_attr");
        return;
    case EXDB_OP_OUTPUT:
        exdb_buf_puts(b, "return ");
        if (n->args.n)
            str_arg(b, &n->args.u.items[0]);
        return;
    default:
        node_head(b, n, exdb_op_name((exdb_op)n->op));
        exdb_buf_puts(b, "(args = ");
        exdb_format_arg(b, &n->args);
        exdb_buf_puts(b, ", kwargs = ");
        exdb_format_arg(b, &n->kwargs);
        exdb_buf_putc(b, ')');
    }
}

void exdb_print_graph(exdb_buf *b, const exdb_graph *g) {
    exdb_buf_puts(b, "graph():");
    for (const exdb_node *n = g->head; n; n = n->next) {
        exdb_buf_puts(b, "\n    ");
        exdb_format_node(b, n);
    }
}

/* ---- print_tabular: tabulate(rows, headers=[...]) in the "simple" format */

/* str(target) as tabulate shows it: OpOverload.__str__ ("aten.add.Tensor"),
 * a HOP's name, "<built-in function getitem>" for operator.* and math.*;
 * string targets as they are. */
static void target_str(exdb_buf *b, const exdb_node *n) {
    if (n->op == EXDB_OP_CALL_FUNCTION && n->tkind != EXDB_T_STR)
        operator_str(b, n->target, 0);
    else
        exdb_buf_puts(b, n->target);
}

/* Display width: code points (tabulate's len() without wcwidth). */
static size_t utf8_width(const char *s) {
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static int is_py_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* A malloc'd copy of s with surrounding whitespace removed (tabulate
 * strips cells: PRESERVE_WHITESPACE is False). */
static char *strip_dup(const char *s) {
    while (is_py_space(*s))
        s++;
    size_t n = strlen(s);
    while (n && is_py_space(s[n - 1]))
        n--;
    char *r = malloc(n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

/* Appends one table line: cells left-justified to their column widths,
 * joined by two spaces, trailing blanks removed (tabulate rstrips rows). */
static void table_line(exdb_buf *b, const char *const *cells, const size_t *width) {
    size_t start = b->len;
    for (int c = 0; c < 5; c++) {
        const char *s = cells[c] ? cells[c] : "";
        exdb_buf_puts(b, s);
        if (c < 4)
            for (size_t k = utf8_width(s); k < width[c] + 2; k++)
                exdb_buf_putc(b, ' ');
    }
    while (b->s && b->len > start && b->s[b->len - 1] == ' ')
        b->s[--b->len] = '\0';
}

/* Graph.print_tabular(): rows [op, name, target, args, kwargs], cells as
 * str() (so repr() inside the args tuple and kwargs dict), every column
 * left-aligned and at least as wide as its header plus 2, a dashed rule
 * under the headers. No trailing newline. */
void exdb_print_tabular(exdb_buf *b, const exdb_graph *g) {
    static const char *const headers[5] = {"opcode", "name", "target", "args", "kwargs"};
    size_t rows = g->count;
    char **cells = calloc((rows + 1) * 5, sizeof *cells);
    if (!cells) {
        b->oom = 1;
        return;
    }
    size_t width[5];
    for (int c = 0; c < 5; c++)
        width[c] = strlen(headers[c]) + 2; /* tabulate's MIN_PADDING */
    size_t r = 0;
    exdb_buf cell;
    exdb_buf_init(&cell);
    for (const exdb_node *n = g->head; n && r < rows; n = n->next, r++) {
        for (int c = 0; c < 5; c++) {
            exdb_buf_reset(&cell);
            switch (c) {
            case 0:
                exdb_buf_puts(&cell, exdb_op_name((exdb_op)n->op));
                break;
            case 1:
                exdb_buf_puts(&cell, n->name);
                break;
            case 2:
                target_str(&cell, n);
                break;
            case 3:
                exdb_repr_arg(&cell, &n->args);
                break;
            case 4:
                exdb_repr_arg(&cell, &n->kwargs);
                break;
            }
            char *text = strip_dup(exdb_buf_str(&cell));
            if (!text)
                b->oom = 1;
            cells[r * 5 + c] = text;
            size_t w = text ? utf8_width(text) : 0;
            if (w > width[c])
                width[c] = w;
        }
    }
    if (cell.oom)
        b->oom = 1;
    exdb_buf_free(&cell);
    table_line(b, headers, width);
    exdb_buf_putc(b, '\n');
    for (int c = 0; c < 5; c++) {
        for (size_t k = 0; k < width[c]; k++)
            exdb_buf_putc(b, '-');
        if (c < 4)
            exdb_buf_puts(b, "  ");
    }
    for (size_t i = 0; i < r; i++) {
        exdb_buf_putc(b, '\n');
        table_line(b, (const char *const *)&cells[i * 5], width);
    }
    for (size_t i = 0; i < (rows + 1) * 5; i++)
        free(cells[i]);
    free(cells);
}

/* ---- values */

void exdb_format_sym(exdb_buf *b, const exdb_sym *s) {
    if (s->expr)
        exdb_buf_puts(b, s->expr);
    else
        exdb_buf_put_i64(b, (long long)s->v.i);
}

void exdb_format_val(exdb_buf *b, const exdb_val *v) {
    if (!v)
        return;
    switch ((exdb_val_kind)v->kind) {
    case EXDB_VAL_NONE:
        exdb_buf_puts(b, "None");
        break;
    case EXDB_VAL_TENSOR:
        exdb_buf_puts(b, exdb_dtype_abbr(v->u.t->dtype));
        exdb_buf_putc(b, '[');
        for (uint32_t i = 0; i < v->u.t->ndim; i++) {
            if (i)
                exdb_buf_puts(b, ", ");
            exdb_format_sym(b, &v->u.t->sizes[i]);
        }
        exdb_buf_putc(b, ']');
        break;
    case EXDB_VAL_SYMINT:
    case EXDB_VAL_SYMFLOAT:
    case EXDB_VAL_SYMBOOL:
        if (v->u.sym.expr) {
            exdb_buf_printf(b, "Sym(%s)", v->u.sym.expr);
        } else if (v->kind == EXDB_VAL_SYMINT) {
            exdb_buf_printf(b, "%lld", (long long)v->u.sym.v.i);
        } else if (v->kind == EXDB_VAL_SYMFLOAT) {
            char f[32];
            exdb_py_float(v->u.sym.v.f, f);
            exdb_buf_puts(b, f);
        } else {
            exdb_buf_puts(b, v->u.sym.v.b ? "True" : "False");
        }
        break;
    case EXDB_VAL_CUSTOM_OBJ:
        exdb_buf_printf(b, "%s", v->u.s);
        break;
    case EXDB_VAL_TUPLE:
        exdb_buf_putc(b, '(');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                exdb_buf_puts(b, ", ");
            if (v->u.items[i])
                exdb_format_val(b, v->u.items[i]);
            else
                exdb_buf_puts(b, "None");
        }
        if (v->n == 1)
            exdb_buf_putc(b, ',');
        exdb_buf_putc(b, ')');
        break;
    case EXDB_VAL_CONST:
        exdb_repr_arg(b, v->u.arg);
        break;
    }
}
