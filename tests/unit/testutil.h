/* testutil.h - what several unit-test files share: where the real programs
 * are, and a scratch directory per test (created in .init, emptied and
 * removed in .fini). Header-only: each test file is its own unit. */
#ifndef EXDB_TESTUTIL_H
#define EXDB_TESTUTIL_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ../shared/real_pt2 beside the repository (the unit binary runs from the
 * repository root, as tests/run.sh does), or $REAL_PT2, as the shell suites. */
static inline const char *test_real_dir(void) {
    const char *e = getenv("REAL_PT2");
    return e && *e ? e : "../shared/real_pt2";
}

static char test_tdir[256];

/* .init: a fresh /tmp/exdb-TAG-XXXXXX for the test. */
static inline void test_tmpdir_make(const char *tag) {
    snprintf(test_tdir, sizeof test_tdir, "/tmp/exdb-%s-XXXXXX", tag);
    cr_assert_not_null(mkdtemp(test_tdir));
}

/* .fini: tests write plain files straight into the directory. */
static inline void test_tmpdir_remove(void) {
    DIR *d = opendir(test_tdir);
    struct dirent *de;
    char p[768];
    while (d && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", test_tdir, de->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    rmdir(test_tdir);
}

/* A path inside the scratch directory (eight rotating static buffers). */
static inline const char *test_tpath(const char *name) {
    static char bufs[8][512];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", test_tdir, name);
    return b;
}

#endif
