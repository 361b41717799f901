/* load_shape.c - see load_shape.h.
 *
 * A node is one call_function plus the getitems deserialize_outputs makes
 * of its outputs (load_node.c's load_outputs and gen_getitems): the count
 * needs the node's target, outputs and is_hop_single_tensor_return, not
 * its metadata (60% of a program's bytes). A node the first pass only
 * delimited (an EXDB_JRAW element, one line of ASCII) is walked member by
 * member, each value skipped with the skim (json_skim.h: 64 bytes a step),
 * and only its outputs array parsed; a node in another form is parsed
 * whole. Anything unexpected gives up (-1): the caller then loads the
 * program whole, which gives the load's answer or its message. */
#include "core/export/load_shape.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/load_node.h"
#include "core/format/json_skim.h"

/* What the nodes add to the main graph besides a call_function each and
 * the getitems of their outputs: the serialized nodes that are getitems
 * themselves, the get_attr node of each subgraph argument (load_graph.c),
 * and the subgraphs (those inside them too) with their nodes. */
typedef struct sums {
    uint64_t named, getattrs, subgraphs, subnodes;
} sums;

static void sums_add(sums *to, const sums *s) {
    to->named += s->named;
    to->getattrs += s->getattrs;
    to->subgraphs += s->subgraphs;
    to->subnodes += s->subnodes;
}

/* What counting a node needs, off its text. */
typedef struct node_text {
    const char *target, *outs, *ins;
    size_t tlen, olen, ilen;
    int hop_single;
} node_text;

static const char *ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static int key_is(const char *k, size_t n, const char *name) {
    return strlen(name) == n && memcmp(k, name, n) == 0;
}

/* The members of node object [s, end) (the last of repeated keys, as
 * Python's json keeps it) into *o: 0, or -1 when the text is not plain
 * enough to say (escaped keys or target, a missing target or outputs, a
 * byte out of place). Values are skipped, not checked: the build parses
 * the node. */
static int walk_node(const char *s, const char *end, node_text *o) {
    const char *p = ws(s, end);
    memset(o, 0, sizeof *o);
    if (p >= end || *p != '{')
        return -1;
    p = ws(p + 1, end);
    for (;;) {
        if (p >= end || *p != '"')
            return -1;
        const char *kq = exdb_json_skim_string(p, end);
        if (!kq)
            return -1;
        const char *k = p + 1;
        size_t kl = (size_t)(kq - k);
        if (memchr(k, '\\', kl))
            return -1;
        p = ws(kq + 1, end);
        if (p >= end || *p != ':')
            return -1;
        const char *v = p = ws(p + 1, end);
        if (p >= end)
            return -1;
        if (*p == '"') {
            const char *q = exdb_json_skim_string(p, end);
            if (!q)
                return -1;
            p = q + 1;
        } else if (*p == '[' || *p == '{') {
            if (!(p = exdb_json_skim(p, end, EXDB_JSON_MAX_DEPTH)) || p > end)
                return -1;
        } else {
            while (p < end && *p != ',' && *p != '}' && *p != ' ')
                p++;
        }
        size_t vl = (size_t)(p - v);
        if (key_is(k, kl, "target")) {
            if (v[0] != '"' || memchr(v, '\\', vl))
                return -1;
            o->target = v + 1;
            o->tlen = vl - 2;
        } else if (key_is(k, kl, "outputs")) {
            o->outs = v;
            o->olen = vl;
        } else if (key_is(k, kl, "inputs")) {
            o->ins = v;
            o->ilen = vl;
        } else if (key_is(k, kl, "is_hop_single_tensor_return")) {
            o->hop_single = vl == 4 && memcmp(v, "true", 4) == 0;
        }
        p = ws(p, end);
        if (p < end && *p == ',') {
            p = ws(p + 1, end);
            continue;
        }
        if (p < end && *p == '}')
            break;
        return -1;
    }
    return ws(p + 1, end) == end && o->target && o->outs && o->ins ? 0 : -1;
}

/* Whether j holds "as_graph" as a key or a string (a union's tag either
 * way): a subgraph argument, which the shape does not count. */
static int has_graph_arg(const exdb_json *j) {
    if (j->key && strcmp(j->key, "as_graph") == 0)
        return 1;
    if (j->type == EXDB_JSTRING)
        return strcmp(j->u.str, "as_graph") == 0;
    if (j->type != EXDB_JARRAY && j->type != EXDB_JOBJECT)
        return 0;
    for (uint32_t i = 0; i < j->len; i++)
        if (has_graph_arg(&j->u.kids[i]))
            return 1;
    return 0;
}

/* Whether the text [s, s + n) may hold "as_graph" (has_graph_arg's
 * question, asked of the text: a string holding it says yes too, and so
 * does any escape, which may spell it: "as\u005fgraph" is the same key). */
static int mentions_graph(const char *s, size_t n) {
    if (memchr(s, '\\', n))
        return 1;
    for (const char *e = s + n, *p = s; (p = memchr(p, 'a', (size_t)(e - p))); p++)
        if ((size_t)(e - p) >= 8 && memcmp(p, "as_graph", 8) == 0)
            return 1;
    return 0;
}

static int tag_in(const char *tag, const char *const *names) {
    for (; *names; names++)
        if (strcmp(tag, *names) == 0)
            return 1;
    return 0;
}

/* The getitems deserialize_outputs makes of outs (load_node.c's
 * load_outputs and gen_getitems, when the load accepts the node), or -1. */
static int64_t count_getitems(loader *L, const exdb_json *outs, int sym, int is_hop,
                              int hop_single) {
    static const char *const single[] = {"as_tensor",    "as_sym_int", "as_sym_bool",
                                         "as_sym_float", "as_none",    NULL};
    static const char *const one_each[] = {"as_tensor", "as_sym_int", "as_sym_float", "as_none",
                                           NULL};
    static const char *const lists[] = {"as_tensors", "as_sym_ints", "as_sym_floats", NULL};
    if (!exdb_json_is(outs, EXDB_JARRAY) || (sym && outs->len == 0))
        return -1;
    if (outs->len == 0 || sym)
        return 0;
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, &outs->u.kids[0], NULL, "a node output", &tag, &v) < 0)
        return -1;
    int is_none = strcmp(tag, "as_none") == 0;
    int hop_tuple = outs->len == 1 && is_hop && !hop_single && !is_none;
    if (outs->len == 1 && !hop_tuple) {
        if (tag_in(tag, single))
            return 0;
        return strcmp(tag, "as_tensors") == 0 && exdb_json_is(v, EXDB_JARRAY) ? (int64_t)v->len
                                                                              : -1;
    }
    int64_t n = 0;
    for (uint32_t i = 0; i < outs->len; i++) {
        if (exdb_load_get_union(L, &outs->u.kids[i], NULL, "a node output", &tag, &v) < 0)
            return -1;
        if (tag_in(tag, one_each))
            n++;
        else if (tag_in(tag, lists) && exdb_json_is(v, EXDB_JARRAY))
            n += 1 + (int64_t)v->len;
        else
            return -1;
    }
    return n;
}

/* Whether target t (n bytes) is operator.getitem as the load spells it
 * (exdb_load_arg_pretty_target: "_operator.getitem" too): a serialized
 * node that is itself a getitem, counted among the getitems by
 * exdb_program_node_counts. */
static int is_getitem(const char *t, size_t n) {
    return (n == 16 && memcmp(t, "operator.getitem", 16) == 0) ||
           (n == 17 && memcmp(t, "_operator.getitem", 17) == 0);
}

static int count_graph_args(const exdb_json *ins, int top, sums *s);

/* Subgraph g (an as_graph's "graph") as the load reads it: its inputs,
 * nodes and outputs lists, an as_graph only as a node's argument. */
static int count_graph(const exdb_json *g, sums *s) {
    const exdb_json *ins = exdb_json_get(g, "inputs");
    const exdb_json *nodes = exdb_json_get(g, "nodes");
    const exdb_json *outs = exdb_json_get(g, "outputs");
    if (!exdb_json_is(ins, EXDB_JARRAY) || !exdb_json_is(nodes, EXDB_JARRAY) ||
        !exdb_json_is(outs, EXDB_JARRAY) || has_graph_arg(ins) || has_graph_arg(outs))
        return -1;
    s->subnodes += (uint64_t)ins->len + nodes->len;
    for (uint32_t i = 0; i < nodes->len; i++) {
        const exdb_json *n = &nodes->u.kids[i];
        if (!exdb_json_is(n, EXDB_JOBJECT) ||
            count_graph_args(exdb_json_get(n, "inputs"), 0, s) < 0)
            return -1;
    }
    return 0;
}

/* The subgraph arguments among a node's inputs ins ({"name", "arg":
 * {"as_graph": {"name", "graph"}}, "kind"}: load_graph.c), added to *s
 * (get_attr nodes of the main graph when top): 0, or -1 when an as_graph
 * is anywhere else or in another form (the whole load then says what it
 * makes of it). */
static int count_graph_args(const exdb_json *ins, int top, sums *s) {
    if (!ins || !has_graph_arg(ins))
        return 0;
    if (!exdb_json_is(ins, EXDB_JARRAY))
        return -1;
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *in = &ins->u.kids[i];
        if (!exdb_json_is(in, EXDB_JOBJECT)) {
            if (has_graph_arg(in))
                return -1;
            continue;
        }
        /* the last of repeated "arg" keys, as the load reads it */
        const exdb_json *last = exdb_json_get(in, "arg"), *arg = NULL;
        for (uint32_t k = 0; k < in->len; k++) {
            const exdb_json *m = &in->u.kids[k];
            if (m == last && m->type == EXDB_JOBJECT && m->len == 1 &&
                strcmp(m->u.kids[0].key, "as_graph") == 0)
                arg = &m->u.kids[0];
            else if (has_graph_arg(m))
                return -1;
        }
        if (!arg)
            continue;
        const exdb_json *name = exdb_json_get(arg, "name");
        const exdb_json *g = exdb_json_get(arg, "graph");
        if (!exdb_json_is(arg, EXDB_JOBJECT) || !exdb_json_is(name, EXDB_JSTRING) ||
            !exdb_json_is(g, EXDB_JOBJECT))
            return -1;
        s->getattrs += top;
        s->subgraphs++;
        if (count_graph(g, s) < 0)
            return -1;
    }
    return 0;
}

/* The getitems of a node parsed whole (jn), or -1; s->named counts it
 * when it is a getitem itself, and its subgraph arguments are added. */
static int64_t dom_getitems(loader *L, const exdb_json *jn, sums *s) {
    const exdb_json *t = exdb_json_get(jn, "target");
    const exdb_json *ins = exdb_json_get(jn, "inputs");
    const exdb_json *hs = exdb_load_get_opt(jn, "is_hop_single_tensor_return");
    if (!exdb_json_is(t, EXDB_JSTRING) || !ins || count_graph_args(ins, 1, s) < 0)
        return -1;
    s->named += is_getitem(t->u.str, strlen(t->u.str));
    return count_getitems(L, exdb_json_get(jn, "outputs"), exdb_load_node_is_sym_op(t->u.str),
                          strncmp(t->u.str, "torch.ops.higher_order.", 23) == 0,
                          hs && hs->type == EXDB_JTRUE);
}

/* The getitems of node element e, or -1; s as dom_getitems's. */
static int64_t node_getitems(loader *L, const exdb_json *e, sums *s) {
    exdb_arena_reset(&L->node_dom);
    exdb_jstrings strs = exdb_jstrings_on(&L->node_dom);
    exdb_json parsed;
    exdb_error perr = {0};
    node_text nt;
    if (e->type != EXDB_JRAW)
        return dom_getitems(L, e, s);
    /* a node with subgraph arguments parsed whole too */
    if (!(e->flags & EXDB_JRAW_ASCII) || walk_node(e->u.str, e->u.str + e->len, &nt) < 0 ||
        mentions_graph(nt.ins, nt.ilen)) {
        if (exdb_json_parse_raw(e, L->prog->buf, &L->node_dom, &strs, L->fname, &parsed, NULL, NULL,
                                &perr) < 0)
            return exdb_errorf(L->err, "%s", perr.msg); /* out of memory is said as such */
        return dom_getitems(L, &parsed, s);
    }
    char target[EXDB_MAX_NAME_BYTES + 1];
    if (nt.tlen > EXDB_MAX_NAME_BYTES)
        return -1;
    memcpy(target, nt.target, nt.tlen);
    target[nt.tlen] = '\0';
    s->named += is_getitem(target, nt.tlen);
    exdb_json raw = {
        .u.str = nt.outs, .len = (uint32_t)nt.olen, .type = EXDB_JRAW, .flags = EXDB_JRAW_ASCII};
    if (exdb_json_parse_raw(&raw, L->prog->buf, &L->node_dom, &strs, L->fname, &parsed, NULL, NULL,
                            &perr) < 0)
        return exdb_errorf(L->err, "%s", perr.msg);
    return count_getitems(L, &parsed, exdb_load_node_is_sym_op(target),
                          strncmp(target, "torch.ops.higher_order.", 23) == 0, nt.hop_single);
}

/* One half of the nodes, counted by a thread of its own: a loader of
 * its own (its DOM arena, its error, the pages it gave back). */
typedef struct walk {
    loader L;
    exdb_error err;
    const exdb_json *nodes;
    uint32_t from, to;
    uint64_t getitems; /* made of the nodes' outputs */
    sums s;
    int rc;
} walk;

static void *walk_nodes(void *arg) {
    walk *w = arg;
    w->rc = 0;
    for (uint32_t i = w->from; i < w->to && w->rc == 0; i++) {
        const exdb_json *e = &w->nodes->u.kids[i];
        int64_t n = node_getitems(&w->L, e, &w->s);
        if (n < 0)
            w->rc = -1;
        w->getitems += (uint64_t)(n < 0 ? 0 : n);
        if (e->type == EXDB_JRAW) /* its text given back as the load does */
            exdb_load_drop_behind(&w->L, e->u.str);
    }
    return NULL;
}

static void walk_init(walk *w, const loader *L, const exdb_json *nodes, uint32_t from,
                      uint32_t to) {
    memset(w, 0, sizeof *w);
    w->L = *L;
    w->L.err = &w->err;
    w->L.dropped = NULL;
    exdb_arena_init(&w->L.node_dom);
    w->nodes = nodes;
    w->from = from;
    w->to = to;
}

/* Nodes from which the count is split between two threads. */
enum { SPLIT_MIN = 8192 };

/* The getitems of nodes [from, to) of array nodes added to *getitems
 * (and what else the nodes add to *s), read off the
 * text again (no tally, one of another array, or the nodes before the
 * tally's first): 0, or -1 as node_getitems says (L->err the first half's
 * message first). */
static int walk_all(loader *L, const exdb_json *nodes, uint32_t from, uint32_t to,
                    uint64_t *getitems, sums *s) {
    /* the second half in a thread of its own (not under fault injection,
     * which counts allocations in order), the first here */
    uint32_t half = to - from >= SPLIT_MIN ? from + (to - from) / 2 : to;
#ifdef EXDB_FAULT
    if (exdb_fault_armed())
        half = to;
#endif
    walk w[2];
    walk_init(&w[0], L, nodes, from, half);
    walk_init(&w[1], L, nodes, half, to);
    pthread_t t;
    int threaded = half < to && pthread_create(&t, NULL, walk_nodes, &w[1]) == 0;
    walk_nodes(&w[0]);
    if (threaded)
        pthread_join(t, NULL);
    else
        walk_nodes(&w[1]);
    exdb_arena_destroy(&w[0].L.node_dom);
    exdb_arena_destroy(&w[1].L.node_dom);
    if (w[0].rc < 0 || w[1].rc < 0)
        return exdb_errorf(L->err, "%s", w[w[0].rc < 0 ? 0 : 1].err.msg);
    *getitems += w[0].getitems + w[1].getitems;
    sums_add(s, &w[0].s);
    sums_add(s, &w[1].s);
    return 0;
}

/* The tally of the main graph's nodes the first pass delimits
 * (exdb_load_shape_tally_hook): each node counted while its text is still
 * in memory, so that the shape read does not read the text again. The
 * hook gathers the nodes in batches and hands each to a thread of its own
 * (the second core: not under fault injection, which counts allocations
 * in order), or walks it itself when the thread is BATCHES behind; the
 * first pass gives back no text of a batch not walked yet (its held). A
 * refusal is the first node's in file order, as the walk's. */
enum { BATCH = 256, BATCHES = 8 };

typedef struct batch {
    exdb_json e[BATCH];
    uint32_t n, from; /* its nodes, the first one's index */
} batch;

struct exdb_load_shape_tally {
    walk w[2];         /* the hook's and the thread's */
    const char *first; /* the text of the counted array's first element */
    uint32_t seen;     /* its elements so far */
    uint32_t skip;     /* those before this are not counted here */
    uint32_t fail_at;  /* the first refused node (UINT32_MAX: none) */
    exdb_error fail;   /* its message */
    batch cur;         /* the batch the hook fills */
    /* the batches handed to the thread: ring[head % BATCHES] to
     * ring[(tail - 1) % BATCHES], head the one it walks */
    batch ring[BATCHES];
    unsigned head, tail;
    int threaded, stop;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Walks batch b with w; a refusal kept when it is the first so far. */
static void tally_walk(exdb_load_shape_tally *t, walk *w, const batch *b) {
    for (uint32_t k = 0; k < b->n; k++) {
        int64_t n = node_getitems(&w->L, &b->e[k], &w->s);
        if (n >= 0) {
            w->getitems += (uint64_t)n;
            continue;
        }
        if (t->threaded)
            pthread_mutex_lock(&t->mu);
        if (b->from + k < t->fail_at) {
            t->fail_at = b->from + k;
            t->fail = w->err;
        }
        if (t->threaded)
            pthread_mutex_unlock(&t->mu);
        return;
    }
}

static void *tally_thread(void *arg) {
    exdb_load_shape_tally *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->head == t->tail && !t->stop)
            pthread_cond_wait(&t->cv, &t->mu);
        if (t->head == t->tail)
            break;
        const batch *b = &t->ring[t->head % BATCHES];
        pthread_mutex_unlock(&t->mu);
        tally_walk(t, &t->w[1], b);
        pthread_mutex_lock(&t->mu);
        t->head++;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* The hook's batch to the thread (started at the first full one), or
 * walked here when the thread cannot take it. */
static void tally_hand(exdb_load_shape_tally *t) {
    if (t->cur.n == 0)
        return;
    if (!t->threaded && t->cur.n == BATCH) { /* a program of one batch walks it here */
        int may = 1;
#ifdef EXDB_FAULT
        may = !exdb_fault_armed();
#endif
        if (may && pthread_mutex_init(&t->mu, NULL) == 0) {
            if (pthread_cond_init(&t->cv, NULL) == 0) {
                t->threaded = pthread_create(&t->thread, NULL, tally_thread, t) == 0;
                if (!t->threaded)
                    pthread_cond_destroy(&t->cv);
            }
            if (!t->threaded)
                pthread_mutex_destroy(&t->mu);
        }
    }
    int handed = 0;
    if (t->threaded) {
        pthread_mutex_lock(&t->mu);
        if (t->tail - t->head < BATCHES) {
            t->ring[t->tail % BATCHES] = t->cur;
            t->tail++;
            handed = 1;
            pthread_cond_broadcast(&t->cv);
        }
        pthread_mutex_unlock(&t->mu);
    }
    if (!handed)
        tally_walk(t, &t->w[0], &t->cur);
    t->cur.n = 0;
}

/* Waits until the thread has walked every batch handed to it. */
static void tally_drain(exdb_load_shape_tally *t) {
    if (!t->threaded)
        return;
    pthread_mutex_lock(&t->mu);
    while (t->head != t->tail)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

exdb_load_shape_tally *exdb_load_shape_tally_new(const loader *L, uint32_t skip) {
    exdb_load_shape_tally *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    walk_init(&t->w[0], L, NULL, 0, 0);
    walk_init(&t->w[1], L, NULL, 0, 0);
    t->fail_at = UINT32_MAX;
    t->skip = skip;
    return t;
}

void exdb_load_shape_tally_finish(exdb_load_shape_tally *t) {
    if (!t)
        return;
    tally_hand(t);
    if (t->threaded) {
        pthread_mutex_lock(&t->mu);
        t->stop = 1;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        t->threaded = 0;
    }
}

void exdb_load_shape_tally_free(exdb_load_shape_tally *t) {
    if (!t)
        return;
    exdb_load_shape_tally_finish(t);
    exdb_arena_destroy(&t->w[0].L.node_dom);
    exdb_arena_destroy(&t->w[1].L.node_dom);
    free(t);
}

void exdb_load_shape_tally_hook(void *ctx, const char *key, uint32_t i, const exdb_json *e) {
    exdb_load_shape_tally *t = ctx;
    if (strcmp(key, "nodes") != 0)
        return;
    if (!e) { /* the array ends: its last nodes to the thread */
        tally_hand(t);
        return;
    }
    if (i == 0) { /* another nodes array (a repeated key): the DOM keeps the last */
        tally_drain(t);
        t->w[0].getitems = t->w[1].getitems = 0;
        memset(&t->w[0].s, 0, sizeof t->w[0].s);
        memset(&t->w[1].s, 0, sizeof t->w[1].s);
        t->fail_at = UINT32_MAX;
        t->first = e->u.str;
        t->seen = 0;
        t->cur.n = 0;
    }
    if (t->seen++ < t->skip)
        return;
    if (t->cur.n == 0)
        t->cur.from = t->seen - 1;
    t->cur.e[t->cur.n++] = *e;
    if (t->cur.n == BATCH)
        tally_hand(t);
}

const char *exdb_load_shape_tally_held(void *ctx) {
    exdb_load_shape_tally *t = ctx;
    const char *h = t->cur.n ? t->cur.e[0].u.str : NULL;
    if (t->threaded) {
        pthread_mutex_lock(&t->mu);
        if (t->head != t->tail)
            h = t->ring[t->head % BATCHES].e[0].u.str;
        pthread_mutex_unlock(&t->mu);
    }
    return h;
}

/* Whether tally t counted array nodes (the same first element, as many). */
static int tally_counted(const exdb_load_shape_tally *t, const exdb_json *nodes) {
    return t && !t->threaded && t->cur.n == 0 && t->seen == nodes->len &&
           nodes->u.kids[0].type == EXDB_JRAW && nodes->u.kids[0].u.str == t->first;
}

int exdb_load_shape_graph(loader *L, const exdb_json *jg, const jpath *gp,
                          const exdb_load_shape_tally *t, exdb_node_counts *c) {
    const exdb_json *ins = exdb_json_get(jg, "inputs");
    const exdb_json *nodes = exdb_json_get(jg, "nodes");
    const exdb_json *outs = exdb_json_get(jg, "outputs");
    if (!exdb_json_is(ins, EXDB_JARRAY) || !exdb_json_is(nodes, EXDB_JARRAY) ||
        !exdb_json_is(outs, EXDB_JARRAY) || (uint64_t)ins->len + nodes->len > EXDB_MAX_NODES ||
        has_graph_arg(outs))
        return -1;
    uint64_t getitems = 0;
    sums s = {0};
    if (nodes->len > 0 && tally_counted(t, nodes)) {
        /* the nodes before the tally's first, then its refusal: the first
         * refused node's message in file order */
        uint32_t skipped = t->skip < nodes->len ? t->skip : nodes->len;
        if (skipped > 0 && walk_all(L, nodes, 0, skipped, &getitems, &s) < 0)
            return -1;
        if (t->fail_at != UINT32_MAX)
            return exdb_errorf(L->err, "%s", t->fail.msg);
        getitems += t->w[0].getitems + t->w[1].getitems;
        sums_add(&s, &t->w[0].s);
        sums_add(&s, &t->w[1].s);
    } else if (nodes->len > 0 && walk_all(L, nodes, 0, nodes->len, &getitems, &s) < 0) {
        return -1;
    }
    /* the load's limit counts every graph's nodes */
    uint64_t calls = nodes->len + getitems, total = ins->len + calls + s.getattrs + 1;
    if (total > UINT32_MAX || (uint64_t)ins->len + nodes->len + s.subnodes > EXDB_MAX_NODES)
        return -1;
    memset(c, 0, sizeof *c);
    c->ops[EXDB_OP_PLACEHOLDER] = ins->len;
    c->ops[EXDB_OP_GET_ATTR] = (uint32_t)s.getattrs; /* <= subnodes: fits */
    c->ops[EXDB_OP_CALL_FUNCTION] = (uint32_t)calls;
    c->ops[EXDB_OP_OUTPUT] = 1;
    c->getitems = (uint32_t)(getitems + s.named); /* named <= nodes->len: fits */
    c->nodes = (uint32_t)total;
    L->prog->shape_nsubgraphs = (uint32_t)s.subgraphs;
    return 0;
}
