/* outfile.c - see outfile.h: refuse what is not a regular file, write
 * through a temporary beside the target, remove temporaries when a signal
 * ends exdb. */
#include "core/base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <dirent.h>

/* ---- the temporaries a signal removes */

#define SLOTS 4 /* save holds one directory, render one file */

static struct {
    char *volatile path;
    volatile sig_atomic_t dir;
} slots[SLOTS];
static int nslots;
static const int fatal_signals[3] = {SIGTERM, SIGINT, SIGHUP};
static struct sigaction previous[3];
/* Ignored while a temporary exists, so that a write that cannot finish is
 * an error (EFBIG, EPIPE) the writer reports and cleans up after, not the
 * end of exdb with the temporary left behind: SIGXFSZ (past ulimit -f) and
 * SIGPIPE (a layout pipe whose reader died, or one sent by kill). */
static const int write_signals[2] = {SIGXFSZ, SIGPIPE};
static struct sigaction previous_write[2];

/* Removes every entry of dir, then dir. Called from the signal handler, so
 * only async-signal-safe calls on Linux (getdents64 through syscall); a
 * pass may miss entries removed under it, hence the repeats. */
static void remove_dir(const char *dir) {
    for (int pass = 0; pass < 8; pass++) {
        if (rmdir(dir) == 0 || (errno != ENOTEMPTY && errno != EEXIST))
            return;
#if defined(__linux__) && defined(SYS_getdents64)
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return;
        _Alignas(8) char buf[4096];
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: ino, off, reclen, type, name */
                const char *rec = buf + off;
                unsigned short reclen;
                memcpy(&reclen, rec + 16, sizeof reclen);
                const char *name = rec + 19;
                if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
                    unlinkat(fd, name, 0);
                off += reclen;
            }
        }
        close(fd);
#else
        DIR *d = opendir(dir);
        if (!d)
            return;
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, ".."))
                unlinkat(dirfd(d), de->d_name, 0);
        closedir(d);
#endif
    }
}

static void remove_temp(const char *path, int dir) {
    if (dir)
        remove_dir(path);
    else
        unlink(path);
}

/* A terminating signal while temporaries exist: the signal's previous
 * action decides. A handler of exdb's own (the prompt's Ctrl-C flag) or
 * SIG_IGN means the signal does not end exdb: it is passed on and the write
 * goes on. The default action ends exdb: remove the temporaries, restore
 * the default and raise the signal again (delivered when this returns). */
static void on_fatal_signal(int sig, siginfo_t *info, void *uc) {
    int k = sig == SIGTERM ? 0 : sig == SIGINT ? 1 : 2;
    const struct sigaction *o = &previous[k];
    int saved = errno;
    if (o->sa_flags & SA_SIGINFO)
        o->sa_sigaction(sig, info, uc);
    else if (o->sa_handler != SIG_IGN && o->sa_handler != SIG_DFL)
        o->sa_handler(sig);
    if ((o->sa_flags & SA_SIGINFO) || o->sa_handler != SIG_DFL) {
        errno = saved;
        return;
    }
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].path)
            remove_temp(slots[i].path, slots[i].dir);
    sigaction(sig, o, NULL);
    raise(sig);
}

static void block_fatal(sigset_t *old) {
    sigset_t s;
    sigemptyset(&s);
    for (int i = 0; i < 3; i++)
        sigaddset(&s, fatal_signals[i]);
    sigprocmask(SIG_BLOCK, &s, old);
}

/* Records path in a free slot (signals blocked by the caller); the first
 * one installs the handler. -1 when every slot is taken. */
static int track(char *path, int dir) {
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].path)
            continue;
        slots[i].dir = dir;
        slots[i].path = path;
        if (nslots++ == 0) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = on_fatal_signal;
            sa.sa_flags = SA_SIGINFO | SA_RESTART;
            sigemptyset(&sa.sa_mask);
            for (int k = 0; k < 3; k++)
                sigaddset(&sa.sa_mask, fatal_signals[k]);
            for (int k = 0; k < 3; k++)
                sigaction(fatal_signals[k], &sa, &previous[k]);
            struct sigaction ign;
            memset(&ign, 0, sizeof ign);
            ign.sa_handler = SIG_IGN;
            sigemptyset(&ign.sa_mask);
            for (int k = 0; k < 2; k++)
                sigaction(write_signals[k], &ign, &previous_write[k]);
        }
        return 0;
    }
    return -1;
}

/* Forgets path (signals blocked by the caller); the last one puts the
 * previous actions back. */
static void untrack(const char *path) {
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].path != path)
            continue;
        slots[i].path = NULL;
        if (--nslots == 0) {
            for (int k = 0; k < 3; k++)
                sigaction(fatal_signals[k], &previous[k], NULL);
            for (int k = 0; k < 2; k++)
                sigaction(write_signals[k], &previous_write[k], NULL);
        }
        return;
    }
}

/* ---- checking and writing */

static const char *kind_of(mode_t m) {
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a file";
}

int exdb_out_check(const char *path, int replace, exdb_error *err) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : exdb_errorf(err, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return exdb_errorf(err, "%s: is a directory", path);
    if (!S_ISREG(st.st_mode))
        return exdb_errorf(err, "%s: not a regular file (%s): refusing to replace it", path,
                           kind_of(st.st_mode));
    if (!replace)
        return exdb_errorf(err, "%s: file exists (use --force to replace it)", path);
    return 0;
}

int exdb_out_open_log(const char *path, int truncate, exdb_error *err) {
    struct stat st;
    int fd = open(path,
                  O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                      (truncate ? 0 : O_APPEND),
                  0666);
    if (fd < 0) {
        int e = errno;
        /* ELOOP: a symbolic link; ENXIO: a FIFO nobody reads; EISDIR */
        if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return S_ISDIR(st.st_mode)
                       ? exdb_errorf(err, "%s: is a directory", path)
                       : exdb_errorf(err, "%s: not a regular file (%s): refusing to write to it",
                                     path, kind_of(st.st_mode));
        return exdb_errorf(err, "%s: %s", path, strerror(e));
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return exdb_errorf(err, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return exdb_errorf(err, "%s: not a regular file (%s): refusing to write to it", path,
                           kind_of(st.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || (truncate && ftruncate(fd, 0) < 0)) {
        int e = errno;
        close(fd);
        return exdb_errorf(err, "%s: %s", path, strerror(e));
    }
    return fd;
}

int exdb_out_temp(const char *path, int dir, char **tmp, int *fd, exdb_error *err) {
    const char *slash = strrchr(path, '/');
    size_t d = slash ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + sizeof "..exdb-XXXXXX";
    char *t = malloc(n);
    if (!t)
        return exdb_errorf(err, "%s: out of memory", path);
    snprintf(t, n, "%.*s.%s.exdb-XXXXXX", (int)d, path, path + d);
    sigset_t old;
    block_fatal(&old);
    int ok, e = 0;
    if (dir) {
        ok = mkdtemp(t) != NULL;
    } else {
        *fd = mkstemp(t);
        ok = *fd >= 0;
        if (ok)
            fcntl(*fd, F_SETFD, FD_CLOEXEC);
    }
    if (!ok)
        e = errno;
    else if (track(t, dir) < 0)
        e = EBUSY; /* more than SLOTS at once: a bug, refused rather than left unguarded */
    if (ok && e) {
        if (!dir)
            close(*fd);
        remove_temp(t, dir);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (e) {
        free(t);
        return exdb_errorf(err, "%s: cannot create a temporary file beside it: %s", path,
                           strerror(e));
    }
    *tmp = t;
    return 0;
}

/* Flushes the directory holding path so a completed rename survives a
 * crash. Best effort: some file systems refuse fsync on directories. */
static void sync_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int exdb_out_install(const char *src, const char *path, int replace, exdb_error *err) {
    if (exdb_out_check(path, replace, err) < 0)
        return -1;
    if (!replace) {
        if (link(src, path) == 0) {
            unlink(src);
            sync_parent(path);
            return 0;
        }
        struct stat st;
        if (errno == EEXIST || lstat(path, &st) == 0)
            return exdb_errorf(err, "%s: file exists (use --force to replace it)", path);
        /* a file system without hard links: checked above, rename below */
    }
    if (rename(src, path) != 0)
        return exdb_errorf(err, "%s: %s", path, strerror(errno));
    sync_parent(path);
    return 0;
}

void exdb_out_discard(char *tmp) {
    if (!tmp)
        return;
    sigset_t old;
    block_fatal(&old);
    int dir = 0;
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].path == tmp)
            dir = slots[i].dir;
    remove_temp(tmp, dir);
    untrack(tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(tmp);
}

void exdb_out_forget(char *tmp) {
    if (!tmp)
        return;
    sigset_t old;
    block_fatal(&old);
    untrack(tmp);
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(tmp);
}

int exdb_out_write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int exdb_out_begin(exdb_outstream *o, const char *path, int replace, exdb_error *err) {
    *o = (exdb_outstream){.path = path, .fd = -1, .replace = replace};
    if (exdb_out_check(path, replace, err) < 0 ||
        exdb_out_temp(path, 0, &o->tmp, &o->fd, err) < 0) {
        o->tmp = NULL;
        o->fd = -1;
        return -1;
    }
    return 0;
}

void exdb_out_put(exdb_outstream *o, const void *data, size_t len) {
    if (!o->errnum && o->fd >= 0 && len && exdb_out_write_all(o->fd, data, len) != 0)
        o->errnum = errno ? errno : EIO;
}

void exdb_out_abort(exdb_outstream *o) {
    if (o->fd >= 0)
        close(o->fd);
    exdb_out_discard(o->tmp);
    o->fd = -1;
    o->tmp = NULL;
}

int exdb_out_end(exdb_outstream *o, mode_t mode, exdb_error *err) {
    mode_t um = umask(0);
    umask(um);
    int e = o->errnum;
    if (!e && fchmod(o->fd, mode & ~um) != 0)
        e = errno;
    if (!e && fsync(o->fd) != 0)
        e = errno;
    if (close(o->fd) != 0 && !e)
        e = errno;
    o->fd = -1;
    if (e) {
        exdb_out_abort(o);
        return exdb_errorf(err, "%s: cannot write: %s", o->path, strerror(e));
    }
    if (exdb_out_install(o->tmp, o->path, o->replace, err) < 0) {
        exdb_out_abort(o);
        return -1;
    }
    exdb_out_forget(o->tmp);
    o->tmp = NULL;
    return 0;
}

int exdb_out_write(const char *path, const void *data, size_t len, mode_t mode, int replace,
                   exdb_error *err) {
    exdb_outstream o;
    if (exdb_out_begin(&o, path, replace, err) < 0)
        return -1;
    exdb_out_put(&o, data, len);
    return exdb_out_end(&o, mode, err);
}
