/* sympy.c - see sympy.h. The printer follows sympy's StrPrinter
 * (sympy/printing/str.py: _print_Add, _print_Mul, _print_Pow,
 * _print_Relational, parenthesize; sympy/printing/precedence.py) for the
 * expressions torch.export writes, and torch's FloorDiv._sympystr. */
#include "core/fx/sympy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* sympy's PRECEDENCE */
enum {
    P_OR = 20,
    P_AND = 30,
    P_REL = 35,
    P_ADD = 40,
    P_MUL = 50,
    P_POW = 60,
    P_FUNC = 70,
    P_NOT = 100,
    P_ATOM = 1000
};

typedef struct sx {
    const char *name; /* the class (a call), or the atom's text */
    size_t len;
    int call;
    struct sx **args;
    uint32_t n;
} sx;

typedef struct parser {
    const char *p;
    int bad;
    int oom; /* an allocation failed (bad is set too) */
} parser;

static void ws(parser *ps) {
    while (*ps->p == ' ')
        ps->p++;
}

static void sx_free(sx *e) {
    if (!e)
        return;
    for (uint32_t i = 0; i < e->n; i++)
        sx_free(e->args[i]);
    free(e->args);
    free(e);
}

/* NAME(ARG, ..., key=value) | 'string' | number | name */
static sx *parse(parser *ps, int depth) {
    ws(ps);
    sx *e = calloc(1, sizeof *e);
    if (!e || depth > 200) {
        ps->bad = 1;
        ps->oom |= !e;
        free(e);
        return NULL;
    }
    const char *s = ps->p;
    if (*s == '\'') {
        const char *q = strchr(s + 1, '\'');
        if (!q) {
            ps->bad = 1;
            free(e);
            return NULL;
        }
        e->name = s + 1, e->len = (size_t)(q - s - 1);
        ps->p = q + 1;
        return e;
    }
    while (*ps->p && !strchr("(),= ", *ps->p))
        ps->p++;
    e->name = s, e->len = (size_t)(ps->p - s);
    if (!e->len)
        ps->bad = 1;
    ws(ps);
    if (*ps->p != '(')
        return e;
    e->call = 1;
    ps->p++;
    for (uint32_t cap = 0; !ps->bad;) {
        ws(ps);
        if (*ps->p == ')') {
            ps->p++;
            break;
        }
        sx *a = parse(ps, depth + 1);
        if (!a)
            break;
        ws(ps);
        if (*ps->p == '=') { /* a keyword argument (assumptions): dropped */
            ps->p++;
            sx_free(a);
            sx_free(parse(ps, depth + 1));
        } else {
            if (e->n == cap) {
                cap = cap ? cap * 2 : 4;
                sx **na = realloc(e->args, cap * sizeof *na);
                if (!na) {
                    sx_free(a);
                    ps->bad = ps->oom = 1;
                    break;
                }
                e->args = na;
            }
            e->args[e->n++] = a;
        }
        ws(ps);
        if (*ps->p == ',')
            ps->p++;
        else if (*ps->p != ')')
            ps->bad = 1;
    }
    return e;
}

static int is(const sx *e, const char *name) {
    return e->call && strlen(name) == e->len && strncmp(e->name, name, e->len) == 0;
}

/* an Integer or Rational with a negative value, or a Mul led by one */
static int negative(const sx *e) {
    if ((is(e, "Integer") || is(e, "Rational")) && e->n && e->args[0]->name[0] == '-')
        return 1;
    return is(e, "Mul") && e->n && negative(e->args[0]);
}

static int prec(const sx *e) {
    if (!e->call)
        return P_ATOM;
    if (is(e, "Integer") || is(e, "Rational"))
        return negative(e) ? P_ADD : is(e, "Rational") ? P_MUL : P_ATOM;
    if (is(e, "Symbol") || is(e, "Float"))
        return P_ATOM;
    if (is(e, "Add"))
        return P_ADD;
    if (is(e, "Mul"))
        return negative(e) ? P_ADD : P_MUL;
    if (is(e, "Pow"))
        return P_POW;
    if (is(e, "StrictGreaterThan") || is(e, "StrictLessThan") || is(e, "GreaterThan") ||
        is(e, "LessThan"))
        return P_REL;
    if (is(e, "And"))
        return P_AND;
    if (is(e, "Or"))
        return P_OR;
    if (is(e, "Not"))
        return P_NOT;
    return P_FUNC;
}

static void print(exdb_buf *b, const sx *e);

/* parenthesize(item, level), strict=False */
static void paren(exdb_buf *b, const sx *e, int level) {
    int p = prec(e) <= level;
    if (p)
        exdb_buf_putc(b, '(');
    print(b, e);
    if (p)
        exdb_buf_putc(b, ')');
}

static void join(exdb_buf *b, const sx *e, const char *sep, int level) {
    for (uint32_t i = 0; i < e->n; i++) {
        if (i)
            exdb_buf_puts(b, sep);
        paren(b, e->args[i], level);
    }
}

/* _print_Add: the number last (as_ordered_terms puts it there), each
 * term's leading minus turned into " - ". */
static void print_add(exdb_buf *b, const sx *e) {
    exdb_buf t;
    exdb_buf_init(&t);
    int first = 1;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < e->n; i++) {
            const sx *a = e->args[i];
            int num = is(a, "Integer") || is(a, "Rational") || is(a, "Float");
            if (num != pass)
                continue;
            exdb_buf_reset(&t);
            print(&t, a);
            const char *s = t.s ? t.s : "";
            int minus = s[0] == '-';
            if (minus)
                s++;
            if (first)
                exdb_buf_puts(b, minus ? "-" : "");
            else
                exdb_buf_puts(b, minus ? " - " : " + ");
            if (prec(a) < P_ADD)
                exdb_buf_printf(b, "(%s)", s);
            else
                exdb_buf_puts(b, s);
            first = 0;
        }
    exdb_buf_free(&t);
}

/* _print_Mul: a leading -1 as "-", a Rational coefficient p/q as
 * numerator p and denominator q, x**-1 factors in the denominator. */
static void print_mul(exdb_buf *b, const sx *e) {
    uint32_t i = 0;
    const char *num = NULL, *den = NULL;
    size_t nnum = 0, nden = 0;
    if (e->n && (is(e->args[0], "Integer") || is(e->args[0], "Rational"))) {
        const sx *c = e->args[0];
        num = c->args[0]->name, nnum = c->args[0]->len;
        if (is(c, "Rational") && c->n > 1)
            den = c->args[1]->name, nden = c->args[1]->len;
        if (*num == '-') {
            exdb_buf_putc(b, '-');
            num++, nnum--;
        }
        if (nnum == 1 && *num == '1')
            num = NULL;
        i = 1;
    }
    int any = 0;
    if (num) {
        exdb_buf_put(b, num, nnum);
        any = 1;
    }
    for (uint32_t k = i; k < e->n; k++) {
        const sx *f = e->args[k];
        if (is(f, "Pow") && f->n == 2 && is(f->args[1], "Integer") &&
            f->args[1]->args[0]->name[0] == '-')
            continue;
        if (any)
            exdb_buf_putc(b, '*');
        paren(b, f, P_MUL);
        any = 1;
    }
    if (!any)
        exdb_buf_putc(b, '1');
    for (uint32_t k = i; k < e->n; k++) {
        const sx *f = e->args[k];
        if (!(is(f, "Pow") && f->n == 2 && is(f->args[1], "Integer") &&
              f->args[1]->args[0]->name[0] == '-'))
            continue;
        exdb_buf_putc(b, '/');
        paren(b, f->args[0], P_MUL);
    }
    if (den) {
        exdb_buf_putc(b, '/');
        exdb_buf_put(b, den, nden);
    }
}

static void print_call(exdb_buf *b, const sx *e) {
    static const char *const rel[][2] = {{"StrictGreaterThan", " > "},
                                         {"StrictLessThan", " < "},
                                         {"GreaterThan", " >= "},
                                         {"LessThan", " <= "}};
    for (size_t k = 0; k < sizeof rel / sizeof *rel; k++)
        if (is(e, rel[k][0])) {
            join(b, e, rel[k][1], prec(e));
            return;
        }
    /* _print_And / _print_Or join at PRECEDENCE["BitwiseAnd"] (38) and
     * ["BitwiseOr"] (36): a relation or an Or inside an And is parenthesized */
    if (is(e, "And") || is(e, "Or")) {
        join(b, e, is(e, "And") ? " & " : " | ", is(e, "And") ? 38 : 36);
        return;
    }
    if (is(e, "Equality") || is(e, "Unequality")) {
        exdb_buf_puts(b, is(e, "Equality") ? "Eq(" : "Ne(");
        for (uint32_t i = 0; i < e->n; i++) {
            exdb_buf_puts(b, i ? ", " : "");
            print(b, e->args[i]);
        }
        exdb_buf_putc(b, ')');
        return;
    }
    if (is(e, "Not") && e->n == 1) {
        exdb_buf_putc(b, '~');
        paren(b, e->args[0], P_NOT);
        return;
    }
    if (is(e, "FloorDiv") && e->n == 2) { /* torch's FloorDiv._sympystr */
        exdb_buf_putc(b, '(');
        paren(b, e->args[0], P_ATOM - 1);
        exdb_buf_puts(b, "//");
        paren(b, e->args[1], P_ATOM - 1);
        exdb_buf_putc(b, ')');
        return;
    }
    exdb_buf_put(b, e->name, e->len);
    exdb_buf_putc(b, '(');
    for (uint32_t i = 0; i < e->n; i++) {
        exdb_buf_puts(b, i ? ", " : "");
        print(b, e->args[i]);
    }
    exdb_buf_putc(b, ')');
}

static void print(exdb_buf *b, const sx *e) {
    if (!e->call) {
        if (e->len == 4 && strncmp(e->name, "true", 4) == 0)
            exdb_buf_puts(b, "True");
        else if (e->len == 5 && strncmp(e->name, "false", 5) == 0)
            exdb_buf_puts(b, "False");
        else
            exdb_buf_put(b, e->name, e->len);
    } else if ((is(e, "Symbol") || is(e, "Integer") || is(e, "Float")) && e->n) {
        exdb_buf_put(b, e->args[0]->name, e->args[0]->len);
    } else if (is(e, "Rational") && e->n == 2) {
        exdb_buf_printf(b, "%.*s/%.*s", (int)e->args[0]->len, e->args[0]->name,
                        (int)e->args[1]->len, e->args[1]->name);
    } else if (is(e, "Add")) {
        print_add(b, e);
    } else if (is(e, "Mul")) {
        print_mul(b, e);
    } else if (is(e, "Pow") && e->n == 2) {
        if (is(e->args[1], "Integer") && e->args[1]->n && e->args[1]->args[0]->len == 2 &&
            strncmp(e->args[1]->args[0]->name, "-1", 2) == 0) {
            exdb_buf_puts(b, "1/");
            paren(b, e->args[0], P_MUL);
        } else {
            paren(b, e->args[0], P_POW);
            exdb_buf_puts(b, "**");
            paren(b, e->args[1], P_POW);
        }
    } else {
        print_call(b, e);
    }
}

void exdb_sympy_str(exdb_buf *b, const char *srepr) {
    parser ps = {srepr, 0, 0};
    sx *e = parse(&ps, 0);
    ws(&ps);
    if (!e || ps.bad || *ps.p) {
        exdb_buf_puts(b, srepr); /* not sympy's srepr: as written */
        if (ps.oom)
            b->oom = 1; /* it may be one: the text is not what it should be */
    } else {
        exdb_buf t;
        exdb_buf_init(&t);
        print(&t, e);
        exdb_buf_put(b, t.s ? t.s : "", t.len);
        if (t.oom)
            b->oom = 1;
        exdb_buf_free(&t);
    }
    sx_free(e);
}
