/* test_outfile.c - core/base/outfile.c: only regular files are replaced, and a
 * terminating signal removes the temporaries of a write in progress (a
 * file, or a directory with what the container layer and libzip put in it)
 * while a signal exdb handles itself, or ignores, leaves the write alone. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/outfile.h"
#include "core/export/program.h"
#include "core/export/save.h"

#include "testutil.h"

static void setup(void) {
    test_tmpdir_make("outfile");
}

TestSuite(outfile, .init = setup, .fini = test_tmpdir_remove);

/* The number of entries in the scratch directory, dotfiles included. */
static int entries(void) {
    DIR *d = opendir(test_tdir);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

Test(outfile, only_regular_files_are_replaced) {
    exdb_error err = {0};
    cr_assert_eq(exdb_out_check(test_tpath("absent"), 0, &err), 0);
    cr_assert_eq(exdb_out_check("/dev/null", 1, &err), -1);
    cr_assert_str_eq(err.msg, "/dev/null: not a regular file (a character device): refusing to "
                              "replace it");
    cr_assert_eq(mkfifo(test_tpath("fifo"), 0600), 0);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_check(test_tpath("fifo"), 1, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a FIFO)"), "%s", err.msg);
    cr_assert_eq(symlink(test_tpath("nowhere"), test_tpath("link")), 0);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_check(test_tpath("link"), 1, &err), -1);
    cr_assert(strstr(err.msg, "(a symbolic link)"), "%s", err.msg);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_check(test_tdir, 1, &err), -1);
    cr_assert(strstr(err.msg, "is a directory"), "%s", err.msg);
    /* a regular file: only with replace */
    cr_assert_eq(exdb_out_write(test_tpath("f"), "a", 1, 0644, 0, &err), 0, "%s", err.msg);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_write(test_tpath("f"), "b", 1, 0644, 0, &err), -1);
    cr_assert(strstr(err.msg, "file exists (use --force to replace it)"), "%s", err.msg);
    cr_assert_eq(exdb_out_write(test_tpath("f"), "b", 1, 0644, 1, &err), 0, "%s", err.msg);
    /* a FIFO is not opened, written or replaced (opening it would block) */
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_write(test_tpath("fifo"), "b", 1, 0644, 1, &err), -1);
    struct stat st;
    cr_assert_eq(lstat(test_tpath("fifo"), &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
    cr_assert_eq(lstat(test_tpath("link"), &st), 0);
    cr_assert(S_ISLNK(st.st_mode));
    cr_assert_eq(entries(), 3, "fifo, link, f: no temporary file");
}

/* set logging's target (exdb_out_open_log) and save's check name what is
 * in the way: a directory, a socket, a block device (as root: a copy made
 * here of the loop device's numbers, never opened), a folder that is not
 * there; nothing is created in its place. */
Test(outfile, log_and_save_targets_that_are_not_files) {
    exdb_error err = {0};
    cr_assert_eq(exdb_out_open_log(test_tdir, 0, &err), -1);
    cr_assert(strstr(err.msg, ": is a directory"), "%s", err.msg);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_open_log(test_tpath("no/such.log"), 0, &err), -1);
    cr_assert(strstr(err.msg, "no/such.log: No such file or directory"), "%s", err.msg);
    int sk = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_geq(sk, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    const char *sp = test_tpath("sock");
    cr_assert_lt(strlen(sp), sizeof sa.sun_path);
    strcpy(sa.sun_path, sp);
    cr_assert_eq(bind(sk, (struct sockaddr *)&sa, sizeof sa), 0, "%s", strerror(errno));
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_open_log(sp, 0, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a socket): refusing to write to it"), "%s",
              err.msg);
    exdb_error_clear(&err);
    cr_assert_eq(exdb_out_check(sp, 1, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a socket): refusing to replace it"), "%s",
              err.msg);
    close(sk);
    if (mknod(test_tpath("blk"), S_IFBLK | 0600, makedev(7, 250)) == 0) {
        exdb_error_clear(&err);
        cr_assert_eq(exdb_out_check(test_tpath("blk"), 1, &err), -1);
        cr_assert(strstr(err.msg, "(a block device)"), "%s", err.msg);
    }
    struct stat st;
    cr_assert_eq(lstat(sp, &st), 0);
    cr_assert(S_ISSOCK(st.st_mode));
}

/* save --force onto a FIFO and onto a device: refused, both left alone
 * (as root, renaming over /dev/null replaced the device with a file). The
 * device is a copy of /dev/null made here (as root; else only the FIFO):
 * a save without the check must never be pointed at the real one. */
Test(outfile, save_refuses_devices_and_fifos) {
    exdb_error err = {0};
    exdb_program *p = exdb_program_load("tests/fixtures/dce/dead_pure.json", NULL, &err);
    cr_assert_not_null(p, "%s", err.msg);
    cr_assert_eq(mkfifo(test_tpath("fifo.json"), 0600), 0);
    cr_assert_eq(exdb_program_save(p, test_tpath("fifo.json"), 1, NULL, &err), -1);
    cr_assert(strstr(err.msg, "not a regular file (a FIFO)"), "%s", err.msg);
    struct stat st;
    cr_assert_eq(lstat(test_tpath("fifo.json"), &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
    int devices = mknod(test_tpath("null"), S_IFCHR | 0666, makedev(1, 3)) == 0;
    if (devices) {
        exdb_error_clear(&err);
        cr_assert_eq(exdb_program_save(p, test_tpath("null"), 1, NULL, &err), -1);
        cr_assert(strstr(err.msg, "not a regular file (a character device)"), "%s", err.msg);
        cr_assert_eq(lstat(test_tpath("null"), &st), 0);
        cr_assert(S_ISCHR(st.st_mode));
    }
    cr_assert_eq(entries(), 1 + devices);
    exdb_program_free(p);
}

/* In a child: a temporary file and a temporary directory holding two files
 * (as save's holds the container's and libzip's), then sig. */
static volatile sig_atomic_t caught;

static void child_with_temps(int sig) {
    exdb_error err = {0};
    struct sigaction before, after;
    sigaction(SIGTERM, NULL, &before);
    char *f, *d;
    int fd;
    if (exdb_out_temp(test_tpath("out.svg"), 0, &f, &fd, &err) < 0 ||
        exdb_out_temp(test_tpath("out.pt2"), 1, &d, NULL, &err) < 0)
        _exit(3);
    if (write(fd, "partial", 7) != 7)
        _exit(4);
    char inner[600];
    snprintf(inner, sizeof inner, "%s/out.pt2.tmp-123456", d);
    close(open(inner, O_CREAT | O_WRONLY, 0600));
    snprintf(inner, sizeof inner, "%s/out.pt2.tmp-123456.abcdef", d);
    close(open(inner, O_CREAT | O_WRONLY, 0600));
    raise(sig);
    /* still running: the signal did not end the write */
    exdb_out_discard(f);
    exdb_out_discard(d);
    /* the previous actions are back once no temporary is left */
    sigaction(SIGTERM, NULL, &after);
    if (after.sa_handler != before.sa_handler || (after.sa_flags & SA_SIGINFO))
        _exit(6);
    _exit(caught ? 10 : 0);
}

static int run_child(int sig, void (*prepare)(int)) {
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        /* the default action, whatever the runner left: a shell starts a
         * background job with SIGINT ignored, and an ignored signal stays
         * ignored (the case the prepare functions make on purpose) */
        signal(sig, SIG_DFL);
        if (prepare)
            prepare(sig);
        child_with_temps(sig);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

Test(outfile, a_terminating_signal_removes_the_temporaries) {
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        int status = run_child(sigs[i], NULL);
        cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i], "signal %d: status %#x",
                  sigs[i], status);
        cr_assert_eq(entries(), 0, "signal %d left temporaries", sigs[i]);
    }
}

static void on_sig(int sig) {
    caught = sig;
}
static void catch_it(int sig) {
    signal(sig, on_sig);
}
static void ignore_it(int sig) {
    signal(sig, SIG_IGN);
}

/* The prompt's Ctrl-C handler still gets SIGINT, and the write goes on;
 * an ignored SIGHUP stays ignored. */
Test(outfile, a_handled_or_ignored_signal_does_not_end_the_write) {
    int status = run_child(SIGINT, catch_it);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 10, "caught: status %#x", status);
    status = run_child(SIGHUP, ignore_it);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ignored: status %#x", status);
    cr_assert_eq(entries(), 0);
}
