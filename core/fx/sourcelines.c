/* sourcelines.c - see sourcelines.h. */
#include "core/fx/sourcelines.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/strmap.h"

int32_t exdb_source_entry_of(const exdb_node *n, const char *fqn) {
    const exdb_meta *m = n->meta;
    for (uint32_t i = 0; m && i < m->nstack; i++)
        if (strcmp(m->stack[i].path ? m->stack[i].path : "", fqn) == 0)
            return (int32_t)i;
    return -1;
}

int exdb_source_call_site(const exdb_node *n, uint32_t entry, exdb_stack_frame *site) {
    const exdb_meta *m = n->meta;
    if (!m || !exdb_meta_stack_trace(m) || entry >= m->nstack || m->nstack > EXDB_MAX_FRAMES)
        return 0;
    exdb_stack_frame frames[EXDB_MAX_FRAMES];
    uint32_t nf = exdb_stack_frames(exdb_meta_stack_trace(m), frames, EXDB_MAX_FRAMES);
    if (nf > EXDB_MAX_FRAMES)
        nf = EXDB_MAX_FRAMES;
    int32_t sites[EXDB_MAX_FRAMES];
    exdb_stack_call_sites(m, frames, nf, sites);
    if (sites[entry] < 0)
        return 0;
    *site = frames[sites[entry]];
    return 1;
}

int exdb_source_line_in(const exdb_node *n, const char *fqn, exdb_stack_frame *f) {
    const exdb_meta *m = n->meta;
    if (!m || !exdb_meta_stack_trace(m))
        return 0;
    if (!fqn || !*fqn)
        return exdb_stack_innermost(exdb_meta_stack_trace(m), f);
    int32_t i = exdb_source_entry_of(n, fqn);
    if (i < 0)
        return 0;
    if ((uint32_t)i + 1 < m->nstack && exdb_source_call_site(n, (uint32_t)i + 1, f))
        return 1;
    return exdb_stack_innermost(exdb_meta_stack_trace(m), f);
}

/* Whether n is in module fqn (NULL or "": every node is). */
static int in_module(const exdb_node *n, const char *fqn) {
    return !fqn || !*fqn || exdb_source_entry_of(n, fqn) >= 0;
}

int exdb_source_lines_group(const exdb_graph *g, const char *fqn, exdb_source_lines *out) {
    memset(out, 0, sizeof *out);
    exdb_arena_init(&out->arena);
    exdb_strmap index;
    exdb_strmap_init(&index, &out->arena);
    uint32_t cap = 0, npairs = 0;
    uint32_t *group_of = malloc((g->count ? g->count : 1) * sizeof *group_of);
    const exdb_node **nodes = malloc((g->count ? g->count : 1) * sizeof *nodes);
    if (!group_of || !nodes)
        goto oom;
    for (const exdb_node *n = g->head; n; n = n->next) {
        if (!in_module(n, fqn))
            continue;
        out->nnodes++;
        exdb_stack_frame f;
        if (!exdb_source_line_in(n, fqn, &f)) {
            out->nuntraced++;
            continue;
        }
        char *key = exdb_arena_printf(&out->arena, "%u:%.*s", f.line, (int)f.file_len, f.file);
        int created;
        void **slot = key ? exdb_strmap_put(&index, key, &created) : NULL;
        if (!slot)
            goto oom;
        if (created) {
            if (out->ngroups == cap) {
                cap = cap ? cap * 2 : 16;
                exdb_source_group *ng = realloc(out->groups, cap * sizeof *ng);
                if (!ng)
                    goto oom;
                out->groups = ng;
            }
            memset(&out->groups[out->ngroups], 0, sizeof *out->groups);
            out->groups[out->ngroups].frame = f;
            *slot = (void *)(uintptr_t)++out->ngroups;
        }
        uint32_t gi = (uint32_t)(uintptr_t)*slot - 1;
        out->groups[gi].nnodes++;
        group_of[npairs] = gi;
        nodes[npairs++] = n;
    }
    for (uint32_t i = 0; i < out->ngroups; i++) {
        exdb_source_group *gr = &out->groups[i];
        gr->nodes = exdb_arena_alloc(&out->arena, gr->nnodes * sizeof *gr->nodes);
        if (!gr->nodes)
            goto oom;
        gr->nnodes = 0;
    }
    for (uint32_t i = 0; i < npairs; i++) {
        exdb_source_group *gr = &out->groups[group_of[i]];
        gr->nodes[gr->nnodes++] = nodes[i];
    }
    free(group_of);
    free(nodes);
    return 0;
oom:
    free(group_of);
    free(nodes);
    exdb_source_lines_free(out);
    return -1;
}

void exdb_source_lines_free(exdb_source_lines *l) {
    free(l->groups);
    l->groups = NULL;
    l->ngroups = 0;
    exdb_arena_destroy(&l->arena);
}

int32_t exdb_source_calls(const exdb_graph *g, const char *fqn, exdb_source_call **out) {
    exdb_source_call *calls = NULL;
    uint32_t n = 0, cap = 0;
    for (const exdb_node *nd = g->head; nd; nd = nd->next) {
        int32_t e = exdb_source_entry_of(nd, fqn);
        if (e < 0)
            continue;
        const exdb_stack_entry *se = &nd->meta->stack[e];
        uint32_t i = n;
        /* the calls of one module are few: the last one is nearly always it */
        while (i > 0 && strcmp(calls[i - 1].key, se->key ? se->key : "") != 0)
            i--;
        if (i > 0) {
            calls[i - 1].nnodes++;
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 4;
            exdb_source_call *nc = realloc(calls, cap * sizeof *nc);
            if (!nc) {
                free(calls);
                return -1;
            }
            calls = nc;
        }
        exdb_source_call *c = &calls[n++];
        memset(c, 0, sizeof *c);
        c->key = se->key ? se->key : "";
        c->call_idx = se->call_idx;
        c->first = nd;
        c->nnodes = 1;
        c->has_site = exdb_source_call_site(nd, (uint32_t)e, &c->site);
    }
    *out = calls;
    return (int32_t)n;
}
