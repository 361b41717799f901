/* statefiles.c - the state names an archive's payload configs provide:
 * data/weights/{model}_weights_config.json lists parameters and persistent
 * buffers (the state dict), data/constants/{model}_constants_config.json
 * tensor constants, non-persistent buffers and custom objects
 * (docs/pt2-format.md §1.2). Only the keys of "config" are read; weights never.
 * The members are those snapshot.c read when the program was loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format/json.h"
#include "core/export/siglint.h"
#include "core/export/statefiles.h"

int exdb_config_visit(const exdb_snap_member *m, exdb_config_fn fn, void *ctx, exdb_error *err) {
    if (m && m->error)
        return exdb_errorf(err, "%s", m->error);
    if (!m || !m->bytes)
        return 1;
    exdb_arena dom;
    exdb_arena_init(&dom);
    exdb_json *root;
    int rc = -1;
    if (exdb_json_parse(m->bytes, m->len, &dom, m->label, &root, err) == 0) {
        const exdb_json *cfg = exdb_json_get(root, "config");
        if (!exdb_json_is(cfg, EXDB_JOBJECT))
            exdb_errorf(err, "%s: $.config: expected an object, found %s", m->label,
                        exdb_json_type_name(cfg));
        else
            rc = fn(ctx, cfg, m->label, err);
    }
    exdb_arena_destroy(&dom);
    return rc;
}

const exdb_snap_member *exdb_program_config(const exdb_program *p, exdb_config_kind which) {
    const exdb_snapshot *s = p->snapshot;
    if (!s || p->container_kind != EXDB_CONT_PT2)
        return NULL;
    return which == EXDB_CONFIG_WEIGHTS ? &s->weights : &s->constants;
}

typedef struct keys_ctx {
    exdb_arena *a;
    const char *const **out, *const **storage;
    uint32_t *n;
} keys_ctx;

/* The keys of "config" and their path_names ("" when missing) into arena
 * strings. */
static int collect_keys(void *vctx, const exdb_json *cfg, const char *label, exdb_error *err) {
    keys_ctx *k = vctx;
    const char **names = exdb_arena_calloc(k->a, cfg->len ? cfg->len : 1, sizeof *names);
    const char **storage = exdb_arena_calloc(k->a, cfg->len ? cfg->len : 1, sizeof *storage);
    if (!names || !storage)
        return exdb_errorf(err, "%s: out of memory", label);
    for (uint32_t i = 0; i < cfg->len; i++) {
        const exdb_json *pn = exdb_json_get(&cfg->u.kids[i], "path_name");
        names[i] = exdb_arena_strdup(k->a, cfg->u.kids[i].key);
        storage[i] = exdb_arena_strdup(k->a, exdb_json_is(pn, EXDB_JSTRING) ? pn->u.str : "");
        if (!names[i] || !storage[i])
            return exdb_errorf(err, "%s: out of memory", label);
    }
    *k->out = names;
    *k->storage = storage;
    *k->n = cfg->len;
    return 0;
}

/* Reads the keys of one config member into names (arena strings) and their
 * storages. Returns 0 (found), 1 (absent) or -1. */
static int config_keys(const exdb_snap_member *m, exdb_arena *a, const char *const **out,
                       const char *const **storage, uint32_t *n, exdb_error *err) {
    keys_ctx k = {a, out, storage, n};
    return exdb_config_visit(m, collect_keys, &k, err);
}

int exdb_state_from_configs(const exdb_snap_member *weights, const exdb_snap_member *constants,
                            exdb_arena *a, exdb_lint_state *st, exdb_error *err) {
    memset(st, 0, sizeof *st);
    int r =
        config_keys(weights, a, &st->state_dict, &st->state_dict_storage, &st->nstate_dict, err);
    if (r < 0)
        return -1;
    st->have_state_dict = r == 0;
    r = config_keys(constants, a, &st->constants, &st->constants_storage, &st->nconstants, err);
    if (r < 0)
        return -1;
    st->have_constants = r == 0;
    return 0;
}

int exdb_state_from_program(const exdb_program *p, exdb_arena *a, exdb_lint_state *st,
                            exdb_error *err) {
    return exdb_state_from_configs(exdb_program_config(p, EXDB_CONFIG_WEIGHTS),
                                   exdb_program_config(p, EXDB_CONFIG_CONSTANTS), a, st, err);
}
