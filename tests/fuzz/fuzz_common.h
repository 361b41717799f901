/* fuzz_common.h - helpers shared by the libFuzzer harnesses in tests/fuzz.
 *
 * Every harness defines LLVMFuzzerTestOneInput (and maybe
 * LLVMFuzzerInitialize). The same sources build two ways (Makefile, fuzz
 * block): with clang -fsanitize=fuzzer into build/fuzz/fuzz_NAME, and with
 * replay_main.c into build/san/fuzz-replay/fuzz_NAME, which runs each file
 * given on the command line once (tests/run_fuzz_regressions.extra.sh).
 * A harness must free everything it allocates on every path: LeakSanitizer
 * runs after each input that allocates more than it frees. */
#ifndef EXDB_FUZZ_COMMON_H
#define EXDB_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the per-input memory budget (issue 22: a 74 KB program grew to
 * 21.8 GB). Each harness calls fuzz_budget(size) first: from then until the
 * next call, the bytes the process holds through malloc may grow by at most
 * FUZZ_BUDGET_BASE + FUZZ_BUDGET_PER_BYTE * size over what it held at the
 * call, or the input is reported ("per-input memory budget exceeded") and
 * the process traps: a finding, not a timeout. Counted with the sanitizer
 * allocator's malloc/free hooks, so every allocation of exdb and of the
 * libraries it calls is seen, whether or not libFuzzer drives the harness
 * (replay_main.c too). */
#define FUZZ_BUDGET_BASE     ((size_t)384 << 20)
#define FUZZ_BUDGET_PER_BYTE ((size_t)2048)

void __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                               void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);

static long long fuzz_held;    /* bytes held through malloc since the hooks went in */
static long long fuzz_base;    /* fuzz_held at the current input's start */
static long long fuzz_limit;   /* its budget; 0 before the first input */
static size_t fuzz_input_size; /* the current input's size, for the report */

static void fuzz_malloc_hook(const volatile void *p, size_t n) {
    (void)p;
    fuzz_held += (long long)n;
    if (fuzz_limit && fuzz_held - fuzz_base > fuzz_limit) {
        static const char msg[] = "==fuzz== per-input memory budget exceeded (see fuzz_common.h)\n";
        fuzz_limit = 0;
        if (write(2, msg, sizeof msg - 1) < 0) {
            /* nothing more to say */
        }
        fprintf(stderr, "==fuzz== held %lld bytes over the input's start, budget %zu + %zu * %zu\n",
                fuzz_held - fuzz_base, FUZZ_BUDGET_BASE, FUZZ_BUDGET_PER_BYTE, fuzz_input_size);
        __builtin_trap();
    }
}

static void fuzz_free_hook(const volatile void *p) {
    if (p)
        fuzz_held -= (long long)__sanitizer_get_allocated_size(p);
}

static inline void fuzz_budget(size_t size) {
    static int installed;
    if (!installed) {
        installed = 1;
        __sanitizer_install_malloc_and_free_hooks(fuzz_malloc_hook, fuzz_free_hook);
    }
    fuzz_base = fuzz_held;
    fuzz_input_size = size;
    fuzz_limit = (long long)(FUZZ_BUDGET_BASE + FUZZ_BUDGET_PER_BYTE * size);
}

/* data[0..size) as a malloc'd buffer with a NUL at [size] (the spare byte
 * exdb_json_parse needs); NULL when out of memory. */
static inline char *fuzz_dup(const uint8_t *data, size_t size) {
    char *p = malloc(size + 1);
    if (!p)
        return NULL;
    if (size)
        memcpy(p, data, size);
    p[size] = '\0';
    return p;
}

/* A failure must say why, in one line (error.h): anything else is a bug
 * worth a crash report. */
static inline void fuzz_check_error(const char *msg, int set) {
    if (!set || !msg[0] || strchr(msg, '\n'))
        __builtin_trap();
}

/* A private scratch directory for the process (on tmpfs when there is one),
 * created on first use; "" when none could be made. Never removed while the
 * process runs; fuzz_cleanup_dir removes it at exit. */
static char fuzz_dir_path[256];

static inline void fuzz_cleanup_dir(void) {
    if (!fuzz_dir_path[0])
        return;
    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_path);
    if (system(cmd) != 0) {
        /* best effort */
    }
}

static inline const char *fuzz_dir(void) {
    if (fuzz_dir_path[0])
        return fuzz_dir_path;
    const char *bases[] = {getenv("EXDB_FUZZ_TMP"), "/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (size_t i = 0; i < sizeof bases / sizeof *bases; i++) {
        struct stat st;
        if (!bases[i] || !*bases[i] || stat(bases[i], &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/exdb-fuzz-XXXXXX", bases[i]);
        if (mkdtemp(fuzz_dir_path)) {
            atexit(fuzz_cleanup_dir);
            return fuzz_dir_path;
        }
    }
    fuzz_dir_path[0] = '\0';
    return fuzz_dir_path;
}

/* Writes data to dir/name (replacing it); returns the path (static) or NULL. */
static inline const char *fuzz_write_file(const char *name, const uint8_t *data, size_t size) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return NULL;
        }
        off += (size_t)n;
    }
    close(fd);
    return path;
}

#endif
