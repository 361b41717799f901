/* command.c - what every command uses: errors, output with the listing
 * limits, counts, colours, JSON answers, picking a word, did-you-mean for
 * node names (see command.h). */
#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/export/program.h"
#include "core/fx/print.h"
#include "core/unflatten/unflatten.h"
#include "command.h"
#include "json_answers.h"
#include "session.h"

int cmd_fail(session *s, const char *fmt, ...) {
    fflush(s->out); /* what the command printed comes first */
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->errout, fmt, ap);
    va_end(ap);
    fputc('\n', s->errout);
    fflush(s->errout);
    return -1;
}

/* Writes n bytes of a listing; with `set width N`, a line wider than N
 * columns (colour codes take none, a UTF-8 character one) is cut to N-1
 * and ends with "…". */
static void put_listing(session *s, const char *t, size_t n) {
    if (s->width <= 0 || s->show_all || s->json) {
        fwrite(t, 1, n, s->out);
        return;
    }
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - t) : n, cols = 0, j = i, cut = (size_t)-1;
        while (j < end) {
            if (t[j] == '\033') { /* an escape sequence: up to its final letter */
                while (j < end && !((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z')))
                    j++;
                j++;
                continue;
            }
            if (((unsigned char)t[j] & 0xC0) != 0x80) {
                cols++;
                if (cols == (size_t)s->width && cut == (size_t)-1)
                    cut = j; /* the N-th column: "…" goes there if the line is wider */
                if (cols > (size_t)s->width)
                    break;
            }
            j++;
        }
        if (cols > (size_t)s->width) {
            fwrite(t + i, 1, cut - i, s->out);
            fputs(cmd_color(s, C_RESET), s->out);
            fputs("\xe2\x80\xa6", s->out);
        } else {
            fwrite(t + i, 1, end - i, s->out);
        }
        if (nl)
            fputc('\n', s->out);
        i = end + (nl != NULL);
    }
}

/* What a listing cut at max-lines says of the n lines it hides. */
static void put_more_lines(session *s, size_t n) {
    fprintf(s->out, "(%zu more lines: add --all to see them, or \"set max-lines unlimited\")\n", n);
}

void cmd_flush(session *s, int newline) {
    const char *t = exdb_buf_str(&s->buf);
    size_t len = s->buf.len;
    if (s->prog && s->prog->meta_defer.pending) {
        /* node metadata the command read was malformed: its text is
         * dropped, and the command fails with the message (session.c) */
        exdb_buf_reset(&s->buf);
        return;
    }
    if (s->buf.oom) {
        /* an append ran out of memory: the text is cut short, and the
         * command fails saying so rather than look complete */
        put_listing(s, t, len);
        exdb_buf_reset(&s->buf);
        s->buf.oom = 0;
        s->output_oom = 1;
        cmd_fail(s, "%sout of memory: the output is incomplete", len ? "\n" : "");
        return;
    }
    if (s->max_lines > 0 && !s->show_all && !s->json) {
        /* cut after max_lines lines, but never to hide a single line */
        size_t lines = 0, cut = 0;
        for (size_t i = 0; i < len; i++)
            if (t[i] == '\n' || i + 1 == len) {
                lines++;
                if (lines == (size_t)s->max_lines)
                    cut = i + 1;
            }
        if (lines > (size_t)s->max_lines + 1) {
            put_listing(s, t, cut);
            put_more_lines(s, lines - (size_t)s->max_lines);
            fflush(s->out);
            exdb_buf_reset(&s->buf);
            return;
        }
    }
    put_listing(s, t, len);
    if (newline && len && t[len - 1] != '\n')
        fputc('\n', s->out);
    fflush(s->out);
    /* the listing of a big program (print code, lint all) would leave its
     * size behind for the session: give a big buffer back */
    if (s->buf.cap > ((size_t)4 << 20))
        exdb_buf_free(&s->buf);
    else
        exdb_buf_reset(&s->buf);
}

/* Whole lines t[0..n) (the last may be the text's unended last line) of a
 * stream: written up to max-lines, then held while there is one line past
 * it (cmd_flush never hides a single line), then only counted. */
static void stream_lines(cmd_stream *st, const char *t, size_t n) {
    session *s = st->s;
    size_t i = 0;
    while (i < n && (!st->limit || st->lines < (size_t)s->max_lines)) {
        const char *nl = memchr(t + i, '\n', n - i);
        i = nl ? (size_t)(nl - t) + 1 : n;
        st->lines++;
    }
    put_listing(s, t, i);
    while (i < n) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - t) + 1 : n;
        if (!st->cut)
            exdb_buf_put(&st->held, t + i, end - i);
        if (++st->more > 1 && !st->cut) {
            st->cut = 1;
            exdb_buf_free(&st->held);
        }
        i = end;
    }
}

void cmd_stream_begin(session *s, cmd_stream *st) {
    memset(st, 0, sizeof *st);
    st->s = s;
    st->limit = s->max_lines > 0 && !s->show_all && !s->json;
    exdb_buf_init(&st->line);
    exdb_buf_init(&st->held);
    if (s->buf.len)
        cmd_stream_put(st, s->buf.s, s->buf.len);
    st->line.oom |= s->buf.oom;
    exdb_buf_reset(&s->buf);
    s->buf.oom = 0;
}

int cmd_stream_put(void *p, const char *t, size_t n) {
    cmd_stream *st = p;
    const char *last = t + n;
    while (last > t && last[-1] != '\n')
        last--;
    if (last-- == t) { /* no line ends in t */
        exdb_buf_put(&st->line, t, n);
        return st->line.oom ? -1 : 0;
    }
    size_t head = (size_t)(last - t) + 1;
    if (st->line.len) { /* the line begun before ends in t */
        const char *nl = memchr(t, '\n', n);
        size_t k = (size_t)(nl - t) + 1;
        exdb_buf_put(&st->line, t, k);
        stream_lines(st, exdb_buf_str(&st->line), st->line.len);
        exdb_buf_reset(&st->line);
        t += k;
        n -= k;
        head -= k;
    }
    stream_lines(st, t, head);
    exdb_buf_put(&st->line, t + head, n - head);
    return st->line.oom ? -1 : 0;
}

int cmd_stream_end(cmd_stream *st) {
    session *s = st->s;
    int oom = st->line.oom || st->held.oom;
    if (st->line.len)
        stream_lines(st, st->line.s, st->line.len);
    if (st->cut)
        put_more_lines(s, st->more);
    else
        put_listing(s, exdb_buf_str(&st->held), st->held.len);
    fflush(s->out);
    exdb_buf_free(&st->line);
    exdb_buf_free(&st->held);
    if (!oom)
        return 0;
    s->output_oom = 1;
    return cmd_fail(s, "\nout of memory: the output is incomplete");
}

int cmd_parse_count(session *s, const char *word, uint32_t *n) {
    char *end;
    long v = strtol(word, &end, 10);
    if (!*word || *end || v < 0 || v > 100000000)
        return cmd_fail(s, "Expected a count, found \"%s\".", word);
    *n = (uint32_t)v;
    return 0;
}

const char *cmd_color(const session *s, cmd_color_t c) {
    static const char *const codes[] = {"\033[0m",  "\033[1m",  "\033[2m",  "\033[31m",
                                        "\033[32m", "\033[33m", "\033[34m", "\033[36m"};
    return s->color_now ? codes[c] : "";
}

void cmd_json_add(session *s, const char *key, cJSON *val) {
    if (!val)
        return;
    if (!s->json || (!s->data && !(s->data = cJSON_CreateObject()))) {
        cJSON_Delete(val);
        return;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(s->data, key);
    cJSON_AddItemToObject(s->data, key, val);
}

/* The choice word is, or the one it is a unique prefix of: an exact name
 * wins over a longer one it starts ("node" is not "node-map"). -1 when
 * none, -2 when ambiguous. */
int cmd_pick_quiet(const char *word, const char *const *choices) {
    int found = -1;
    size_t n = strlen(word);
    for (int i = 0; choices[i]; i++) {
        if (strcmp(word, choices[i]) == 0)
            return i;
        if (n && strncmp(word, choices[i], n) == 0)
            found = found == -1 ? i : -2;
    }
    return found;
}

int cmd_pick(session *s, const char *what, const char *word, const char *const *choices) {
    int found = cmd_pick_quiet(word, choices);
    if (found >= 0)
        return found;
    /* ambiguous: the words it starts; unknown: every word */
    char list[512] = "";
    size_t n = found == -2 ? strlen(word) : 0;
    for (int i = 0; choices[i]; i++)
        if (strncmp(word, choices[i], n) == 0) {
            strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, choices[i], sizeof list - strlen(list) - 1);
        }
    if (found == -2)
        return cmd_fail(s, "Ambiguous \"%s\" of %s: could be %s", word, what, list) - 1;
    return cmd_fail(s, "Unknown \"%s\" of %s: expected one of %s", word, what, list) - 1;
}

/* ---- did-you-mean for node names: the closest by edit distance */

static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    return row[lb];
}

int cmd_node_not_found(session *s, const char *name) {
    const exdb_node *best = NULL;
    size_t bd = (size_t)-1;
    for (const exdb_node *n = s->prog->graph->head; n; n = n->next) {
        size_t d = edit_distance(name, n->name);
        if (d < bd) {
            bd = d;
            best = n;
        }
    }
    if (best && bd <= 3 + strlen(name) / 4)
        return cmd_fail(s, "No node \"%s\" in the graph. Did you mean \"%s\"?", name, best->name);
    return cmd_fail(s, "No node \"%s\" in the graph.", name);
}

/* ---- options: one parser for every command's table rows */

static int opt_index(const cmd_opt *const *opts, const char *word) {
    for (int i = 0; opts && opts[i]; i++)
        if (strcmp(word, opts[i]->name) == 0 ||
            (opts[i]->alias && strcmp(word, opts[i]->alias) == 0))
            return i;
    return -1;
}

int cmd_opts_parse(session *s, const char *cmd, const char *what, const cmd_opt *const *opts,
                   int argc, char **argv, int first, cmd_parsed *p) {
    memset(p, 0, sizeof *p);
    p->rest = argv + first;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        int k = a[0] == '-' && a[1] ? opt_index(opts, a) : -1;
        if (k < 0 && a[0] == '-' && a[1])
            return what ? cmd_fail(s, "%s: unknown option \"%s\" for %s.  Try \"help %s\".", cmd, a,
                                   what, cmd)
                        : cmd_fail(s, "%s: unknown option \"%s\".  Try \"help %s\".", cmd, a, cmd);
        if (k < 0) {
            p->rest[p->nrest++] = argv[i];
            continue;
        }
        assert(k < CMD_MAX_OPTS);
        const cmd_opt *o = opts[k];
        if (o->kind == OPT_FLAG) {
            p->val[k] = "";
            continue;
        }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        long n = val && o->kind == OPT_COUNT ? strtol(val, &end, 10) : 0;
        int bad = !val || (o->need && val[0] == '-') ||
                  (o->kind == OPT_COUNT && (!*val || *end || n < o->min || n > o->max));
        if (bad && o->need)
            return cmd_fail(s, "%s: %s needs %s", cmd, a, o->need);
        if (bad && o->kind == OPT_COUNT)
            return cmd_fail(s, "%s: %s needs a number >= %ld", cmd, a, o->min);
        if (bad)
            return cmd_fail(s, "%s: %s needs %s", cmd, a,
                            o->kind == OPT_FILE ? "a file name" : "a value");
        p->val[k] = val;
        p->num[k] = n;
        i++;
    }
    return 0;
}

static int opt_row(const cmd_opt *const *opts, const cmd_opt *o) {
    for (int i = 0; opts && opts[i]; i++)
        if (opts[i] == o)
            return i;
    return -1;
}

const char *cmd_opt_val(const cmd_parsed *p, const cmd_opt *const *opts, const cmd_opt *o) {
    int k = opt_row(opts, o);
    return k < 0 ? NULL : p->val[k];
}

long cmd_opt_num(const cmd_parsed *p, const cmd_opt *const *opts, const cmd_opt *o) {
    int k = opt_row(opts, o);
    return k < 0 ? 0 : p->num[k];
}
