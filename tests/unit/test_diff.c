/* test_diff.c - program diff (core/export/diff.h) and the module diffs
 * after unflatten (core/unflatten/moddiff.h): a program against itself,
 * the two versions of tests/fixtures/diff (scripts/gen_diff_fixtures.py
 * says what v2 changes), names shifted by an inserted node, the resnet18
 * exports of torch 2.9 and 2.12, and `diff module` agreeing with every
 * DEDUP decision of the unflatten fixtures. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/diff.h"
#include "core/export/program.h"
#include "core/unflatten/moddiff.h"
#include "testutil.h"
#include "viz/render.h"
#include "core/unflatten/unflatten.h"

#define V1 "tests/fixtures/diff/v1.json"
#define V2 "tests/fixtures/diff/v2.json"

static exdb_program *load(const char *path) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    cr_assert_not_null(p, "%s: %s", path, err.msg);
    return p;
}

static exdb_unflatten *unflatten(const exdb_program *p) {
    exdb_error err = {0};
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    cr_assert_not_null(u, "%s", err.msg);
    cr_assert_eq(exdb_unflatten_run(u, &err), 0, "%s", err.msg);
    return u;
}

static const exdb_diff_pair *changed(const exdb_program_diff *d, const char *a) {
    for (uint32_t i = 0; i < d->nchanged; i++)
        if (strcmp(d->changed[i].a->name, a) == 0)
            return &d->changed[i];
    return NULL;
}

static int has_item(const exdb_program_diff *d, char change, const char *section, const char *key) {
    for (uint32_t i = 0; i < d->nitems; i++)
        if (d->items[i].change == change && strcmp(d->items[i].section, section) == 0 &&
            strcmp(d->items[i].key, key) == 0)
            return 1;
    return 0;
}

Test(diff, self_is_equal) {
    exdb_program *a = load("tests/fixtures/example.json"), *b = load("tests/fixtures/example.json");
    exdb_error err = {0};
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d, "%s", err.msg);
    cr_assert(exdb_diff_equal(d));
    cr_assert_eq(d->nmatched, a->graph->count);
    cr_assert_eq(d->nby_name, a->graph->count);
    cr_assert_eq(d->nrenamed + d->nchanged + d->nadded + d->nremoved + d->nops, 0);
    exdb_unflatten *ua = unflatten(a), *ub = unflatten(b);
    exdb_moddiff *md = exdb_moddiff_trees(ua, ub, d, &err);
    cr_assert_not_null(md);
    cr_assert_eq(md->n, 0);
    cr_assert_eq(md->a_modules, md->b_modules);
    exdb_moddiff_free(md);
    exdb_unflatten_free(ua);
    exdb_unflatten_free(ub);
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}

/* v2 inserts x * 2 first: A's mul (blk@1's y * 3) is B's mul_1, found by
 * structure though B has a node called mul; the rest as the generator says. */
Test(diff, versions) {
    exdb_program *a = load(V1), *b = load(V2);
    exdb_error err = {0};
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d, "%s", err.msg);
    cr_assert_not(exdb_diff_equal(d));
    cr_assert_eq(d->nremoved, 0);
    cr_assert_eq(d->nadded, 6);
    cr_assert_eq(d->nrenamed, 1);
    cr_assert_str_eq(d->renamed[0].a->name, "mul");
    cr_assert_str_eq(d->renamed[0].b->name, "mul_1");
    const exdb_diff_pair *p = changed(d, "relu");
    cr_assert_not_null(p);
    cr_assert_str_eq(p->b->name, "gelu");
    cr_assert_eq(p->what, EXDB_DIFF_TARGET | EXDB_DIFF_NAME);
    p = changed(d, "linear_5"); /* head: 16 -> 24 outputs, renamed by extra's linear */
    cr_assert_not_null(p);
    cr_assert_str_eq(p->b->name, "linear_6");
    cr_assert_eq(p->what, EXDB_DIFF_VALUE | EXDB_DIFF_NAME);
    p = changed(d, "p_head_weight");
    cr_assert_not_null(p);
    cr_assert_eq(p->what, EXDB_DIFF_VALUE);
    p = changed(d, "linear"); /* inp now reads mul (x * 2), not x */
    cr_assert_not_null(p);
    cr_assert_eq(p->what, EXDB_DIFF_ARGS);
    cr_assert(has_item(d, '+', "input", "parameter extra.weight"));
    cr_assert(has_item(d, '+', "input", "buffer steps"));
    cr_assert(has_item(d, '+', "call", "extra"));
    cr_assert_not(has_item(d, '~', "output", "user_output 0")); /* matched through the rename */

    exdb_unflatten *ua = unflatten(a), *ub = unflatten(b);
    exdb_moddiff *md = exdb_moddiff_trees(ua, ub, d, &err);
    cr_assert_not_null(md);
    int act = 0, extra = 0;
    for (uint32_t i = 0; i < md->n; i++) {
        const exdb_moddiff_item *it = &md->items[i];
        if (strcmp(it->fqn, "act") == 0) {
            act = 1;
            cr_assert_eq(it->change, '~');
            cr_assert_str_eq(it->a_type, "torch.nn.modules.activation.ReLU");
            cr_assert_str_eq(it->b_type, "torch.nn.modules.activation.GELU");
            cr_assert_eq(it->changed, 1);
        }
        if (strcmp(it->fqn, "extra") == 0) {
            extra = 1;
            cr_assert_eq(it->change, '+');
            cr_assert_eq(it->b_nodes, 5);
        }
        cr_assert(strcmp(it->fqn, "same") != 0, "same did not change");
    }
    cr_assert(act && extra);
    exdb_moddiff_free(md);
    exdb_unflatten_free(ua);
    exdb_unflatten_free(ub);
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}

/* The other way round the inserted mul is removed and mul_1 renamed back. */
Test(diff, versions_reversed) {
    exdb_program *a = load(V2), *b = load(V1);
    exdb_error err = {0};
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d);
    cr_assert_eq(d->nremoved, 6);
    cr_assert_eq(d->nadded, 0);
    cr_assert_eq(d->nrenamed, 1);
    cr_assert_str_eq(d->renamed[0].a->name, "mul_1");
    cr_assert_str_eq(d->renamed[0].b->name, "mul");
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}

/* torch 2.9's training IR against 2.12's core ATen: every conv2d is a
 * changed convolution in the same module call, nothing left unmatched but
 * linear (2.12 has addmm with the transposed weight as a new node). */
Test(diff, resnet18_versions) {
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/TheCBaH__pytorch.models.pt2__resnet18@209890a1__model.json",
             test_real_dir());
    snprintf(pb, sizeof pb, "%s/TheCBaH__pytorch.models.pt2__resnet18__model.json",
             test_real_dir());
    FILE *f = fopen(pa, "r");
    if (!f)
        cr_skip_test("no %s", pa);
    fclose(f);
    exdb_program *a = load(pa), *b = load(pb);
    exdb_error err = {0};
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d);
    uint32_t conv = 0;
    for (uint32_t i = 0; i < d->nchanged; i++)
        conv += strcmp(d->changed[i].a->target, "torch.ops.aten.conv2d.default") == 0 &&
                strcmp(d->changed[i].b->target, "torch.ops.aten.convolution.default") == 0;
    cr_assert_eq(conv, 20);
    cr_assert_eq(d->nremoved, 1);
    cr_assert_str_eq(d->removed[0]->name, "linear");
    cr_assert(has_item(d, '~', "program", "torch_version"));
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}

Test(diff, module_calls) {
    exdb_program *p = load(V1);
    exdb_unflatten *u = unflatten(p);
    exdb_error err = {0};
    exdb_modcalls *c = exdb_moddiff_calls(u, "blk", "blk@1", &err);
    cr_assert_not_null(c, "%s", err.msg);
    cr_assert_eq(c->first, 2);
    cr_assert_str_eq(c->nodes[0][2]->name, "add");
    cr_assert_str_eq(c->nodes[1][2]->name, "mul");
    cr_assert_null(c->merged_into);
    exdb_modcalls_free(c);
    c = exdb_moddiff_calls(u, "same", "same@1", &err);
    cr_assert_not_null(c, "%s", err.msg);
    cr_assert_eq(c->first, -1);
    cr_assert_str_eq(c->merged_into, "same");
    exdb_modcalls_free(c);
    cr_assert_null(exdb_moddiff_calls(u, "same", "nosuch", &err));
    cr_assert(strstr(err.msg, "nosuch"));
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

/* The name of call k of a partition entry, as unflatten names it. */
static void call_name(char *b, size_t n, const exdb_uentry *e) {
    if (e->call_idx)
        snprintf(b, n, "%s@%d", e->fqn, e->call_idx);
    else
        snprintf(b, n, "%s", e->fqn);
}

/* For every unflatten fixture: a call DEDUP kept (not redirected, its own
 * module object) is, by `diff module`, different from every earlier call of
 * its partition; a call it merged is equivalent to an earlier one. */
static void dedup_agrees(const char *path, uint32_t *checked) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load(path, NULL, &err);
    if (!p)
        return;
    exdb_unflatten *u = exdb_unflatten_new(p, &err);
    if (!u || exdb_unflatten_run(u, &err) < 0) {
        exdb_unflatten_free(u);
        exdb_program_free(p);
        return;
    }
    const exdb_urun *r = u->run;
    for (uint32_t k = 0; k < r->nparts; k++) {
        const exdb_upartition *part = &r->parts[k];
        for (uint32_t i = 1; i < part->n; i++) {
            char ni[512], ns[512];
            call_name(ni, sizeof ni, &part->entries[i]);
            int merged = 0, any_equal = 0;
            for (uint32_t s = 0; s < i; s++) {
                call_name(ns, sizeof ns, &part->entries[s]);
                exdb_modcalls *c = exdb_moddiff_calls(u, ns, ni, &err);
                if (!c)
                    continue;
                any_equal |= c->first < 0;
                merged |= c->merged_into != NULL || c->mod[0] == c->mod[1];
                exdb_modcalls_free(c);
            }
            cr_assert_eq(any_equal, merged, "%s: call %s: dedup %s, diff module says %s", path, ni,
                         merged ? "merged it" : "kept it", any_equal ? "equal" : "different");
            (*checked)++;
        }
    }
    exdb_unflatten_free(u);
    exdb_program_free(p);
}

Test(diff, module_calls_agree_with_dedup) {
    const char *dirs[] = {"tests/fixtures/unflatten", "tests/fixtures/diff"};
    uint32_t checked = 0;
    for (size_t k = 0; k < 2; k++) {
        DIR *d = opendir(dirs[k]);
        cr_assert_not_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (n < 5 ||
                (strcmp(de->d_name + n - 5, ".json") && strcmp(de->d_name + n - 4, ".pt2")))
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[k], de->d_name);
            dedup_agrees(path, &checked);
        }
        closedir(d);
    }
    cr_assert_geq(checked, 4, "only %u calls compared", checked);
}

/* render diff's DOT, v2 against v1: A's removed nodes drawn red and named
 * "removed:NAME" (an arena copy: the name outlives the view's scratch),
 * changed orange, B's nodes by their names. */
Test(diff, render_dot) {
    exdb_program *a = load(V2), *b = load(V1);
    exdb_error err = {0};
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d);
    exdb_viz_source src = {.prog = a, .diff = d};
    exdb_viz_view view = {.kind = EXDB_VIEW_DIFF};
    exdb_viz_settings set;
    exdb_viz_settings_default(&set);
    exdb_buf dot;
    exdb_buf_init(&dot);
    exdb_viz_stats st;
    cr_assert_eq(exdb_viz_dot(&src, &view, &set, &dot, &st, &err), 0, "%s", err.msg);
    const char *t = exdb_buf_str(&dot);
    cr_assert(strstr(t, "\"removed:p_extra_weight\""), "%s", t);
    cr_assert(strstr(t, "#fc9272"));     /* removed */
    cr_assert(strstr(t, "#fdae6b"));     /* changed */
    cr_assert_not(strstr(t, "#a1d99b")); /* nothing added */
    cr_assert_eq(st.real_nodes, b->graph->count + d->nremoved);
    exdb_buf_free(&dot);
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}

/* V1's text with each (from, to) replaced once, written to a scratch file
 * and loaded. */
static exdb_program *load_mutated(const char *tag, const char *const *pairs, int npairs) {
    FILE *f = fopen(V1, "rb");
    cr_assert_not_null(f);
    static char text[1 << 20], tmp[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (int i = 0; i < npairs; i++) {
        char *at = strstr(text, pairs[2 * i]);
        cr_assert_not_null(at, "%s not in %s", pairs[2 * i], V1);
        size_t la = strlen(pairs[2 * i]), lb = strlen(pairs[2 * i + 1]);
        cr_assert_lt(n - la + lb, sizeof text);
        snprintf(tmp, sizeof tmp, "%.*s%s%s", (int)(at - text), text, pairs[2 * i + 1], at + la);
        n = strlen(tmp);
        memcpy(text, tmp, n + 1);
    }
    char path[300];
    snprintf(path, sizeof path, "%s/%s.json", test_tdir, tag);
    f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    fclose(f);
    return load(path);
}

static const exdb_diff_item *item(const exdb_program_diff *d, const char *section, const char *key,
                                  const char *field) {
    for (uint32_t i = 0; i < d->nitems; i++)
        if (strcmp(d->items[i].section, section) == 0 && strcmp(d->items[i].key, key) == 0 &&
            d->items[i].field && strcmp(d->items[i].field, field) == 0)
            return &d->items[i];
    cr_assert_fail("no %s %s %s item", section, key, field);
    return NULL;
}

static void tmp_init(void) {
    test_tmpdir_make("diff");
}

static void tmp_fini(void) {
    test_tmpdir_remove();
}

#define LEAF "{\\\"type\\\": null, \\\"context\\\": null, \\\"children_spec\\\": []}"

/* The fields of the module call graph's signatures (inputs and outputs as
 * names or constant values, out_spec, forward_arg_names, a signature that
 * only one side preserved) and of the program (torch version, schema
 * version, range constraints with and without bounds), one item each. */
Test(diff, signature_and_program_fields, .init = tmp_init, .fini = tmp_fini) {
    const char *const ma[] = {
        "\"range_constraints\": {}",
        "\"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": 8}, \"s1\": {\"min_val\": "
        "0, \"max_val\": null}}",
    };
    const char *const mb[] = {
        "\"range_constraints\": {}",
        "\"range_constraints\": {\"s0\": {\"min_val\": null, \"max_val\": null}}",
        "\"forward_arg_names\": [\"x\"]",
        "\"forward_arg_names\": [\"y\"]",
        "\"signature\": {\"inputs\": [], \"outputs\": []",
        "\"signature\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}], \"outputs\": "
        "[{\"as_tensor\": {\"name\": \"linear_5\"}}, {\"as_int\": 3}]",
        "\"out_spec\": \"[1, " LEAF "]\"",
        "\"out_spec\": \"[1, {\\\"type\\\": \\\"builtins.tuple\\\", \\\"context\\\": \\\"null\\\", "
        "\\\"children_spec\\\": [" LEAF ", " LEAF "]}]\"",
        "{\"fqn\": \"inp\", \"signature\": null}",
        "{\"fqn\": \"inp\", \"signature\": {\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}], "
        "\"outputs\": [{\"as_tensor\": {\"name\": \"linear\"}}], \"in_spec\": \"[1, " LEAF
        "]\", \"out_spec\": \"[1, " LEAF "]\", \"forward_arg_names\": [\"input\"]}}",
        "\"torch_version\": \"2.13.0+cpu\"",
        "\"torch_version\": \"2.12.0+cpu\"",
        "\"schema_version\": {\"major\": 8, \"minor\": 20}",
        "\"schema_version\": {\"major\": 8, \"minor\": 19}",
    };
    exdb_program *a = load_mutated("a", ma, 1), *b = load_mutated("b", mb, 7);
    exdb_error err = {0};
    exdb_program_diff *d = exdb_diff_programs(a, b, &err);
    cr_assert_not_null(d, "%s", err.msg);
    cr_assert_not(exdb_diff_equal(d));
    cr_assert_eq(d->nmatched, a->graph->count);
    const exdb_diff_item *it = item(d, "program", "range_constraints", "range_constraints");
    cr_assert_str_eq(it->a, "s0: [2, 8], s1: [0, oo]");
    cr_assert_str_eq(it->b, "s0: [-oo, oo]");
    it = item(d, "program", "torch_version", "torch_version");
    cr_assert_str_eq(it->a, "2.13.0+cpu");
    cr_assert_str_eq(it->b, "2.12.0+cpu");
    it = item(d, "program", "schema", "schema");
    cr_assert_str_eq(it->a, "8.20");
    cr_assert_str_eq(it->b, "8.19");
    it = item(d, "call", "<root>", "inputs");
    cr_assert_str_eq(it->a, "()");
    cr_assert_str_eq(it->b, "(x)");
    it = item(d, "call", "<root>", "outputs");
    cr_assert_str_eq(it->b, "(linear_5, 3)");
    it = item(d, "call", "<root>", "forward_arg_names");
    cr_assert_str_eq(it->a, "(x)");
    cr_assert_str_eq(it->b, "(y)");
    it = item(d, "call", "<root>", "out_spec");
    cr_assert(strstr(it->b, "builtins.tuple"), "%s", it->b);
    it = item(d, "call", "inp", "signature");
    cr_assert_str_eq(it->a, "none");
    cr_assert_str_eq(it->b, "preserved");
    exdb_diff_free(d);
    /* the other way round: the same fields, the sides swapped */
    d = exdb_diff_programs(b, a, &err);
    cr_assert_not_null(d, "%s", err.msg);
    cr_assert_str_eq(item(d, "call", "inp", "signature")->a, "preserved");
    cr_assert_str_eq(item(d, "call", "<root>", "inputs")->a, "(x)");
    exdb_diff_free(d);
    exdb_program_free(a);
    exdb_program_free(b);
}
