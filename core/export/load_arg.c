/* load_arg.c - see load_arg.h. */
#include "core/export/load_arg.h"

#include <inttypes.h>
#include <string.h>

#include "core/export/load_graph.h"

/* A use of value `name`: it must be defined by an earlier node or a graph
 * input of the same graph (PyTorch's serialized_name_to_node lookup). */
static int lookup_value(loader *L, gscope *sc, const char *name, const jpath *p, exdb_arg *out) {
    exdb_node *n = exdb_strmap_get(&sc->values, name);
    char q[QS];
    if (!n)
        return exdb_load_fail(L, p, "refers to %s, which no graph input or earlier node defines",
                              exdb_load_path_qs(q, sizeof q, name));
    *out = exdb_arg_node(n);
    return 0;
}

/* {"name": "x"} (TensorArgument) -> node */
int exdb_load_arg_tensor_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                             exdb_arg *out) {
    const char *name;
    if (exdb_load_need_obj(L, j, p) < 0 || exdb_load_get_str(L, j, "name", p, &name) < 0)
        return -1;
    return lookup_value(L, sc, name, p, out);
}

/* SymIntArgument / SymFloatArgument / SymBoolArgument -> node or literal */
int exdb_load_arg_sym_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p, int flavour,
                          exdb_arg *out) {
    static const char *const names[] = {"SymIntArgument", "SymFloatArgument", "SymBoolArgument"};
    static const char *const what[] = {"a SymIntArgument", "a SymFloatArgument",
                                       "a SymBoolArgument"};
    static const char *const lits[] = {"as_int", "as_float", "as_bool"};
    const char *tag;
    const exdb_json *v;
    char q[QS];
    if (exdb_load_get_union(L, j, p, what[flavour], &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_name") == 0) {
        if (v->type != EXDB_JSTRING)
            return exdb_load_type_fail(L, v, &vp, "a string");
        if (exdb_load_check_str(L, v, &vp) < 0)
            return -1;
        return lookup_value(L, sc, v->u.str, &vp, out);
    }
    memset(out, 0, sizeof *out);
    if (strcmp(tag, "as_int") == 0 && flavour == 0) {
        out->kind = EXDB_ARG_INT;
        return exdb_load_as_int(L, v, &vp, &out->u.i);
    }
    if (strcmp(tag, "as_float") == 0 && flavour == 1) {
        out->kind = EXDB_ARG_FLOAT;
        return exdb_load_as_double(L, v, &vp, &out->u.f);
    }
    if (strcmp(tag, "as_bool") == 0 && flavour == 2) {
        int b = 0;
        out->kind = EXDB_ARG_BOOL;
        if (exdb_load_as_bool(L, v, &vp, &b) < 0)
            return -1;
        out->u.i = b;
        return 0;
    }
    return exdb_load_fail(L, p, "unknown %s kind %s (expected \"as_name\" or \"%s\")",
                          names[flavour], exdb_load_path_qs(q, sizeof q, tag), lits[flavour]);
}

static int opt_tensor_ref(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                          exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, j, p, "an OptionalTensorArgument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_none") == 0) {
        *out = exdb_arg_none();
        return 0;
    }
    if (strcmp(tag, "as_tensor") == 0)
        return exdb_load_arg_tensor_ref(L, sc, v, &vp, out);
    char q[QS];
    return exdb_load_fail(
        L, p, "unknown OptionalTensorArgument kind %s (expected \"as_tensor\" or \"as_none\")",
        exdb_load_path_qs(q, sizeof q, tag));
}

typedef int (*elem_fn)(loader *, gscope *, const exdb_json *, const jpath *, exdb_arg *);

int exdb_load_arg_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    memset(o, 0, sizeof *o);
    o->kind = EXDB_ARG_INT;
    return exdb_load_as_int(L, j, p, &o->u.i);
}
int exdb_load_arg_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    memset(o, 0, sizeof *o);
    o->kind = EXDB_ARG_FLOAT;
    return exdb_load_as_double(L, j, p, &o->u.f);
}
int exdb_load_arg_bool(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    int b = 0;
    memset(o, 0, sizeof *o);
    o->kind = EXDB_ARG_BOOL;
    if (exdb_load_as_bool(L, j, p, &b) < 0)
        return -1;
    o->u.i = b;
    return 0;
}
static int elem_str(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    (void)sc;
    if (!exdb_json_is(j, EXDB_JSTRING))
        return exdb_load_type_fail(L, j, p, "a string");
    if (exdb_load_check_str(L, j, p) < 0)
        return -1;
    *o = exdb_arg_str(j->u.str);
    return 0;
}
static int elem_symint(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return exdb_load_arg_sym_ref(L, sc, j, p, 0, o);
}
static int elem_symfloat(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return exdb_load_arg_sym_ref(L, sc, j, p, 1, o);
}
static int elem_symbool(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return exdb_load_arg_sym_ref(L, sc, j, p, 2, o);
}
static int elem_tuple_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
static int elem_list_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);
static int elem_list_tensor(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o);

static int list_of(loader *L, gscope *sc, const exdb_json *j, const jpath *p, elem_fn fn,
                   exdb_arg *out) {
    if (exdb_load_need_arr(L, j, p) < 0)
        return -1;
    if (exdb_arg_seq(L->a, EXDB_ARG_LIST, j->len, out) < 0)
        return exdb_load_oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ip = PIDX(p, i);
        if (fn(L, sc, &j->u.kids[i], &ip, &out->u.items[i]) < 0)
            return -1;
    }
    return 0;
}

/* as_int_lists elements: PyTorch turns each into a tuple (Triton grids). */
static int elem_tuple_int(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    if (list_of(L, sc, j, p, exdb_load_arg_int, o) < 0)
        return -1;
    o->kind = EXDB_ARG_TUPLE;
    return 0;
}
static int elem_list_float(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return list_of(L, sc, j, p, exdb_load_arg_float, o);
}
static int elem_list_tensor(loader *L, gscope *sc, const exdb_json *j, const jpath *p,
                            exdb_arg *o) {
    return list_of(L, sc, j, p, exdb_load_arg_tensor_ref, o);
}

static int enum_arg(loader *L, const exdb_json *v, const jpath *p, exdb_arg_kind kind,
                    exdb_arg *out) {
    memset(out, 0, sizeof *out);
    out->kind = (uint8_t)kind;
    return exdb_load_as_int(L, v, p, &out->u.i);
}
static int elem_dtype(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return enum_arg(L, j, p, EXDB_ARG_DTYPE, o);
}
static int elem_memfmt(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return enum_arg(L, j, p, EXDB_ARG_MEMFMT, o);
}
static int elem_layout(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *o) {
    return enum_arg(L, j, p, EXDB_ARG_LAYOUT, o);
}

/* as_device -> "type" or "type:index", as str(torch.device) prints it. */
static int device_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p, exdb_arg *out) {
    const char *type;
    if (exdb_load_need_obj(L, v, p) < 0 || exdb_load_get_str(L, v, "type", p, &type) < 0)
        return -1;
    memset(out, 0, sizeof *out);
    out->kind = EXDB_ARG_DEVICE;
    const exdb_json *idx = exdb_load_get_opt(v, "index");
    if (idx) {
        int64_t i;
        jpath ip = PKEY(p, "index");
        if (exdb_load_as_int(L, idx, &ip, &i) < 0)
            return -1;
        out->u.s = exdb_arena_printf(L->a, "%s:%" PRId64, type, i);
    } else {
        out->u.s = type;
    }
    return out->u.s ? 0 : exdb_load_oom(L);
}

/* Python-visible spelling of a serialized operator target. */
const char *exdb_load_arg_pretty_target(loader *L, const char *t, exdb_target_kind *kind) {
    if (strncmp(t, "torch.ops.higher_order.", 23) == 0) {
        *kind = EXDB_T_HOP;
        return t;
    }
    if (strncmp(t, "torch.ops.", 10) == 0 || t[0] == '#') {
        *kind = EXDB_T_OP;
        return t;
    }
    *kind = EXDB_T_PYFN;
    if (strncmp(t, "_operator.", 10) == 0)
        return exdb_arena_printf(L->a, "operator.%s", t + 10);
    return t;
}

/* as_none: None (out is already zeroed). */
static int none_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p, exdb_arg *out) {
    return 0;
}

/* as_custom_obj: a lifted object is a graph input; one that is not (old
 * programs) lives in the constants payload, which exdb does not read: kept
 * by name. */
static int custom_obj_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p,
                          exdb_arg *out) {
    const char *name;
    if (exdb_load_need_obj(L, v, p) < 0 || exdb_load_get_str(L, v, "name", p, &name) < 0)
        return -1;
    if (!exdb_strmap_get(&sc->values, name)) {
        *out = exdb_arg_str(name);
        return 0;
    }
    return exdb_load_arg_tensor_ref(L, sc, v, p, out);
}

/* as_operator: an operator passed as a value, spelled as a target is. */
static int operator_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p, exdb_arg *out) {
    if (v->type != EXDB_JSTRING)
        return exdb_load_type_fail(L, v, p, "a string");
    if (exdb_load_check_str(L, v, p) < 0)
        return -1;
    exdb_target_kind k;
    out->kind = EXDB_ARG_OPERATOR;
    out->u.s = exdb_load_arg_pretty_target(L, v->u.str, &k);
    return out->u.s ? 0 : exdb_load_oom(L);
}

/* as_complex: {"real": x, "imag": y}. */
static int complex_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p, exdb_arg *out) {
    if (exdb_load_need_obj(L, v, p) < 0)
        return -1;
    out->kind = EXDB_ARG_COMPLEX;
    out->u.c = exdb_arena_alloc(L->a, 2 * sizeof(double));
    if (!out->u.c)
        return exdb_load_oom(L);
    jpath rp = PKEY(p, "real"), ip = PKEY(p, "imag");
    if (exdb_load_as_double(L, exdb_json_get(v, "real"), &rp, &out->u.c[0]) < 0 ||
        exdb_load_as_double(L, exdb_json_get(v, "imag"), &ip, &out->u.c[1]) < 0)
        return -1;
    return 0;
}

/* as_string_to_argument: a dict of Arguments, in the file's order. */
static int str_dict_arg(loader *L, gscope *sc, const exdb_json *v, const jpath *p, exdb_arg *out) {
    if (exdb_load_need_obj(L, v, p) < 0)
        return -1;
    if (exdb_arg_seq(L->a, EXDB_ARG_DICT, v->len, out) < 0)
        return exdb_load_oom(L);
    for (uint32_t i = 0; i < v->len; i++) {
        jpath kp = PKEY(p, v->u.kids[i].key);
        if (exdb_load_check_key(L, v->u.kids[i].key, p) < 0)
            return -1;
        out->keys[i] = v->u.kids[i].key;
        if (exdb_load_arg(L, sc, &v->u.kids[i], &kp, &out->u.items[i]) < 0)
            return -1;
    }
    return 0;
}

/* The Argument kinds: a tag's payload is read by fn, or (list) is a list
 * whose elements fn reads. */
static const struct {
    const char *tag;
    elem_fn fn;
    int list;
} arg_kinds[] = {
    {"as_none", none_arg, 0},
    {"as_tensor", exdb_load_arg_tensor_ref, 0},
    {"as_tensors", exdb_load_arg_tensor_ref, 1},
    {"as_int", exdb_load_arg_int, 0},
    {"as_ints", exdb_load_arg_int, 1},
    {"as_float", exdb_load_arg_float, 0},
    {"as_floats", exdb_load_arg_float, 1},
    {"as_string", elem_str, 0},
    {"as_strings", elem_str, 1},
    {"as_bool", exdb_load_arg_bool, 0},
    {"as_bools", exdb_load_arg_bool, 1},
    {"as_sym_int", elem_symint, 0},
    {"as_sym_ints", elem_symint, 1},
    {"as_sym_float", elem_symfloat, 0},
    {"as_sym_floats", elem_symfloat, 1},
    {"as_sym_bool", elem_symbool, 0},
    {"as_sym_bools", elem_symbool, 1},
    {"as_scalar_type", elem_dtype, 0},
    {"as_memory_format", elem_memfmt, 0},
    {"as_layout", elem_layout, 0},
    {"as_device", device_arg, 0},
    {"as_optional_tensors", opt_tensor_ref, 1},
    {"as_optional_tensor", opt_tensor_ref, 0},
    {"as_custom_obj", custom_obj_arg, 0},
    {"as_operator", operator_arg, 0},
    {"as_complex", complex_arg, 0},
    {"as_nested_tensors", elem_list_tensor, 1},
    {"as_int_lists", elem_tuple_int, 1},
    {"as_float_lists", elem_list_float, 1},
    {"as_string_to_argument", str_dict_arg, 0},
    {"as_graph", exdb_load_graph_subgraph_arg, 0},
};

/* deserialize_input: one Argument union -> an FX argument value. */
int exdb_load_arg(loader *L, gscope *sc, const exdb_json *j, const jpath *p, exdb_arg *out) {
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, j, p, "an Argument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    memset(out, 0, sizeof *out);
    /* every kind is "as_" and more: its next letter is compared first */
    int as = tag[0] == 'a' && tag[1] == 's' && tag[2] == '_';
    for (size_t k = 0; as && k < sizeof arg_kinds / sizeof *arg_kinds; k++) {
        if (arg_kinds[k].tag != tag &&
            (arg_kinds[k].tag[3] != tag[3] || strcmp(tag + 3, arg_kinds[k].tag + 3) != 0))
            continue;
        if (arg_kinds[k].list)
            return list_of(L, sc, v, &vp, arg_kinds[k].fn, out);
        return arg_kinds[k].fn(L, sc, v, &vp, out);
    }
    char q[QS];
    return exdb_load_fail(L, p, "unknown Argument kind %s", exdb_load_path_qs(q, sizeof q, tag));
}
