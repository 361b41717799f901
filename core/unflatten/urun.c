/* urun.c - the unflatten run's small helpers (see urun.h). */
#include "core/unflatten/urun.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"

char *exdb_urun_strdup(exdb_urun *r, const char *s) {
    return exdb_arena_strdup(&r->arena, s);
}

int exdb_urun_work_push(exdb_urun *r, exdb_uwork w) {
    if (r->nwork == r->work_cap) {
        exdb_uwork *nw = exdb_grow(r->work, &r->work_cap, sizeof *nw, 64);
        if (!nw)
            return -1;
        r->work = nw;
    }
    r->work[r->nwork++] = w;
    return 0;
}

int exdb_urun_work_seal(exdb_urun *r) {
    exdb_uwork *heap = r->work;
    exdb_uwork *w = r->nwork ? exdb_arena_alloc(&r->arena, r->nwork * sizeof *w) : NULL;
    int rc = 0;
    if (w)
        memcpy(w, heap, r->nwork * sizeof *w);
    else if (r->nwork) {
        r->nwork = 0;
        rc = -1;
    }
    free(heap);
    r->work = w;
    r->work_cap = r->nwork;
    return rc;
}

const char *exdb_urun_frame_name(const exdb_uframe *f) {
    return f->child_fqn[0] ? f->child_fqn : "<root>";
}

int exdb_urun_is_seen(const exdb_urun *r, const exdb_node *n) {
    return n->graph == r->flat && n->id < r->nseen_ids && r->seen[n->id];
}

/* seen_nodes[name], or NULL */
exdb_node *exdb_urun_seen_by_name(const exdb_urun *r, const char *name) {
    if (!name)
        return NULL;
    exdb_node *n = exdb_graph_find(r->flat, name);
    return n && exdb_urun_is_seen(r, n) ? n : NULL;
}
