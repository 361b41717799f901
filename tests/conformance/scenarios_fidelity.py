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
