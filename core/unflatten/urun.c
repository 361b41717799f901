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
