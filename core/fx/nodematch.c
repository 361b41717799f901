/* nodematch.c - see nodematch.h. */
#include "core/fx/nodematch.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/format/schema.h"
#include "core/fx/stacktrace.h"

void exdb_nodematch_init(exdb_node_filter *f) {
    memset(f, 0, sizeof *f);
    f->op = -1;
    f->dtype = -1;
    f->users = -1;
}

int exdb_nodematch_dtype(const char *word) {
    const char *bare = strncmp(word, "torch.", 6) == 0 ? word + 6 : word;
    for (int code = 0; code < 64; code++) {
        const char *name = exdb_dtype_name(code), *abbr = exdb_dtype_abbr(code);
        if (strcmp(abbr, "?") == 0 || strncmp(name, "torch.", 6) != 0)
            continue;
        if (strcmp(word, abbr) == 0 || strcmp(bare, name + 6) == 0)
            return code;
    }
    return -1;
}

int exdb_nodematch_shape(exdb_node_filter *f, const char *text) {
    size_t len = strlen(text);
    while (len && (text[len - 1] == ' '))
        len--;
    while (len && (*text == ' ')) {
        text++;
        len--;
    }
    if (len >= 2 &&
        ((text[0] == '[' && text[len - 1] == ']') || (text[0] == '(' && text[len - 1] == ')'))) {
        text++;
        len -= 2;
    }
    f->has_shape = 1;
    f->ndims = 0;
    if (!len)
        return 0;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && text[j] != ',')
            j++;
        size_t a = i, b = j;
        while (a < b && text[a] == ' ')
            a++;
        while (b > a && text[b - 1] == ' ')
            b--;
        if (a == b && j == len && f->ndims > 0 && text[len - 1] == ',')
            break; /* "(8,)": a trailing comma */
        if (a == b || f->ndims == EXDB_NODEMATCH_MAX_DIMS)
            return -1;
        f->dims[f->ndims].text = text + a;
        f->dims[f->ndims++].len = (uint32_t)(b - a);
        i = j + 1;
    }
    return 0;
}

/* Whether one size matches one dim of the filter. */
static int dim_matches(const exdb_sym *s, const char *t, uint32_t len) {
    if (len == 1 && t[0] == '*')
        return 1;
    if (s->expr) {
        /* the text, or the name of a "Symbol('s77', positive=True, ...)" */
        const char *e = s->expr;
        if (strncmp(e, "Symbol('", 8) == 0 && strncmp(e + 8, t, len) == 0 && e[8 + len] == '\'')
            return 1;
        return strlen(e) == len && memcmp(e, t, len) == 0;
    }
    char num[24];
    int n = snprintf(num, sizeof num, "%" PRId64, s->v.i);
    return (uint32_t)n == len && memcmp(num, t, len) == 0;
}

static int shape_matches(const exdb_node_filter *f, const exdb_tensor_meta *t) {
    if (t->ndim != f->ndims)
        return 0;
    for (uint32_t i = 0; i < t->ndim; i++)
        if (!dim_matches(&t->sizes[i], f->dims[i].text, f->dims[i].len))
            return 0;
    return 1;
}

static int target_matches(const char *pattern, const char *target) {
    if (!target)
        return 0;
    if (fnmatch(pattern, target, 0) == 0)
        return 1;
    return strncmp(target, "torch.ops.", 10) == 0 && fnmatch(pattern, target + 10, 0) == 0;
}

static int module_matches(const char *pattern, const exdb_meta *m) {
    for (uint32_t i = 0; m && i < m->nstack; i++)
        if (fnmatch(pattern, m->stack[i].path ? m->stack[i].path : "", 0) == 0)
            return 1;
    return 0;
}

int exdb_nodematch(const exdb_node_filter *f, const exdb_node *n) {
    if (f->op >= 0 && n->op != f->op)
        return 0;
    if (f->users >= 0 && (int64_t)n->nusers != f->users)
        return 0;
    if (f->name && fnmatch(f->name, n->name, 0) != 0)
        return 0;
    if (f->target && !target_matches(f->target, n->target))
        return 0;
    const exdb_meta *m = n->meta;
    if (f->module && !module_matches(f->module, m))
        return 0;
    if (f->dtype >= 0 || f->has_shape) {
        const exdb_val *v = m ? m->val : NULL;
        if (!v || v->kind != EXDB_VAL_TENSOR || !v->u.t)
            return 0;
        if (f->dtype >= 0 && v->u.t->dtype != f->dtype)
            return 0;
        if (f->has_shape && !shape_matches(f, v->u.t))
            return 0;
    }
    if (f->file && !(m && exdb_meta_stack_trace(m) &&
                     exdb_stack_at(exdb_meta_stack_trace(m), f->file, f->file_len, f->line)))
        return 0;
    return 1;
}
