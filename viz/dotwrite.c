/* dotwrite.c - a view graph written as DOT by exdb: the bytes agwrite
 * (Graphviz 2.42, lib/cgraph/write.c) writes for the cgraph graph
 * vz_emit(vg, 0) builds, without building it.
 *
 * Building the cgraph graph, agwrite and agclose took 2.1 s of the 100k
 * synthetic program's flat view (145k nodes, 150k edges, 102 MB of DOT);
 * agwrite alone about 1.0 s of CPU: a membership search per node and edge
 * and direct subgraph, an attribute walk per object, a copy per string.
 * What agwrite decides from cgraph's dictionaries is decided here from the
 * view graph and its subgraph plan (subgplan.c), which vz_emit follows too:
 *  - a graph's subgraphs in creation order (cgraph lists them by ID, which
 *    cgdisc.c's ID discipline gives in creation order), each written
 *    before the graph's own nodes;
 *  - a node under the deepest subgraphs that hold it (agsubnode puts it
 *    in every enclosing graph too), its attributes where it is written
 *    first;
 *  - in the root, a node when no predecessor comes before it, then its
 *    out-edges by (head, edge) order, each head written before its first
 *    edge when agwrite would;
 *  - attributes in strcmp order of their names (cgraph's Dttree
 *    dictionaries), those that differ from the default, quoted and split
 *    as agstrcanon does.
 * A graph where cgraph would merge two objects or reorder subgraphs (a
 * name XML-safety changes, a node called rank~N, group~N or exdb) is left
 * to vz_emit and agwrite (vz_dot_write returns 1). tests/unit/test_dotwrite.c
 * compares the two writers byte for byte on every view of the test
 * programs. */
#include <stdlib.h>
#include <string.h>

#include "viz/dotwrite.h"
#include "viz/emit.h"
#include "viz/flat.h"
#include "viz/subgplan.h"
#include "viz/xmlsafe.h"

int vz_dot_agwrite;

/* agwrite's MAX_OUTPUTLINE: agstrcanon splits strings longer than this. */
#define LINE_MAX_CHARS 128

/* Node and edge attributes as emit.c declares them, in strcmp order. */
enum { N_FILL, N_FONT, N_SIZE, N_ID, N_LABEL, N_MARGIN, N_SHAPE, N_STYLE, N_TIP, N_ATTRS };
static const char *const node_attr[N_ATTRS][2] = {
    {"fillcolor", "white"}, {"fontname", VZ_FONT},
    {"fontsize", "10"},     {"id", ""},
    {"label", "\\N"},       {"margin", "0.06,0.03"},
    {"shape", "box"},       {"style", "rounded,filled"},
    {"tooltip", ""}};
enum { E_COLOR, E_FONTCOLOR, E_FONT, E_SIZE, E_LABEL, E_MINLEN, E_STYLE, E_TIP, E_ATTRS };
static const char *const edge_attr[E_ATTRS][2] = {
    {"color", ""}, {"fontcolor", ""}, {"fontname", VZ_FONT}, {"fontsize", "9"},
    {"label", ""}, {"minlen", "1"},   {"style", ""},         {"tooltip", ""}};

typedef struct dw {
    const vz_graph *vg;
    vz_plan pl;
    exdb_buf *b;
    int level;
    uint32_t *kids, *kid_at; /* plan entry i's children: kids[kid_at[i] .. kid_at[i+1]) */
    uint32_t *own, *own_at;  /* the nodes written in entry i's body, likewise */
    uint32_t *outs, *out_at; /* node i's out-edges by (head, edge), likewise */
    uint32_t *minpred;       /* smallest tail of node i's in-edges, VZ_NONE if none */
    uint8_t *written;        /* node i's attributes written (agwrite's AGATTRWF) */
    uint8_t *root_own;       /* node i is in no subgraph of the root */
    char **tips;             /* a hub's tooltip, shared by its copies (as vz_emit) */
    exdb_buf lab, tip, tmp, xs[N_ATTRS];
    const vz_dot_sink *sink; /* NULL: the whole text stays in b */
    size_t piece;            /* the sink's piece size */
} dw;

/* The text so far to the sink once it is a piece's worth (between nodes
 * and subgraphs: the writer never goes back into what it wrote). */
static void flush_piece(dw *w, size_t min) {
    if (w->sink && w->b->len >= min && w->b->len && !w->b->oom) {
        w->sink->put(w->sink->ctx, w->b->s, w->b->len);
        w->b->len = 0;
        w->b->s[0] = '\0';
    }
}

/* ---- agstrcanon */

/* Per byte: NOT_WORD: not alphanumeric, '_' or >= 0x80 (cghdr.h's ISALNUM);
 * ID: alphanumeric, '.', '-' or >= 0x80 (write.c's is_id_char). */
enum { NOT_WORD = 1, ID = 2 };
static unsigned char char_class[256];

static void init_classes(void) {
    for (unsigned c = 1; c < 256; c++) {
        int alnum = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
        char_class[c] = (alnum || c == '_' || c >= 0x80 ? 0 : NOT_WORD) |
                        (alnum || c == '.' || c == '-' || c >= 0x80 ? ID : 0);
    }
}

static int is_keyword(const char *s, size_t len) {
    static const char *const kw[] = {"node", "edge", "strict", "graph", "digraph", "subgraph"};
    if (len < 4 || len > 8 || !strchr("nesgdNESGD", s[0]))
        return 0;
    for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
        if (strcasecmp(kw[i], s) == 0)
            return 1;
    return 0;
}

/* _agstrcanon's number test: an optional leading '-', digits and at most
 * one '.'; true when s is not one (so it must be quoted). */
static int not_number(const unsigned char *s, size_t len) {
    int dots = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '-' ? i != 0 : s[i] == '.' ? dots++ != 0 : !(s[i] >= '0' && s[i] <= '9'))
            return 1;
    return 0;
}

/* Mirrors _agstrcanon (lib/cgraph/write.c): arg quoted when it is not an
 * ID (quotes escaped), and split with backslash-newline once a line of it
 * has 128 chars, at the first place a char that is neither an ID char nor
 * a backslash meets an ID char. agwrite counts the chars of the string,
 * not the column it starts at. */
static void put_canon(exdb_buf *b, const char *arg) {
    size_t len = strlen(arg);
    if (len == 0) {
        exdb_buf_put(b, "\"\"", 2);
        return;
    }
    if (exdb_buf_grow(b, 2 * len + 2 * (len / LINE_MAX_CHARS + 1) + 2) < 0)
        return;
    char *p = b->s + b->len;
    const unsigned char *s = (const unsigned char *)arg, *end = s + len;
    unsigned bad = 0;
    int broke = 0;
    size_t cnt = 0;
    *p++ = '"';
    while (s < end) {
        /* no break before the line's 128th char */
        size_t n =
            (size_t)(end - s) < LINE_MAX_CHARS - cnt ? (size_t)(end - s) : LINE_MAX_CHARS - cnt;
        for (const unsigned char *stop = s + n; s < stop;) {
            const unsigned char *q = memchr(s, '"', (size_t)(stop - s));
            size_t run = (size_t)((q ? q : stop) - s);
            for (size_t i = 0; i < run && !bad; i++)
                bad = char_class[s[i]] & NOT_WORD;
            memcpy(p, s, run);
            p += run;
            s += run;
            if (q) {
                *p++ = '\\';
                *p++ = *s++;
                bad = NOT_WORD;
            }
        }
        cnt += n;
        while (s < end && ((char_class[(unsigned char)p[-1]] & ID) || p[-1] == '\\' ||
                           !(char_class[*s] & ID))) {
            bad |= char_class[*s] & NOT_WORD;
            if (*s == '"')
                *p++ = '\\';
            *p++ = (char)*s++;
        }
        if (s < end) {
            *p++ = '\\';
            *p++ = '\n';
            broke = 1;
            cnt = 0;
        }
    }
    *p++ = '"';
    const unsigned char *u = (const unsigned char *)arg;
    int num = (u[0] >= '0' && u[0] <= '9') || u[0] == '.' || u[0] == '-';
    int quote = broke || (num ? not_number(u, len) : bad != 0) ||
                (len == 1 && (arg[0] == '.' || arg[0] == '-')) || is_keyword(arg, len);
    if (quote) {
        b->len = (size_t)(p - b->s);
        b->s[b->len] = '\0';
    } else {
        exdb_buf_put(b, arg, len);
    }
}

/* ---- agwrite's layout */

static void indent(dw *w) {
    for (int i = 0; i < w->level; i++)
        exdb_buf_putc(w->b, '\t');
}

/* One "name=value" of an attribute list (write_nondefault_attrs): the
 * first after "\t[", the next ones on lines of their own. */
static void put_attr(dw *w, int *cnt, const char *name, const char *value) {
    if ((*cnt)++ == 0) {
        exdb_buf_put(w->b, "\t[", 2);
        w->level++;
    } else {
        exdb_buf_put(w->b, ",\n", 2);
        indent(w);
    }
    put_canon(w->b, name);
    exdb_buf_putc(w->b, '=');
    put_canon(w->b, value);
}

static void end_attrs(dw *w, int cnt) {
    if (cnt > 0) {
        exdb_buf_putc(w->b, ']');
        w->level--;
    }
}

/* A default-attribute block (write_dict): "graph [a=b,\n\t\tc=d\n\t];". */
static void put_dict(dw *w, const char *kind, const char *const (*attrs)[2], size_t n) {
    int cnt = 0;
    for (size_t i = 0; i < n; i++) {
        if (!attrs[i][1])
            continue;
        if (cnt++ == 0) {
            indent(w);
            exdb_buf_puts(w->b, kind);
            exdb_buf_put(w->b, " [", 2);
            w->level++;
        } else {
            exdb_buf_put(w->b, ",\n", 2);
            indent(w);
        }
        put_canon(w->b, attrs[i][0]);
        exdb_buf_putc(w->b, '=');
        put_canon(w->b, attrs[i][1]);
    }
    if (cnt > 0) {
        w->level--;
        if (cnt > 1) {
            exdb_buf_putc(w->b, '\n');
            indent(w);
        }
        exdb_buf_put(w->b, "];\n", 3);
    }
}

static const char *nonempty(const char *s) {
    return s && s[0] ? s : NULL;
}

/* The root's defaults (write_dicts at the top: those not empty). */
static void put_root_dicts(dw *w) {
    const vz_graph *vg = w->vg;
    const char *label = vz_xml_safe(vg->title, &w->xs[0]);
    const char *rankdir = vg->rankdir ? vz_xml_safe(vg->rankdir, &w->xs[1]) : "TB";
    const char *const graph[][2] = {{"fontname", VZ_FONT},
                                    {"fontsize", "11"},
                                    {"label", nonempty(label)},
                                    {"labeljust", "l"},
                                    {"newrank", vg->newrank ? "true" : NULL},
                                    {"ordering", nonempty(vg->ordering)},
                                    {"rankdir", nonempty(rankdir)}};
    const char *nodes[N_ATTRS][2], *edges[E_ATTRS][2];
    for (int i = 0; i < N_ATTRS; i++)
        nodes[i][0] = node_attr[i][0], nodes[i][1] = nonempty(node_attr[i][1]);
    for (int i = 0; i < E_ATTRS; i++)
        edges[i][0] = edge_attr[i][0], edges[i][1] = nonempty(edge_attr[i][1]);
    put_dict(w, "graph", graph, sizeof graph / sizeof *graph);
    put_dict(w, "node", (const char *const(*)[2])nodes, N_ATTRS);
    put_dict(w, "edge", (const char *const(*)[2])edges, E_ATTRS);
}

/* ---- nodes and edges */

/* Node i's tooltip as vz_emit sets it: a copy shows its hub's. */
static const char *tooltip_of(dw *w, uint32_t i) {
    const vz_node *v = &w->vg->nodes[i];
    uint32_t hub = v->copy_of != VZ_NONE ? v->copy_of : v->ncopies ? i : VZ_NONE;
    if (hub != VZ_NONE && w->tips[hub])
        return w->tips[hub];
    exdb_buf_reset(&w->tip);
    vz_node_tooltip_to(&w->tip, hub != VZ_NONE ? &w->vg->nodes[hub] : v, &w->tmp);
    const char *t = exdb_buf_str(&w->tip);
    if (hub != VZ_NONE && !(w->tips[hub] = strdup(vz_xml_safe(t, &w->xs[N_TIP]))))
        w->b->oom = 1;
    return t;
}

/* Node i's attribute values, as vz_emit sets them. */
static void node_values(dw *w, uint32_t i, const char *val[N_ATTRS]) {
    const vz_node *v = &w->vg->nodes[i];
    for (int k = 0; k < N_ATTRS; k++)
        val[k] = node_attr[k][1];
    if (v->fill)
        val[N_FILL] = vz_xml_safe(v->fill, &w->xs[N_FILL]);
    val[N_ID] = v->name; /* XML-safe: see usable */
    if (v->shape)
        val[N_SHAPE] = vz_xml_safe(v->shape, &w->xs[N_SHAPE]);
    if (v->style)
        val[N_STYLE] = vz_xml_safe(v->style, &w->xs[N_STYLE]);
    exdb_buf_reset(&w->lab);
    vz_node_label_to(&w->lab, v, &w->tmp);
    if (w->lab.len)
        val[N_LABEL] = vz_xml_safe(exdb_buf_str(&w->lab), &w->xs[N_LABEL]);
    const char *t = tooltip_of(w, i);
    if (t[0])
        val[N_TIP] = vz_xml_safe(t, &w->xs[N_TIP]);
}

/* Whether any attribute of node i differs from its default
 * (not_default_attrs); its id (the name) does unless the name is empty. */
static int node_not_default(dw *w, uint32_t i) {
    if (w->vg->nodes[i].name[0])
        return 1;
    const char *val[N_ATTRS];
    node_values(w, i, val);
    for (int k = 0; k < N_ATTRS; k++)
        if (strcmp(val[k], node_attr[k][1]) != 0)
            return 1;
    return 0;
}

/* write_node: the name, and the attributes the first time. */
static void put_node(dw *w, uint32_t i) {
    indent(w);
    put_canon(w->b, w->vg->nodes[i].name);
    if (!w->written[i]) {
        w->written[i] = 1;
        const char *val[N_ATTRS];
        node_values(w, i, val);
        int cnt = 0;
        for (int k = 0; k < N_ATTRS; k++)
            if (strcmp(val[k], node_attr[k][1]) != 0)
                put_attr(w, &cnt, node_attr[k][0], val[k]);
        end_attrs(w, cnt);
    }
    exdb_buf_put(w->b, ";\n", 2);
}

/* write_edge: edges are anonymous and have no ports. */
static void put_edge(dw *w, uint32_t e) {
    const vz_edge *v = &w->vg->edges[e];
    const char *src[E_ATTRS] = {
        [E_COLOR] = v->color,   [E_FONTCOLOR] = v->color, [E_LABEL] = v->label,
        [E_MINLEN] = v->minlen, [E_STYLE] = v->style,     [E_TIP] = v->tooltip};
    indent(w);
    put_canon(w->b, w->vg->nodes[v->from].name);
    exdb_buf_put(w->b, " -> ", 4);
    put_canon(w->b, w->vg->nodes[v->to].name);
    int cnt = 0;
    for (int k = 0; k < E_ATTRS; k++) {
        const char *val = src[k] ? vz_xml_safe(src[k], &w->xs[k]) : edge_attr[k][1];
        if (strcmp(val, edge_attr[k][1]) != 0)
            put_attr(w, &cnt, edge_attr[k][0], val);
    }
    end_attrs(w, cnt);
    exdb_buf_put(w->b, ";\n", 2);
}

/* write_node_test in the root for node h, against pred (the node whose
 * out-edges are being written, or h itself). */
static int root_writes(dw *w, uint32_t h, uint32_t pred) {
    if (!w->root_own[h] || h < pred || (w->minpred[h] != VZ_NONE && w->minpred[h] < pred))
        return 0;
    int edges = w->out_at[h + 1] > w->out_at[h] || w->minpred[h] != VZ_NONE;
    return !edges || node_not_default(w, h);
}

/* write_body of the root after its subgraphs. */
static void put_root_body(dw *w) {
    for (uint32_t n = 0; n < w->vg->nnodes; n++) {
        if (root_writes(w, n, n))
            put_node(w, n);
        uint32_t prev = n;
        for (uint32_t k = w->out_at[n]; k < w->out_at[n + 1]; k++) {
            uint32_t h = w->vg->edges[w->outs[k]].to;
            if (prev != h && root_writes(w, h, n)) {
                put_node(w, h);
                prev = h;
            }
            put_edge(w, w->outs[k]);
        }
        flush_piece(w, w->piece);
    }
}

/* write_hdr, write_body and write_trl of plan entry i (not the root). */
static void put_subgraph(dw *w, uint32_t i) {
    const vz_subg *e = &w->pl.s[i];
    char buf[32];
    indent(w);
    exdb_buf_puts(w->b, "subgraph ");
    put_canon(w->b, vz_plan_name(&w->pl, w->vg, i, buf));
    exdb_buf_put(w->b, " {\n", 3);
    w->level++;
    if (e->cluster != VZ_NONE) { /* the graph attributes vz_emit set on it */
        const vz_cluster *c = &w->vg->clusters[e->cluster];
        const char *tip = c->tooltip ? c->tooltip : c->label;
        const char *const graph[][2] = {
            {"fillcolor", c->fill ? vz_xml_safe(c->fill, &w->xs[0]) : NULL},
            {"id", c->name},
            {"label", c->label ? vz_xml_safe(c->label, &w->xs[1]) : NULL},
            {"style", "rounded,filled"},
            {"tooltip", tip ? vz_xml_safe(tip, &w->xs[2]) : NULL}};
        put_dict(w, "graph", graph, sizeof graph / sizeof *graph);
    } else if (e->rank != VZ_NONE) {
        const char *const graph[][2] = {{"rank", "same"}};
        put_dict(w, "graph", graph, 1);
    }
    for (uint32_t k = w->kid_at[i]; k < w->kid_at[i + 1]; k++)
        put_subgraph(w, w->kids[k]);
    for (uint32_t k = w->own_at[i]; k < w->own_at[i + 1]; k++) {
        put_node(w, w->own[k]);
        flush_piece(w, w->piece);
    }
    w->level--;
    indent(w);
    exdb_buf_put(w->b, "}\n", 2);
}

/* ---- what agwrite finds in cgraph's dictionaries */

/* Whether cgraph would keep vg's objects apart and its subgraphs in
 * creation order: names unchanged by XML-safety (two could become one),
 * none taken by a subgraph vz_emit names itself (rank~N, group~N; cgdisc.c
 * gives equal names one ID, and subgraphs are listed by ID). */
static int usable(const vz_graph *vg, exdb_buf *scratch) {
    for (uint32_t i = 0; i < vg->nnodes + vg->nclusters; i++) {
        const char *s = i < vg->nnodes ? vg->nodes[i].name : vg->clusters[i - vg->nnodes].name;
        if (i == vg->nnodes) /* the root graph's entry */
            continue;
        if (vz_xml_safe(s, scratch) != s || strncmp(s, "rank~", 5) == 0 ||
            strncmp(s, "group~", 6) == 0 || (i > vg->nnodes && strcmp(s, "exdb") == 0))
            return 0;
    }
    return 1;
}

/* kids: each plan entry's children in creation order (agfstsubg's). */
static int index_kids(dw *w) {
    const vz_plan *pl = &w->pl;
    if (!(w->kid_at = calloc((size_t)pl->n + 2, sizeof *w->kid_at)) ||
        !(w->kids = malloc(((size_t)pl->n + 1) * sizeof *w->kids)))
        return -1;
    for (uint32_t i = 1; i < pl->n; i++)
        w->kid_at[pl->s[i].parent + 2]++;
    for (uint32_t i = 0; i < pl->n; i++)
        w->kid_at[i + 2] += w->kid_at[i + 1];
    for (uint32_t i = 1; i < pl->n; i++)
        w->kids[w->kid_at[pl->s[i].parent + 1]++] = i;
    return 0;
}

/* outs: node i's out-edges ordered by head, then by edge (agedgeseqcmpf:
 * a stable counting sort by head, then one by tail); minpred. */
static int index_edges(dw *w) {
    const vz_graph *vg = w->vg;
    uint32_t nn = vg->nnodes, ne = vg->nedges;
    uint32_t *at = calloc((size_t)nn + 2, sizeof *at);
    uint32_t *byhead = malloc(((size_t)ne + 1) * sizeof *byhead);
    w->out_at = calloc((size_t)nn + 2, sizeof *w->out_at);
    w->outs = malloc(((size_t)ne + 1) * sizeof *w->outs);
    w->minpred = malloc(((size_t)nn + 1) * sizeof *w->minpred);
    int rc = at && byhead && w->out_at && w->outs && w->minpred ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < nn; i++)
        w->minpred[i] = VZ_NONE;
    for (uint32_t e = 0; rc == 0 && e < ne; e++) {
        const vz_edge *v = &vg->edges[e];
        at[v->to + 2]++;
        w->out_at[v->from + 2]++;
        if (v->from < w->minpred[v->to])
            w->minpred[v->to] = v->from;
    }
    for (uint32_t i = 0; rc == 0 && i < nn; i++) {
        at[i + 2] += at[i + 1];
        w->out_at[i + 2] += w->out_at[i + 1];
    }
    for (uint32_t e = 0; rc == 0 && e < ne; e++)
        byhead[at[vg->edges[e].to + 1]++] = e;
    for (uint32_t k = 0; rc == 0 && k < ne; k++)
        w->outs[w->out_at[vg->edges[byhead[k]].from + 1]++] = byhead[k];
    free(at);
    free(byhead);
    return rc;
}

/* The subgraphs holding node x by itself: its cluster, the rank pairs it
 * is in (rk[rk_at[x] ..)); home[] gets those no other one is inside of
 * (mark: stamp x + 1 on every strict ancestor of one). */
static uint32_t own_homes(dw *w, uint32_t x, const uint32_t *rk_at, const uint32_t *rk,
                          uint32_t *mark, uint32_t *home) {
    const vz_plan *pl = &w->pl;
    uint32_t n = 0, stamp = x + 1, cluster = pl->of_cluster[w->vg->nodes[x].cluster];
    uint32_t nrk = rk_at[x + 1] - rk_at[x];
    for (uint32_t k = 0; k <= nrk; k++) {
        uint32_t h = k == 0 ? cluster : rk[rk_at[x] + k - 1];
        for (uint32_t a = pl->s[h].parent; h != 0 && mark[a] != stamp; a = pl->s[a].parent) {
            mark[a] = stamp;
            if (a == 0)
                break;
        }
    }
    for (uint32_t k = 0; k <= nrk; k++) {
        uint32_t h = k == 0 ? cluster : rk[rk_at[x] + k - 1];
        if (mark[h] != stamp)
            home[n++] = h;
    }
    return n;
}

/* rk: the rank pairs each node is in (as rank~I's I or as its partner). */
static int index_ranks(dw *w, uint32_t **rk_at, uint32_t **rk) {
    const vz_plan *pl = &w->pl;
    uint32_t nn = w->vg->nnodes, nr = pl->n - pl->first_rank;
    *rk_at = calloc((size_t)nn + 2, sizeof **rk_at);
    *rk = malloc(2 * ((size_t)nr + 1) * sizeof **rk);
    if (!*rk_at || !*rk)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = pl->first_rank; r < pl->n; r++) {
            uint32_t i = pl->s[r].rank;
            if (i == VZ_NONE)
                continue;
            uint32_t p = w->vg->nodes[i].rank_with - 1;
            if (pass == 0)
                (*rk_at)[i + 2]++, (*rk_at)[p + 2] += p != i;
            else
                (*rk)[(*rk_at)[i + 1]++] = r;
            if (pass == 1 && p != i)
                (*rk)[(*rk_at)[p + 1]++] = r;
        }
        for (uint32_t i = 0; pass == 0 && i < nn; i++)
            (*rk_at)[i + 2] += (*rk_at)[i + 1];
    }
    return 0;
}

/* own: the nodes each plan entry's body writes, in node order (agfstnode
 * lists a graph's nodes by sequence, which is vz_emit's creation order). */
static int index_owners(dw *w) {
    const vz_plan *pl = &w->pl;
    uint32_t nn = w->vg->nnodes, *rk_at = NULL, *rk = NULL, maxh = 1;
    uint32_t *mark = calloc((size_t)pl->n + 1, sizeof *mark);
    w->own_at = calloc((size_t)pl->n + 2, sizeof *w->own_at);
    w->root_own = calloc((size_t)nn + 1, 1);
    int rc = mark && w->own_at && w->root_own ? index_ranks(w, &rk_at, &rk) : -1;
    for (uint32_t x = 0; rc == 0 && x < nn; x++)
        if (rk_at[x + 1] - rk_at[x] + 1 > maxh)
            maxh = rk_at[x + 1] - rk_at[x] + 1;
    uint32_t *home = rc == 0 ? malloc((size_t)maxh * sizeof *home) : NULL;
    size_t total = 0;
    for (uint32_t x = 0; home && x < nn; x++) {
        uint32_t n = own_homes(w, x, rk_at, rk, mark, home);
        for (uint32_t k = 0; k < n; k++)
            w->own_at[home[k] + 2]++;
        total += n;
    }
    if (home && (w->own = malloc((total + 1) * sizeof *w->own))) {
        for (uint32_t i = 0; i < pl->n; i++)
            w->own_at[i + 2] += w->own_at[i + 1];
        memset(mark, 0, ((size_t)pl->n + 1) * sizeof *mark);
        for (uint32_t x = 0; x < nn; x++) {
            uint32_t n = own_homes(w, x, rk_at, rk, mark, home);
            for (uint32_t k = 0; k < n; k++) {
                w->own[w->own_at[home[k] + 1]++] = x;
                w->root_own[x] |= home[k] == 0;
            }
        }
    } else {
        rc = -1;
    }
    free(home);
    free(mark);
    free(rk_at);
    free(rk);
    return rc;
}

static void dw_free(dw *w) {
    for (uint32_t i = 0; w->tips && i < w->vg->nnodes; i++)
        free(w->tips[i]);
    free(w->tips);
    free(w->kids);
    free(w->kid_at);
    free(w->own);
    free(w->own_at);
    free(w->outs);
    free(w->out_at);
    free(w->minpred);
    free(w->written);
    free(w->root_own);
    exdb_buf_free(&w->lab);
    exdb_buf_free(&w->tip);
    exdb_buf_free(&w->tmp);
    for (int i = 0; i < N_ATTRS; i++)
        exdb_buf_free(&w->xs[i]);
    vz_plan_free(&w->pl);
}

int vz_dot_write(const vz_graph *vg, exdb_buf *b, exdb_viz_stats *st) {
    return vz_dot_write_to(vg, b, NULL, st);
}

int vz_dot_write_to(const vz_graph *vg, exdb_buf *b, const vz_dot_sink *sink, exdb_viz_stats *st) {
    dw w = {.vg = vg, .b = b, .sink = sink};
    w.piece = sink && sink->piece ? sink->piece : VZ_DOT_PIECE;
    exdb_buf_init(&w.lab);
    exdb_buf_init(&w.tip);
    exdb_buf_init(&w.tmp);
    for (int i = 0; i < N_ATTRS; i++)
        exdb_buf_init(&w.xs[i]);
    if (!char_class['a'])
        init_classes();
    if (!usable(vg, &w.tmp)) {
        exdb_buf_free(&w.tmp);
        return 1;
    }
    size_t start = b->len;
    int rc = vz_plan_make(&w.pl, vg, 0);
    w.written = calloc((size_t)vg->nnodes + 1, 1);
    w.tips = calloc((size_t)vg->nnodes + 1, sizeof *w.tips);
    if (rc < 0 || !w.written || !w.tips || index_kids(&w) < 0 || index_edges(&w) < 0 ||
        index_owners(&w) < 0) {
        dw_free(&w);
        return -1;
    }
    /* Room for the text at once (for two pieces when it goes to a sink):
     * grown by doubling, the 102 MB of synth_100k's flat view were copied
     * 128 MB over (0.1 s). Views run 300-700 bytes a node; a low guess costs
     * one doubling more. */
    exdb_buf_grow(b, sink ? 2 * w.piece : (size_t)vg->nnodes * 512 + (size_t)vg->nedges * 48);
    exdb_buf_puts(b, "digraph exdb {\n"); /* write_hdr of the root */
    w.level = 1;
    put_root_dicts(&w);
    for (uint32_t k = w.kid_at[0]; k < w.kid_at[1]; k++)
        put_subgraph(&w, w.kids[k]);
    put_root_body(&w);
    exdb_buf_put(b, "}\n", 2);
    flush_piece(&w, 1);
    rc = b->oom || w.lab.oom || w.tip.oom || w.tmp.oom ? -1 : 0;
    for (int i = 0; i < N_ATTRS; i++)
        rc = w.xs[i].oom ? -1 : rc;
    if (rc == 0 && st) {
        st->nodes = vg->nnodes;
        st->edges = vg->nedges;
        st->clusters = vg->nclusters - 1;
        st->groups = w.pl.ngroups;
    }
    if (rc < 0 && b->s) {
        b->len = start;
        b->s[start] = '\0';
    }
    dw_free(&w);
    return rc;
}
