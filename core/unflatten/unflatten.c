/* unflatten.c - the unflatten pipeline as a steppable run (see unflatten.h):
 * the phase driver (UnflattenedModule.__init__ order), the event log,
 * forward/backward stepping, and the printers (info modules, print module,
 * backtrace, full dumps). */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fx/print.h"
#include "core/unflatten/unflatten.h"

/* ---- small shared containers */

int exdb_ustrset_has(const exdb_ustrset *s, const char *item) {
    return s && exdb_strmap_get(&s->index, item) != NULL;
}

int exdb_ustrset_add(exdb_urun *r, exdb_ustrset *s, const char *item) {
    int created;
    void **slot = exdb_strmap_put(&s->index, item, &created);
    if (!slot)
        return -1;
    if (*slot)
        return 0;
    exdb_arena *a = &r->arena;
    exdb_arena_will_write(a, &s->items, sizeof s->items + sizeof s->n + sizeof s->cap);
    if (s->n == s->cap) {
        uint32_t ncap = s->cap ? s->cap * 2 : 4;
        const char **ni = exdb_arena_alloc(&r->arena, ncap * sizeof *ni);
        if (!ni)
            return -1;
        if (s->n)
            memcpy(ni, s->items, s->n * sizeof *ni);
        s->items = ni;
        s->cap = ncap;
    }
    EXDB_WILL_WRITE(a, s->items[s->n]);
    s->items[s->n++] = item;
    *slot = (void *)1;
    return 0;
}

/* A defaultdict(set) keyed by string, in first-use order. */
exdb_ustrset *exdb_ustrset_get(exdb_urun *r, exdb_ustrset ***arr, uint32_t *n, uint32_t *cap,
                               exdb_strmap *index, const char *key, int create) {
    void **slot = create ? exdb_strmap_put(index, key, NULL) : exdb_strmap_find(index, key);
    if (!slot)
        return NULL;
    if (*slot)
        return *slot;
    exdb_ustrset *s = exdb_arena_calloc(&r->arena, 1, sizeof *s);
    if (!s)
        return NULL;
    s->key = key;
    exdb_strmap_init(&s->index, &r->arena);
    if (*n == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 8;
        exdb_ustrset **na = exdb_arena_alloc(&r->arena, ncap * sizeof *na);
        if (!na)
            return NULL;
        if (*n)
            memcpy(na, *arr, *n * sizeof *na);
        EXDB_WILL_WRITE(&r->arena, *arr);
        EXDB_WILL_WRITE(&r->arena, *cap);
        *arr = na;
        *cap = ncap;
    }
    EXDB_WILL_WRITE(&r->arena, (*arr)[*n]);
    EXDB_WILL_WRITE(&r->arena, *n);
    (*arr)[(*n)++] = s;
    *slot = s;
    return s;
}

int exdb_uwork_push(exdb_urun *r, exdb_uwork w) {
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

/* ---- named_modules(remove_duplicate=False), pre-order, explicit stack */

typedef struct nm_frame {
    exdb_umodule *m;
    const char *fqn;
    uint32_t next;
} nm_frame;

int exdb_unflatten_named_modules_run(exdb_urun *r, exdb_umod_visit fn, void *ctx) {
    uint32_t cap = 32, n = 0;
    nm_frame *st = malloc(cap * sizeof *st);
    if (!st)
        return -1;
    fn(ctx, "", r->root);
    st[n++] = (nm_frame){r->root, "", 0};
    int rc = 0;
    while (n) {
        nm_frame *top = &st[n - 1];
        exdb_udict *d = top->m->children;
        while (top->next < d->n && !d->vals[top->next])
            top->next++;
        if (top->next >= d->n) {
            n--;
            continue;
        }
        exdb_umodule *c = d->vals[top->next];
        const char *name = d->keys[top->next];
        top->next++;
        const char *fqn =
            top->fqn[0] ? exdb_arena_printf(&r->arena, "%s.%s", top->fqn, name) : name;
        if (!fqn) {
            rc = -1;
            break;
        }
        fn(ctx, fqn, c);
        if (n == cap) {
            cap *= 2;
            nm_frame *ns = realloc(st, cap * sizeof *ns);
            if (!ns) {
                rc = -1;
                break;
            }
            st = ns;
        }
        st[n++] = (nm_frame){c, fqn, 0};
    }
    free(st);
    return rc;
}

int exdb_unflatten_named_modules(const exdb_unflatten *u, exdb_umod_visit fn, void *ctx) {
    return exdb_unflatten_named_modules_run(u->run, fn, ctx);
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
    if (exdb_uprepass(r, err) < 0) {
        run_free(r);
        return NULL;
    }
    r->root = exdb_umod_new(r, EXDB_UMOD_ROOT, r->root_type);
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

/* Plans the work list of a later phase the first time it is stepped. */
static int plan_phase(exdb_urun *r, exdb_error *err) {
    r->nwork = r->work_pos = r->work_cap = 0;
    r->work = NULL;
    switch (r->phase) {
    case EXDB_UPH_IVALS:
        return exdb_uivals_plan(r, err);
    case EXDB_UPH_GRAPH_ATTRS:
        for (uint32_t i = 0; i < r->nseen_attrs; i++)
            for (uint32_t k = 0; k < r->seen_attrs[i]->n; k++) {
                exdb_uwork w = {0};
                w.name = r->seen_attrs[i]->key;
                w.node = (exdb_node *)r->seen_attrs[i]->items[k];
                if (exdb_uwork_push(r, w) < 0)
                    return exdb_errorf(err, "out of memory");
            }
        return 0;
    case EXDB_UPH_SINK:
        return exdb_usink_plan(r, err);
    case EXDB_UPH_DEDUP:
        return exdb_udedup_plan(r, err);
    case EXDB_UPH_DISPATCH:
        return exdb_udispatch_plan(r, err);
    default:
        return 0;
    }
}

/* One event of the whole pipeline: 1, 0 when complete, -1 on error. */
static int run_step(exdb_urun *r, exdb_uevent *ev, exdb_error *err) {
    for (;;) {
        switch (r->phase) {
        case EXDB_UPH_OUTER_PLACEHOLDERS:
        case EXDB_UPH_BODY:
        case EXDB_UPH_OUTER_OUTPUT: {
            int rc = exdb_uoutline_step(r, ev, err);
            if (rc != 0)
                return rc;
            r->phase = EXDB_UPH_IVALS;
            r->phase_started = 0;
            continue;
        }
        case EXDB_UPH_STATE:
            if (exdb_ustate_assign(r, err) < 0)
                return -1;
            ev_init(ev, EXDB_EV_STATE, r);
            r->phase = EXDB_UPH_SINK;
            r->phase_started = 0;
            return 1;
        case EXDB_UPH_REORDER:
            if (exdb_ureorder_submodules(r, err) < 0)
                return -1;
            ev_init(ev, EXDB_EV_REORDER, r);
            r->phase = EXDB_UPH_FINAL;
            return 1;
        case EXDB_UPH_FINAL:
            if (exdb_uroot_lint(r, err) < 0) /* self.graph.lint() before finalize() */
                return -1;
            ev_init(ev, EXDB_EV_DONE, r);
            r->phase = EXDB_UPH_DONE;
            return 1;
        case EXDB_UPH_DONE:
            return 0;
        default:
            break;
        }
        /* phases driven by a work list */
        if (!r->phase_started) {
            if (plan_phase(r, err) < 0)
                return -1;
            r->phase_started = 1;
        }
        if (r->work_pos >= r->nwork) {
            r->done_work[r->phase] = r->work; /* the arena keeps it: describe its events */
            r->done_nwork[r->phase] = r->nwork;
            r->phase++;
            r->phase_started = 0;
            continue;
        }
        exdb_uwork *w = &r->work[r->work_pos];
        int kind = 0, decision = 0, rc = 0;
        switch (r->phase) {
        case EXDB_UPH_IVALS:
            kind = EXDB_EV_IVAL;
            rc = exdb_uivals_apply(r, w, err);
            break;
        case EXDB_UPH_GRAPH_ATTRS:
            kind = EXDB_EV_ATTRS;
            rc = exdb_ugraph_attrs_apply(r, w, err);
            break;
        case EXDB_UPH_SINK:
            kind = EXDB_EV_SINK;
            rc = exdb_usink_apply(r, w, err);
            break;
        case EXDB_UPH_DEDUP:
            kind = EXDB_EV_DEDUP;
            rc = exdb_udedup_apply(r, w, &decision, err);
            break;
        case EXDB_UPH_DISPATCH:
            kind = EXDB_EV_DISPATCH;
            rc = exdb_udispatch_apply(r, w, err);
            break;
        default:
            return exdb_errorf(err, "unflatten: internal error: phase %d", r->phase);
        }
        if (rc < 0)
            return -1;
        ev_init(ev, kind, r);
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
    u->run->arena.journal = on ? &u->journal : NULL;
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
        uint32_t ncap = u->log_cap ? u->log_cap * 2 : 256;
        exdb_uevent *nl = realloc(u->log, ncap * sizeof *nl);
        if (!nl)
            return -1;
        u->log = nl;
        u->log_cap = ncap;
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
    int rc;
    while ((rc = exdb_unflatten_step(u, NULL, err)) == 1) {
    }
    return rc;
}

int exdb_unflatten_done(const exdb_unflatten *u) {
    return u->run->phase == EXDB_UPH_DONE;
}

int exdb_unflatten_run_until(exdb_unflatten *u, exdb_unflatten_pred pred, void *ctx,
                             exdb_error *err) {
    exdb_uevent ev;
    int rc;
    while ((rc = exdb_unflatten_step(u, &ev, err)) == 1)
        if (pred(ctx, u, &ev))
            return 1;
    return rc;
}

static int is_copy(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev) {
    (void)ctx;
    (void)u;
    return ev->kind == EXDB_EV_COPY;
}

int exdb_unflatten_step_copy(exdb_unflatten *u, exdb_error *err) {
    return exdb_unflatten_run_until(u, is_copy, NULL, err);
}

/* Stops once the frame stack is back to `depth` frames after an EXIT. */
static int back_to_depth(void *ctx, const exdb_unflatten *u, const exdb_uevent *ev) {
    (void)u;
    uint32_t depth = *(const uint32_t *)ctx;
    return ev->kind != EXDB_EV_COPY && ev->kind != EXDB_EV_ENTER && ev->depth <= depth;
}

int exdb_unflatten_next(exdb_unflatten *u, exdb_error *err) {
    exdb_uevent ev;
    uint32_t depth = u->run->depth;
    int rc = exdb_unflatten_step(u, &ev, err);
    if (rc != 1 || ev.kind != EXDB_EV_ENTER)
        return rc;
    return exdb_unflatten_run_until(u, back_to_depth, &depth, err);
}

int exdb_unflatten_finish(exdb_unflatten *u, exdb_error *err) {
    uint32_t depth = u->run->depth;
    if (depth <= 1 || u->run->phase > EXDB_UPH_OUTER_OUTPUT)
        return exdb_unflatten_run(u, err) < 0 ? -1 : 0;
    depth--;
    return exdb_unflatten_run_until(u, back_to_depth, &depth, err);
}

int exdb_unflatten_goto(exdb_unflatten *u, uint32_t k, exdb_error *err) {
    if (u->edited && k != u->pos && rebuild(u, err) < 0)
        return -1;
    if (!u->recording && (k < u->pos || u->failed)) { /* rebuild and replay */
        exdb_urun *fresh = run_new(u->prog, err);
        if (!fresh)
            return -1;
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
    return exdb_umod_get_path(u->run->root, fqn);
}

/* "n@K" names call K of the dispatcher at n (the way bt, render and dce
 * name its calls); a module really at that path wins. */
exdb_umodule *exdb_unflatten_dispatch_call(const exdb_unflatten *u, const char *name) {
    const char *at = strrchr(name, '@');
    if (!at || at[1] < '1' || at[1] > '9' || exdb_umod_get_path(u->run->root, name))
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
    exdb_umodule *m = exdb_umod_get_path(u->run->root, base);
    if (!m || m->kind != EXDB_UMOD_DISPATCH || k >= m->ncall_modules)
        return NULL;
    return m->call_modules[k];
}

void exdb_umod_count_state(const exdb_umodule *m, uint32_t *np, uint32_t *nb, uint32_t *nc) {
    *np = *nb = *nc = 0;
    for (uint32_t i = 0; i < m->attrs.n; i++) {
        const exdb_uattr *a = m->attrs.vals[i];
        if (!a)
            continue;
        *np += a->kind == EXDB_UATTR_PARAM;
        *nb += a->kind == EXDB_UATTR_BUFFER;
        *nc += a->kind == EXDB_UATTR_CONST;
    }
}

const char *exdb_umod_kind_name(const exdb_umodule *m) {
    switch (m->kind) {
    case EXDB_UMOD_PLAIN:
        return "torch.nn.Module";
    case EXDB_UMOD_INTERP:
        return "InterpreterModule";
    case EXDB_UMOD_DISPATCH:
        return "InterpreterModuleDispatcher";
    case EXDB_UMOD_ROOT:
        return "UnflattenedModule";
    default:
        return "GraphModule";
    }
}

const char *exdb_uevent_kind_name(int kind) {
    static const char *const names[] = {"COPY", "ENTER", "EXIT",     "IVAL",    "ATTRS", "STATE",
                                        "SINK", "DEDUP", "DISPATCH", "REORDER", "DONE"};
    return kind >= 0 && kind <= EXDB_EV_DONE ? names[kind] : "?";
}

static const char *fqn_or_root(const char *f) {
    return f && f[0] ? f : "<root>";
}

void exdb_unflatten_describe(exdb_buf *b, const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_urun *r = u->run;
    exdb_buf_puts(b, exdb_uevent_kind_name(ev->kind));
    const exdb_uframe *f =
        ev->frame >= 0 && (uint32_t)ev->frame < r->nframes ? r->frames[ev->frame] : NULL;
    const exdb_node *n =
        ev->flat >= 0 && (uint32_t)ev->flat < r->nnodes ? r->nodes[ev->flat] : NULL;
    switch (ev->kind) {
    case EXDB_EV_COPY:
        exdb_buf_printf(b, " %%%s into %s", n ? n->name : "?", f ? fqn_or_root(f->child_fqn) : "?");
        break;
    case EXDB_EV_ENTER:
        if (f)
            exdb_buf_printf(b, " %s (call %d of %s) at %%%s", f->child_fqn, f->num_calls + 1,
                            f->module_id, n ? n->name : "?");
        break;
    case EXDB_EV_EXIT:
        if (f)
            exdb_buf_printf(b, " %s (%u node%s copied)", fqn_or_root(f->child_fqn), f->ncopied,
                            f->ncopied == 1 ? "" : "s");
        break;
    case EXDB_EV_DEDUP:
        exdb_buf_puts(b, ev->aux == 1   ? " same fqn: call redirected"
                         : ev->aux == 2 ? " other fqn: module aliased"
                                        : " no equivalent earlier call");
        break;
    default:
        break;
    }
    const exdb_uwork *w = exdb_unflatten_event_work(u, ev);
    if (w && w->name && ev->kind != EXDB_EV_DEDUP && ev->kind != EXDB_EV_DISPATCH)
        exdb_buf_printf(b, " %s", fqn_or_root(w->name));
    if (w && ev->kind == EXDB_EV_DISPATCH)
        exdb_buf_printf(b, " %s", w->name && w->name[0] ? w->name : "(call indices elided)");
}

const exdb_uwork *exdb_unflatten_event_work(const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_urun *r = u->run;
    int ph = ev->kind == EXDB_EV_IVAL       ? EXDB_UPH_IVALS
             : ev->kind == EXDB_EV_ATTRS    ? EXDB_UPH_GRAPH_ATTRS
             : ev->kind == EXDB_EV_SINK     ? EXDB_UPH_SINK
             : ev->kind == EXDB_EV_DEDUP    ? EXDB_UPH_DEDUP
             : ev->kind == EXDB_EV_DISPATCH ? EXDB_UPH_DISPATCH
                                            : -1;
    if (ph < 0 || ev->item < 0)
        return NULL;
    const exdb_uwork *list = NULL;
    uint32_t n = 0;
    if (ph == r->phase && r->phase_started) {
        list = r->work;
        n = r->nwork;
    } else if (ph < r->phase) {
        list = r->done_work[ph];
        n = r->done_nwork[ph];
    }
    return list && (uint32_t)ev->item < n ? &list[ev->item] : NULL;
}

void exdb_unflatten_backtrace(exdb_buf *b, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    for (uint32_t i = r->depth; i > 0; i--) {
        const exdb_uframe *f = r->stack[i - 1];
        exdb_buf_printf(b, "#%u  %s", r->depth - i, fqn_or_root(f->child_fqn));
        if (f->parent)
            exdb_buf_printf(b, " (call %d, module %s)", f->num_calls + 1, f->module_id);
        exdb_buf_printf(b, " %s, %u node%s copied%s\n", f->type ? f->type : "", f->ncopied,
                        f->ncopied == 1 ? "" : "s", f->sig ? ", preserved signature" : "");
    }
}

static void print_map(exdb_buf *b, const char *title, const exdb_unodemap *m) {
    exdb_buf_printf(b, "%s (%u):\n", title, m->n);
    for (uint32_t i = 0; i < m->n; i++)
        exdb_buf_printf(b, "  %s -> %s\n", m->keys[i]->name, m->vals[i]->name);
}

void exdb_unflatten_print_frame(exdb_buf *b, const exdb_unflatten *u, const exdb_uframe *f) {
    (void)u;
    exdb_buf_printf(b, "frame %u: %s", f->index, fqn_or_root(f->child_fqn));
    exdb_buf_printf(b, " stack [");
    for (uint32_t i = 0; i < f->depth; i++)
        exdb_buf_printf(b, "%s('%s', %s, %d)", i ? ", " : "", f->stack_fqn[i],
                        f->stack_ty[i] ? f->stack_ty[i] : "None", f->stack_calls[i]);
    exdb_buf_printf(b, "]%s\n", f->finalized ? " finalized" : "");
    print_map(b, "node_map", &f->node_map);
    print_map(b, "node_to_placeholder", &f->node_to_placeholder);
}

/* call counts per module object: entries of its partition */
typedef struct mod_ctx {
    exdb_buf *b;
    const exdb_urun *r;
} mod_ctx;

const char *exdb_umod_class_name(const exdb_umodule *m) {
    return m->kind == EXDB_UMOD_PLAIN ? "Module" : exdb_umod_kind_name(m);
}

/* call sites whose call_module target resolves to m (after dedup's
 * retargeting, so resnet's relu counts both calls) */
uint32_t exdb_umod_call_count(const exdb_urun *r, const exdb_umodule *m) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < r->nparts; p++)
        for (uint32_t e = 0; e < r->parts[p].n; e++) {
            const exdb_uentry *en = &r->parts[p].entries[e];
            n += exdb_umod_get_path(en->parent_module, en->parent_call_module->target) == m;
        }
    return n;
}

static void print_mod(void *vctx, const char *fqn, exdb_umodule *m) {
    mod_ctx *c = vctx;
    uint32_t depth = 0;
    for (const char *p = fqn; *p; p++)
        depth += *p == '.';
    if (fqn[0])
        depth++;
    for (uint32_t i = 0; i < depth; i++)
        exdb_buf_puts(c->b, "  ");
    exdb_buf_printf(c->b, "%s  %s",
                    fqn[0] ? strrchr(fqn, '.') ? strrchr(fqn, '.') + 1 : fqn : "<root>",
                    exdb_umod_class_name(m));
    if (m->type)
        exdb_buf_printf(c->b, "  %s", m->type);
    if (m->kind == EXDB_UMOD_INTERP || m->kind == EXDB_UMOD_DISPATCH) {
        uint32_t calls =
            m->kind == EXDB_UMOD_DISPATCH ? m->ncall_modules : exdb_umod_call_count(c->r, m);
        exdb_buf_printf(c->b, "  calls=%u", calls);
    }
    if (m->graph)
        exdb_buf_printf(c->b, "  nodes=%u", m->graph->count);
    uint32_t np, nb, nc;
    exdb_umod_count_state(m, &np, &nb, &nc);
    if (np || nb || nc)
        exdb_buf_printf(c->b, "  params=%u buffers=%u constants=%u", np, nb, nc);
    exdb_buf_putc(c->b, '\n');
}

void exdb_unflatten_print_modules(exdb_buf *b, const exdb_unflatten *u) {
    mod_ctx c = {b, u->run};
    if (exdb_unflatten_named_modules_run(u->run, print_mod, &c) < 0)
        b->oom = 1;
}

int exdb_unflatten_print_module(exdb_buf *b, const exdb_unflatten *u, const char *fqn,
                                exdb_error *err) {
    exdb_umodule *m = exdb_umod_get_path(u->run->root, fqn);
    if (!m && (m = exdb_unflatten_dispatch_call(u, fqn)) != NULL && m->graph) {
        exdb_print_graph(b, m->graph);
        return 0;
    }
    if (!m)
        return exdb_errorf(err, "No module \"%s\" in the unflattened module.", fqn);
    if (m->kind == EXDB_UMOD_DISPATCH) {
        /* each call's graph under a header naming it as everywhere else */
        for (uint32_t i = 0; i < m->ncall_modules; i++) {
            if (i)
                exdb_buf_puts(b, "\n\n");
            exdb_buf_printf(b, "# call %u of %u: %s", i + 1, m->ncall_modules, fqn);
            if (i)
                exdb_buf_printf(b, "@%u", i);
            exdb_buf_putc(b, '\n');
            if (m->call_modules[i]->graph)
                exdb_print_graph(b, m->call_modules[i]->graph);
        }
        return 0;
    }
    if (!m->graph)
        return exdb_errorf(err, "Module \"%s\" is a plain torch.nn.Module: it has no graph.", fqn);
    exdb_print_graph(b, m->graph);
    return 0;
}

/* ---- full dump (for reverse-stepping checks) */

static void dump_mod(void *vctx, const char *fqn, exdb_umodule *m) {
    mod_ctx *c = vctx;
    exdb_buf_printf(c->b, "module '%s' #%u %s type=%s\n", fqn, m->id, exdb_umod_class_name(m),
                    m->type ? m->type : "None");
    for (uint32_t i = 0; i < m->attrs.n; i++) {
        const exdb_uattr *a = m->attrs.vals[i];
        if (a)
            exdb_buf_printf(c->b, "  attr %s kind=%d state=%s spec=%s\n", m->attrs.keys[i], a->kind,
                            a->state ? a->state : "", a->spec_text ? a->spec_text : "");
    }
    for (uint32_t i = 0; i < m->ncall_modules; i++)
        exdb_buf_printf(c->b, "  call_module #%u\n", m->call_modules[i]->id);
    if (m->graph) {
        exdb_print_graph(c->b, m->graph);
        exdb_buf_putc(c->b, '\n');
    }
}

void exdb_unflatten_dump(exdb_buf *b, const exdb_unflatten *u) {
    const exdb_urun *r = u->run;
    exdb_buf_printf(b, "pos %u phase %u idx %u depth %u frames %u modules %u work %u/%u\n", u->pos,
                    r->phase, r->idx, r->depth, r->nframes, r->nmodules, r->work_pos, r->nwork);
    exdb_unflatten_backtrace(b, u);
    for (uint32_t i = 0; i < r->nframes; i++)
        exdb_unflatten_print_frame(b, u, r->frames[i]);
    exdb_buf_puts(b, "seen_nodes:");
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->seen[r->nodes[i]->id])
            exdb_buf_printf(b, " %s", r->nodes[i]->name);
    exdb_buf_putc(b, '\n');
    for (uint32_t p = 0; p < r->nparts; p++) {
        exdb_buf_printf(b, "seen_modules[%s]:", r->parts[p].module_id);
        for (uint32_t e = 0; e < r->parts[p].n; e++) {
            const exdb_uentry *en = &r->parts[p].entries[e];
            exdb_buf_printf(b, " (%s, %s, %d, #%u, %%%s)", en->parent_fqn, en->fqn, en->call_idx,
                            en->module->id, en->parent_call_module->name);
        }
        exdb_buf_putc(b, '\n');
    }
    for (uint32_t i = 0; i < r->nseen_attrs; i++) {
        exdb_buf_printf(b, "seen_attrs[%s]:", r->seen_attrs[i]->key);
        for (uint32_t k = 0; k < r->seen_attrs[i]->n; k++)
            exdb_buf_printf(b, " %s", r->seen_attrs[i]->items[k]);
        exdb_buf_putc(b, '\n');
    }
    for (uint32_t i = 0; i < r->nivals; i++) {
        exdb_buf_printf(b, "ivals[%s]:", r->ivals[i]->key);
        for (uint32_t k = 0; k < r->ivals[i]->n; k++)
            exdb_buf_printf(b, " %s", r->ivals[i]->items[k]);
        exdb_buf_putc(b, '\n');
    }
    mod_ctx c = {b, r};
    if (exdb_unflatten_named_modules_run((exdb_urun *)r, dump_mod, &c) < 0)
        b->oom = 1;
}
