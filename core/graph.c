/* graph.c - see graph.h. Mirrors torch.fx.Graph / torch.fx.Node and
 * torch.fx.graph._Namespace. */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names FX refuses to give a node: Python keywords, everything in
 * builtins.__dict__ (CPython 3.11 with site, as in a torch process), and FX's
 * custom builtins (inf, nan, NoneType, torch, device, fx_pytree, pytree). */
static const char *const reserved_names[] = {"ArithmeticError",
                                             "AssertionError",
                                             "AttributeError",
                                             "BaseException",
                                             "BaseExceptionGroup",
                                             "BlockingIOError",
                                             "BrokenPipeError",
                                             "BufferError",
                                             "BytesWarning",
                                             "ChildProcessError",
                                             "ConnectionAbortedError",
                                             "ConnectionError",
                                             "ConnectionRefusedError",
                                             "ConnectionResetError",
                                             "DeprecationWarning",
                                             "EOFError",
                                             "Ellipsis",
                                             "EncodingWarning",
                                             "EnvironmentError",
                                             "Exception",
                                             "ExceptionGroup",
                                             "False",
                                             "FileExistsError",
                                             "FileNotFoundError",
                                             "FloatingPointError",
                                             "FutureWarning",
                                             "GeneratorExit",
                                             "IOError",
                                             "ImportError",
                                             "ImportWarning",
                                             "IndentationError",
                                             "IndexError",
                                             "InterruptedError",
                                             "IsADirectoryError",
                                             "KeyError",
                                             "KeyboardInterrupt",
                                             "LookupError",
                                             "MemoryError",
                                             "ModuleNotFoundError",
                                             "NameError",
                                             "None",
                                             "NoneType",
                                             "NotADirectoryError",
                                             "NotImplemented",
                                             "NotImplementedError",
                                             "OSError",
                                             "OverflowError",
                                             "PendingDeprecationWarning",
                                             "PermissionError",
                                             "ProcessLookupError",
                                             "RecursionError",
                                             "ReferenceError",
                                             "ResourceWarning",
                                             "RuntimeError",
                                             "RuntimeWarning",
                                             "StopAsyncIteration",
                                             "StopIteration",
                                             "SyntaxError",
                                             "SyntaxWarning",
                                             "SystemError",
                                             "SystemExit",
                                             "TabError",
                                             "TimeoutError",
                                             "True",
                                             "TypeError",
                                             "UnboundLocalError",
                                             "UnicodeDecodeError",
                                             "UnicodeEncodeError",
                                             "UnicodeError",
                                             "UnicodeTranslateError",
                                             "UnicodeWarning",
                                             "UserWarning",
                                             "ValueError",
                                             "Warning",
                                             "ZeroDivisionError",
                                             "__build_class__",
                                             "__debug__",
                                             "__doc__",
                                             "__import__",
                                             "__loader__",
                                             "__name__",
                                             "__package__",
                                             "__spec__",
                                             "abs",
                                             "aiter",
                                             "all",
                                             "and",
                                             "anext",
                                             "any",
                                             "as",
                                             "ascii",
                                             "assert",
                                             "async",
                                             "await",
                                             "bin",
                                             "bool",
                                             "break",
                                             "breakpoint",
                                             "bytearray",
                                             "bytes",
                                             "callable",
                                             "chr",
                                             "class",
                                             "classmethod",
                                             "compile",
                                             "complex",
                                             "continue",
                                             "copyright",
                                             "credits",
                                             "def",
                                             "del",
                                             "delattr",
                                             "device",
                                             "dict",
                                             "dir",
                                             "divmod",
                                             "elif",
                                             "else",
                                             "enumerate",
                                             "eval",
                                             "except",
                                             "exec",
                                             "exit",
                                             "filter",
                                             "finally",
                                             "float",
                                             "for",
                                             "format",
                                             "from",
                                             "frozenset",
                                             "fx_pytree",
                                             "getattr",
                                             "global",
                                             "globals",
                                             "hasattr",
                                             "hash",
                                             "help",
                                             "hex",
                                             "id",
                                             "if",
                                             "import",
                                             "in",
                                             "inf",
                                             "input",
                                             "int",
                                             "is",
                                             "isinstance",
                                             "issubclass",
                                             "iter",
                                             "lambda",
                                             "len",
                                             "license",
                                             "list",
                                             "locals",
                                             "map",
                                             "max",
                                             "memoryview",
                                             "min",
                                             "nan",
                                             "next",
                                             "nonlocal",
                                             "not",
                                             "object",
                                             "oct",
                                             "open",
                                             "or",
                                             "ord",
                                             "pass",
                                             "pow",
                                             "print",
                                             "property",
                                             "pytree",
                                             "quit",
                                             "raise",
                                             "range",
                                             "repr",
                                             "return",
                                             "reversed",
                                             "round",
                                             "set",
                                             "setattr",
                                             "slice",
                                             "sorted",
                                             "staticmethod",
                                             "str",
                                             "sum",
                                             "super",
                                             "torch",
                                             "try",
                                             "tuple",
                                             "type",
                                             "vars",
                                             "while",
                                             "with",
                                             "yield",
                                             "zip"};

static int is_reserved(const char *s) {
    /* A sorted table: binary search needs no initialisation or locking. */
    size_t lo = 0, hi = sizeof reserved_names / sizeof *reserved_names;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s, reserved_names[mid]);
        if (c == 0)
            return 1;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

exdb_graph *exdb_graph_new(exdb_arena *a) {
    exdb_graph *g = exdb_arena_calloc(a, 1, sizeof *g);
    if (!g)
        return NULL;
    g->arena = a;
    exdb_strmap_init(&g->names, a);
    exdb_strmap_init(&g->base_count, a);
    return g;
}

static int is_ident_char(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* _Namespace.create_name (obj is always None for nodes here: FX passes the
 * node object, but a fresh node is never already named). */
const char *exdb_graph_create_name(exdb_graph *g, const char *candidate) {
    size_t n = strlen(candidate);
    char *buf = malloc(n + 32);
    if (!buf)
        return NULL;
    /* illegal runs -> one '_' */
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if (is_ident_char((unsigned char)candidate[i])) {
            buf[w++] = candidate[i++];
        } else {
            buf[w++] = '_';
            while (i < n && !is_ident_char((unsigned char)candidate[i]))
                i++;
        }
    }
    buf[w] = '\0';
    if (w == 0) {
        strcpy(buf, "_unnamed");
        w = 8;
    }
    if (buf[0] >= '0' && buf[0] <= '9') {
        memmove(buf + 1, buf, w + 1);
        buf[0] = '_';
        w++;
    }
    /* (.*)_(\d+)$ : greedy base, so the suffix is the last _digits run. */
    size_t base_len = w;
    long long num = -1; /* -1: no suffix */
    {
        size_t j = w;
        while (j > 0 && buf[j - 1] >= '0' && buf[j - 1] <= '9')
            j--;
        if (j < w && j > 0 && buf[j - 1] == '_' && w - j <= 18) {
            base_len = j - 1;
            num = strtoll(buf + j, NULL, 10);
        }
    }
    char *base = exdb_arena_strndup(g->arena, buf, base_len);
    if (!base) {
        free(buf);
        return NULL;
    }
    /* candidate = base if num is None else f"{base}_{num}" (drops zero padding) */
    char *cand = malloc(base_len + 32);
    if (!cand) {
        free(buf);
        return NULL;
    }
    if (num < 0)
        snprintf(cand, base_len + 32, "%s", base);
    else
        snprintf(cand, base_len + 32, "%s_%lld", base, num);
    void **bc = exdb_strmap_find(&g->base_count, base);
    long long cnt = num;
    if (cnt <= 0) /* `if not num:` */
        cnt = bc ? (long long)(uintptr_t)*bc : 0;
    while (exdb_strmap_find(&g->names, cand) || is_reserved(cand)) {
        cnt++;
        snprintf(cand, base_len + 32, "%s_%lld", base, cnt);
    }
    const char *final = exdb_arena_strdup(g->arena, cand);
    free(cand);
    free(buf);
    if (!final)
        return NULL;
    void **slot = exdb_strmap_put(&g->names, final, NULL);
    void **bslot = exdb_strmap_put(&g->base_count, base, NULL);
    if (!slot || !bslot)
        return NULL;
    *bslot = (void *)(uintptr_t)(cnt < 0 ? 0 : cnt);
    return final;
}

/* ---- walks over argument trees */

static void walk_arg(exdb_arg *a, void (*fn)(void *, exdb_arg *), void *ctx) {
    switch (a->kind) {
    case EXDB_ARG_NODE:
        fn(ctx, a);
        break;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        for (uint32_t i = 0; i < a->n; i++)
            walk_arg(&a->u.items[i], fn, ctx);
        break;
    default:
        break;
    }
}

typedef struct {
    exdb_graph *g;
    uint32_t stamp;
    exdb_node_visit_fn fn;
    void *ctx;
} input_walk;

static void visit_unique(void *vctx, exdb_arg *a) {
    input_walk *w = vctx;
    exdb_node *in = a->u.node;
    if (in->stamp == w->stamp)
        return;
    in->stamp = w->stamp;
    w->fn(w->ctx, in);
}

/* Walk stamps must be unique across every graph a node can reference
 * (unflatten maps nodes between graphs), so the counter is global. */
static uint32_t global_stamp;

void exdb_node_foreach_input(exdb_node *n, exdb_node_visit_fn fn, void *ctx) {
    input_walk w = {n->graph, ++global_stamp, fn, ctx};
    if (w.stamp == 0) /* wrapped: 0 is the never-visited value */
        w.stamp = ++global_stamp;
    walk_arg(&n->args, visit_unique, &w);
    walk_arg(&n->kwargs, visit_unique, &w);
}

static int add_user(exdb_node *in, exdb_node *user) {
    if (in->nusers == in->users_cap) {
        uint32_t ncap = in->users_cap ? in->users_cap * 2 : 2;
        exdb_node **nu = exdb_arena_alloc(in->graph->arena, ncap * sizeof *nu);
        if (!nu)
            return -1;
        if (in->nusers)
            memcpy(nu, in->users, in->nusers * sizeof *nu);
        in->users = nu;
        in->users_cap = ncap;
    }
    in->users[in->nusers++] = user;
    return 0;
}

static void remove_user(exdb_node *in, exdb_node *user) {
    for (uint32_t i = 0; i < in->nusers; i++) {
        if (in->users[i] == user) {
            memmove(in->users + i, in->users + i + 1, (in->nusers - i - 1) * sizeof *in->users);
            in->nusers--;
            return;
        }
    }
}

typedef struct {
    exdb_node *user;
    int failed;
} user_ctx;

static void add_user_cb(void *vctx, exdb_node *in) {
    user_ctx *c = vctx;
    if (add_user(in, c->user) < 0)
        c->failed = 1;
}

static void remove_user_cb(void *vctx, exdb_node *in) {
    user_ctx *c = vctx;
    remove_user(in, c->user);
}

/* ---- node creation and list surgery */

static void link_node(exdb_graph *g, exdb_node *n) {
    exdb_node *ref = g->insert_ref;
    if (g->insert_mode == EXDB_INSERT_APPEND || !ref || ref->erased) {
        n->prev = g->tail;
        n->next = NULL;
        if (g->tail)
            g->tail->next = n;
        else
            g->head = n;
        g->tail = n;
    } else if (g->insert_mode == EXDB_INSERT_BEFORE) {
        n->next = ref;
        n->prev = ref->prev;
        if (ref->prev)
            ref->prev->next = n;
        else
            g->head = n;
        ref->prev = n;
    } else { /* after: successive inserts stay in order, as FX's inserting_after */
        n->prev = ref;
        n->next = ref->next;
        if (ref->next)
            ref->next->prev = n;
        else
            g->tail = n;
        ref->next = n;
        g->insert_ref = n;
    }
    g->count++;
}

static void unlink_node(exdb_graph *g, exdb_node *n) {
    if (n->prev)
        n->prev->next = n->next;
    else
        g->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        g->tail = n->prev;
    n->prev = n->next = NULL;
    g->count--;
}

/* Graph._target_to_str: the default name candidate for a node. */
static const char *target_to_candidate(exdb_graph *g, exdb_op op, const char *target,
                                       exdb_target_kind tkind) {
    const char *t = target;
    size_t len = strlen(t);
    char *buf;
    if (op == EXDB_OP_CALL_FUNCTION && tkind != EXDB_T_STR) {
        /* callable: target.__name__. For an OpOverload that is
         * "<op>.<overload>"; for a HOP its name; for a Python function the
         * last dotted component. */
        if (tkind == EXDB_T_OP && strncmp(t, "torch.ops.", 10) == 0) {
            const char *p = strchr(t + 10, '.'); /* after namespace */
            t = p ? p + 1 : t + 10;
        } else {
            const char *dot = strrchr(t, '.');
            if (dot)
                t = dot + 1;
        }
        len = strlen(t);
    } else if (len >= 4 && strncmp(t, "__", 2) == 0 && strcmp(t + len - 2, "__") == 0) {
        t += 2;
        len -= 4;
    }
    buf = exdb_arena_alloc(g->arena, 2 * len + 1);
    if (!buf)
        return target;
    /* _snake_case: '_' before an upper-case letter that follows a lower-case one. */
    size_t w = 0;
    int prev_lower = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        int up = c >= 'A' && c <= 'Z';
        if (prev_lower && up)
            buf[w++] = '_';
        buf[w++] = up ? (char)(c - 'A' + 'a') : c;
        prev_lower = c >= 'a' && c <= 'z';
    }
    buf[w] = '\0';
    return buf;
}

exdb_node *exdb_graph_create_node(exdb_graph *g, exdb_op op, const char *target,
                                  exdb_target_kind tkind, const exdb_arg *args,
                                  const exdb_arg *kwargs, const char *name) {
    exdb_node *n = exdb_arena_calloc(g->arena, 1, sizeof *n);
    if (!n)
        return NULL;
    n->graph = g;
    n->op = (uint8_t)op;
    n->tkind = (uint8_t)tkind;
    n->target = target;
    n->src = -1;
    n->id = g->next_id++;
    if (args)
        n->args = *args;
    else
        n->args.kind = EXDB_ARG_TUPLE;
    if (kwargs)
        n->kwargs = *kwargs;
    else
        n->kwargs.kind = EXDB_ARG_DICT;
    n->name = exdb_graph_create_name(g, name ? name : target_to_candidate(g, op, target, tkind));
    if (!n->name)
        return NULL;
    void **slot = exdb_strmap_find(&g->names, n->name);
    *slot = n;
    user_ctx uc = {n, 0};
    exdb_node_foreach_input(n, add_user_cb, &uc);
    if (uc.failed)
        return NULL;
    link_node(g, n);
    return n;
}

void exdb_graph_insert_before(exdb_graph *g, exdb_node *n) {
    g->insert_mode = n ? EXDB_INSERT_BEFORE : EXDB_INSERT_APPEND;
    g->insert_ref = n;
}

void exdb_graph_insert_after(exdb_graph *g, exdb_node *n) {
    g->insert_mode = n ? EXDB_INSERT_AFTER : EXDB_INSERT_APPEND;
    g->insert_ref = n;
}

void exdb_graph_insert_append(exdb_graph *g) {
    g->insert_mode = EXDB_INSERT_APPEND;
    g->insert_ref = NULL;
}

exdb_node *exdb_graph_find(const exdb_graph *g, const char *name) {
    return exdb_strmap_get(&g->names, name);
}

exdb_node *exdb_graph_output(const exdb_graph *g) {
    for (exdb_node *n = g->tail; n; n = n->prev)
        if (n->op == EXDB_OP_OUTPUT)
            return n;
    return NULL;
}

int exdb_graph_erase_node(exdb_graph *g, exdb_node *n, exdb_error *err) {
    if (n->graph != g || n->erased)
        return exdb_errorf(err, "%s: node is not in this graph", n->name);
    if (n->nusers) {
        char users[512];
        size_t off = 0;
        users[0] = '\0';
        for (uint32_t i = 0; i < n->nusers && off < sizeof users - 64; i++)
            off += (size_t)snprintf(users + off, sizeof users - off, "%s%s", i ? ", " : "",
                                    n->users[i]->name);
        /* FX: "Tried to erase Node {to_erase} but it still had {len(users)} users in the graph:
         * {users}!" */
        return exdb_errorf(err,
                           "Tried to erase Node %s but it still had %u users in the graph: %s!",
                           n->name, n->nusers, users);
    }
    user_ctx uc = {n, 0};
    exdb_node_foreach_input(n, remove_user_cb, &uc);
    unlink_node(g, n);
    n->erased = 1;
    void **slot = exdb_strmap_find(&g->names, n->name);
    if (slot && *slot == n)
        *slot = NULL; /* the name stays used, as in FX */
    if (g->insert_ref == n)
        exdb_graph_insert_append(g);
    return 0;
}

typedef struct {
    exdb_node *old, *repl;
    int found;
} replace_ctx;

static void replace_cb(void *vctx, exdb_arg *a) {
    replace_ctx *c = vctx;
    if (a->u.node == c->old) {
        a->u.node = c->repl;
        c->found = 1;
    }
}

static void find_cb(void *vctx, exdb_arg *a) {
    replace_ctx *c = vctx;
    if (a->u.node == c->repl)
        c->found = 1;
}

void exdb_node_replace_input_with(exdb_node *n, exdb_node *old, exdb_node *repl) {
    if (old == repl)
        return;
    replace_ctx c = {old, repl, 0};
    walk_arg(&n->args, find_cb, &c);
    walk_arg(&n->kwargs, find_cb, &c);
    int had_repl = c.found;
    c.found = 0;
    walk_arg(&n->args, replace_cb, &c);
    walk_arg(&n->kwargs, replace_cb, &c);
    if (!c.found)
        return;
    remove_user(old, n);
    if (!had_repl)
        add_user(repl, n);
}

uint32_t exdb_node_replace_all_uses_with(exdb_node *n, exdb_node *repl) {
    if (n == repl)
        return 0;
    uint32_t count = n->nusers;
    /* Snapshot: replace_input_with edits n->users. */
    exdb_node **users = malloc((count ? count : 1) * sizeof *users);
    if (!users)
        return 0;
    memcpy(users, n->users, count * sizeof *users);
    for (uint32_t i = 0; i < count; i++)
        exdb_node_replace_input_with(users[i], n, repl);
    free(users);
    return count;
}

int exdb_node_set_args(exdb_node *n, const exdb_arg *args, const exdb_arg *kwargs) {
    user_ctx uc = {n, 0};
    exdb_node_foreach_input(n, remove_user_cb, &uc);
    if (args)
        n->args = *args;
    if (kwargs)
        n->kwargs = *kwargs;
    exdb_node_foreach_input(n, add_user_cb, &uc);
    return uc.failed ? -1 : 0;
}

int exdb_arg_seq(exdb_arena *a, exdb_arg_kind kind, uint32_t n, exdb_arg *out) {
    memset(out, 0, sizeof *out);
    out->kind = (uint8_t)kind;
    out->n = n;
    if (n) {
        out->u.items = exdb_arena_calloc(a, n, sizeof *out->u.items);
        if (!out->u.items)
            return -1;
        if (kind == EXDB_ARG_DICT) {
            out->keys = exdb_arena_calloc(a, n, sizeof *out->keys);
            if (!out->keys)
                return -1;
        }
    }
    return 0;
}

int exdb_node_insert_arg(exdb_node *n, uint32_t idx, exdb_arg a) {
    if (idx > n->args.n)
        idx = n->args.n;
    exdb_arg nargs;
    if (exdb_arg_seq(n->graph->arena, EXDB_ARG_TUPLE, n->args.n + 1, &nargs) < 0)
        return -1;
    for (uint32_t i = 0, j = 0; i < nargs.n; i++)
        nargs.u.items[i] = i == idx ? a : n->args.u.items[j++];
    return exdb_node_set_args(n, &nargs, NULL);
}

int exdb_arg_copy(exdb_arena *a, const exdb_arg *src, exdb_arg *dst, exdb_node_map_fn fn,
                  void *ctx) {
    *dst = *src;
    switch (src->kind) {
    case EXDB_ARG_NODE:
        if (fn) {
            dst->u.node = fn(ctx, src->u.node);
            if (!dst->u.node)
                return -1;
        }
        return 0;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        if (exdb_arg_seq(a, (exdb_arg_kind)src->kind, src->n, dst) < 0)
            return -1;
        for (uint32_t i = 0; i < src->n; i++) {
            if (src->kind == EXDB_ARG_DICT)
                dst->keys[i] = src->keys[i];
            if (exdb_arg_copy(a, &src->u.items[i], &dst->u.items[i], fn, ctx) < 0)
                return -1;
        }
        return 0;
    default:
        return 0;
    }
}

exdb_node *exdb_graph_node_copy(exdb_graph *g, const exdb_node *n, exdb_node_map_fn fn, void *ctx) {
    exdb_arg args, kwargs;
    if (exdb_arg_copy(g->arena, &n->args, &args, fn, ctx) < 0 ||
        exdb_arg_copy(g->arena, &n->kwargs, &kwargs, fn, ctx) < 0)
        return NULL;
    exdb_node *c = exdb_graph_create_node(g, (exdb_op)n->op, n->target, (exdb_target_kind)n->tkind,
                                          &args, &kwargs, n->name);
    if (c) {
        c->meta = n->meta;
        c->src = n->src;
    }
    return c;
}

static const char *const op_names[] = {"placeholder", "get_attr",    "call_function",
                                       "call_method", "call_module", "output"};

const char *exdb_op_name(exdb_op op) {
    return (unsigned)op < 6 ? op_names[op] : "?";
}

int exdb_op_from_name(const char *s) {
    for (int i = 0; i < 6; i++)
        if (strcmp(s, op_names[i]) == 0)
            return i;
    return -1;
}
