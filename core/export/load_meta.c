/* load_meta.c - see load_meta.h. */
#include "core/export/load_meta.h"

#include <string.h>

/* nn_module_stack "key,path,type;key,path,type..." (docs/pt2-format.md §9.1), split
 * as serialize.py's metadata_split does: entries at every ';', fields at
 * commas outside ()/[] (the depth goes negative on a stray closer, as in
 * Python, and then no later comma splits), exactly three fields. The call
 * index is the number after the key's last '@' (what unflatten reads). */
int exdb_load_meta_parse_stack(exdb_arena *a, const char *text, exdb_stack_entry **out, uint32_t *n,
                               exdb_error *err) {
    *out = NULL;
    *n = 0;
    if (!text[0])
        return 0;
    uint32_t count = 1;
    for (const char *q = text; *q; q++)
        count += *q == ';';
    if (count > EXDB_MAX_MODULE_DEPTH)
        return exdb_errorf(err,
                           "%u entries: modules nested deeper than the limit of %d levels "
                           "(expected at most %d entries)",
                           count, EXDB_MAX_MODULE_DEPTH, EXDB_MAX_MODULE_DEPTH);
    exdb_stack_entry *e = exdb_arena_calloc(a, count, sizeof *e);
    if (!e)
        return exdb_errorf(err, "out of memory");
    const char *s = text;
    for (uint32_t k = 0; k < count; k++) {
        const char *end = strchr(s, ';');
        if (!end)
            end = s + strlen(s);
        int shown = (int)(end - s > 120 ? 120 : end - s);
        const char *more = end - s > 120 ? "..." : "";
        if (end == s)
            return exdb_errorf(err, "entry %u is empty: expected \"key,path,type\"", k);
        const char *cut[2];
        int ncut = 0, depth = 0;
        for (const char *q = s; q < end; q++) {
            if (*q == '(' || *q == '[')
                depth++;
            else if (*q == ')' || *q == ']')
                depth--;
            else if (*q == ',' && depth == 0) {
                if (ncut == 2)
                    return exdb_errorf(err,
                                       "entry %u (\"%.*s%s\"): expected 3 fields \"key,path,type\" "
                                       "(split at commas outside brackets), found more",
                                       k, shown, s, more);
                cut[ncut++] = q;
            }
        }
        if (ncut != 2)
            return exdb_errorf(err,
                               "entry %u (\"%.*s%s\"): expected 3 fields \"key,path,type\" (split "
                               "at commas outside brackets), found %d",
                               k, shown, s, more, ncut + 1);
        const char *fstart[3] = {s, cut[0] + 1, cut[1] + 1};
        const char *fend[3] = {cut[0], cut[1], end};
        static const char *const fname[3] = {"key", "path", "type"};
        for (int f = 0; f < 3; f++)
            if (fend[f] - fstart[f] > EXDB_MAX_NAME_BYTES)
                return exdb_errorf(err,
                                   "entry %u: %s longer than the limit of %d bytes for names "
                                   "(%zu bytes)",
                                   k, fname[f], EXDB_MAX_NAME_BYTES, (size_t)(fend[f] - fstart[f]));
        uint32_t levels = cut[1] > cut[0] + 1;
        for (const char *q = cut[0] + 1; q < cut[1]; q++)
            levels += *q == '.';
        if (levels > EXDB_MAX_MODULE_DEPTH)
            return exdb_errorf(err,
                               "entry %u: path of %u components: modules nested deeper than the "
                               "limit of %d levels",
                               k, levels, EXDB_MAX_MODULE_DEPTH);
        e[k].key = exdb_arena_strndup(a, s, (size_t)(cut[0] - s));
        e[k].path = exdb_arena_strndup(a, cut[0] + 1, (size_t)(cut[1] - cut[0] - 1));
        e[k].type = exdb_arena_strndup(a, cut[1] + 1, (size_t)(end - cut[1] - 1));
        if (!e[k].key || !e[k].path || !e[k].type)
            return exdb_errorf(err, "out of memory");
        const char *at = strrchr(e[k].key, '@');
        e[k].call_idx = 0;
        if (at) {
            long v = 0;
            const char *d = at + 1;
            for (; *d >= '0' && *d <= '9' && v <= 1000000000; d++)
                v = v * 10 + (*d - '0');
            if (d == at + 1 || *d || v > 1000000000)
                return exdb_errorf(err,
                                   "entry %u: key \"%.*s\": expected a call index (a number) "
                                   "after its last '@'",
                                   k, (int)(strlen(e[k].key) > 120 ? 120 : strlen(e[k].key)),
                                   e[k].key);
            e[k].call_idx = (int)v;
        }
        s = *end ? end + 1 : end;
    }
    *out = e;
    *n = count;
    return 0;
}

static int is_known_meta_key(const char *k) {
    return strcmp(k, "nn_module_stack") == 0 || strcmp(k, "stack_trace") == 0 ||
           strcmp(k, "source_fn_stack") == 0 || strcmp(k, "source_fn") == 0 ||
           strcmp(k, "torch_fn") == 0 || strcmp(k, "custom") == 0 || strcmp(k, "from_node") == 0;
}

/* Node.metadata (str -> str, docs/pt2-format.md §9). The keys PyTorch reads must
 * be strings; other keys are kept as extras when they are strings and
 * skipped otherwise (PyTorch ignores them). An empty nn_module_stack is no
 * stack, as in deserialize_metadata. */
int exdb_load_meta(loader *L, const exdb_json *m, const jpath *p, exdb_meta **out) {
    exdb_meta *meta = exdb_arena_calloc(L->a, 1, sizeof *meta);
    if (!meta)
        return exdb_load_oom(L);
    *out = meta;
    if (!m)
        return 0;
    if (exdb_load_need_obj(L, m, p) < 0)
        return -1;
    uint32_t nextra = 0;
    for (uint32_t i = 0; i < m->len; i++) {
        const exdb_json *e = &m->u.kids[i];
        jpath ep = PKEY(p, e->key);
        const char *k = e->key;
        if (!is_known_meta_key(k)) {
            if (e->type == EXDB_JSTRING &&
                (exdb_load_check_key(L, k, p) < 0 || exdb_load_check_str(L, e, &ep) < 0))
                return -1;
            nextra += e->type == EXDB_JSTRING;
            continue;
        }
        if (e->type == EXDB_JNULL)
            continue;
        if (e->type != EXDB_JSTRING)
            return exdb_load_type_fail(L, e, &ep, "a string");
        if (exdb_load_check_str(L, e, &ep) < 0)
            return -1;
        const char *v = e->u.str;
        if (strcmp(k, "nn_module_stack") == 0) {
            exdb_stack_entry *st;
            uint32_t n;
            int fresh;
            if (L->last_stack && strcmp(v, L->last_stack_text) == 0) {
                meta->stack = L->last_stack->entries;
                meta->nstack = L->last_stack->n;
                meta->has_stack = meta->nstack > 0;
                meta->nn_module_stack = v;
                continue;
            }
            void **slot = exdb_strmap_put(&L->stacks, v, &fresh);
            if (!slot)
                return exdb_load_oom(L);
            if (fresh) {
                exdb_error e2 = {0};
                parsed_stack *ps = exdb_arena_alloc(L->a, sizeof *ps);
                if (!ps)
                    return exdb_load_oom(L);
                /* a failed parse ends the load, so the half-made entry is never read */
                if (exdb_load_meta_parse_stack(L->a, v, &ps->entries, &ps->n, &e2) < 0)
                    return exdb_load_fail(L, &ep, "%s", e2.msg);
                for (uint32_t j = 0; j < ps->n; j++)
                    if (exdb_load_count_module(L, ps->entries[j].path, strlen(ps->entries[j].path),
                                               &ep) < 0)
                        return -1;
                *slot = ps;
            }
            L->last_stack = *slot;
            L->last_stack_text = v;
            st = L->last_stack->entries;
            n = L->last_stack->n;
            meta->stack = st;
            meta->nstack = n;
            meta->has_stack = n > 0;
            meta->nn_module_stack = v;
        } else if (strcmp(k, "stack_trace") == 0) {
            meta->stack_trace = v;
        } else if (strcmp(k, "source_fn_stack") == 0 || strcmp(k, "source_fn") == 0) {
            meta->source_fn_stack = v;
        } else if (strcmp(k, "torch_fn") == 0) {
            meta->torch_fn = v;
        } else if (strcmp(k, "custom") == 0) {
            meta->custom = v;
        } else {
            meta->from_node = v;
        }
    }
    if (nextra) {
        exdb_kv *kv = exdb_arena_alloc(L->a, nextra * sizeof *kv);
        if (!kv)
            return exdb_load_oom(L);
        uint32_t w = 0;
        for (uint32_t i = 0; i < m->len; i++) {
            const exdb_json *e = &m->u.kids[i];
            if (!is_known_meta_key(e->key) && e->type == EXDB_JSTRING) {
                kv[w].key = e->key;
                kv[w].value = e->u.str;
                w++;
            }
        }
        meta->extra = kv;
        meta->nextra = nextra;
    }
    return 0;
}
