#!/usr/bin/env python3
"""make_example.py - regenerate tests/fixtures/example.json, the bundled example.

Usage:
    python3 scripts/make_example.py [--out FILE|-] [--check]

Writes the program (schema 8.20, torch 2.12 shape, json.dumps default
separators) that `torch.export.export(TinyModel().eval(), (x,))
.run_decompositions()` followed by `torch.export.save` would store as
models/model.json for the model in MODEL_SRC below (also shown, with
commentary, in tests/fixtures/example.md).  Deterministic: no randomness, no
timestamps.  Default --out is tests/fixtures/example.json next to this
script's repository; --check compares instead of writing (exit 1 on a
difference).  Python 3 stdlib only.

What the program contains (52 nodes):
  * module tree of depth 5: root -> encoder -> encoder.layers (Sequential,
    called) -> encoder.layers.0 -> encoder.layers.0.attn -> ...attn.q
  * `encoder.layers.<i>.act` (one ReLU) called twice per layer, so the second
    call's nn_module_stack key is `L__self__encoder.layers.<i>.act@1`
  * buffer `encoder.layers.<i>.attn.calls` incremented in place
    (aten.add.Tensor + `buffer_mutation` output specs), and a non-persistent
    buffer `encoder.layers.<i>.attn.scale` read by the same module
  * parameters at depth 1 (embed, head, the bare parameter encoder.gain),
    2 (encoder.norm), 4 (encoder.layers.<i>.norm1/fc1/fc2) and 5 (attn.q/k/v/o)
  * one user input `x`, one user output
  * three native_layer_norm nodes whose 2nd/3rd outputs are
    `<node>_unused_1` / `<node>_unused_2`
"""
import argparse
import json
import os
import sys

MODEL_FILE = "/home/dev/src/tinyenc/demo.py"
TORCH_DIR = "/home/dev/.venv/lib/python3.12/site-packages/torch/nn/modules/"

MODEL_SRC = '''\
import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))
        self.register_buffer("scale", torch.tensor(dim ** -0.5), persistent=False)

    def forward(self, x):
        self.calls += 1
        q, k, v = self.q(x), self.k(x), self.v(x)
        attn = torch.softmax(torch.matmul(q, k.transpose(0, 1)) * self.scale, dim=-1)
        return self.o(torch.matmul(attn, v))


class EncoderLayer(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim)
        self.act = nn.ReLU()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        x = x + self.act(self.attn(self.norm1(x)))
        return x + self.fc2(self.act(self.fc1(x)))


class Encoder(nn.Module):
    def __init__(self, dim, hidden, depth):
        super().__init__()
        self.layers = nn.Sequential(*[EncoderLayer(dim, hidden) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.gain = nn.Parameter(torch.ones(dim))

    def forward(self, h):
        h = self.layers(h)
        return self.norm(h) * self.gain


class TinyModel(nn.Module):
    def __init__(self, d_in=16, dim=32, hidden=64, depth=2, n_out=4):
        super().__init__()
        self.embed = nn.Linear(d_in, dim)
        self.encoder = Encoder(dim, hidden, depth)
        self.head = nn.Linear(dim, n_out)

    def forward(self, x):
        h = self.embed(x)
        h = self.encoder(h)
        return self.head(h)


# ep = torch.export.export(TinyModel().eval(), (torch.randn(8, 16),)).run_decompositions()
# torch.export.save(ep, "example.pt2")   # models/model.json in the archive == example.json
'''

D_IN, DIM, HIDDEN, DEPTH, N_OUT, SEQ = 16, 32, 64, 2, 4, 8
FLOAT, LONG = 7, 5

_SRC_LINES = MODEL_SRC.split("\n")


def _src(code):
    for i, line in enumerate(_SRC_LINES):
        if line.strip() == code:
            return 'File "%s", line %d, in forward\n    %s' % (MODEL_FILE, i + 1, code)
    raise KeyError(code)


def _torch(fname, line, code):
    return 'File "%s%s", line %d, in forward\n    %s' % (TORCH_DIR, fname, line, code)


F_LINEAR = _torch("linear.py", 134, "return F.linear(input, self.weight, self.bias)")
F_LAYERNORM = _torch("normalization.py", 228, "return F.layer_norm(")
F_RELU = _torch("activation.py", 143, "return F.relu(input, inplace=self.inplace)")
F_SEQ = _torch("container.py", 253, "input = module(input)")

FROM_NODE = ('[{"name": "%s", "target": "%s", "graph_id": 0, "pass_name": '
             '"Interpreter_PropagateUnbackedSymInts", "action": "create", "from_node": '
             '[{"name": "%s", "target": "%s", "graph_id": 0, "pass_name": '
             '"ExportedProgram.module()", "action": "create", "from_node": []}]}]')


def contiguous(sizes):
    st, acc = [], 1
    for s in reversed(sizes):
        st.insert(0, acc)
        acc *= max(s, 1)
    return st


class V(object):
    def __init__(self, name, dtype, sizes, strides=None):
        self.name, self.dtype, self.sizes = name, dtype, list(sizes)
        self.strides = contiguous(self.sizes) if strides is None else list(strides)


def T(v):
    return {"as_tensor": {"name": v.name}}


class Tracer(object):
    def __init__(self):
        self.names, self.orig, self.fn_counts, self.num_calls = {}, {}, {}, {}
        self.stack = ["L__self__,,demo.TinyModel"]
        self.frames = []
        self.cur = None
        self.fn = self.from_node = None
        self.nodes = []
        self.tv = []       # (name, TensorMeta) in order
        self.state = {}    # fqn -> latest Value

    def fresh(self, base, table=None):
        table = self.names if table is None else table
        n = table.get(base, 0)
        table[base] = n + 1
        return base if n == 0 else "%s_%d" % (base, n)

    def push(self, path, mtype, frame=None):
        n = self.num_calls.get(path, 0)
        self.num_calls[path] = n + 1
        key = "L__self__" + path + ("@%d" % n if n else "")
        self.stack.append("%s;%s,%s,%s" % (self.stack[-1], key, path, mtype))
        self.frames.append(self.cur)
        self.cur = frame

    def pop(self):
        self.stack.pop()
        self.cur = self.frames.pop()

    def call(self, fn, cls, orig_base, orig_target, frame=None):
        if frame is not None:
            self.cur = frame
        c = self.fn_counts.get(fn, 0) + 1
        self.fn_counts[fn] = c
        self.fn = "%s_%d;%s.%s" % (fn, c, cls, fn)
        on = self.fresh(orig_base, self.orig)
        self.from_node = FROM_NODE % (on, orig_target, on, orig_target)

    def tmeta(self, v, requires_grad=False):
        return {"dtype": v.dtype, "sizes": [{"as_int": s} for s in v.sizes],
                "requires_grad": requires_grad, "device": {"type": "cpu", "index": None},
                "strides": [{"as_int": s} for s in v.strides], "storage_offset": {"as_int": 0},
                "layout": 7}

    def emit(self, target, name, inputs, outs):
        self.nodes.append({
            "target": target,
            "inputs": [{"name": n, "arg": a, "kind": k} for (n, a, k) in inputs],
            "outputs": [T(o) for o in outs],
            "metadata": {
                "stack_trace": "\n  ".join(self.frames + [self.cur]),
                "nn_module_stack": self.stack[-1],
                "torch_fn": self.fn,
                "from_node": self.from_node},
            "is_hop_single_tensor_return": None,
            "name": name})
        for o in outs:
            self.tv.append((o.name, self.tmeta(o)))

    def op(self, target, base, inputs, dtype, sizes, strides=None):
        v = V(self.fresh(base), dtype, sizes, strides)
        self.emit(target, v.name, inputs, [v])
        return v

    # aten ops (core ATen, as run_decompositions leaves them)
    def permute(self, x, dims):
        return self.op("torch.ops.aten.permute.default", "permute",
                       [("self", T(x), 1), ("dims", {"as_ints": dims}, 1)], x.dtype,
                       [x.sizes[d] for d in dims], [x.strides[d] for d in dims])

    def addmm(self, b, m1, m2):
        return self.op("torch.ops.aten.addmm.default", "addmm",
                       [("self", T(b), 1), ("mat1", T(m1), 1), ("mat2", T(m2), 1)],
                       m1.dtype, [m1.sizes[0], m2.sizes[1]])

    def mm(self, a, b):
        return self.op("torch.ops.aten.mm.default", "mm",
                       [("self", T(a), 1), ("mat2", T(b), 1)], a.dtype, [a.sizes[0], b.sizes[1]])

    def binary(self, aten, base, a, b):
        if isinstance(b, V):  # broadcast
            n = max(len(a.sizes), len(b.sizes))
            sa = [1] * (n - len(a.sizes)) + a.sizes
            sb = [1] * (n - len(b.sizes)) + b.sizes
            other, sizes = T(b), [max(p, q) for p, q in zip(sa, sb)]
        else:
            other, sizes = {"as_int": b}, a.sizes
        return self.op(aten, base, [("self", T(a), 1), ("other", other, 1)], a.dtype, sizes)

    # nn modules
    def linear(self, path, x, frame):
        self.cur = frame
        self.push(path, "torch.nn.modules.linear.Linear", F_LINEAR)
        self.call("linear", "builtin_function_or_method", "linear", "aten.linear.default")
        w, b = self.state[path + ".weight"], self.state[path + ".bias"]
        out = self.addmm(b, x, self.permute(w, [1, 0]))
        self.pop()
        return out

    def layer_norm(self, path, x, frame):
        self.cur = frame
        self.push(path, "torch.nn.modules.normalization.LayerNorm", F_LAYERNORM)
        self.call("layer_norm", "function", "layer_norm", "aten.layer_norm.default")
        name = self.fresh("native_layer_norm")
        out = V(self.fresh("getitem"), x.dtype, x.sizes)
        self.fresh("getitem")
        self.fresh("getitem")
        stats = x.sizes[:-1] + [1]
        self.emit("torch.ops.aten.native_layer_norm.default", name,
                  [("input", T(x), 1), ("normalized_shape", {"as_ints": [x.sizes[-1]]}, 1),
                   ("weight", T(self.state[path + ".weight"]), 1),
                   ("bias", T(self.state[path + ".bias"]), 1), ("eps", {"as_float": 1e-05}, 1)],
                  [out, V(name + "_unused_1", FLOAT, stats), V(name + "_unused_2", FLOAT, stats)])
        self.pop()
        return out

    def relu(self, path, x, frame):
        self.cur = frame
        self.push(path, "torch.nn.modules.activation.ReLU", F_RELU)
        self.call("relu", "function", "relu", "aten.relu.default")
        out = self.op("torch.ops.aten.relu.default", "relu", [("self", T(x), 1)], x.dtype, x.sizes)
        self.pop()
        return out

    def attention(self, path, x, frame):
        self.cur = frame
        self.push(path, "demo.SelfAttention")
        self.call("add_", "method_descriptor", "add_", "aten.add_.Tensor", _src("self.calls += 1"))
        self.state[path + ".calls"] = self.binary("torch.ops.aten.add.Tensor", "add",
                                                  self.state[path + ".calls"], 1)
        fr = _src("q, k, v = self.q(x), self.k(x), self.v(x)")
        q, k, v = [self.linear(path + "." + n, x, fr) for n in ("q", "k", "v")]
        self.call("transpose", "method_descriptor", "transpose", "aten.transpose.int",
                  _src("attn = torch.softmax(torch.matmul(q, k.transpose(0, 1)) * self.scale, dim=-1)"))
        kt = self.permute(k, [1, 0])
        self.call("matmul", "builtin_function_or_method", "matmul", "aten.matmul.default")
        s = self.mm(q, kt)
        self.call("mul", "method_descriptor", "mul", "aten.mul.Tensor")
        s = self.binary("torch.ops.aten.mul.Tensor", "mul", s, self.state[path + ".scale"])
        self.call("softmax", "builtin_function_or_method", "softmax", "aten.softmax.int")
        p = self.op("torch.ops.aten._softmax.default", "_softmax",
                    [("self", T(s), 1), ("dim", {"as_int": -1}, 1), ("half_to_float", {"as_bool": False}, 1)],
                    s.dtype, s.sizes)
        fr = _src("return self.o(torch.matmul(attn, v))")
        self.call("matmul", "builtin_function_or_method", "matmul", "aten.matmul.default", fr)
        y = self.mm(p, v)
        y = self.linear(path + ".o", y, fr)
        self.pop()
        return y

    def encoder_layer(self, path, x, frame):
        self.cur = frame
        self.push(path, "demo.EncoderLayer")
        fr = _src("x = x + self.act(self.attn(self.norm1(x)))")
        y = self.layer_norm(path + ".norm1", x, fr)
        y = self.attention(path + ".attn", y, fr)
        y = self.relu(path + ".act", y, fr)
        self.call("add", "method_descriptor", "add", "aten.add.Tensor", fr)
        x = self.binary("torch.ops.aten.add.Tensor", "add", x, y)
        fr = _src("return x + self.fc2(self.act(self.fc1(x)))")
        y = self.linear(path + ".fc1", x, fr)
        y = self.relu(path + ".act", y, fr)          # second call of the same ReLU -> act@1
        y = self.linear(path + ".fc2", y, fr)
        self.call("add", "method_descriptor", "add", "aten.add.Tensor", fr)
        x = self.binary("torch.ops.aten.add.Tensor", "add", x, y)
        self.pop()
        return x

    def encoder(self, x, frame):
        self.cur = frame
        self.push("encoder", "demo.Encoder")
        self.cur = _src("h = self.layers(h)")
        self.push("encoder.layers", "torch.nn.modules.container.Sequential", F_SEQ)
        for i in range(DEPTH):
            x = self.encoder_layer("encoder.layers.%d" % i, x, F_SEQ)
        self.pop()
        fr = _src("return self.norm(h) * self.gain")
        y = self.layer_norm("encoder.norm", x, fr)
        self.call("mul", "method_descriptor", "mul", "aten.mul.Tensor", fr)
        y = self.binary("torch.ops.aten.mul.Tensor", "mul", y, self.state["encoder.gain"])
        self.pop()
        return y


def build():
    # state in named_parameters() / named_buffers() order
    params = [("embed.weight", [DIM, D_IN]), ("embed.bias", [DIM])]
    buffers = []
    modules = ["", "embed", "encoder", "encoder.layers"]
    params.append(("encoder.gain", [DIM]))  # Encoder's own parameter comes before its children's
    for i in range(DEPTH):
        p = "encoder.layers.%d" % i
        modules += [p, p + ".norm1", p + ".attn", p + ".attn.q", p + ".attn.k", p + ".attn.v",
                    p + ".attn.o", p + ".act", p + ".fc1", p + ".fc2"]
        params += [(p + ".norm1.weight", [DIM]), (p + ".norm1.bias", [DIM])]
        for n in ("q", "k", "v", "o"):
            params += [(p + ".attn.%s.weight" % n, [DIM, DIM]), (p + ".attn.%s.bias" % n, [DIM])]
        params += [(p + ".fc1.weight", [HIDDEN, DIM]), (p + ".fc1.bias", [HIDDEN]),
                   (p + ".fc2.weight", [DIM, HIDDEN]), (p + ".fc2.bias", [DIM])]
        buffers += [(p + ".attn.calls", LONG, [], True), (p + ".attn.scale", FLOAT, [], False)]
    modules += ["encoder.norm", "head"]
    params += [("encoder.norm.weight", [DIM]), ("encoder.norm.bias", [DIM]),
               ("head.weight", [N_OUT, DIM]), ("head.bias", [N_OUT])]

    tr = Tracer()
    inputs, specs = [], []
    for fqn, sizes in params:
        v = V("p_" + fqn.replace(".", "_"), FLOAT, sizes)
        tr.state[fqn] = v
        inputs.append(T(v))
        specs.append({"parameter": {"arg": {"name": v.name}, "parameter_name": fqn}})
        tr.tv.append((v.name, tr.tmeta(v, True)))
    for fqn, dtype, sizes, persistent in buffers:
        v = V("b_" + fqn.replace(".", "_"), dtype, sizes)
        tr.state[fqn] = v
        inputs.append(T(v))
        specs.append({"buffer": {"arg": {"name": v.name}, "buffer_name": fqn, "persistent": persistent}})
        tr.tv.append((v.name, tr.tmeta(v)))
    x = V("x", FLOAT, [SEQ, D_IN])
    inputs.append(T(x))
    specs.append({"user_input": {"arg": T(x)}})
    tr.tv.append(("x", tr.tmeta(x)))
    initial = dict(tr.state)

    # TinyModel.forward
    h = tr.linear("embed", x, _src("h = self.embed(x)"))
    h = tr.encoder(h, _src("h = self.encoder(h)"))
    y = tr.linear("head", h, _src("return self.head(h)"))

    outputs, ospecs = [], []
    for fqn, _, _, _ in buffers:
        if tr.state[fqn] is not initial[fqn]:
            outputs.append(T(tr.state[fqn]))
            ospecs.append({"buffer_mutation": {"arg": {"name": tr.state[fqn].name}, "buffer_name": fqn}})
    outputs.append(T(y))
    ospecs.append({"user_output": {"arg": T(y)}})

    leaf = {"type": None, "context": None, "children_spec": []}
    in_spec = [1, {"type": "builtins.tuple", "context": "null", "children_spec": [
        {"type": "builtins.tuple", "context": "null", "children_spec": [leaf]},
        {"type": "builtins.dict", "context": "[]", "children_spec": []}]}]
    mcg = [{"fqn": "", "signature": {"inputs": [], "outputs": [], "in_spec": json.dumps(in_spec),
                                     "out_spec": json.dumps([1, leaf]), "forward_arg_names": ["x"]}}]
    mcg += [{"fqn": m, "signature": None} for m in modules[1:]]

    return {
        "graph_module": {
            "graph": {
                "inputs": inputs,
                "outputs": outputs,
                "nodes": tr.nodes,
                "tensor_values": dict(tr.tv),
                "sym_int_values": {},
                "sym_bool_values": {},
                "is_single_tensor_return": False,
                "custom_obj_values": {},
                "sym_float_values": {},
            },
            "signature": {"input_specs": specs, "output_specs": ospecs},
            "module_call_graph": mcg,
            "metadata": {},
            "treespec_namedtuple_fields": {},
        },
        "opset_version": {"aten": 10},
        "range_constraints": {},
        "schema_version": {"major": 8, "minor": 20},
        "verifiers": ["ATEN"],
        "torch_version": "2.12.0+cpu",
        "guards_code": [],
    }


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "tests", "fixtures", "example.json"))
    ap = argparse.ArgumentParser(description="regenerate the bundled example program")
    ap.add_argument("--out", default=default, help="output file, '-' for stdout (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing")
    a = ap.parse_args(argv)
    text = json.dumps(build())
    if a.check:
        try:
            with open(a.out, encoding="ascii") as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            sys.stderr.write("make_example: %s is out of date\n" % a.out)
        return 0 if same else 1
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w", encoding="ascii") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
