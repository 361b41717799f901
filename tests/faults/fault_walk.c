/* fault_walk.c - out-of-memory fault injection over a whole session, as
 * SQLite tests its malloc failures: for N = 1, 2, ... the Nth allocation
 * of core/ and viz/ (malloc, calloc, realloc, strdup, arena; core/base/fault.h)
 * fails while a session runs load, unflatten, lint, dce, save and render
 * of FILE through session_exec, exactly as typed at the prompt.
 *
 *   fault_walk [--stride K] [--start N] [--persistent] [--arena-calls] [--sites]
 *              [--all-stacks] [--census] [--lazy-meta] [--shape-first] [--cache]
 *              [--cache-write] [--trace N] [-v] [-c CMD]... FILE...
 *
 * For each FILE a run without failures is the reference: each command's
 * exit, its text, and the files it writes. Then for each N a fresh session
 * runs the same commands with the Nth allocation failing (with
 * --persistent, every one from the Nth on); it passes when
 *  - the command in which the allocation failed gives the reference's
 *    outcome; or fails with a message saying "out of memory", and then,
 *    run again without failures, gives the reference text (nothing it did
 *    was half done; not run again when only its output was cut short,
 *    "out of memory: the output is incomplete"); or succeeds with the
 *    reference text (a fallback that needed no memory) or with a text
 *    saying what memory ran out for;
 *  - every later command gives the reference text, and the written files
 *    are the reference files (SVG and HTML: the same lines in any order);
 *  - nothing leaks (LeakSanitizer, one check per batch of steps) and no
 *    sanitizer reports (a report ends the batch's child: that step fails).
 * The walk of a file ends at the first N at which no allocation failed.
 * An N whose allocation has the call stack (the return addresses, in the
 * reference run) of one an earlier step made to fail, for this FILE or an
 * earlier one, is skipped: the same path fails at the same place, and
 * every allocation site is still made to fail (--all-stacks walks every N).
 * --stride K walks N = start, start+K, ... (sampling big programs). In
 * CMD, {F} is the file and {D} a scratch folder; the default commands are
 * below. Each batch of steps runs in a child process (a crash ends the
 * child, not the walk) that looks for leaks once; a batch that leaked is
 * run again one step per child to name the step. --arena-calls makes every
 * arena call an allocation that may fail, not only those needing a new
 * block (EXDB_FAULT_ARENA_CALLS). --trace N runs step N alone and prints
 * the stack of the allocation made to fail. --census runs the reference
 * sessions only and lists (as --sites) the sites their allocations come
 * from: which files reach which sites, none made to fail. --lazy-meta
 * reads every program's node metadata at first use, as the loader does
 * from EXDB_LAZY_META_MIN nodes (exdb_program_lazy_meta(0)). --shape-first
 * opens every program shape first, as load does from EXDB_SHAPE_FIRST_MIN
 * nodes (exdb_program_shape_first(0)). --cache gives the sessions a reopen
 * cache (core/export/cache.h) in a folder of the walk's: the first
 * reference writes the program's entry, the second and every step open
 * the program from it (and the build reads the file); --cache-write
 * empties the cache before each session, so that each writes the entry.
 *
 * Prints one line per failing N, then per file
 *   "FILE: N points (first..last of T allocations), S more allocation sites, F failed"
 * (sites: code addresses whose allocation was made to fail, not seen for an
 * earlier FILE), the sites in all, and at the end "faults: P passed, F
 * failed" (one test per file). With --sites, the sites hit (file:line of the
 * allocating call, times made to fail) are listed. Exit status 1 when
 * anything failed. */
#define _GNU_SOURCE /* dladdr */
#define EXDB_FAULT_NO_WRAP
#include <dirent.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#define leaked()                     __lsan_do_recoverable_leak_check()
#define print_stack                  __sanitizer_print_stack_trace
#define symbolize(pc, fmt, out, cap) __sanitizer_symbolize_pc(pc, fmt, out, cap)
#else /* make coverage: no sanitizer, no leak checks; sites as "@0xOFFSET" in                      \
       * the executable, which run_faults.extra.sh names with addr2line */
#include <dlfcn.h>
#define leaked()                     0
#define print_stack                  NULL
#define symbolize(pc, fmt, out, cap) site_offset(pc, out, cap)
static void site_offset(const void *pc, char *out, size_t cap) {
    Dl_info info;
    if (dladdr(pc, &info) && info.dli_fbase)
        snprintf(out, cap, "@%#lx",
                 (unsigned long)((const char *)pc - (const char *)info.dli_fbase));
    else
        snprintf(out, cap, "%p", pc);
}
#endif
#ifdef EXDB_COVERAGE
void __gcov_dump(void); /* a child's counts are written before _exit */
#define child_exit(rc) (__gcov_dump(), _exit(rc))
#else
#define child_exit(rc) _exit(rc)
#endif

#include "core/base/arena.h"
#include "core/base/fault.h"
#include "core/export/cache.h"
#include "core/export/program.h"
#include "repl/session.h"

enum { MAX_CMDS = 64, MAX_FILES = 32, MAX_SITES = 8192 };

static const char *const default_cmds[] = {
    "load '{F}'",
    "unflatten run",
    "info events later",
    "explain",
    "lint all",
    "dce all",
    "dce",
    "undo",
    "dce",
    "save {D}/saved.json",
    "render flat -o {D}/flat.dot",
    "render flat --by-module -o {D}/bymod.dot",
    "render modules --depth 2 -o {D}/modules.dot",
    "render tree -o {D}/tree.dot",
    "render module '' -o {D}/root.dot",
    "render frame -o {D}/frame.dot",
    "render modules -o {D}/modules.svg",
    "render tree -o {D}/tree.html",
    NULL,
};

typedef struct {
    char *out, *err; /* the command's text and error text */
    int rc;
} result;

typedef struct {
    char *name, *bytes;
    size_t len;
} artifact;

static char *cmds[MAX_CMDS];
static int ncmds;
static char dir[64];
static char cache_dir[64]; /* --cache: the reopen cache's folder, or "" */
static int cache_write;    /* --cache-write: each session starts with it empty */
static FILE *outf, *errf;
static int persistent, list_sites, verbose, arena_calls;
static unsigned long trace; /* --trace N: that step alone, the failing allocation's stack printed */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The call stack of each allocation of the reference run (a hash of its
 * return addresses, stacks[n - 1] for the nth), and the set of stacks
 * whose allocation a step has made to fail (open addressing, 0 = empty):
 * a step whose allocation has a stack already walked is skipped (the same
 * code path failing at the same place again), unless --all-stacks. */
static unsigned long long *stacks;
static unsigned long nstacks, stacks_cap;
static unsigned long long *walked;
static unsigned long walked_cap, nwalked;
static int all_stacks, census;

static void note_site(const void *site);

static void note_stack(unsigned long n, const void *site) {
    if (census)
        note_site(site);
    void *pcs[64];
    int depth = backtrace(pcs, 64);
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < depth; i++)
        h = (h ^ (unsigned long long)(uintptr_t)pcs[i]) * 1099511628211ull;
    if (n > stacks_cap) {
        stacks_cap = n * 2;
        stacks = realloc(stacks, stacks_cap * sizeof *stacks);
    }
    while (nstacks < n)
        stacks[nstacks++] = 0;
    stacks[n - 1] = h ? h : 1;
}

/* Adds stack h to the walked set; 0 when it was there already. */
static int walk_stack(unsigned long long h) {
    if (2 * (nwalked + 1) > walked_cap) {
        unsigned long cap = walked_cap ? walked_cap * 2 : 4096;
        unsigned long long *t = calloc(cap, sizeof *t);
        for (unsigned long i = 0; i < walked_cap; i++)
            if (walked[i])
                for (unsigned long j = walked[i] % cap;; j = (j + 1) % cap)
                    if (!t[j]) {
                        t[j] = walked[i];
                        break;
                    }
        free(walked);
        walked = t;
        walked_cap = cap;
    }
    for (unsigned long j = h % walked_cap;; j = (j + 1) % walked_cap) {
        if (walked[j] == h)
            return 0;
        if (!walked[j]) {
            walked[j] = h;
            nwalked++;
            return 1;
        }
    }
}

static const void *sites[MAX_SITES];
static unsigned long site_hits[MAX_SITES];
static int nsites;

/* The whole contents of f (rewound), NUL-terminated, malloc'd. */
static char *slurp(FILE *f, size_t *len) {
    fflush(f);
    long n = ftell(f);
    char *s = malloc((size_t)(n > 0 ? n : 0) + 1);
    rewind(f);
    size_t got = n > 0 ? fread(s, 1, (size_t)n, f) : 0;
    s[got] = '\0';
    if (len)
        *len = got;
    return s;
}

static void reset(FILE *f) {
    fflush(f);
    rewind(f);
    if (ftruncate(fileno(f), 0) != 0)
        perror("ftruncate");
}

/* CMD with {F} and {D} replaced. */
static char *expand(const char *cmd, const char *file) {
    size_t cap = strlen(cmd) + 16 * strlen(file) + 16 * sizeof dir + 1, o = 0;
    char *s = malloc(cap);
    for (const char *p = cmd; *p; p++) {
        const char *sub = strncmp(p, "{F}", 3) == 0 ? file : strncmp(p, "{D}", 3) == 0 ? dir : NULL;
        if (sub) {
            o += (size_t)snprintf(s + o, cap - o, "%s", sub);
            p += 2;
        } else {
            s[o++] = *p;
        }
    }
    s[o] = '\0';
    return s;
}

static void run_cmd(session *s, const char *line, result *r) {
    reset(outf);
    reset(errf);
    r->rc = session_exec(s, line);
    fflush(s->out);
    r->out = slurp(outf, NULL);
    r->err = slurp(errf, NULL);
}

static void result_free(result *r) {
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

static int same(const result *a, const result *b) {
    return a->rc == b->rc && strcmp(a->out, b->out) == 0 && strcmp(a->err, b->err) == 0;
}

/* The files in dir, sorted by name, and empties the folder. */
static int take_artifacts(artifact *arts, int max) {
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), k = 0;
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
        if (ents[i]->d_name[0] != '.' && k < max) {
            FILE *f = fopen(path, "rb");
            if (f) {
                fseek(f, 0, SEEK_END);
                arts[k].name = strdup(ents[i]->d_name);
                arts[k].bytes = slurp(f, &arts[k].len);
                fclose(f);
                k++;
            }
        }
        if (ents[i]->d_name[0] != '.' || strlen(ents[i]->d_name) > 2)
            unlink(path);
        free(ents[i]);
    }
    free(ents);
    return k;
}

static void artifacts_free(artifact *arts, int n) {
    for (int i = 0; i < n; i++) {
        free(arts[i].name);
        free(arts[i].bytes);
    }
}

static void session_open(session *s) {
    if (cache_write)
        exdb_cache_clear();
    session_init(s);
    s->out = outf;
    s->errout = errf;
    s->timing = 0;
    s->color = 0;
}

/* Ends a session and everything it cached, so the next one starts with the
 * same allocations (the arena block cache would otherwise serve some). */
static void session_close(session *s) {
    session_free(s);
    exdb_arena_trim();
}

static void note_site(const void *site) {
    for (int i = 0; i < nsites; i++)
        if (sites[i] == site) {
            site_hits[i]++;
            return;
        }
    if (nsites < MAX_SITES) {
        site_hits[nsites] = 1;
        sites[nsites++] = site;
    }
}

static const char *site_name(const void *site, char *buf, size_t cap) {
    symbolize((void *)((const char *)site - 1), "%s:%l (%f)", buf, cap);
    const char *p = strstr(buf, "exdb/");
    const char *q = strstr(buf, "/core/") ? strstr(buf, "/core/") : strstr(buf, "/viz/");
    return q ? q + 1 : p ? p : buf;
}

typedef struct {
    result ref[MAX_CMDS];
    artifact arts[32];
    int narts;
} reference;

static int cmp_line(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of a text, sorted (the text is cut into them). */
static char **sorted_lines(char *text, size_t *n) {
    size_t cap = 1;
    for (char *p = text; *p; p++)
        cap += *p == '\n';
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
        v[(*n)++] = p;
    qsort(v, *n, sizeof *v, cmp_line);
    return v;
}

/* Byte for byte; for an image (SVG, or a page holding one) the same lines
 * in any order: Graphviz writes clusters in the order of their IDs, which
 * cgraph's default ID discipline takes from string addresses, so the order
 * follows the heap (the same picture; it varies between any two sessions
 * of one process, with or without failures). */
static int same_file(const artifact *a, const artifact *b) {
    if (a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0)
        return 1;
    const char *dot = strrchr(a->name, '.');
    if (a->len != b->len || !dot || (strcmp(dot, ".svg") != 0 && strcmp(dot, ".html") != 0))
        return 0;
    char *x = strdup(a->bytes), *y = strdup(b->bytes);
    size_t nx, ny;
    char **lx = sorted_lines(x, &nx), **ly = sorted_lines(y, &ny);
    int same = nx == ny;
    for (size_t i = 0; same && i < nx; i++)
        same = strcmp(lx[i], ly[i]) == 0;
    free(lx);
    free(ly);
    free(x);
    free(y);
    return same;
}

/* Whether the files the step wrote (taken from the folder) are the
 * reference's; why says which differ. FAULT_WALK_KEEP=DIR keeps both
 * copies of the first that differs there. */
static int same_files(const reference *ref, unsigned long n, char *why, size_t cap) {
    artifact arts[32];
    int narts = take_artifacts(arts, 32);
    int ok = narts == ref->narts, i = 0;
    for (; ok && i < narts; i++)
        ok = strcmp(arts[i].name, ref->arts[i].name) == 0 && same_file(&arts[i], &ref->arts[i]);
    if (!ok) {
        snprintf(why, cap, "the files written differ from those without failures (%s)",
                 narts != ref->narts ? "not the same files" : arts[i - 1].name);
        const char *keep = getenv("FAULT_WALK_KEEP");
        if (keep && narts == ref->narts) {
            char path[600];
            snprintf(path, sizeof path, "%s/%lu.%s", keep, n, arts[i - 1].name);
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(arts[i - 1].bytes, 1, arts[i - 1].len, f);
                fclose(f);
            }
            snprintf(path, sizeof path, "%s/ref.%s", keep, arts[i - 1].name);
            if ((f = fopen(path, "wb"))) {
                fwrite(ref->arts[i - 1].bytes, 1, ref->arts[i - 1].len, f);
                fclose(f);
            }
        }
    }
    artifacts_free(arts, narts);
    return ok;
}

/* One walk step: the session with allocation n failing. 0 when it passed,
 * 1 when it failed, 2 when no allocation failed (past the last one).
 * *site: the code address of the allocation made to fail (NULL if none);
 * leaks are looked for when leak_check is set. */
static int step(const char *file, unsigned long n, const reference *ref, int leak_check,
                const void **site_out) {
    session s;
    session_open(&s);
    take_artifacts(NULL, 0);
    exdb_fault_arm(n, (persistent ? EXDB_FAULT_PERSISTENT : 0) | arena_calls);
    int faulted = -1, bad = 0;
    const void *site = NULL;
    char why[1024] = "";
    for (int i = 0; i < ncmds && !bad; i++) {
        char *line = expand(cmds[i], file);
        result r;
        unsigned long before = exdb_fault_failed();
        run_cmd(&s, line, &r);
        int fired = exdb_fault_failed() > before;
        if (fired && faulted < 0) {
            faulted = i;
            site = exdb_fault_site();
            if (!persistent && same(&r, &ref->ref[i])) {
                /* the reference's outcome (a failure too, for a program
                 * exdb refuses): the allocation had a fallback */
            } else if (r.rc < 0 && !r.err[0]) {
                snprintf(why, sizeof why, "\"%s\" failed without a message", line);
                bad = 1;
            } else if (r.rc < 0 && !strstr(r.err, "memory")) {
                snprintf(why, sizeof why, "\"%s\" failed with a message not saying why: %.500s",
                         line, r.err);
                bad = 1;
            } else if (r.rc < 0 && !persistent && strstr(r.err, "output is incomplete")) {
                /* the command did its work and ran out printing it: it
                 * is not run again (a dce would find nothing left); the
                 * later commands show whether the work was whole */
                exdb_fault_arm(0, 0);
            } else if (r.rc < 0 && !persistent) {
                if (verbose)
                    printf("N=%lu \"%s\": %s", n, cmds[i], r.err);
                result_free(&r);
                exdb_fault_arm(0, 0);
                run_cmd(&s, line, &r);
                if (!same(&r, &ref->ref[i])) {
                    snprintf(why, sizeof why,
                             "\"%s\" run again after failing gives other text: %.300s%.300s", line,
                             r.out, r.err);
                    bad = 1;
                }
            } else if (r.rc == 0 && !same(&r, &ref->ref[i]) && !strstr(r.out, "memory") &&
                       !strstr(r.err, "memory")) {
                snprintf(why, sizeof why,
                         "\"%s\" succeeded with other text than without failures: %.300s%.300s",
                         line, r.out, r.err);
                bad = 1;
            }
        } else if (faulted >= 0 && !persistent && !same(&r, &ref->ref[i])) {
            snprintf(why, sizeof why, "\"%s\" after the failure gives other text: %.300s%.300s",
                     line, r.out, r.err);
            bad = 1;
        } else if (persistent && r.rc < 0 && !r.err[0]) {
            snprintf(why, sizeof why, "\"%s\" failed without a message", line);
            bad = 1;
        }
        result_free(&r);
        free(line);
    }
    *site_out = site;
    exdb_fault_arm(0, 0);
    session_close(&s);
    if (!bad && faulted >= 0 && !persistent && !same_files(ref, n, why, sizeof why))
        bad = 1;
    if (leak_check && leaked()) {
        snprintf(why, sizeof why, "leak (LeakSanitizer's report above)");
        bad = 1;
    }
    if (faulted < 0 && !bad)
        return 2;
    if (bad) {
        char buf[512];
        printf("FAIL %s N=%lu (allocation at %s, in \"%s\"): %s\n", file, n,
               site ? site_name(site, buf, sizeof buf) : "?", faulted >= 0 ? cmds[faulted] : "-",
               why);
        fflush(stdout);
    }
    return bad;
}

typedef struct {
    unsigned long n;
    int rc; /* step's, or 3: the leak check of the batch found leaks */
    const void *site;
} record;

/* Runs the steps ns[0..count) in a child process, which looks for leaks
 * once after them: a crash or a sanitizer report ends the child, not the
 * walk. Returns whether the child ended normally. */
enum { BATCH = 32 };
static int run_children(const char *file, const reference *ref, const unsigned long *ns, int count,
                        int leak_each, record *out, int *nout) {
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(2);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        close(fds[0]);
        for (int k = 0; k < count; k++) {
            record r = {ns[k], 0, NULL};
            r.rc = step(file, r.n, ref, leak_each, &r.site);
            if (write(fds[1], &r, sizeof r) != sizeof r)
                child_exit(2);
            if (r.rc == 2)
                break;
        }
        if (!leak_each && leaked()) {
            record r = {0, 3, NULL};
            if (write(fds[1], &r, sizeof r) != sizeof r)
                child_exit(2);
        }
        fflush(stdout);
        child_exit(0);
    }
    close(fds[1]);
    *nout = 0;
    record r;
    while (read(fds[0], &r, sizeof r) == sizeof r && *nout <= count)
        out[(*nout)++] = r;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The next steps from *n on (n, n+stride, ...; at most BATCH): those whose
 * allocation's call stack no step has walked yet (all of them with
 * --all-stacks, or past the reference's allocations, where the step finds
 * the end). *skipped counts the others; *n becomes the next to look at. */
static int pick(unsigned long *n, unsigned long stride, unsigned long *ns, unsigned long *skipped) {
    int count = 0;
    while (count < BATCH) {
        unsigned long k = *n;
        *n += stride;
        if (all_stacks || k > nstacks || walk_stack(stacks[k - 1]))
            ns[count++] = k;
        else
            ++*skipped;
        if (k > nstacks)
            break;
    }
    return count;
}

/* Runs the steps ns[0..count) (pick's) and counts them; 0 when the end of
 * the allocations was reached. A step that crashed its child fails, and
 * the steps after it run in another child. */
static int batch(const char *file, const reference *ref, const unsigned long *ns, int count,
                 unsigned long *points, unsigned long *failed, unsigned long *last) {
    while (count > 0) {
        record recs[BATCH + 1];
        int nrec;
        int clean = run_children(file, ref, ns, count, 0, recs, &nrec);
        int leaked = nrec > 0 && recs[nrec - 1].rc == 3;
        if (leaked) { /* which step leaked: each again, alone */
            int k = nrec - 1;
            for (int i = 0; i < k; i++) {
                int one;
                run_children(file, ref, &recs[i].n, 1, 1, &recs[i], &one);
            }
            nrec = k;
        }
        for (int i = 0; i < nrec; i++) {
            if (recs[i].rc == 2)
                return 0;
            (*points)++;
            *last = recs[i].n;
            *failed += recs[i].rc != 0;
            if (recs[i].site)
                note_site(recs[i].site);
        }
        if (clean || nrec >= count)
            return 1;
        /* the child died in the step after the last record */
        printf("FAIL %s N=%lu: the session crashed (the report is above)\n", file, ns[nrec]);
        fflush(stdout);
        (*points)++;
        (*failed)++;
        ns += nrec + 1;
        count -= nrec + 1;
    }
    return 1;
}

/* The reference run of file: 0, or -1 when the first command (the load)
 * fails without failures injected. Later commands may fail (undo with
 * nothing to undo): the walk then expects the same failure. */
static int make_reference(const char *file, reference *ref, unsigned long *total) {
    session s;
    session_open(&s);
    take_artifacts(NULL, 0);
    exdb_fault_arm((unsigned long)-1, arena_calls); /* counts, never fails */
    int rc = 0;
    for (int i = 0; i < ncmds; i++) {
        char *line = expand(cmds[i], file);
        unsigned long seen0 = exdb_fault_seen();
        double t0 = now();
        run_cmd(&s, line, &ref->ref[i]);
        if (verbose)
            fprintf(stderr, "  %-45s %6lu allocations %8.1f ms%s\n", line,
                    exdb_fault_seen() - seen0, (now() - t0) * 1e3,
                    ref->ref[i].rc < 0 ? " (fails)" : "");
        if (ref->ref[i].rc < 0 && i == 0) {
            fprintf(stderr, "fault_walk: %s: \"%s\" fails without injected failures: %s\n", file,
                    line, ref->ref[i].err);
            rc = -1;
        }
        free(line);
    }
    *total = exdb_fault_seen();
    exdb_fault_arm(0, 0);
    session_close(&s);
    ref->narts = take_artifacts(ref->arts, 32);
    return rc;
}

static int walk(const char *file, unsigned long start, unsigned long stride) {
    reference ref = {0};
    unsigned long total = 0, total2 = 0;
    if (make_reference(file, &ref, &total) < 0) {
        for (int i = 0; i < ncmds; i++)
            result_free(&ref.ref[i]);
        artifacts_free(ref.arts, ref.narts);
        return 1;
    }
    /* a second reference: the count of the steps, which run after it */
    reference again = {0};
    nstacks = 0;
    exdb_fault_on_count = note_stack;
    make_reference(file, &again, &total2);
    exdb_fault_on_count = NULL;
    for (int i = 0; i < ncmds; i++)
        result_free(&again.ref[i]);
    artifacts_free(again.arts, again.narts);
    /* the first session of a process may allocate once what later ones
     * find made (Graphviz's context): the steps run after both, as the second */
    total = total2;
    int first_site = nsites;
    unsigned long points = 0, failed = 0, n = start, last = 0, skipped = 0;
    if (census) { /* the sites the session's allocations come from, none failed */
        for (int i = 0; i < ncmds; i++)
            result_free(&ref.ref[i]);
        artifacts_free(ref.arts, ref.narts);
        return 0;
    }
    if (trace) {
        exdb_fault_on_fail = print_stack;
        const void *site;
        int rc = step(file, trace, &ref, 1, &site);
        exdb_fault_on_fail = NULL;
        for (int i = 0; i < ncmds; i++)
            result_free(&ref.ref[i]);
        artifacts_free(ref.arts, ref.narts);
        return rc == 1;
    }
    for (int more = 1; more;) {
        unsigned long ns[BATCH];
        int count = pick(&n, stride, ns, &skipped);
        more = batch(file, &ref, ns, count, &points, &failed, &last);
    }
    printf("%s: %lu points (%lu..%lu of %lu allocations, stride %lu; %lu skipped: a call stack "
           "walked before), %d more allocation sites, %lu failed\n",
           file, points, start, last, total, stride, skipped, nsites - first_site, failed);
    for (int i = 0; i < ncmds; i++)
        result_free(&ref.ref[i]);
    artifacts_free(ref.arts, ref.narts);
    return failed > 0;
}

static int usage(void) {
    fprintf(stderr, "usage: fault_walk [--stride K] [--start N] [--persistent] [--arena-calls] "
                    "[--sites] [--all-stacks] [--census] [--lazy-meta] [--shape-first] [--cache] "
                    "[--cache-write] [--trace N] "
                    "[-v] [-c CMD]... "
                    "FILE...\n");
    return 2;
}

int main(int argc, char **argv) {
    unsigned long stride = 1, start = 1;
    const char *files[MAX_FILES];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stride") == 0 && i + 1 < argc)
            stride = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--start") == 0 && i + 1 < argc)
            start = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--persistent") == 0)
            persistent = 1;
        else if (strcmp(argv[i], "--arena-calls") == 0)
            arena_calls = EXDB_FAULT_ARENA_CALLS;
        else if (strcmp(argv[i], "--lazy-meta") == 0)
            exdb_program_lazy_meta(0); /* every program's metadata read at first use */
        else if (strcmp(argv[i], "--shape-first") == 0)
            exdb_program_shape_first(0); /* every program opened shape first */
        else if (strcmp(argv[i], "--cache") == 0)
            cache_dir[0] = 1;
        else if (strcmp(argv[i], "--cache-write") == 0)
            cache_dir[0] = cache_write = 1;
        else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc)
            trace = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--all-stacks") == 0)
            all_stacks = 1;
        else if (strcmp(argv[i], "--census") == 0)
            census = list_sites = 1;
        else if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--sites") == 0)
            list_sites = 1;
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && ncmds < MAX_CMDS - 1)
            cmds[ncmds++] = argv[++i];
        else if (argv[i][0] == '-' || nfiles == MAX_FILES)
            return usage();
        else
            files[nfiles++] = argv[i];
    }
    if (!nfiles || !stride || !start)
        return usage();
    for (int i = 0; !ncmds && default_cmds[i]; i++)
        cmds[i] = (char *)default_cmds[i];
    while (cmds[ncmds])
        ncmds++;
    /* save and render fsync what they write: in memory (tmpfs) that costs
     * nothing, on a disk it was most of the walk's time */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%.40s/exdb-faults-XXXXXX", tmp);
    if (!mkdtemp(dir) || !(outf = tmpfile()) || !(errf = tmpfile())) {
        perror("fault_walk");
        return 2;
    }
    if (cache_dir[0]) {
        snprintf(cache_dir, sizeof cache_dir, "%.40s/exdb-cache-XXXXXX", tmp);
        if (!mkdtemp(cache_dir)) {
            perror("fault_walk");
            return 2;
        }
        exdb_cache_use(cache_dir);
        exdb_cache_racy(0); /* the files may be fresh from a checkout */
    }
    int pass = 0, fail = 0;
    for (int i = 0; i < nfiles; i++) {
        if (walk(files[i], start, stride))
            fail++;
        else
            pass++;
    }
    if (list_sites) {
        char buf[512];
        for (int i = 0; i < nsites; i++)
            printf("site %s: %lu\n", site_name(sites[i], buf, sizeof buf), site_hits[i]);
    }
    rmdir(dir);
    if (cache_dir[0]) {
        exdb_cache_clear();
        rmdir(cache_dir);
    }
    fclose(outf);
    fclose(errf);
    printf("%d allocation sites made to fail in all\n", nsites);
    printf("faults: %d passed, %d failed\n", pass, fail);
    return fail ? 1 : 0;
}
