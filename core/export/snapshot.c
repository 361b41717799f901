/* snapshot.c - see snapshot.h: what a loaded program keeps of its file. */
#include "core/export/snapshot.h"

#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "core/base/filemap.h"
#include "core/export/statefiles.h"
#include "core/format/container_save.h"
#include "core/base/strbuf.h"

/* XXH3's 64-bit hash from Debian's libxxhash (the reference
 * implementation): about twice XXH64's speed, and nothing outside the
 * process keeps the value. */
uint64_t exdb_hash64(const void *data, size_t len) {
    return XXH3_64bits(data, len);
}

/* ---- taking the snapshot */

int exdb_snapshot_read_member(exdb_container *c, const char *rel, exdb_arena *a,
                              exdb_snap_member *m, exdb_error *err) {
    memset(m, 0, sizeof *m);
    m->label = exdb_arena_printf(a, "%s: %s", exdb_container_path(c), rel);
    if (!m->label)
        return exdb_errorf(err, "%s: out of memory", exdb_container_path(c));
    char *buf = NULL;
    size_t len = 0;
    exdb_error e = {0};
    int rc = exdb_container_read_member(c, rel, EXDB_CONFIG_MAX, &buf, &len, &e);
    /* A member that cannot be read is part of the snapshot (run reports it
     * when it needs the member); memory running out is not the file's
     * doing: the load fails (libzip says "Malloc failure"). */
    if (rc < 0 && (exdb_error_oom(&e) || strstr(e.msg, "Malloc failure")))
        return exdb_errorf(err, "%s", e.msg);
    if (rc < 0)
        m->error = exdb_arena_strdup(a, e.msg);
    else if (rc == 0 && (m->bytes = exdb_arena_strndup(a, buf, len)))
        m->len = len;
    free(buf);
    if ((rc < 0 && !m->error) || (rc == 0 && !m->bytes))
        return exdb_errorf(err, "%s: out of memory", m->label);
    return 0;
}

/* path made absolute: the working directory joined to a relative one (the
 * path as it is when there is none). */
static const char *absolute(exdb_arena *a, const char *path) {
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return exdb_arena_strdup(a, path);
    return exdb_arena_printf(a, "%s/%s", cwd, path);
}

static pthread_mutex_t real_mu = PTHREAD_MUTEX_INITIALIZER;

const char *exdb_snapshot_abs_path(const exdb_snapshot *s) {
    exdb_snapshot *w = (exdb_snapshot *)s; /* an arena object: only real is filled in */
    pthread_mutex_lock(&real_mu);
    if (!w->real_taken) {
        if (!realpath(s->given, w->real))
            snprintf(w->real, PATH_MAX, "%s", s->given);
        w->real_taken = 1;
    }
    pthread_mutex_unlock(&real_mu);
    return s->real;
}

/* XXH3 of what save copies from a zip besides the program (0 for JSON). */
static int members_hash(exdb_container *c, uint64_t *out, exdb_error *err) {
    exdb_buf b;
    exdb_buf_init(&b);
    int rc = exdb_container_describe(c, &b, err);
    *out = rc == 0 && b.len ? exdb_hash64(b.s, b.len) : 0;
    exdb_buf_free(&b);
    return rc;
}

/* Fills s from the open container c (model: the one loaded, NULL when it
 * is the only one). */
static int take(exdb_arena *a, exdb_snapshot *s, exdb_container *c, const char *model,
                exdb_error *err) {
    const char *path = exdb_container_path(c);
    s->kind = (int)exdb_container_kind_of(c);
    s->model = model ? exdb_arena_strdup(a, model) : NULL;
    s->given = absolute(a, path); /* resolved when asked (exdb_snapshot_abs_path) */
    s->real = exdb_arena_alloc(a, PATH_MAX);
    if (!s->given || !s->real || (model && !s->model))
        return exdb_errorf(err, "%s: out of memory", path);
    exdb_container_identity(c, &s->dev, &s->ino);
    if (members_hash(c, &s->members_hash, err) < 0)
        return -1;
    if (s->kind != EXDB_CONT_PT2)
        return 0;
    const char *name = model ? model : exdb_container_model_name(c, 0);
    char rel[600];
    snprintf(rel, sizeof rel, "data/weights/%s_weights_config.json", name ? name : "model");
    if (exdb_snapshot_read_member(c, rel, a, &s->weights, err) < 0)
        return -1;
    snprintf(rel, sizeof rel, "data/constants/%s_constants_config.json", name ? name : "model");
    return exdb_snapshot_read_member(c, rel, a, &s->constants, err);
}

exdb_program *exdb_snapshot_load(exdb_container *c, const char *model, char *buf, size_t len,
                                 uint64_t hash, const char *label, int shape_first,
                                 exdb_error *err) {
    exdb_program *p = exdb_program_open_json(buf, len, label, shape_first, err);
    if (!p)
        return NULL;
    exdb_filemap_hash(p->buf, &hash); /* taken during the load (container.h _to_load) */
    if (exdb_snapshot_attach(p, c, model, hash, len, err) == 0)
        return p;
    exdb_program_free(p);
    return NULL;
}

int exdb_snapshot_attach(exdb_program *p, exdb_container *c, const char *model, uint64_t hash,
                         size_t len, exdb_error *err) {
    exdb_snapshot *s = exdb_arena_calloc(&p->arena, 1, sizeof *s);
    if (!s)
        return exdb_errorf(err, "%s: out of memory", exdb_container_path(c));
    s->program_hash = hash;
    s->program_len = len;
    if (take(&p->arena, s, c, model, err) < 0)
        return -1;
    p->snapshot = s;
    return 0;
}

/* ---- going back to the file (save) */

/* The reason in a container error "PATH: REASON" (PATH is the one it was
 * opened with), for a message that names the file once. */
static const char *reason(const exdb_error *e, const char *path) {
    size_t n = strlen(path);
    return strncmp(e->msg, path, n) == 0 && strncmp(e->msg + n, ": ", 2) == 0 ? e->msg + n + 2
                                                                              : e->msg;
}

/* Whether the open container c holds what s recorded: same kind, same
 * members (zips), the same program text. Reads the program into *buf. */
static int same_file(const exdb_snapshot *s, const exdb_program *p, exdb_container *c, char **buf,
                     size_t *len, exdb_error *err) {
    const char *why = "another kind of file";
    exdb_error e = {0};
    uint64_t members;
    if ((int)exdb_container_kind_of(c) == s->kind) {
        why = "its members differ";
        if (members_hash(c, &members, &e) < 0)
            why = reason(&e, exdb_snapshot_abs_path(s));
        else if (members == s->members_hash) {
            const char *model = exdb_container_model_count(c) > 1 ? p->model : NULL;
            why = "its program differs";
            uint64_t h; /* taken as the text is read (and its CRC checked) */
            if (exdb_container_read_program_hashed(c, model, buf, len, NULL, &h, &e) < 0)
                why = reason(&e, exdb_snapshot_abs_path(s));
            else if (*len == s->program_len && h == s->program_hash)
                return 0;
        }
    }
    exdb_mem_release(*buf);
    *buf = NULL;
    /* another file than the one loaded, reached by a path through a
     * symbolic link (resolved when asked): say the path loaded leads there
     * now (a link retargeted since), not only that this file changed */
    const char *abs = exdb_snapshot_abs_path(s);
    uint64_t dev, ino;
    exdb_container_identity(c, &dev, &ino);
    const char *moved = (dev != s->dev || ino != s->ino) && strcmp(abs, s->given) != 0
                            ? ", the path it was loaded by, leads to another file now"
                            : NULL;
    return exdb_errorf(err,
                       "%s: changed on disk since the program was loaded (%s%s%s%s): save "
                       "writes the program from that file and will not write it from other "
                       "content; load it again to save what it holds now",
                       abs, why, moved ? "; " : "", moved ? s->given : "", moved ? moved : "");
}

int exdb_snapshot_reopen(const exdb_program *p, exdb_container **c, char **buf, size_t *len,
                         exdb_error *err) {
    const exdb_snapshot *s = p->snapshot;
    *c = NULL;
    *buf = NULL;
    if (!s)
        return exdb_errorf(err,
                           "%s: the program was not loaded from a file: save has nothing to "
                           "write it from",
                           p->path ? p->path : "program");
    exdb_error e = {0};
    const char *abs = exdb_snapshot_abs_path(s);
    if (exdb_container_open(abs, c, &e) < 0)
        return exdb_errorf(err,
                           "%s: the file the program was loaded from cannot be read (%s): save "
                           "writes the program from that file; load it again from where it is "
                           "now to save it",
                           abs, reason(&e, abs));
    if (same_file(s, p, *c, buf, len, err) < 0) {
        exdb_container_close(*c);
        *c = NULL;
        return -1;
    }
    return 0;
}
