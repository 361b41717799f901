"""scenarios_export_state.py - test_export.py's unflatten tests of 1.B.4-1.B.7
(mutation and ivals, preserved signatures, symints/asserts, HOPs) in
docs/unflatten-notes.md, registered into scenarios.REGISTRY.

As in scenarios_export.py: both export modes unless upstream pins
strict=False; no .run_decompositions().
"""
import torch
import torch.nn as nn

from scenarios import scenario


# =====================================================================
# 1.B.4 buffer and user-input mutation, ivals, swapping
# =====================================================================

class _BUChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = nn.Buffer(torch.tensor(10))

    def forward(self, x):
        self.buf.add_(1)
        return x + 2


class _BUFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _BUChild()

    def forward(self, x):
        y = self.child(x)
        x = y + self.child.buf
        y = self.child(x)
        x = y + self.child.buf
        y = self.child(x)
        return y + self.child.buf


@scenario("test_export.py::test_unflatten_buffer_update_child2parent_swap",
          strict=(False,), preserve=(("child",),), functional=True)
def buffer_update_child2parent_swap():
    """preserved child called 3x mutates its buffer; the parent reads it between calls"""
    return _BUFoo(), (torch.ones(2, 3),), {}


class _PUChild(nn.Module):
    def forward(self, x):
        torch.ops.aten.dropout_(x, 0.5, False)
        return x - 2


class _PUFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _PUChild()

    def forward(self, x):
        f1 = self.child(x)
        f2 = x * 4
        return f1 + f2


@scenario("test_export.py::test_unflatten_placeholder_update_child2parent_swap",
          strict=(False,), preserve=(("child",),), functional=True)
def placeholder_update_child2parent_swap():
    """in-place op on the user input inside a preserved child"""
    return _PUFoo(), (torch.ones(3, 10),), {}


class _GCGrandchild(nn.Module):
    def forward(self, x):
        a = x.to(torch.float32)
        return x + 4, a


class _GCChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.grandchild = _GCGrandchild()

    def forward(self, x):
        y, a = self.grandchild(x)
        return y + a


class _GCOtherGrandchild(nn.Module):
    def forward(self, x):
        return x * 2


class _GCOtherChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.other_grandchild = _GCOtherGrandchild()

    def forward(self, x):
        return x + self.other_grandchild(x)


class _GCFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _GCChild()
        self.other_child = _GCOtherChild()

    def forward(self, x):
        return self.child(x) + self.other_child(x)


@scenario("test_export.py::test_unflatten_placeholder_update_grandchild2cousin_swap",
          strict=(False,), preserve=(("child",),), functional=True)
def placeholder_update_grandchild2cousin_swap():
    """an aliasing .to in a grandchild of a preserved child; a cousin subtree"""
    return _GCFoo(), (torch.ones(2, 3),), {}


class _PPChild(nn.Module):
    def forward(self, x):
        a = x.add_(3)
        return a - 2


class _PPFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _PPChild()

    def forward(self, x):
        f1 = self.child(x)
        f2 = x * 4
        return f1 + f2


@scenario("test_export.py::test_placeholder_update_preserving (ep.module() only upstream)",
          preserve=((), ("child",)), functional=True)
def placeholder_update_preserving():
    """a child add_-s the user input; the parent reads the mutated input"""
    return _PPFoo(), (torch.ones(2, 3),), {}


# =====================================================================
# 1.B.5 preserved signatures and pytree specs
# =====================================================================

class _ATBar(nn.Module):
    def forward(self, x):
        return x.sum()


class _ATFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.bar = _ATBar()

    def forward(self, x):
        to = x.to(torch.float)
        return self.bar(to).sum()


@scenario("test_export.py::test_export_aten_to_unflatten", strict=(False,),
          preserve=(("bar",),))
def aten_to_unflatten():
    """an aliasing .to result passed into preserved bar"""
    return _ATFoo(), (torch.ones(4, 4),), {}


class _ATSubFoo(nn.Module):
    def __init__(self):
        super().__init__()
        from torch.testing._internal.two_tensor import TwoTensor
        self.param = nn.Parameter(TwoTensor(torch.ones(4, 4), torch.ones(4, 4)))
        self.bar = _ATBar()

    def forward(self, x):
        to = self.param.to(torch.float)
        return (self.bar(to).sum() + x.sum()).get_elem_a()


@scenario("test_export.py::test_export_aten_to_unflatten_subclass_pre_dispatch",
          strict=(False,), preserve=(("bar",),))
def aten_to_unflatten_subclass():
    """a TwoTensor subclass parameter, .to passed into preserved bar"""
    return _ATSubFoo(), (torch.ones(4, 4),), {}


# =====================================================================
# 1.B.6 symints / dynamic shapes / runtime asserts
# =====================================================================

class _UAM1(nn.Module):
    def forward(self, x, y):
        b = x.item()
        torch._check_is_size(b)
        torch._check(b < y.size(0))
        return y[:b]


class _UAM3(nn.Module):
    def forward(self, x, y):
        b = x.item()
        torch._check_is_size(b)
        torch._check(b < y.size(0) * 2)
        return y[:b]


class _UAM2(nn.Module):
    def __init__(self):
        super().__init__()
        self.m1 = _UAM1()
        self.m3 = _UAM3()

    def forward(self, x, y):
        return self.m1(x, y) + self.m3(x, y)


@scenario("test_export.py::test_unflatten_asserts", strict=(False,),
          dynamic={"x": None, "y": (torch.export.Dim("moo"),)})
def unflatten_asserts():
    """unbacked item() symints and runtime asserts inside two children"""
    return _UAM2(), (torch.tensor(3), torch.randn(10)), {}


# =====================================================================
# 1.B.7 higher-order ops with get_attr subgraphs
# =====================================================================

class _CondM1(nn.Module):
    def forward(self, p, a, b):
        def true_fn(x, y):
            return x + y

        def false_fn(x, y):
            return x - y

        return torch.cond(p, true_fn, false_fn, [a, b])


class _CondM(nn.Module):
    def __init__(self):
        super().__init__()
        self.m1 = _CondM1()

    def forward(self, p, a, b):
        return self.m1(p, a, b)


@scenario("test_export.py::test_cond_unflatten")
def cond_unflatten():
    """torch.cond in m1: true_graph_0/false_graph_0 get_attrs outlined into m1"""
    return _CondM(), (torch.tensor(False), torch.ones(3, 3), torch.ones(3, 3)), {}


class _SGM1(nn.Module):
    def forward(self, a, b):
        with torch.no_grad():
            return a + b


class _SGM(nn.Module):
    def __init__(self):
        super().__init__()
        self.m1 = _SGM1()

    def forward(self, a, b):
        return self.m1(a, b)


@scenario("test_export.py::test_set_grad_unflatten")
def set_grad_unflatten():
    """torch.no_grad in m1: wrap_with_set_grad_enabled (or _set_grad_enabled) in m1"""
    return _SGM(), (torch.ones(3, 3), torch.ones(3, 3)), {}


class _CMSBar(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        def true_fn(x):
            return self.linear(x).cos()

        def false_fn(x):
            return self.linear(x).sin()

        return torch.cond(x.shape[0] > 4, true_fn, false_fn, [x])


class _CMSCondExport(nn.Module):
    def __init__(self):
        super().__init__()
        self.bar = _CMSBar()

    def forward(self, x):
        return x.cos() + self.bar(x)


@scenario("test_export.py::test_cond_with_module_stack_export_with_unflatten (expectedFailure)",
          strict=(False,))
def cond_with_module_stack():
    """cond branches use bar.linear's params (passed as cond operands)"""
    return _CMSCondExport(), (torch.randn(6, 4),), {}


@scenario("test_export.py::test_cond_with_module_stack_export_with_unflatten (dynamic)",
          strict=(False,), dynamic={"x": {0: torch.export.Dim("b", min=2)}})
def cond_with_module_stack_dynamic():
    """same, with a dynamic batch so the predicate stays symbolic"""
    return _CMSCondExport(), (torch.randn(6, 4),), {}


class _MapBody(nn.Module):
    def forward(self, xs, y):
        from torch._higher_order_ops.map import map as hop_map

        def body(x, y):
            return x * y + 1

        return hop_map(body, xs, y)


class _MapRoot(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = _MapBody()

    def forward(self, xs, y):
        return self.m(xs, y).sum(0)


@scenario("extra: torch._higher_order_ops.map inside a submodule (no upstream test)")
def map_unflatten():
    """map HOP in m: body_graph_0 get_attr outlined into m"""
    return _MapRoot(), (torch.randn(3, 4), torch.randn(4)), {}
