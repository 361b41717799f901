#!/usr/bin/env python3
"""gen_synth.py - write a synthetic torch.export program (schema 8.20 JSON).

Usage:
    python3 scripts/gen_synth.py --nodes N [--out FILE] [--seed S] [--layers L] [-v]

Writes the bare program JSON (what a torch 2.12 `torch.export.save` stores as
`models/model.json` inside the .pt2 archive) of the transformer-like model in
MODEL_SRC below, as `torch.export.export(Model(...).eval(), (x, attn_mask))
.run_decompositions()` would produce it: core ATen ops, non-strict
nn_module_stack keys, stack_trace / torch_fn / from_node metadata, named
placeholders, tensor_values for every value, and a module_call_graph listing
every module (only the root has a signature).

Size: 56 nodes per block plus 64 outside, so the node count is
56 * L + 64 with L = round((N - 64) / 56) (at least 1); for N >= 1000 that
is within 3 % of N.  --layers overrides L.

Output is json.dumps-compatible (default separators, ensure_ascii) and
written as a stream (tensor_values go through a temporary file), so memory
stays small: 1M nodes are ~1.9 GB, ~25 s and ~400 MB RSS on one core.  Never
generate 1M-node files inside tests.  The same arguments always give
byte-identical output; --seed (default 0) picks the model dimensions.
Python 3 stdlib only.

Features worth testing against (all deliberate):
  * a ModuleList (`layers`) that is never called: it is in module_call_graph
    but in no nn_module_stack; the stacks go root -> layers.i -> ...
  * a shared module called twice per block: `layers.i.mlp.act` and
    `layers.i.mlp.act@1` (for layers.0 also @2 and @3, see next point);
  * `layers.0` called a second time from the root after the loop: all its
    entries (block, attn, q_proj, ..., act) get the next `@N` call index;
  * an in-place buffer update (`self.step += 1` in every Attention) that export
    functionalizes to aten.add.Tensor and writes back through a
    `buffer_mutation` output spec (layers.0's step is bumped twice: the second
    add consumes the first);
  * a non-persistent buffer (`position_ids`, persistent: false);
  * a second user input (`attn_mask`) consumed by every block (fan-out L+1);
  * native_layer_norm with three outputs: getitem_<k>, <node>_unused_1/_2.
"""
import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time

MODEL_FILE = "/home/developer/workspace/tiny-transformer-lab/src/mypkg/__init__.py"
TORCH_DIR = "/home/developer/workspace/tiny-transformer-lab/.venv/lib/python3.12/site-packages/torch/nn/modules/"

# The model this program stands for (mypkg/__init__.py).  Line numbers in the
# generated stack traces are looked up in this text.
MODEL_SRC = '''\
import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.scale = math.sqrt(self.head_dim)
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

    def forward(self, x, attn_mask):
        self.step += 1
        B, S, D = x.shape
        q = self.q_proj(x).view(B, S, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, S, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, S, self.n_heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)).div(self.scale)
        probs = (scores + attn_mask).softmax(dim=-1)
        out = torch.matmul(probs, v).transpose(1, 2).contiguous().view(B, S, D)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        # one GELU instance, applied twice
        return self.act(self.fc2(self.act(self.fc1(x))))


class Block(nn.Module):
    def __init__(self, d_model, n_heads, d_ff):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = Attention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, d_ff)

    def forward(self, h, attn_mask):
        h = h + self.attn(self.ln1(h), attn_mask)
        h = h + self.mlp(self.ln2(h))
        return h


class Model(nn.Module):
    def __init__(self, vocab, seq_len, d_model, n_heads, d_ff, n_layers):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d_model)
        self.pos_embed = nn.Embedding(seq_len, d_model)
        self.register_buffer("position_ids", torch.arange(seq_len).unsqueeze(0), persistent=False)
        self.layers = nn.ModuleList(Block(d_model, n_heads, d_ff) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x, attn_mask):
        h = self.embed_tokens(x) + self.pos_embed(self.position_ids)
        for layer in self.layers:
            h = layer(h, attn_mask)
        h = self.layers[0](h, attn_mask)  # extra weight-shared pass through block 0
        return self.head(self.norm(h))

# exported with:
#   m = Model(vocab, seq_len, d_model, n_heads, 4 * d_model, n_layers).eval()
#   x = torch.randint(0, vocab, (1, seq_len))
#   attn_mask = torch.zeros(1, 1, seq_len, seq_len)
#   ep = torch.export.export(m, (x, attn_mask)).run_decompositions()
#   torch.export.save(ep, "model.pt2")
'''

_SRC_LINES = MODEL_SRC.split("\n")


def _src(code):
    """frame text for the line of MODEL_SRC whose stripped text is `code`."""
    for i, line in enumerate(_SRC_LINES):
        if line.strip() == code:
            return 'File "%s", line %d, in forward\n    %s' % (MODEL_FILE, i + 1, code)
    raise KeyError(code)


def _torch(fname, line, code):
    return 'File "%s%s", line %d, in forward\n    %s' % (TORCH_DIR, fname, line, code)


F_LINEAR = _torch("linear.py", 134, "return F.linear(input, self.weight, self.bias)")
F_LAYERNORM = _torch("normalization.py", 228, "return F.layer_norm(")
F_GELU = _torch("activation.py", 816, "return F.gelu(input, approximate=self.approximate)")
F_EMBED = _torch("sparse.py", 192, "return F.embedding(")

R_EMBED = _src("h = self.embed_tokens(x) + self.pos_embed(self.position_ids)")
R_LOOP = _src("h = layer(h, attn_mask)")
R_AGAIN = _src("h = self.layers[0](h, attn_mask)  # extra weight-shared pass through block 0")
R_HEAD = _src("return self.head(self.norm(h))")
B_ATTN = _src("h = h + self.attn(self.ln1(h), attn_mask)")
B_MLP = _src("h = h + self.mlp(self.ln2(h))")
A_STEP = _src("self.step += 1")
A_Q = _src("q = self.q_proj(x).view(B, S, self.n_heads, self.head_dim).transpose(1, 2)")
A_K = _src("k = self.k_proj(x).view(B, S, self.n_heads, self.head_dim).transpose(1, 2)")
A_V = _src("v = self.v_proj(x).view(B, S, self.n_heads, self.head_dim).transpose(1, 2)")
A_SCORES = _src("scores = torch.matmul(q, k.transpose(-2, -1)).div(self.scale)")
A_PROBS = _src("probs = (scores + attn_mask).softmax(dim=-1)")
A_OUT = _src("out = torch.matmul(probs, v).transpose(1, 2).contiguous().view(B, S, D)")
A_OPROJ = _src("return self.o_proj(out)")
M_FWD = _src("return self.act(self.fc2(self.act(self.fc1(x))))")

T_LINEAR = "torch.nn.modules.linear.Linear"
T_LN = "torch.nn.modules.normalization.LayerNorm"
T_GELU = "torch.nn.modules.activation.GELU"
T_EMB = "torch.nn.modules.sparse.Embedding"
T_MODEL = "mypkg.Model"
T_BLOCK = "mypkg.Block"
T_ATTN = "mypkg.Attention"
T_MLP = "mypkg.MLP"

FLOAT, LONG = 7, 5
NODES_PER_BLOCK = 56
NODES_OUTSIDE = 64  # 3 (embeddings) + 56 (second call of layers.0) + 5 (norm, head)

FROM_NODE = ('[{"name": "%s", "target": "%s", "graph_id": 0, "pass_name": '
             '"Interpreter_PropagateUnbackedSymInts", "action": "create", "from_node": '
             '[{"name": "%s", "target": "%s", "graph_id": 0, "pass_name": '
             '"ExportedProgram.module()", "action": "create", "from_node": []}]}]')


def contiguous(sizes):
    st = [1] * len(sizes)
    acc = 1
    for i in range(len(sizes) - 1, -1, -1):
        st[i] = acc
        acc *= max(sizes[i], 1)
    return tuple(st)


def view_strides(osz, ost, nsz):
    """ATen's computeStride: strides of a view, or None if not viewable."""
    if not osz:
        return contiguous(nsz)
    nst = [0] * len(nsz)
    view_d = len(nsz) - 1
    chunk_base = ost[-1]
    tensor_numel = 1
    view_numel = 1
    for td in range(len(osz) - 1, -1, -1):
        tensor_numel *= osz[td]
        if td == 0 or (osz[td - 1] != 1 and ost[td - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or nsz[view_d] == 1):
                nst[view_d] = view_numel * chunk_base
                view_numel *= nsz[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if td > 0:
                chunk_base = ost[td - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(nst)


class Value(object):
    __slots__ = ("name", "dtype", "sizes", "strides", "offset")

    def __init__(self, name, dtype, sizes, strides=None, offset=0):
        self.name = name
        self.dtype = dtype
        self.sizes = tuple(sizes)
        self.strides = contiguous(self.sizes) if strides is None else tuple(strides)
        self.offset = offset


def T(v):
    return {"as_tensor": {"name": v.name}}


class Gen(object):
    """Traces the model of MODEL_SRC by hand, emitting one serialized node per
    core-ATen op.  With dry=True only the names are computed."""

    def __init__(self, cfg, dry, node_sink=None, tv_sink=None):
        self.cfg = cfg
        self.dry = dry
        self.node_sink = node_sink
        self.tv_sink = tv_sink
        self.names = {}        # FX base name -> count (final graph names)
        self.orig_names = {}   # training-IR names (for from_node)
        self.fn_counts = {}    # torch_fn counts
        self.num_calls = {}    # module path -> calls so far (the @N index)
        self.stack = ["L__self__,,%s" % T_MODEL]
        self.frames = []       # caller frames of the modules on the stack
        self.prefix = [""]     # "\n  ".join(frames) for each stack depth
        self.cur = None        # frame of the current line in the innermost forward
        self.fn = None
        self.from_node = None
        self.n_nodes = 0
        self.tmeta_cache = {}
        self.first_node = True
        self.first_tv = True
        self.step_value = {}   # buffer fqn -> Value of its latest version

    # -- naming --------------------------------------------------------
    def fresh(self, base, table=None):
        table = self.names if table is None else table
        n = table.get(base, 0)
        table[base] = n + 1
        return base if n == 0 else "%s_%d" % (base, n)

    # -- module / call context -----------------------------------------
    def push(self, path, mtype, frame=None):
        n = self.num_calls.get(path, 0)
        self.num_calls[path] = n + 1
        key = "L__self__" + path + ("@%d" % n if n else "")
        self.stack.append("%s;%s,%s,%s" % (self.stack[-1], key, path, mtype))
        self.frames.append(self.cur)
        p = self.prefix[-1]
        self.prefix.append(self.cur if not p else p + "\n  " + self.cur)
        self.cur = frame

    def pop(self):
        self.stack.pop()
        self.prefix.pop()
        self.cur = self.frames.pop()

    def call(self, fn, cls, orig_base, orig_target, frame=None):
        """start a torch-level call (one torch_fn / one training-IR node)."""
        if frame is not None:
            self.cur = frame
        if self.dry:
            return
        c = self.fn_counts.get(fn, 0) + 1
        self.fn_counts[fn] = c
        self.fn = "%s_%d;%s.%s" % (fn, c, cls, fn)
        on = self.fresh(orig_base, self.orig_names)
        self.from_node = FROM_NODE % (on, orig_target, on, orig_target)

    # -- values ----------------------------------------------------------
    def tmeta(self, v, requires_grad=False):
        key = (v.dtype, v.sizes, v.strides, v.offset, requires_grad)
        s = self.tmeta_cache.get(key)
        if s is None:
            s = json.dumps({
                "dtype": v.dtype,
                "sizes": [{"as_int": x} for x in v.sizes],
                "requires_grad": requires_grad,
                "device": {"type": "cpu", "index": None},
                "strides": [{"as_int": x} for x in v.strides],
                "storage_offset": {"as_int": v.offset},
                "layout": 7})
            if len(self.tmeta_cache) < 100000:
                self.tmeta_cache[key] = s
        return s

    def add_tv(self, v, requires_grad=False):
        if self.dry:
            return
        if self.first_tv:
            self.first_tv = False
            self.tv_sink.write('"%s": %s' % (v.name, self.tmeta(v, requires_grad)))
        else:
            self.tv_sink.write(', "%s": %s' % (v.name, self.tmeta(v, requires_grad)))

    # -- nodes -------------------------------------------------------------
    def op(self, target, base, inputs, out):
        """one node with a single tensor output; out = (dtype, sizes, strides|None, offset)."""
        name = self.fresh(base)
        v = Value(name, out[0], out[1], out[2], out[3] if len(out) > 3 else 0)
        self.n_nodes += 1
        if not self.dry:
            self.emit(target, inputs, [T(v)], name)
            self.add_tv(v)
        return v

    def emit(self, target, inputs, outputs, name):
        meta = {
            "stack_trace": self.cur if not self.prefix[-1] else self.prefix[-1] + "\n  " + self.cur,
            "nn_module_stack": self.stack[-1],
            "torch_fn": self.fn,
            "from_node": self.from_node,
        }
        node = {
            "target": target,
            "inputs": [{"name": n, "arg": a, "kind": k} for (n, a, k) in inputs],
            "outputs": outputs,
            "metadata": meta,
            "is_hop_single_tensor_return": None,
            "name": name,
        }
        s = json.dumps(node)
        if self.first_node:
            self.first_node = False
            self.node_sink.write(s)
        else:
            self.node_sink.write(", " + s)

    # -- aten ops ------------------------------------------------------------
    def view(self, x, sizes):
        st = view_strides(x.sizes, x.strides, tuple(sizes))
        if st is None:
            raise AssertionError("not viewable: %r %r -> %r" % (x.sizes, x.strides, sizes))
        return self.op("torch.ops.aten.view.default", "view",
                       [("self", T(x), 1), ("size", {"as_ints": list(sizes)}, 1)],
                       (x.dtype, sizes, st, x.offset))

    def permute(self, x, dims):
        return self.op("torch.ops.aten.permute.default", "permute",
                       [("self", T(x), 1), ("dims", {"as_ints": list(dims)}, 1)],
                       (x.dtype, [x.sizes[d] for d in dims], [x.strides[d] for d in dims], x.offset))

    def expand(self, x, sizes):
        st = [x.strides[i] if x.sizes[i] == sizes[i] else 0 for i in range(len(sizes))]
        return self.op("torch.ops.aten.expand.default", "expand",
                       [("self", T(x), 1), ("size", {"as_ints": list(sizes)}, 1)],
                       (x.dtype, sizes, st, x.offset))

    def addmm(self, bias, a, b):
        return self.op("torch.ops.aten.addmm.default", "addmm",
                       [("self", T(bias), 1), ("mat1", T(a), 1), ("mat2", T(b), 1)],
                       (a.dtype, (a.sizes[0], b.sizes[1]), None))

    def bmm(self, a, b):
        return self.op("torch.ops.aten.bmm.default", "bmm",
                       [("self", T(a), 1), ("mat2", T(b), 1)],
                       (a.dtype, (a.sizes[0], a.sizes[1], b.sizes[2]), None))

    def add(self, a, b):
        if isinstance(b, Value):
            sizes = tuple(max(p, q) for p, q in zip(a.sizes, b.sizes))
            return self.op("torch.ops.aten.add.Tensor", "add",
                           [("self", T(a), 1), ("other", T(b), 1)], (a.dtype, sizes, None))
        return self.op("torch.ops.aten.add.Tensor", "add",
                       [("self", T(a), 1), ("other", {"as_int": b}, 1)], (a.dtype, a.sizes, None))

    def div(self, a, scalar):
        return self.op("torch.ops.aten.div.Tensor", "div",
                       [("self", T(a), 1), ("other", {"as_float": scalar}, 1)], (a.dtype, a.sizes, None))

    def softmax(self, a, dim):
        return self.op("torch.ops.aten._softmax.default", "_softmax",
                       [("self", T(a), 1), ("dim", {"as_int": dim}, 1),
                        ("half_to_float", {"as_bool": False}, 1)], (a.dtype, a.sizes, None))

    def clone_contig(self, a):
        return self.op("torch.ops.aten.clone.default", "clone",
                       [("self", T(a), 1), ("memory_format", {"as_memory_format": 1}, 2)],
                       (a.dtype, a.sizes, None))

    def gelu(self, a):
        return self.op("torch.ops.aten.gelu.default", "gelu", [("self", T(a), 1)], (a.dtype, a.sizes, None))

    def embedding(self, w, idx):
        return self.op("torch.ops.aten.embedding.default", "embedding",
                       [("weight", T(w), 1), ("indices", T(idx), 1)],
                       (w.dtype, idx.sizes + (w.sizes[1],), None))

    def native_layer_norm(self, x, w, b, eps=1e-05):
        name = self.fresh("native_layer_norm")
        g = self.fresh("getitem")
        self.fresh("getitem")  # the two unused getitems still take their numbers
        self.fresh("getitem")
        self.n_nodes += 1
        out = Value(g, x.dtype, x.sizes)
        stat_sizes = x.sizes[:-1] + (1,)
        u1 = Value(name + "_unused_1", FLOAT, stat_sizes)
        u2 = Value(name + "_unused_2", FLOAT, stat_sizes)
        if not self.dry:
            self.emit("torch.ops.aten.native_layer_norm.default",
                      [("input", T(x), 1), ("normalized_shape", {"as_ints": [x.sizes[-1]]}, 1),
                       ("weight", T(w), 1), ("bias", T(b), 1), ("eps", {"as_float": eps}, 1)],
                      [T(out), T(u1), T(u2)], name)
            self.add_tv(out)
            self.add_tv(u1)
            self.add_tv(u2)
        return out

    # -- nn modules ------------------------------------------------------------
    def linear(self, path, x, frame):
        """nn.Linear at `path`, called from the line `frame` of the caller."""
        w, b = self.params[path + ".weight"], self.params[path + ".bias"]
        self.cur = frame
        self.push(path, T_LINEAR, F_LINEAR)
        self.call("linear", "builtin_function_or_method", "linear", "aten.linear.default")
        lead = x.sizes[:-1]
        rows = 1
        for s in lead:
            rows *= s
        v = self.view(x, (rows, x.sizes[-1]))
        wt = self.permute(w, (1, 0))
        mm = self.addmm(b, v, wt)
        out = self.view(mm, lead + (w.sizes[0],))
        self.pop()
        return out

    def layer_norm(self, path, x, frame):
        self.cur = frame
        self.push(path, T_LN, F_LAYERNORM)
        self.call("layer_norm", "function", "layer_norm", "aten.layer_norm.default")
        out = self.native_layer_norm(x, self.params[path + ".weight"], self.params[path + ".bias"])
        self.pop()
        return out

    def gelu_mod(self, path, x, frame):
        self.cur = frame
        self.push(path, T_GELU, F_GELU)
        self.call("gelu", "builtin_function_or_method", "gelu", "aten.gelu.default")
        out = self.gelu(x)
        self.pop()
        return out

    def embedding_mod(self, path, idx, frame):
        self.cur = frame
        self.push(path, T_EMB, F_EMBED)
        self.call("embedding", "function", "embedding", "aten.embedding.default")
        out = self.embedding(self.params[path + ".weight"], idx)
        self.pop()
        return out

    def attention(self, path, x, mask, frame):
        c = self.cfg
        B, S, D = x.sizes
        H, Dh = c["n_heads"], c["d_model"] // c["n_heads"]
        self.cur = frame
        self.push(path, T_ATTN)
        # self.step += 1  (functionalized: add.Tensor + buffer_mutation output)
        self.call("add_", "method_descriptor", "add_", "aten.add_.Tensor", A_STEP)
        sfqn = path + ".step"
        self.step_value[sfqn] = self.add(self.step_value[sfqn], 1)
        heads = []
        for proj, fr in (("q_proj", A_Q), ("k_proj", A_K), ("v_proj", A_V)):
            y = self.linear(path + "." + proj, x, fr)
            self.call("view", "method_descriptor", "view", "aten.view.default")
            y = self.view(y, (B, S, H, Dh))
            self.call("transpose", "method_descriptor", "transpose", "aten.transpose.int")
            heads.append(self.permute(y, (0, 2, 1, 3)))
        q, k, v = heads
        self.call("transpose", "method_descriptor", "transpose", "aten.transpose.int", A_SCORES)
        kt = self.permute(k, (0, 1, 3, 2))
        self.call("matmul", "builtin_function_or_method", "matmul", "aten.matmul.default")
        a = self.view(self.expand(q, q.sizes), (B * H, S, Dh))
        bb = self.view(self.expand(kt, kt.sizes), (B * H, Dh, S))
        scores = self.view(self.bmm(a, bb), (B, H, S, S))
        self.call("div", "method_descriptor", "div", "aten.div.Tensor")
        scores = self.div(scores, math.sqrt(Dh))
        self.call("add", "method_descriptor", "add", "aten.add.Tensor", A_PROBS)
        scores = self.add(scores, mask)
        self.call("softmax", "method_descriptor", "softmax", "aten.softmax.int")
        probs = self.softmax(scores, -1)
        self.call("matmul", "builtin_function_or_method", "matmul", "aten.matmul.default", A_OUT)
        a = self.view(self.expand(probs, probs.sizes), (B * H, S, S))
        bb = self.view(self.expand(v, v.sizes), (B * H, S, Dh))
        out = self.view(self.bmm(a, bb), (B, H, S, Dh))
        self.call("transpose", "method_descriptor", "transpose", "aten.transpose.int")
        out = self.permute(out, (0, 2, 1, 3))
        self.call("contiguous", "method_descriptor", "contiguous", "aten.contiguous.default")
        out = self.clone_contig(out)
        self.call("view", "method_descriptor", "view", "aten.view.default")
        out = self.view(out, (B, S, D))
        out = self.linear(path + ".o_proj", out, A_OPROJ)
        self.pop()
        return out

    def mlp(self, path, x, frame):
        self.cur = frame
        self.push(path, T_MLP)
        h = self.linear(path + ".fc1", x, M_FWD)
        h = self.gelu_mod(path + ".act", h, M_FWD)
        h = self.linear(path + ".fc2", h, M_FWD)
        h = self.gelu_mod(path + ".act", h, M_FWD)   # second call: key gets @1
        self.pop()
        return h

    def block(self, i, h, mask, frame):
        path = "layers.%d" % i
        self.cur = frame
        self.push(path, T_BLOCK)
        y = self.layer_norm(path + ".ln1", h, B_ATTN)
        y = self.attention(path + ".attn", y, mask, B_ATTN)
        self.call("add", "method_descriptor", "add", "aten.add.Tensor", B_ATTN)
        h = self.add(h, y)
        y = self.layer_norm(path + ".ln2", h, B_MLP)
        y = self.mlp(path + ".mlp", y, B_MLP)
        self.call("add", "method_descriptor", "add", "aten.add.Tensor", B_MLP)
        h = self.add(h, y)
        self.pop()
        return h

    # -- whole program -----------------------------------------------------------
    def run(self, model):
        """trace Model.forward; returns the user output Value."""
        self.params = model.values
        x, mask = self.params["x"], self.params["attn_mask"]
        for fqn in model.step_buffers:
            self.step_value[fqn] = self.params[fqn]
        e1 = self.embedding_mod("embed_tokens", x, R_EMBED)
        e2 = self.embedding_mod("pos_embed", self.params["position_ids"], R_EMBED)
        self.cur = R_EMBED
        self.call("add", "method_descriptor", "add", "aten.add.Tensor")
        h = self.add(e1, e2)
        for i in range(model.n_layers):
            h = self.block(i, h, mask, R_LOOP)
        h = self.block(0, h, mask, R_AGAIN)
        h = self.layer_norm("norm", h, R_HEAD)
        return self.linear("head", h, R_HEAD)


class ModelDesc(object):
    """parameters, buffers, user inputs and module tree of Model(...)."""

    def __init__(self, cfg, n_layers):
        self.cfg = cfg
        self.n_layers = n_layers
        D, F, V, S = cfg["d_model"], cfg["d_ff"], cfg["vocab"], cfg["seq_len"]
        self.modules = [""]       # named_modules() order
        self.params = []          # (fqn, sizes) in named_parameters() order
        self.buffers = []         # (fqn, dtype, sizes, persistent) in named_buffers() order
        self.step_buffers = []

        def lin(p, i, o):
            self.modules.append(p)
            self.params += [(p + ".weight", (o, i)), (p + ".bias", (o,))]

        def ln(p):
            self.modules.append(p)
            self.params += [(p + ".weight", (D,)), (p + ".bias", (D,))]

        self.modules.append("embed_tokens")
        self.params.append(("embed_tokens.weight", (V, D)))
        self.modules.append("pos_embed")
        self.params.append(("pos_embed.weight", (S, D)))
        self.buffers.append(("position_ids", LONG, (1, S), False))
        self.modules.append("layers")
        for i in range(n_layers):
            p = "layers.%d" % i
            self.modules.append(p)
            ln(p + ".ln1")
            self.modules.append(p + ".attn")
            for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
                lin(p + ".attn." + proj, D, D)
            self.buffers.append((p + ".attn.step", LONG, (), True))
            self.step_buffers.append(p + ".attn.step")
            ln(p + ".ln2")
            self.modules.append(p + ".mlp")
            lin(p + ".mlp.fc1", D, F)
            self.modules.append(p + ".mlp.act")
            lin(p + ".mlp.fc2", F, D)
        ln("norm")
        lin("head", D, V)

        # placeholders, in graph.inputs order
        self.inputs = []   # (kind, placeholder name, fqn, Value, requires_grad, persistent)
        self.values = {}
        for fqn, sizes in self.params:
            v = Value("p_" + fqn.replace(".", "_"), FLOAT, sizes)
            self.inputs.append(("parameter", v.name, fqn, v, True, None))
            self.values[fqn] = v
        for fqn, dtype, sizes, persistent in self.buffers:
            v = Value("b_" + fqn.replace(".", "_"), dtype, sizes)
            self.inputs.append(("buffer", v.name, fqn, v, False, persistent))
            self.values[fqn] = v
        for name, dtype, sizes in (("x", LONG, (1, S)), ("attn_mask", FLOAT, (1, 1, S, S))):
            v = Value(name, dtype, sizes)
            self.inputs.append(("user_input", name, None, v, False, None))
            self.values[name] = v


def pick_config(seed):
    rng = random.Random(seed)
    d = rng.choice([128, 192, 256, 384, 512])
    h = rng.choice([h for h in (2, 4, 8) if d % h == 0 and d // h >= 32])
    return {"d_model": d, "n_heads": h, "d_ff": 4 * d,
            "seq_len": rng.choice([64, 128, 256]),
            "vocab": rng.choice([1000, 4096, 8192, 32000])}


def leaf():
    return {"type": None, "context": None, "children_spec": []}


def write_program(out, cfg, n_layers):
    model = ModelDesc(cfg, n_layers)

    # pass 1: names only (graph.outputs comes before graph.nodes in the file)
    dry = Gen(cfg, dry=True)
    result = dry.run(model)
    mutations = [(fqn, dry.step_value[fqn].name) for fqn in model.step_buffers]
    n_nodes = dry.n_nodes
    assert n_nodes == NODES_PER_BLOCK * n_layers + NODES_OUTSIDE, n_nodes

    w = out.write
    w('{"graph_module": {"graph": {"inputs": [')
    w(", ".join('{"as_tensor": {"name": "%s"}}' % i[1] for i in model.inputs))
    w('], "outputs": [')
    outs = ['{"as_tensor": {"name": "%s"}}' % name for _, name in mutations]
    outs.append('{"as_tensor": {"name": "%s"}}' % result.name)
    w(", ".join(outs))
    w('], "nodes": [')

    # pass 2: nodes to `out`, tensor_values to a temporary file
    tv = tempfile.TemporaryFile(mode="w+", encoding="ascii")
    gen = Gen(cfg, dry=False, node_sink=out, tv_sink=tv)
    for kind, name, fqn, v, rg, _ in model.inputs:
        gen.add_tv(v, rg)
    result2 = gen.run(model)
    assert result2.name == result.name and gen.n_nodes == n_nodes
    w('], "tensor_values": {')
    tv.flush()
    tv.seek(0)
    shutil.copyfileobj(tv, out, 1 << 20)
    tv.close()
    w('}, "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false, '
      '"custom_obj_values": {}, "sym_float_values": {}}, ')

    # signature
    specs = []
    for kind, name, fqn, v, rg, persistent in model.inputs:
        if kind == "parameter":
            specs.append('{"parameter": {"arg": {"name": "%s"}, "parameter_name": "%s"}}' % (name, fqn))
        elif kind == "buffer":
            specs.append('{"buffer": {"arg": {"name": "%s"}, "buffer_name": "%s", "persistent": %s}}'
                         % (name, fqn, "true" if persistent else "false"))
        else:
            specs.append('{"user_input": {"arg": {"as_tensor": {"name": "%s"}}}}' % name)
    w('"signature": {"input_specs": [')
    w(", ".join(specs))
    w('], "output_specs": [')
    ospecs = ['{"buffer_mutation": {"arg": {"name": "%s"}, "buffer_name": "%s"}}' % (name, fqn)
              for fqn, name in mutations]
    ospecs.append('{"user_output": {"arg": {"as_tensor": {"name": "%s"}}}}' % result.name)
    w(", ".join(ospecs))
    w(']}, ')

    # module_call_graph: every module in named_modules() order, only the root has a signature
    user = [i[1] for i in model.inputs if i[0] == "user_input"]
    in_spec = json.dumps([1, {"type": "builtins.tuple", "context": "null", "children_spec": [
        {"type": "builtins.tuple", "context": "null", "children_spec": [leaf() for _ in user]},
        {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])
    out_spec = json.dumps([1, leaf()])
    root = {"fqn": "", "signature": {"inputs": [], "outputs": [], "in_spec": in_spec,
                                     "out_spec": out_spec, "forward_arg_names": user}}
    w('"module_call_graph": [')
    w(json.dumps(root))
    for fqn in model.modules[1:]:
        w(', {"fqn": "%s", "signature": null}' % fqn)
    w('], "metadata": {}, "treespec_namedtuple_fields": {}}, '
      '"opset_version": {"aten": 10}, "range_constraints": {}, '
      '"schema_version": {"major": 8, "minor": 20}, "verifiers": ["ATEN"], '
      '"torch_version": "2.12.0+cpu", "guards_code": []}')
    return n_nodes


def layers_for(n):
    return max(1, int(round((n - NODES_OUTSIDE) / float(NODES_PER_BLOCK))))


def main(argv=None):
    ap = argparse.ArgumentParser(description="write a synthetic torch.export program (schema 8.20 JSON)")
    ap.add_argument("--nodes", type=int, required=True, help="approximate number of graph nodes")
    ap.add_argument("--out", default="-", help="output file (default: stdout)")
    ap.add_argument("--seed", type=int, default=0, help="picks the model dimensions (default 0)")
    ap.add_argument("--layers", type=int, default=None, help="number of blocks (overrides --nodes)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print a summary to stderr")
    a = ap.parse_args(argv)
    if a.nodes < 1:
        ap.error("--nodes must be positive")
    n_layers = a.layers if a.layers is not None else layers_for(a.nodes)
    if n_layers < 1:
        ap.error("--layers must be positive")
    cfg = pick_config(a.seed)
    t0 = time.time()
    if a.out == "-":
        out = sys.stdout
        n = write_program(out, cfg, n_layers)
        out.flush()
    else:
        tmp = a.out + ".part"
        with open(tmp, "w", encoding="ascii", buffering=1 << 20) as out:
            n = write_program(out, cfg, n_layers)
        os.replace(tmp, a.out)
    if a.verbose:
        size = os.path.getsize(a.out) if a.out != "-" else -1
        sys.stderr.write("gen_synth: %d layers, %d nodes, %d bytes, %.1f s, cfg %s\n"
                         % (n_layers, n, size, time.time() - t0, json.dumps(cfg, sort_keys=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
