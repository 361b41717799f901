/* urun.c - the unflatten run's small helpers (see urun.h). */
#include "core/unflatten/urun.h"

#include <string.h>

char *exdb_urun_strdup(exdb_urun *r, const char *s) {
    return exdb_arena_strdup(&r->arena, s);
}

int exdb_urun_work_push(exdb_urun *r, exdb_uwork w) {
    if (r->nwork == r->work_cap) {
        exdb_uwork *nw =
            exdb_arena_grow(&r->arena, r->work, r->nwork, &r->work_cap, sizeof *nw, 64);
        if (!nw)
            return -1;
        r->work = nw;
    }
    EXDB_WILL_WRITE(&r->arena, r->work[r->nwork]);
    r->work[r->nwork++] = w;
    return 0;
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
