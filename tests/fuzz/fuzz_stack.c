/* fuzz_stack.c - the nn_module_stack parser (exdb_load_meta_parse_stack in
 * core/export/load_meta.c): the input, up to its first NUL, is the metadata string
 * "key,path,type;key,path,type". */
#include "core/base/arena.h"
#include "core/export/load_meta.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_budget(size);
    char *text = fuzz_dup(data, size);
    if (!text)
        return 0;
    exdb_arena a;
    exdb_arena_init(&a);
    exdb_stack_entry *e = NULL;
    uint32_t n = 0;
    exdb_error err = {0};
    if (exdb_load_meta_parse_stack(&a, text, &e, &n, &err) == 0) {
        volatile size_t h = 0;
        for (uint32_t i = 0; i < n; i++) {
            h += strlen(e[i].key) + strlen(e[i].path) + strlen(e[i].type);
            if (e[i].call_idx < 0)
                __builtin_trap();
        }
        (void)h;
        if (n && !e)
            __builtin_trap();
    } else {
        fuzz_check_error(err.msg, err.set);
    }
    exdb_arena_destroy(&a);
    free(text);
    return 0;
}
