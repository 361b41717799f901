#!/usr/bin/python3
"""fx_peer.py - time torch.fx's Graph.lint() and Graph.eliminate_dead_code()
on the graphs exdb lints and dces, for `make bench-peer`.

Usage:
    /usr/bin/python3 scripts/bench/fx_peer.py [--reps N] FILE...

For every FILE (a bare torch.export program JSON, as in ../shared/real_pt2 or
what scripts/gen_synth.py writes) it prints one line:

    <basename> <fx graph nodes> <lint seconds> <dce seconds> <dce removed>

The graph is rebuilt as a torch.fx.Graph the way exdb's loader builds its IR
(core/export/program.c and load_*.c, after torch/_export/serde/serialize.py's GraphModuleDeserializer):
  * one placeholder per graph input, named after the input's value;
  * one call_function per serialized node, in file order, whose target is a
    stand-in Python function named after the operator (no operator runs:
    lint and DCE only look at targets, names, args and users);
  * a node with one tensor output is named after it; a node with several
    outputs keeps FX's name and gets one operator.getitem per output, named
    after the output (as the deserializer does, "<op>_unused_<i>" included);
  * SymInt outputs name their node; node arguments become FX Nodes inside
    args (positional inputs) or kwargs (keyword inputs);
  * one output node returning the graph's outputs.
So FX sees the same nodes, edges and users as exdb (the counts are printed
and compared by scripts/bench_peer.sh).

Times, in CPU time of the thread (time.thread_time, as exdb's bench_ops
--peer measures itself): lint is the best of N runs on one graph (lint
changes nothing); dce is the best of N runs, each on a freshly built graph
(eliminate_dead_code removes nodes; it lints first, as exdb's dce does).
Needs torch 2.13.0 (build/venv, scripts/deps.sh peer): the torch.fx
PyTorch users run. Its node.is_impure() keeps placeholders, output, its
_side_effectful_functions and seeded-random ops; the stand-ins are none of
those, so dead pure nodes (e.g. the unused getitems of native_layer_norm)
are what both remove.
"""
import json
import operator
import os
import sys
import time

import torch.fx


_stand_ins = {}


def stand_in(target):
    """A distinct Python function per operator name (FX needs a callable)."""
    fn = _stand_ins.get(target)
    if fn is None:
        short = target.rsplit(".", 2)
        name = short[-2] if len(short) >= 2 and short[-1] in ("default", "Tensor", "Scalar", "int", "dim") else short[-1]

        def fn(*args, **kwargs):
            raise RuntimeError("stand-in for %s: not runnable" % target)

        fn.__name__ = name.replace(".", "_") or "op"
        fn.__qualname__ = fn.__name__
        fn.__module__ = "exdb_peer"
        _stand_ins[target] = fn
    return fn


def union(a):
    """(key, value) of a serialized union: the one non-null alternative."""
    for k, v in a.items():
        if v is not None:
            return k, v
    return None, None


def value(env, a):
    """A serialized Argument as an FX argument (Nodes looked up by name)."""
    k, v = union(a)
    if k == "as_tensor":
        return env[v["name"]]
    if k == "as_tensors":
        return [env[t["name"]] for t in v]
    if k == "as_optional_tensors":
        return [value(env, t) for t in v]
    if k in ("as_sym_int", "as_sym_bool", "as_sym_float"):
        sk, sv = union(v)
        return env[sv] if sk == "as_name" else sv
    if k in ("as_sym_ints", "as_sym_bools", "as_sym_floats"):
        return [value(env, {k[:-1]: s}) for s in v]
    if k in ("as_none",):
        return None
    if k == "as_custom_obj":
        return env.get(v.get("name"), v.get("name"))
    if k == "as_graph":
        return v.get("name")
    return v


def out_names(o):
    """The value names one serialized output defines, in order."""
    k, v = union(o)
    if k == "as_tensor":
        return [v["name"]]
    if k == "as_tensors":
        return [t["name"] for t in v]
    if k in ("as_sym_int", "as_sym_bool", "as_sym_float"):
        sk, sv = union(v)
        return [sv] if sk == "as_name" else [None]
    if k == "as_optional_tensors":
        return [value_name(t) for t in v]
    return [None]


def value_name(a):
    k, v = union(a)
    return v["name"] if k == "as_tensor" else None


def build(prog):
    """torch.fx.Graph of a program's graph_module.graph (see the docstring)."""
    gj = prog["graph_module"]["graph"]
    g = torch.fx.Graph()
    env = {}
    for i, a in enumerate(gj["inputs"]):
        names = out_names(a)
        name = names[0] if names and names[0] else "arg%d" % i
        env[name] = g.placeholder(name)
    for n in gj["nodes"]:
        args, kwargs = [], {}
        for inp in n["inputs"]:
            v = value(env, inp["arg"])
            if inp.get("kind", 1) == 2:
                kwargs[inp["name"]] = v
            else:
                args.append(v)
        outs = n["outputs"]
        flat = [nm for o in outs for nm in out_names(o)]
        single = len(outs) == 1 and union(outs[0])[0] != "as_tensors"
        fn = stand_in(n["target"])
        if single:
            node = g.create_node("call_function", fn, tuple(args), kwargs, name=flat[0])
            if flat[0]:
                env[flat[0]] = node
        else:
            node = g.create_node("call_function", fn, tuple(args), kwargs)
            for i, nm in enumerate(flat):
                item = g.create_node("call_function", operator.getitem, (node, i), {}, name=nm)
                if nm:
                    env[nm] = item
    outs = [value(env, o) for o in gj["outputs"]]
    g.output(outs[0] if gj.get("is_single_tensor_return") and len(outs) == 1 else tuple(outs))
    return g


def best(fn, reps):
    t = None
    for _ in range(reps):
        t0 = time.thread_time()
        fn()
        dt = time.thread_time() - t0
        t = dt if t is None or dt < t else t
    return t


def main(argv):
    reps = 3
    files = []
    it = iter(argv)
    for a in it:
        if a == "--reps":
            reps = int(next(it))
        else:
            files.append(a)
    if not files:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    for f in files:
        with open(f, "rb") as fh:
            prog = json.load(fh)
        g = build(prog)
        nodes = len(g.nodes)
        lint_s = best(g.lint, reps)
        dce_s, removed = None, 0
        for _ in range(reps):
            fresh = build(prog)
            t0 = time.thread_time()
            fresh.eliminate_dead_code()
            dt = time.thread_time() - t0
            removed = nodes - len(fresh.nodes)
            dce_s = dt if dce_s is None or dt < dce_s else dce_s
            del fresh
        print("%s %d %.6f %.6f %d" % (os.path.basename(f), nodes, lint_s, dce_s, removed))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
