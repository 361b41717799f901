/* groupby.c - items grouped by the module they belong to (groupby.h). */
#include "viz/groupby.h"

#include <stdlib.h>
#include <string.h>

uint32_t *vz_groupby_module(uint32_t nmods, uint32_t n, const void *items, size_t size,
                            uint32_t **first_out) {
    uint32_t *first = calloc((size_t)nmods + 1, sizeof *first);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    uint32_t *fill = malloc(((size_t)nmods + 1) * sizeof *fill);
    if (!first || !order || !fill) {
        free(first);
        free(order);
        free(fill);
        return NULL;
    }
    const char *p = items;
    for (uint32_t i = 0; i < n; i++)
        first[*(const uint32_t *)(p + i * size) + 1]++;
    for (uint32_t m = 0; m < nmods; m++)
        first[m + 1] += first[m];
    memcpy(fill, first, ((size_t)nmods + 1) * sizeof *fill);
    for (uint32_t i = 0; i < n; i++)
        order[fill[*(const uint32_t *)(p + i * size)]++] = i;
    free(fill);
    *first_out = first;
    return order;
}
