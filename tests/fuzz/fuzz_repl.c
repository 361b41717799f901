/* fuzz_repl.c - the command interpreter (repl/commands.c and the command
 * tables of repl/cmd_*.c): a session with the bundled example program
 * loaded runs the input as command lines, output to /dev/null.
 *
 * Commands that read or write files named by the input, run shell commands
 * or move the working directory (load, source, save, render, cd, pipe,
 * shell and gdb's !COMMAND, set logging, and any command whose usage says
 * FILE or DIR) are dropped: the
 * line's alias expanded and its first word split exactly as session_exec
 * does, then looked up with command_lookup, so prefixes, short names and
 * user aliases of them ("sa", "lo 'x'", "sou\rce", "| x | sh", "alias z =
 * cd" then "z /") are dropped too. The example is found at
 * $EXDB_FUZZ_EXAMPLE, else tests/fixtures/example.json under the current
 * directory or two levels above the harness binary. */
#include <limits.h>

#include "core/export/program.h"
#include "repl/command.h"
#include "repl/session.h"
#include "repl/commands.h"
#include "fuzz_common.h"

enum { MAX_LINES = 256 };

int LLVMFuzzerInitialize(int *argc, char ***argv);

static char example[PATH_MAX];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *env = getenv("EXDB_FUZZ_EXAMPLE");
    char cand[PATH_MAX];
    if (env && *env) {
        snprintf(cand, sizeof cand, "%s", env);
    } else if (access("tests/fixtures/example.json", R_OK) == 0) {
        snprintf(cand, sizeof cand, "tests/fixtures/example.json");
    } else {
        /* build/fuzz/fuzz_repl -> ../../tests/fixtures/example.json */
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
        for (int up = 0; up < 3; up++) {
            char *slash = strrchr(self, '/');
            if (slash)
                *slash = '\0';
        }
        snprintf(cand, sizeof cand, "%.*s/tests/fixtures/example.json", PATH_MAX - 40, self);
    }
    if (!realpath(cand, example)) {
        fprintf(stderr, "fuzz_repl: cannot find the example program (%s); set EXDB_FUZZ_EXAMPLE\n",
                cand);
        exit(2);
    }
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        exit(2);
    (void)argc;
    (void)argv;
    return 0;
}

/* session_exec's word splitting (commands.c split_words), first word only:
 * 1 with the word in out, 0 for no word, -1 when it does not split. */
static int first_word(const char *line, char *out, size_t cap) {
    const char *r = line;
    size_t w = 0;
    while (*r == ' ' || *r == '\t')
        r++;
    if (!*r)
        return 0;
    char q = 0;
    while (*r && (q || (*r != ' ' && *r != '\t'))) {
        char ch;
        if (q && *r == q) {
            q = 0;
            r++;
            continue;
        } else if (!q && (*r == '\'' || *r == '"')) {
            q = *r++;
            continue;
        } else if (*r == '\\' && q != '\'' && r[1]) {
            ch = r[1];
            r += 2;
        } else {
            ch = *r++;
        }
        if (w + 1 < cap)
            out[w++] = ch;
    }
    out[w] = '\0';
    return q ? -1 : 1;
}

/* "set logging ..." (or a prefix of logging: "set lo on x") writes a file. */
static int sets_logging(const char *line) {
    const char *p = line + strspn(line, " \t");
    p += strcspn(p, " \t"); /* set, or a prefix of it */
    p += strspn(p, " \t");
    size_t n = strcspn(p, " \t");
    return n && strncmp(p, "logging", n < 7 ? n : 7) == 0;
}

static int dropped(const session *s, const char *line) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p || *p == '#' || *p == '\n')
        return 0;
    char word[256];
    /* session_exec strips the line end first, then expands a user alias */
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", p);
    size_t l = strlen(copy);
    while (l && (copy[l - 1] == '\n' || copy[l - 1] == '\r'))
        copy[--l] = '\0';
    char *expanded = session_expand_alias(s, copy);
    if (expanded) {
        snprintf(copy, sizeof copy, "%s", expanded);
        free(expanded);
    }
    if (copy[0] == '!') /* gdb's !COMMAND runs the rest with /bin/sh (session.c) */
        return 1;
    if (first_word(copy, word, sizeof word) != 1)
        return 0;
    int amb;
    const command *c = command_lookup(word, &amb);
    if (!c)
        return 0;
    /* cd would move libFuzzer's relative corpus and artifact paths; pipe
     * and shell run the input as shell commands, set logging writes the
     * file it names; any command whose usage names a FILE or DIR is dropped too, so
     * one added later is kept out without editing this list. (commands N
     * finds no lines to read here: no breakpoint runs a dropped command.) */
    static const char *const banned[] = {"load", "source", "save",  "render",
                                         "cd",   "pipe",   "shell", NULL};
    for (int i = 0; banned[i]; i++)
        if (strcmp(c->name, banned[i]) == 0)
            return 1;
    if (strcmp(c->name, "set") == 0 && sets_logging(copy))
        return 1;
    return c->usage && (strstr(c->usage, "FILE") || strstr(c->usage, "DIR"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    session s;
    session_init(&s);
    s.out = devnull;
    s.errout = devnull;
    exdb_error err = {0};
    s.prog = exdb_program_load(example, NULL, &err);
    if (!s.prog) {
        fprintf(stderr, "fuzz_repl: %s\n", err.msg);
        abort();
    }
    char *line = text, *end = text + size;
    for (int k = 0; k < MAX_LINES && line <= end && !s.quit_requested; k++) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl)
            *nl = '\0';
        /* a line longer than the filter's copy is run only if it is not a
         * command we drop: cut it there, as the filter saw it */
        if (strlen(line) >= 4000)
            line[4000] = '\0';
        if (!dropped(&s, line))
            session_exec(&s, line);
        if (!nl)
            break;
        line = nl + 1;
    }
    session_free(&s);
    free(text);
    return 0;
}
