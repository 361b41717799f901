/* test_meta.c - the strings inside a program that hold structure of their
 * own: nn_module_stack (exdb_load_meta_parse_stack) and pytree TreeSpecs
 * (exdb_parse_treespec, exdb_treespec_str). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/export/load_meta.h"

static exdb_arena arena;

static void setup(void) {
    exdb_arena_init(&arena);
}

static void teardown(void) {
    exdb_arena_destroy(&arena);
}

TestSuite(meta, .init = setup, .fini = teardown);

/* ---- nn_module_stack */

static exdb_stack_entry *stack(const char *text, uint32_t want) {
    exdb_stack_entry *e = NULL;
    uint32_t n = 99;
    exdb_error err = {0};
    cr_assert_eq(exdb_load_meta_parse_stack(&arena, text, &e, &n, &err), 0, "%s: %s", text,
                 err.msg);
    cr_assert_eq(n, want, "%s: %u entries", text, n);
    return e;
}

static const char *stack_error(const char *text) {
    static exdb_error err;
    exdb_stack_entry *e;
    uint32_t n;
    memset(&err, 0, sizeof err);
    cr_assert_eq(exdb_load_meta_parse_stack(&arena, text, &e, &n, &err), -1, "%s parsed", text);
    return err.msg;
}

static void entry_is(const exdb_stack_entry *e, const char *key, const char *path, const char *type,
                     int call_idx) {
    cr_assert_str_eq(e->key, key);
    cr_assert_str_eq(e->path, path);
    cr_assert_str_eq(e->type, type);
    cr_assert_eq(e->call_idx, call_idx, "%s: call index %d", e->key, e->call_idx);
}

Test(meta, resnet_stack) {
    exdb_stack_entry *e =
        stack("L__self__,,torchvision.models.resnet.ResNet;"
              "L__self__layer1,layer1,torch.nn.modules.container.Sequential;"
              "L__self__layer1.0,layer1.0,torchvision.models.resnet.BasicBlock;"
              "L__self__layer1.0.relu@2,layer1.0.relu,torch.nn.modules.activation.ReLU",
              4);
    entry_is(&e[0], "L__self__", "", "torchvision.models.resnet.ResNet", 0);
    entry_is(&e[1], "L__self__layer1", "layer1", "torch.nn.modules.container.Sequential", 0);
    entry_is(&e[2], "L__self__layer1.0", "layer1.0", "torchvision.models.resnet.BasicBlock", 0);
    entry_is(&e[3], "L__self__layer1.0.relu@2", "layer1.0.relu", "torch.nn.modules.activation.ReLU",
             2);
}

Test(meta, commas_inside_brackets) {
    exdb_stack_entry *e = stack("L__self___layers_0,getattr(L['self'].layers, '0'),torch.nn.Linear;"
                                "x,layer.slice(1, None, None),T;"
                                "k,a[1, 2],Map[int, str]",
                                3);
    entry_is(&e[0], "L__self___layers_0", "getattr(L['self'].layers, '0')", "torch.nn.Linear", 0);
    entry_is(&e[1], "x", "layer.slice(1, None, None)", "T", 0);
    entry_is(&e[2], "k", "a[1, 2]", "Map[int, str]", 0);
}

Test(meta, call_index) {
    exdb_stack_entry *e = stack("a@1,a,T;b@c@17,b,T;d@0,d,T", 3);
    cr_assert_eq(e[0].call_idx, 1);
    cr_assert_eq(e[1].call_idx, 17, "the number after the last '@'");
    cr_assert_eq(e[2].call_idx, 0);
    cr_assert_str_eq(e[1].key, "b@c@17", "the key keeps its suffix");
}

Test(meta, empty_metadata_hook_sentinel) {
    exdb_stack_entry *e =
        stack("_empty_nn_module_stack_from_metadata_hook,_empty_nn_module_stack_from_metadata_hook,"
              "_empty_nn_module_stack_from_metadata_hook",
              1);
    entry_is(&e[0], "_empty_nn_module_stack_from_metadata_hook",
             "_empty_nn_module_stack_from_metadata_hook",
             "_empty_nn_module_stack_from_metadata_hook", 0);
}

Test(meta, empty_text_is_no_stack) {
    exdb_stack_entry *e = (exdb_stack_entry *)1;
    uint32_t n = 5;
    exdb_error err = {0};
    cr_assert_eq(exdb_load_meta_parse_stack(&arena, "", &e, &n, &err), 0);
    cr_assert_eq(n, 0);
    cr_assert_null(e);
}

/* EXDB_MAX_MODULE_DEPTH entries, and path components, are the most a stack
 * may have; a field may be EXDB_MAX_NAME_BYTES long. */
Test(meta, limits) {
    size_t cap = 70 * 8 * 70 + (size_t)EXDB_MAX_NAME_BYTES + 64;
    char *t = malloc(cap), *path = malloc(cap);
    cr_assert(t && path);
    /* 64 entries, the last path 64 components deep */
    size_t w = 0, pw = 0;
    path[0] = 0;
    for (int i = 0; i < EXDB_MAX_MODULE_DEPTH; i++) {
        pw += (size_t)sprintf(path + pw, "%sm%d", i ? "." : "", i);
        w += (size_t)sprintf(t + w, "%sk%d,%s,T", i ? ";" : "", i, path);
    }
    stack(t, EXDB_MAX_MODULE_DEPTH);
    sprintf(t + w, ";k,%s.deeper,T", path);
    cr_assert_str_eq(stack_error(t),
                     "65 entries: modules nested deeper than the limit of 64 levels "
                     "(expected at most 64 entries)");
    sprintf(t, "k,%s.deeper,T", path);
    cr_assert_str_eq(stack_error(t), "entry 0: path of 65 components: modules nested deeper than "
                                     "the limit of 64 levels");
    /* a type of exactly the limit, then one byte more */
    memcpy(t, "k,p,", 4);
    memset(t + 4, 'x', EXDB_MAX_NAME_BYTES);
    t[4 + EXDB_MAX_NAME_BYTES] = 0;
    stack(t, 1);
    strcat(t, "x");
    cr_assert_str_eq(stack_error(t),
                     "entry 0: type longer than the limit of 4096 bytes for names (4097 bytes)");
    free(t);
    free(path);
}

Test(meta, empty_fields_are_allowed) {
    exdb_stack_entry *e = stack(",,", 1);
    entry_is(&e[0], "", "", "", 0);
}

Test(meta, wrong_field_counts) {
    cr_assert_str_eq(stack_error("L__self__,,m.Net;L__self__fc,fc"),
                     "entry 1 (\"L__self__fc,fc\"): expected 3 fields \"key,path,type\" (split at "
                     "commas outside brackets), found 2");
    cr_assert_str_eq(stack_error("a,b,c,d"), "entry 0 (\"a,b,c,d\"): expected 3 fields "
                                             "\"key,path,type\" (split at commas outside "
                                             "brackets), found more");
    cr_assert_str_eq(stack_error("abc"), "entry 0 (\"abc\"): expected 3 fields \"key,path,type\" "
                                         "(split at commas outside brackets), found 1");
    cr_assert_str_eq(stack_error("a,b,c;"), "entry 1 is empty: expected \"key,path,type\"");
    /* a stray closer drives the depth negative, as in Python: no split after it */
    cr_assert_str_eq(stack_error("a),b,c"), "entry 0 (\"a),b,c\"): expected 3 fields "
                                            "\"key,path,type\" (split at commas outside "
                                            "brackets), found 1");
}

Test(meta, bad_call_index) {
    cr_assert_str_eq(stack_error("a@x,a,T"),
                     "entry 0: key \"a@x\": expected a call index (a number) after its last '@'");
    cr_assert_str_eq(stack_error("r,,T;a@,a,T"),
                     "entry 1: key \"a@\": expected a call index (a number) after its last '@'");
    cr_assert_str_eq(stack_error("a@-1,a,T"),
                     "entry 0: key \"a@-1\": expected a call index (a number) after its last '@'");
}

/* ---- TreeSpecs */

#define LEAF "{\"type\": null, \"context\": null, \"children_spec\": []}"

static exdb_treespec *spec(const char *text, const char *want_str, uint32_t want_leaves) {
    exdb_treespec *s = NULL;
    exdb_error err = {0};
    cr_assert_eq(exdb_parse_treespec(&arena, text, &s, &err), 0, "%s: %s", text, err.msg);
    cr_assert_not_null(s);
    char *str = exdb_treespec_str(&arena, s);
    cr_assert_not_null(str);
    cr_assert_str_eq(str, want_str);
    cr_assert_eq(s->num_leaves, want_leaves, "%s: %u leaves", want_str, s->num_leaves);
    return s;
}

static const char *spec_error(const char *text) {
    static exdb_error err;
    exdb_treespec *s;
    memset(&err, 0, sizeof err);
    cr_assert_eq(exdb_parse_treespec(&arena, text, &s, &err), -1, "%s parsed", text);
    return err.msg;
}

Test(meta, leaf) {
    exdb_treespec *s = spec("[1, " LEAF "]", "*", 1);
    cr_assert_null(s->type);
    cr_assert_eq(s->nchildren, 0);
}

Test(meta, root_in_spec_tuple_of_args_and_kwargs) {
    /* ((x, y), {'mask': m, 3: k}) as the root in_spec of forward(x, y, mask=, 3=) */
    exdb_treespec *s =
        spec("[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": ["
             "{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" LEAF
             ", " LEAF "]}, "
             "{\"type\": \"builtins.dict\", \"context\": \"[\\\"mask\\\", 3]\", \"children_spec\": "
             "[" LEAF ", " LEAF "]}]}]",
             "((*, *), {'mask': *, 3: *})", 4);
    cr_assert_str_eq(s->type, "builtins.tuple");
    cr_assert_str_eq(s->context, "\"null\"");
    cr_assert_eq(s->nchildren, 2);
    const exdb_treespec *d = s->children[1];
    cr_assert_eq(d->nkeys, 2);
    cr_assert_str_eq(d->keys[0], "'mask'");
    cr_assert_str_eq(d->keys[1], "3");
    cr_assert_eq(d->num_leaves, 2);
}

Test(meta, real_resnet_in_spec) {
    spec("[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": "
         "\"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": null, "
         "\"context\": null, \"children_spec\": []}]}, {\"type\": \"builtins.dict\", \"context\": "
         "\"[]\", \"children_spec\": []}]}]",
         "((*,), {})", 1);
}

Test(meta, list_and_empty_tuple) {
    spec("[1, {\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [" LEAF
         ", " LEAF ", " LEAF "]}]",
         "[*, *, *]", 3);
    spec("[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": []}]", "()",
         0);
}

Test(meta, ordered_dict) {
    exdb_treespec *s = spec("[1, {\"type\": \"collections.OrderedDict\", \"context\": "
                            "\"[\\\"a\\\", \\\"b\\\"]\", \"children_spec\": [" LEAF ", " LEAF "]}]",
                            "OrderedDict({'a': *, 'b': *})", 2);
    cr_assert_eq(s->nkeys, 2);
}

Test(meta, defaultdict_context_object) {
    exdb_treespec *s = spec(
        "[1, {\"type\": \"collections.defaultdict\", \"context\": {\"default_factory_module\": "
        "\"builtins\", \"default_factory_name\": \"list\", \"dict_context\": [\"a\", 2]}, "
        "\"children_spec\": [" LEAF ", " LEAF "]}]",
        "defaultdict(list, {'a': *, 2: *})", 2);
    cr_assert_str_eq(s->keys[0], "'a'");
    cr_assert_str_eq(s->keys[1], "2");
}

Test(meta, namedtuple_uses_its_type_name) {
    exdb_treespec *s =
        spec("[1, {\"type\": \"collections.namedtuple\", \"context\": \"mypkg.Out\", "
             "\"children_spec\": [" LEAF ", " LEAF "]}]",
             "mypkg.Out(*, *)", 2);
    cr_assert_str_eq(s->context, "\"mypkg.Out\"");
}

Test(meta, none_is_a_node_without_leaves) {
    spec("[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" LEAF
         ", {\"type\": \"builtins.NoneType\", \"context\": \"null\", \"children_spec\": []}]}]",
         "(*, None)", 1);
}

Test(meta, registered_class_and_deque) {
    spec("[1, {\"type\": \"mypkg.Point\", \"context\": \"[[\\\"x\\\", \\\"y\\\"], []]\", "
         "\"children_spec\": [" LEAF ", " LEAF "]}]",
         "mypkg.Point(*, *)", 2);
    spec("[1, {\"type\": \"collections.deque\", \"context\": \"null\", \"children_spec\": [" LEAF
         "]}]",
         "deque([*])", 1);
}

Test(meta, dict_key_reprs) {
    /* quotes in keys follow Python's repr; enum keys show their member */
    exdb_treespec *s = spec("[1, {\"type\": \"builtins.dict\", \"context\": \"[\\\"it's\\\", true, "
                            "null, {\\\"__enum__\\\": "
                            "true, \\\"fqn\\\": \\\"m:Color\\\", \\\"name\\\": \\\"RED\\\"}]\", "
                            "\"children_spec\": [" LEAF ", " LEAF ", " LEAF ", " LEAF "]}]",
                            "{\"it's\": *, True: *, None: *, <m:Color.RED>: *}", 4);
    cr_assert_eq(s->nkeys, 4);
}

Test(meta, key_reprs_escape_as_python_and_odd_contexts) {
    /* Python: repr("a'b\"c") == 'a\'b"c', repr("x\\y\n\t\r\x01\x7f") ==
     * 'x\\y\n\t\r\x01\x7f'; False and 1.5 are keys too; a key JSON has no
     * Python form for shows as ? */
    exdb_treespec *s =
        spec("[1, {\"type\": \"builtins.dict\", \"context\": \"[\\\"a'b\\\\\\\"c\\\", "
             "\\\"x\\\\\\\\y\\\\n\\\\t\\\\r\\\\u0001\\\\u007f\\\", false, 1.5, [1]]\", "
             "\"children_spec\": [" LEAF ", " LEAF ", " LEAF ", " LEAF ", " LEAF "]}]",
             "{'a\\'b\"c': *, 'x\\\\y\\n\\t\\r\\x01\\x7f': *, False: *, 1.5: *, ?: *}", 5);
    cr_assert_eq(s->nkeys, 5);
    /* a context object is kept as JSON text (null, true, false, escapes) */
    s = spec("[1, {\"type\": \"mypkg.P\", \"context\": {\"n\": null, \"t\": true, \"f\": false, "
             "\"s\": \"q\\\"\\u0001\"}, \"children_spec\": [" LEAF "]}]",
             "mypkg.P(*)", 1);
    cr_assert_str_eq(s->context,
                     "{\"n\": null, \"t\": true, \"f\": false, \"s\": \"q\\\"\\u0001\"}");
    /* a defaultdict whose context names no factory; a namedtuple whose
     * context is not its type name */
    spec("[1, {\"type\": \"collections.defaultdict\", \"context\": {\"dict_context\": [\"a\"]}, "
         "\"children_spec\": [" LEAF "]}]",
         "defaultdict(None, {'a': *})", 1);
    spec("[1, {\"type\": \"collections.namedtuple\", \"context\": null, \"children_spec\": [" LEAF
         "]}]",
         "namedtuple(*)", 1);
}

Test(meta, treespec_errors) {
    cr_assert_str_eq(spec_error("[2, " LEAF "]"),
                     "TreeSpec: unsupported protocol 2 (exdb reads protocol 1)");
    cr_assert_str_eq(spec_error(LEAF),
                     "TreeSpec: expected [protocol, spec] (an array of 2), found an object");
    cr_assert_str_eq(spec_error("[1, {\"type\""),
                     "TreeSpec: line 1, column 12: expected ':' after object key (the input ends "
                     "here)");
    cr_assert_str_eq(
        spec_error("[1, {\"type\": null, \"context\": null, \"children_spec\": [" LEAF "]}]"),
        "TreeSpec [1]: a leaf (type null) must have no children, found 1");
    cr_assert_str_eq(
        spec_error(
            "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" LEAF
            ", {\"type\": \"builtins.dict\", \"context\": \"[\\\"a\\\"]\", \"children_spec\": "
            "[]}]}]"),
        "TreeSpec [1].children_spec[1]: builtins.dict with 1 key but 0 children");
    cr_assert_str_eq(
        spec_error(
            "[1, {\"type\": \"builtins.dict\", \"context\": \"null\", \"children_spec\": []}]"),
        "TreeSpec [1]: builtins.dict: the context is not a JSON list of keys (not a list)");
    cr_assert_str_eq(spec_error("[1, {\"type\": \"builtins.tuple\", \"context\": \"null\"}]"),
                     "TreeSpec [1]: missing key \"children_spec\"");
    cr_assert_str_eq(spec_error("[1, {\"type\": null, \"context\": \"x\", \"children_spec\": []}]"),
                     "TreeSpec [1]: a leaf (type null) must have a null context, found a string");
}

Test(meta, treespec_depth_limit) {
    /* 201 nested tuples: one more than the limit */
    size_t cap = 202 * 80 + 64;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    strcpy(t, "[1, ");
    for (int i = 0; i < 201; i++)
        strcat(t, "{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    strcat(t, LEAF);
    for (int i = 0; i < 201; i++)
        strcat(t, "]}");
    strcat(t, "]");
    const char *msg = spec_error(t);
    cr_assert(strstr(msg, "nested deeper than 200 levels") != NULL, "%s", msg);
    free(t);
}
