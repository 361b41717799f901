/* settings.h - every setting of a session (gdb's set/show), declared once:
 * its name, the values it takes, its help, how it is set and shown. set,
 * show, `help set`, --json answers and Tab completion all read this table
 * (settings.c). */
#ifndef EXDB_REPL_SETTINGS_H
#define EXDB_REPL_SETTINGS_H

#include "core/base/strbuf.h"
#include "session.h"

typedef struct setting {
    const char *name;
    const char *usage; /* what follows "set NAME " in help: "on|off" */
    const char *help;  /* help's text: one line, or lines for the right column */
    /* The words Tab offers after "set NAME" (NULL-terminated); NULL: a
     * number or "unlimited". */
    const char *const *values;
    /* set NAME ...: argv[0] is "set", argv[1] the whole name. 0 or -1
     * after printing an error. */
    int (*set)(session *s, const struct setting *st, int argc, char **argv);
    /* Appends "NAME: value\n" (a setting may show more than one line). */
    void (*show)(const session *s, const struct setting *st, exdb_buf *b);
} setting;

/* The settings, in the order show lists them; a NULL name ends it. */
extern const setting settings[];

/* The setting word is (a unique prefix of); NULL after printing an
 * error naming what (the command) when there is none or several. */
const setting *settings_pick(session *s, const char *what, const char *word);
/* Names, NULL-terminated, for completion. */
const char *const *settings_names(void);
/* show's text for every setting, or for st only. */
void settings_show(const session *s, const setting *st, exdb_buf *b);
/* `help set`: one line per setting (usage and help in two columns). */
const char *settings_help(void);

#endif
