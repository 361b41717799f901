/* program_thread.c - the IR of a program opened shape first built in a
 * thread of its own (program.h: exdb_program_build_start, as gdb reads
 * symbols after the prompt), and the waits for it: the whole build
 * (exdb_program_wait), or until a Ctrl-C (exdb_program_wait_or).
 *
 * The thread blocks the signals a user or the terminal sends, so that they
 * reach the REPL's thread; it tells it is done through a pipe, which the
 * REPL's thread waits on in ppoll with those signals unblocked only inside
 * the wait (no Ctrl-C lost between the test of its flag and the wait). */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "core/base/fault.h"
#include "core/export/program.h"
#include "core/export/program_impl.h"

#ifndef __USE_GNU /* <features.h> read before _GNU_SOURCE (the fault build's -include) */
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *mask);
#endif

static void (*build_gate)(void);

void exdb_program_build_gate(void (*gate)(void)) {
    build_gate = gate;
}

static void *build_thread(void *arg) {
    exdb_program *p = arg;
    struct exdb_program_pending *pd = p->pending;
    if (build_gate)
        build_gate();
    pd->result = exdb_program_attempt(p, pd, &pd->terr);
    char one = 1; /* the waiter woken: one byte, never blocking */
    while (write(pd->done[1], &one, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

/* The signals a user or the terminal sends (Ctrl-C at the prompt): the
 * REPL's thread's, not the build's; a fault on the text (SIGBUS) stays the
 * faulting thread's. */
static void async_signals(sigset_t *set) {
    static const int async[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGWINCH, SIGTSTP,
                                SIGCHLD, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,  SIGCONT};
    sigemptyset(set);
    for (size_t i = 0; i < sizeof async / sizeof *async; i++)
        sigaddset(set, async[i]);
}

/* The pipe through which the build tells it is done: both ends close on
 * exec, the writing one never blocks (ppoll, unlike pselect, takes a
 * descriptor past FD_SETSIZE: a process holding 1,024 files). 1, or 0 when
 * there is none. */
static int done_pipe(int fds[2]) {
    if (pipe(fds) != 0)
        return 0;
    int fl = fcntl(fds[1], F_GETFL);
    if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 &&
        fl >= 0 && fcntl(fds[1], F_SETFL, fl | O_NONBLOCK) == 0)
        return 1;
    close(fds[0]);
    close(fds[1]);
    return 0;
}

/* Closes the pipe of a thread that has ended or never started. */
static void close_done(struct exdb_program_pending *pd) {
    close(pd->done[0]);
    close(pd->done[1]);
    pd->done[0] = pd->done[1] = -1;
}

void exdb_program_build_start(exdb_program *p) {
    struct exdb_program_pending *pd = p->pending;
    if (!pd || pd->running || pd->failed)
        return;
#ifdef EXDB_FAULT
    if (exdb_fault_armed()) /* the counting assumes one thread */
        return;
#endif
    /* no pipe (out of descriptors): no thread either, the first command
     * that needs the IR builds it (a wait nothing could stop would say
     * Ctrl-C stops it) */
    if (!done_pipe(pd->done))
        return;
    sigset_t block, old;
    async_signals(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pd->view = *p;
    pd->view.graph = NULL; /* the shape's counts */
    pd->running = pthread_create(&pd->thread, NULL, build_thread, p) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!pd->running)
        close_done(pd);
}

const exdb_program *exdb_program_shape_view(const exdb_program *p) {
    return p && p->pending && p->pending->running ? &p->pending->view : p;
}

void exdb_program_wait(exdb_program *p) {
    struct exdb_program_pending *pd = p ? p->pending : NULL;
    if (!pd || !pd->running)
        return;
    pthread_join(pd->thread, NULL);
    pd->running = 0;
    close_done(pd);
    if (pd->result == 0) {
        p->pending = NULL;
        exdb_program_pending_free(pd);
    } /* refused: pd->failed; out of memory: exdb_program_build tries again */
}

int exdb_program_building(const exdb_program *p) {
    const struct exdb_program_pending *pd = p ? p->pending : NULL;
    if (!pd || !pd->running)
        return 0;
    struct pollfd f = {.fd = pd->done[0], .events = POLLIN};
    int r;
    while ((r = poll(&f, 1, 0)) < 0 && errno == EINTR)
        ;
    return r != 1; /* a poll that failed says nothing is done: still building */
}

int exdb_program_wait_or(exdb_program *p, const volatile sig_atomic_t *stop) {
    struct exdb_program_pending *pd = p ? p->pending : NULL;
    if (pd && pd->running) {
        sigset_t block, old;
        async_signals(&block);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        int r = 0;
        /* the flag tested with the signals held; ppoll lets them in and
         * waits in one step, so one landing between is not lost */
        while (!*stop && r == 0) {
            struct pollfd f = {.fd = pd->done[0], .events = POLLIN};
            if ((r = ppoll(&f, 1, NULL, &old)) < 0 && errno == EINTR)
                r = 0;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r == 0)
            return 1; /* stopped; the build goes on */
    }                 /* done, or the wait failed: the whole build waited for */
    exdb_program_wait(p);
    return 0;
}
