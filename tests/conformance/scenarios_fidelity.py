"""scenarios_fidelity.py - issue 25's fidelity programs, registered into
scenarios.REGISTRY: functorch transforms (vmap, jvp, grad and their
nesting: torch 2.13 exports their pre-dispatch wrappers as plain callables),
control flow nested inside control flow (cond, while_loop, scan, map at
every depth), and nodes whose nn_module_stack was removed, emptied or cut.
"""
import torch
import torch.nn as nn
from torch.func import grad, jvp, vmap

from scenarios import scenario

# =====================================================================
# functorch transforms
# =====================================================================


class _VLeaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x).sin()


class _VmapChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = _VLeaf()

    def forward(self, x):
        return vmap(self.f)(x)


class _VmapTwice(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _VmapChild()
        self.b = _VmapChild()

    def forward(self, x):
        return self.b(self.a(x)) + 1


@scenario("issue 25: torch.vmap over a submodule (pre-dispatch functorch wrappers)", strict=(False,),
          preserve=((), ("a",)))
def functorch_vmap():
    """vmap inside two children: lazy_load_decompositions and the nesting
    wrappers have no output (as_none, named ..._unused) and are dead code"""
    return _VmapTwice(), (torch.randn(4, 3),), {}


class _VmapNested(nn.Module):
    def forward(self, x):
        return vmap(vmap(lambda y: y * 2 + 1), in_dims=1, out_dims=1)(x)


@scenario("issue 25: vmap of vmap, in_dims/out_dims (non-strict: torch 2.13 refuses)",
          strict=(True,))
def functorch_vmap_nested():
    """two nesting levels: two of each wrapper, the second named ..._1"""
    return _VmapNested(), (torch.randn(4, 3, 2),), {}


class _Jvp(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        out, tan = jvp(lambda y: (y * self.w).sin(), (x,), (torch.ones_like(x),))
        return out + tan


@scenario("issue 25: torch.func.jvp (_make_dual/_unpack_dual wrappers, kwargs level=)",
          strict=(False,))
def functorch_jvp():
    """jvp: _jvp_increment_nesting, _enter_dual_level (no output), _make_dual,
    _unpack_dual (a tuple: getitems), _unwrap_for_grad"""
    return _Jvp(), (torch.randn(4, 3),), {}


class _JvpOfVmap(nn.Module):
    def forward(self, x):
        out, tan = jvp(vmap(torch.sin), (x,), (x,))
        return out * tan


@scenario("issue 25: jvp of vmap (vmap of jvp: torch 2.13 refuses nested forward AD)")
def functorch_jvp_of_vmap():
    """vmap nested in jvp: both families of wrappers interleaved"""
    return _JvpOfVmap(), (torch.randn(4, 3),), {}


class _VmapChunked(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return vmap(self.lin, chunk_size=2)(x)


@scenario("issue 25: vmap with chunk_size", strict=(False,))
def functorch_vmap_chunked():
    """chunk_size=2 over 4 rows: the wrappers once per chunk, then a cat"""
    return _VmapChunked(), (torch.randn(4, 3),), {}


class _Grad(nn.Module):
    def forward(self, x):
        return grad(lambda y: (y.sin() * y).sum())(x)


@scenario("issue 25: torch.func.grad (torch 2.13 cannot save it: a TensorWrapper constant)",
          strict=(False,))
def functorch_grad():
    """grad lifts TensorWrapper constants that torch.export.save refuses"""
    return _Grad(), (torch.randn(4, 3),), {}


class _VmapGrad(nn.Module):
    def forward(self, x):
        return vmap(grad(lambda y: (y.cos() * y).sum()))(x)


@scenario("issue 25: vmap of grad (torch 2.13 refuses to export it)", strict=(False,))
def functorch_vmap_grad():
    """per-sample gradients: torch's fake tensors fail on the wrapper (and
    leave the vmap level open: gen.py pops it)"""
    return _VmapGrad(), (torch.randn(4, 3),), {}


# =====================================================================
# control flow inside control flow
# =====================================================================


def _cf(kind, inner, x):
    """x through control flow of kind whose body is inner (a function of one
    tensor)"""
    if kind == "cond":
        return torch.cond(x.sum() > 0, lambda y: inner(y), lambda y: inner(y.cos()), (x,))
    if kind == "while_loop":
        i0 = torch.zeros((), dtype=torch.int64)
        _, y = torch._higher_order_ops.while_loop(
            lambda i, y: i < 2, lambda i, y: (i + 1, inner(y)), (i0, x))
        return y
    if kind == "scan":
        def body(c, xs):
            n = inner(c + xs)
            return n, n.clone()
        c, _ = torch._higher_order_ops.scan(body, x[0], x)
        return c
    if kind == "map":
        return torch._higher_order_ops.map(lambda r: inner(r), x)
    raise ValueError(kind)


class _NestedCF(nn.Module):
    def __init__(self, kinds):
        super().__init__()
        self.kinds = kinds
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        def at(depth):
            if depth == len(self.kinds):
                return lambda y: self.lin(y).sin()
            return lambda y: _cf(self.kinds[depth], at(depth + 1), y)
        return at(0)(x) + 1


class _NestedCFHolder(nn.Module):
    def __init__(self, kinds):
        super().__init__()
        self.body = _NestedCF(kinds)

    def forward(self, x):
        return self.body(x) * 2


def _nested_cf(kinds, holder=False):
    def make():
        m = _NestedCFHolder(kinds) if holder else _NestedCF(kinds)
        return m, (torch.randn(2, 3),), {}
    return make


_NESTINGS = [("cond", "cond"), ("cond", "while_loop"), ("cond", "scan"), ("cond", "map"),
             ("while_loop", "cond"), ("scan", "cond"), ("map", "cond"), ("map", "scan"),
             ("cond", "cond", "cond"), ("cond", "map", "while_loop")]
for _k in _NESTINGS:
    _fn = _nested_cf(_k)
    _fn.__name__ = "cf_" + "_in_".join(reversed([k.replace("_", "") for k in _k]))
    _fn.__doc__ = "control flow nested " + " > ".join(_k) + ": subgraphs of subgraphs"
    scenario("issue 25: nested control flow " + " > ".join(_k), strict=(False,))(_fn)

_fn = _nested_cf(("cond", "cond"), holder=True)
_fn.__name__ = "cf_cond_in_cond_child"
_fn.__doc__ = "cond in cond inside a child module: the subgraphs move into body"
scenario("issue 25: nested cond in a child module", preserve=((), ("body",)))(_fn)


# =====================================================================
# nn_module_stack removed, emptied or cut
# =====================================================================


class _SC(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return (x * self.w).relu()


class _SB(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _SC()

    def forward(self, x):
        return self.c(x) + 1


class _SA(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = _SB()

    def forward(self, x):
        return self.b(x).sin()


class _StackRoot(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _SA()

    def forward(self, x):
        return self.a(x) * 2


def _edit_stack(target, how):
    """post=: edits the nn_module_stack of the first call_function node
    whose target name contains target"""
    def post(ep):
        for n in ep.graph.nodes:
            if n.op == "call_function" and target in str(n.target):
                st = n.meta.get("nn_module_stack", {})
                items = list(st.items())
                if how == "remove":
                    n.meta.pop("nn_module_stack", None)
                elif how == "empty":
                    n.meta["nn_module_stack"] = {}
                elif how.startswith("cut"):
                    n.meta["nn_module_stack"] = dict(items[:int(how[3:])])
                elif how.startswith("drop"):
                    i = int(how[4:])
                    n.meta["nn_module_stack"] = dict(items[:i] + items[i + 1:])
                break
        return ep
    return post


def _stack_scenario(name, target, how, doc):
    def make():
        return _StackRoot(), (torch.randn(2, 3),), {}
    make.__name__ = name
    make.__doc__ = doc
    scenario("issue 25: nn_module_stack " + how + " on " + target, strict=(False,),
             post=_edit_stack(target, how))(make)


# the stack of mul (in a.b.c) is [root, a, a.b, a.b.c]
for _t in ("mul", "relu", "sin"):
    _stack_scenario(f"stack_removed_{_t}", _t, "remove",
                    f"{_t} has no nn_module_stack: torch's loader gives it {{}} and "
                    "_fix_nn_module_stacks raises ValueError")
_stack_scenario("stack_emptied_mul", "mul", "empty", "mul's nn_module_stack is {}")
# (losing entry 0, the root, is left out: torch then leaves the root frame
# and builds a root graph with two outputs, where exdb deliberately stops
# with an error, docs/conformance.md)
for _i in range(4):
    _stack_scenario(f"stack_cut{_i}_mul", "mul", f"cut{_i}",
                    f"mul keeps the first {_i} entries of its nn_module_stack")
    if _i:
        _stack_scenario(f"stack_drop{_i}_mul", "mul", f"drop{_i}",
                        f"mul loses entry {_i} of its nn_module_stack")


# =====================================================================
# what users export, small and synthetic (no hub, no weights)
# =====================================================================

_QD = None


def _qd():
    """torch.ops.quantized_decomposed: the ops pt2e's convert_pt2e leaves
    in a program (torch 2.13 moved prepare/convert to torchao; the ops stay)"""
    global _QD
    if _QD is None:
        import torch.ao.quantization.fx._decomposed  # noqa: F401 - registers the ops
        _QD = torch.ops.quantized_decomposed
    return _QD


class _QConvBlock(nn.Module):
    """a conv and a linear as convert_pt2e leaves them: int8 weights
    dequantized (per channel for the conv), activations quantized and
    dequantized around each op"""
    def __init__(self):
        super().__init__()
        self.register_buffer("conv_w", torch.randint(-127, 127, (4, 4, 3, 3), dtype=torch.int8))
        self.register_buffer("conv_scale", torch.rand(4) / 50 + 0.01)
        self.register_buffer("conv_zp", torch.zeros(4, dtype=torch.int64))
        self.conv_b = nn.Parameter(torch.zeros(4))
        self.register_buffer("fc_w", torch.randint(-127, 127, (4, 4), dtype=torch.int8))
        self.fc_b = nn.Parameter(torch.zeros(4))

    def forward(self, x):
        q = _qd()
        x = q.dequantize_per_tensor.default(
            q.quantize_per_tensor.default(x, 0.05, 0, -128, 127, torch.int8),
            0.05, 0, -128, 127, torch.int8)
        w = q.dequantize_per_channel.default(self.conv_w, self.conv_scale, self.conv_zp, 0,
                                             -127, 127, torch.int8)
        y = torch.nn.functional.conv2d(x, w, self.conv_b, padding=1).relu()
        y = q.dequantize_per_tensor.default(
            q.quantize_per_tensor.default(y, 0.1, -128, -128, 127, torch.int8),
            0.1, -128, -128, 127, torch.int8)
        y = y.mean((2, 3))
        fw = q.dequantize_per_tensor.default(self.fc_w, 0.01, 0, -127, 127, torch.int8)
        return torch.nn.functional.linear(y, fw, self.fc_b)


class _QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([_QConvBlock(), _QConvBlock()])

    def forward(self, x):
        a = self.blocks[0](x)
        b = self.blocks[1](x * 0.5)
        return a + b


@scenario("issue 25: a pt2e-quantized program (quantize/dequantize_per_tensor, per-channel "
          "weights)", preserve=((), ("blocks.0", "blocks.1")))
def pt2e_qdq():
    """the quantized_decomposed Q/DQ pattern convert_pt2e produces, in two
    repeated blocks (preserved signatures on both)"""
    return _QNet(), (torch.randn(1, 4, 6, 6),), {}


class _Expert(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up = nn.Linear(d, 2 * d, bias=False)
        self.down = nn.Linear(2 * d, d, bias=False)

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.up(x)))


class _MoE(nn.Module):
    """top-2 routing over 4 experts, computed densely (every expert runs,
    the gates zero the ones a token was not routed to), as export-friendly
    MoE layers do"""
    def __init__(self, d, n=4, k=2):
        super().__init__()
        self.router = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList([_Expert(d) for _ in range(n)])
        self.k = k

    def forward(self, x):
        logits = self.router(x)
        w, idx = torch.topk(logits.softmax(-1), self.k, dim=-1)
        gates = torch.zeros_like(logits).scatter(-1, idx, w / w.sum(-1, keepdim=True))
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            out = out + gates[..., e:e + 1] * expert(x)
        return out


class _CachedAttention(nn.Module):
    """attention over a static KV cache: the new keys and values are
    written into cache buffers at cache_position (index_copy_)"""
    def __init__(self, d, heads=2, max_len=8):
        super().__init__()
        self.h = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, heads, max_len, d // heads))
        self.register_buffer("v_cache", torch.zeros(1, heads, max_len, d // heads))

    def forward(self, x, pos):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        a = torch.nn.functional.scaled_dot_product_attention(q, self.k_cache, self.v_cache)
        return self.o(a.transpose(1, 2).reshape(b, t, d))


class _DecoderLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm1 = nn.RMSNorm(d)
        self.attn = _CachedAttention(d)
        self.norm2 = nn.RMSNorm(d)
        self.moe = _MoE(d)

    def forward(self, x, pos):
        x = x + self.attn(self.norm1(x), pos)
        return x + self.moe(self.norm2(x))


class _MoEDecoder(nn.Module):
    def __init__(self, vocab=32, d=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([_DecoderLayer(d) for _ in range(layers)])
        self.norm = nn.RMSNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, ids, cache_position):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, cache_position)
        return self.lm_head(self.norm(x))


@scenario("issue 25: a decoder LM with MoE routing and a static KV cache (tied head)",
          preserve=((), ("layers.0", "layers.1")), functional=True)
def moe_decoder_static_cache():
    """two decoder layers, each a cached attention (buffers written with
    index_copy_) and a top-2 MoE of four experts; the decode step of one
    token at cache_position 3"""
    return _MoEDecoder(), (torch.tensor([[5]]), torch.tensor([3])), {}


class _WindowAttention(nn.Module):
    """Swin's: attention inside 2x2 windows with a relative position bias
    table, the windows shifted by torch.roll on odd blocks"""
    def __init__(self, d, win=2, heads=2, shift=0):
        super().__init__()
        self.win, self.h, self.shift = win, heads, shift
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.bias_table = nn.Parameter(torch.zeros((2 * win - 1) ** 2, heads))
        c = torch.stack(torch.meshgrid(torch.arange(win), torch.arange(win), indexing="ij")).flatten(1)
        rel = (c[:, :, None] - c[:, None, :]).permute(1, 2, 0) + win - 1
        self.register_buffer("rel_index", rel[..., 0] * (2 * win - 1) + rel[..., 1], persistent=False)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        b, hh, ww, d = x.shape
        w = self.win
        y = self.norm(x)
        if self.shift:
            y = torch.roll(y, (-self.shift, -self.shift), (1, 2))
        y = y.view(b, hh // w, w, ww // w, w, d).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, d)
        q, k, v = self.qkv(y).view(y.shape[0], w * w, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        bias = self.bias_table[self.rel_index.view(-1)].view(w * w, w * w, -1).permute(2, 0, 1)
        att = ((q @ k.transpose(-2, -1)) * (d // self.h) ** -0.5 + bias).softmax(-1)
        y = self.proj((att @ v).transpose(1, 2).reshape(-1, w * w, d))
        y = y.view(b, hh // w, ww // w, w, w, d).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, d)
        if self.shift:
            y = torch.roll(y, (self.shift, self.shift), (1, 2))
        return x + y


class _WindowViT(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 2, 2)
        self.blocks = nn.Sequential(_WindowAttention(d), _WindowAttention(d, shift=1))
        self.head = nn.Linear(d, 5)

    def forward(self, img):
        x = self.patch(img).permute(0, 2, 3, 1)
        return self.head(self.blocks(x).mean((1, 2)))


@scenario("issue 25: a windowed vision transformer (Swin-style shifted windows)",
          preserve=((), ("blocks.1",)))
def window_vit():
    """patches, two window-attention blocks (the second shifted with
    torch.roll), relative position bias gathered from a table"""
    return _WindowViT(), (torch.randn(1, 3, 8, 8),), {}


class _AudioEncoder(nn.Module):
    """Whisper/wav2vec-style: two conv1d over log-mel frames, the time dim
    halved, positions added, a transformer encoder layer"""
    def __init__(self, mels=8, d=16):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.pos = nn.Parameter(torch.randn(64, d) * 0.02)
        self.layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.ln = nn.LayerNorm(d)

    def forward(self, mel):
        x = torch.nn.functional.gelu(self.conv1(mel))
        x = torch.nn.functional.gelu(self.conv2(x)).transpose(1, 2)
        x = x + self.pos[: x.shape[1]]
        return self.ln(self.layer(x))


@scenario("issue 25: an audio encoder with a dynamic number of frames",
          dynamic={"mel": {2: torch.export.Dim("frames2", min=4, max=64) * 2}})
def audio_encoder():
    """conv1d stem (stride 2), positions sliced to the frames, a
    TransformerEncoderLayer; the frame count dynamic (an even number)"""
    return _AudioEncoder(), (torch.randn(1, 8, 16),), {}


class _VisionTower(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, 4)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        return self.layer(torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1))


class _Multimodal(nn.Module):
    """LLaVA-style: a vision tower, a projector into the text width, the
    image tokens put before the text embeddings, a text decoder layer"""
    def __init__(self, d=16, vocab=32):
        super().__init__()
        self.vision = _VisionTower(d)
        self.projector = nn.Sequential(nn.Linear(d, 24), nn.GELU(), nn.Linear(24, 24))
        self.embed = nn.Embedding(vocab, 24)
        self.text = nn.TransformerEncoderLayer(24, 2, 48, dropout=0.0, batch_first=True)
        self.lm_head = nn.Linear(24, vocab)

    def forward(self, ids, pixels):
        img = self.projector(self.vision(pixels))
        x = torch.cat([img, self.embed(ids)], 1)
        return self.lm_head(self.text(x, is_causal=False))


@scenario("issue 25: a multimodal tower (vision tower, projector, text decoder)",
          preserve=((), ("vision",)))
def multimodal_tower():
    """image tokens from a ViT tower projected and concatenated with the
    text embeddings"""
    return _Multimodal(), (torch.tensor([[1, 2, 3]]), torch.randn(1, 3, 8, 8)), {}
