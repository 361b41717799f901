/* statefiles.c - the state names an archive's payload configs provide:
 * data/weights/{model}_weights_config.json lists parameters and persistent
 * buffers (the state dict), data/constants/{model}_constants_config.json
 * tensor constants, non-persistent buffers and custom objects
 * (pt2-format.md §1.2). Only the keys of "config" are read; weights never. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "json.h"
#include "lint.h"
#include "statefiles.h"

#define CONFIG_MAX ((size_t)256 << 20)

int exdb_config_visit(exdb_container *c, const char *rel, exdb_config_fn fn, void *ctx,
                      exdb_error *err) {
    char *buf;
    size_t len;
    int rc = exdb_container_read_member(c, rel, CONFIG_MAX, &buf, &len, err);
    if (rc != 0)
        return rc;
    exdb_arena dom;
    exdb_arena_init(&dom);
    exdb_json *root;
    char label[600];
    snprintf(label, sizeof label, "%s: %s", exdb_container_path(c), rel);
    rc = -1;
    if (exdb_json_parse(buf, len, &dom, label, &root, err) == 0) {
        const exdb_json *cfg = exdb_json_get(root, "config");
        if (!exdb_json_is(cfg, EXDB_JOBJECT))
            exdb_errorf(err, "%s: $.config: expected an object, found %s", label,
                        exdb_json_type_name(cfg));
        else
            rc = fn(ctx, cfg, label, err);
    }
    exdb_arena_destroy(&dom);
    free(buf);
    return rc;
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
static int config_keys(exdb_container *c, const char *rel, exdb_arena *a, const char *const **out,
                       const char *const **storage, uint32_t *n, exdb_error *err) {
    keys_ctx k = {a, out, storage, n};
    return exdb_config_visit(c, rel, collect_keys, &k, err);
}

int exdb_state_from_archive(const char *path, const char *model, exdb_arena *a, exdb_lint_state *st,
                            exdb_error *err) {
    memset(st, 0, sizeof *st);
    exdb_container *c;
    if (exdb_container_open(path, &c, err) < 0)
        return -1;
    int rc = 0;
    if (exdb_container_kind_of(c) == EXDB_CONT_PT2) {
        char rel[512];
        snprintf(rel, sizeof rel, "data/weights/%s_weights_config.json", model);
        int r =
            config_keys(c, rel, a, &st->state_dict, &st->state_dict_storage, &st->nstate_dict, err);
        if (r < 0)
            rc = -1;
        st->have_state_dict = r == 0;
        snprintf(rel, sizeof rel, "data/constants/%s_constants_config.json", model);
        r = rc ? 1
               : config_keys(c, rel, a, &st->constants, &st->constants_storage, &st->nconstants,
                             err);
        if (r < 0)
            rc = -1;
        st->have_constants = r == 0;
    }
    exdb_container_close(c);
    return rc;
}
