/* session.h - one exdb session: the loaded program, settings, and the
 * command interpreter shared by the interactive prompt, -ex, -x scripts and
 * commands piped on stdin (the same program, the same output, as jq). */
#ifndef EXDB_SESSION_H
#define EXDB_SESSION_H

#include <stdio.h>

#include "core/program.h"
#include "core/strbuf.h"
#include "viz/render.h"

struct exdb_unflatten;

typedef struct session {
    exdb_program *prog;
    struct exdb_unflatten *run; /* the unflatten run of prog, NULL until needed */
    exdb_viz_settings render;   /* set layout|render-limit|render-dup-fanout|render-dup-span */
    FILE *out, *errout;
    int interactive;    /* reading from a terminal */
    int trace_commands; /* echo script commands ("set trace-commands on") */
    int on_error_continue;
    int quit_requested;
    int source_depth;
    exdb_buf buf; /* scratch output */
} session;

void session_init(session *s);
void session_free(session *s);
/* Runs one command line. Returns 0 on success, -1 when the command failed
 * (its one-line error is already printed). Blank lines and # comments succeed. */
int session_exec(session *s, const char *line);
/* Runs every line of a script file; stops at the first failure unless
 * on-error is continue. */
int session_source(session *s, const char *path);

/* Command table access for help and completion. */
typedef struct command command;
const command *command_lookup(const char *name, int *ambiguous);
const char *command_name_at(int i); /* NULL past the end */

#endif
