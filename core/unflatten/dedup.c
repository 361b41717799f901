/* dedup.c - _deduplicate_modules: calls of one module object whose graphs
 * are equivalent (_check_graph_equivalence) share one submodule. Same fqn:
 * the later call name is removed and its call_module retargeted (recorded
 * in redirected_call_indices). Other fqn: the attribute is pointed at the
 * earlier module object, the call name kept.
 *
 * Upstream compares each entry with every earlier one, dumping both graphs
 * each time. Here each graph is dumped once, hashed, and an entry is only
 * compared with earlier entries of equal hash (in order, so the first
 * match wins exactly as upstream). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fx/print.h"
#include "core/unflatten/dedup.h"
#include "core/unflatten/modtree.h"
#include "core/unflatten/outline.h"
#include "core/unflatten/udict.h"
#include "core/unflatten/urun.h"

/* One argument of the dump: nodes as %index (idx: node id -> index). */
static void dump_arg(exdb_buf *b, const exdb_arg *a, const uint32_t *idx) {
    switch (a->kind) {
    case EXDB_ARG_NODE:
        exdb_buf_printf(b, "%%%lu", (unsigned long)idx[a->u.node->id]);
        break;
    case EXDB_ARG_LIST:
    case EXDB_ARG_TUPLE:
        exdb_buf_putc(b, a->kind == EXDB_ARG_LIST ? '[' : '(');
        for (uint32_t i = 0; i < a->n; i++) {
            if (i)
                exdb_buf_puts(b, ", ");
            dump_arg(b, &a->u.items[i], idx);
        }
        if (a->kind == EXDB_ARG_TUPLE && a->n == 1)
            exdb_buf_putc(b, ',');
        exdb_buf_putc(b, a->kind == EXDB_ARG_LIST ? ']' : ')');
        break;
    case EXDB_ARG_DICT:
        exdb_buf_putc(b, '{');
        for (uint32_t i = 0; i < a->n; i++) {
            exdb_buf_printf(b, "%s'%s': ", i ? ", " : "", a->keys[i]);
            dump_arg(b, &a->u.items[i], idx);
        }
        exdb_buf_putc(b, '}');
        break;
    default:
        exdb_repr_arg(b, a);
        break;
    }
}

void exdb_dedup_dump_node(exdb_buf *b, const exdb_node *n, uint32_t i, uint32_t *idx) {
    int show = n->op == EXDB_OP_CALL_FUNCTION || n->op == EXDB_OP_GET_ATTR;
    exdb_buf_printf(b, "%lu: %s[%s](", (unsigned long)i, exdb_op_name((exdb_op)n->op),
                    show ? n->target : "");
    for (uint32_t k = 0; k < n->args.n; k++) {
        if (k)
            exdb_buf_puts(b, ", ");
        dump_arg(b, &n->args.u.items[k], idx);
    }
    for (uint32_t k = 0; k < n->kwargs.n; k++) {
        exdb_buf_printf(b, "%s%s=", (k || n->args.n) ? ", " : "", n->kwargs.keys[k]);
        dump_arg(b, &n->kwargs.u.items[k], idx);
    }
    exdb_buf_putc(b, ')');
    idx[n->id] = i;
}

int32_t exdb_dedup_first_difference(const char *x, const char *y) {
    int32_t line = 0;
    for (;; x++, y++) {
        if (*x != *y)
            return line;
        if (!*x)
            return -1;
        line += *x == '\n';
    }
}

/* _check_graph_equivalence's graph_dump(g): one line per node, each ended
 * by a newline; NULL when memory runs out. */
static char *graph_dump(exdb_urun *r, const exdb_graph *g) {
    uint32_t *idx = calloc((size_t)g->next_id + 1, sizeof *idx);
    if (!idx)
        return NULL;
    exdb_buf b;
    exdb_buf_init(&b);
    uint32_t i = 0;
    for (const exdb_node *n = g->head; n; n = n->next) {
        exdb_dedup_dump_node(&b, n, i++, idx);
        exdb_buf_putc(&b, '\n');
    }
    free(idx);
    char *s = b.oom ? NULL : exdb_urun_strdup(r, exdb_buf_str(&b));
    exdb_buf_free(&b);
    return s;
}

/* Per-entry dump and hash, computed at plan time (dedup edits no graph). */
typedef struct dd_info {
    const char *dump;
    uint64_t hash;
    int32_t head; /* first entry with this hash */
    int32_t next; /* next entry with this hash, -1 at the end */
} dd_info;

static uint64_t fnv64(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int plan_parts(exdb_urun *r, int32_t *by_module, exdb_error *err);

int exdb_dedup_plan(exdb_urun *r, exdb_error *err) {
    int32_t *by_module = calloc(r->nmodules ? r->nmodules : 1, sizeof *by_module);
    if (!by_module)
        return exdb_errorf(err, "out of memory");
    int rc = plan_parts(r, by_module, err);
    free(by_module);
    return rc;
}

static int plan_parts(exdb_urun *r, int32_t *by_module, exdb_error *err) {
    for (uint32_t p = 0; p < r->nparts; p++) {
        exdb_upartition *part = &r->parts[p];
        if (part->n < 2)
            continue;
        dd_info *info = exdb_arena_alloc(&r->arena, part->n * sizeof *info);
        if (!info)
            return exdb_errorf(err, "out of memory");
        /* the dump of a shared module object is computed once */
        for (uint32_t e = 0; e < part->n; e++) {
            exdb_umodule *m = part->entries[e].module;
            int32_t q = by_module[m->id] - 1;
            if (q >= 0) {
                info[e] = info[q];
                continue;
            }
            info[e].dump = m->graph ? graph_dump(r, m->graph) : "";
            if (!info[e].dump) {
                return exdb_errorf(err, "out of memory");
            }
            info[e].hash = fnv64(info[e].dump);
            by_module[m->id] = (int32_t)e + 1;
        }
        for (uint32_t e = 0; e < part->n; e++)
            by_module[part->entries[e].module->id] = 0;
        /* hash groups as linked lists in entry order (the table is the
         * plan's scratch, not run state) */
        exdb_arena scratch;
        exdb_arena_init(&scratch);
        exdb_strmap groups;
        exdb_strmap_init(&groups, &scratch);
        for (uint32_t e = 0; e < part->n; e++) {
            char *key = exdb_arena_printf(&scratch, "%016llx", (unsigned long long)info[e].hash);
            void **slot = key ? exdb_strmap_put(&groups, key, NULL) : NULL;
            if (!slot) {
                exdb_arena_destroy(&scratch);
                return exdb_errorf(err, "out of memory");
            }
            info[e].next = -1;
            if (*slot) {
                uint32_t last = (uint32_t)((uintptr_t)*slot - 1);
                info[last].next = (int32_t)e;
                info[e].head = info[last].head;
            } else {
                info[e].head = (int32_t)e;
            }
            *slot = (void *)(uintptr_t)(e + 1);
        }
        exdb_arena_destroy(&scratch);
        for (uint32_t e = 1; e < part->n; e++) {
            exdb_uwork w = {0};
            w.a = (int32_t)p;
            w.b = (int32_t)e;
            w.node = (exdb_node *)info; /* the partition's dump table */
            if (exdb_urun_work_push(r, w) < 0)
                return exdb_errorf(err, "out of memory");
        }
    }
    return 0;
}

/* The module holding parent-relative `target`'s last atom:
 * _get_attr_via_attr_list(parent, prefix) with torch's errors; NULL with
 * err set. */
static exdb_umodule *target_holder(exdb_urun *r, exdb_umodule *parent, const char *target,
                                   exdb_error *err) {
    const char *last = strrchr(target, '.');
    char *prefix = exdb_arena_strndup(&r->arena, target, last ? (size_t)(last - target) : 0);
    char why[EXDB_MAX_NAME_BYTES + 64];
    snprintf(why, sizeof why, "_deduplicate_modules, removing call name %s", target);
    int is_mod = 0;
    void *v = prefix ? exdb_modtree_get_attr_list(parent, prefix, &is_mod, why, err) : NULL;
    if (!prefix)
        exdb_errorf(err, "out of memory");
    else if (v && !is_mod)
        exdb_errorf(err, "AttributeError: '%s' object has no attribute '_modules' (%s)", "Tensor",
                    why);
    return v && is_mod ? v : NULL;
}

/* The earlier same-fqn duplicate of this partition that popped `name` from
 * the same _modules dict (one dict is shared by every call of a module
 * object, under each of its names), or NULL: what the KeyError explains. */
static const exdb_uentry *earlier_pop(exdb_urun *r, const exdb_upartition *part, uint32_t i,
                                      const exdb_udict *dict, const char *name) {
    for (uint32_t s = 0; s < i; s++) {
        const exdb_uentry *e = &part->entries[s];
        const char *child = exdb_outline_call_name(r, e->fqn, e->call_idx);
        const char *t = child ? exdb_outline_compute_accessor(r, e->parent_fqn, child) : NULL;
        if (!t || !exdb_strmap_get(&r->redirected, child))
            continue;
        const char *dot = strrchr(t, '.');
        if (strcmp(dot ? dot + 1 : t, name) != 0)
            continue;
        exdb_error ignored = {0};
        exdb_umodule *h = target_holder(r, e->parent_module, t, &ignored);
        if (h && h->children == dict)
            return e;
    }
    return NULL;
}

/* ..._modules.pop(name) of a same-fqn duplicate's call name. The pop has no
 * default: a name that a call of the same module under another path (an
 * alias) popped from the shared _modules already raises KeyError. */
static int pop_target(exdb_urun *r, const exdb_upartition *part, uint32_t i, const char *target,
                      exdb_error *err) {
    const exdb_uentry *entry = &part->entries[i];
    exdb_umodule *holder = target_holder(r, entry->parent_module, target, err);
    if (!holder)
        return -1;
    const char *dot = strrchr(target, '.');
    const char *name = dot ? dot + 1 : target;
    if (exdb_udict_pop(holder->children, name))
        return 0;
    const char *where = entry->parent_fqn[0] ? entry->parent_fqn : "<root>";
    const exdb_uentry *by = earlier_pop(r, part, i, holder->children, name);
    if (by)
        return exdb_errorf(err,
                           "KeyError: '%s' (_deduplicate_modules: call %d of %s is equivalent to "
                           "an earlier call, but its call name %s is gone from the submodules "
                           "%s shares with %s: the same removal for call %d of %s popped it)",
                           name, entry->call_idx, entry->fqn, target, where,
                           by->parent_fqn[0] ? by->parent_fqn : "<root>", by->call_idx, by->fqn);
    return exdb_errorf(err,
                       "KeyError: '%s' (_deduplicate_modules: call %d of %s is equivalent to an "
                       "earlier call, but its call name %s is not among %s's submodules)",
                       name, entry->call_idx, entry->fqn, target, where);
}

int exdb_dedup_apply(exdb_urun *r, const exdb_uwork *w, int *decision, exdb_error *err) {
    exdb_upartition *part = &r->parts[w->a];
    const dd_info *info = (const dd_info *)w->node;
    uint32_t i = (uint32_t)w->b;
    exdb_uentry *entry = &part->entries[i];
    const char *child_fqn = exdb_outline_call_name(r, entry->fqn, entry->call_idx);
    if (!child_fqn)
        return exdb_errorf(err, "out of memory");
    const char *target = exdb_outline_compute_accessor(r, entry->parent_fqn, child_fqn);
    if (!target)
        return exdb_errorf(err,
                           "RuntimeError: Child module '%s' is not a descendant of parent "
                           "module '%s'.",
                           child_fqn ? child_fqn : "?", entry->parent_fqn);
    *decision = 0;
    int deduplicated = 0;
    for (int32_t s = info[i].head; s >= 0 && (uint32_t)s < i; s = info[s].next) {
        if (strcmp(info[s].dump, info[i].dump) != 0)
            continue;
        exdb_uentry *seen = &part->entries[s];
        if (strcmp(seen->fqn, entry->fqn) == 0) {
            /* Case 1: same fqn, drop this call name */
            if (pop_target(r, part, i, target, err) < 0)
                return -1;
            const char *seen_child = exdb_outline_call_name(r, seen->fqn, seen->call_idx);
            if (!seen_child)
                return exdb_errorf(err, "out of memory");
            const char *seen_target =
                exdb_outline_compute_accessor(r, entry->parent_fqn, seen_child);
            if (!seen_target)
                return exdb_errorf(err,
                                   "RuntimeError: Child module '%s' is not a descendant of "
                                   "parent module '%s'.",
                                   seen_child ? seen_child : "?", entry->parent_fqn);
            EXDB_WILL_WRITE(&r->arena, entry->parent_call_module->target);
            entry->parent_call_module->target = seen_target;
            void **slot = exdb_strmap_put(&r->redirected, child_fqn, NULL);
            if (!slot)
                return exdb_errorf(err, "out of memory");
            *slot = (void *)seen_child;
            *decision = 1;
            break;
        } else if (!deduplicated) {
            /* Case 2: another fqn, alias the attribute to the seen module */
            if (exdb_modtree_set_submodule(r, entry->parent_module, target, seen->module, err) < 0)
                return -1;
            deduplicated = 1;
            *decision = 2;
        }
    }
    return 0;
}

/* Line `line` of a dump and its length; NULL past its end. */
static const char *dump_line(const char *dump, int32_t line, int *len) {
    for (int32_t k = 0; k < line && dump; k++) {
        dump = strchr(dump, '\n');
        dump = dump ? dump + 1 : NULL;
    }
    if (!dump || !*dump)
        return NULL;
    *len = (int)strcspn(dump, "\n");
    return dump;
}

int exdb_dedup_explain(const exdb_urun *r, const exdb_uwork *w, int decision, exdb_dedup_why *why) {
    memset(why, 0, sizeof *why);
    why->line = -1;
    if (!w->node || w->a < 0 || (uint32_t)w->a >= r->nparts || w->b < 1 ||
        (uint32_t)w->b >= r->parts[w->a].n)
        return -1;
    const exdb_upartition *part = &r->parts[w->a];
    const dd_info *info = (const dd_info *)w->node;
    uint32_t i = (uint32_t)w->b;
    why->entry = &part->entries[i];
    why->nearlier = i;
    why->other = &part->entries[0];
    if (decision) {
        /* the loop of exdb_dedup_apply: case 1 breaks at the first equal
         * same-fqn call, case 2 aliased the first equal one */
        for (uint32_t s = 0; s < i; s++) {
            if (strcmp(info[s].dump, info[i].dump) != 0)
                continue;
            int same = strcmp(part->entries[s].fqn, why->entry->fqn) == 0;
            if (decision == 2 || same) {
                why->other = &part->entries[s];
                break;
            }
        }
        return 0;
    }
    why->line = exdb_dedup_first_difference(info[i].dump, info[0].dump);
    if (why->line < 0)
        return 0;
    why->this_line = dump_line(info[i].dump, why->line, &why->this_len);
    why->other_line = dump_line(info[0].dump, why->line, &why->other_len);
    const exdb_graph *g = why->entry->module->graph;
    const exdb_node *n = g ? g->head : NULL;
    for (int32_t k = 0; n && k < why->line; k++)
        n = n->next;
    why->node = n;
    return 0;
}
