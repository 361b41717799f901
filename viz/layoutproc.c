/* layoutproc.c - Graphviz's layout and rendering in a child process.
 *
 * gvLayout has no cancel hook: dot on a few thousand nodes runs for
 * minutes, and Graphviz ends the process on some errors (exit(1) from
 * "trouble in init_rank", segfaults seen in dot 2.43 with some rank
 * settings). Run in a forked child, a Ctrl-C kills only the child and a
 * Graphviz crash becomes an error message: the session goes on either
 * way. The child inherits the laid-out graph and the loaded plugins
 * (copy-on-write) and sends back the rendered bytes through a pipe. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/outfile.h"
#include "viz/layoutproc.h"

/* What the child sends before the bytes. */
typedef struct child_head {
    int32_t rc; /* 0 rendered, 1 layout failed, 2 render failed, 3 bitmap too large */
    double layout_s;
    uint64_t len;
    double w, h; /* rc 3: the bitmap's size in pixels */
} child_head;

/* A bitmap cairo can make: sides up to 32,767 px (Graphviz's cairo plugin
 * otherwise prints "(null): graph is too large for cairo-renderer bitmaps"
 * and scales it down), and at most VZ_MAX_PIXELS pixels (4 bytes each). */
#define VZ_MAX_SIDE   32767.0
#define VZ_MAX_PIXELS 250e6

/* After the layout: whether the picture, rendered as `as`, is a bitmap
 * too large to make; *w and *h its size in pixels (at the graph's dpi,
 * else Graphviz's 96). */
static int too_large(Agraph_t *g, const char *as, double *w, double *h) {
    *w = *h = 0;
    if (strcmp(as, "png") != 0)
        return 0;
    double llx, lly, urx, ury;
    const char *bb = agget(g, "bb");
    if (!bb || sscanf(bb, "%lf%*[ ,]%lf%*[ ,]%lf%*[ ,]%lf", &llx, &lly, &urx, &ury) != 4)
        return 0;
    const char *dpis = agget(g, "dpi");
    double dpi = dpis && atof(dpis) > 0 ? atof(dpis) : 96.0;
    *w = (urx - llx) * dpi / 72.0;
    *h = (ury - lly) * dpi / 72.0;
    return *w > VZ_MAX_SIDE || *h > VZ_MAX_SIDE || *w * *h > VZ_MAX_PIXELS;
}

static int too_large_error(const char *path, double w, double h, exdb_error *err) {
    return exdb_errorf(err,
                       "%s: the picture would be %.0f x %.0f px, too large for a bitmap (at most "
                       "%.0f px a side and %.0f million pixels): write .svg or .pdf, or draw less "
                       "(render modules, --hide state,dead)",
                       path, w, h, VZ_MAX_SIDE, VZ_MAX_PIXELS / 1e6);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* In the child: lay out, render, send, and leave without running exit
 * handlers (stdio buffers and LeakSanitizer belong to the parent). */
static void child_main(int fd, GVC_t *gvc, Agraph_t *g, const char *engine, const char *as) {
    child_head h = {0, 0, 0, 0, 0};
    char *data = NULL;
    unsigned int len = 0;
    double t = now();
    if (gvLayout(gvc, g, engine) != 0) {
        h.rc = 1;
    } else {
        h.layout_s = now() - t;
        if (too_large(g, as, &h.w, &h.h))
            h.rc = 3;
        else if (gvRenderData(gvc, g, as, &data, &len) != 0 || !data)
            h.rc = 2;
        h.len = h.rc == 0 ? len : 0;
    }
    int ok = exdb_out_write_all(fd, (const char *)&h, sizeof h) == 0 &&
             (h.len == 0 || exdb_out_write_all(fd, data, h.len) == 0);
    _exit(ok ? 0 : 3);
}

/* Reads n bytes, polling so that a Ctrl-C (*interrupt set by the REPL's
 * handler, with or without SA_RESTART) is seen within 100 ms. 0 read,
 * 1 interrupted, -1 end of pipe or error. */
static int read_polled(int fd, void *p, size_t n, volatile sig_atomic_t *interrupt) {
    char *c = p;
    while (n > 0) {
        if (*interrupt)
            return 1;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int k = poll(&pf, 1, 100);
        if (k < 0 && errno != EINTR)
            return -1;
        if (k <= 0)
            continue;
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The child's end as a message: how it stopped when it sent nothing. */
static int child_failed(pid_t pid, const char *path, const char *engine, exdb_error *err) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status))
        return exdb_errorf(err, "%s: Graphviz (%s) crashed laying out the graph (signal %d)", path,
                           engine, WTERMSIG(status));
    return exdb_errorf(err, "%s: Graphviz (%s) stopped laying out the graph (exit status %d)", path,
                       engine, WEXITSTATUS(status));
}

static int in_process(GVC_t *gvc, Agraph_t *g, const char *engine, const char *as, vz_laid_out *out,
                      const char *path, exdb_error *err) {
    double t = now();
    if (gvLayout(gvc, g, engine) != 0)
        return exdb_errorf(err, "%s: Graphviz could not lay out the graph (%s)", path, engine);
    out->layout_s = now() - t;
    double w, h;
    if (too_large(g, as, &w, &h)) {
        gvFreeLayout(gvc, g);
        return too_large_error(path, w, h, err);
    }
    char *data = NULL;
    unsigned int len = 0;
    int rc = gvRenderData(gvc, g, as, &data, &len) == 0 && data ? 0 : -1;
    gvFreeLayout(gvc, g);
    if (rc < 0)
        return exdb_errorf(err, "%s: Graphviz could not render the graph as %s", path, as);
    out->data = data;
    out->len = len;
    out->gv_owned = 1;
    return 0;
}

int vz_layout_render(GVC_t *gvc, Agraph_t *g, const char *engine, const char *as,
                     volatile sig_atomic_t *interrupt, vz_laid_out *out, const char *path,
                     exdb_error *err) {
    memset(out, 0, sizeof *out);
    if (!interrupt)
        return in_process(gvc, g, engine, as, out, path, err);
    int fds[2];
    if (pipe(fds) != 0)
        return exdb_errorf(err, "%s: cannot start the layout: %s", path, strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return exdb_errorf(err, "%s: cannot start the layout: %s", path, strerror(errno));
    }
    if (pid == 0) {
        /* a parent ended by a signal must not leave dot running for hours */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(4);
        close(fds[0]);
        child_main(fds[1], gvc, g, engine, as);
    }
    close(fds[1]);
    child_head h;
    int r = read_polled(fds[0], &h, sizeof h, interrupt);
    if (r == 0 && h.rc == 0) {
        out->data = h.len ? malloc(h.len) : NULL;
        if (h.len && !out->data) {
            r = 2;
        } else {
            r = read_polled(fds[0], out->data, h.len, interrupt);
        }
    }
    close(fds[0]);
    if (r == 1)
        kill(pid, SIGKILL);
    if (r == 1 || r == 2 || (r == 0 && h.rc != 0) || r < 0) {
        free(out->data);
        out->data = NULL;
        if (r < 0)
            return child_failed(pid, path, engine, err);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        if (r == 1)
            return exdb_errorf(err, "%s: render interrupted; nothing written", path);
        if (r == 2)
            return exdb_errorf(err, "%s: out of memory", path);
        if (h.rc == 1)
            return exdb_errorf(err, "%s: Graphviz could not lay out the graph (%s)", path, engine);
        if (h.rc == 3)
            return too_large_error(path, h.w, h.h, err);
        return exdb_errorf(err, "%s: Graphviz could not render the graph as %s", path, as);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    out->len = h.len;
    out->layout_s = h.layout_s;
    return 0;
}

void vz_laid_out_free(vz_laid_out *out) {
    if (out->gv_owned)
        gvFreeRenderData(out->data);
    else
        free(out->data);
    memset(out, 0, sizeof *out);
}
