/* cmd_alias.c - gdb's `alias NAME = COMMAND [ARGS...]`: names of the
 * session's own for a command with its first words. The interpreter
 * replaces a line's first word by its alias's text before the command is
 * looked up (commands.c), so `alias ib = info breakpoints` makes `ib` that
 * command and `alias pm = print module` makes `pm encoder` print a module.
 * An alias is one word; it may not be a command's whole name or one of
 * gdb's short names (which would then be unreachable), but it wins over a
 * prefix ("alias br = break if call == 2" hides br as a prefix). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "commands.h"

typedef struct exdb_aliases {
    char **names, **texts;
    size_t n, cap;
} exdb_aliases;

const char *session_alias(const session *s, const char *name, size_t len) {
    const exdb_aliases *a = s->aliases;
    for (size_t i = 0; a && i < a->n; i++)
        if (strlen(a->names[i]) == len && strncmp(a->names[i], name, len) == 0)
            return a->texts[i];
    return NULL;
}

const char *session_alias_at(const session *s, size_t i, const char **text) {
    const exdb_aliases *a = s->aliases;
    if (!a || i >= a->n)
        return NULL;
    if (text)
        *text = a->texts[i];
    return a->names[i];
}

void session_aliases_free(session *s) {
    exdb_aliases *a = s->aliases;
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++) {
        free(a->names[i]);
        free(a->texts[i]);
    }
    free(a->names);
    free(a->texts);
    free(a);
    s->aliases = NULL;
}

/* Sets name to text (both copied), replacing an alias of that name. */
static int alias_set(session *s, const char *name, size_t nlen, const char *text) {
    exdb_aliases *a = s->aliases ? s->aliases : (s->aliases = calloc(1, sizeof *a));
    if (!a)
        return -1;
    char *t = strdup(text);
    if (!t)
        return -1;
    for (size_t i = 0; i < a->n; i++)
        if (strlen(a->names[i]) == nlen && strncmp(a->names[i], name, nlen) == 0) {
            free(a->texts[i]);
            a->texts[i] = t;
            return 0;
        }
    if (a->n == a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 8;
        char **nn = realloc(a->names, ncap * sizeof *nn);
        if (nn)
            a->names = nn;
        char **nt = nn ? realloc(a->texts, ncap * sizeof *nt) : NULL;
        if (!nt) {
            free(t);
            return -1;
        }
        a->texts = nt;
        a->cap = ncap;
    }
    if (!(a->names[a->n] = strndup(name, nlen))) {
        free(t);
        return -1;
    }
    a->texts[a->n++] = t;
    return 0;
}

/* The user aliases, one a line ("  NAME = TEXT"); JSON "aliases". */
int cmd_alias_list(session *s) {
    const exdb_aliases *a = s->aliases;
    cJSON *arr = s->json ? cJSON_CreateArray() : NULL;
    if (!a || !a->n)
        exdb_buf_puts(&s->buf, "No aliases: \"alias NAME = COMMAND [ARGS...]\" makes one.\n");
    for (size_t i = 0; a && i < a->n; i++) {
        exdb_buf_printf(&s->buf, "  %-10s = %s\n", a->names[i], a->texts[i]);
        if (arr) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", a->names[i]);
            cJSON_AddStringToObject(o, "command", a->texts[i]);
            cJSON_AddItemToArray(arr, o);
        }
    }
    cmd_flush(s, 1);
    cmd_json_add(s, "aliases", arr);
    return 0;
}

static int name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* alias NAME = COMMAND [ARGS...], read from the line as typed (quotes in
 * the arguments are kept for when the alias runs). Without arguments:
 * the list. */
int cmd_alias(session *s, int argc, char **argv) {
    (void)argv;
    if (argc == 1)
        return cmd_alias_list(s);
    const char *p = s->line ? s->line : "";
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != ' ' && *p != '\t')
        p++; /* the command word */
    while (*p == ' ' || *p == '\t')
        p++;
    const char *name = p;
    while (name_char(*p))
        p++;
    size_t nlen = (size_t)(p - name);
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '=' || !nlen)
        return cmd_fail(s, "Usage: alias NAME = COMMAND [ARGS...]   (NAME: letters, digits, _ "
                           "and -, first a letter)");
    if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z')) || nlen > 64)
        return cmd_fail(s,
                        "An alias is a word of at most 64 characters starting with a letter: "
                        "\"%.*s\".",
                        (int)nlen, name);
    char word[72];
    snprintf(word, sizeof word, "%.*s", (int)nlen, name);
    if (command_lookup_exact(word))
        return cmd_fail(s, "\"%s\" is already a command's name; an alias cannot hide it.", word);
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t tlen = strlen(p);
    while (tlen && (p[tlen - 1] == ' ' || p[tlen - 1] == '\t'))
        tlen--;
    if (!tlen)
        return cmd_fail(s, "Usage: alias NAME = COMMAND [ARGS...]");
    char *text = strndup(p, tlen);
    if (!text)
        return cmd_fail(s, "out of memory");
    /* an alias of an alias is kept as what that one runs now */
    char *expanded = session_expand_alias(s, text);
    const char *target = expanded ? expanded : text;
    int amb = 0;
    const command *c = session_line_command(s, target, &amb);
    int rc = 0;
    if (!c)
        rc = cmd_fail(s, "%s command \"%s\": an alias names a command.",
                      amb ? "Ambiguous" : "Undefined", target);
    else if (alias_set(s, name, nlen, target) < 0)
        rc = cmd_fail(s, "out of memory");
    if (rc == 0 && s->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", word);
        cJSON_AddStringToObject(o, "command", target);
        cmd_json_add(s, "alias", o);
    }
    free(expanded);
    free(text);
    return rc;
}
