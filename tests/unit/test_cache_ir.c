/* test_cache_ir.c - the reopen cache's IR image (core/export/cache_ir.h):
 * every fixture (and the real programs when REAL_PT2 is set) built from
 * its IR entry answers byte for byte as loaded whole (info program and
 * signature, the graph, its table, its code with the lazily read
 * "# File:" comments, lint, dce); and exdb_cache_ir_check refuses an
 * image broken in each of the ways it checks (under ASan: reading a
 * broken image never reads outside it), and a broken entry is not used:
 * the build reads the file. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/base/strbuf.h"
#include "core/export/cache.h"
#include "core/export/cache_format.h"
#include "core/export/cache_ir.h"
#include "core/export/describe.h"
#include "core/export/program.h"
#include "core/fx/codegen.h"
#include "core/fx/dce.h"
#include "core/fx/graph_check.h"
#include "core/fx/lint.h"
#include "core/fx/print.h"
#include "core/unflatten/unflatten.h"

#include "cache_ir_edit.h"
#include "testutil.h"

static void setup(void) {
    test_cache_suite_init("cache_ir");
}

static void teardown(void) {
    test_cache_suite_fini();
}

TestSuite(cache_ir, .init = setup, .fini = teardown);

/* What a built program answers (p's graph is changed: dce). */
static void answers_of(exdb_buf *b, exdb_program *p) {
    exdb_print_program_info(b, p);
    exdb_print_signature(b, p);
    exdb_print_graph(b, p->graph);
    exdb_print_tabular(b, p->graph);
    exdb_codegen_opts verbose = {.verbose = 1, .include_stride = 1, .include_device = 1};
    exdb_python_code(b, p->graph, &verbose, NULL);
    exdb_error err = {0};
    if (exdb_program_meta_error(p, &err) < 0)
        exdb_buf_printf(b, "meta: %s\n", err.msg);
    test_lint_dce_answers(b, p->graph);
    exdb_python_code(b, p->graph, &verbose, NULL);
}

static void module_seen(void *ctx, const char *fqn, exdb_umodule *m) {
    exdb_buf *b = ctx;
    exdb_buf_printf(b, "module '%s' %s\n", fqn, m->type ? m->type : "-");
    if (m->graph)
        exdb_print_graph(b, m->graph);
}

/* What a program with subgraphs answers besides: each subgraph's graph,
 * code and lint, its unflattened modules (unflatten run, info modules),
 * a dry dce of every graph; then answers_of's. */
static void hop_answers_of(exdb_buf *b, exdb_program *p) {
    exdb_codegen_opts plain = {0};
    exdb_buf_printf(b, "%u subgraphs\n", p->nsubgraphs);
    for (uint32_t i = 0; i < p->nsubgraphs; i++) {
        const struct exdb_subgraph *s = &p->subgraphs[i];
        exdb_buf_printf(b, "subgraph %s of %s%s\n", s->name, s->owner->name,
                        exdb_program_subgraph_owned(p, s->owner) == s ? "" : " (not found)");
        exdb_print_graph(b, s->graph);
        exdb_python_code(b, s->graph, &plain, NULL);
        exdb_lint_report r;
        exdb_lint_report_init(&r);
        exdb_lint_graph(&r, s->graph, NULL, NULL);
        exdb_lint_format(b, &r);
        exdb_lint_report_free(&r);
        const struct exdb_subgraph *top = exdb_program_subgraph(p, s->name);
        exdb_buf_printf(b, "by name: %ld\n", top ? (long)(top - p->subgraphs) : -1L);
    }
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    if (!u || exdb_unflatten_run(u, &err) < 0)
        exdb_buf_printf(b, "unflatten: %s\n", err.msg);
    else
        exdb_unflatten_named_modules(u, module_seen, b);
    exdb_unflatten_free(u);
    for (uint32_t i = 0; i <= p->nsubgraphs; i++) {
        exdb_dce_log log;
        exdb_dce_log_init(&log);
        exdb_dce_opts o = {.dry_run = 1, .impure_random = 1};
        exdb_graph *g = i ? p->subgraphs[i - 1].graph : p->graph;
        int n = exdb_dce_run(g, &o, &log, &err);
        exdb_buf_printf(b, "dce --dry-run: %d %s\n", n, n < 0 ? err.msg : "");
        exdb_dce_log_free(&log);
    }
    answers_of(b, p);
}

static int with_subgraphs; /* answers: hop_answers_of's */

/* path's answers: opened whole (cache NULL), or shape first and built
 * (*from_ir: whether the build was the IR entry's). */
static char *answers(const char *path, int cached, int *from_ir) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_error err = {0};
    if (from_ir)
        *from_ir = 0;
    exdb_program *p =
        cached ? exdb_program_open(path, NULL, &err) : exdb_program_load(path, NULL, &err);
    /* refused at the open (whole) or at the build (shape first): one
     * message */
    if (!p || exdb_program_build(p, &err) < 0) {
        exdb_buf_printf(&b, "refused: %s\n", err.msg);
    } else {
        if (from_ir)
            *from_ir = p->cache_kept != NULL;
        if (with_subgraphs)
            hop_answers_of(&b, p);
        else
            answers_of(&b, p);
    }
    exdb_program_free(p);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* path built from its IR entry answers as loaded whole: 1, or 0 when it
 * has no IR entry (a program an image does not hold). */
static int round_trip(const char *path) {
    exdb_cache_use(NULL);
    char *ref = answers(path, 0, NULL);
    exdb_cache_use(test_cache_dir);
    int ir;
    char *first = answers(path, 1, &ir); /* writes both entries */
    cr_assert_eq(ir, 0, "%s: built from an IR entry at its first open", path);
    cr_assert_str_eq(first, ref, "%s: the first open", path);
    char *again = answers(path, 1, &ir);
    cr_assert_str_eq(again, ref, "%s: built from its IR entry", path);
    free(ref);
    free(first);
    free(again);
    return ir;
}

Test(cache_ir, fixtures_built_from_the_image_answer_as_loaded_whole) {
    glob_t g;
    int n = 0, from_ir = 0;
    cr_assert_eq(glob("tests/fixtures/*.json", 0, NULL, &g), 0);
    glob("tests/fixtures/*.pt2", GLOB_APPEND, NULL, &g);
    const char *real = getenv("REAL_PT2");
    char pat[600];
    if (real && *real) {
        snprintf(pat, sizeof pat, "%s/*__model.json", real);
        glob(pat, GLOB_APPEND, NULL, &g);
    }
    /* metadata read at load, then lazily (text references in the image) */
    for (int lazy = 0; lazy < 2; lazy++) {
        exdb_program_lazy_meta(lazy ? 0 : EXDB_LAZY_META_MIN);
        for (size_t i = 0; i < g.gl_pathc; i++, n++) {
            int ir = round_trip(g.gl_pathv[i]);
            if (!ir)
                printf("cache_ir: %s: no image (lazy metadata %d)\n", g.gl_pathv[i], lazy);
            from_ir += ir;
        }
        test_cache_empty();
    }
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    globfree(&g);
    cr_assert_geq(from_ir, n - 1, /* lazy_meta_bad.json read at load: refused */
                  "%d of %d built from an image", from_ir, n);
    printf("cache_ir: %d of %d programs built from their IR image, the same answers\n", from_ir, n);
}

/* The corpus's programs with subgraphs (higher-order ops, nested too). */
static glob_t hop_programs(void) {
    glob_t g, hop = {0};
    cr_assert_eq(glob("tests/conformance/corpus/scenarios/*/program.pt2", 0, NULL, &g), 0);
    char **v = calloc(g.gl_pathc + 1, sizeof *v);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        exdb_error err = {0};
        exdb_program *p = exdb_program_load(g.gl_pathv[i], NULL, &err);
        if (p && p->nsubgraphs)
            v[hop.gl_pathc++] = strdup(g.gl_pathv[i]);
        exdb_program_free(p);
    }
    globfree(&g);
    hop.gl_pathv = v;
    cr_assert_geq(hop.gl_pathc, 15, "only %zu programs with subgraphs in the corpus", hop.gl_pathc);
    return hop;
}

static void hop_programs_free(glob_t *g) {
    for (size_t i = 0; i < g->gl_pathc; i++)
        free(g->gl_pathv[i]);
    free(g->gl_pathv);
}

/* path's answers as loaded whole, or with its graphs put back from the
 * image of its load (checked first; every graph's invariants hold). */
static char *hop_answers(const char *path, int from_image) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s: %s", path, err.msg);
    if (from_image) {
        exdb_buf img;
        cr_assert_eq(exdb_cache_ir_make(p, &img), 0, "%s: no image", path);
        cr_assert_eq(exdb_cache_ir_check(img.s, img.len, p->json_bytes), 0, "%s: refused", path);
        uint32_t nsub = p->nsubgraphs;
        p->graph = NULL; /* the load's graphs stay in the arenas, unread */
        p->subgraphs = NULL;
        p->nsubgraphs = 0;
        cr_assert_eq(exdb_cache_ir_install(p, img.s, img.len), 0);
        exdb_buf_free(&img);
        cr_assert_eq(p->nsubgraphs, nsub);
        cr_assert(exdb_graph_ok(p->graph));
        for (uint32_t i = 0; i < p->nsubgraphs; i++)
            cr_assert(exdb_graph_ok(p->subgraphs[i].graph), "%s: subgraph %u", path, i);
    }
    exdb_buf b;
    exdb_buf_init(&b);
    hop_answers_of(&b, p);
    exdb_program_free(p);
    char *s = strdup(exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* Programs with subgraphs get an image, and the graphs put back from it
 * answer as the load's (metadata read at load, then lazily). */
Test(cache_ir, programs_with_subgraphs_put_back_from_their_image) {
    glob_t g = hop_programs();
    for (int lazy = 0; lazy < 2; lazy++) {
        exdb_program_lazy_meta(lazy ? 0 : EXDB_LAZY_META_MIN);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char *ref = hop_answers(g.gl_pathv[i], 0);
            char *got = hop_answers(g.gl_pathv[i], 1);
            cr_assert_str_eq(got, ref, "%s (lazy %d)", g.gl_pathv[i], lazy);
            free(ref);
            free(got);
        }
    }
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    printf("cache_ir: %zu programs with subgraphs put back from their image\n", g.gl_pathc);
    hop_programs_free(&g);
}

/* The corpus's programs with subgraphs, opened shape first, reopened
 * from their entries and built from their image, answer as loaded whole
 * (metadata read at load, then lazily). */
Test(cache_ir, programs_with_subgraphs_reopen_from_their_image) {
    glob_t g = hop_programs();
    with_subgraphs = 1;
    for (int lazy = 0; lazy < 2; lazy++) {
        exdb_program_lazy_meta(lazy ? 0 : EXDB_LAZY_META_MIN);
        for (size_t i = 0; i < g.gl_pathc; i++)
            cr_expect_eq(round_trip(g.gl_pathv[i]), 1, "%s: not built from its image (lazy %d)",
                         g.gl_pathv[i], lazy);
        test_cache_empty();
    }
    with_subgraphs = 0;
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    hop_programs_free(&g);
}

/* ---- the check, one broken image at a time */

#define FIXTURE "tests/fixtures/example.json"

typedef struct image {
    exdb_buf b;
    uint64_t text_len;
} image;

/* A program whose subgraphs nest: the image holds the main graph, the
 * map's body (which owns the cond's two branches), the two branches. */
#define HOP_FIXTURE "tests/conformance/corpus/scenarios/cf_cond_in_map__nonstrict/program.pt2"
static const char *image_of = FIXTURE;

/* The image of image_of built whole. */
static void make_image(image *im) {
    exdb_error err = {0};
    exdb_program_lazy_meta(0); /* text references too */
    exdb_program *p = exdb_program_load(image_of, NULL, &err);
    exdb_program_lazy_meta(EXDB_LAZY_META_MIN);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(exdb_cache_ir_make(p, &im->b), 0);
    im->text_len = p->json_bytes;
    exdb_program_free(p);
    cr_assert_eq(exdb_cache_ir_check(im->b.s, im->b.len, im->text_len), 0, "a good image refused");
}

static exdb_cache_ir_head *head_of(image *im) {
    return (exdb_cache_ir_head *)im->b.s;
}

/* Record i of section s. */
static void *rec(image *im, int s, uint64_t i) {
    exdb_cache_ir_head *h = head_of(im);
    cr_assert_lt(i, h->sect[s].count, "the fixture has no record %lu of section %d",
                 (unsigned long)i, s);
    return im->b.s + h->sect[s].off + i * exdb_cache_ir_rec_size(s);
}

/* The image broken by edit is refused; in a copy of its own length (ASan
 * sees a read past it). */
static void refused(void (*edit)(image *), const char *what) {
    image im;
    make_image(&im);
    edit(&im);
    char *copy = malloc(im.b.len);
    memcpy(copy, im.b.s, im.b.len);
    cr_expect_eq(exdb_cache_ir_check(copy, im.b.len, im.text_len), -1, "%s: not refused", what);
    free(copy);
    exdb_buf_free(&im.b);
}

/* the first node that calls something, and its args tuple's record */
static uint32_t call_node(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = 0; i < h->sect[EXDB_IR_NODES].count; i++) {
        exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, i);
        exdb_cache_ir_arg *a = rec(im, EXDB_IR_ARGS, n->args);
        if (n->op == EXDB_OP_CALL_FUNCTION && a->n > 0)
            return i;
    }
    cr_assert_fail("no call_function node with args");
    return 0;
}

static void count_past_section(image *im) {
    head_of(im)->sect[EXDB_IR_NODES].count += 1000000;
}
static void section_moved(image *im) {
    head_of(im)->sect[EXDB_IR_METAS].off += 8;
}
static void truncated(image *im) {
    im->b.len -= 8;
}
static void string_past_table(image *im) {
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, 0);
    n->name = (uint32_t)head_of(im)->sect[EXDB_IR_STRS].count;
}
static void table_not_ended(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    im->b.s[h->sect[EXDB_IR_STRS].off + h->sect[EXDB_IR_STRS].count - 1] = 'x';
}
static void meta_index_out_of_range(image *im) {
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, 0);
    n->meta = (uint32_t)head_of(im)->sect[EXDB_IR_METAS].count;
}
static void arg_names_a_later_node(image *im) {
    uint32_t i = call_node(im);
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, i);
    exdb_cache_ir_arg *t = rec(im, EXDB_IR_ARGS, n->args);
    exdb_cache_ir_arg *a = rec(im, EXDB_IR_ARGS, t->u);
    a->kind = EXDB_ARG_NODE;
    a->u = i; /* itself: a cycle */
}
static void op_out_of_range(image *im) {
    ((exdb_cache_ir_node *)rec(im, EXDB_IR_NODES, 0))->op = 6;
}
static void arg_kind_out_of_range(image *im) {
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, call_node(im));
    ((exdb_cache_ir_arg *)rec(im, EXDB_IR_ARGS, n->args))->kind = EXDB_ARG_OPERATOR + 1;
}
static void wrapping_range(image *im) {
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, call_node(im));
    exdb_cache_ir_arg *t = rec(im, EXDB_IR_ARGS, n->args);
    t->n = UINT32_MAX; /* items start + n wraps */
}
static void items_before_their_list(image *im) {
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, call_node(im));
    exdb_cache_ir_arg *t = rec(im, EXDB_IR_ARGS, n->args);
    t->u = n->args; /* its own items: a cycle */
}
static void args_of_another_node(image *im) {
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, call_node(im));
    n->kwargs = n->args - 1;
}
static void stack_range_past(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = 0; i < h->sect[EXDB_IR_METAS].count; i++) {
        exdb_cache_ir_meta *m = rec(im, EXDB_IR_METAS, i);
        if (m->stack != EXDB_CACHE_NONE) {
            m->nstack = (uint32_t)h->sect[EXDB_IR_STACKS].count + 1;
            return;
        }
    }
    cr_assert_fail("no stack");
}
static void text_ref_past_text(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = 0; i < h->sect[EXDB_IR_METAS].count; i++) {
        exdb_cache_ir_meta *m = rec(im, EXDB_IR_METAS, i);
        if (m->textmask & 2) {
            m->strs[1] = (uint32_t)im->text_len;
            return;
        }
    }
    cr_assert_fail("no lazily read stack_trace");
}
static void val_kind_out_of_range(image *im) {
    ((exdb_cache_ir_val *)rec(im, EXDB_IR_VALS, 0))->kind = EXDB_VAL_CONST + 1;
}
static void tensor_meta_past(image *im) {
    exdb_cache_ir_val *v = rec(im, EXDB_IR_VALS, 0);
    v->kind = EXDB_VAL_TENSOR;
    v->u = head_of(im)->sect[EXDB_IR_TMETAS].count;
}
static void sizes_past_syms(image *im) {
    exdb_cache_ir_tmeta *t = rec(im, EXDB_IR_TMETAS, 0);
    t->ndim = (uint32_t)head_of(im)->sect[EXDB_IR_SYMS].count + 1;
}
static void tuple_of_itself(image *im) {
    exdb_cache_ir_val *v = rec(im, EXDB_IR_VALS, 0);
    uint32_t self = 0;
    v->kind = EXDB_VAL_TUPLE;
    v->n = 1;
    v->u = 0;
    memcpy(rec(im, EXDB_IR_VALREFS, 0), &self, 4);
}
static exdb_cache_ir_graph *graph_rec(image *im, uint32_t k) {
    return rec(im, EXDB_IR_GRAPHS, k);
}
/* Where graph k's records of section s (NODES, NAMES, BASES) start. */
static uint32_t graph_start(image *im, uint32_t k, int s) {
    exdb_cache_ir_graph *g = graph_rec(im, k);
    return s == EXDB_IR_NODES ? g->nodes : s == EXDB_IR_NAMES ? g->names : g->bases;
}
/* Where they end: where the next graph's start. */
static uint32_t graph_end(image *im, uint32_t k, int s) {
    exdb_cache_ir_head *h = head_of(im);
    return k + 1 < h->sect[EXDB_IR_GRAPHS].count ? graph_start(im, k + 1, s)
                                                 : (uint32_t)h->sect[s].count;
}

/* A table of graph k (section s: NAMES, BASES) whose used slots fill it:
 * its size cut to their count when that is a power of two, each slot
 * moved to its place. 0 when none is. */
static int table_filled(image *im, int s) {
    exdb_cache_ir_head *h = head_of(im);
    uint32_t ng = (uint32_t)h->sect[EXDB_IR_GRAPHS].count;
    for (uint32_t k = 0; k < ng; k++) {
        exdb_cache_ir_graph *g = graph_rec(im, k);
        uint32_t lo = graph_start(im, k, s), used = graph_end(im, k, s) - lo;
        if (!used || (used & (used - 1)))
            continue;
        *(s == EXDB_IR_NAMES ? &g->names_cap : &g->bases_cap) = used;
        for (uint32_t i = 0; i < used; i++)
            ((exdb_cache_ir_slot *)rec(im, s, lo + i))->at = i;
        return 1;
    }
    return 0;
}
static void name_table_full(image *im) {
    /* no empty slot: a probe that misses never ends */
    cr_assert(table_filled(im, EXDB_IR_NAMES) || table_filled(im, EXDB_IR_BASES),
              "no table of the fixture holds a power of two of names");
}
static void name_slots_out_of_order(image *im) {
    exdb_cache_ir_slot *a = rec(im, EXDB_IR_NAMES, 0), *b = rec(im, EXDB_IR_NAMES, 1);
    uint32_t at = a->at;
    a->at = b->at;
    b->at = at;
}
static void two_name_slots_in_one_place(image *im) {
    ((exdb_cache_ir_slot *)rec(im, EXDB_IR_NAMES, 1))->at =
        ((exdb_cache_ir_slot *)rec(im, EXDB_IR_NAMES, 0))->at;
}
static void name_slot_past_its_table(image *im) {
    exdb_cache_ir_graph *g = graph_rec(im, 0);
    exdb_cache_ir_slot *last = rec(im, EXDB_IR_NAMES, graph_end(im, 0, EXDB_IR_NAMES) - 1);
    last->at = g->names_cap;
}
static void name_table_not_a_power_of_two(image *im) {
    graph_rec(im, 0)->names_cap += 1;
}
static void name_slot_past_nodes(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = 0; i < h->sect[EXDB_IR_NAMES].count; i++) {
        exdb_cache_ir_slot *s = rec(im, EXDB_IR_NAMES, i);
        if (s->key != EXDB_CACHE_NONE) {
            s->val = h->sect[EXDB_IR_NODES].count;
            return;
        }
    }
}
static void duplicate_id(image *im) {
    ((exdb_cache_ir_node *)rec(im, EXDB_IR_NODES, 1))->id =
        ((exdb_cache_ir_node *)rec(im, EXDB_IR_NODES, 0))->id;
}
static void text_of_another_length(image *im) {
    im->text_len++;
}
/* An argument of kind that names no string (the printers take it as a
 * string: fuzz_cache's ir_null_string_arg, an entry of an older format
 * the replay no longer brings to the check). */
static void arg_of_no_string(image *im, uint8_t kind) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = 0; i < h->sect[EXDB_IR_ARGS].count; i++) {
        exdb_cache_ir_arg *a = rec(im, EXDB_IR_ARGS, i);
        if (a->kind == kind) {
            a->u = EXDB_CACHE_NONE;
            return;
        }
    }
    cr_assert_fail("no argument of kind %d", kind);
}
static void device_of_no_string(image *im) {
    arg_of_no_string(im, EXDB_ARG_DEVICE);
}
static void operator_of_no_string(image *im) {
    arg_of_no_string(im, EXDB_ARG_OPERATOR);
}

/* ---- the graphs (HOP_FIXTURE's image) */

static void subgraph_arg_names_main_node(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = graph_rec(im, 1)->nodes; i < h->sect[EXDB_IR_NODES].count; i++) {
        exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, i);
        exdb_cache_ir_arg *t = rec(im, EXDB_IR_ARGS, n->args);
        if (n->op == EXDB_OP_CALL_FUNCTION && t->n > 0) {
            exdb_cache_ir_arg *a = rec(im, EXDB_IR_ARGS, t->u);
            a->kind = EXDB_ARG_NODE;
            a->u = 0; /* the main graph's first placeholder: earlier, not its own */
            return;
        }
    }
    cr_assert_fail("no call in a subgraph");
}
static void owner_not_get_attr(image *im) {
    graph_rec(im, 1)->owner = 0; /* a placeholder */
}
/* Graph k's node before its output made a get_attr node (its shape
 * holds): its index. */
static uint32_t get_attr_in(image *im, uint32_t k) {
    uint32_t end = graph_end(im, k, EXDB_IR_NODES);
    exdb_cache_ir_node *n = rec(im, EXDB_IR_NODES, end - 2);
    cr_assert_eq(n->op, EXDB_OP_CALL_FUNCTION);
    n->op = EXDB_OP_GET_ATTR;
    return end - 2;
}
static void owner_in_its_own_graph(image *im) {
    graph_rec(im, 1)->owner = get_attr_in(im, 1); /* a cycle */
}
static void owner_in_a_later_graph(image *im) {
    graph_rec(im, 1)->owner = get_attr_in(im, 3);
}
static void two_graphs_of_one_owner(image *im) {
    graph_rec(im, 3)->owner = graph_rec(im, 2)->owner;
}
static void graph_range_past_nodes(image *im) {
    uint32_t last = (uint32_t)head_of(im)->sect[EXDB_IR_GRAPHS].count - 1;
    graph_rec(im, last)->nodes = (uint32_t)head_of(im)->sect[EXDB_IR_NODES].count + 1;
}
static void graph_of_no_node(image *im) {
    graph_rec(im, 1)->nodes = 0; /* the main graph empty: no output to read */
}
static void name_table_of_wrong_size(image *im) {
    graph_rec(im, 1)->names++; /* the main graph's one slot more */
}
static void subgraph_name_slot_names_main_node(image *im) {
    exdb_cache_ir_head *h = head_of(im);
    for (uint32_t i = graph_rec(im, 1)->names; i < h->sect[EXDB_IR_NAMES].count; i++) {
        exdb_cache_ir_slot *s = rec(im, EXDB_IR_NAMES, i);
        if (s->key != EXDB_CACHE_NONE && s->val != EXDB_CACHE_NONE) {
            s->val = 0;
            return;
        }
    }
    cr_assert_fail("no name slot in a subgraph");
}
static void subgraph_unnamed(image *im) {
    graph_rec(im, 2)->name = EXDB_CACHE_NONE;
}
static void main_graph_owned(image *im) {
    graph_rec(im, 0)->owner = graph_rec(im, 1)->owner;
}

Test(cache_ir, a_broken_image_is_refused) {
    static const struct {
        void (*edit)(image *);
        const char *what;
    } cases[] = {
        {count_past_section, "a count past its section"},
        {section_moved, "sections that do not tile the image"},
        {truncated, "an image cut short"},
        {string_past_table, "a string offset past the table"},
        {table_not_ended, "a string table not NUL-ended"},
        {meta_index_out_of_range, "a meta index out of range"},
        {arg_names_a_later_node, "an arg naming its own node"},
        {op_out_of_range, "an op out of range"},
        {arg_kind_out_of_range, "an arg kind out of range"},
        {wrapping_range, "a wrapping items range"},
        {items_before_their_list, "a list's items before it"},
        {args_of_another_node, "kwargs among another node's args"},
        {stack_range_past, "a stack range past its section"},
        {text_ref_past_text, "a text reference past the text"},
        {val_kind_out_of_range, "a value kind out of range"},
        {tensor_meta_past, "a tensor meta index out of range"},
        {sizes_past_syms, "sizes past the syms"},
        {tuple_of_itself, "a tuple value holding itself"},
        {name_slots_out_of_order, "name slots out of table order"},
        {two_name_slots_in_one_place, "two name slots in one place"},
        {name_slot_past_its_table, "a name slot past its table"},
        {name_table_not_a_power_of_two, "a name table of no power of two"},
        {name_slot_past_nodes, "a name slot naming no node"},
        {duplicate_id, "two nodes of one id"},
        {text_of_another_length, "a text of another length"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        refused(cases[i].edit, cases[i].what);
}

Test(cache_ir, an_argument_naming_no_string_is_refused) {
    image_of = "tests/fixtures/arg_kinds.json"; /* a device and an operator argument */
    refused(device_of_no_string, "a device argument without a string");
    refused(operator_of_no_string, "an operator argument without a string");
    image_of = FIXTURE;
}

/* A program of n conds side by side (2n subgraphs, each owned by a
 * get_attr node of the main graph) written to path. */
static void conds_program(const char *path, unsigned n) {
    static const char *const branch =
        "{\"name\":\"\",\"arg\":{\"as_graph\":{\"name\":\"%s_graph_%u\",\"graph\":{\"inputs\":"
        "[{\"as_tensor\":{\"name\":\"arg0_1\"}},{\"as_tensor\":{\"name\":\"arg1_1\"}}],\"outputs\":"
        "[{\"as_tensor\":{\"name\":\"add\"}}],\"nodes\":[{\"target\":\"torch.ops.aten.add.Tensor\","
        "\"inputs\":[{\"name\":\"self\",\"arg\":{\"as_tensor\":{\"name\":\"arg0_1\"}},\"kind\":1},"
        "{\"name\":\"other\",\"arg\":{\"as_tensor\":{\"name\":\"arg1_1\"}},\"kind\":1}],"
        "\"outputs\":"
        "[{\"as_tensor\":{\"name\":\"add\"}}],\"name\":\"add\"}]}}},\"kind\":1},";
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("{\"schema_version\":{\"major\":8,\"minor\":20},\"graph_module\":{\"graph\":{\"inputs\":"
          "[{\"as_tensor\":{\"name\":\"p\"}},{\"as_tensor\":{\"name\":\"a\"}},{\"as_tensor\":"
          "{\"name\":\"b\"}}],\"outputs\":[{\"as_tensor\":{\"name\":\"getitem_0\"}}],\"nodes\":[",
          f);
    for (unsigned i = 0; i < n; i++) {
        fprintf(f,
                "%s{\"target\":\"torch.ops.higher_order.cond\",\"inputs\":[{\"name\":\"\","
                "\"arg\":{\"as_tensor\":{\"name\":\"p\"}},\"kind\":1},",
                i ? "," : "");
        fprintf(f, branch, "true", i);
        fprintf(f, branch, "false", i);
        fprintf(f,
                "{\"name\":\"\",\"arg\":{\"as_tensors\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
                "\"kind\":1}],\"outputs\":[{\"as_tensor\":{\"name\":\"getitem_%u\"}}],"
                "\"is_hop_single_tensor_return\":false,\"name\":\"cond_%u\"}",
                i, i);
    }
    fputs(
        "]},\"signature\":{\"input_specs\":[{\"user_input\":{\"arg\":{\"as_tensor\":{\"name\":"
        "\"p\"}}}},{\"user_input\":{\"arg\":{\"as_tensor\":{\"name\":\"a\"}}}},{\"user_input\":"
        "{\"arg\":{\"as_tensor\":{\"name\":\"b\"}}}}],\"output_specs\":[{\"user_output\":{\"arg\":"
        "{\"as_tensor\":{\"name\":\"getitem_0\"}}}}]},\"module_call_graph\":[]}}",
        f);
    fclose(f);
}

/* Each subgraph but the first owned by a node of the one before it: a
 * chain of subgraphs each inside the one before. */
static void nested_chain(image *im) {
    uint32_t ng = (uint32_t)head_of(im)->sect[EXDB_IR_GRAPHS].count;
    for (uint32_t k = 2; k < ng; k++)
        graph_rec(im, k)->owner = get_attr_in(im, k - 1);
}

/* Subgraphs nested deeper than any file can nest them (its JSON is at
 * most EXDB_JSON_MAX_DEPTH deep, a subgraph 7 levels below its parent's):
 * the image is refused, as the printers and unflatten recurse into each
 * subgraph (graph_module.c's subgraph_children: a chain of 2M would
 * overflow the stack). */
Test(cache_ir, subgraphs_nested_deeper_than_a_file_can_are_refused) {
    char path[600];
    snprintf(path, sizeof path, "%s/conds.json", test_tdir);
    conds_program(path, 300);
    image_of = path;
    image im;
    make_image(&im); /* the program loads, its image is good */
    cr_assert_eq(head_of(&im)->sect[EXDB_IR_GRAPHS].count, 601);
    exdb_buf_free(&im.b);
    refused(nested_chain, "a chain of 600 nested subgraphs");
    image_of = FIXTURE;
}

Test(cache_ir, a_broken_image_of_subgraphs_is_refused) {
    static const struct {
        void (*edit)(image *);
        const char *what;
    } cases[] = {
        {subgraph_arg_names_main_node, "a subgraph's node naming a node of another graph"},
        {owner_not_get_attr, "an owner that is not a get_attr node"},
        {owner_in_its_own_graph, "an owner in its own graph (a cycle)"},
        {owner_in_a_later_graph, "an owner in a later graph"},
        {two_graphs_of_one_owner, "two subgraphs of one owner"},
        {graph_range_past_nodes, "a graph's nodes past the nodes"},
        {graph_of_no_node, "a graph of no node"},
        {name_table_of_wrong_size, "a name table of the wrong size"},
        {subgraph_name_slot_names_main_node, "a subgraph's name slot naming another graph's node"},
        {name_table_full, "a name table without an empty slot"},
        {subgraph_unnamed, "a subgraph without a name"},
        {main_graph_owned, "a main graph with an owner"},
    };
    image_of = HOP_FIXTURE;
    image im;
    make_image(&im);
    cr_assert_eq(head_of(&im)->sect[EXDB_IR_GRAPHS].count, 4, "the fixture's graphs changed");
    exdb_buf_free(&im.b);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        refused(cases[i].edit, cases[i].what);
    image_of = FIXTURE;
}

static void op_past_the_ops(char *img) { /* refused by the check */
    test_ir_node(img, 0)->op = 9;
}
static void placeholder_made_get_attr(char *img) { /* other counts than the entry's */
    test_ir_node(img, 0)->op = EXDB_OP_GET_ATTR;
}
static void one_name_slot_moved(char *img) { /* one name looked up misses */
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    exdb_cache_ir_slot *sl = (exdb_cache_ir_slot *)(img + ih->sect[EXDB_IR_NAMES].off);
    uint64_t i = 0, used = 0;
    for (; i < ih->sect[EXDB_IR_NAMES].count; i++)
        if (sl[i].key != EXDB_CACHE_NONE && sl[i].val != EXDB_CACHE_NONE && ++used == 3)
            break;
    cr_assert_lt(i, ih->sect[EXDB_IR_NAMES].count);
    sl[i].hi ^= 1;
}
/* A node whose name hash is not its name's, its slot where the name's
 * hash puts it: found under its name, but a later lookup under the hash
 * the node keeps misses (exdb_graph_ok fails: dce asserts it). fuzz_cache's
 * ir_name_hash_forged. */
static void name_hash_not_the_names(char *img) {
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    for (uint32_t i = 0; i < ih->sect[EXDB_IR_NODES].count; i++) {
        exdb_cache_ir_node *n = test_ir_node(img, i);
        if (n->hashed) {
            n->name_hash ^= 1;
            return;
        }
    }
    cr_assert_fail("no node keeps its name's hash");
}
static void name_slots_moved(char *img) { /* every name looked up misses */
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    exdb_cache_ir_slot *sl = (exdb_cache_ir_slot *)(img + ih->sect[EXDB_IR_NAMES].off);
    for (uint64_t i = 0; i < ih->sect[EXDB_IR_NAMES].count; i++)
        sl[i].hi ^= 0x5a5a;
}

/* path's IR entry broken by each of edits[0..n) in turn (its checksum
 * right) is not used: the build reads the file, answers as before, and
 * writes a good entry again. */
static void broken_entries_not_used(const char *path, void (*const *edits)(char *), size_t n) {
    exdb_cache_use(NULL);
    char *ref = answers(path, 0, NULL);
    exdb_cache_use(test_cache_dir);
    free(answers(path, 1, NULL));
    for (size_t i = 0; i < n; i++) {
        test_edit_ir_entry(test_cache_dir, edits[i]);
        int ir = -1;
        char *got = answers(path, 1, &ir);
        cr_assert_eq(ir, 0, "broken IR entry %zu was used", i);
        cr_assert_str_eq(got, ref);
        free(got);
        got = answers(path, 1, &ir);
        cr_assert_eq(ir, 1, "the IR entry was not written again (%zu)", i);
        cr_assert_str_eq(got, ref);
        free(got);
    }
    free(ref);
}

/* An img the check refuses, one whose graph has other counts than the
 * entry says, one whose name table finds no node. */
Test(cache_ir, a_broken_entry_is_not_used) {
    static void (*const edits[])(char *) = {op_past_the_ops, placeholder_made_get_attr,
                                            name_slots_moved, one_name_slot_moved,
                                            name_hash_not_the_names};
    broken_entries_not_used(FIXTURE, edits, sizeof edits / sizeof *edits);
}

static exdb_cache_ir_graph *img_graph(char *img, uint32_t k) {
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    cr_assert_lt(k, ih->sect[EXDB_IR_GRAPHS].count);
    return (exdb_cache_ir_graph *)(img + ih->sect[EXDB_IR_GRAPHS].off) + k;
}
static void owner_made_placeholder(char *img) { /* refused by the check */
    img_graph(img, 1)->owner = 0;
}
static void branch_owned_twice(char *img) { /* refused by the check */
    img_graph(img, 3)->owner = img_graph(img, 2)->owner;
}
static void subgraph_name_slot_moved(char *img) { /* a subgraph's name looked up misses */
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    exdb_cache_ir_slot *sl = (exdb_cache_ir_slot *)(img + ih->sect[EXDB_IR_NAMES].off);
    uint64_t i = img_graph(img, 2)->names, end = img_graph(img, 3)->names;
    for (; i < end; i++)
        if (sl[i].key != EXDB_CACHE_NONE && sl[i].val != EXDB_CACHE_NONE)
            break;
    cr_assert_lt(i, end);
    sl[i].hi ^= 1;
}

/* A meta whose extra keys are the empty range at the start of a section
 * without records (the check allows an empty range at a section's end):
 * the entry is used and answers alike. Its array put back is an address,
 * not NULL: clang's UBSan reports a zero offset from NULL (gcc's, this
 * build's, does not), which fuzz-smoke's clang build sees when it replays
 * tests/fuzz/regressions/cache/ir_empty_range_of_no_records.ir. */
static void extra_keys_empty_range_of_no_records(char *img) {
    exdb_cache_ir_head *ih = (exdb_cache_ir_head *)img;
    cr_assert_eq(ih->sect[EXDB_IR_KVS].count, 0, "the fixture's metadata has extra keys now");
    cr_assert_gt(ih->sect[EXDB_IR_METAS].count, 0);
    exdb_cache_ir_meta *m = (exdb_cache_ir_meta *)(img + ih->sect[EXDB_IR_METAS].off);
    m->extra = 0;
    m->nextra = 0;
}

Test(cache_ir, an_empty_range_of_a_section_without_records_is_put_back) {
    exdb_cache_use(NULL);
    char *ref = answers(FIXTURE, 0, NULL);
    exdb_cache_use(test_cache_dir);
    free(answers(FIXTURE, 1, NULL));
    test_edit_ir_entry(test_cache_dir, extra_keys_empty_range_of_no_records);
    int ir = 0;
    char *got = answers(FIXTURE, 1, &ir);
    cr_assert_eq(ir, 1, "the entry was not used");
    cr_assert_str_eq(got, ref);
    free(got);
    free(ref);
}

/* The format (a little-endian uint32 after the magic) of the entry file
 * at path. */
static uint32_t entry_format(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    unsigned char h[12];
    cr_assert_eq(fread(h, 1, sizeof h, f), sizeof h, "%s", path);
    fclose(f);
    return (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
}

/* The entries the fuzzers found bugs with are of the formats exdb writes:
 * one of an older format is refused at its head, so its replay no longer
 * reaches the code it once broke (the three IR cases were, from format 2
 * until they were made again). A format change makes them again. */
Test(cache_ir, fuzz_regression_entries_are_of_the_formats_written_now) {
    test_cache_empty();
    free(answers(FIXTURE, 1, NULL)); /* writes both entries */
    const char *ir = test_ir_entry(test_cache_dir);
    cr_assert_str_neq(ir, "");
    uint32_t ir_format = entry_format(ir);
    char shape[1100];
    snprintf(shape, sizeof shape, "%.*s.shape", (int)(strlen(ir) - 3), ir);
    uint32_t shape_format = entry_format(shape);
    const char *dir = "tests/fuzz/regressions/cache";
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        int is_ir = len > 3 && strcmp(e->d_name + len - 3, ".ir") == 0;
        int is_shape = len > 6 && strcmp(e->d_name + len - 6, ".shape") == 0;
        if (!is_ir && !is_shape)
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cr_expect_eq(entry_format(path), is_ir ? ir_format : shape_format,
                     "%s: format %u, exdb writes %u: make it again", path, entry_format(path),
                     is_ir ? ir_format : shape_format);
        seen++;
    }
    closedir(d);
    cr_assert_geq(seen, 4, "the regression entries moved");
}

/* The same for a program with subgraphs: an image whose graphs the check
 * refuses, one whose subgraph's name table finds no node. */
Test(cache_ir, a_broken_entry_of_subgraphs_is_not_used) {
    static void (*const edits[])(char *) = {owner_made_placeholder, branch_owned_twice,
                                            subgraph_name_slot_moved};
    with_subgraphs = 1;
    broken_entries_not_used(HOP_FIXTURE, edits, sizeof edits / sizeof *edits);
    with_subgraphs = 0;
}
