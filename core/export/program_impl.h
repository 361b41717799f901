/* program_impl.h - program.c's internals that program_cache.c (a program
 * opened from the reopen cache) shares: the load kept between a
 * shape-first open and its build, and the steps of both. Internal to
 * core/export.
 *
 * Names: program.c defines exdb_program_*, program_cache.c
 * exdb_program_cache_*. */
#ifndef EXDB_CORE_EXPORT_PROGRAM_IMPL_H
#define EXDB_CORE_EXPORT_PROGRAM_IMPL_H

#include <pthread.h>
#include <stddef.h>

#include "core/export/cache.h"
#include "core/export/load.h"
#include "core/export/load_shape.h"
#include "core/export/program.h"
#include "core/format/container.h"

/* What load_program writes into a program: the fields from schema_major
 * to nserialized_nodes (program.h keeps them together). A build that
 * fails puts the shape's back. */
#define LOADED_FROM offsetof(exdb_program, schema_major)
#define LOADED_TO   (offsetof(exdb_program, nserialized_nodes) + sizeof(uint32_t))
_Static_assert(offsetof(exdb_program, meta_defer) >= LOADED_TO &&
                   offsetof(exdb_program, graph) > LOADED_FROM &&
                   offsetof(exdb_program, gm_metadata) < LOADED_TO,
               "load_program's fields are contiguous");

/* A program's load between exdb_program_open_json and its build: the
 * loader and the DOM of the first pass (exdb_json_parse_lazy), kept so
 * that the build does not read the text again. */
struct exdb_program_pending {
    loader L;
    exdb_arena dom;
    exdb_json *root;
    int failed; /* the build refused the program: err says why */
    exdb_error err;
    /* a build in a thread of its own (exdb_program_build_start) */
    pthread_t thread;
    int running, result;
    int done[2]; /* the thread's end told through this pipe (program_thread.c); set while running */
    exdb_error terr;
    /* the program as opened (its shape), read while the thread runs
     * (exdb_program_shape_view): the build writes the program's fields */
    exdb_program view;
    char saved[LOADED_TO - LOADED_FROM]; /* the shape's, while a build runs */
    /* opened from the reopen cache (cache.h): the entry (its text is
     * p->buf until the build reads the file), the model asked for, the DOM
     * of the entry's text; cold until the build has read the file */
    exdb_cache_hit hit; /* hit.data NULL: not from the cache */
    const char *model;
    exdb_arena hit_dom;
    int cold;
};

/* A program of text buf[0..len) named name, and its load (*pdp: the
 * loader set up, the DOM's arena); NULL when memory ran out (buf
 * released). */
exdb_program *exdb_program_new(char *buf, size_t len, const char *name,
                               struct exdb_program_pending **pdp, exdb_error *err);
/* The first pass over a program's text (exdb_json_parse_lazy_hooked, the
 * main graph's nodes and tensor_values left lazy, hook told of each; hook
 * may be NULL). */
int exdb_program_first_pass(const char *buf, size_t len, exdb_arena *a, exdb_jstrings *strs,
                            const char *fname, const exdb_json_lazy_hook *hook, exdb_json **root,
                            exdb_error *err);
/* The shape read (load_program's parts but the graph, whose node counts
 * load_shape.c reads off the text, the first pass's tally or NULL) in a
 * loader of its own: 0, or -1 when it could not say. */
int exdb_program_read_shape(exdb_program *P, const exdb_json *root,
                            const exdb_load_shape_tally *tally, const char *fname,
                            exdb_error *serr);
/* The text read: its pages given back, and -1 with err saying so when the
 * file under a mapped text was truncated or rewritten meanwhile. */
int exdb_program_text_read(const char *buf, size_t len, const char *fname, exdb_error *err);
/* One build of p: 0 (pd is then to be freed), -1 refused (pd->failed,
 * the message kept), -2 out of memory. */
int exdb_program_attempt(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err);
/* Frees what the load kept (NULL: nothing). */
void exdb_program_pending_free(struct exdb_program_pending *pd);
/* The node count from which exdb_program_open opens shape first. */
uint32_t exdb_program_shape_min(void);
/* p's subgraphs indexed once all are in place: subgraph_names (the
 * main graph's, the last of a name winning) and subgraphs_by_owner, in
 * p's arena (the loader's and the IR image's install). 0, or -1 when
 * memory ran out. */
int exdb_program_index_subgraphs(exdb_program *p);
/* Messages name "FILE: MEMBER" for archives, the file alone otherwise
 * (malloc'd; NULL when memory ran out). */
char *exdb_program_label(const char *path, int kind, const char *member);

/* The program of path opened from the reopen cache (exdb_program_open),
 * with the snapshot of the open container c and its member in *member;
 * NULL when there is no entry to use. */
exdb_program *exdb_program_cache_open(exdb_container *c, const char *path, const char *model,
                                      const char **member);
/* The first step of the build of a program opened from the cache: its
 * file read and through the first pass (into pd's DOM, the text p's),
 * checked to be the entry's. 0, or -1 with the message in err. */
int exdb_program_cache_cold_pass(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err);
/* Its build from the IR entry (cache_ir.h) instead, when there is one to
 * trust: the file read and its XXH3 taken on the second core while the
 * image is checked and put back; 0 (built), 1 (no IR entry, or one not
 * to trust, then removed: build as before), -1 with the message in err
 * (memory, or the file changed). */
int exdb_program_cache_ir_open(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err);
/* Frees what an IR build kept of the shape entry (NULL: nothing). */
void exdb_program_cache_kept_free(struct exdb_cache_kept *k);
/* After a build from the text: the IR entry of p written (when a cache is
 * in use and p is one an image holds). */
void exdb_program_cache_ir_put(exdb_program *p, struct exdb_program_pending *pd);
/* The last step of its build: the counts of the graph built are the
 * entry's. 0, or -1 (the entry removed, the file taken as changed). */
int exdb_program_cache_check(exdb_program *p, struct exdb_program_pending *pd, exdb_error *err);

#endif
