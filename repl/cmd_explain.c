/* cmd_explain.c - unflatten explaining itself: `info event [K]` (an event
 * with its detail lines), `explain [K | NAME]` (a decision or the error the
 * run stopped at, in words), and the "detail" object of every event's JSON
 * (docs/json.md). The words come from core/unflatten/explain.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "command.h"
#include "cmd_modules.h"
#include "cmd_unflatten.h"
#include "core/unflatten/explain.h"
#include "session.h"

static cJSON *sink_json(const exdb_sink_rec *recs, int32_t n) {
    static const char *const outcome[] = {"get_attr", "erased", "input"};
    static const char *const reason[] = {"outer_owner", "other_owner", "shared"};
    cJSON *arr = cJSON_CreateArray();
    for (int32_t i = 0; arr && i < n; i++) {
        const exdb_sink_rec *x = &recs[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "placeholder", x->placeholder);
        cJSON_AddStringToObject(o, "outcome", outcome[x->outcome]);
        cJSON_AddStringToObject(o, "state", x->state);
        if (x->attr)
            cJSON_AddStringToObject(o, "attr", x->attr);
        int ol = exdb_sink_owner_len(x->state);
        char *owner = strndup(x->state, (size_t)ol);
        cJSON_AddStringToObject(o, "owner", owner ? owner : "");
        free(owner);
        cJSON_AddNumberToObject(o, "state_names", x->nstates);
        if (x->outcome == EXDB_SINK_KEPT)
            cJSON_AddStringToObject(o, "reason", reason[x->reason]);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *dedup_json(const exdb_uevent *ev, const exdb_dedup_why *why) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "compared", why->nearlier);
    cJSON_AddStringToObject(o, ev->aux ? "equal_to" : "first_call", why->other->fqn);
    cJSON_AddNumberToObject(o, "other_call_idx", why->other->call_idx);
    if (!ev->aux && why->line >= 0) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddNumberToObject(d, "line", why->line);
        if (why->node)
            cJSON_AddStringToObject(d, "node", why->node->name);
        char *t = why->this_line ? strndup(why->this_line, (size_t)why->this_len) : NULL;
        char *f = why->other_line ? strndup(why->other_line, (size_t)why->other_len) : NULL;
        cJSON_AddItemToObject(d, "this", t ? cJSON_CreateString(t) : cJSON_CreateNull());
        cJSON_AddItemToObject(d, "first", f ? cJSON_CreateString(f) : cJSON_CreateNull());
        free(t);
        free(f);
        cJSON_AddItemToObject(o, "first_difference", d);
    }
    return o;
}

static cJSON *dispatch_json(const exdb_dispatch_info *di) {
    cJSON *o = cJSON_CreateObject();
    if (di->ncalls) {
        cJSON *calls = cJSON_CreateArray();
        for (uint32_t i = 0; i < di->ncalls; i++) {
            cJSON *c = cJSON_CreateObject();
            cJSON_AddNumberToObject(c, "index", di->idx[i]);
            cJSON_AddNumberToObject(c, "module", di->mods[i]->id);
            cJSON_AddItemToArray(calls, c);
        }
        cJSON_AddItemToObject(o, "calls", calls);
    }
    if (di->nelided >= 0) {
        cJSON *el = cJSON_CreateArray();
        for (int32_t i = 0; i < di->nelided; i++)
            cJSON_AddItemToArray(el, cJSON_CreateString(di->elided[i]));
        cJSON_AddItemToObject(o, "elided", el);
    }
    return o;
}

static cJSON *names_json(const char *const *names, uint32_t n) {
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; arr && i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
    return arr;
}

static cJSON *reorder_json(const exdb_urun *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "added", names_json(r->reorder_added, r->nreorder_added));
    cJSON *moved = cJSON_CreateArray();
    for (uint32_t i = 0; i < r->nreorder_moves; i++) {
        const exdb_reorder_move *m = &r->reorder_moves[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "parent", m->parent);
        cJSON_AddItemToObject(x, "before", names_json(m->before, m->n));
        cJSON_AddItemToObject(x, "after", names_json(m->after, m->n));
        cJSON_AddItemToArray(moved, x);
    }
    cJSON_AddItemToObject(o, "moved", moved);
    return o;
}

cJSON *cmd_explain_detail_json(const exdb_unflatten *u, const exdb_uevent *ev) {
    const exdb_sink_rec *recs;
    exdb_dedup_why why;
    exdb_dispatch_info di;
    int32_t n;
    if ((n = exdb_explain_sink(u, ev, &recs)) >= 0) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "placeholders", sink_json(recs, n));
        return o;
    }
    if (exdb_explain_dedup(u, ev, &why) == 0)
        return dedup_json(ev, &why);
    if (exdb_explain_dispatch(u, ev, &di) == 0)
        return dispatch_json(&di);
    if (ev->kind == EXDB_EV_REORDER && u->run->phase > EXDB_UPH_REORDER)
        return reorder_json(u->run);
    return NULL;
}

/* An event number argument in 1..u->pos; 0 after an error was printed. */
static uint32_t event_arg(session *s, const exdb_unflatten *u, const char *cmd, const char *w) {
    char *end;
    long k = strtol(w, &end, 10);
    if (*end || k < 1)
        return (uint32_t)cmd_fail(s, "%s: expected an event number, found \"%s\".", cmd, w) + 1;
    if ((unsigned long)k > u->pos) {
        cmd_fail(s, "%s: event %ld is past the cursor (event %u)%s.", cmd, k, u->pos,
                 (unsigned long)k <= u->nlog ? "; \"goto\" it first" : "");
        return 0;
    }
    return (uint32_t)k;
}

/* info event [K]: the event's line, then its detail lines. */
int cmd_explain_info_event(session *s, int argc, char **argv) {
    exdb_unflatten *u = cmd_unflatten_run(s);
    if (!u)
        return -1;
    if (argc > 2)
        return cmd_fail(s, "Usage: info event [K]");
    if (argc < 2 && u->pos == 0)
        return cmd_fail(s, "info event: the run is at event 0 (no event yet).");
    uint32_t k = argc > 1 ? event_arg(s, u, "info event", argv[1]) : u->pos;
    if (!k)
        return -1;
    const exdb_uevent *ev = &u->log[k - 1];
    cmd_unflatten_event_text(s, &s->buf, u, k, ev);
    exdb_buf_putc(&s->buf, '\n');
    exdb_explain_detail(&s->buf, u, ev);
    cmd_flush(s, 0);
    cmd_json_add(s, "event", s->json ? cmd_unflatten_event_json(s, u, k, ev) : NULL);
    return 0;
}

/* What `explain` with nothing to explain says. */
static void explain_menu(session *s, const exdb_unflatten *u) {
    exdb_buf_printf(&s->buf,
                    "Nothing to explain at event %u: the run has not stopped at an error or a "
                    "decision yet.\nexplain explains:\n"
                    "  explain            the event at the cursor, or the error the run stopped "
                    "at\n"
                    "  explain K          event K (\"info events\" lists them)\n"
                    "  explain NAME       a state placeholder or state name: where _sink_params "
                    "made it a get_attr, where it stayed an input and why\n"
                    "  explain MODULE     a module path or a call (act@1): the event that made "
                    "it, why dedup merged or refused it, the diff to run\n",
                    u ? u->pos : 0);
}

/* ---- explain MODULE: how a module path (fqn, fqn@N, a dispatcher) came
 * to be: the ENTER events that made its calls' frames, the DEDUP events
 * that merged or kept them, the DISPATCH event, and the diff to run. */

/* Whether call name `call` (fqn or fqn@N) is `name`, or `name` has no "@"
 * and names call's module. */
static int call_matches(const char *call, const char *name) {
    if (strcmp(call, name) == 0)
        return 1;
    size_t n = strlen(name);
    return !strchr(name, '@') && strncmp(call, name, n) == 0 && call[n] == '@' &&
           !strchr(call + n + 1, '.');
}

static void entry_call(char *out, size_t cap, const exdb_uentry *e) {
    if (e->call_idx > 1)
        snprintf(out, cap, "%s@%d", e->fqn, e->call_idx - 1);
    else
        snprintf(out, cap, "%s", e->fqn);
}

/* The ENTER events of the frames `name` matches; the first two call names in
 * first/second (for the diff line). Count. */
static uint32_t module_enters(session *s, const exdb_unflatten *u, const char *name, char *first,
                              char *second, size_t cap) {
    uint32_t n = 0;
    for (uint32_t k = 1; k <= u->pos; k++) {
        const exdb_uevent *ev = &u->log[k - 1];
        const exdb_uframe *f = cmd_unflatten_frame_by_index(u, ev->frame);
        if (ev->kind != EXDB_EV_ENTER || !f || !f->child_fqn || !call_matches(f->child_fqn, name))
            continue;
        if (n == 0)
            exdb_buf_printf(&s->buf, "Made by (the outliner opened a frame for each call):\n");
        exdb_buf_puts(&s->buf, "  ");
        cmd_unflatten_event_text(s, &s->buf, u, k, ev);
        exdb_buf_putc(&s->buf, '\n');
        snprintf(n == 0 ? first : second, cap, "%s", f->child_fqn);
        n++;
    }
    return n;
}

/* The DEDUP and DISPATCH events about `name`, explained. Count. */
static uint32_t module_decisions(session *s, const exdb_unflatten *u, const char *name,
                                 const char *base, char *other, size_t cap, int *dispatched) {
    uint32_t n = 0;
    for (uint32_t k = 1; k <= u->pos; k++) {
        const exdb_uevent *ev = &u->log[k - 1];
        exdb_dedup_why why;
        exdb_dispatch_info di;
        char call[512];
        int hit = 0;
        if (ev->kind == EXDB_EV_DEDUP && exdb_explain_dedup(u, ev, &why) == 0) {
            entry_call(call, sizeof call, why.entry);
            hit = call_matches(call, name);
            if (hit && ev->aux && why.other && strcmp(call, name) == 0) /* merged */
                entry_call(other, cap, why.other);
        } else if (ev->kind == EXDB_EV_DISPATCH && exdb_explain_dispatch(u, ev, &di) == 0) {
            hit = di.base && strcmp(di.base, base) == 0;
            *dispatched |= hit && di.ncalls;
        }
        if (!hit)
            continue;
        exdb_buf_putc(&s->buf, '\n');
        exdb_explain_event(&s->buf, u, k);
        n++;
    }
    return n;
}

/* explain MODULE: -1 when name is no module path the run has seen. */
static int explain_module(session *s, exdb_unflatten *u, const char *name) {
    char base[512], first[512] = "", second[512] = "", other[512] = "";
    snprintf(base, sizeof base, "%s", name);
    char *at = strrchr(base, '@');
    if (at && !strchr(at, '.'))
        *at = '\0';
    exdb_umodule *m = u->run->root ? exdb_modtree_get_path(u->run->root, name) : NULL;
    size_t mark = s->buf.len;
    exdb_buf_printf(&s->buf, "Module %s", name);
    if (strcmp(base, name) != 0)
        exdb_buf_printf(&s->buf,
                        ": a later call of %s (_call_name(fqn, call_idx) adds \"@N\" "
                        "to the N+1-th call's frame)",
                        base);
    exdb_buf_puts(&s->buf, ".\n");
    uint32_t ne = module_enters(s, u, name, first, second, sizeof first);
    if (ne == 0 && !m) {
        s->buf.len = mark;
        if (s->buf.s)
            s->buf.s[mark] = '\0';
        return -1;
    }
    int dispatched = 0;
    uint32_t nd = module_decisions(s, u, name, base, other, sizeof other, &dispatched);
    if (nd == 0 && u->run->phase <= EXDB_UPH_DEDUP)
        exdb_buf_printf(&s->buf,
                        "\nThe run is at event %u, before _deduplicate_modules decided: "
                        "\"continue\" to the end for the DEDUP decision.\n",
                        u->pos);
    else if (nd == 0)
        exdb_buf_puts(&s->buf, "\nNo DEDUP or DISPATCH event concerns it: its module object has "
                               "one call, so _deduplicate_modules had nothing to compare.\n");
    exdb_buf_putc(&s->buf, '\n');
    if (m)
        exdb_buf_printf(&s->buf, "Now: %s is in the module tree (\"info modules\" shows it).\n",
                        name);
    else if (dispatched)
        exdb_buf_printf(&s->buf,
                        "Now: %s is a call of the dispatcher %s (\"print module %s\" shows its "
                        "graph).\n",
                        name, base, name);
    else
        exdb_buf_printf(&s->buf, "Now: %s is not in the module tree%s%s%s.\n", name,
                        other[0] ? " (merged: its call_module targets " : "", other,
                        other[0] ? ")" : "");
    if (strcmp(base, name) != 0)
        exdb_buf_printf(&s->buf, "Compare the calls: diff module %s %s\n", other[0] ? other : base,
                        name);
    else if (second[0])
        exdb_buf_printf(&s->buf, "Compare the calls: diff module %s %s\n", first, second);
    return 0;
}

static int cmd_explain(session *s, int argc, char **argv) {
    exdb_unflatten *u = argc > 1 ? cmd_modules_shown_run(s) : cmd_unflatten_run(s);
    if (!u)
        return -1;
    const char *subject = "event";
    uint32_t k = 0;
    if (argc == 1) {
        if (u->failed) {
            exdb_explain_error(&s->buf, u);
            subject = "error";
        } else if (u->pos == 0) {
            explain_menu(s, u);
            subject = "none";
        } else {
            k = u->pos;
            exdb_explain_event(&s->buf, u, k);
        }
    } else if (argv[1][0] >= '0' && argv[1][0] <= '9') {
        if (!(k = event_arg(s, u, "explain", argv[1])))
            return -1;
        exdb_explain_event(&s->buf, u, k);
    } else if (exdb_explain_state(&s->buf, u, argv[1]) == 0) {
        subject = "state";
    } else if (explain_module(s, u, argv[1]) == 0) {
        subject = "module";
    } else {
        return cmd_fail(s,
                        "explain: \"%s\" is not an event number, a state placeholder, a state "
                        "name or a module path the run has seen.",
                        argv[1]);
    }
    cJSON *o = s->json ? cJSON_CreateObject() : NULL;
    if (o) {
        cJSON_AddStringToObject(o, "subject", subject);
        if (k)
            cJSON_AddItemToObject(o, "event", cmd_unflatten_event_json(s, u, k, &u->log[k - 1]));
        else if (argc > 1)
            cJSON_AddStringToObject(o, "name", argv[1]);
        cJSON_AddStringToObject(o, "text", exdb_buf_str(&s->buf));
    }
    cmd_flush(s, 0);
    cmd_json_add(s, "explain", o);
    return 0;
}

const command explain_commands[] = {
    {"explain", 0, 1, CMD_NEEDS_PROGRAM, "explain [K | NAME | MODULE]",
     "Explain an unflatten decision or error in words, with the facts behind it.",
     "explain            the error the run stopped at (torch's rule, the node's\n"
     "                   nn_module_stack, the open frames, the pre-flight lint's findings,\n"
     "                   the usual cause and the fix), else the event at the cursor\n"
     "explain K          event K: the decision, torch's rule (_sink_params,\n"
     "                   _deduplicate_modules, _dispatch_modules, _reorder_submodules,\n"
     "                   run_from), and for a placeholder that was not sunk: its owner,\n"
     "                   the frames that took it in, the nodes that used it with their\n"
     "                   nn_module_stack, what made it so (a use from outside the owner, a\n"
     "                   truncated stack, tied state, a mutated buffer) and the fix\n"
     "explain NAME       what every SINK event so far did with a state placeholder or a\n"
     "                   state name\n"
     "explain MODULE     a module path, a call (act@1) or a dispatcher: the event that made\n"
     "                   each call's frame, the DEDUP decisions (the first differing node\n"
     "                   where refused), the DISPATCH event and the \"diff module\" to run\n"
     "With no run yet, \"explain NAME\" runs unflatten to the end first.\n"
     "\"info event K\" shows an event's detail lines without the prose.",
     cmd_explain, NULL, NULL},
};
const size_t explain_ncommands = sizeof explain_commands / sizeof *explain_commands;
