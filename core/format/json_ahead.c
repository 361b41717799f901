/* json_ahead.c - see json_ahead.h. The thread and the reader (the loader)
 * share a window of SLOTS batches of BATCH elements, from the reader's
 * batch on: whoever is free claims the window's first unclaimed batch and
 * parses it into its slot. The thread claims in order; the reader needs its
 * batch, parses it itself when nobody has claimed it, and while the thread
 * is still on it, parses a later unclaimed one rather than wait. So the
 * reader never waits for a thread that a busy machine left unscheduled:
 * at worst it parses everything itself, as without the thread. A lock per
 * claimed batch; the reader sleeps only when every batch of the window is
 * claimed and its own is not done.
 *
 * The thread, being faster than the reader (which also builds the IR),
 * mostly waits for the window to move. Woken at each batch the reader
 * leaves, it parsed one batch and slept again: a wake-up and two context
 * switches per 64 nodes, which on a busy machine preempted the reader
 * (31k switches at 1M nodes). It now sleeps until the reader has left
 * WAKE batches since it went to sleep (or stops). */
#include "core/format/json_ahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/arena.h"
#include "core/format/json.h"

enum { BATCH = 64, SLOTS = 16, WAKE = SLOTS / 2, MAX_TABLES = 4 };

#define NONE UINT64_MAX

typedef struct slot {
    exdb_arena a;                      /* the batch's DOMs */
    exdb_jstrings strs;                /* where the slot's batches put their strings */
    exdb_json out[BATCH];              /* its elements, parsed */
    const char *lo[BATCH], *hi[BATCH]; /* and their strings' spans */
    uint64_t claimed; /* the batch being or been parsed into it (under mu), NONE before */
    uint64_t filled;  /* the batch it holds once parsed (under mu), NONE before */
    uint32_t nok;     /* elements parsed without error */
    int failed;       /* element nok did not parse: err says why */
    exdb_error err;
} slot;

struct exdb_json_ahead {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    const exdb_json *tables[MAX_TABLES];
    uint64_t base[MAX_TABLES + 1]; /* table t's first element, in the sequence of all */
    uint64_t nbatches;
    int ntables;
    const char *text, *fname;
    int stop;                /* the reader is done (under mu) */
    int failed;              /* a batch failed: nobody claims more (under mu) */
    uint64_t released;       /* the reader has left batches below this (under mu) */
    uint64_t wake_at;        /* the thread sleeps until released reaches this (under mu) */
    uint64_t cur;            /* the reader's batch, NONE before its first */
    pthread_mutex_t strs_mu; /* the pools' lock when the caller's has none */
    exdb_arena own;          /* an element nobody parsed, parsed by the reader */
    exdb_jstrings own_strs;
    exdb_json own_out;
    slot s[SLOTS];
};

static const exdb_json *element(const exdb_json_ahead *h, uint64_t g) {
    int t = 0;
    while (g >= h->base[t + 1])
        t++;
    return &h->tables[t]->u.kids[g - h->base[t]];
}

/* The first batch from `from` in the window (the reader's batch and the
 * SLOTS - 1 after it) that nobody claimed and whose slot is free (its
 * older batch parsed, and released since b is in the window), claimed;
 * NONE when there is none. Under mu. */
static uint64_t claim(exdb_json_ahead *h, uint64_t from) {
    if (h->failed || h->stop)
        return NONE;
    for (uint64_t b = from < h->released ? h->released : from;
         b < h->released + SLOTS && b < h->nbatches; b++) {
        slot *s = &h->s[b % SLOTS];
        if (s->claimed != b && (s->claimed == NONE || s->filled == s->claimed)) {
            s->claimed = b;
            return b;
        }
    }
    return NONE;
}

/* Parses the claimed batch b into its slot (outside mu), then marks it
 * filled; 0 when an element failed. */
static int fill(exdb_json_ahead *h, uint64_t b) {
    slot *s = &h->s[b % SLOTS];
    uint64_t first = b * BATCH, total = h->base[h->ntables];
    exdb_arena_reset(&s->a);
    s->nok = 0;
    s->failed = 0;
    exdb_error_clear(&s->err);
    for (uint64_t g = first; g < total && g < first + BATCH; g++) {
        uint64_t j = g - first;
        if (exdb_json_parse_raw(element(h, g), h->text, &s->a, &s->strs, h->fname, &s->out[j],
                                &s->lo[j], &s->hi[j], &s->err) < 0) {
            s->failed = 1;
            break;
        }
        s->nok++;
    }
    pthread_mutex_lock(&h->mu);
    /* released: exdb_json_ahead_peek reads it without mu */
    __atomic_store_n(&s->filled, b, __ATOMIC_RELEASE);
    h->failed |= s->failed;
    pthread_cond_signal(&h->filled);
    pthread_mutex_unlock(&h->mu);
    return !s->failed;
}

static void *run(void *arg) {
    exdb_json_ahead *h = arg;
    uint64_t next = 0; /* the thread's claims go in order */
    for (;;) {
        pthread_mutex_lock(&h->mu);
        uint64_t b;
        while ((b = claim(h, next)) == NONE && !h->stop && !h->failed && next < h->nbatches &&
               h->released < h->nbatches) {
            h->wake_at = h->released + WAKE;
            pthread_cond_wait(&h->freed, &h->mu);
        }
        h->wake_at = NONE;
        pthread_mutex_unlock(&h->mu);
        if (b == NONE || !fill(h, b))
            break;
        next = b + 1;
    }
    return NULL;
}

exdb_json_ahead *exdb_json_ahead_start(const exdb_json *const *tables, int n, const char *text,
                                       const exdb_jstrings *strs, const char *fname, uint32_t min) {
#ifdef EXDB_FAULT
    if (exdb_fault_armed())
        return NULL;
#endif
    if (n < 1 || n > MAX_TABLES)
        return NULL;
    uint64_t total = 0;
    for (int t = 0; t < n; t++)
        if (tables[t] && (tables[t]->type == EXDB_JARRAY || tables[t]->type == EXDB_JOBJECT))
            total += tables[t]->len;
    if (total == 0 || total < min)
        return NULL;
    exdb_json_ahead *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    for (int t = 0; t < n; t++) {
        if (!tables[t] || (tables[t]->type != EXDB_JARRAY && tables[t]->type != EXDB_JOBJECT))
            continue;
        h->tables[h->ntables] = tables[t];
        h->base[h->ntables + 1] = h->base[h->ntables] + tables[t]->len;
        h->ntables++;
    }
    h->text = text;
    h->fname = fname;
    h->cur = NONE;
    h->wake_at = NONE;
    exdb_arena_init(&h->own);
    pthread_mutex_init(&h->strs_mu, NULL);
    h->own_strs = (exdb_jstrings){strs->a, strs->mu ? strs->mu : &h->strs_mu, NULL, NULL};
    h->nbatches = (h->base[h->ntables] + BATCH - 1) / BATCH;
    for (int i = 0; i < SLOTS; i++) {
        exdb_arena_init(&h->s[i].a);
        h->s[i].strs = h->own_strs;
        h->s[i].claimed = h->s[i].filled = NONE;
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->filled, NULL);
    pthread_cond_init(&h->freed, NULL);
    if (pthread_create(&h->th, NULL, run, h) != 0) {
        pthread_cond_destroy(&h->freed);
        pthread_cond_destroy(&h->filled);
        pthread_mutex_destroy(&h->mu);
        pthread_mutex_destroy(&h->strs_mu);
        free(h);
        return NULL;
    }
    return h;
}

/* e's place in the sequence of all elements, or NONE. */
static uint64_t index_of(const exdb_json_ahead *h, const exdb_json *e) {
    for (int t = 0; t < h->ntables; t++) {
        const exdb_json *k = h->tables[t]->u.kids;
        if (e >= k && e < k + h->tables[t]->len)
            return h->base[t] + (uint64_t)(e - k);
    }
    return NONE;
}

int exdb_json_ahead_owns(const exdb_json_ahead *h, const exdb_json *e) {
    return h && index_of(h, e) != NONE;
}

/* Makes batch b (the reader's next) filled: parsed by the reader if
 * nobody claimed it, waited for if the thread has it, meanwhile parsing
 * later batches nobody claimed. */
static void reach(exdb_json_ahead *h, uint64_t b) {
    slot *s = &h->s[b % SLOTS];
    pthread_mutex_lock(&h->mu);
    if (b > h->released) {
        h->released = b;
        if (b >= h->wake_at) /* the thread sleeps and WAKE slots are free */
            pthread_cond_signal(&h->freed);
    }
    while (s->filled != b) {
        uint64_t c;
        if (s->claimed != b && (s->claimed == NONE || s->filled == s->claimed)) {
            s->claimed = c = b; /* nobody has it: the reader parses it */
        } else {
            c = claim(h, b + 1); /* the thread has it (or the slot's older batch) */
        }
        if (c != NONE) {
            pthread_mutex_unlock(&h->mu);
            fill(h, c);
            pthread_mutex_lock(&h->mu);
        } else {
            pthread_cond_wait(&h->filled, &h->mu);
        }
    }
    pthread_mutex_unlock(&h->mu);
}

const exdb_json *exdb_json_ahead_get(exdb_json_ahead *h, const exdb_json *e, const char **lo,
                                     const char **hi, exdb_error *err) {
    uint64_t g = index_of(h, e), b = g / BATCH;
    slot *s = &h->s[b % SLOTS];
    if (g == NONE || (h->cur != NONE && b < h->cur)) {
        exdb_errorf(err, "%s: internal error: a node read out of order", h->fname);
        return NULL;
    }
    if (h->cur != b) {
        reach(h, b);
        h->cur = b;
    }
    uint32_t j = (uint32_t)(g - b * BATCH);
    if (j < s->nok) {
        *lo = s->lo[j];
        *hi = s->hi[j];
        return &s->out[j];
    }
    if (j == s->nok && s->failed) {
        if (err && !err->set)
            *err = s->err;
        return NULL;
    }
    /* past an element that failed: nobody parsed this one */
    exdb_arena_reset(&h->own);
    return exdb_json_parse_raw(e, h->text, &h->own, &h->own_strs, h->fname, &h->own_out, lo, hi,
                               err) < 0
               ? NULL
               : &h->own_out;
}

const exdb_json *exdb_json_ahead_peek(const exdb_json_ahead *h, const exdb_json *e) {
    uint64_t g = h ? index_of(h, e) : NONE;
    /* the reader's batch is filled, and nobody else writes its slot
     * before the reader leaves it; the next batch's slot, once filled
     * (acquired: its elements were written before), is not claimed again
     * before the reader leaves the batch after it (claim) */
    if (g == NONE || h->cur == NONE || (g / BATCH != h->cur && g / BATCH != h->cur + 1))
        return NULL;
    uint64_t b = g / BATCH;
    const slot *s = &h->s[b % SLOTS];
    if (b != h->cur && __atomic_load_n(&s->filled, __ATOMIC_ACQUIRE) != b)
        return NULL;
    uint32_t j = (uint32_t)(g - b * BATCH);
    return j < s->nok ? &s->out[j] : NULL;
}

void exdb_json_ahead_stop(exdb_json_ahead *h) {
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->stop = 1;
    pthread_cond_broadcast(&h->freed);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->th, NULL);
    pthread_cond_destroy(&h->freed);
    pthread_cond_destroy(&h->filled);
    pthread_mutex_destroy(&h->mu);
    pthread_mutex_destroy(&h->strs_mu);
    for (int i = 0; i < SLOTS; i++)
        exdb_arena_destroy(&h->s[i].a);
    exdb_arena_destroy(&h->own);
    free(h);
}
