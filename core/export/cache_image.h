/* cache_image.h - the image part of a reopen cache entry (cache.h;
 * docs/json-reader.md, "Reopen cache"): the signature's specs and the
 * call graph's entries without a signature, as the shape read of the file
 * left them in the program (kinds, names, targets), stored as records and
 * one string table, and the rest of the program's JSON "slim": the main
 * graph's nodes and tensor_values, the specs and the graph's inputs and
 * outputs but those of a spec with a value (a constant), and those call
 * graph entries emptied. The slim text is read by the shape loader as the
 * file's text was, and the records put back where it left the arrays
 * empty, the specs it read in their places: at 1M nodes the specs and
 * entries are most of what the shape read reads (303k specs, 214k
 * entries), and records need no parse.
 *
 * Names: cache_image.c defines exdb_cache_image_*. */
#ifndef EXDB_CORE_EXPORT_CACHE_IMAGE_H
#define EXDB_CORE_EXPORT_CACHE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/strbuf.h"
#include "core/export/program.h"
#include "core/format/json_value.h"

typedef struct exdb_cache_image {
    exdb_buf json;  /* the slim program JSON */
    exdb_buf image; /* the records, then the strings */
    uint32_t ninputs, noutputs, ncalls;
} exdb_cache_image;

/* The image of program p (opened shape first, whose first pass gave root):
 * 0, or -1 when p is not one an image can hold (a repeated key on the way,
 * a kind out of range, memory): the entry then holds the text. */
int exdb_cache_image_make(const exdb_program *p, const exdb_json *root, exdb_cache_image *im);
void exdb_cache_image_free(exdb_cache_image *im);

/* Puts image[0..len) (ninputs, noutputs, ncalls records) back into p,
 * whose shape read of the slim text left its specs those with a value
 * and its calls those with a signature; its strings are used in place (image must
 * outlive what p holds of it). 0, -1 when the image is not one
 * exdb_cache_image_make could have made, -2 when memory ran out. */
int exdb_cache_image_install(exdb_program *p, const char *image, size_t len, uint32_t ninputs,
                             uint32_t noutputs, uint32_t ncalls);

#endif
