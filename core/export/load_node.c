/* load_node.c - see load_node.h. Naming follows the deserializer
 * (serialize.py's deserialize_node and deserialize_outputs, restated in the
 * functions below): create_node is given Node.name or the single output's
 * name, and sync_fx_node then forces the printed name of every node that
 * *is* a value (placeholders, single-output ops, sym ops, named getitems) to
 * the serialized value name; the rest keep FX's create_name result. */
#include "core/export/load_node.h"

#include <string.h>

#include "core/export/load_arg.h"
#include "core/export/load_meta.h"
#include "core/export/load_value.h"

static int is_python_keyword(const char *s) {
    static const char *const kw[] = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",    NULL};
    for (int i = 0; kw[i]; i++)
        if (strcmp(s, kw[i]) == 0)
            return 1;
    return 0;
}

/* `fx_node.name = name`: the node prints as `name` while the graph's
 * namespace keeps what create_name registered (PyTorch's sync_fx_node and
 * placeholder code assign the attribute directly). exdb's name table also
 * maps `name` to the node so lookups by printed name work. A name another
 * node already prints as is refused: PyTorch would build a graph with two
 * nodes of one name, which its Graph.lint rejects ("Node redefined name"),
 * and exdb finds nodes by name. */
static int force_name(loader *L, exdb_graph *g, exdb_node *n, const char *name, const jpath *p) {
    if (n->name == name || strcmp(n->name, name) == 0)
        return 0;
    void **slot = exdb_strmap_find(&g->names, name);
    if (slot && *slot && *slot != n) {
        char q[QS];
        return exdb_load_fail(L, p,
                              "value %s would rename a node to the name another node has "
                              "(Graph.lint: Node redefined name)",
                              exdb_load_path_qs(q, sizeof q, name));
    }
    slot = exdb_strmap_find(&g->names, n->name);
    if (slot && *slot == n)
        *slot = NULL; /* the registered name stays used */
    slot = exdb_strmap_put(&g->names, name, NULL);
    if (!slot)
        return exdb_load_oom(L);
    *slot = n;
    n->name = name;
    exdb_node_hash_name(n);
    return 0;
}

/* Records that serialized value `name` is produced by node n (sync_fx_node,
 * which refuses a name deserialized before) and gives n its val. */
/* Binds value name to n and gives n the value's metadata (val). n's meta is
 * copied first unless owns_meta says n alone holds it (a plain node's own,
 * fresh from exdb_load_meta), when val is set in place: one meta per node, not
 * two (the copy was ~0.1 byte per byte of a real program's JSON). */
static int bind_value(loader *L, gscope *sc, const char *name, exdb_node *n, const jpath *p,
                      int owns_meta) {
    int created;
    if (exdb_load_check_name(L, name, p, "value name") < 0)
        return -1;
    /* most values are named as their node: the hash create_name took */
    uint32_t h = n->name == name || strcmp(n->name, name) == 0 ? exdb_node_name_hash(n)
                                                               : exdb_strmap_hash(name);
    void **slot = exdb_strmap_put_hashed(&sc->values, name, h, &created);
    if (!slot)
        return exdb_load_oom(L);
    if (!created && *slot) {
        const exdb_node *first = *slot;
        char q1[QS], q2[QS];
        return exdb_load_fail(L, p, "value %s is defined twice (first by %s %s)",
                              exdb_load_path_qs(q1, sizeof q1, name),
                              first->op == EXDB_OP_PLACEHOLDER ? "graph input" : "node",
                              exdb_load_path_qs(q2, sizeof q2, first->name));
    }
    *slot = n;
    if (!n->meta || !n->meta->val) {
        exdb_val *v;
        if (exdb_load_value_find(L, sc, name, &v) < 0)
            return -1;
        if (v && owns_meta && n->meta)
            ((exdb_meta *)n->meta)->val = v;
        else if (v)
            return exdb_load_node_set_val(L, n, v);
    }
    return 0;
}

/* sync_fx_node(name, n): binds the value and forces the printed name. */
static int sync_node_meta(loader *L, gscope *sc, exdb_node *n, const char *name, const jpath *p,
                          int owns_meta) {
    if (bind_value(L, sc, name, n, p, owns_meta) < 0)
        return -1;
    return force_name(L, sc->g, n, name, p);
}

int exdb_load_node_sync(loader *L, gscope *sc, exdb_node *n, const char *name, const jpath *p) {
    return sync_node_meta(L, sc, n, name, p, 0);
}

/* operator.getitem(of, idx), sharing the producer's metadata; name NULL
 * lets FX derive it ("getitem", "getitem_1", ...). A name (the text's, in
 * the program's strings, or a literal) outlives the graph: a node named
 * as it is shares it. */
static exdb_node *new_getitem(loader *L, gscope *sc, exdb_node *of, uint32_t idx, const char *name,
                              const exdb_meta *meta) {
    exdb_arg args;
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, 2, &args) < 0)
        return NULL;
    args.u.items[0] = exdb_arg_node(of);
    args.u.items[1] = exdb_arg_int(idx);
    exdb_node *gi = exdb_graph_create_node_kept(sc->g, EXDB_OP_CALL_FUNCTION, "operator.getitem",
                                                EXDB_T_PYFN, &args, NULL, name);
    if (gi) {
        gi->meta = meta;
        gi->src = of->src;
    }
    return gi;
}

/* Sets meta["val"] on a copy of n's metadata (metadata may be shared). */
int exdb_load_node_set_val(loader *L, exdb_node *n, const exdb_val *v) {
    exdb_meta *m = exdb_arena_alloc(L->a, sizeof *m);
    if (!m)
        return exdb_load_oom(L);
    if (n->meta)
        *m = *n->meta;
    else
        memset(m, 0, sizeof *m);
    m->val = v;
    n->meta = m;
    return 0;
}

/* What the elements handed to gen_getitems are. */
typedef enum {
    ELEM_ARGUMENT, /* Argument unions (a node's outputs list) */
    ELEM_TENSOR,   /* TensorArguments (the elements of as_tensors) */
    ELEM_SYM,      /* SymIntArgument/SymFloatArgument unions (as_sym_ints/as_sym_floats) */
} elem_kind;

/* The name of a named symbolic value {"as_name": "s"} at p. */
int exdb_load_node_sym_name(loader *L, const exdb_json *v, const jpath *p, const char *what,
                            const char **name) {
    const char *st;
    const exdb_json *sv;
    char q[QS];
    if (exdb_load_get_union(L, v, p, what, &st, &sv) < 0)
        return -1;
    jpath sp = PKEY(p, st);
    if (strcmp(st, "as_name") != 0)
        return exdb_load_fail(L, p, "%s: expected a named value (\"as_name\"), found %s", what,
                              exdb_load_path_qs(q, sizeof q, st));
    if (sv->type != EXDB_JSTRING)
        return exdb_load_type_fail(L, sv, &sp, "a string");
    if (exdb_load_check_str(L, sv, &sp) < 0)
        return -1;
    *name = sv->u.str;
    return 0;
}

/* generate_getitems: one operator.getitem per element, named after the
 * element's value; list elements get an auto-named getitem and nested ones.
 * tuple_val receives the vals, as fx_node.meta["val"] = tuple(meta_val). */
static int gen_getitems(loader *L, gscope *sc, exdb_node *of, const exdb_json *outs, const jpath *p,
                        const exdb_meta *meta, elem_kind ek, exdb_val *tuple_val) {
    tuple_val->kind = EXDB_VAL_TUPLE;
    tuple_val->n = outs->len;
    tuple_val->u.items = exdb_arena_calloc(L->a, outs->len ? outs->len : 1, sizeof(exdb_val *));
    if (!tuple_val->u.items)
        return exdb_load_oom(L);
    const exdb_meta *none_meta = NULL;
    for (uint32_t i = 0; i < outs->len; i++) {
        const exdb_json *o = &outs->u.kids[i];
        jpath ip = PIDX(p, i);
        const char *tag = ek == ELEM_TENSOR ? "as_tensor" : "as_sym_int";
        const exdb_json *v = o;
        const jpath *vpp = &ip;
        if (ek == ELEM_ARGUMENT && exdb_load_get_union(L, o, &ip, "a node output", &tag, &v) < 0)
            return -1;
        jpath vp = PKEY(&ip, tag);
        if (ek == ELEM_ARGUMENT)
            vpp = &vp;
        const char *name = NULL;
        char q[QS];
        if (exdb_json_key_is(tag, "as_tensor")) {
            if (exdb_load_need_obj(L, v, vpp) < 0 ||
                exdb_load_get_str(L, v, "name", vpp, &name) < 0)
                return -1;
        } else if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_float") == 0) {
            if (exdb_load_node_sym_name(L, v, vpp, "a symbolic output", &name) < 0)
                return -1;
        }
        if (name) {
            exdb_node *gi = new_getitem(L, sc, of, i, name, meta);
            if (!gi)
                return exdb_load_oom(L);
            if (exdb_load_node_sync(L, sc, gi, name, vpp) < 0)
                return -1;
            tuple_val->u.items[i] = gi->meta ? gi->meta->val : NULL;
        } else if (strcmp(tag, "as_none") == 0) {
            /* the None getitems of one node share one metadata copy (meta is
             * immutable once attached): one each was ~150 bytes of IR per
             * 17 bytes of JSON */
            exdb_node *gi = new_getitem(L, sc, of, i, "as_none", meta);
            if (!gi)
                return exdb_load_oom(L);
            if (none_meta) {
                gi->meta = none_meta;
                continue;
            }
            exdb_val *nv = exdb_arena_calloc(L->a, 1, sizeof *nv);
            if (!nv || exdb_load_node_set_val(L, gi, nv) < 0)
                return exdb_load_oom(L);
            none_meta = gi->meta;
        } else if (strcmp(tag, "as_tensors") == 0 || strcmp(tag, "as_sym_ints") == 0 ||
                   strcmp(tag, "as_sym_floats") == 0) {
            if (exdb_load_need_arr(L, v, vpp) < 0)
                return -1;
            exdb_node *list = new_getitem(L, sc, of, i, NULL, meta);
            exdb_val *lv = exdb_arena_calloc(L->a, 1, sizeof *lv);
            if (!list || !lv)
                return exdb_load_oom(L);
            if (gen_getitems(L, sc, list, v, vpp, meta,
                             strcmp(tag, "as_tensors") == 0 ? ELEM_TENSOR : ELEM_SYM, lv) < 0)
                return -1;
            if (exdb_load_node_set_val(L, list, lv) < 0)
                return -1;
            tuple_val->u.items[i] = lv;
        } else {
            return exdb_load_fail(
                L, &ip,
                "unsupported node output kind %s (expected \"as_tensor\", \"as_tensors\", "
                "\"as_sym_int\", \"as_sym_ints\", \"as_sym_float\", \"as_sym_floats\" or "
                "\"as_none\")",
                exdb_load_path_qs(q, sizeof q, tag));
        }
    }
    return 0;
}

/* A node whose one output is None:
 * fx_node._rename(f"{self.graph._target_to_str(fx_node.target)}_unused"). */
static int rename_unused(loader *L, gscope *sc, exdb_node *n) {
    const char *base = exdb_target_to_str(L->a, n->op, n->target, n->tkind);
    char *cand = base ? exdb_arena_printf(L->a, "%s_unused", base) : NULL;
    if (!cand)
        return exdb_load_oom(L);
    if (strcmp(cand, n->name) != 0) {
        const char *nm = exdb_graph_create_name(sc->g, cand);
        if (!nm)
            return exdb_load_oom(L);
        void **slot = exdb_strmap_find(&sc->g->names, n->name);
        if (slot && *slot == n)
            *slot = NULL;
        slot = exdb_strmap_find(&sc->g->names, nm);
        *slot = n;
        n->name = nm;
        exdb_node_hash_name(n);
    }
    return 0;
}

/* deserialize_outputs: binds a node's outputs to names. One tensor or
 * symbolic output: the node is that value. One None: the node is renamed
 * "<target>_unused". Anything else (several outputs, a tensor list, a HOP
 * that returns a 1-tuple): getitem nodes, the node's val a tuple. */
static int load_outputs(loader *L, gscope *sc, exdb_node *n, const exdb_json *outs, const jpath *p,
                        int is_hop, int hop_single) {
    if (outs->len == 0)
        return 0;
    const exdb_json *o0 = &outs->u.kids[0];
    jpath p0 = PIDX(p, 0);
    const char *tag;
    const exdb_json *v;
    char q[QS];
    if (exdb_load_get_union(L, o0, &p0, "a node output", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(&p0, tag);
    int is_none = exdb_json_key_is(tag, "as_none");
    /* a HOP whose one result is a 1-tuple: getitem(node, 0) named after it */
    int hop_tuple = outs->len == 1 && is_hop && !hop_single && !is_none;
    int one = outs->len == 1 && !hop_tuple;
    if (one && exdb_json_key_is(tag, "as_tensor")) {
        const char *name;
        if (exdb_load_need_obj(L, v, &vp) < 0 || exdb_load_get_str(L, v, "name", &vp, &name) < 0)
            return -1;
        /* a HOP shares its meta with its get_attr subgraph arguments */
        return sync_node_meta(L, sc, n, name, &vp, !is_hop);
    }
    if (one && (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_bool") == 0 ||
                strcmp(tag, "as_sym_float") == 0)) {
        const char *name;
        if (exdb_load_node_sym_name(L, v, &vp, "a symbolic output", &name) < 0)
            return -1;
        return exdb_load_node_sync(L, sc, n, name, &vp);
    }
    if (one && is_none) {
        if (rename_unused(L, sc, n) < 0)
            return -1;
        exdb_val *nv = exdb_arena_calloc(L->a, 1, sizeof *nv);
        return nv ? exdb_load_node_set_val(L, n, nv) : exdb_load_oom(L);
    }
    exdb_val *tv = exdb_arena_calloc(L->a, 1, sizeof *tv);
    if (!tv)
        return exdb_load_oom(L);
    int rc;
    if (one) {
        /* a single list: its elements are indexed straight off the node */
        if (strcmp(tag, "as_tensors") != 0)
            return exdb_load_fail(
                L, &p0,
                "unsupported node output kind %s (expected \"as_tensor\", "
                "\"as_tensors\", \"as_sym_int\", \"as_sym_float\", \"as_sym_bool\" or "
                "\"as_none\")",
                exdb_load_path_qs(q, sizeof q, tag));
        if (exdb_load_need_arr(L, v, &vp) < 0)
            return -1;
        rc = gen_getitems(L, sc, n, v, &vp, n->meta, ELEM_TENSOR, tv);
    } else {
        rc = gen_getitems(L, sc, n, outs, p, n->meta, ELEM_ARGUMENT, tv);
    }
    if (rc < 0)
        return -1;
    if (exdb_load_node_set_val(L, n, tv) < 0)
        return -1;
    /* serialized_name_to_node[fx_node.name] = fx_node (overwriting, as PyTorch does) */
    void **slot = exdb_strmap_put_hashed(&sc->values, n->name, exdb_node_name_hash(n), NULL);
    if (!slot)
        return exdb_load_oom(L);
    *slot = n;
    return 0;
}

/* target in serialize.py's _SYM_OPS, spelled as serialize_operator writes
 * it (operator.* as "_operator.*"), or aten.item.default, which deserialize_node
 * takes with them. */
int exdb_load_node_is_sym_op(const char *target) {
    /* most targets are operators (torch.ops.*): of those only aten.item */
    if (strncmp(target, "torch.ops.", 10) == 0)
        return strcmp(target + 10, "aten.item.default") == 0;
    static const char *const ops[] = {"_operator.eq",
                                      "_operator.ne",
                                      "_operator.le",
                                      "_operator.ge",
                                      "_operator.lt",
                                      "_operator.gt",
                                      "_operator.neg",
                                      "_operator.pos",
                                      "math.trunc",
                                      "torch.sym_not",
                                      "_operator.mul",
                                      "_operator.add",
                                      "_operator.sub",
                                      "_operator.floordiv",
                                      "_operator.mod",
                                      "_operator.pow",
                                      "torch.sym_int",
                                      "torch.sym_float",
                                      "torch.sym_ite",
                                      "torch.sym_max",
                                      "torch.sym_min",
                                      "torch.sym_sqrt",
                                      "_operator.truediv",
                                      "_operator.and_",
                                      "_operator.or_",
                                      "_operator.lshift",
                                      "_operator.rshift",
                                      "torch.ops.aten.item.default",
                                      NULL};
    for (int i = 0; ops[i]; i++)
        if (strcmp(target, ops[i]) == 0)
            return 1;
    return 0;
}

/* The name of outputs[0].as_tensor when the node has exactly that one
 * output (the schema-less stand-in for _is_single_tensor_return). */
static const char *single_tensor_name(const exdb_json *outs) {
    if (outs->len != 1)
        return NULL;
    const exdb_json *t = exdb_load_get_opt(&outs->u.kids[0], "as_tensor");
    const exdb_json *nm = exdb_load_get_opt(t, "name");
    return exdb_json_is(nm, EXDB_JSTRING) ? nm->u.str : NULL;
}

/* How input i of a call_function is passed. Sym ops: positionally. HOPs:
 * positionally when the name is "" (deserialize_hoo_inputs). OpOverloads:
 * by ArgumentKind (1 positional, 2 keyword unless the name is a Python
 * keyword); with no kind (5.x) or kind 0 PyTorch consults the op schema,
 * which exdb does not have, so such inputs count as positional. */
static int input_is_positional(loader *L, const exdb_json *na, const jpath *nap, const char *aname,
                               int sym, int is_hop, int *positional) {
    if (sym) {
        *positional = 1;
    } else if (is_hop) {
        *positional = aname[0] == '\0';
    } else {
        const exdb_json *kind = exdb_load_get_opt(na, "kind");
        int64_t k = 1;
        if (kind) {
            jpath kp = PKEY(nap, "kind");
            if (exdb_load_as_int(L, kind, &kp, &k) < 0)
                return -1;
        }
        *positional = !(k == 2 && !is_python_keyword(aname));
    }
    return 0;
}

/* The inputs whose "arg" node_args keeps for load_node_args (a node's
 * first ARGJ_MAX; the others are looked up again). */
enum { ARGJ_MAX = 16 };

/* A node's args and kwargs from its inputs ins (at ip) in serialized
 * order, pos[i] saying which are positional (npos of them, nkw keyword),
 * argj[i] the "arg" of input i < ARGJ_MAX. */
static int load_node_args(loader *L, gscope *sc, const exdb_json *ins, const jpath *ip,
                          const uint8_t *pos, const exdb_json *const *argj, uint32_t npos,
                          uint32_t nkw, exdb_arg *args, exdb_arg *kwargs) {
    if (exdb_arg_seq(L->a, EXDB_ARG_TUPLE, npos, args) < 0 ||
        exdb_arg_seq(L->a, EXDB_ARG_DICT, nkw, kwargs) < 0)
        return exdb_load_oom(L);
    uint32_t ap = 0, kp = 0;
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *na = &ins->u.kids[i];
        jpath nap = PIDX(ip, i);
        jpath argp = PKEY(&nap, "arg");
        exdb_arg *dst;
        if (pos[i]) {
            dst = &args->u.items[ap++];
        } else {
            kwargs->keys[kp] = exdb_json_get(na, "name")->u.str;
            dst = &kwargs->u.items[kp++];
        }
        if (exdb_load_arg(L, sc, i < ARGJ_MAX ? argj[i] : exdb_json_get(na, "arg"), &argp, dst) < 0)
            return -1;
    }
    return 0;
}

/* The args and kwargs of a call_function from its inputs ins (at ip): each
 * input's passing decided first (input_is_positional), then the argument
 * trees built in the program's args arena (see program.h): L->a points there
 * while they are. */
static int node_args(loader *L, gscope *sc, const exdb_json *ins, const jpath *ip, int sym,
                     int is_hop, exdb_arg *args, exdb_arg *kwargs, exdb_meta *meta) {
    uint8_t *pos = exdb_arena_alloc(L->a, ins->len ? ins->len : 1);
    const char **names = exdb_arena_calloc(L->a, ins->len ? ins->len : 1, sizeof *names);
    if (!pos || !names)
        return exdb_load_oom(L);
    uint32_t npos = 0, nkw = 0;
    const exdb_json *argj[ARGJ_MAX];
    for (uint32_t i = 0; i < ins->len; i++) {
        const exdb_json *na = &ins->u.kids[i];
        jpath nap = PIDX(ip, i);
        const char *aname;
        int positional;
        if (exdb_load_need_obj(L, na, &nap) < 0 ||
            exdb_load_get_str(L, na, "name", &nap, &aname) < 0 ||
            input_is_positional(L, na, &nap, aname, sym, is_hop, &positional) < 0)
            return -1;
        const exdb_json *aj = exdb_json_get(na, "arg");
        if (!aj)
            return exdb_load_fail(L, &nap, "missing key \"arg\" (expected an Argument)");
        if (i < ARGJ_MAX)
            argj[i] = aj;
        pos[i] = (uint8_t)positional;
        if (positional)
            names[npos++] = aname;
        else
            nkw++;
    }
    meta->arg_names = names;
    meta->narg_names = npos;
    exdb_arena *own = L->a;
    L->a = L->args;
    int rc = load_node_args(L, sc, ins, ip, pos, argj, npos, nkw, args, kwargs);
    L->a = own;
    return rc;
}

/* Node.name at p: *given is it, or NULL when absent, null or "". */
static int node_name(loader *L, const exdb_json *jn, const jpath *p, const char **given) {
    const exdb_json *jname = exdb_load_get_opt(jn, "name");
    *given = NULL;
    if (!jname)
        return 0;
    jpath np = PKEY(p, "name");
    if (jname->type != EXDB_JSTRING)
        return exdb_load_type_fail(L, jname, &np, "a string or null");
    if (exdb_load_check_str(L, jname, &np) < 0 ||
        exdb_load_check_name(L, jname->u.str, &np, "node name") < 0)
        return -1;
    if (jname->u.str[0])
        *given = jname->u.str;
    return 0;
}

/* A symbolic op's one output (outs at op; pt its target, for messages):
 * {"as_sym_int"/"as_sym_float"/"as_sym_bool": {"as_name": ...}}, its name in
 * *sym_name, the path of the union's payload in *sym_vpath (a step below
 * *sym_path, outputs[0], which the caller keeps). */
static int sym_output(loader *L, const exdb_json *outs, const jpath *op, const char *pt,
                      const jpath *sym_path, jpath *sym_vpath, const char **sym_name) {
    const char *tag;
    const exdb_json *v;
    if (outs->len == 0)
        return exdb_load_fail(L, op, "a symbolic op (%s) must have one output, found none", pt);
    if (exdb_load_get_union(L, &outs->u.kids[0], sym_path, "a node output", &tag, &v) < 0)
        return -1;
    *sym_vpath = PKEY(sym_path, tag);
    if (strcmp(tag, "as_sym_int") && strcmp(tag, "as_sym_float") && strcmp(tag, "as_sym_bool")) {
        char q[QS];
        return exdb_load_fail(L, sym_path,
                              "a symbolic op (%s) must output \"as_sym_int\", \"as_sym_float\" or "
                              "\"as_sym_bool\", found %s",
                              pt, exdb_load_path_qs(q, sizeof q, tag));
    }
    return exdb_load_node_sym_name(L, v, sym_vpath, "a symbolic output", sym_name);
}

/* A HOP's get_attr subgraph arguments take the HOP's metadata (without its
 * val). */
static int hop_attr_meta(loader *L, exdb_arg *args, exdb_arg *kwargs, const exdb_meta *meta) {
    for (uint32_t i = 0; i < args->n + kwargs->n; i++) {
        exdb_arg *a = i < args->n ? &args->u.items[i] : &kwargs->u.items[i - args->n];
        if (a->kind == EXDB_ARG_NODE && a->u.node->op == EXDB_OP_GET_ATTR) {
            exdb_meta *m = exdb_arena_alloc(L->a, sizeof *m);
            if (!m)
                return exdb_load_oom(L);
            *m = *meta;
            m->val = NULL;
            a->u.node->meta = m;
        }
    }
    return 0;
}

/* deserialize_node: one serialized node -> one call_function node (plus
 * getitems). The name handed to create_node is Node.name when present, else
 * the single output's name (sym ops; single-tensor ops; HOPs flagged
 * is_hop_single_tensor_return), else none (FX derives it from the target);
 * outputs are then synced, which may force the printed name. */
int exdb_load_node(loader *L, gscope *sc, const exdb_json *jn, const jpath *p, int32_t idx) {
    if (exdb_load_need_obj(L, jn, p) < 0)
        return -1;
    const char *target;
    jpath tp = PKEY(p, "target");
    if (exdb_load_get_str(L, jn, "target", p, &target) < 0 ||
        exdb_load_check_name(L, target, &tp, "target") < 0)
        return -1;
    jpath ip = PKEY(p, "inputs"), op = PKEY(p, "outputs"), mp = PKEY(p, "metadata");
    const exdb_json *ins = exdb_json_get(jn, "inputs");
    const exdb_json *outs = exdb_json_get(jn, "outputs");
    if (exdb_load_need_arr(L, ins, &ip) < 0 || exdb_load_need_arr(L, outs, &op) < 0)
        return -1;
    const char *given;
    if (node_name(L, jn, p, &given) < 0)
        return -1;
    exdb_meta *meta = NULL;
    if (exdb_load_meta(L, exdb_load_get_opt(jn, "metadata"), &mp, &meta) < 0)
        return -1;

    exdb_target_kind tk;
    const char *pt = exdb_load_arg_pretty_target(L, target, &tk);
    if (!pt)
        return exdb_load_oom(L);
    /* deserialize_node's branches: _SYM_OPS; a HOP; an OpOverload; any other
     * callable (the pre-dispatch functorch wrappers of vmap, jvp, ...:
     * torch._functorch.predispatch.*), whose inputs are read as a HOP's and
     * whose name is only Node.name. */
    int sym = exdb_load_node_is_sym_op(target);
    int is_hop = tk == EXDB_T_HOP;
    int plain_fn = tk == EXDB_T_PYFN && !sym;
    const exdb_json *hs = exdb_load_get_opt(jn, "is_hop_single_tensor_return");
    int hop_single = hs && hs->type == EXDB_JTRUE;
    const char *sym_name = NULL;
    jpath sym_path = PIDX(&op, 0), sym_vpath = sym_path;
    if (sym && sym_output(L, outs, &op, pt, &sym_path, &sym_vpath, &sym_name) < 0)
        return -1;

    /* args / kwargs, in serialized order */
    exdb_arg args, kwargs;
    if (node_args(L, sc, ins, &ip, sym, is_hop || plain_fn, &args, &kwargs, meta) < 0)
        return -1;
    meta->arg_names_target = pt;

    const char *cand = given;
    if (!cand && !plain_fn)
        cand = sym ? sym_name : (!is_hop || hop_single) ? single_tensor_name(outs) : NULL;
    exdb_node *n =
        exdb_graph_create_node_kept(sc->g, EXDB_OP_CALL_FUNCTION, pt, tk, &args, &kwargs, cand);
    if (!n)
        return exdb_load_oom(L);
    n->src = idx;
    n->meta = meta;
    if (is_hop && hop_attr_meta(L, &args, &kwargs, meta) < 0)
        return -1;
    if (sym) /* deserialize_sym_op_outputs */
        return exdb_load_node_sync(L, sc, n, sym_name, &sym_vpath);
    return load_outputs(L, sc, n, outs, &op, is_hop, hop_single);
}
