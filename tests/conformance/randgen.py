"""randgen.py - seeded random module graphs for the conformance corpus.

  randgen.program(seed, i) -> (name, make, strict, preserve, dynamic)
  python randgen.py SEED I [--export]   print program (SEED, I)'s plan
                                        (--export: also export it, print ep.graph)

Deterministic from (seed, i) alone. A program is a *plan* (plain data: see
plan()) and a tree of nn.Module subclasses made from it; every module runs
the one generic forward of _RandModule, which interprets its plan:

  module   cls, fqn, inputs (tensor arguments: x, y, z), params, buffers,
           children (RandModule plans, or torch leaf modules: Linear, ReLU,
           LayerNorm, BatchNorm1d...), aliases (another attribute name for a
           module of its subtree: self.al0 = self.c0, self.al1 = self.c0.c1)
  select   how the op list is chosen when the module is called several times:
           "same" (one list: identical graphs, unflatten dedups them),
           "counter" (a python call counter, reset by the root's forward),
           "mode" (a python int argument the call site passes)
  variants one or two op lists; an op appends its result to the env (the
           list of tensor values, starting with the inputs):
             un FN I         relu/sin/neg/sigmoid/tanh/double/inc of env[I]
             bin FN I J      add/mul/sub/maximum
             par P FN I      env[I] add/mul parameter P (shape (4,))
             mm W I          env[I] @ parameter W (4, 4)
             bread PATH I    env[I] + a buffer (own, or a descendant's: a.buf0)
             bmut PATH K I   in-place buffer update, appends nothing:
                             add_(env[I].mean(0)), copy_(env[I][0]), add_(1)
             call PATH ARGS  call a module (child, alias, or grandchild from
                             outside its parent: self.a.b(...)); ARGS are
                             positional or keyword, env[I] or env[I][:1]
                             (another input shape); appends the tensors it
                             returns (Nones skipped)
  out      what forward returns: t (a tensor), tuple, dict (entries may be
           None), none; slots are filled per variant

A tidy program (half of them) folds every value nothing reads into its
module's result, so no call is dead code; in the others, calls whose every
node unflatten's dead code removal drops are common (trace() finds them).

Export settings: strict in ~25%; dynamic (one torch.export.Dim on the batch
dim of every input) in ~30%; preserve_module_call_signature in ~25%, of one
or two modules called under their own name inside ancestors called once --
a module called several times only if every call leaves nodes and passes
no python int (torch then makes an InterpreterModuleDispatcher), its calls'
argument structures made alike. The root's inputs are x and maybe y, z; z
(and y half the time) are export kwargs.

Tensors are tiny: (2, 4) inputs, (4,) and (4, 4) state.
"""
import random
import sys

import torch
import torch.nn as nn

UNARY = ["relu", "sin", "neg", "sigmoid", "tanh", "double", "inc"]
BINARY = ["add", "mul", "sub", "maximum"]


# ---- the generic forward ----------------------------------------------------

def _unary(fn, t):
    if fn == "relu":
        return torch.relu(t)
    if fn == "sin":
        return torch.sin(t)
    if fn == "neg":
        return -t
    if fn == "sigmoid":
        return torch.sigmoid(t)
    if fn == "tanh":
        return torch.tanh(t)
    if fn == "double":
        return t * 2
    return t + 1


def _binary(fn, a, b):
    if fn == "add":
        return a + b
    if fn == "mul":
        return a * b
    if fn == "sub":
        return a - b
    return torch.maximum(a, b)


def _path(mod, path):
    for p in path.split("."):
        mod = getattr(mod, p)
    return mod


def _flat(r):
    if r is None:
        return []
    if isinstance(r, torch.Tensor):
        return [r]
    if isinstance(r, dict):
        out = []
        for k in r:
            out += _flat(r[k])
        return out
    out = []
    for v in r:
        out += _flat(v)
    return out


# python-level call counters (select "counter"), by module: a global dict the
# root's forward clears (iterating self.modules() there would make strict
# export name state by its __dict__ path)
_NCALLS = {}


class _RandModule(nn.Module):
    """one generic forward, interpreting self._plan."""

    def forward(self, x, y=None, z=None, mode=0):
        plan = self._plan
        if plan["root"]:
            _NCALLS.clear()
        env = [t for t in (x, y, z) if t is not None]
        nv = len(plan["variants"])
        if plan["select"] == "counter":
            k = _NCALLS.get(self._key, 0)
            _NCALLS[self._key] = k + 1
            v = k % nv
        elif plan["select"] == "mode":
            v = mode % nv
        else:
            v = 0
        var = plan["variants"][v]
        for op in var["ops"]:
            kind = op[0]
            if kind == "un":
                env.append(_unary(op[1], env[op[2]]))
            elif kind == "bin":
                env.append(_binary(op[1], env[op[2]], env[op[3]]))
            elif kind == "par":
                p = getattr(self, op[1])
                env.append(env[op[3]] + p if op[2] == "add" else env[op[3]] * p)
            elif kind == "mm":
                env.append(env[op[2]] @ getattr(self, op[1]))
            elif kind == "bread":
                env.append(env[op[2]] + _path(self, op[1]))
            elif kind == "bmut":
                b = _path(self, op[1])
                if op[2] == "add_mean":
                    b.add_(env[op[3]].mean(0))
                elif op[2] == "copy_row":
                    b.copy_(env[op[3]][0])
                else:
                    b.add_(1)
            elif kind == "call":
                args, kwargs = [], {}
                for how, name, i, sliced in op[2]:
                    t = env[i][:1] if sliced else env[i]
                    if how == "pos":
                        args.append(t)
                    else:
                        kwargs[name] = t
                if op[3] is not None:
                    kwargs["mode"] = op[3]
                env += _flat(_path(self, op[1])(*args, **kwargs))
        slots = var["out"]
        out = plan["out"]
        if out[0] == "t":
            return env[slots[0]]
        if out[0] == "none":
            return None
        vals, n = [], 0
        for e in out[1]:
            if e is None:
                vals.append(None)
            else:
                vals.append(env[slots[n]])
                n += 1
        if out[0] == "tuple":
            return tuple(vals)
        return {k: v for k, v in zip(out[2], vals)}


def _leaf(kind):
    if kind == "Linear":
        return nn.Linear(4, 4)
    if kind == "ReLU":
        return nn.ReLU()
    if kind == "LayerNorm":
        return nn.LayerNorm(4)
    if kind == "Tanh":
        return nn.Tanh()
    return nn.BatchNorm1d(4)


def build(spec, classes=None):
    """the nn.Module tree of a plan (one class per plan cls)."""
    if classes is None:
        classes = {}
    if "leaf" in spec:
        return _leaf(spec["leaf"])
    cls = classes.get(spec["cls"])
    if cls is None:
        cls = type(spec["cls"], (_RandModule,), {"__module__": __name__,
                                                 "__qualname__": spec["cls"]})
        classes[spec["cls"]] = cls
    m = cls()
    m._plan = spec["plan"]
    m._key = spec["fqn"]
    for pname, shape in spec["params"]:
        m.register_parameter(pname, nn.Parameter(torch.randn(*shape)))
    for bname, shape, persistent in spec["buffers"]:
        m.register_buffer(bname, torch.randn(*shape), persistent=persistent)
    for cname, c in spec["children"]:
        setattr(m, cname, build(c, classes))
    for aname, path in spec["aliases"]:
        setattr(m, aname, _path(m, path))
    return m


# ---- the plan -----------------------------------------------------------------

def _wchoice(rng, pairs):
    tot = sum(w for _, w in pairs)
    r = rng.random() * tot
    for v, w in pairs:
        r -= w
        if r < 0:
            return v
    return pairs[-1][0]


class _Gen:
    def __init__(self, rng):
        self.rng = rng
        self.ncls = 0
        self.specs = []      # every spec, in creation order (pre-order)

    def new_cls(self):
        self.ncls += 1
        return f"M{self.ncls}"

    # -- the tree
    def tree(self, depth):
        root = self.module("", 0, depth, True)
        return root

    def module(self, fqn, level, depth, must):
        rng = self.rng
        spec = {"cls": "Root" if level == 0 else self.new_cls(), "fqn": fqn, "level": level,
                "params": [], "buffers": [], "children": [], "aliases": [],
                "calls": [], "ncalls": 1 if level == 0 else 0}
        self.specs.append(spec)
        if level == 0:
            spec["inputs"] = ["x"] + [n for n in ("y", "z") if rng.random() < 0.4]
        else:
            spec["inputs"] = _wchoice(rng, [(["x"], 5), (["x", "y"], 2.5), (["x", "z"], 1),
                                            (["x", "y", "z"], 1.5)])
        for k in range(_wchoice(rng, [(0, 3), (1, 4), (2, 2)])):
            if rng.random() < 0.6:
                spec["params"].append((f"p{k}", (4,)))
            else:
                spec["params"].append((f"w{k}", (4, 4)))
        if rng.random() < (0.45 if level else 0.25):
            spec["buffers"].append(("buf0", (4,), rng.random() < 0.85))
        if level < depth and len(self.specs) < 14:
            n = rng.randint(1 if must else 0, 3 if level < 2 else 2)
            mi = rng.randrange(n) if must and n else -1
            for k in range(n):
                cname = f"c{k}"
                cf = f"{fqn}.{cname}" if fqn else cname
                if k != mi and rng.random() < 0.25:
                    leaf = {"leaf": _wchoice(rng, [("Linear", 3), ("ReLU", 3), ("LayerNorm", 1),
                                                   ("Tanh", 1), ("BatchNorm1d", 1)]),
                            "fqn": cf, "level": level + 1, "ncalls": 0, "children": [],
                            "inputs": ["x"], "buffers": []}
                    self.specs.append(leaf)
                    spec["children"].append((cname, leaf))
                elif (k != mi and k > 0 and rng.random() < 0.12
                      and "clone_of" not in spec["children"][-1][1]
                      and not spec["children"][-1][1]["children"]
                      and "leaf" not in spec["children"][-1][1]):
                    # another instance of the previous sibling's class and plan
                    prev = spec["children"][-1][1]
                    c = {"clone_of": prev, "fqn": cf, "level": level + 1}
                    spec["children"].append((cname, c))
                else:
                    c = self.module(cf, level + 1, depth, k == mi)
                    spec["children"].append((cname, c))
        return spec


def _descendants(spec, prefix=""):
    """(relative path, spec) of every module under spec, canonical names."""
    for cname, c in spec["children"]:
        p = f"{prefix}{cname}"
        yield p, c
        yield from _descendants(_real(c), p + ".")


def _has_bn(spec):
    if spec.get("leaf") == "BatchNorm1d":
        return True
    return any(_has_bn(_real(c)) for _, c in spec.get("children", []))


def _real(c):
    return c["clone_of"] if "clone_of" in c else c


def plan(seed, i):
    """the plan of program (seed, i): plain data."""
    rng = random.Random(seed * 100003 + i)
    g = _Gen(rng)
    depth = _wchoice(rng, [(1, 2), (2, 3), (3, 3), (4, 2)])
    root = g.tree(depth)
    feats = {"depth": 0}

    # -- aliases
    rb = [s for s in g.specs if "leaf" not in s and s["children"]]
    if rb and rng.random() < 0.3:
        s = rng.choice(rb)
        cname, _ = rng.choice(s["children"])
        s["aliases"].append(("al0", cname))
        feats["alias"] = 1
    deep = [(p, c) for p, c in _descendants(root) if "." in p]
    if deep and rng.random() < 0.1:
        p, _ = rng.choice(deep)
        root["aliases"].append(("al1", p))
        feats["alias_cross"] = 1

    # -- the call plan: (path, callee node, count) per caller, top down
    def static_calls(spec):
        calls = []
        al = {}
        for a, p in spec["aliases"]:
            al.setdefault(p, []).append(a)
        for cname, c in spec["children"]:
            n = _wchoice(rng, [(1, 65), (2, 25), (3, 10)])
            for _ in range(n):
                path = cname
                if cname in al and rng.random() < 0.5:
                    path = al[cname][0]
                calls.append((path, c))
        # a descendant called from outside its parent
        gch = [(p, c) for p, c in _descendants(spec) if p.count(".") == 1]
        if gch and rng.random() < (0.35 if spec is root else 0.15):
            p, c = rng.choice(gch)
            if spec is root and rng.random() < 0.3:
                # the parent no longer calls it: only from outside
                par = _real(dict(spec["children"])[p.split(".")[0]])
                par["calls_drop"] = par.get("calls_drop", []) + [p.split(".")[1]]
            calls.append((p, c))
        for a, p in spec["aliases"]:
            if "." in p:
                calls.append((a, dict(_descendants(spec))[p]))
        rng.shuffle(calls)
        return calls

    order = []  # pre-order of planned (non-leaf, non-clone) specs

    def walk(spec):
        order.append(spec)
        for _, c in spec["children"]:
            if "leaf" not in c and "clone_of" not in c:
                walk(c)
    walk(root)
    for s in order:
        s["calls"] = static_calls(s)
    for s in order:
        drop = s.pop("calls_drop", [])
        if drop:
            s["calls"] = [(p, c) for p, c in s["calls"] if p not in drop]
    # runtime call counts, top down (each caller's calls happen on every call)
    for s in order:
        for _, c in s["calls"]:
            c["ncalls"] = c.get("ncalls", 0) + s["ncalls"]

    # -- forwards, bottom up
    mutated = set()   # id(spec) of modules whose buffer is mutated

    used = set()   # env values of the variant being generated that an op reads

    def pick(n):
        # mostly a value nothing reads yet (connected graphs, fewer dead
        # calls), else a recent one
        free = [j for j in range(n) if j not in used]
        if free and rng.random() < 0.55:
            j = free[-1] if rng.random() < 0.7 else rng.choice(free)
        else:
            j = n - 1 - min(int(rng.expovariate(0.8)), n - 1)
        used.add(j)
        return j

    def nout_of(c):
        c = _real(c)
        return 1 if "leaf" in c else c["nout"]

    any_bn = _has_bn(root)
    # a tidy program uses every value it computes (no call is dead code)
    tidy = rng.random() < 0.5
    if tidy:
        feats["tidy"] = 1

    def gen_forward(s):
        root_ = s["level"] == 0
        nc = s["ncalls"]
        if nc > 1:
            sel = _wchoice(rng, [("same", 4), ("counter", 3.5), ("mode", 2.5)])
        else:
            sel = "same"
        nvar = 1 if sel == "same" else 2
        if root_:
            kind = _wchoice(rng, [("t", 4), ("tuple", 3.5), ("dict", 2.5)])
        elif s["buffers"]:
            kind = _wchoice(rng, [("t", 5), ("tuple", 2.5), ("dict", 1.5), ("none", 1)])
        else:
            kind = _wchoice(rng, [("t", 5), ("tuple", 2.5), ("dict", 1.5)])
        if kind in ("tuple", "dict"):
            n = rng.randint(1 if kind == "dict" else 2, 3)
            ent = ["v" for _ in range(n)]
            if rng.random() < 0.35:
                ent.insert(rng.randint(0, n), None)
            out = (kind, ent) if kind == "tuple" else (kind, ent, [f"k{j}" for j in range(len(ent))])
            nslot = n
        else:
            out = (kind,)
            nslot = 1 if kind == "t" else 0
        s["nout"] = nslot
        bufpaths = [b[0] for b in s["buffers"]]
        dbufs = []
        for p, c in _descendants(s):
            r = _real(c)
            if "leaf" in r:
                if r["leaf"] == "BatchNorm1d":
                    dbufs.append((p + ".running_mean", r))
            else:
                for b in r["buffers"]:
                    dbufs.append((p + "." + b[0], r))
        variants = []
        for v in range(nvar):
            env = len(s["inputs"])
            used.clear()
            ops = []
            items = [("call", p, c) for p, c in s["calls"]]
            nother = rng.randint(1, 4) + v
            for _ in range(nother):
                items.insert(rng.randint(0, len(items)), ("other",))
            if kind == "none" and bufpaths:
                items.insert(rng.randint(0, len(items)), ("bmut",))
            mode_k = {}
            for it in items:
                if it[0] == "call":
                    p, c = it[1], it[2]
                    rc = _real(c)
                    args = []
                    pos = True
                    for nm in rc["inputs"]:
                        if nm == "x":
                            how = "pos"
                        elif nm == "y":
                            how = "pos" if rng.random() < 0.6 else "kw"
                        else:
                            how = "pos" if pos and "y" in rc["inputs"] and rng.random() < 0.5 else "kw"
                        pos = pos and how == "pos"
                        # (1, 4): another input shape; never in a program with
                        # a BatchNorm (training mode wants more than one value
                        # per channel, and a (1, 4) value may reach it)
                        sliced = (rc.get("ncalls", 1) > 1 and rng.random() < 0.15
                                  and not any_bn)
                        args.append((how, nm, pick(env), sliced))
                    mode = None
                    if rc.get("plan", {}).get("select") == "mode":
                        mode = mode_k.get(p, 0)
                        mode_k[p] = mode + 1
                    ops.append(("call", p, args, mode, nout_of(c)))
                    env += nout_of(c)
                    # a parent reading the buffer a child just mutated
                    for bp, bs in dbufs:
                        if (bp.startswith(p + ".") and bp.count(".") == p.count(".") + 1
                                and (id(bs) in mutated or "leaf" in bs) and rng.random() < 0.6):
                            ops.append(("bread", bp, pick(env)))
                            env += 1
                            feats["read_mutated_child_buffer"] = 1
                    continue
                if it[0] == "bmut":
                    ops.append(("bmut", rng.choice(bufpaths),
                                rng.choice(["add_mean", "copy_row", "add1"]), pick(env)))
                    mutated.add(id(s))
                    continue
                opk = _wchoice(rng, [("un", 4), ("bin", 3), ("par", 2 if s["params"] else 0),
                                     ("mm", 1.5 if any(len(sh) == 2 for _, sh in s["params"]) else 0),
                                     ("bread", 1 if (bufpaths or dbufs) else 0),
                                     ("bmut", 1.5 if bufpaths else 0),
                                     ("cbmut", 0.15 if dbufs else 0)])
                if opk == "un":
                    ops.append(("un", rng.choice(UNARY), pick(env)))
                elif opk == "bin":
                    ops.append(("bin", rng.choice(BINARY), pick(env), pick(env)))
                elif opk == "par":
                    ps = [p for p, sh in s["params"] if len(sh) == 1] or None
                    if ps:
                        ops.append(("par", rng.choice(ps), rng.choice(["add", "mul"]), pick(env)))
                    else:
                        ops.append(("un", rng.choice(UNARY), pick(env)))
                elif opk == "mm":
                    ops.append(("mm", rng.choice([p for p, sh in s["params"] if len(sh) == 2]),
                                pick(env)))
                elif opk == "bread":
                    ops.append(("bread", rng.choice(bufpaths + [b for b, _ in dbufs]), pick(env)))
                elif opk == "bmut":
                    ops.append(("bmut", rng.choice(bufpaths),
                                rng.choice(["add_mean", "copy_row", "add1"]), pick(env)))
                    mutated.add(id(s))
                    continue
                else:
                    bp, bs = rng.choice(dbufs)
                    if "leaf" in bs:   # a BatchNorm's running stats: read them instead
                        ops.append(("bread", bp, pick(env)))
                    else:
                        ops.append(("bmut", bp, "add1", pick(env)))
                        feats["bmut_not_owner"] = 1
                        continue
                env += 1
            if v == 1:
                ops.append(("un", rng.choice(UNARY), pick(env)))
                env += 1
            if tidy:
                # fold every value nothing reads into the result: no dead code
                free = [j for j in range(env) if j not in used]
                for j in free[:-1] if free and free[-1] == env - 1 else free:
                    ops.append(("bin", "add", env - 1, j))
                    used.update((env - 1, j))
                    env += 1
                if kind == "none":
                    # returns nothing: keep the result through a mutation
                    ops.append(("bmut", rng.choice(bufpaths), "add_mean", env - 1))
            slots = []
            if nslot:
                used.add(env - 1)
                slots = [env - 1] + [pick(env) if rng.random() < 0.8 else rng.randrange(env)
                                     for _ in range(nslot - 1)]
                rng.shuffle(slots)
            variants.append({"ops": ops, "out": slots})
        s["plan"] = {"root": root_, "select": sel, "variants": variants, "out": out}

    def post(spec):
        for _, c in spec["children"]:
            if "leaf" not in c and "clone_of" not in c:
                post(c)
        gen_forward(spec)
    post(root)

    # clones get a copy of the original's plan (and its shape of inputs)
    def fix_clones(spec):
        for k, (cname, c) in enumerate(spec["children"]):
            if "clone_of" in c:
                o = c["clone_of"]
                n = dict(o)
                n["fqn"], n["level"] = c["fqn"], c["level"]
                n["ncalls"] = c.get("ncalls", 0)
                n["plan"] = dict(o["plan"])
                spec["children"][k] = (cname, n)
                c["resolved"] = n
                feats["clone"] = 1
            elif "leaf" not in c:
                fix_clones(c)
    fix_clones(root)

    # -- export settings
    strict = rng.random() < 0.25
    all_specs = [root] + [c for _, c in _descendants(root)]
    feats["depth"] = max(s["level"] for s in all_specs)
    preserve = ()
    calls, live = trace(root)
    if any(not (inst & live) for _, _, inst in calls):
        feats["call_all_dead"] = 1   # a call whose every node unflatten removes
    if rng.random() < 0.25:
        cand = []
        by_fqn = {x.get("resolved", x)["fqn"]: x.get("resolved", x) for x in all_specs}
        for s in all_specs[1:]:
            s = s.get("resolved", s)
            n = s.get("ncalls", 0)
            mine = [(f, inst) for f, c, inst in calls if c is s]
            # called, always under its own name (not through an alias: strict
            # export cannot find the signature then), inside ancestors called
            # once (torch's dispatcher does not find calls nested in foo@1)
            if not mine or any(f != s["fqn"] for f, _ in mine):
                continue
            parts = s["fqn"].split(".")
            if any(by_fqn[".".join(parts[:j])].get("ncalls", 0) != 1 for j in range(1, len(parts))):
                continue
            # called several times: torch makes a dispatcher of its calls; every
            # call must have the same argument structure (fixed below), pass no
            # python int (no "mode"), and leave nodes after unflatten's dead
            # code removal (else torch cannot find the call's module)
            if n > 1 and not (s.get("plan", {}).get("select") != "mode"
                              and all(inst & live for _, inst in mine)):
                continue
            cand.append(s["fqn"])
        if cand:
            k = 1 if len(cand) == 1 or rng.random() < 0.6 else 2
            preserve = tuple(sorted(rng.sample(cand, k)))
            for f in preserve:
                _same_call_structure(all_specs, f)
    dynamic = rng.random() < 0.3
    # the root's z is a keyword argument of export, y one half the time
    root_kw = [n for n in root["inputs"] if n == "z" or (n == "y" and rng.random() < 0.5)]
    root["root_kwargs"] = root_kw
    root["features"] = feats
    _features(root, feats, strict, preserve, dynamic)
    return {"seed": seed, "index": i, "root": root, "strict": strict,
            "preserve": preserve, "dynamic": dynamic, "features": feats}


def _side_effects(spec):
    """whether calling spec mutates a buffer (so unflatten keeps its nodes)"""
    spec = spec.get("resolved", _real(spec))
    if "leaf" in spec:
        return spec["leaf"] == "BatchNorm1d"
    for v in spec["plan"]["variants"]:
        for op in v["ops"]:
            if op[0] == "bmut":
                return True
    return any(_side_effects(c) for _, c in spec["children"])


def _path_spec(spec, path):
    """the spec a call path (child names, aliases) relative to spec names"""
    for p in path.split("."):
        spec = spec.get("resolved", _real(spec))
        kids = dict(spec["children"])
        if p in kids:
            spec = kids[p]
        else:
            spec = _path_spec(spec, dict(spec["aliases"])[p])
    return spec.get("resolved", _real(spec))


def trace(root):
    """run the plan on abstract values, as export would trace it: every op is
    a node (its inputs, whether it mutates state, the call instance it runs
    in). Returns (calls, live): calls = [(fqn, spec, set of node ids of the
    instance and its nested calls)] in call order; live = the node ids that
    survive unflatten's dead code removal (reachable backwards from the
    outputs or from an in-place mutation)."""
    deps, effect = [], []
    calls = []
    counters = {}

    def node(d, eff=False):
        deps.append(list(d))
        effect.append(eff)
        for inst in stack:
            inst.add(len(deps) - 1)
        return len(deps) - 1

    stack = []

    def run(spec, fqn, args, mode):
        # args: {name: value}; a value is a node id or ("in", name) for inputs
        spec = spec.get("resolved", _real(spec))
        inst = set()
        calls.append((fqn, spec, inst))
        stack.append(inst)
        try:
            if "leaf" in spec:
                x = args["x"]
                if spec["leaf"] == "BatchNorm1d":
                    node([x], True)
                return [node([x])]
            pl = spec["plan"]
            env = [args[n] for n in spec["inputs"]]
            nv = len(pl["variants"])
            if pl["select"] == "counter":
                k = counters.get(spec["fqn"], 0)
                counters[spec["fqn"]] = k + 1
                v = k % nv
            elif pl["select"] == "mode":
                v = (mode or 0) % nv
            else:
                v = 0
            var = pl["variants"][v]
            for op in var["ops"]:
                if op[0] == "bmut":
                    node([env[j] for j in _op_uses(op)], True)
                elif op[0] == "call":
                    a = {}
                    for how, name, i, sl in op[2]:
                        a[name] = node([env[i]]) if sl else env[i]
                    target = _path_spec(spec, op[1])
                    env += run(target, (fqn + "." if fqn else "") + op[1], a, op[3])
                else:
                    env.append(node([env[j] for j in _op_uses(op)]))
            return [env[j] for j in var["out"]]
        finally:
            stack.pop()

    outs = run(root, "", {n: ("in", n) for n in root["inputs"]}, None)
    live = set()
    work = [o for o in outs if not isinstance(o, tuple)]
    work += [j for j, e in enumerate(effect) if e]
    while work:
        j = work.pop()
        if isinstance(j, tuple) or j in live:
            continue
        live.add(j)
        work += deps[j]
    return calls[1:], live


def _same_call_structure(all_specs, fqn):
    """give every call of the preserved module fqn the first call's argument
    structure (positional / keyword): torch wants one in_spec for all calls"""
    first = None
    for t in all_specs:
        t = t.get("resolved", t)
        if "plan" not in t:
            continue
        pre = t["fqn"] + "." if t["fqn"] else ""
        for var in t["plan"]["variants"]:
            for j, op in enumerate(var["ops"]):
                if op[0] != "call" or pre + op[1] != fqn:
                    continue
                hows = [a[0] for a in op[2]]
                if first is None:
                    first = hows
                elif hows != first:
                    var["ops"][j] = (op[0], op[1], [(h,) + tuple(a[1:]) for h, a in zip(first, op[2])],
                                     op[3], op[4])


def _op_uses(op):
    k = op[0]
    if k in ("un", "mm", "bread"):
        return [op[2]]
    if k == "bin":
        return [op[2], op[3]]
    if k == "par" or (k == "bmut" and op[2] != "add1"):
        return [op[3]]
    if k == "bmut":
        return []
    return [a[2] for a in op[2]]


def _features(root, feats, strict, preserve, dynamic):
    specs = [root] + [c for _, c in _descendants(root)]
    for s in specs:
        if s.get("ncalls", 0) > 1:
            feats["multi_call"] = 1
            if "plan" in s:
                feats["multi_" + s["plan"]["select"]] = 1
        if "plan" in s:
            for v in s["plan"]["variants"]:
                used = set(v["out"])
                for op in v["ops"]:
                    used.update(_op_uses(op))
                n = len(s["inputs"])
                for op in v["ops"]:
                    if op[0] == "call":
                        if not used.intersection(range(n, n + op[4])):
                            feats["call_result_unused"] = 1
                        n += op[4]
                    elif op[0] != "bmut":
                        n += 1
                for op in v["ops"]:
                    if op[0] == "call":
                        if any(a[3] for a in op[2]):
                            feats["call_other_shape"] = 1
                        if any(a[0] == "kw" for a in op[2]):
                            feats["call_kwargs"] = 1
                        if "." in op[1]:
                            feats["call_outside_parent"] = 1
                        if op[1].startswith("al"):
                            feats["call_via_alias"] = 1
                    if op[0] == "bread" and "." in op[1]:
                        feats["read_child_buffer"] = 1
                    if op[0] == "bmut":
                        feats["buffer_mutation"] = 1
            o = s["plan"]["out"]
            w = "root_out_" if s is root else "sub_out_"
            if o[0] in ("tuple", "dict", "none"):
                feats[w + o[0]] = 1
            if o[0] in ("tuple", "dict") and None in o[1]:
                feats[w + "with_None"] = 1
        if s.get("params"):
            feats["params"] = 1
        if "leaf" in s:
            feats["leaf_" + s["leaf"]] = 1
    if root.get("root_kwargs"):
        feats["root_kwargs"] = 1
    if strict:
        feats["strict"] = 1
    if preserve:
        feats["preserve"] = 1
        by_fqn = {s.get("resolved", s)["fqn"]: s.get("resolved", s) for s in specs}
        if any(by_fqn[f].get("ncalls", 0) > 1 for f in preserve):
            feats["preserve_multi_call"] = 1
    if dynamic:
        feats["dynamic"] = 1


def program(seed, i):
    """(name, make, strict, preserve, dynamic) of program (seed, i)."""
    pl = plan(seed, i)
    root = pl["root"]
    name = f"rand_{seed}_{i:04d}"
    kw = root["root_kwargs"]

    def make():
        torch.manual_seed(seed * 100003 + i)
        m = build(root)
        inputs = {n: torch.randn(2, 4) for n in root["inputs"]}
        args = tuple(inputs[n] for n in root["inputs"] if n not in kw)
        kwargs = {n: inputs[n] for n in root["inputs"] if n in kw}
        return m, args, kwargs

    dyn = None
    if pl["dynamic"]:
        b = torch.export.Dim("batch", min=2, max=1024)
        dyn = {n: {0: b} for n in root["inputs"]}
    return name, make, pl["strict"], pl["preserve"], dyn


# ---- printing -------------------------------------------------------------------

def _fmt_op(op):
    k = op[0]
    if k == "un":
        return f"{op[1]}(v{op[2]})"
    if k == "bin":
        return f"{op[1]}(v{op[2]}, v{op[3]})"
    if k == "par":
        return f"v{op[3]} {'+' if op[2] == 'add' else '*'} self.{op[1]}"
    if k == "mm":
        return f"v{op[2]} @ self.{op[1]}"
    if k == "bread":
        return f"v{op[2]} + self.{op[1]}"
    if k == "bmut":
        if op[2] == "add_mean":
            return f"self.{op[1]}.add_(v{op[3]}.mean(0))"
        if op[2] == "copy_row":
            return f"self.{op[1]}.copy_(v{op[3]}[0])"
        return f"self.{op[1]}.add_(1)"
    a = []
    for how, nm, i, sl in op[2]:
        t = f"v{i}[:1]" if sl else f"v{i}"
        a.append(t if how == "pos" else f"{nm}={t}")
    if op[3] is not None:
        a.append(f"mode={op[3]}")
    return f"self.{op[1]}({', '.join(a)})"


def describe(pl):
    lines = []
    root = pl["root"]
    lines.append(f"program rand_{pl['seed']}_{pl['index']:04d}: strict={pl['strict']} "
                 f"preserve={list(pl['preserve'])} dynamic={'batch dim' if pl['dynamic'] else None}")
    kw = root["root_kwargs"]
    lines.append("export args: (" + ", ".join(n for n in root["inputs"] if n not in kw) + ")"
                 + (" kwargs: " + ", ".join(kw) if kw else ""))
    lines.append("features: " + ", ".join(f"{k}={v}" if k == "depth" else k
                                          for k, v in sorted(pl["features"].items())))

    def mod(s, name, ind):
        pad = "  " * ind
        if "leaf" in s:
            lines.append(f"{pad}{name or '<root>'}: torch.nn.{s['leaf']}  (calls: {s.get('ncalls', 0)})")
            return
        pl_ = s["plan"]
        lines.append(f"{pad}{name or '<root>'}: {s['cls']}({', '.join(s['inputs'])})"
                     f"  calls: {s.get('ncalls', 0)}  select: {pl_['select']}")
        for p, sh in s["params"]:
            lines.append(f"{pad}  param {p} {tuple(sh)}")
        for b, sh, pers in s["buffers"]:
            lines.append(f"{pad}  buffer {b} {tuple(sh)}" + ("" if pers else " non-persistent"))
        for a, p in s["aliases"]:
            lines.append(f"{pad}  alias self.{a} = self.{p}")
        o = pl_["out"]
        for vi, v in enumerate(pl_["variants"]):
            if len(pl_["variants"]) > 1:
                lines.append(f"{pad}  variant {vi}:")
            n = len(s["inputs"])
            lines.append(f"{pad}    " + ", ".join(f"v{j}={nm}" for j, nm in enumerate(s["inputs"])))
            for op in v["ops"]:
                if op[0] == "bmut":
                    lines.append(f"{pad}    {_fmt_op(op)}")
                    continue
                if op[0] == "call":
                    r = _fmt_op(op)
                    got = ", ".join(f"v{n + j}" for j in range(op[4]))
                    lines.append(f"{pad}    {got or '_'} = {r}")
                    n += op[4]
                    continue
                lines.append(f"{pad}    v{n} = {_fmt_op(op)}")
                n += 1
            sl = list(v["out"])
            if o[0] == "t":
                r = f"v{sl[0]}"
            elif o[0] == "none":
                r = "None"
            else:
                it = iter(sl)
                ent = ["None" if e is None else f"v{next(it)}" for e in o[1]]
                r = ("(" + ", ".join(ent) + ("," if len(ent) == 1 else "") + ")" if o[0] == "tuple"
                     else "{" + ", ".join(f"'{k}': {e}" for k, e in zip(o[2], ent)) + "}")
            lines.append(f"{pad}    return {r}")
        for cname, c in s["children"]:
            mod(c, cname, ind + 1)
    mod(root, "", 0)
    lines.append("(a call's results: its returned tensors in order, Nones skipped)")
    calls, live = trace(root)
    seen, dead = {}, []
    for f, _, inst in calls:
        seen[f] = seen.get(f, 0) + 1
        if not inst & live:
            dead.append(f if seen[f] == 1 else f"{f}@{seen[f] - 1}")
    if dead:
        lines.append("calls unflatten's dead code removal drops entirely: " + ", ".join(dead))
    return "\n".join(lines)


def main(argv):
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    seed, i = int(argv[1]), int(argv[2])
    pl = plan(seed, i)
    print(describe(pl))
    if "--export" in argv:
        import warnings
        warnings.filterwarnings("ignore")
        name, make, strict, preserve, dyn = program(seed, i)
        m, a, k = make()
        ep = torch.export.export(m, a, k or None, strict=strict,
                                 preserve_module_call_signature=preserve, dynamic_shapes=dyn)
        print(ep.graph)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
