/* test_pyrepr.c - core/fx/pyrepr.c: the " Annotation: {...}" part of the
 * stack trace summary print_readable writes for a node with
 * meta["custom"] (torch/fx/graph.py, append_stacktrace_summary): each
 * value as Python's repr() of what json.loads gave, or str(value)[:40] +
 * "..." when str(value) is over 40 characters; nothing for an empty dict,
 * a value that is not a dict, or a text that is not JSON.
 *
 * The expected texts are what Python 3 printed for the same JSON texts
 * (json.loads, then the loop of append_stacktrace_summary and repr()). */
#include <criterion/criterion.h>

#include <string.h>

#include "core/base/strbuf.h"
#include "core/fx/pyrepr.h"

static const struct {
    const char *custom, *want;
} cases[] = {
    {"{\"pp_stage\": 0}", " Annotation: {'pp_stage': 0}"},
    {"{\"a\": null, \"b\": true, \"c\": false}", " Annotation: {'a': None, 'b': True, 'c': False}"},
    {"{\"f\": 0.1, \"g\": 1e-05, \"h\": 1.0, \"i\": 2.5e+20, \"j\": -0.0, \"k\": "
     "123456789012345678901234567890, \"l\": -0, \"m\": -12, \"n\": 1E3}",
     " Annotation: {'f': 0.1, 'g': 1e-05, 'h': 1.0, 'i': 2.5e+20, 'j': -0.0, 'k': "
     "123456789012345678901234567890, 'l': 0, 'm': -12, 'n': 1000.0}"},
    {"{\"s\": \"it's\", \"t\": \"say \\\"hi\\\"\", \"u\": \"both ' and \\\"\", \"v\": "
     "\"tab\\tnl\\ncr\\r\", \"w\": \"back\\\\slash\"}",
     " Annotation: {'s': \"it's\", 't': 'say \"hi\"', 'u': 'both \\' and \"', 'v': "
     "'tab\\tnl\\ncr\\r', 'w': 'back\\\\slash'}"},
    {"{\"ctl\": \"\\u0001\\u001f\\u007f\", \"uni\": \"h\\u00e9llo \\u4e16\\u754c\"}",
     " Annotation: {'ctl': '\\x01\\x1f\\x7f', 'uni': 'h\303\251llo \344\270\226\347\225\214'}"},
    {"{\"nested\": {\"x\": [1, 2, {\"y\": null}], \"z\": []}, \"e\": {}}",
     " Annotation: {'nested': {'x': [1, 2, {'y': None}], 'z': []}, 'e': {}}"},
    {"{\"long\": \"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\"}",
     " Annotation: {'long': 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN...'}"},
    {"{\"exact40\": \"0123456789012345678901234567890123456789\"}",
     " Annotation: {'exact40': '0123456789012345678901234567890123456789'}"},
    {"{\"longlist\": [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]}",
     " Annotation: {'longlist': '[1000, 2000, 3000, 4000, 5000, 6000, 700...'}"},
    {"{\"longuni\": "
     "\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
     "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\"
     "u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u0"
     "0e9\\u00e9\\u00e9x\"}",
     " Annotation: {'longuni': "
     "'\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303"
     "\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251"
     "\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303"
     "\251\303\251\303\251\303\251\303\251\303\251...'}"},
    {"{\"longquote\": \"it's a long string that is longer than forty characters\"}",
     " Annotation: {'longquote': \"it's a long string that is longer than f...\"}"},
    {"{\"key'q\": 1, \"k\\\"2\": \"v\"}", " Annotation: {\"key'q\": 1, 'k\"2': 'v'}"},
    {"{}", ""},
    {"[1, 2]", ""},
    {"\"text\"", ""},
    {"not json", ""},
    {"{\"a\": 1", ""},
    {"", ""},
};

Test(pyrepr, annotation_as_python_prints_it) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        exdb_buf b;
        exdb_buf_init(&b);
        cr_assert_eq(exdb_fx_annotation(&b, cases[i].custom), 0, "case %zu", i);
        cr_expect_str_eq(exdb_buf_str(&b), cases[i].want, "case %zu: %s", i, cases[i].custom);
        exdb_buf_free(&b);
    }
}

Test(pyrepr, no_custom_meta_adds_nothing) {
    exdb_buf b;
    exdb_buf_init(&b);
    cr_assert_eq(exdb_fx_annotation(&b, NULL), 0);
    cr_assert_str_eq(exdb_buf_str(&b), "");
    exdb_buf_free(&b);
}
