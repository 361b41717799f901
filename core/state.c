/* state.c - the state part of UnflattenedModule.__init__: parameters,
 * buffers and constants assigned with _assign_attr (on every call-name
 * variant of each path atom), then consts_map / inputs_to_state, which
 * _sink_params uses to turn placeholders into get_attr nodes.
 *
 * exdb has no tensors, so a state value's identity is its signature target:
 * aliasing that only the state_dict reveals (two names, one tensor; unused
 * aliases) is not seen.
 * TODO(unflatten): read model_weights_config.json (same path_name = same
 * tensor) to restore aliased/unused state as upstream does. */
#include <string.h>

#include "unflatten.h"

static int add_target(exdb_urun *r, const char *t, uint32_t *cap) {
    if (r->nconsts_targets == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 64;
        const char **nt = exdb_arena_alloc(&r->arena, ncap * sizeof *nt);
        if (!nt)
            return -1;
        if (r->nconsts_targets)
            memcpy(nt, r->consts_targets, r->nconsts_targets * sizeof *nt);
        r->consts_targets = nt;
        *cap = ncap;
    }
    r->consts_targets[r->nconsts_targets++] = t;
    return 0;
}

int exdb_ustate_assign(exdb_urun *r, exdb_error *err) {
    const exdb_program *p = r->prog;
    /* params, then buffers (graph_signature.parameters / .buffers order) */
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t i = 0; i < p->ninputs; i++) {
            const exdb_input_spec *s = &p->inputs[i];
            if (!s->target)
                continue;
            int rc = 0;
            if (pass == 0 && s->kind == EXDB_IN_PARAMETER)
                rc = exdb_umod_assign_state(r, r->root, s->target, EXDB_UATTR_PARAM, 1, s->target,
                                            err);
            else if (pass == 1 && s->kind == EXDB_IN_BUFFER)
                rc = exdb_umod_assign_state(r, r->root, s->target, EXDB_UATTR_BUFFER,
                                            s->persistent != 0, s->target, err);
            else if (pass == 2 &&
                     ((s->kind == EXDB_IN_BUFFER && s->persistent == 0) ||
                      s->kind == EXDB_IN_TENSOR_CONSTANT || s->kind == EXDB_IN_CUSTOM_OBJ))
                /* export_module.constants (non-persistent buffers are there too) */
                rc = exdb_umod_assign_state(r, r->root, s->target, EXDB_UATTR_CONST, 0, s->target,
                                            err);
            if (rc < 0)
                return -1;
        }
    }
    /* consts_map -> inputs_to_state: placeholder name -> [targets] */
    uint32_t cap = 0;
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *s = &p->inputs[i];
        if (!(s->kind == EXDB_IN_PARAMETER || s->kind == EXDB_IN_BUFFER ||
              s->kind == EXDB_IN_TENSOR_CONSTANT || s->kind == EXDB_IN_CUSTOM_OBJ))
            continue;
        if (!s->name || !s->target)
            return exdb_errorf(err,
                               "AssertionError: expected s.arg to have 'name' attribute "
                               "(input %u of kind %s)",
                               i, exdb_input_kind_name(s->kind));
        const char **targets = exdb_arena_alloc(&r->arena, 2 * sizeof *targets);
        void **slot = exdb_strmap_put(&r->inputs_to_state, s->name, NULL);
        if (!targets || !slot || add_target(r, s->target, &cap) < 0)
            return exdb_errorf(err, "out of memory");
        targets[0] = s->target;
        targets[1] = NULL;
        *slot = targets;
    }
    return 0;
}
