/* hide.c - what `render flat --hide` leaves out, and where the flat view
 * puts state nothing uses.
 *
 * The flat view of resnet50 was a 22,323 x 15,218 pt staircase: its 53
 * num_batches_tracked buffers (no users) sat in one row on the first rank
 * across the top, and its ~270 used parameters and buffers each on the
 * rank above their user, where dot pushed every block a little further
 * sideways. Each input is now drawn beside its first user, on its rank
 * (rank=same, the edge minlen=0), and unused state beside the node that
 * uses its module's other state: 5,209 x 15,166 pt; --hide state,dead
 * draws the 178 ops alone, 1,160 x 10,717 pt. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "viz/view.h"
#include "viz/hide.h"

static int is_getitem_of(const exdb_node *n) {
    return n->op == EXDB_OP_CALL_FUNCTION && n->target &&
           strcmp(n->target, "operator.getitem") == 0 && n->args.n >= 2 &&
           n->args.u.items[0].kind == EXDB_ARG_NODE && n->args.u.items[1].kind == EXDB_ARG_INT;
}

/* The hide bit an input of kind k falls under (0: never hidden as state). */
static unsigned state_bit(exdb_input_kind k) {
    switch (k) {
    case EXDB_IN_PARAMETER:
        return EXDB_VIZ_HIDE_PARAMS;
    case EXDB_IN_BUFFER:
        return EXDB_VIZ_HIDE_BUFFERS;
    case EXDB_IN_TENSOR_CONSTANT:
    case EXDB_IN_CONSTANT_INPUT:
        return EXDB_VIZ_HIDE_CONSTANTS;
    default:
        return 0;
    }
}

uint8_t *vz_hidden_nodes(const exdb_program *p, const exdb_strmap *inputs, unsigned hide,
                         uint32_t counts[VZ_HIDDEN_KINDS]) {
    const exdb_graph *g = p->graph;
    uint8_t *h = calloc((size_t)g->next_id + 1, 1);
    if (!h)
        return NULL;
    memset(counts, 0, VZ_HIDDEN_KINDS * sizeof *counts);
    for (const exdb_node *n = g->head; n; n = n->next) {
        uint8_t why = 0;
        if (n->op == EXDB_OP_PLACEHOLDER) {
            uintptr_t s = (uintptr_t)exdb_strmap_get(inputs, n->name);
            unsigned bit = s ? state_bit(p->inputs[s - 1].kind) : 0;
            if (bit & hide)
                why = bit == EXDB_VIZ_HIDE_PARAMS    ? VZ_HIDDEN_PARAM
                      : bit == EXDB_VIZ_HIDE_BUFFERS ? VZ_HIDDEN_BUFFER
                                                     : VZ_HIDDEN_CONSTANT;
        }
        if (!why && (hide & EXDB_VIZ_HIDE_DEAD) && !n->nusers && n->op != EXDB_OP_OUTPUT)
            why = VZ_HIDDEN_DEAD;
        if (!why && (hide & EXDB_VIZ_HIDE_GETITEMS) && is_getitem_of(n))
            why = VZ_HIDDEN_GETITEM;
        h[n->id] = why;
        if (why)
            counts[why]++;
    }
    return h;
}

const exdb_node *vz_getitem_source(const exdb_node *n, long long *index) {
    if (!is_getitem_of(n))
        return NULL;
    *index = (long long)n->args.u.items[1].u.i;
    return n->args.u.items[0].u.node;
}

void vz_hidden_title(exdb_buf *b, const uint32_t counts[VZ_HIDDEN_KINDS]) {
    static const char *const what[VZ_HIDDEN_KINDS][2] = {
        {"", ""},
        {"parameter", "parameters"},
        {"buffer", "buffers"},
        {"constant", "constants"},
        {"getitem (producers link to their users)", "getitems (producers link to their users)"},
        {"node nothing uses", "nodes nothing uses"}};
    int first = 1;
    for (int k = 1; k < VZ_HIDDEN_KINDS; k++) {
        if (!counts[k])
            continue;
        exdb_buf_printf(b, "%s%u %s", first ? "; hidden: " : ", ", counts[k],
                        what[k][counts[k] != 1]);
        first = 0;
    }
}

/* The module path owning a state target ("layer1.0.bn1" for
 * "layer1.0.bn1.num_batches_tracked"), in b; 0 when it has none. */
static int owner_of(exdb_buf *b, const char *target) {
    const char *dot = target ? strrchr(target, '.') : NULL;
    if (!dot)
        return 0;
    exdb_buf_reset(b);
    exdb_buf_put(b, target, (size_t)(dot - target));
    return 1;
}

int vz_place_unused_state(vz_graph *vg, const exdb_program *p, const uint32_t *vidx,
                          const uint32_t *pos) {
    exdb_strmap first; /* owner module path -> view node + 1 of its state's first user */
    exdb_strmap_init(&first, &vg->arena);
    exdb_buf b;
    exdb_buf_init(&b);
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *is = &p->inputs[i];
        const exdb_node *n = is->name ? exdb_graph_find(p->graph, is->name) : NULL;
        if (!n || !n->nusers || is->kind == EXDB_IN_USER_INPUT || !owner_of(&b, is->target))
            continue;
        const exdb_node *u = NULL;
        for (uint32_t k = 0; k < n->nusers; k++)
            if (vidx[n->users[k]->id] != VZ_NONE && (!u || pos[n->users[k]->id] < pos[u->id]))
                u = n->users[k];
        void **slot = u ? exdb_strmap_put(&first, exdb_buf_str(&b), NULL) : NULL;
        uint32_t at = slot && *slot ? (uint32_t)((uintptr_t)*slot - 1) : VZ_NONE;
        if (slot && (at == VZ_NONE || vg->nodes[vidx[u->id]].order < vg->nodes[at].order))
            *slot = (void *)(uintptr_t)(vidx[u->id] + 1);
    }
    for (uint32_t i = 0; i < p->ninputs; i++) {
        const exdb_input_spec *is = &p->inputs[i];
        const exdb_node *n = is->name ? exdb_graph_find(p->graph, is->name) : NULL;
        if (!n || n->nusers || vidx[n->id] == VZ_NONE || is->kind == EXDB_IN_USER_INPUT ||
            !owner_of(&b, is->target))
            continue;
        uintptr_t a = (uintptr_t)exdb_strmap_get(&first, exdb_buf_str(&b));
        if (a && vg->nodes[a - 1].cluster == vg->nodes[vidx[n->id]].cluster)
            vg->nodes[vidx[n->id]].rank_with = (uint32_t)a;
    }
    int oom = b.oom;
    exdb_buf_free(&b);
    return oom || vg->oom ? -1 : 0;
}

int vz_place_inputs(vz_graph *vg, const exdb_graph *g, const uint32_t *vidx, const uint32_t *pos) {
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (n->op != EXDB_OP_PLACEHOLDER || !n->nusers || n->nusers > VZ_BESIDE_MAX_USERS ||
            vidx[n->id] == VZ_NONE)
            continue;
        const exdb_node *f = NULL;
        for (uint32_t k = 0; k < n->nusers; k++)
            if (vidx[n->users[k]->id] != VZ_NONE && (!f || pos[n->users[k]->id] < pos[f->id]))
                f = n->users[k];
        if (f && vg->nodes[vidx[f->id]].cluster == vg->nodes[vidx[n->id]].cluster)
            vg->nodes[vidx[n->id]].rank_with = vidx[f->id] + 1;
    }
    return vg->oom ? -1 : 0;
}
