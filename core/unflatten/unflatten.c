/* unflatten.c - the unflatten pipeline as a steppable run (see unflatten.h):
 * the phase driver (UnflattenedModule.__init__ order), the event log,
 * forward/backward stepping, and the printers (info modules, print module,
 * backtrace, full dumps). */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/mem.h"
#include "core/fx/print.h"
#include "core/unflatten/unflatten.h"
#include "core/unflatten/phases.h"
#include "core/unflatten/attrs.h"
#include "core/unflatten/dedup.h"
#include "core/unflatten/dispatch.h"
#include "core/unflatten/ivals.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/udict.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/prepass.h"
#include "core/unflatten/rootlint.h"
#include "core/unflatten/sink.h"
#include "core/unflatten/state.h"
#include "core/unflatten/urun.h"

/* ---- small shared containers */

int exdb_unflatten_named_modules(const exdb_unflatten *u, exdb_umod_visit fn, void *ctx) {
    return exdb_modtree_named_modules(u->run, fn, ctx);
}

/* ---- runs */

static void run_free(exdb_urun *r) {
    if (!r)
        return;
    exdb_arena_destroy(&r->arena);
    free(r);
}

static exdb_urun *run_new(const exdb_program *p, exdb_error *err) {
    exdb_urun *r = calloc(1, sizeof *r);
    if (!r) {
        exdb_errorf(err, "out of memory");
        return NULL;
    }
    static uint64_t serials; /* exdb steps runs on one thread */
    exdb_arena_init(&r->arena);
    r->serial = ++serials;
    r->prog = p;
    exdb_strmap *maps[] = {
        &r->sigs,        &r->part_index, &r->seen_attrs_index, &r->created_modules,
        &r->ivals_index, &r->redirected, &r->inputs_to_state,  &r->removed_by_module};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        exdb_strmap_init(maps[i], &r->arena);
    /* the flat graph's copy is the run's first ~20% of memory (363 MB at
     * 1M nodes): populated beside it, as exdb_unflatten_run's events are */
    int helped = p->json_bytes >= EXDB_MEM_AHEAD_MIN && exdb_mem_ahead_start();
    int rc = exdb_prepass(r, err);
    if (helped)
        exdb_mem_ahead_stop();
    if (rc < 0) {
        run_free(r);
        return NULL;
    }
    r->no_entries = exdb_arena_calloc(&r->arena, 1, sizeof *r->no_entries);
    if (r->no_entries)
        exdb_udict_init(r, r->no_entries);
    r->root = !r->no_entries ? NULL : exdb_modtree_new(r, EXDB_UMOD_ROOT, r->root_type);
    if (!r->root) {
        exdb_errorf(err, "out of memory");
        run_free(r);
        return NULL;
    }
    r->phase = EXDB_UPH_OUTER_PLACEHOLDERS;
    return r;
}

static void ev_init(exdb_uevent *ev, int kind, const exdb_urun *r) {
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint8_t)kind;
    ev->depth = r->depth;
    ev->flat = -1;
    ev->frame = -1;
    ev->item = -1;
}

/* One event of the whole pipeline (the phase table, phases.h): 1, 0 when
 * complete, -1 on error. */
static int run_step(exdb_urun *r, exdb_uevent *ev, exdb_error *err) {
    if (r->init_error)
        return exdb_errorf(err, "%s", r->init_error);
    for (;;) {
        const exdb_phase *ph = exdb_phases_get(r->phase);
        assert(ph && ph->phase == r->phase);
        if (r->phase == EXDB_UPH_DONE)
            return 0;
        if (ph->step) {
            int rc = ph->step(r, ev, err);
            if (rc != 0)
                return rc;
            r->phase = ph->next;
            r->phase_started = 0;
            continue;
        }
        if (ph->once) {
            if (ph->once(r, err) < 0)
                return -1;
            ev_init(ev, ph->event, r);
            r->phase = ph->next;
            r->phase_started = 0;
            return 1;
        }
        if (!r->phase_started) { /* the work list, the first time the phase is stepped */
            r->nwork = r->work_pos = r->work_cap = 0;
            r->work = NULL;
            int rc = ph->plan(r, err);
            if (exdb_urun_work_seal(r) < 0 && rc == 0)
                rc = exdb_errorf(err, "out of memory");
            if (rc < 0)
                return -1;
            r->phase_started = 1;
        }
        if (r->work_pos >= r->nwork) {
            r->done_work[r->phase] = r->work; /* the arena keeps it: describe its events */
            r->done_nwork[r->phase] = r->nwork;
            r->phase = ph->next;
            r->phase_started = 0;
            continue;
        }
        int decision = 0;
        if (ph->apply(r, &r->work[r->work_pos], &decision, err) < 0)
            return -1;
        ev_init(ev, ph->event, r);
        ev->item = (int32_t)r->work_pos;
        ev->aux = decision;
        r->work_pos++;
        return 1;
    }
}

/* ---- the handle */

/* The run struct (all but its arena's bookkeeping) is compared at each
 * event's end; the arena is recorded store by store. */
static int attach_journal(exdb_unflatten *u, exdb_error *err) {
    exdb_urun *r = u->run;
    size_t off = offsetof(exdb_urun, prog);
    memset(&u->journal, 0, sizeof u->journal);
    if (exdb_journal_init(&u->journal, &r->arena, (char *)r + off, sizeof *r - off) < 0)
        return exdb_errorf(err, "out of memory");
    return 0;
}

exdb_unflatten *exdb_unflatten_new(const exdb_program *p, exdb_error *err) {
    exdb_unflatten *u = calloc(1, sizeof *u);
    if (!u) {
        exdb_errorf(err, "out of memory");
        return NULL;
    }
    u->prog = p;
    u->run = run_new(p, err);
    if (!u->run) {
        free(u);
        return NULL;
    }
    if (attach_journal(u, err) < 0) {
        run_free(u->run);
        free(u);
        return NULL;
    }
    u->recording = 1;
    return u;
}

void exdb_unflatten_mark_edited(exdb_unflatten *u) {
    u->edited = 1;
}

/* A fresh run from the flat graph at event 0, with an empty journal and
 * log: what goto does once the run was edited outside its events, since the
 * journal's records no longer describe the memory they would be swapped
 * into. The log is replayed (and so rebuilt) as goto steps forward. */
static int rebuild(exdb_unflatten *u, exdb_error *err) {
    exdb_urun *fresh = run_new(u->prog, err);
    if (!fresh)
        return -1;
    exdb_journal_free(&u->journal);
    run_free(u->run);
    u->run = fresh;
    u->pos = u->nlog = 0;
    u->failed = u->edited = 0;
    exdb_error_clear(&u->err);
    if (attach_journal(u, err) < 0) {
        u->recording = 0; /* the old rebuild-and-replay way still works */
        exdb_error_clear(err);
    }
    return 0;
}

int exdb_unflatten_set_recording(exdb_unflatten *u, int on) {
    if (u->pos || u->nlog || u->failed)
        return -1;
    u->recording = on != 0;
    exdb_journal_attach(&u->journal, on);
    return 0;
}

void exdb_unflatten_free(exdb_unflatten *u) {
    if (!u)
        return;
    exdb_journal_free(&u->journal);
    run_free(u->run);
    free(u->log);
    free(u);
}

static int log_event(exdb_unflatten *u, const exdb_uevent *ev) {
    if (u->nlog == u->log_cap) {
        exdb_uevent *nl = exdb_grow(u->log, &u->log_cap, sizeof *nl, 256);
        if (!nl)
            return -1;
        u->log = nl;
    }
    u->log[u->nlog++] = *ev;
    u->pos++;
    return 0;
}

/* The run stops at the event that failed: u->err says why (also into err). */
static int step_failed(exdb_unflatten *u, exdb_error *err) {
    if (!u->err.set)
        exdb_errorf(&u->err, "unflatten: failed");
    u->failed = 1;
    if (err)
        exdb_errorf(err, "%s", u->err.msg);
    return -1;
}

/* A step of a run that is not recorded (exdb_unflatten_set_recording). */
static int step_unrecorded(exdb_unflatten *u, exdb_uevent *e, exdb_uevent *ev, exdb_error *err) {
    int rc = run_step(u->run, e, &u->err);
    if (rc < 0) {
        return step_failed(u, err);
    }
    if (rc == 0)
        return 0;
    if (u->pos < u->nlog) {
        u->pos++;
    } else if (log_event(u, e) < 0) {
        exdb_errorf(err, "out of memory");
        return -1;
    }
    if (ev)
        *ev = *e;
    return 1;
}

int exdb_unflatten_step(exdb_unflatten *u, exdb_uevent *ev, exdb_error *err) {
    if (u->failed) {
        if (err && !err->set)
            exdb_errorf(err, "%s", u->err.msg);
        return -1;
    }
    if (u->pos < u->nlog && u->recording) { /* recorded: redo it */
        exdb_journal_goto(&u->journal, u->pos + 1);
        if (ev)
            *ev = u->log[u->pos];
        u->pos++;
        return 1;
    }
    exdb_uevent e;
    exdb_error_clear(&u->err);
    exdb_journal *j = u->recording ? &u->journal : NULL;
    if (!j) /* not recording: the old way */
        return step_unrecorded(u, &e, ev, err);
    exdb_journal_begin(j);
    uint8_t phase = u->run->phase;
    int rc = run_step(u->run, &e, &u->err);
    /* phases only move forward; frames are stacked while outlining (the
     * root frame stays), as deep as the event says; the end is the end */
    assert(u->run->phase >= phase && u->run->phase <= EXDB_UPH_DONE);
    assert(rc != 0 || u->run->phase == EXDB_UPH_DONE);
    assert(rc <= 0 || e.depth == u->run->depth);
    assert(u->run->depth <= u->run->nframes &&
           (u->run->depth <= 1 || u->run->phase <= EXDB_UPH_OUTER_OUTPUT));
    (void)phase; /* NDEBUG */
    if (rc > 0) {
        if (log_event(u, &e) < 0) {
            exdb_journal_fail(j);
            rc = -1;
            exdb_errorf(&u->err, "out of memory");
        } else if (exdb_journal_commit(j) < 0) {
            u->pos--;
            u->nlog--;
            rc = -1;
            exdb_errorf(&u->err, "out of memory recording the event for reverse stepping");
        }
    } else if (rc == 0) {
        /* the end: nothing changed, nothing to record */
        exdb_journal_fail(j);
        exdb_journal_goto(j, u->pos);
    } else {
        exdb_journal_fail(j); /* the state stays as the failure left it */
    }
    if (rc < 0) {
        return step_failed(u, err);
    }
    if (rc == 0)
        return 0;
    assert(u->pos == u->nlog && u->journal.pos == u->pos);
    if (ev)
        *ev = e;
    return 1;
}

int exdb_unflatten_run(exdb_unflatten *u, exdb_error *err) {
    int helped = u->prog->json_bytes >= EXDB_MEM_AHEAD_MIN && exdb_mem_ahead_start();
    int rc;
    while ((rc = exdb_unflatten_step(u, NULL, err)) == 1) {
    }
    if (helped)
        exdb_mem_ahead_stop();
    return rc;
}

int exdb_unflatten_done(const exdb_unflatten *u) {
    return u->run->phase == EXDB_UPH_DONE;
}

int exdb_unflatten_goto(exdb_unflatten *u, uint32_t k, exdb_error *err) {
    if (u->edited && k != u->pos && rebuild(u, err) < 0)
        return -1;
    if (!u->recording && (k < u->pos || u->failed)) { /* rebuild and replay */
        exdb_urun *fresh = run_new(u->prog, err);
        if (!fresh)
            return -1;
        exdb_journal_free(&u->journal); /* unused, but attached to the old run's arena */
        run_free(u->run);
        u->run = fresh;
        u->pos = 0;
        u->failed = 0;
        exdb_error_clear(&u->err);
    }
    if (u->recording && u->failed) { /* undo what the failed event did */
        exdb_journal_goto(&u->journal, u->pos);
        u->failed = 0;
        exdb_error_clear(&u->err);
    }
    uint32_t recorded = k < u->nlog ? k : u->nlog;
    if (u->recording && recorded != u->pos) {
        exdb_journal_goto(&u->journal, recorded);
        u->pos = recorded;
    }
    while (u->pos < k) {
        int rc = exdb_unflatten_step(u, NULL, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return exdb_errorf(err, "unflatten: there are only %u events", u->pos);
    }
    return 0;
}

/* Moves a recorded run whose log reaches the end there: 1, or 0 with
 * nothing moved. */
static int seek_end(exdb_unflatten *u) {
    if (!u->recording || u->failed || u->edited || u->pos >= u->nlog)
        return 0;
    uint32_t back = u->pos;
    exdb_journal_goto(&u->journal, u->nlog);
    u->pos = u->nlog;
    if (exdb_unflatten_done(u))
        return 1;
    exdb_journal_goto(&u->journal, back);
    u->pos = back;
    return 0;
}

exdb_unflatten *exdb_unflatten_finished(exdb_unflatten *run, const exdb_program *p,
                                        exdb_ufinished *h, exdb_error *err) {
    memset(h, 0, sizeof *h);
    if (run && !run->failed && exdb_unflatten_done(run))
        return run;
    if (run) {
        uint32_t back = run->pos;
        if (seek_end(run)) {
            h->moved = run;
            h->back = back;
            return run;
        }
    }
    exdb_unflatten *u = exdb_unflatten_new(p, err);
    if (u && exdb_unflatten_set_recording(u, 0) == 0 && exdb_unflatten_run(u, err) == 0)
        return h->fresh = u;
    exdb_unflatten_free(u);
    return NULL;
}

void exdb_unflatten_finished_end(exdb_ufinished *h) {
    if (h->moved) {
        exdb_journal_goto(&h->moved->journal, h->back);
        h->moved->pos = h->back;
    }
    exdb_unflatten_free(h->fresh);
    memset(h, 0, sizeof *h);
}

int exdb_unflatten_back(exdb_unflatten *u, uint32_t n, exdb_error *err) {
    return exdb_unflatten_goto(u, n > u->pos ? 0 : u->pos - n, err);
}

/* ---- inspection */

const char *exdb_unflatten_frame_type(const exdb_unflatten *u, const exdb_uframe *f) {
    if (f->type)
        return f->type;
    return !f->parent && u->run->root_type ? u->run->root_type : "";
}

uint32_t exdb_unflatten_depth(const exdb_unflatten *u) {
    return u->run->depth;
}

const exdb_uframe *exdb_unflatten_frame(const exdb_unflatten *u, uint32_t level) {
    return level < u->run->depth ? u->run->stack[level] : NULL;
}

exdb_umodule *exdb_unflatten_module(const exdb_unflatten *u, const char *fqn) {
    return exdb_modtree_get_path(u->run->root, fqn);
}

/* "n@K" names call K of the dispatcher at n (the way bt, render and dce
 * name its calls); a module really at that path wins. */
exdb_umodule *exdb_unflatten_dispatch_call(const exdb_unflatten *u, const char *name) {
    const char *at = strrchr(name, '@');
    if (!at || at[1] < '1' || at[1] > '9' || exdb_modtree_get_path(u->run->root, name))
        return NULL;
    char *end;
    unsigned long k = strtoul(at + 1, &end, 10);
    if (*end)
        return NULL;
    char base[EXDB_MAX_NAME_BYTES + 1];
    size_t n = (size_t)(at - name);
    if (n > EXDB_MAX_NAME_BYTES)
        return NULL;
    memcpy(base, name, n);
    base[n] = '\0';
    exdb_umodule *m = exdb_modtree_get_path(u->run->root, base);
    if (!m || m->kind != EXDB_UMOD_DISPATCH || k >= m->ncall_modules)
        return NULL;
    return m->call_modules[k];
}
