/* breakpoint.h - a breakpoint of the unflatten run, the session's table of
 * them, their locations and conditions (breakpoint.c). The break commands
 * (cmd_break.c) and the test after each event (cmd_break_check.c) share
 * them. Internal to repl/. */
#ifndef EXDB_REPL_BREAKPOINT_H
#define EXDB_REPL_BREAKPOINT_H

#include <stdint.h>

#include "command.h"
#include "core/unflatten/unflatten.h"

typedef enum { BP_NODE, BP_ENTER, BP_EXIT, BP_OP, BP_EVENT, BP_WATCH, BP_LINE } bp_kind;

/* A condition "VAR OP VALUE" on the event that would stop the run. */
typedef enum { V_CALL, V_DEPTH, V_STEP, V_EVENT, V_FQN, V_NODE, V_TARGET } cond_var;
typedef enum { O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE, O_GLOB } cond_op;

typedef struct bp {
    int num;
    bp_kind kind;
    char *arg; /* node name, fqn or op glob; event kind name */
    int event_kind;
    int enabled, temporary;
    int momentary;      /* until/advance's location: no number, gone after the command */
    uint32_t max_depth; /* momentary: only in frames this deep or shallower (0: any) */
    uint32_t hits;
    uint32_t ignore; /* `ignore N COUNT`: crossings still to pass without stopping */
    char *commands;  /* `commands N`: lines run when it stops ('\n' after each), or NULL */
    char *cond;      /* its text, NULL when none */
    cond_var var;
    cond_op op;
    char *value;
    long number;
    /* watch: the frames (by index) already mapping the node */
    exdb_node *node;
    uint32_t *frames, nframes, frames_cap;
} bp;

typedef struct exdb_bptable {
    bp *v;
    uint32_t n, cap;
    int next_num;
    const void *armed; /* the run the watchpoints were armed on */
    /* the last stop at breakpoints: their commands (the `silent` lines
     * left out), run after the command that stopped; whether every one of
     * them is silent */
    char *pending;
    int silent;
} exdb_bptable;

/* The session's table, made on first use; NULL when out of memory. */
exdb_bptable *breakpoint_table(session *s);
/* Frees what b owns. */
void breakpoint_clear(bp *b);
/* "node %relu", "enter module encoder.*"... what a breakpoint stops on. */
void breakpoint_describe(exdb_buf *o, const bp *b);
/* break/tbreak/watch/until/advance LOCATION [if COND], argv[0] the command:
 * b's kind, arg (its own copy), event kind and condition; the location is
 * checked against the program (a node, module, op or line that exists).
 * watch: argv is "watch node-map NODE"; momentary: until/advance (their
 * usage message). -1 after an error was printed, b then owning nothing. */
int breakpoint_parse(session *s, bp *b, int watch, int momentary, int argc, char **argv);
/* Parses "VAR OP VALUE" from words into b's condition; -1 after an error. */
int breakpoint_parse_cond(session *s, bp *b, int argc, char **argv);
/* Whether b's condition (if any) holds at event ev of u. */
int breakpoint_cond_holds(const bp *b, const exdb_unflatten *u, const exdb_uevent *ev);
/* A module glob against a frame: "a.b" matches every call of a.b, "a.b@1"
 * only its second call. */
int breakpoint_module_matches(const char *pattern, const exdb_uframe *f);
/* An op glob against a target as FX prints it, with or without torch.ops. */
int breakpoint_op_matches(const char *pattern, const char *target);
/* Whether a node's stack trace passes through the FILE:LINE of spec. */
int breakpoint_at_line(const exdb_node *n, const char *spec);

#endif
