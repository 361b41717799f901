/* fuzz_treespec.c - the TreeSpec parser (core/format/treespec.c): the input, up to
 * its first NUL, is a module_call_graph in_spec/out_spec string; on success
 * it is rendered as exdb shows it. */
#include "core/base/arena.h"
#include "core/export/program.h"
#include "fuzz_common.h"

static uint32_t count_leaves(const exdb_treespec *s, int depth) {
    if (!s->type)
        return 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nchildren; i++)
        n += count_leaves(s->children[i], depth + 1);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    char *text = fuzz_dup(data, size);
    if (!text)
        return 0;
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_treespec *spec = NULL;
    exdb_error err = {0};
    if (exdb_parse_treespec(&a, text, &spec, &err) == 0) {
        if (!spec || count_leaves(spec, 0) != spec->num_leaves)
            __builtin_trap();
        char *s = exdb_treespec_str(&a, spec);
        volatile size_t n = s ? strlen(s) : 0;
        (void)n;
    } else {
        fuzz_check_error(err.msg, err.set);
    }
    exdb_arena_destroy(&a);
    free(text);
    return 0;
}
