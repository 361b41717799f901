/* graph_check.c - see graph_check.h. */
#include "core/fx/graph_check.h"

#include <stdint.h>

/* The users a check searches at most for one input (see graph_check.h). */
#define MAX_SEARCHED_USERS 256

/* Whether tree a holds node n somewhere (read only: no stamps). */
static int arg_holds(const exdb_arg *a, const exdb_node *n) {
    switch (a->kind) {
    case EXDB_ARG_NODE:
        return a->u.node == n;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        for (uint32_t i = 0; i < a->n; i++)
            if (arg_holds(&a->u.items[i], n))
                return 1;
        return 0;
    default:
        return 0;
    }
}

static int has_user(const exdb_node *in, const exdb_node *user) {
    for (uint32_t i = in->nusers; i > 0; i--)
        if (in->users[i - 1] == user)
            return 1;
    return 0;
}

/* n is among the users of every input in tree a: the name of one that
 * lacks it, or NULL. */
static const exdb_node *input_missing_user(const exdb_arg *a, const exdb_node *n) {
    switch (a->kind) {
    case EXDB_ARG_NODE:
        if (a->u.node->nusers <= MAX_SEARCHED_USERS && !has_user(a->u.node, n))
            return a->u.node;
        return NULL;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
    case EXDB_ARG_DICT:
        for (uint32_t i = 0; i < a->n; i++) {
            const exdb_node *m = input_missing_user(&a->u.items[i], n);
            if (m)
                return m;
        }
        return NULL;
    default:
        return NULL;
    }
}

/* One node's uses both ways. */
static int node_uses_ok(const exdb_node *n, exdb_error *err) {
    for (uint32_t i = 0; i < n->nusers; i++) {
        const exdb_node *u = n->users[i];
        if (!u || u->erased)
            return exdb_errorf(err, "graph: node %s: user %u is %s", n->name, i,
                               u ? "erased" : "NULL");
        if (!arg_holds(&u->args, n) && !arg_holds(&u->kwargs, n))
            return exdb_errorf(err, "graph: node %s lists %s as a user, which does not use it",
                               n->name, u->name);
    }
    const exdb_node *m = input_missing_user(&n->args, n);
    if (!m)
        m = input_missing_user(&n->kwargs, n);
    if (m)
        return exdb_errorf(err, "graph: node %s uses %s, which does not list it as a user", n->name,
                           m->name);
    return 0;
}

int exdb_graph_check(const exdb_graph *g, exdb_error *err) {
    uint32_t count = 0;
    const exdb_node *prev = NULL;
    if ((g->head == NULL) != (g->tail == NULL))
        return exdb_errorf(err, "graph: head and tail disagree on emptiness");
    for (const exdb_node *n = g->head; n; prev = n, n = n->next) {
        if (++count > g->count)
            return exdb_errorf(err, "graph: more nodes in the list than its count %u", g->count);
        if (n->prev != prev)
            return exdb_errorf(err, "graph: node %s: prev link broken", n->name);
        if (n->graph != g || n->erased)
            return exdb_errorf(err, "graph: node %s: %s in the list", n->name,
                               n->erased ? "erased node" : "node of another graph");
        if (exdb_strmap_get(&g->names, n->name) != n)
            return exdb_errorf(err, "graph: node %s not found under its name", n->name);
        if (node_uses_ok(n, err) < 0)
            return -1;
    }
    if (prev != g->tail)
        return exdb_errorf(err, "graph: tail is not the last node");
    if (count != g->count)
        return exdb_errorf(err, "graph: %u nodes in the list, count says %u", count, g->count);
    return 0;
}
