/* cmd_control.c - gdb's CLI control flow and convenience variables in
 * scripts, -ex lists and at the prompt: `if EXPR` ... [`else` ...] `end`,
 * `while EXPR` ... `end` (at most CONTROL_MAX_ITERATIONS rounds; Ctrl-C
 * stops it), `set $NAME = EXPR`, `print $NAME` and the variables exdb
 * sets: $_event, $_exitcode, $_nodes, $lint_errors, $lint_warnings.
 *
 * A body is read, up to its "end", from where the command came from (the
 * script, the -ex list, standard input, the prompt: s->read_line), then
 * run line by line through session_exec; a nested if/while reads its body
 * from the enclosing body. An error in a body ends the whole block, as in
 * gdb. Values are whole numbers; a variable never set is void, and a void
 * operand is an error except in $_isvoid($NAME). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_control.h"
#include "cmd_output.h"
#include "command.h"
#include "core/export/program.h"
#include "core/unflatten/unflatten.h"

enum { CONTROL_MAX_ITERATIONS = 100000, CONTROL_MAX_VARS = 64, CONTROL_NAME = 64 };

typedef struct convvar {
    char name[CONTROL_NAME];
    long v;
} convvar;

/* The user's variables (set $x = ...) and the last lint's counts (-1: void). */
static convvar vars[CONTROL_MAX_VARS];
static int nvars;
static long lint_errors = -1, lint_warnings = -1;

void cmd_control_note_lint(uint32_t errors, uint32_t warnings) {
    lint_errors = errors;
    lint_warnings = warnings;
}

/* The value of $name (name without "$"): 0 and *v, or -1 when void. */
static int var_get(const session *s, const char *name, long *v) {
    const exdb_unflatten *u = s->run;
    if (strcmp(name, "_event") == 0) {
        *v = u ? (long)u->pos : 0;
        return s->prog ? 0 : -1;
    }
    if (strcmp(name, "_exitcode") == 0) {
        if (!u || (!u->failed && !exdb_unflatten_done(u)))
            return -1;
        *v = u->failed ? 1 : 0;
        return 0;
    }
    if (strcmp(name, "_nodes") == 0) {
        exdb_node_counts nc = {0}; /* the shape's when not built */
        if (s->prog)
            exdb_program_node_counts(exdb_program_shape_view(s->prog), &nc);
        *v = (long)nc.nodes;
        return s->prog ? 0 : -1;
    }
    if (strcmp(name, "lint_errors") == 0 || strcmp(name, "lint_warnings") == 0) {
        *v = name[5] == 'e' ? lint_errors : lint_warnings;
        return *v < 0 ? -1 : 0;
    }
    for (int i = 0; i < nvars; i++)
        if (strcmp(vars[i].name, name) == 0) {
            *v = vars[i].v;
            return 0;
        }
    return -1;
}

/* ---- expressions: || && == != < <= > >= + - * / % ! unary - ( ) */

typedef struct expr {
    const session *s;
    const char *p;
    char err[256]; /* "" while fine */
} expr;

static void skip_ws(expr *e) {
    while (*e->p == ' ' || *e->p == '\t')
        e->p++;
}

static int name_len(const char *p) {
    int n = 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
           (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
        n++;
    return n;
}

static long parse_or(expr *e);

static long parse_var(expr *e) {
    e->p++; /* '$' */
    int n = name_len(e->p);
    if (n == 0 || n >= CONTROL_NAME) {
        snprintf(e->err, sizeof e->err, "expected a variable name after \"$\" at \"%s\"", e->p - 1);
        return 0;
    }
    char name[CONTROL_NAME];
    memcpy(name, e->p, (size_t)n);
    name[n] = '\0';
    e->p += n;
    if (strcmp(name, "_isvoid") == 0) { /* $_isvoid($NAME) */
        skip_ws(e);
        int m = e->p[0] == '(' && e->p[1] == '$' ? name_len(e->p + 2) : 0;
        if (!m || m >= CONTROL_NAME || e->p[2 + m] != ')') {
            snprintf(e->err, sizeof e->err, "$_isvoid takes one variable: $_isvoid($NAME)");
            return 0;
        }
        char arg[CONTROL_NAME];
        memcpy(arg, e->p + 2, (size_t)m);
        arg[m] = '\0';
        e->p += 3 + m;
        long v;
        return var_get(e->s, arg, &v) < 0;
    }
    long v = 0;
    if (var_get(e->s, name, &v) < 0)
        snprintf(e->err, sizeof e->err, "$%s is void (never set%s; $_isvoid($%s) tells)", name,
                 name[0] == '_' || strncmp(name, "lint_", 5) == 0 ? ", or not known yet" : "",
                 name);
    return v;
}

/* Whole numbers wrap around on overflow, as gdb's do (C's signed overflow
 * is undefined): a op b computed on unsigned long. */
static long wrap_arith(char op, long a, long b) {
    unsigned long x = (unsigned long)a, y = (unsigned long)b;
    return (long)(op == '+' ? x + y : op == '-' ? x - y : x * y);
}

static long parse_primary(expr *e) {
    skip_ws(e);
    if (e->err[0])
        return 0;
    if (*e->p == '(') {
        e->p++;
        long v = parse_or(e);
        skip_ws(e);
        if (!e->err[0] && *e->p != ')')
            snprintf(e->err, sizeof e->err, "expected \")\" at %s%s%s", *e->p ? "\"" : "",
                     *e->p ? e->p : "the end", *e->p ? "\"" : "");
        e->p += *e->p == ')';
        return v;
    }
    if (*e->p == '!') {
        e->p++;
        return !parse_primary(e);
    }
    if (*e->p == '-') {
        e->p++;
        return wrap_arith('-', 0, parse_primary(e));
    }
    if (*e->p == '$')
        return parse_var(e);
    if (*e->p >= '0' && *e->p <= '9') {
        char *end;
        long v = strtol(e->p, &end, 10);
        e->p = end;
        return v;
    }
    snprintf(e->err, sizeof e->err, "expected a number, a $variable or \"(\" at %s%s%s",
             *e->p ? "\"" : "", *e->p ? e->p : "the end", *e->p ? "\"" : "");
    return 0;
}

static long parse_mul(expr *e) {
    long v = parse_primary(e);
    for (;;) {
        skip_ws(e);
        char op = *e->p;
        if (e->err[0] || (op != '*' && op != '/' && op != '%'))
            return v;
        e->p++;
        long r = parse_primary(e);
        if (e->err[0]) /* r is no number: nothing to divide by */
            return 0;
        if (op != '*' && r == 0) {
            snprintf(e->err, sizeof e->err, "division by zero");
            return 0;
        }
        if (op != '*' && r == -1) /* LONG_MIN / -1 overflows: wraps */
            v = op == '/' ? wrap_arith('-', 0, v) : 0;
        else
            v = op == '*' ? wrap_arith('*', v, r) : op == '/' ? v / r : v % r;
    }
}

static long parse_add(expr *e) {
    long v = parse_mul(e);
    for (;;) {
        skip_ws(e);
        char op = *e->p;
        if (e->err[0] || (op != '+' && op != '-'))
            return v;
        e->p++;
        long r = parse_mul(e);
        v = wrap_arith(op, v, r);
    }
}

static long parse_rel(expr *e) {
    long v = parse_add(e);
    for (;;) {
        skip_ws(e);
        const char *p = e->p;
        int le = p[0] == '<' && p[1] == '=', ge = p[0] == '>' && p[1] == '=';
        int eq = p[0] == '=' && p[1] == '=', ne = p[0] == '!' && p[1] == '=';
        int lt = p[0] == '<' && !le, gt = p[0] == '>' && !ge;
        if (e->err[0] || !(le || ge || eq || ne || lt || gt))
            return v;
        e->p += le || ge || eq || ne ? 2 : 1;
        long r = parse_add(e);
        v = le ? v <= r : ge ? v >= r : eq ? v == r : ne ? v != r : lt ? v < r : v > r;
    }
}

static long parse_and(expr *e) {
    long v = parse_rel(e);
    while (!e->err[0] && (skip_ws(e), e->p[0] == '&' && e->p[1] == '&')) {
        e->p += 2;
        long r = parse_rel(e);
        v = v && r;
    }
    return v;
}

static long parse_or(expr *e) {
    long v = parse_and(e);
    while (!e->err[0] && (skip_ws(e), e->p[0] == '|' && e->p[1] == '|')) {
        e->p += 2;
        long r = parse_and(e);
        v = v || r;
    }
    return v;
}

/* Evaluates text into *v: 0, or -1 after "CMD: what is wrong". */
static int eval(session *s, const char *cmd, const char *text, long *v) {
    expr e = {s, text, ""};
    *v = parse_or(&e);
    skip_ws(&e);
    if (!e.err[0] && *e.p)
        snprintf(e.err, sizeof e.err, "unexpected \"%s\" after the expression", e.p);
    if (!e.err[0] && !text[strspn(text, " \t")])
        snprintf(e.err, sizeof e.err, "an expression is needed");
    return e.err[0] ? cmd_fail(s, "%s: %s.", cmd, e.err) : 0;
}

/* What follows the command word on the line being run. */
static const char *rest_of_line(const session *s) {
    const char *p = s->line ? s->line : "";
    p += strspn(p, " \t");
    p += strcspn(p, " \t");
    return p + strspn(p, " \t");
}

/* ---- set $NAME = EXPR, print $NAME */

int cmd_control_set(session *s) {
    const char *p = rest_of_line(s) + 1; /* after "$" */
    int n = name_len(p);
    const char *q = p + n;
    q += strspn(q, " \t");
    if (n == 0 || n >= CONTROL_NAME || *q != '=' || q[1] == '=')
        return cmd_fail(s, "set: expected \"set $NAME = EXPR\".");
    if (p[0] == '_' || strncmp(p, "lint_", 5) == 0)
        return cmd_fail(s, "set: $%.*s is exdb's; choose a name without \"_\" or \"lint_\" first.",
                        n, p);
    long v;
    if (eval(s, "set", q + 1, &v) < 0)
        return -1;
    int i = 0;
    while (i < nvars && (strncmp(vars[i].name, p, (size_t)n) != 0 || vars[i].name[n]))
        i++;
    if (i == nvars) {
        if (nvars == CONTROL_MAX_VARS)
            return cmd_fail(s, "set: more than %d convenience variables.", CONTROL_MAX_VARS);
        memcpy(vars[i].name, p, (size_t)n);
        vars[i].name[n] = '\0';
        nvars++;
    }
    vars[i].v = v;
    cJSON *o = s->json ? cJSON_CreateObject() : NULL;
    if (o) {
        cJSON_AddStringToObject(o, "name", vars[i].name);
        cJSON_AddNumberToObject(o, "value", (double)v);
    }
    cmd_json_add(s, "variable", o);
    return 0;
}

int cmd_control_print(session *s) {
    const char *text = rest_of_line(s);
    int n = name_len(text + 1);
    long v = 0;
    int isvoid = 0;
    if (text[1 + n + strspn(text + 1 + n, " \t")] == '\0' && n < CONTROL_NAME) {
        char name[CONTROL_NAME]; /* a lone variable: void prints as void, as gdb */
        memcpy(name, text + 1, (size_t)n);
        name[n] = '\0';
        isvoid = var_get(s, name, &v) < 0;
    } else if (eval(s, "print", text, &v) < 0) {
        return -1;
    }
    if (isvoid)
        exdb_buf_puts(&s->buf, "void");
    else
        exdb_buf_printf(&s->buf, "%ld", v);
    cJSON *o = s->json ? cJSON_CreateObject() : NULL;
    if (o) {
        cJSON_AddStringToObject(o, "expression", text);
        cJSON_AddItemToObject(o, "value", isvoid ? cJSON_CreateNull() : cJSON_CreateNumber(v));
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "convenience", o);
    return 0;
}

/* ---- bodies */

/* The first word of line t is w. */
static int first_word(const char *t, const char *w) {
    size_t n = strlen(w);
    return strncmp(t, w, n) == 0 && (t[n] == '\0' || t[n] == ' ' || t[n] == '\t');
}

/* Reads a body up to its "end" into then (and, for if, the part after a
 * top-level "else" into els). 0, or -1 after an error. */
static int read_block(session *s, const char *cmd, exdb_buf *then, exdb_buf *els) {
    if (!s->read_line)
        return cmd_fail(s, "%s: no lines to read its body from.", cmd);
    if (s->in_bp_commands)
        return cmd_fail(s, "%s cannot be used in a breakpoint's commands.", cmd);
    int depth = 0;
    exdb_buf *into = then;
    char *line;
    while ((line = s->read_line(s, ">"))) {
        char *t = line, *e = line + strlen(line);
        t += strspn(t, " \t");
        while (e > t && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
            *--e = '\0';
        if (!*t || *t == '#') {
            free(line);
            continue;
        }
        if (depth == 0 && strcmp(t, "end") == 0) {
            free(line);
            return 0;
        }
        if (depth == 0 && strcmp(t, "else") == 0) {
            free(line);
            if (!els || into == els)
                return cmd_fail(s, "%s: \"else\" %s.", cmd, els ? "given twice" : "outside an if");
            into = els;
            continue;
        }
        if (first_word(t, "if") || first_word(t, "while") || first_word(t, "commands"))
            depth++;
        else if (strcmp(t, "end") == 0)
            depth--;
        exdb_buf_printf(into, "%s\n", t);
        free(line);
    }
    if (exdb_interrupted)
        return cmd_fail(s, "Quit");
    return cmd_fail(s, "%s: no \"end\" before the end of the input.", cmd);
}

typedef struct block_reader {
    char *p; /* the next line of the body */
} block_reader;

static char *block_read_line(session *s, const char *prompt) {
    (void)prompt;
    block_reader *r = s->read_ctx;
    if (!*r->p)
        return NULL;
    char *nl = strchr(r->p, '\n');
    size_t n = nl ? (size_t)(nl - r->p) : strlen(r->p);
    char *line = strndup(r->p, n);
    r->p += n + (nl != NULL);
    return line;
}

/* Runs the lines of body; a nested if/while reads its body from it. */
static int run_block(session *s, char *body) {
    block_reader r = {body};
    char *(*saved_read)(session *, const char *) = s->read_line;
    void *saved_ctx = s->read_ctx;
    s->read_line = block_read_line;
    s->read_ctx = &r;
    s->control_depth++;
    int rc = 0;
    char *line;
    while (rc == 0 && !s->quit_requested && !exdb_interrupted && !output_quit(s) &&
           (line = block_read_line(s, ""))) {
        if (s->trace_commands && !s->json)
            fprintf(s->out, "+%s\n", line);
        rc = session_exec(s, line);
        free(line);
    }
    s->control_depth--;
    s->read_line = saved_read;
    s->read_ctx = saved_ctx;
    if (rc == 0 && exdb_interrupted)
        rc = cmd_fail(s, "Quit");
    return rc;
}

static int cmd_if(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    const char *cond = rest_of_line(s);
    exdb_buf then, els;
    exdb_buf_init(&then);
    exdb_buf_init(&els);
    long v = 0;
    char *text = strdup(cond);
    int rc = text ? read_block(s, "if", &then, &els) : cmd_fail(s, "out of memory");
    if (rc == 0)
        rc = eval(s, "if", text, &v);
    if (rc == 0) {
        cJSON *o = s->json ? cJSON_CreateObject() : NULL;
        cJSON_AddBoolToObject(o, "condition", v != 0);
        cmd_json_add(s, "if", o);
        exdb_buf *b = v ? &then : &els;
        if (b->len)
            rc = run_block(s, b->s);
    }
    free(text);
    exdb_buf_free(&then);
    exdb_buf_free(&els);
    return rc;
}

static int cmd_while(session *s, int argc, char **argv) {
    (void)argc;
    (void)argv;
    exdb_buf body;
    exdb_buf_init(&body);
    char *text = strdup(rest_of_line(s));
    int rc = text ? read_block(s, "while", &body, NULL) : cmd_fail(s, "out of memory");
    long v = 0, n = 0;
    while (rc == 0 && (rc = eval(s, "while", text, &v)) == 0 && v) {
        if (n == CONTROL_MAX_ITERATIONS) {
            rc = cmd_fail(s,
                          "while: stopped after %d iterations (the condition \"%s\" still "
                          "holds).",
                          CONTROL_MAX_ITERATIONS, text);
            break;
        }
        n++;
        if (body.len && (rc = run_block(s, body.s)) < 0)
            break;
        if (s->quit_requested || output_quit(s)) /* quit, or "q" at the pager */
            break;
        if (exdb_interrupted)
            rc = cmd_fail(s, "Quit");
    }
    cJSON *o = s->json ? cJSON_CreateObject() : NULL;
    cJSON_AddNumberToObject(o, "iterations", (double)n);
    cmd_json_add(s, "while", o);
    free(text);
    exdb_buf_free(&body);
    return rc;
}

const command control_commands[] = {
    {"if", 1, -1, 0, "if EXPR",
     "Run the lines up to else/end when EXPR is not 0, else those after else.",
     "if EXPR\n  COMMANDS\n[else\n  COMMANDS]\nend\n"
     "as gdb's: the body is read from where \"if\" came from (a script, the -ex list,\n"
     "standard input, the prompt); an error in it ends the whole block.\n"
     "EXPR: whole numbers, $variables, ( ), ! and unary -, * / %, + -, < <= > >=,\n"
     "== !=, && ||; $_isvoid($NAME) is 1 for a variable without a value.\n"
     "Variables: $_event (the unflatten cursor's event, 0 before a run), $_exitcode\n"
     "(0 when the run completed, 1 when it stopped at an error, void before),\n"
     "$_nodes (the loaded graph's nodes), $lint_errors and $lint_warnings (the last\n"
     "lint's counts, void before one), and those \"set $NAME = EXPR\" sets.",
     cmd_if, NULL, NULL, NULL, CMPL_NONE},
    {"while", 1, -1, 0, "while EXPR",
     "Run the lines up to end while EXPR is not 0 (at most 100000 times).",
     "while EXPR\n  COMMANDS\nend\n"
     "EXPR as for \"if\" (help if); a loop stops at an error, at Ctrl-C, or after\n"
     "100000 rounds with an error.",
     cmd_while, NULL, NULL, NULL, CMPL_NONE},
};
const size_t control_ncommands = sizeof control_commands / sizeof *control_commands;
