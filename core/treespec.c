/* treespec.c - pytree TreeSpecs as torch.utils._pytree writes them
 * (treespec_dumps, JSON protocol 1): "[1, {"type": ..., "context": ...,
 * "children_spec": [...]}]". See pt2-format.md §8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "program.h"

#define SPEC_MAX_DEPTH 200

/* Python repr of a dict key from the context's JSON key list. */
static const char *key_repr(exdb_arena *a, const exdb_json *k) {
    if (k->type == EXDB_JSTRING)
        return exdb_arena_printf(a, "'%s'", k->u.str);
    if (k->type == EXDB_JNUMBER)
        return exdb_arena_strndup(a, k->u.str, k->len);
    if (k->type == EXDB_JOBJECT) { /* {"__enum__": true, "fqn": ..., "name": ...} */
        const exdb_json *fqn = exdb_json_get(k, "fqn"), *nm = exdb_json_get(k, "name");
        if (exdb_json_is(fqn, EXDB_JSTRING) && exdb_json_is(nm, EXDB_JSTRING))
            return exdb_arena_printf(a, "<%s.%s>", fqn->u.str, nm->u.str);
    }
    if (k->type == EXDB_JTRUE)
        return "True";
    if (k->type == EXDB_JFALSE)
        return "False";
    if (k->type == EXDB_JNULL)
        return "None";
    return "?";
}

/* Serializes a JSON value back to compact text (for contexts kept as text). */
static void json_text(const exdb_json *j, char **buf, size_t *len, size_t *cap);

static void put(char **buf, size_t *len, size_t *cap, const char *s, size_t n) {
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 64) + n;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

static void json_text(const exdb_json *j, char **buf, size_t *len, size_t *cap) {
    switch ((exdb_jtype)j->type) {
    case EXDB_JNULL:
        put(buf, len, cap, "null", 4);
        break;
    case EXDB_JTRUE:
        put(buf, len, cap, "true", 4);
        break;
    case EXDB_JFALSE:
        put(buf, len, cap, "false", 5);
        break;
    case EXDB_JNUMBER:
        put(buf, len, cap, j->u.str, j->len);
        break;
    case EXDB_JSTRING:
        put(buf, len, cap, "\"", 1);
        for (uint32_t i = 0; i < j->len; i++) {
            char c = j->u.str[i];
            if (c == '"' || c == '\\') {
                char e[2] = {'\\', c};
                put(buf, len, cap, e, 2);
            } else if ((unsigned char)c < 0x20) {
                char e[8];
                snprintf(e, sizeof e, "\\u%04x", (unsigned char)c);
                put(buf, len, cap, e, 6);
            } else {
                put(buf, len, cap, &c, 1);
            }
        }
        put(buf, len, cap, "\"", 1);
        break;
    case EXDB_JARRAY:
    case EXDB_JOBJECT: {
        int obj = j->type == EXDB_JOBJECT;
        put(buf, len, cap, obj ? "{" : "[", 1);
        for (uint32_t i = 0; i < j->len; i++) {
            if (i)
                put(buf, len, cap, ", ", 2);
            if (obj) {
                exdb_json k = {.type = EXDB_JSTRING};
                k.u.str = j->u.kids[i].key;
                k.len = (uint32_t)strlen(k.u.str);
                json_text(&k, buf, len, cap);
                put(buf, len, cap, ": ", 2);
            }
            json_text(&j->u.kids[i], buf, len, cap);
        }
        put(buf, len, cap, obj ? "}" : "]", 1);
        break;
    }
    }
}

static int spec_node(exdb_arena *a, const exdb_json *j, exdb_treespec **out, int depth,
                     exdb_error *err) {
    if (depth > SPEC_MAX_DEPTH)
        return exdb_errorf(err, "TreeSpec nested deeper than %d levels", SPEC_MAX_DEPTH);
    if (!exdb_json_is(j, EXDB_JOBJECT))
        return exdb_errorf(err, "expected a TreeSpec node object, found %s",
                           exdb_json_type_name(j));
    const exdb_json *type = exdb_json_get(j, "type"), *ctx = exdb_json_get(j, "context");
    const exdb_json *kids = exdb_json_get(j, "children_spec");
    if (!type || !ctx || !kids)
        return exdb_errorf(err, "TreeSpec node without \"%s\"",
                           !type  ? "type"
                           : !ctx ? "context"
                                  : "children_spec");
    if (!exdb_json_is(kids, EXDB_JARRAY))
        return exdb_errorf(err, "TreeSpec children_spec: expected an array, found %s",
                           exdb_json_type_name(kids));
    exdb_treespec *s = exdb_arena_calloc(a, 1, sizeof *s);
    if (!s)
        return exdb_errorf(err, "out of memory");
    *out = s;
    if (type->type == EXDB_JNULL) {
        if (kids->len)
            return exdb_errorf(err, "TreeSpec leaf with %u children", kids->len);
        s->num_leaves = 1;
        return 0;
    }
    if (type->type != EXDB_JSTRING)
        return exdb_errorf(err, "TreeSpec type: expected a string or null, found %s",
                           exdb_json_type_name(type));
    s->type = exdb_arena_strdup(a, type->u.str);
    char *t = NULL;
    size_t tl = 0, tc = 0;
    json_text(ctx, &t, &tl, &tc);
    s->context = t ? exdb_arena_strdup(a, t) : "null";
    free(t);
    /* dict-like contexts: a JSON string holding the key list */
    const exdb_json *keylist = NULL;
    exdb_arena tmp;
    exdb_arena_init(&tmp);
    if (ctx->type == EXDB_JSTRING && ctx->len && ctx->u.str[0] == '[') {
        char *copy = exdb_arena_strndup(&tmp, ctx->u.str, ctx->len);
        exdb_json *kl;
        exdb_error e2 = {0};
        if (copy && exdb_json_parse(copy, ctx->len, &tmp, "context", &kl, &e2) == 0 &&
            kl->type == EXDB_JARRAY)
            keylist = kl;
    } else if (ctx->type == EXDB_JOBJECT) {
        const exdb_json *dc = exdb_json_get(ctx, "dict_context"); /* defaultdict */
        if (exdb_json_is(dc, EXDB_JARRAY))
            keylist = dc;
    }
    int is_dict = strstr(s->type, "dict") != NULL || strstr(s->type, "Dict") != NULL;
    if (keylist && is_dict) {
        s->nkeys = keylist->len;
        s->keys = exdb_arena_calloc(a, keylist->len ? keylist->len : 1, sizeof *s->keys);
        if (!s->keys) {
            exdb_arena_destroy(&tmp);
            return exdb_errorf(err, "out of memory");
        }
        for (uint32_t i = 0; i < keylist->len; i++)
            s->keys[i] = key_repr(a, &keylist->u.kids[i]);
        if (s->nkeys != kids->len) {
            exdb_arena_destroy(&tmp);
            return exdb_errorf(err, "TreeSpec %s: %u keys for %u children", s->type, s->nkeys,
                               kids->len);
        }
    }
    exdb_arena_destroy(&tmp);
    s->nchildren = kids->len;
    s->children = exdb_arena_calloc(a, kids->len ? kids->len : 1, sizeof *s->children);
    if (!s->children)
        return exdb_errorf(err, "out of memory");
    for (uint32_t i = 0; i < kids->len; i++) {
        if (spec_node(a, &kids->u.kids[i], &s->children[i], depth + 1, err) < 0)
            return -1;
        s->num_leaves += s->children[i]->num_leaves;
    }
    return 0;
}

int exdb_parse_treespec(exdb_arena *a, const char *text, exdb_treespec **out, exdb_error *err) {
    exdb_arena tmp;
    exdb_arena_init(&tmp);
    size_t n = strlen(text);
    char *copy = exdb_arena_strndup(&tmp, text, n);
    exdb_json *root;
    int rc = -1;
    exdb_error e2 = {0};
    if (!copy) {
        exdb_errorf(err, "out of memory");
    } else if (exdb_json_parse(copy, n, &tmp, "TreeSpec", &root, &e2) < 0) {
        exdb_errorf(err, "%s", e2.msg);
    } else if (!exdb_json_is(root, EXDB_JARRAY) || root->len != 2 ||
               root->u.kids[0].type != EXDB_JNUMBER) {
        exdb_errorf(err, "TreeSpec: expected [protocol, spec], found %s",
                    exdb_json_type_name(root));
    } else {
        int64_t proto;
        if (exdb_json_int(&root->u.kids[0], &proto) < 0 || proto != 1)
            exdb_errorf(err, "TreeSpec: unsupported protocol %.*s (exdb reads protocol 1)",
                        (int)root->u.kids[0].len, root->u.kids[0].u.str);
        else
            rc = spec_node(a, &root->u.kids[1], out, 0, err);
    }
    exdb_arena_destroy(&tmp);
    return rc;
}

static void spec_str(const exdb_treespec *s, char **buf, size_t *len, size_t *cap) {
    if (!s->type) {
        put(buf, len, cap, "*", 1);
        return;
    }
    const char *open = "(", *close = ")";
    int is_tuple = strcmp(s->type, "builtins.tuple") == 0;
    if (strcmp(s->type, "builtins.list") == 0) {
        open = "[";
        close = "]";
    } else if (s->keys || strstr(s->type, "dict")) {
        open = "{";
        close = "}";
    } else if (!is_tuple) {
        put(buf, len, cap, s->type, strlen(s->type));
    }
    put(buf, len, cap, open, strlen(open));
    for (uint32_t i = 0; i < s->nchildren; i++) {
        if (i)
            put(buf, len, cap, ", ", 2);
        if (s->keys && i < s->nkeys) {
            put(buf, len, cap, s->keys[i], strlen(s->keys[i]));
            put(buf, len, cap, ": ", 2);
        }
        spec_str(s->children[i], buf, len, cap);
    }
    if (is_tuple && s->nchildren == 1)
        put(buf, len, cap, ",", 1);
    put(buf, len, cap, close, strlen(close));
}

char *exdb_treespec_str(exdb_arena *a, const exdb_treespec *s) {
    char *buf = NULL;
    size_t len = 0, cap = 0;
    spec_str(s, &buf, &len, &cap);
    char *r = buf ? exdb_arena_strdup(a, buf) : NULL;
    free(buf);
    return r;
}
