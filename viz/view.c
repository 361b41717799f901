/* view.c - the view graph's storage and the text helpers views share. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "viz/view.h"

int vz_init(vz_graph *vg) {
    memset(vg, 0, sizeof *vg);
    exdb_arena_init(&vg->arena);
    exdb_strmap_init(&vg->names, &vg->arena);
    vz_cluster root = {.name = "exdb", .parent = 0};
    vg->clusters = malloc(16 * sizeof *vg->clusters);
    if (!vg->clusters)
        return -1;
    vg->cap_clusters = 16;
    vg->clusters[0] = root;
    vg->nclusters = 1;
    return 0;
}

void vz_free(vz_graph *vg) {
    free(vg->nodes);
    free(vg->edges);
    free(vg->clusters);
    exdb_arena_destroy(&vg->arena);
    memset(vg, 0, sizeof *vg);
}

/* Doubles *cap until n+1 items fit; arrays grow geometrically so adding is
 * amortised O(1), and big ones get huge pages (exdb_mem_grow: 141k nodes
 * are 15 MB). */
static int grow(void **arr, uint32_t n, uint32_t *cap, size_t size) {
    if (n < *cap)
        return 0;
    uint32_t nc = *cap ? *cap * 2 : 64;
    void *p = exdb_mem_grow(*arr, (size_t)n * size, (size_t)nc * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

/* Room for more items in one step: *cap becomes n + more when that is
 * larger (see vz_reserve). */
static int reserve(void **arr, uint32_t n, uint32_t *cap, uint32_t more, size_t size) {
    if (more > UINT32_MAX - n - 1)
        return -1;
    if (n + more <= *cap)
        return 0;
    void *p = exdb_mem_grow(*arr, (size_t)n * size, (size_t)(n + more) * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = n + more;
    return 0;
}

int vz_reserve(vz_graph *vg, uint32_t nodes, uint32_t edges) {
    if (reserve((void **)&vg->nodes, vg->nnodes, &vg->cap_nodes, nodes, sizeof *vg->nodes) < 0 ||
        reserve((void **)&vg->edges, vg->nedges, &vg->cap_edges, edges, sizeof *vg->edges) < 0) {
        vg->oom = 1;
        return -1;
    }
    return 0;
}

uint32_t vz_find(const vz_graph *vg, const char *name) {
    void *v = exdb_strmap_get(&vg->names, name);
    return v ? (uint32_t)((uintptr_t)v - 1) : VZ_NONE;
}

uint32_t vz_add_node(vz_graph *vg, const vz_node *n) {
    if (grow((void **)&vg->nodes, vg->nnodes, &vg->cap_nodes, sizeof *vg->nodes) < 0) {
        vg->oom = 1;
        return VZ_NONE;
    }
    int created = 0;
    void **slot = exdb_strmap_put(&vg->names, n->name, &created);
    if (!slot || !created) {
        vg->oom |= !slot;
        return VZ_NONE;
    }
    uint32_t i = vg->nnodes++;
    vg->nodes[i] = *n;
    vg->nodes[i].copy_of = VZ_NONE; /* emit.c marks the copies it makes */
    vg->nodes[i].ncopies = 0;
    *slot = (void *)(uintptr_t)(i + 1);
    return i;
}

uint32_t vz_add_edge(vz_graph *vg, const vz_edge *e) {
    if (grow((void **)&vg->edges, vg->nedges, &vg->cap_edges, sizeof *vg->edges) < 0) {
        vg->oom = 1;
        return VZ_NONE;
    }
    vg->edges[vg->nedges] = *e;
    return vg->nedges++;
}

const char *vz_unique_name(vz_graph *vg, const char *base) {
    if (!exdb_strmap_find(&vg->names, base))
        return base;
    for (unsigned k = 2;; k++) {
        char *s = exdb_arena_printf(&vg->arena, "%s~%u", base, k);
        if (!s) {
            vg->oom = 1;
            return base;
        }
        if (!exdb_strmap_find(&vg->names, s))
            return s;
    }
}

uint32_t vz_add_cluster(vz_graph *vg, const char *name, uint32_t parent) {
    if (grow((void **)&vg->clusters, vg->nclusters, &vg->cap_clusters, sizeof *vg->clusters) < 0) {
        vg->oom = 1;
        return VZ_NONE;
    }
    name = vz_unique_name(vg, name);
    void **slot = exdb_strmap_put(&vg->names, name, NULL);
    if (!slot) {
        vg->oom = 1;
        return VZ_NONE;
    }
    uint32_t i = vg->nclusters++;
    *slot = NULL; /* reserved; clusters are never looked up by name */
    vz_cluster c = {.name = name, .parent = parent};
    vg->clusters[i] = c;
    return i;
}

/* A buffer an append failed on holds cut-short text: the view fails. */
const char *vz_str(vz_graph *vg, const exdb_buf *b) {
    char *s = b->oom ? NULL : exdb_arena_strndup(&vg->arena, exdb_buf_str(b), b->len);
    if (!s)
        vg->oom = 1;
    return s ? s : "";
}

void vz_put_text(exdb_buf *b, const char *s, size_t max, int left) {
    if (!s)
        return;
    size_t n = 0;
    while (*s) {
        /* Copy the run of ordinary characters in one go. */
        size_t run = strcspn(s, "\\\n\r");
        if (max && n + run > max)
            run = max - n;
        exdb_buf_put(b, s, run);
        s += run;
        n += run;
        if (!*s)
            break;
        if (max && n >= max) {
            exdb_buf_puts(b, "...");
            return;
        }
        if (*s == '\\')
            exdb_buf_puts(b, s[1] ? "\\\\" : "\\\\ "); /* a final \ must not meet the quote */
        else if (*s == '\n')
            exdb_buf_puts(b, left ? "\\l" : "\\n");
        s++;
        n++;
    }
}

void vz_put_nl(exdb_buf *b) {
    exdb_buf_puts(b, "\\n");
}
