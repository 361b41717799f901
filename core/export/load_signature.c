/* load_signature.c - see load_signature.h. */
#include "core/export/load_signature.h"

#include <string.h>

#include "core/export/load_arg.h"
#include "core/export/load_sigtext.h"

/* The name of an Argument that names a value, or NULL for constants. */
static int arg_value_name(loader *L, const exdb_json *j, const jpath *p, const char **name,
                          exdb_arg *constant) {
    const char *tag;
    const exdb_json *v;
    *name = NULL;
    if (exdb_load_get_union(L, j, p, "an Argument", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(p, tag);
    if (strcmp(tag, "as_tensor") == 0 || strcmp(tag, "as_custom_obj") == 0 ||
        strcmp(tag, "as_token") == 0)
        return exdb_load_need_obj(L, v, &vp) < 0 ? -1 : exdb_load_get_str(L, v, "name", &vp, name);
    if (strcmp(tag, "as_sym_int") == 0 || strcmp(tag, "as_sym_float") == 0 ||
        strcmp(tag, "as_sym_bool") == 0) {
        const char *st;
        const exdb_json *sv;
        if (exdb_load_get_union(L, v, &vp, "a symbolic argument", &st, &sv) < 0)
            return -1;
        jpath np = PKEY(&vp, st);
        if (strcmp(st, "as_name") == 0 && sv->type == EXDB_JSTRING) {
            if (exdb_load_check_str(L, sv, &np) < 0)
                return -1;
            *name = sv->u.str;
        }
        return 0;
    }
    if (constant) {
        gscope none = {0};
        exdb_strmap_init(&none.values, L->a);
        return exdb_load_arg(L, &none, j, p, constant);
    }
    return 0;
}

/* A spec's "arg" under vp: for a user input or output the value's name or
 * constant (arg_value_name), else the named argument's name; *argp (when
 * not NULL) is the Argument. */
static int spec_arg(loader *L, const exdb_json *v, const jpath *vp, int user, const char **name,
                    exdb_arg *value, const exdb_json **argp) {
    const exdb_json *arg = exdb_json_get(v, "arg");
    jpath ap = PKEY(vp, "arg");
    if (argp)
        *argp = arg;
    if (!arg)
        return exdb_load_fail(L, vp, "missing key \"arg\" (expected an Argument)");
    if (user)
        return arg_value_name(L, arg, &ap, name, value);
    if (exdb_load_need_obj(L, arg, &ap) < 0 || exdb_load_get_str(L, arg, "name", &ap, name) < 0)
        return -1;
    return 0;
}

/* InputSpec j at ep into s. */
static int load_input_spec(loader *L, const exdb_json *j, const jpath *ep, exdb_input_spec *s) {
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, j, ep, "an InputSpec", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(ep, tag);
    s->persistent = -1;
    int k = exdb_input_kind_of(tag);
    if (k < 0) {
        char q[QS];
        return exdb_load_fail(L, ep,
                              "unknown input spec kind %s (expected user_input, parameter, buffer, "
                              "tensor_constant, custom_obj, token or constant_input)",
                              exdb_load_path_qs(q, sizeof q, tag));
    }
    s->kind = (exdb_input_kind)k;
    if (exdb_load_need_obj(L, v, &vp) < 0)
        return -1;
    if (k == EXDB_IN_CONSTANT_INPUT) {
        if (exdb_load_get_str(L, v, "name", &vp, &s->name) < 0)
            return -1;
        const exdb_json *cv = exdb_json_get(v, "value");
        jpath cvp = PKEY(&vp, "value");
        if (cv) {
            gscope none = {0};
            exdb_strmap_init(&none.values, L->a);
            if (exdb_load_arg(L, &none, cv, &cvp, &s->value) < 0)
                return -1;
        }
        return 0;
    }
    const exdb_json *arg;
    if (spec_arg(L, v, &vp, k == EXDB_IN_USER_INPUT, &s->name, &s->value, &arg) < 0)
        return -1;
    if (k != EXDB_IN_USER_INPUT) {
        jpath ap = PKEY(&vp, "arg");
        const exdb_json *cf = exdb_json_get(arg, "class_fqn");
        jpath cfp = PKEY(&ap, "class_fqn");
        if (k == EXDB_IN_CUSTOM_OBJ && exdb_json_is(cf, EXDB_JSTRING)) {
            if (exdb_load_check_str(L, cf, &cfp) < 0)
                return -1;
            s->class_fqn = cf->u.str;
        }
    }
    const char *tkey = k == EXDB_IN_PARAMETER         ? "parameter_name"
                       : k == EXDB_IN_BUFFER          ? "buffer_name"
                       : k == EXDB_IN_TENSOR_CONSTANT ? "tensor_constant_name"
                       : k == EXDB_IN_CUSTOM_OBJ      ? "custom_obj_name"
                                                      : NULL;
    if (tkey && exdb_load_get_str(L, v, tkey, &vp, &s->target) < 0)
        return -1;
    if (k == EXDB_IN_BUFFER) {
        const exdb_json *pers = exdb_load_get_opt(v, "persistent");
        s->persistent = 1;
        if (pers) {
            jpath pp = PKEY(&vp, "persistent");
            if (exdb_load_as_bool(L, pers, &pp, &s->persistent) < 0)
                return -1;
        }
    }
    return 0;
}

/* InputSpec e read off its text into s (exdb_load_sigtext_spec: what
 * load_input_spec gives it): 1; 0 when it is not in that form; -1 when
 * memory ran out. */
static int input_spec_text(loader *L, const exdb_json *e, exdb_input_spec *s) {
    exdb_sigtext_spec t;
    if (!exdb_load_sigtext_spec(e, &t))
        return 0;
    s->kind = t.kind;
    s->persistent = t.persistent;
    /* the name and the target in one piece */
    char *d = exdb_arena_alloc(L->a, t.nlen + t.tlen + 2);
    if (!d)
        return exdb_load_oom(L);
    memcpy(d, t.name, t.nlen);
    d[t.nlen] = '\0';
    s->name = d;
    s->target = NULL;
    if (t.target) {
        d += t.nlen + 1;
        memcpy(d, t.target, t.tlen);
        d[t.tlen] = '\0';
        s->target = d;
    }
    return 1;
}

/* OutputSpec j at ep into s. */
static int load_output_spec(loader *L, const exdb_json *j, const jpath *ep, exdb_output_spec *s) {
    const char *tag;
    const exdb_json *v;
    if (exdb_load_get_union(L, j, ep, "an OutputSpec", &tag, &v) < 0)
        return -1;
    jpath vp = PKEY(ep, tag);
    int k = exdb_output_kind_of(tag);
    if (k < 0) {
        char q[QS];
        return exdb_load_fail(L, ep,
                              "unknown output spec kind %s (expected user_output, loss_output, "
                              "buffer_mutation, parameter_mutation, gradient_to_parameter, "
                              "gradient_to_user_input, user_input_mutation or token)",
                              exdb_load_path_qs(q, sizeof q, tag));
    }
    s->kind = (exdb_output_kind)k;
    if (exdb_load_need_obj(L, v, &vp) < 0)
        return -1;
    if (spec_arg(L, v, &vp, k == EXDB_OUT_USER_OUTPUT, &s->name, &s->value, NULL) < 0)
        return -1;
    const char *tkey = k == EXDB_OUT_BUFFER_MUTATION ? "buffer_name"
                       : (k == EXDB_OUT_GRADIENT_TO_PARAMETER || k == EXDB_OUT_PARAMETER_MUTATION)
                           ? "parameter_name"
                       : (k == EXDB_OUT_GRADIENT_TO_USER_INPUT || k == EXDB_OUT_USER_INPUT_MUTATION)
                           ? "user_input_name"
                           : NULL;
    if (tkey && exdb_load_get_str(L, v, tkey, &vp, &s->target) < 0)
        return -1;
    return 0;
}

/* deserialize_signature: input_specs/output_specs (unions, docs/pt2-format.md §7)
 * into prog->inputs/outputs. Loaded before the graph, since constant graph
 * inputs take their placeholder names from it. */
int exdb_load_signature(loader *L, const exdb_json *sig, const jpath *p) {
    exdb_program *P = L->prog;
    if (exdb_load_need_obj(L, sig, p) < 0)
        return -1;
    const exdb_json *ins = exdb_json_get(sig, "input_specs");
    const exdb_json *outs = exdb_json_get(sig, "output_specs");
    jpath ip = PKEY(p, "input_specs"), op = PKEY(p, "output_specs");
    if (!ins && (exdb_json_get(sig, "inputs_to_parameters") || exdb_json_get(sig, "user_inputs")))
        return exdb_load_fail(
            L, p,
            "schema-1 graph signature (inputs_to_parameters/user_inputs maps) is not "
            "supported; expected input_specs/output_specs");
    if (exdb_load_need_arr(L, ins, &ip) < 0 || exdb_load_need_arr(L, outs, &op) < 0)
        return -1;
    P->inputs = exdb_arena_calloc(L->a, ins->len ? ins->len : 1, sizeof *P->inputs);
    P->outputs = exdb_arena_calloc(L->a, outs->len ? outs->len : 1, sizeof *P->outputs);
    if (!P->inputs || !P->outputs)
        return exdb_load_oom(L);
    P->ninputs = ins->len;
    P->noutputs = outs->len;
    /* the specs' strings are kept with the program (the shape read's
     * loader decodes into a scratch pool) */
    exdb_jstrings kept = exdb_jstrings_on(L->a);
    for (uint32_t i = 0; i < ins->len; i++) {
        jpath ep = PIDX(&ip, i);
        int got = input_spec_text(L, &ins->u.kids[i], &P->inputs[i]);
        if (got < 0)
            return -1;
        if (got)
            continue;
        const char *was[2] = {L->clean_lo, L->clean_hi};
        exdb_json parsed;
        const exdb_json *e = exdb_load_root_entry(L, &ins->u.kids[i], &kept, &parsed);
        int rc = e ? load_input_spec(L, e, &ep, &P->inputs[i]) : -1;
        L->clean_lo = was[0];
        L->clean_hi = was[1];
        if (rc < 0)
            return -1;
    }
    for (uint32_t i = 0; i < outs->len; i++) {
        jpath ep = PIDX(&op, i);
        if (load_output_spec(L, &outs->u.kids[i], &ep, &P->outputs[i]) < 0)
            return -1;
    }
    return 0;
}

/* The checks of ExportedProgram's verifier (_verify_exported_program_signature)
 * that concern names: each named input spec names the placeholder at its
 * position, each named output spec the value the graph returns there. */
int exdb_load_signature_check_names(loader *L, const jpath *sigp) {
    exdb_program *P = L->prog;
    char q1[QS], q2[QS];
    jpath isp = PKEY(sigp, "input_specs"), osp = PKEY(sigp, "output_specs");
    const exdb_node *ph = P->graph->head;
    for (uint32_t i = 0; i < P->ninputs; i++, ph = ph ? ph->next : NULL) {
        const exdb_input_spec *s = &P->inputs[i];
        if (!ph || ph->op != EXDB_OP_PLACEHOLDER)
            break;
        if (!s->name || s->kind == EXDB_IN_CONSTANT_INPUT || s->kind == EXDB_IN_CUSTOM_OBJ ||
            s->kind == EXDB_IN_TOKEN)
            continue;
        if (strcmp(s->name, ph->name) != 0) {
            jpath ep = PIDX(&isp, i);
            return exdb_load_fail(
                L, &ep,
                "names %s, but graph input %u is %s (input specs and graph inputs pair "
                "up in order)",
                exdb_load_path_qs(q1, sizeof q1, s->name), i,
                exdb_load_path_qs(q2, sizeof q2, ph->name));
        }
    }
    const exdb_node *out = exdb_graph_output(P->graph);
    if (!out || out->args.n != 1)
        return 0;
    const exdb_arg *res = &out->args.u.items[0];
    uint32_t nres = res->kind == EXDB_ARG_TUPLE ? res->n : 1;
    for (uint32_t i = 0; i < P->noutputs && i < nres; i++) {
        const exdb_output_spec *s = &P->outputs[i];
        const exdb_arg *a = res->kind == EXDB_ARG_TUPLE ? &res->u.items[i] : res;
        if (!s->name || s->kind == EXDB_OUT_TOKEN)
            continue;
        if (a->kind != EXDB_ARG_NODE || strcmp(s->name, a->u.node->name) != 0) {
            jpath ep = PIDX(&osp, i);
            return exdb_load_fail(
                L, &ep,
                "names %s, but graph output %u is %s (output specs and graph outputs "
                "pair up in order)",
                exdb_load_path_qs(q1, sizeof q1, s->name), i,
                a->kind == EXDB_ARG_NODE ? exdb_load_path_qs(q2, sizeof q2, a->u.node->name)
                                         : "a constant");
        }
    }
    return 0;
}

/* ---- module_call_graph */

/* ModuleCallSignature.inputs/outputs: value names (NULL for constants),
 * and each ConstantArgument's value in *vals (None beside a name). */
static int load_sig_args(loader *L, const exdb_json *j, const jpath *p, const char ***out,
                         exdb_arg **vals, uint32_t *n) {
    if (!j) {
        *n = 0;
        *out = NULL;
        *vals = NULL;
        return 0;
    }
    if (exdb_load_need_arr(L, j, p) < 0)
        return -1;
    *n = j->len;
    *out = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **out);
    *vals = exdb_arena_calloc(L->a, j->len ? j->len : 1, sizeof **vals);
    if (!*out || !*vals)
        return exdb_load_oom(L);
    for (uint32_t i = 0; i < j->len; i++) {
        jpath ep = PIDX(p, i);
        if (arg_value_name(L, &j->u.kids[i], &ep, &(*out)[i], &(*vals)[i]) < 0)
            return -1;
    }
    return 0;
}

/* module_call_graph: one entry per module FQN, with the signature (and its
 * TreeSpecs, parsed) of the root and of preserved modules. */
int exdb_load_signature_call_graph(loader *L, const exdb_json *mcg, const jpath *p) {
    exdb_program *P = L->prog;
    if (exdb_load_need_arr(L, mcg, p) < 0)
        return -1;
    P->calls = exdb_arena_calloc(L->a, mcg->len ? mcg->len : 1, sizeof *P->calls);
    if (!P->calls)
        return exdb_load_oom(L);
    P->ncalls = mcg->len;
    for (uint32_t i = 0; i < mcg->len; i++) {
        const exdb_json *e = &mcg->u.kids[i];
        jpath ep = PIDX(p, i);
        if (exdb_load_need_obj(L, e, &ep) < 0 ||
            exdb_load_get_str(L, e, "fqn", &ep, &P->calls[i].fqn) < 0)
            return -1;
        jpath fqp = PKEY(&ep, "fqn");
        const char *fqn = P->calls[i].fqn;
        if (exdb_load_check_name(L, fqn, &fqp, "module fqn") < 0)
            return -1;
        uint32_t levels = fqn[0] != 0;
        for (const char *q = fqn; *q; q++)
            levels += *q == '.';
        if (levels > EXDB_MAX_MODULE_DEPTH)
            return exdb_load_fail(
                L, &fqp, "%u components: modules nested deeper than the limit of %d levels", levels,
                EXDB_MAX_MODULE_DEPTH);
        if (exdb_load_count_module(L, fqn, strlen(fqn), &fqp) < 0)
            return -1;
        const exdb_json *sig = exdb_load_get_opt(e, "signature");
        if (!sig)
            continue;
        jpath sp = PKEY(&ep, "signature");
        if (exdb_load_need_obj(L, sig, &sp) < 0)
            return -1;
        exdb_call_signature *s = exdb_arena_calloc(L->a, 1, sizeof *s);
        if (!s)
            return exdb_load_oom(L);
        P->calls[i].sig = s;
        jpath inp = PKEY(&sp, "inputs"), outp = PKEY(&sp, "outputs");
        if (load_sig_args(L, exdb_load_get_opt(sig, "inputs"), &inp, &s->inputs, &s->input_values,
                          &s->ninputs) < 0 ||
            load_sig_args(L, exdb_load_get_opt(sig, "outputs"), &outp, &s->outputs,
                          &s->output_values, &s->noutputs) < 0)
            return -1;
        for (int which = 0; which < 2; which++) {
            const char *key = which ? "out_spec" : "in_spec";
            const exdb_json *spec = exdb_load_get_opt(sig, key);
            jpath kp = PKEY(&sp, key);
            if (!spec)
                continue;
            if (spec->type != EXDB_JSTRING)
                return exdb_load_fail(L, &kp, "expected a TreeSpec JSON string, found %s",
                                      exdb_json_type_name(spec));
            if (exdb_load_check_str(L, spec, &kp) < 0)
                return -1;
            exdb_treespec *ts;
            exdb_error e2 = {0};
            if (exdb_parse_treespec(L->a, spec->u.str, &ts, &e2) < 0)
                return exdb_load_fail(L, &kp, "%s", e2.msg);
            if (which) {
                s->out_spec = ts;
                s->out_spec_text = spec->u.str;
            } else {
                s->in_spec = ts;
                s->in_spec_text = spec->u.str;
            }
        }
        const exdb_json *fan = exdb_load_get_opt(sig, "forward_arg_names");
        if (fan) {
            jpath fp = PKEY(&sp, "forward_arg_names");
            if (exdb_load_str_list(L, fan, &fp, &s->forward_arg_names, &s->nforward_arg_names) < 0)
                return -1;
        }
    }
    return 0;
}
