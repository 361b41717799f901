/* json_ahead.h - the lazy elements of a program (exdb_json_parse_lazy's
 * EXDB_JRAW: its nodes and tensor metadata) parsed in a second thread,
 * ahead of the loader that reads them in order, so that parsing one
 * element and building the IR of the one before run on both cores.
 *
 * Nothing changes for the reader: element i is parsed by the same
 * exdb_json_parse_raw into an arena of the parser's, and a syntax error in
 * it (or memory running out) is reported when the reader reaches element
 * i, with the message it gives when the reader parses it itself; elements
 * after an error are never parsed. Nobody writes into the text: the
 * elements' strings go to chunks of the string pool's arena that the
 * thread takes under the pool's lock. */
#ifndef EXDB_CORE_FORMAT_JSON_AHEAD_H
#define EXDB_CORE_FORMAT_JSON_AHEAD_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/format/json.h"
#include "core/format/json_value.h"

typedef struct exdb_json_ahead exdb_json_ahead;

/* Below this many lazy elements in all, exdb_json_ahead_start starts no
 * thread (a thread costs more than it saves on a small program, and the
 * fault-injection walk, which counts allocations in order, stays
 * single-threaded). */
enum { EXDB_JSON_AHEAD_MIN = 4096 };

/* Starts parsing the EXDB_JRAW elements of the containers tables[0..n)
 * (arrays or objects, read in that order), text being the buffer
 * exdb_json_parse_lazy parsed, strs the pool whose arena the strings go to
 * (its mu, held by h's pools around their chunk allocations, also held by
 * the caller's pools of that arena while h runs; NULL: the caller takes
 * none while h runs). min: the fewest elements worth a thread
 * (EXDB_JSON_AHEAD_MIN; tests pass 0). NULL when there is too little to
 * parse, memory or the thread cannot be had, or out-of-memory faults are
 * being injected: the caller parses the elements itself. */
exdb_json_ahead *exdb_json_ahead_start(const exdb_json *const *tables, int n, const char *text,
                                       const exdb_jstrings *strs, const char *fname, uint32_t min);
/* Whether e is an element of one of h's containers (h may be NULL). */
int exdb_json_ahead_owns(const exdb_json_ahead *h, const exdb_json *e);
/* Element e (exdb_json_ahead_owns), parsed, as exdb_json_parse_raw parses
 * it; NULL with *err set as exdb_json_parse_raw sets it. Elements are asked
 * for in order (each after the previous one, within a container and from
 * one container to the next); what is returned stays valid until the next
 * call. [*lo, *hi) holds its strings as exdb_json_parse_raw says. */
const exdb_json *exdb_json_ahead_get(exdb_json_ahead *h, const exdb_json *e, const char **lo,
                                     const char **hi, exdb_error *err);
/* Element e parsed, when it is in the batch of the element
 * exdb_json_ahead_get returned last, or in the next batch once that is
 * parsed, and parsed without error; else NULL.
 * For hints only (a loader prefetching what a later element will look
 * up): what it returns stays valid until the next exdb_json_ahead_get. */
const exdb_json *exdb_json_ahead_peek(const exdb_json_ahead *h, const exdb_json *e);
/* Stops the thread (it finishes the element at hand) and frees h; NULL is
 * a no-op. */
void exdb_json_ahead_stop(exdb_json_ahead *h);

#endif
