/* cache_image.c - see cache_image.h: the image part of a reopen cache
 * entry, made from a program opened shape first and put back into one
 * opened from the entry. */
#include "core/export/cache_image.h"

#include <string.h>

#include "core/base/arena.h"
#include "core/export/cache_format.h"
#include "core/export/save.h"

#define NONE EXDB_CACHE_NONE
typedef exdb_cache_in_rec in_rec;
typedef exdb_cache_out_rec out_rec;
typedef exdb_cache_call_rec call_rec;

static int arg_none(const exdb_arg *a) {
    return a->kind == EXDB_ARG_NONE && a->n == 0 && a->u.i == 0 && a->keys == NULL;
}

/* The one member of obj named key into *m: 1, 0 when absent, -1 when
 * repeated (or obj is no object). */
static int member(exdb_json *obj, const char *key, exdb_json **m) {
    *m = NULL;
    if (!exdb_json_is(obj, EXDB_JOBJECT))
        return -1;
    for (uint32_t i = 0; i < obj->len; i++) {
        if (strcmp(obj->u.kids[i].key, key) != 0)
            continue;
        if (*m)
            return -1;
        *m = &obj->u.kids[i];
    }
    return *m != NULL;
}

/* v (an object or array) given kids of its own, copies in a. */
static int own(exdb_arena *a, exdb_json *v) {
    exdb_json *kids = exdb_arena_alloc(a, (v->len ? v->len : 1) * sizeof *kids);
    if (!kids)
        return -1;
    if (v->len) /* an empty array's kids may be NULL */
        memcpy(kids, v->u.kids, v->len * sizeof *kids);
    v->u.kids = kids;
    return 0;
}

/* Keeps the elements i of the array v (given kids of its own, in a) whose
 * spec has a value (is_in: p's inputs, else its outputs); v has one
 * element per spec. */
static int keep_valued(exdb_arena *a, const exdb_program *p, int is_in, exdb_json *v) {
    uint32_t n = is_in ? p->ninputs : p->noutputs, k = 0;
    if (!exdb_json_is(v, EXDB_JARRAY) || v->len != n || own(a, v) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!arg_none(is_in ? &p->inputs[i].value : &p->outputs[i].value))
            v->u.kids[k++] = v->u.kids[i];
    v->len = k;
    return 0;
}

/* root made slim into *out (what changes copied into a): the specs and
 * the graph's inputs and outputs emptied but those of the specs with a
 * value, its nodes and tensor_values emptied, the call graph's entries
 * without a signature (p's) left out. */
static int slim(exdb_arena *a, const exdb_program *p, const exdb_json *root, exdb_json *out) {
    static const char *const graph_keys[] = {"inputs", "outputs", "nodes", "tensor_values"};
    exdb_json *gm, *sig, *g, *m, *ins, *outs;
    *out = *root;
    if (!exdb_json_is(root, EXDB_JOBJECT) || own(a, out) < 0 ||
        member(out, "graph_module", &gm) != 1 || own(a, gm) < 0 ||
        member(gm, "signature", &sig) != 1 || own(a, sig) < 0 || member(gm, "graph", &g) != 1 ||
        own(a, g) < 0 || member(sig, "input_specs", &ins) != 1 ||
        member(sig, "output_specs", &outs) != 1 || !exdb_json_is(ins, EXDB_JARRAY) ||
        !exdb_json_is(outs, EXDB_JARRAY) || keep_valued(a, p, 1, ins) < 0 ||
        keep_valued(a, p, 0, outs) < 0)
        return -1;
    for (int i = 0; i < 4; i++) {
        int r = member(g, graph_keys[i], &m);
        if (r < 0 || (r == 0 && i < 3) || (m && m->type != EXDB_JARRAY && m->type != EXDB_JOBJECT))
            return -1;
        if (i < 2 && keep_valued(a, p, i == 0, m) < 0)
            return -1;
        if (m && i >= 2)
            m->len = 0;
    }
    int r = member(gm, "module_call_graph", &m);
    if (r < 0)
        return -1;
    if (r == 0 || m->type != EXDB_JARRAY)
        return p->ncalls ? -1 : 0;
    if (m->len != p->ncalls || own(a, m) < 0)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].sig)
            m->u.kids[k++] = m->u.kids[i];
    m->len = k;
    return 0;
}

static uint32_t str_at(exdb_buf *strs, const char *s) {
    if (!s)
        return NONE;
    uint32_t at = (uint32_t)strs->len;
    exdb_buf_put(strs, s, strlen(s) + 1);
    return at;
}

/* The records of p's specs and calls into im->image, their strings into
 * strs. */
static void records(const exdb_program *p, exdb_cache_image *im, exdb_buf *strs) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        in_rec r = {(uint8_t)s->kind,
                    (int8_t)s->persistent,
                    {0},
                    str_at(strs, s->name),
                    str_at(strs, s->target),
                    str_at(strs, s->class_fqn),
                    arg_none(&s->value) ? NONE : k++};
        exdb_buf_put(&im->image, (const char *)&r, sizeof r);
    }
    k = 0;
    for (uint32_t i = 0; i < p->noutputs; i++) {
        const exdb_output_spec *s = &p->outputs[i];
        out_rec r = {(uint8_t)s->kind,
                     {0},
                     str_at(strs, s->name),
                     str_at(strs, s->target),
                     arg_none(&s->value) ? NONE : k++};
        exdb_buf_put(&im->image, (const char *)&r, sizeof r);
    }
    k = 0;
    for (uint32_t i = 0; i < p->ncalls; i++) {
        call_rec r = {str_at(strs, p->calls[i].fqn), p->calls[i].sig ? k++ : NONE};
        exdb_buf_put(&im->image, (const char *)&r, sizeof r);
    }
    exdb_buf_putc(strs, 0); /* the table ends with a NUL, even when empty */
}

int exdb_cache_image_make(const exdb_program *p, const exdb_json *root, exdb_cache_image *im) {
    memset(im, 0, sizeof *im);
    exdb_buf_init(&im->json);
    exdb_buf_init(&im->image);
    for (uint32_t i = 0; i < p->ninputs; i++)
        if (p->inputs[i].kind > EXDB_IN_CONSTANT_INPUT || p->inputs[i].persistent < -1 ||
            p->inputs[i].persistent > 1)
            return -1;
    for (uint32_t i = 0; i < p->noutputs; i++)
        if (p->outputs[i].kind > EXDB_OUT_PARAMETER_MUTATION)
            return -1;
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_json s;
    int rc = slim(&a, p, root, &s);
    if (rc == 0)
        exdb_json_dump(&im->json, &s);
    exdb_arena_destroy(&a);
    exdb_buf strs;
    exdb_buf_init(&strs);
    if (rc == 0)
        records(p, im, &strs);
    exdb_buf_put(&im->image, strs.s, strs.len);
    if (rc < 0 || im->json.oom || im->image.oom || strs.oom || strs.len >= NONE) {
        exdb_buf_free(&strs);
        exdb_cache_image_free(im);
        return -1;
    }
    exdb_buf_free(&strs);
    im->ninputs = p->ninputs;
    im->noutputs = p->noutputs;
    im->ncalls = p->ncalls;
    return 0;
}

void exdb_cache_image_free(exdb_cache_image *im) {
    exdb_buf_free(&im->json);
    exdb_buf_free(&im->image);
}

/* The string at offset o of the table strs[0..n) (which ends with a NUL)
 * into *out: 0, or -1 when o is past it; NONE: NULL, when may_be_null. */
static int str_of(uint32_t o, const char *strs, size_t n, int may_be_null, const char **out) {
    *out = o == NONE ? NULL : strs + o;
    return o == NONE ? (may_be_null ? 0 : -1) : o < n ? 0 : -1;
}

/* Whether a and b (either may be NULL) are the same string. */
static int same(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The specs: the records', and in their places those of the slim text
 * (p's, with their values: record json k, the k-th of them in order,
 * the same kind and strings). */
static int put_inputs(exdb_program *p, const char *q, uint32_t n, const char *strs, size_t slen) {
    exdb_input_spec *in = exdb_arena_calloc(&p->arena, n ? n : 1, sizeof *in);
    if (!in)
        return -2;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++, q += sizeof(in_rec)) {
        in_rec r;
        memcpy(&r, q, sizeof r);
        if (r.kind > EXDB_IN_CONSTANT_INPUT || r.persistent < -1 || r.persistent > 1 ||
            str_of(r.name, strs, slen, 1, &in[i].name) < 0 ||
            str_of(r.target, strs, slen, 1, &in[i].target) < 0 ||
            str_of(r.class_fqn, strs, slen, 1, &in[i].class_fqn) < 0)
            return -1;
        in[i].kind = (exdb_input_kind)r.kind;
        in[i].persistent = r.persistent;
        if (r.json == NONE)
            continue;
        const exdb_input_spec *t = k < p->ninputs ? &p->inputs[k] : NULL;
        if (r.json != k || !t || t->kind != in[i].kind || t->persistent != in[i].persistent ||
            !same(t->name, in[i].name) || !same(t->target, in[i].target) ||
            !same(t->class_fqn, in[i].class_fqn) || arg_none(&t->value))
            return -1;
        in[i] = *t;
        k++;
    }
    if (k != p->ninputs)
        return -1;
    p->inputs = in;
    p->ninputs = n;
    return 0;
}

static int put_outputs(exdb_program *p, const char *q, uint32_t n, const char *strs, size_t slen) {
    exdb_output_spec *out = exdb_arena_calloc(&p->arena, n ? n : 1, sizeof *out);
    if (!out)
        return -2;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++, q += sizeof(out_rec)) {
        out_rec r;
        memcpy(&r, q, sizeof r);
        if (r.kind > EXDB_OUT_PARAMETER_MUTATION ||
            str_of(r.name, strs, slen, 1, &out[i].name) < 0 ||
            str_of(r.target, strs, slen, 1, &out[i].target) < 0)
            return -1;
        out[i].kind = (exdb_output_kind)r.kind;
        if (r.json == NONE)
            continue;
        const exdb_output_spec *t = k < p->noutputs ? &p->outputs[k] : NULL;
        if (r.json != k || !t || t->kind != out[i].kind || !same(t->name, out[i].name) ||
            !same(t->target, out[i].target) || arg_none(&t->value))
            return -1;
        out[i] = *t;
        k++;
    }
    if (k != p->noutputs)
        return -1;
    p->outputs = out;
    p->noutputs = n;
    return 0;
}

/* The call graph's entries: those of the slim text (p's, with their
 * signatures) in their places among the records'. */
static int put_calls(exdb_program *p, const char *q, uint32_t n, const char *strs, size_t slen) {
    exdb_module_call *calls = exdb_arena_calloc(&p->arena, n ? n : 1, sizeof *calls);
    if (!calls)
        return -2;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++, q += sizeof(call_rec)) {
        call_rec r;
        memcpy(&r, q, sizeof r);
        if (str_of(r.fqn, strs, slen, 0, &calls[i].fqn) < 0)
            return -1;
        if (r.json == NONE)
            continue;
        if (r.json != k || k >= p->ncalls || strcmp(p->calls[k].fqn, calls[i].fqn) != 0)
            return -1;
        calls[i] = p->calls[k++];
    }
    if (k != p->ncalls)
        return -1;
    p->calls = calls;
    p->ncalls = n;
    return 0;
}

int exdb_cache_image_install(exdb_program *p, const char *image, size_t len, uint32_t ninputs,
                             uint32_t noutputs, uint32_t ncalls) {
    uint64_t recs = (uint64_t)ninputs * sizeof(in_rec) + (uint64_t)noutputs * sizeof(out_rec) +
                    (uint64_t)ncalls * sizeof(call_rec);
    if (recs >= len || image[len - 1] != 0)
        return -1;
    const char *strs = image + recs;
    size_t slen = len - (size_t)recs;
    const char *q = image;
    int rc = put_inputs(p, q, ninputs, strs, slen);
    q += (size_t)ninputs * sizeof(in_rec);
    if (rc == 0)
        rc = put_outputs(p, q, noutputs, strs, slen);
    q += (size_t)noutputs * sizeof(out_rec);
    return rc == 0 ? put_calls(p, q, ncalls, strs, slen) : rc;
}
