/* groupby.h - items grouped by the module they belong to, for the pages
 * that list each module's nodes and edges (tree_data.c, graph_data.c). */
#ifndef EXDB_VIZ_GROUPBY_H
#define EXDB_VIZ_GROUPBY_H

#include <stddef.h>
#include <stdint.h>

/* items is an array of n structs of `size` bytes, each starting with the
 * uint32_t index (< nmods) of its module. Returns the item indexes grouped
 * by module, in their order within each (a counting sort), and sets
 * *first_out to nmods + 1 offsets: module m's items are
 * order[first[m]..first[m+1]). Both are malloc'ed; NULL on out of memory
 * (*first_out untouched). */
uint32_t *vz_groupby_module(uint32_t nmods, uint32_t n, const void *items, size_t size,
                            uint32_t **first_out);

#endif
