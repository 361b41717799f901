/* test_error.c - core/base/error.h: exdb_error_oom tells memory running
 * out from a message that only quotes the words (a file's text, a folder
 * so named), which must stay the file's fault. */
#include <criterion/criterion.h>

#include <string.h>

#include "core/base/error.h"

static int oom(const char *msg) {
    exdb_error e = {0};
    exdb_errorf(&e, "%s", msg);
    return exdb_error_oom(&e);
}

Test(error, memory_running_out_is_said_so) {
    cr_assert(oom("p.json: out of memory"));
    cr_assert(oom("p.json: $.graph_module (context: line 1, column 2: out of memory)"));
    cr_assert(oom("p.json: line 3, column 9: out of memory (the input ends here)"));
    cr_assert(oom("m.pt2: models/model.json: out of memory reading 4096 bytes"));
    cr_assert(oom("unflatten: out of memory recording the event for reverse stepping"));
}

Test(error, the_words_quoted_from_a_file_are_the_files_fault) {
    cr_assert_not(oom("p.json: $.x: found \"out of memory \\xff\" (not UTF-8 from byte 14)"));
    cr_assert_not(oom("/data/out of memory/m.pt2: models/model.json: cannot read member: CRC error"));
    cr_assert_not(oom("p.json: $.graph_module.graph.nodes[3]: unknown op \"out of memory\""));
    cr_assert_not(oom("p.json: no such file"));
    exdb_error none = {0};
    cr_assert_not(exdb_error_oom(&none));
}
