#!/usr/bin/env python3
"""gen_modgraph.py - write a small torch.export program (schema 8.20 JSON)
whose nn_module_stack gives the module tree an adversarial shape.

Usage:
    python3 scripts/gen_modgraph.py SHAPE N [--out FILE]

Every program is a chain of N aten.relu nodes on one input x (no state, so
no weights are needed); only the nn_module_stack of each node differs:

  calls N      one module `act` called N times (`act`, `act@1`, ...): the
               shape whose unflatten cost must stay linear in N.
  calls_param N  the same with a Linear `fc` whose weight (`fc.weight`, a
               parameter, one placeholder the N calls share) each call reads.
  calls_nested N  one module `blk.act` called N times inside one call of `blk`.
  modules N    N distinct modules `m0` ... `m<N-1>`, each called once.
  cycle N      module `a` (called at depth 1) called again one level below
               itself (`a@1` at path `a.b`): its second call shares the first
               call's _modules, which then holds it, so the module is its own
               descendant (torch: RecursionError in _sink_params). N-1 plain
               calls of `a` come first.
  alias N      shared modules nested N deep: at each level the module of the
               level is called once under its own name and once under a
               second name, and the second call shares the first's _modules,
               so the tree has 2**N paths (torch's named_modules(
               remove_duplicate=False) visits every one).
  graphless N  N levels of modules reached through dotted accessors (`g.h`
               under `g`...), so each level puts a module without a graph
               between two graph modules, and each level's module is also
               called a second time (aliasing the graphless ones).

  deep N       one module nested N deep (`d0.d1. ... .d<N-1>`), a relu at
               each level: stacks deeper than the walks' first capacities.

  wide N       one module `w` holding N modules `w.c0` ... `w.c<N-1>`, each
               called once (a graph module with N children).
  args N       N relus under the root, then one aten.cat of them all in
               module `m`: a call_module with N arguments.

  ints N       one relu node under the root, then one aten.view of it whose
               size is a list of N ints (a long int list; no module tree).
  mcg N        one relu node under the root, and N module_call_graph
               entries `m0` ... `m<N-1>` (signature null: modules torch lists
               that run no node).

The same arguments always give byte-identical output. Python 3 stdlib only.
"""
import argparse
import json
import sys

LEAF = '[1, {"type": null, "context": null, "children_spec": []}]'
IN_SPEC = json.dumps([1, {"type": "builtins.tuple", "context": "null", "children_spec": [
    {"type": "builtins.tuple", "context": "null",
     "children_spec": [{"type": None, "context": None, "children_spec": []}]},
    {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])
ROOT = "L__self__,,m.Net"
RELU = "torch.nn.modules.activation.ReLU"
SEQ = "torch.nn.modules.container.Sequential"


def stacks_calls(n):
    return [ROOT + ";L__self__act%s,act,%s" % ("@%d" % i if i else "", RELU) for i in range(n)]


def stacks_modules(n):
    return [ROOT + ";L__self__m%d,m%d,%s" % (i, i, RELU) for i in range(n)]


def stacks_calls_nested(n):
    blk = ";L__self__blk,blk,%s" % SEQ
    return [ROOT + blk + ";L__self__blk.act%s,blk.act,%s" % ("@%d" % i if i else "", RELU)
            for i in range(n)]


def stacks_cycle(n):
    out = [ROOT + ";L__self__a%s,a,%s" % ("@%d" % i if i else "", SEQ) for i in range(max(n - 1, 1))]
    out.append(ROOT + ";L__self__a,a,%s;L__self__a@%d,a.b,%s" % (SEQ, max(n - 1, 1), SEQ))
    return out


def stacks_alias(n):
    """Level i: module k<i> at path p.m<i> (first call) and again at
    p.s<i> (second call, sharing the first's children)."""
    out, prefix, path = [], ROOT, ""
    for i in range(n):
        p1 = (path + "." if path else "") + "m%d" % i
        p2 = (path + "." if path else "") + "s%d" % i
        out.append(prefix + ";L__self__k%d,%s,%s" % (i, p1, SEQ))
        out.append(prefix + ";L__self__k%d@1,%s,%s" % (i, p2, SEQ))
        prefix += ";L__self__k%d,%s,%s" % (i, p1, SEQ)
        path = p1
    return out


def stacks_graphless(n):
    """Level i: module at path p.g<i>.h<i> under p (accessor g<i>.h<i>, so
    g<i> is created without a graph), called twice."""
    out, prefix, path = [], ROOT, ""
    for i in range(n):
        p = (path + "." if path else "") + "g%d.h%d" % (i, i)
        out.append(prefix + ";L__self__h%d,%s,%s" % (i, p, SEQ))
        out.append(prefix + ";L__self__h%d@1,%s,%s" % (i, p, SEQ))
        prefix += ";L__self__h%d,%s,%s" % (i, p, SEQ)
        path = p
    return out


def stacks_deep(n):
    out, prefix, path = [], ROOT, ""
    for i in range(n):
        path = (path + "." if path else "") + "d%d" % i
        prefix += ";k%d,%s,m.D" % (i, path)
        out.append(prefix)
    return out


def stacks_wide(n):
    w = ROOT + ";L__self__w,w,%s" % SEQ
    return [w + ";L__self__w_c%d,w.c%d,%s" % (i, i, RELU) for i in range(n)]


LINEAR = "torch.nn.modules.linear.Linear"


def stacks_calls_param(n):
    return [ROOT + ";L__self__fc%s,fc,%s" % ("@%d" % i if i else "", LINEAR) for i in range(n)]


SHAPES = {"calls": stacks_calls, "calls_param": stacks_calls_param,
          "calls_nested": stacks_calls_nested, "modules": stacks_modules, "cycle": stacks_cycle, "alias": stacks_alias,
          "graphless": stacks_graphless, "deep": stacks_deep, "wide": stacks_wide, "ints": lambda n: [ROOT], "args": lambda n: [ROOT] * n, "mcg": lambda n: [ROOT]}


def tensor(rows=2):
    return {"dtype": 7, "sizes": [{"as_int": rows}, {"as_int": 8}], "requires_grad": False,
            "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": 8}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7}


def int_list(n):
    """Ints of 1 to 6 digits, as a size list of a program that is long."""
    return [(i * 7919) % 1000003 for i in range(n)]


def program(stacks, linear=False, ints=0, extra_fqns=0, cat=0):
    nodes, tv, prev = [], {"x": tensor()}, "x"
    fqns = []
    if cat:
        stacks = stacks[:cat]
    if linear:
        tv["p_fc_weight"] = tensor(8)
    for i, st in enumerate(stacks):
        base = "linear" if linear else "relu"
        name = base if i == 0 else "%s_%d" % (base, i)
        ins = [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1}]
        if linear:
            ins = [{"name": "input", "arg": {"as_tensor": {"name": prev}}, "kind": 1},
                   {"name": "weight", "arg": {"as_tensor": {"name": "p_fc_weight"}}, "kind": 1}]
        nodes.append({"target": "torch.ops.aten.%s.default" % base,
                      "inputs": ins,
                      "outputs": [{"as_tensor": {"name": name}}],
                      "metadata": {"nn_module_stack": st},
                      "is_hop_single_tensor_return": None, "name": name})
        tv[name] = tensor()
        prev = name if not cat else "x"
        for entry in st.split(";")[1:]:
            path = entry.split(",")[1]
            if path not in fqns:
                fqns.append(path)
    if cat:
        nodes.append({"target": "torch.ops.aten.cat.default",
                      "inputs": [{"name": "tensors", "kind": 1, "arg": {"as_tensors": [
                          {"name": "relu" if i == 0 else "relu_%d" % i} for i in range(cat)]}}],
                      "outputs": [{"as_tensor": {"name": "cat"}}],
                      "metadata": {"nn_module_stack": ROOT + ";L__self__m,m,%s" % RELU},
                      "is_hop_single_tensor_return": None, "name": "cat"})
        tv["cat"] = tensor(2 * cat)
        prev = "cat"
        fqns.append("m")
    if ints:
        nodes.append({"target": "torch.ops.aten.view.default",
                      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1},
                                 {"name": "size", "arg": {"as_ints": int_list(ints)}, "kind": 1}],
                      "outputs": [{"as_tensor": {"name": "view"}}],
                      "metadata": {"nn_module_stack": ROOT},
                      "is_hop_single_tensor_return": None, "name": "view"})
        tv["view"] = tensor()
        prev = "view"
    fqns += ["m%d" % i for i in range(extra_fqns)]
    mcg = [{"fqn": "", "signature": {"inputs": [], "outputs": [], "in_spec": IN_SPEC,
                                     "out_spec": LEAF, "forward_arg_names": ["x"]}}]
    mcg += [{"fqn": f, "signature": None} for f in fqns]
    inputs = [{"as_tensor": {"name": "x"}}]
    specs = [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}]
    if linear:
        inputs.insert(0, {"as_tensor": {"name": "p_fc_weight"}})
        specs.insert(0, {"parameter": {"arg": {"name": "p_fc_weight"}, "parameter_name": "fc.weight"}})
    return {
        "schema_version": {"major": 8, "minor": 20}, "torch_version": "2.12.0+cpu",
        "verifiers": ["ATEN"], "opset_version": {"aten": 10}, "range_constraints": {},
        "guards_code": [],
        "graph_module": {
            "graph": {"inputs": inputs,
                      "outputs": [{"as_tensor": {"name": prev}}], "nodes": nodes,
                      "tensor_values": tv, "sym_int_values": {}, "sym_bool_values": {},
                      "is_single_tensor_return": False, "custom_obj_values": {},
                      "sym_float_values": {}},
            "signature": {"input_specs": specs,
                          "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": prev}}}}]},
            "module_call_graph": mcg, "metadata": {}, "treespec_namedtuple_fields": {}}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shape", choices=sorted(SHAPES))
    ap.add_argument("n", type=int)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    n = max(a.n, 1)
    text = json.dumps(program(SHAPES[a.shape](n), linear=a.shape == "calls_param",
                              ints=n if a.shape == "ints" else 0,
                              extra_fqns=n if a.shape == "mcg" else 0,
                              cat=n if a.shape == "args" else 0))
    if a.out == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
