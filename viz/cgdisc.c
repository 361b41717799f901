/* cgdisc.c - cgraph disciplines for graphs that are only written as DOT.
 *
 * With cgraph's default disciplines, vz_emit + agwrite + agclose of the
 * 100k synthetic program's flat view (145k nodes, 150k edges) took ~1.9 s
 * (perf, Graphviz 2.42): a calloc per object and a free per object in
 * agclose; every node name interned in cgraph's string pool, a cdt tree
 * searched with strcmp, with one failed probe before each new node; and
 * agwrite's locked fputs per token. So a graph opened by vz_cg_open gets:
 *  - memory: bump allocation from an exdb arena, zeroed as cgraph expects;
 *    free does nothing, and agclose takes cgraph's free-entire-heap
 *    shortcut; vz_close then frees the dictionary headers cdt mallocs
 *    itself, and the arena (close_cg).
 *  - IDs: a name maps to its copy in one block through a hash map
 *    (core/base/strmap.h). Named objects' IDs are those (even) pointers, as in
 *    cgraph's default ID discipline, anonymous ones odd counters. As the
 *    copies are laid out in creation order, IDs grow with it: cgraph orders
 *    subgraphs (agfstsubg) and a node's edges by ID, so the DOT lists them
 *    in the order vz_emit made them.
 *  - output: agwrite's tokens appended to an exdb_buf (vz_write).
 * Edges must be made in the root graph only (agedge on the root; clusters
 * get nodes through agsubnode): Graphviz 2.42 allocates the cdt holders of
 * a subgraph's edge set with malloc while Ag_dictop_G is unset, and the
 * agclose shortcut would leave those behind (LeakSanitizer would say so).
 * Only for graphs that are never laid out: gvLayout allocates and frees
 * through cgraph in ways an arena does not follow (cdt holder objects are
 * allocated by malloc or agalloc depending on a global), so images keep
 * the default disciplines. */
#include <graphviz/cgraph.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fault.h"
#include "viz/view.h"
#include "viz/cgdisc.h"

/* agwrite asks aghtmlstr whether each string it writes, names included, is
 * HTML-like (<...>); Graphviz 2.42 reads a bit of the string pool entry's
 * header for that, 16 bytes before the text. Each name copy is therefore
 * preceded by a zeroed header the size of a pool entry's (link, refcount,
 * pointer: 32 bytes), which says "not HTML". */
#define NAME_HDR 32

/* agwrite's output is handed to the FILE in pieces of this size. */
#define FLUSH_AT (1 << 16)

typedef struct vz_cg {
    Agdisc_t disc; /* first: the disciplines' open() get the vz_cg back */
    Agiodisc_t io;
    exdb_arena arena;  /* every object and string of the graph */
    exdb_strmap names; /* name -> its copy, which is also its ID */
    char *at, *end;    /* the block name copies are carved from */
    IDTYPE anon;       /* the next anonymous ID: odd */
    int oom;           /* a name could not be mapped: vz_write fails */
} vz_cg;

/* ---- memory */

static void *mem_open(Agdisc_t *disc) {
    return disc;
}

/* Never made to fail by fault injection (core/base/fault.h): cgraph 2.42 uses
 * what agalloc returns without looking. */
static void *mem_alloc(void *state, size_t n) {
    EXDB_FAULT_HOLD(1);
    void *p = exdb_arena_calloc(&((vz_cg *)state)->arena, 1, n);
    EXDB_FAULT_HOLD(0);
    return p;
}

/* cgraph grows attribute arrays this way; the old copy stays in the arena
 * until the graph is closed. */
static void *mem_resize(void *state, void *p, size_t old, size_t n) {
    void *q = mem_alloc(state, n);
    if (q && p)
        memcpy(q, p, old < n ? old : n);
    return q;
}

static void mem_free(void *state, void *p) {
    (void)state;
    (void)p;
}

/* The arena is destroyed by vz_close, after agclose. */
static void mem_close(void *state) {
    (void)state;
}

/* With a close function, agclose of the root takes cgraph's shortcut
 * ("free entire heap": no walk; see vz_close). */
static Agmemdisc_t memdisc = {mem_open, mem_alloc, mem_resize, mem_free, mem_close};

/* ---- IDs */

static void *id_open(Agraph_t *g, Agdisc_t *disc) {
    (void)g;
    return disc;
}

/* A copy of s after a zeroed pool-entry header (see NAME_HDR), from the
 * names block while it lasts. */
static char *copy_name(vz_cg *cg, const char *s) {
    size_t len = strlen(s);
    size_t need = NAME_HDR + ((len + 1 + 15) & ~(size_t)15);
    char *p;
    if ((size_t)(cg->end - cg->at) >= need) {
        p = cg->at;
        cg->at += need;
    } else if (!(p = exdb_arena_alloc(&cg->arena, need))) {
        return NULL;
    }
    memset(p, 0, NAME_HDR);
    memcpy(p + NAME_HDR, s, len + 1);
    return p + NAME_HDR;
}

static long id_map(void *state, int objtype, char *str, IDTYPE *id, int create) {
    (void)objtype;
    vz_cg *cg = state;
    if (!str) {
        *id = cg->anon;
        cg->anon += 2;
        return 1;
    }
    void **v = exdb_strmap_find(&cg->names, str);
    if (!v) {
        char *copy;
        if (!create)
            return 0;
        if (!(copy = copy_name(cg, str)) || !(v = exdb_strmap_put(&cg->names, copy, NULL))) {
            /* cgraph then gives the object an anonymous ID, which would
             * reorder the DOT: out of memory is an error instead */
            cg->oom = 1;
            return 0;
        }
        *v = copy;
    }
    *id = (IDTYPE)(uintptr_t)*v;
    return 1;
}

/* Objects are never created with a caller's ID. */
static long id_alloc(void *state, int objtype, IDTYPE request) {
    (void)state;
    (void)objtype;
    (void)request;
    return 0;
}

static void id_free(void *state, int objtype, IDTYPE id) {
    (void)state;
    (void)objtype;
    (void)id;
}

static char *id_print(void *state, int objtype, IDTYPE id) {
    (void)state;
    (void)objtype;
    return id % 2 == 0 ? (char *)(uintptr_t)id : NULL;
}

static void id_close(void *state) {
    (void)state;
}

static void id_register(void *state, int objtype, void *obj) {
    (void)state;
    (void)objtype;
    (void)obj;
}

static Agiddisc_t iddisc = {id_open, id_map, id_alloc, id_free, id_print, id_close, id_register};

/* ---- output */

typedef struct dotout {
    exdb_buf *b;
    FILE *f; /* NULL: the text stays in b */
    int err;
} dotout;

static int out_flush(void *chan) {
    dotout *o = chan;
    if (o->f && o->b->len) {
        if (fwrite(o->b->s, 1, o->b->len, o->f) != o->b->len)
            o->err = 1;
        exdb_buf_reset(o->b);
    }
    return o->err || o->b->oom ? EOF : 0;
}

static int out_putstr(void *chan, const char *s) {
    dotout *o = chan;
    exdb_buf_puts(o->b, s);
    if (o->f && o->b->len >= FLUSH_AT)
        out_flush(o);
    return o->b->oom ? EOF : 0;
}

/* ---- graphs */

int vz_cg_plain;

Agraph_t *vz_cg_open(const char *name, size_t count, size_t bytes) {
#ifndef EXDB_CGRAPH_FAST
    /* Not the Graphviz these disciplines were written against (see the
     * Makefile's CGRAPH_FAST): cgraph's own, slower but safe. */
    vz_cg_plain = 1;
#endif
    if (vz_cg_plain) {
        (void)count;
        (void)bytes;
        return agopen((char *)name, Agdirected, NULL);
    }
    vz_cg *cg = calloc(1, sizeof *cg);
    if (!cg)
        return NULL;
    exdb_arena_init(&cg->arena);
    exdb_strmap_init(&cg->names, &cg->arena);
    cg->anon = 1;
    size_t block = bytes + (count + 1) * (NAME_HDR + 16) + strlen(name);
    cg->at = exdb_arena_alloc(&cg->arena, block);
    cg->end = cg->at ? cg->at + block : NULL;
    cg->io = AgIoDisc;
    cg->io.putstr = out_putstr;
    cg->io.flush = out_flush;
    cg->disc.mem = &memdisc;
    cg->disc.id = &iddisc;
    cg->disc.io = &cg->io;
    Agraph_t *g = cg->at ? agopen((char *)name, Agdirected, &cg->disc) : NULL;
    if (!g) {
        exdb_arena_destroy(&cg->arena);
        free(cg);
    }
    return g;
}

/* Dictionary headers to free after agclose. */
typedef struct dicts {
    Dict_t **d;
    size_t n, cap;
    int oom;
} dicts;

static void keep(dicts *l, Dict_t *d) {
    if (!d)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        Dict_t **p = realloc(l->d, cap * sizeof *p);
        if (!p) {
            l->oom = 1;
            return;
        }
        l->d = p;
        l->cap = cap;
    }
    l->d[l->n++] = d;
}

/* The dictionaries cgraph opened for g and its subgraphs: per graph its
 * node, edge and subgraph sets and its attribute dictionaries (the
 * "_AG_datadict" record). */
static void graph_dicts(Agraph_t *g, dicts *l) {
    keep(l, g->n_seq);
    keep(l, g->n_id);
    keep(l, g->e_seq);
    keep(l, g->e_id);
    keep(l, g->g_dict);
    Agdatadict_t *dd = (Agdatadict_t *)aggetrec(g, "_AG_datadict", 0);
    if (dd) {
        keep(l, dd->dict.n);
        keep(l, dd->dict.e);
        keep(l, dd->dict.g);
    }
    for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s))
        graph_dicts(s, l);
}

/* agclose of a vz_cg_open graph. Walking every node and edge to free its
 * attribute strings and dictionary entries one by one, all into an arena
 * that goes anyway, took 0.27 s of the 100k synthetic program's flat view
 * and 0.5 s of its --by-module view. The memory discipline's close makes
 * agclose skip that walk, but cdt mallocs each dictionary's header itself
 * (dtopen) and only dtclose frees it: they are collected first, from the
 * graphs' fields, and freed after (their contents are in the arena). When
 * the list cannot be made, the ordinary walk runs. */
static void close_cg(Agraph_t *g, vz_cg *cg) {
    dicts l = {0};
    graph_dicts(g, &l);
    Agclos_t *clos = g->clos;
    keep(&l, clos->strdict);
    for (int i = 0; i < 3; i++) {
        keep(&l, clos->lookup_by_name[i]);
        keep(&l, clos->lookup_by_id[i]);
    }
    if (l.oom) {
        memdisc.close = NULL;
        agclose(g);
        memdisc.close = mem_close;
    } else {
        agclose(g);
        for (size_t i = 0; i < l.n; i++)
            free(l.d[i]);
        /* cgraph keeps the last graph it deleted a dictionary entry for
         * in a static (Ag_dictop_G) and allocates cdt's holder objects
         * from that graph while it is set; its ordinary close clears it,
         * the shortcut does not. Opening and closing an empty graph does. */
        Agraph_t *empty = agopen("", Agdirected, NULL);
        if (empty)
            agclose(empty);
    }
    free(l.d);
    exdb_arena_destroy(&cg->arena);
    free(cg);
}

void vz_close(Agraph_t *g) {
    if (g && g->clos->disc.mem == &memdisc)
        close_cg(g, g->clos->state.mem);
    else if (g)
        agclose(g);
}

int vz_write(Agraph_t *g, FILE *f, exdb_buf *b) {
    if (g->clos->disc.io->putstr != out_putstr) {
        if (f)
            return agwrite(g, f);
        /* a graph on the default disciplines, into b */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m)
            return -1;
        int rc = agwrite(g, m);
        if (fclose(m) != 0)
            rc = -1;
        if (rc == 0)
            exdb_buf_put(b, text, len);
        free(text);
        return rc == 0 && !b->oom ? 0 : -1;
    }
    if (((vz_cg *)g->clos->state.mem)->oom)
        return -1;
    exdb_buf local;
    exdb_buf_init(&local);
    dotout o = {.b = f ? &local : b, .f = f};
    int rc = agwrite(g, &o);
    exdb_buf_free(&local);
    return rc == 0 && !o.err ? 0 : -1;
}
