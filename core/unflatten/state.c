/* state.c - the state part of UnflattenedModule.__init__: parameters,
 * buffers and constants assigned with _assign_attr (on every call-name
 * variant of each path atom), aliased and unused state restored, then
 * consts_map / inputs_to_state, which _sink_params uses to turn
 * placeholders into get_attr nodes.
 *
 * exdb never has the tensors. Upstream tells tensors apart by _id (storage,
 * strides, sizes, offset); a pt2 archive records the same thing in its
 * payload configs: data/weights/<model>_weights_config.json (the state
 * dict: parameters and persistent buffers) and data/constants/
 * <model>_constants_config.json (tensor constants, non-persistent buffers,
 * custom objects) give each name a path_name (one storage blob) and a
 * tensor_meta. Names with the same path_name and layout are one tensor:
 * aliases (tied weights, `self.m.bias = self.bias`), and names missing from
 * the signature are the unused ones. Without an archive (bare program
 * JSON) or without a config, the signature is all there is: every target
 * is its own tensor and nothing is aliased or unused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format/json.h"
#include "core/export/statefiles.h"
#include "core/base/strbuf.h"
#include "core/unflatten/state.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/urun.h"

/* One state value: a state_dict entry or a constant. id numbers the
 * distinct tensors: equal ids mean one tensor (upstream's _id). The flags
 * are the sets upstream keeps by name (assigned_params/buffers,
 * consts_targets, added_params_buffers). */
typedef struct sval {
    const char *fqn;
    uint32_t id;
    uint8_t is_param, assigned, target, added;
} sval;

/* An ordered name -> value dict (ep.state_dict, ep.constants). */
typedef struct svals {
    sval *v;
    uint32_t n, cap;
    exdb_strmap by_fqn; /* fqn -> (uintptr_t)(index + 1) */
} svals;

typedef struct state_ctx {
    exdb_urun *r;
    exdb_strmap ids; /* config id text -> (uintptr_t)(id + 1) */
    uint32_t nids;
    svals sd, consts;
} state_ctx;

/* The number of a config id text, a new one the first time. -1: no memory. */
static long intern(state_ctx *c, const char *text) {
    void **slot = exdb_strmap_find(&c->ids, text);
    if (slot)
        return (long)((uintptr_t)*slot - 1);
    char *s = exdb_urun_strdup(c->r, text);
    slot = s ? exdb_strmap_put(&c->ids, s, NULL) : NULL;
    if (!slot)
        return -1;
    *slot = (void *)(uintptr_t)(c->nids + 1);
    return (long)c->nids++;
}

static int svals_add(state_ctx *c, svals *d, const char *fqn, uint32_t id, int is_param) {
    if (!d->by_fqn.a)
        exdb_strmap_init(&d->by_fqn, &c->r->arena);
    void **slot = exdb_strmap_put(&d->by_fqn, fqn, NULL);
    if (!slot)
        return -1;
    if (*slot) { /* a repeated key: the last one wins, in the first's place */
        d->v[(uintptr_t)*slot - 1] = (sval){fqn, id, (uint8_t)is_param, 0, 0, 0};
        return 0;
    }
    if (d->n == d->cap) {
        sval *nv = exdb_arena_grow(&c->r->arena, d->v, d->n, &d->cap, sizeof *nv, 64);
        if (!nv)
            return -1;
        d->v = nv;
    }
    d->v[d->n++] = (sval){fqn, id, (uint8_t)is_param, 0, 0, 0};
    *slot = (void *)(uintptr_t)d->n;
    return 0;
}

/* Room in d's index for n more names (the signature's targets: 300k at
 * 1M nodes, doubled up to 2^19 slots one name at a time). -1: no memory. */
static int svals_reserve(state_ctx *c, svals *d, uint32_t n) {
    if (!d->by_fqn.a)
        exdb_strmap_init(&d->by_fqn, &c->r->arena);
    return n > 6 ? exdb_strmap_reserve(&d->by_fqn, d->by_fqn.count + n) : 0;
}

static sval *svals_get(const svals *d, const char *fqn) {
    void *v = d->cap ? exdb_strmap_get(&d->by_fqn, fqn) : NULL;
    return v ? &d->v[(uintptr_t)v - 1] : NULL;
}

/* A canonical text of a JSON value (tensor_meta sizes, strides, offset). */
static void json_text(exdb_buf *b, const exdb_json *j) {
    if (!j) {
        exdb_buf_puts(b, "-");
        return;
    }
    switch (j->type) {
    case EXDB_JARRAY:
    case EXDB_JOBJECT:
        exdb_buf_putc(b, j->type == EXDB_JARRAY ? '[' : '{');
        for (uint32_t i = 0; i < j->len; i++) {
            if (j->type == EXDB_JOBJECT)
                exdb_buf_printf(b, "%s:", j->u.kids[i].key);
            json_text(b, &j->u.kids[i]);
            exdb_buf_putc(b, ',');
        }
        exdb_buf_putc(b, j->type == EXDB_JARRAY ? ']' : '}');
        break;
    case EXDB_JNUMBER: /* a number's text is not NUL-terminated */
    case EXDB_JSTRING:
        exdb_buf_put(b, j->u.str, j->len);
        break;
    default:
        exdb_buf_putc(b, (char)('0' + j->type));
    }
}

/* _id(tensor) from a config entry: the storage (path_name) plus the view
 * (_TensorID's stride, size, storage_offset). Custom objects have no
 * tensor_meta: the blob alone. */
static long config_id(state_ctx *c, const char *path_name, const exdb_json *tm) {
    exdb_buf b;
    exdb_buf_init(&b);
    exdb_buf_printf(&b, "%s|", path_name);
    if (exdb_json_is(tm, EXDB_JOBJECT)) {
        json_text(&b, exdb_json_get(tm, "sizes"));
        exdb_buf_putc(&b, '|');
        json_text(&b, exdb_json_get(tm, "strides"));
        exdb_buf_putc(&b, '|');
        json_text(&b, exdb_json_get(tm, "storage_offset"));
    }
    long id = b.oom ? -1 : intern(c, exdb_buf_str(&b));
    exdb_buf_free(&b);
    return id;
}

typedef struct config_ctx {
    state_ctx *c;
    svals *d;
} config_ctx;

/* Each "config" entry into d, in file order. */
static int add_config(void *vctx, const exdb_json *cfg, const char *label, exdb_error *err) {
    config_ctx *k = vctx;
    for (uint32_t i = 0; i < cfg->len; i++) {
        const exdb_json *e = &cfg->u.kids[i];
        const exdb_json *pn = exdb_json_get(e, "path_name");
        if (!exdb_json_is(pn, EXDB_JSTRING))
            return exdb_errorf(err, "%s: $.config.%s.path_name: expected a string", label, e->key);
        const char *fqn = exdb_urun_strdup(k->c->r, e->key);
        long id = config_id(k->c, pn->u.str, exdb_json_get(e, "tensor_meta"));
        if (!fqn || id < 0 ||
            svals_add(k->c, k->d, fqn, (uint32_t)id,
                      exdb_json_is(exdb_json_get(e, "is_param"), EXDB_JTRUE)) < 0)
            return exdb_errorf(err, "out of memory");
    }
    return 0;
}

/* Reads one payload config member into d, in file order. 0 read, 1 absent,
 * -1 error. */
static int read_config(state_ctx *c, const exdb_snap_member *m, svals *d, exdb_error *err) {
    config_ctx k = {c, d};
    return exdb_config_visit(m, add_config, &k, err);
}

static int in_state_dict(const exdb_input_spec *s) {
    return s->kind == EXDB_IN_PARAMETER || (s->kind == EXDB_IN_BUFFER && s->persistent != 0);
}

static int in_constants(const exdb_input_spec *s) {
    return (s->kind == EXDB_IN_BUFFER && s->persistent == 0) ||
           s->kind == EXDB_IN_TENSOR_CONSTANT || s->kind == EXDB_IN_CUSTOM_OBJ;
}

/* ep.state_dict and ep.constants: from the archive's configs when it has
 * them, else (and for what they lack) from the signature, each such target
 * its own tensor. */
static int load_state(state_ctx *c, exdb_error *err) {
    const exdb_program *p = c->r->prog;
    /* the configs as read at load time (snapshot.h): the archive may have
     * moved since, or be another file now */
    if (read_config(c, exdb_program_config(p, EXDB_CONFIG_WEIGHTS), &c->sd, err) < 0 ||
        read_config(c, exdb_program_config(p, EXDB_CONFIG_CONSTANTS), &c->consts, err) < 0)
        return -1;
    uint32_t nsd = 0, nconsts = 0;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        nsd += s->target && in_state_dict(s);
        nconsts += s->target && !in_state_dict(s) && in_constants(s);
    }
    if (svals_reserve(c, &c->sd, nsd) < 0 || svals_reserve(c, &c->consts, nconsts) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        if (!s->target)
            continue;
        svals *d = in_state_dict(s) ? &c->sd : in_constants(s) ? &c->consts : NULL;
        if (!d || svals_get(d, s->target))
            continue;
        if (svals_add(c, d, s->target, c->nids++, s->kind == EXDB_IN_PARAMETER) < 0)
            return exdb_errorf(err, "out of memory");
    }
    return 0;
}

/* One id_to_param / id_to_buffer / id_to_const map (objs, by id): the
 * object assigned for a tensor, made the first time (a fresh token: its
 * address is the object's identity). */
static const void *object_for(state_ctx *c, const void **objs, uint32_t id) {
    if (!objs[id])
        objs[id] = exdb_arena_alloc(&c->r->arena, 1);
    return objs[id];
}

/* The three assignment loops of UnflattenedModule.__init__: the used
 * parameters and buffers (graph_signature order), the aliased and unused
 * state_dict entries, then every constant. */
static int assign_all(state_ctx *c, exdb_error *err) {
    exdb_urun *r = c->r;
    const exdb_program *p = r->prog;
    size_t n = c->nids ? c->nids : 1;
    const void **id_to_param = exdb_arena_calloc(&r->arena, n, sizeof *id_to_param);
    const void **id_to_buffer = exdb_arena_calloc(&r->arena, n, sizeof *id_to_buffer);
    const void **id_to_const = exdb_arena_calloc(&r->arena, n, sizeof *id_to_const);
    if (!id_to_param || !id_to_buffer || !id_to_const)
        return exdb_errorf(err, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < p->ninputs; i++) {
            const exdb_input_spec *s = &p->inputs[i];
            int is_param = s->kind == EXDB_IN_PARAMETER;
            if (!s->target || pass != (is_param ? 0 : 1) ||
                (!is_param && s->kind != EXDB_IN_BUFFER))
                continue;
            /* parameters come from the state dict; buffers too unless
             * non-persistent (then from the constants) */
            sval *v = svals_get(s->persistent == 0 && !is_param ? &c->consts : &c->sd, s->target);
            const void *obj = object_for(c, is_param ? id_to_param : id_to_buffer, v->id);
            if (!obj)
                return exdb_errorf(err, "out of memory");
            v->assigned = 1;
            if (exdb_modtree_assign_state(r, r->root, s->target,
                                          is_param ? EXDB_UATTR_PARAM : EXDB_UATTR_BUFFER,
                                          is_param || s->persistent != 0, obj, err) < 0)
                return -1;
        }
    }
    /* restore aliased/unused params and buffers: in the state dict, not
     * in the signature */
    for (uint32_t i = 0; i < c->sd.n; i++) {
        const sval *v = &c->sd.v[i];
        if (v->assigned)
            continue;
        int is_buffer = id_to_buffer[v->id] || !v->is_param;
        const void *obj = object_for(c, is_buffer ? id_to_buffer : id_to_param, v->id);
        if (!obj)
            return exdb_errorf(err, "out of memory");
        if (exdb_modtree_assign_state(r, r->root, v->fqn,
                                      is_buffer ? EXDB_UATTR_BUFFER : EXDB_UATTR_PARAM, 1, obj,
                                      err) < 0)
            return -1;
    }
    /* every constant, aliased ones sharing one object */
    for (uint32_t i = 0; i < c->consts.n; i++) {
        const sval *v = &c->consts.v[i];
        const void *obj = object_for(c, id_to_const, v->id);
        if (!obj)
            return exdb_errorf(err, "out of memory");
        if (exdb_modtree_assign_state(r, r->root, v->fqn, EXDB_UATTR_CONST, 0, obj, err) < 0)
            return -1;
    }
    return 0;
}

/* consts_map: _id -> [(placeholder name, target)], in first-use order. */
typedef struct group {
    const char **phs, **targets;
    uint32_t n, cap;
} group;

typedef struct groups {
    group *g;
    uint32_t n, cap;
    uint32_t *by_id; /* id -> group index + 1 */
} groups;

static group *group_of(exdb_urun *r, groups *gs, uint32_t id, int create) {
    if (gs->by_id[id])
        return &gs->g[gs->by_id[id] - 1];
    if (!create)
        return NULL;
    if (gs->n == gs->cap) {
        group *ng = exdb_arena_grow(&r->arena, gs->g, gs->n, &gs->cap, sizeof *ng, 64);
        if (!ng)
            return NULL;
        gs->g = ng;
    }
    gs->g[gs->n] = (group){0};
    gs->by_id[id] = ++gs->n;
    return &gs->g[gs->n - 1];
}

static int group_add(exdb_urun *r, group *g, const char *ph, const char *target) {
    if (g->n == g->cap) {
        uint32_t ncap = g->cap ? g->cap * 2 : 2;
        const char **np = exdb_arena_alloc(&r->arena, ncap * sizeof *np);
        const char **nt = exdb_arena_alloc(&r->arena, (ncap + 1) * sizeof *nt);
        if (!np || !nt)
            return -1;
        if (g->n) {
            memcpy(np, g->phs, g->n * sizeof *np);
            memcpy(nt, g->targets, g->n * sizeof *nt);
        }
        g->phs = np;
        g->targets = nt;
        g->cap = ncap;
    }
    g->phs[g->n] = ph;
    g->targets[g->n++] = target;
    g->targets[g->n] = NULL; /* inputs_to_state values are NULL-ended */
    return 0;
}

/* consts_map, consts_targets and inputs_to_state: every placeholder of a
 * state value maps to all the names of that value (signature targets
 * first, then aliased constants, then aliased state_dict entries).
 * (Upstream's constants loop also adds a stale `s.target` to
 * added_params_buffers; that name is a signature target, already there.) */
static int build_inputs_to_state(state_ctx *c, exdb_error *err) {
    exdb_urun *r = c->r;
    const exdb_program *p = r->prog;
    groups gs = {0};
    gs.by_id = exdb_arena_calloc(&r->arena, c->nids ? c->nids : 1, sizeof *gs.by_id);
    r->consts_targets = exdb_arena_alloc(&r->arena, (p->ninputs ? p->ninputs : 1) * sizeof(char *));
    if (!gs.by_id || !r->consts_targets)
        return exdb_errorf(err, "out of memory");
    r->nconsts_targets = 0;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        int sd = in_state_dict(s);
        if (!sd && !in_constants(s))
            continue;
        if (!s->name || !s->target)
            return exdb_errorf(err,
                               "AssertionError: expected s.arg to have 'name' attribute "
                               "(input %u of kind %s)",
                               i, exdb_input_kind_name(s->kind));
        sval *v = svals_get(sd ? &c->sd : &c->consts, s->target);
        group *g = group_of(r, &gs, v->id, 1);
        if (!g || group_add(r, g, s->name, s->target) < 0)
            return exdb_errorf(err, "out of memory");
        if (!v->target)
            r->consts_targets[r->nconsts_targets++] = s->target;
        v->target = 1;
        v->added |= (uint8_t)sd;
    }
    /* constants aliased to a signature constant but not in the signature */
    for (uint32_t i = 0; i < c->consts.n; i++) {
        const sval *v = &c->consts.v[i];
        if (v->target)
            continue;
        group *g = group_of(r, &gs, v->id, 0);
        if (!g)
            return exdb_errorf(err,
                               "AssertionError: constant '%s' id not found in consts_map (a "
                               "constant of the archive no input of the graph uses)",
                               v->fqn);
        if (group_add(r, g, g->phs[0], v->fqn) < 0)
            return exdb_errorf(err, "out of memory");
    }
    /* state_dict entries aliased to a used one; completely unused ones are
     * ignored (they were assigned, but no placeholder refers to them) */
    for (uint32_t i = 0; i < c->sd.n; i++) {
        const sval *v = &c->sd.v[i];
        if (v->added)
            continue;
        group *g = group_of(r, &gs, v->id, 0);
        if (g && group_add(r, g, g->phs[0], v->fqn) < 0)
            return exdb_errorf(err, "out of memory");
    }
    /* the table sized once for its keys: grown one at a time it doubled up
     * to 2^19 slots at 1M nodes, hashing every name's text again from 2^16
     * on and leaving each old table in the run's arena */
    uint32_t nkeys = 0;
    for (uint32_t k = 0; k < gs.n; k++)
        nkeys += gs.g[k].n;
    if (nkeys > 6 && exdb_strmap_reserve(&r->inputs_to_state, r->inputs_to_state.count + nkeys) < 0)
        return exdb_errorf(err, "out of memory");
    for (uint32_t k = 0; k < gs.n; k++) {
        const group *g = &gs.g[k];
        for (uint32_t i = 0; i < g->n; i++) {
            void **slot = exdb_strmap_put(&r->inputs_to_state, g->phs[i], NULL);
            if (!slot)
                return exdb_errorf(err, "out of memory");
            *slot = g->targets;
        }
    }
    return 0;
}

/* The STATE event: _assign_attr of all state, then inputs_to_state. */
int exdb_state_assign(exdb_urun *r, exdb_error *err) {
    state_ctx c = {.r = r};
    exdb_strmap_init(&c.ids, &r->arena);
    if (load_state(&c, err) < 0 || assign_all(&c, err) < 0 || build_inputs_to_state(&c, err) < 0)
        return -1;
    return 0;
}
