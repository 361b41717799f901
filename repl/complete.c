/* complete.c - Tab completion from the command table (see complete.h):
 * a command's subcommand words, the options of the command or the
 * subcommand typed, an option's values, and what its arguments are (node
 * names, module fqns, op names, files, settings, break locations, display
 * expressions, commands). */
#include <string.h>

#include "core/base/arena.h"
#include "core/base/strmap.h"

#include "command.h"
#include "complete.h"
#include "session.h"
#include "commands.h"
#include "settings.h"

typedef struct {
    complete_add_fn add;
    void *ctx;
} cands;

static void add_words(const cands *c, const char *const *w) {
    for (; w && *w; w++)
        c->add(c->ctx, *w);
}

/* Whether s has a program whose IR is built (built now when opened shape
 * first; a load error is left to the next command: session_build). While
 * the IR is still built in the background, not: a Tab never waits for it
 * (the node names come once it is done; the modules are the shape's). */
static int have_ir(session *s) {
    exdb_error err = {0};
    return s->prog && !exdb_program_building(s->prog) && exdb_program_build(s->prog, &err) == 0;
}

static void add_nodes(session *s, const cands *c) {
    if (have_ir(s))
        for (const exdb_node *n = s->prog->graph->head; n; n = n->next)
            c->add(c->ctx, n->name);
}

/* The call graph's modules: the shape's while the IR is built. */
static void add_modules(session *s, const cands *c) {
    const exdb_program *p = exdb_program_shape_view(s->prog);
    if (p)
        for (uint32_t i = 0; i < p->ncalls; i++)
            if (p->calls[i].fqn[0])
                c->add(c->ctx, p->calls[i].fqn);
}

/* Targets of call_function nodes without "torch.ops.", each once. */
static void add_ops(session *s, const cands *c) {
    if (!have_ir(s))
        return;
    exdb_arena a;
    exdb_strmap seen;
    exdb_arena_init(&a);
    exdb_strmap_init(&seen, &a);
    for (const exdb_node *n = s->prog->graph->head; n; n = n->next) {
        if (n->op != EXDB_OP_CALL_FUNCTION)
            continue;
        const char *t = strncmp(n->target, "torch.ops.", 10) == 0 ? n->target + 10 : n->target;
        int created = 0;
        if (exdb_strmap_put(&seen, t, &created) && created)
            c->add(c->ctx, t);
    }
    exdb_arena_destroy(&a);
}

/* After display: EXPR, what print and info show, then node names or
 * module fqns. */
static void add_display(session *s, const cands *c, char **w, int nw) {
    static const char *const display_words[] = {
        "node-map", "placeholders", "frame", "node",    "module",  "seen-nodes", "seen-modules",
        "ivals",    "events",       "graph", "tabular", "program", "signature",  "backtrace",
        "list",     "info",         "print", "/json",   NULL};
    int first = nw > 1 && !strcmp(w[1], "/json") ? 2 : 1;
    if (nw == first)
        add_words(c, display_words);
    else if (!strcmp(w[first], "module"))
        add_modules(s, c);
    else if (!strcmp(w[first], "node"))
        add_nodes(s, c);
}

/* After set or show: the settings, then a setting's values. 1 when the
 * word is a file name (set logging on|file FILE). */
static int add_setting(const cands *c, const char *cmd, char **w, int nw) {
    static const char *const onoff[] = {"on", "off", NULL};
    if (nw == 1) {
        add_words(c, settings_names());
        if (!strcmp(cmd, "show"))
            c->add(c->ctx, "alias");
        return 0;
    }
    const setting *st = NULL;
    for (const setting *t = settings; t->name && !st; t++)
        if (!strcmp(t->name, w[1]))
            st = t;
    if (!st || !strcmp(cmd, "show"))
        return 0;
    if (!strcmp(st->name, "logging") && nw > 2) {
        /* set logging on|file FILE; overwrite|redirect on|off */
        if (!strcmp(w[2], "file") || !strcmp(w[2], "on"))
            return 1;
        add_words(c, onoff);
    } else if (st->values) {
        add_words(c, st->values);
    }
    return 0;
}

/* After break, tbreak, until or advance: the location kinds and the
 * nodes, then modules, event kinds or ops. */
static void add_location(session *s, const cands *c, char **w, int nw) {
    static const char *const break_words[] = {"module", "exit", "op", "event", NULL};
    static const char *const events[] = {"sink",    "dedup", "dispatch", "ival",  "attrs", "state",
                                         "reorder", "done",  "copy",     "enter", "exit",  NULL};
    if (nw == 1) {
        add_words(c, break_words);
        add_nodes(s, c);
    } else if (!strcmp(w[1], "module") || !strcmp(w[1], "exit")) {
        add_modules(s, c);
    } else if (!strcmp(w[1], "event")) {
        add_words(c, events);
    } else if (!strcmp(w[1], "op")) {
        add_ops(s, c);
    }
}

/* help's words: aliases, the commands, the session's aliases. */
static void add_commands(session *s, const cands *c) {
    const char *name;
    c->add(c->ctx, "aliases");
    for (int i = 0; (name = command_name_at(i)); i++)
        c->add(c->ctx, name);
    for (size_t i = 0; (name = session_alias_at(s, i, NULL)); i++)
        c->add(c->ctx, name);
}

/* The subcommand row the first word after the command that is not an
 * option names (whole or a unique prefix), or NULL; *typed says whether
 * such a word was typed. */
static const subcommand *typed_sub(const command *c, char **w, int nw, int *typed) {
    *typed = 0;
    for (int i = 1; i < nw; i++) {
        if (w[i][0] == '-')
            continue;
        *typed = 1;
        const subcommand *hit = NULL;
        size_t n = strlen(w[i]);
        for (const subcommand *sub = c->subs; sub && sub->word; sub++) {
            if (strcmp(sub->word, w[i]) == 0)
                return sub;
            if (strncmp(sub->word, w[i], n) == 0)
                hit = hit ? (const subcommand *)-1 : sub;
        }
        return hit == (const subcommand *)-1 ? NULL : hit;
    }
    return NULL;
}

static const cmd_opt *find_opt(const cmd_opt *const *opts, const char *word) {
    for (int i = 0; opts && opts[i]; i++)
        if (!strcmp(opts[i]->name, word) || (opts[i]->alias && !strcmp(opts[i]->alias, word)))
            return opts[i];
    return NULL;
}

int complete_args(session *s, char **w, int nw, complete_add_fn add, void *ctx) {
    cands cd = {add, ctx};
    int amb;
    const command *c = command_lookup(w[0], &amb);
    if (!c && !strncmp(w[0], "display/", 8)) /* gdb's display/FMT */
        c = command_lookup("display", &amb);
    if (!c) {
        add_nodes(s, &cd);
        return 0;
    }
    switch (c->complete) { /* completers that read every word themselves */
    case CMPL_FILE:
        return 1;
    case CMPL_SETTING:
        return add_setting(&cd, c->name, w, nw);
    case CMPL_BREAK:
        add_location(s, &cd, w, nw);
        return 0;
    case CMPL_DISPLAY:
        add_display(s, &cd, w, nw);
        return 0;
    case CMPL_COMMAND:
        add_commands(s, &cd);
        return 0;
    default:
        break;
    }
    int typed;
    const subcommand *sub = typed_sub(c, w, nw, &typed);
    const cmd_opt *const *opts = sub && sub->opts ? sub->opts : c->opts;
    const cmd_opt *o = nw > 1 ? find_opt(opts, w[nw - 1]) : NULL;
    if (o && o->kind != OPT_FLAG) { /* the option's value */
        if (o->kind == OPT_FILE)
            return 1;
        add_words(&cd, o->values);
        return 0;
    }
    for (int i = 0; opts && opts[i]; i++)
        add(ctx, opts[i]->name);
    if (c->subs && !typed) { /* the subcommand words come first */
        for (const subcommand *t = c->subs; t->word; t++)
            add(ctx, t->word);
        return 0;
    }
    cmd_completer what = sub && sub->complete ? sub->complete : c->complete;
    switch (what) {
    case CMPL_DEFAULT: /* node names, what most commands take */
    case CMPL_NODE:
        add_nodes(s, &cd);
        break;
    case CMPL_MODULE:
        add_modules(s, &cd);
        break;
    case CMPL_OP:
        add_ops(s, &cd);
        break;
    case CMPL_FILE:
        return 1;
    default:
        break;
    }
    return 0;
}
