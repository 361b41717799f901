/* urun.c - the unflatten run's small helpers (see urun.h). */
#include "core/unflatten/urun.h"

#include <string.h>

char *exdb_urun_strdup(exdb_urun *r, const char *s) {
    return exdb_arena_strdup(&r->arena, s);
}

int exdb_urun_work_push(exdb_urun *r, exdb_uwork w) {
    if (r->nwork == r->work_cap) {
        uint32_t ncap = r->work_cap ? r->work_cap * 2 : 64;
        exdb_uwork *nw = exdb_arena_alloc(&r->arena, ncap * sizeof *nw);
        if (!nw)
            return -1;
        if (r->nwork)
            memcpy(nw, r->work, r->nwork * sizeof *nw);
        r->work = nw;
        r->work_cap = ncap;
    }
    EXDB_WILL_WRITE(&r->arena, r->work[r->nwork]);
    r->work[r->nwork++] = w;
    return 0;
}
