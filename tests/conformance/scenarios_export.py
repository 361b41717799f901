"""scenarios_export.py - the test_export.py tests that call unflatten
(docs/unflatten-notes.md §1.B), registered into scenarios.REGISTRY.

test_export.py's own export defaults to non-strict and every test is re-run
strict (the _strict suffix), so both modes run unless upstream pins
strict=False. Where upstream calls .run_decompositions() after export, so does
the scenario (post=decompose).
"""
import types

import torch
import torch.nn as nn

from scenarios import decompose, scenario

# =====================================================================
# 1.B.1 basic nesting, hierarchy, inlining, nn_module_stack shapes
# =====================================================================


class _NMM1(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        if kind == "init_buffer":
            self.b = torch.ones(3, 3)
        elif kind == "constant_buffer":
            self.b = torch.tensor(5)
        elif kind == "parameter":
            self.a = nn.Parameter(torch.ones(3, 3))
            self.b = nn.Parameter(torch.tensor(5.0))

    def forward(self, x):
        if self.kind == "plain":
            return x + x
        if self.kind == "parameter":
            return x + self.a * self.b
        return x + self.b


class _NMM2(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, x):
        m = _NMM1(self.kind)  # built inside forward: no submodule fqn
        return m(x) * x


@scenario("test_export.py::test_nested_module")
def nested_module():
    """a module constructed inside forward: its ops carry the root's stack only"""
    return _NMM2("plain"), (torch.randn(3, 3),), {}


@scenario("test_export.py::test_nested_module_with_init_buffer")
def nested_module_with_init_buffer():
    """in-forward module with a plain tensor attr: becomes aten.ones"""
    return _NMM2("init_buffer"), (torch.randn(3, 3),), {}


@scenario("test_export.py::test_nested_module_with_constant_buffer", post=decompose)
def nested_module_with_constant_buffer():
    """in-forward module with torch.tensor(5): a lifted constant of the root"""
    return _NMM2("constant_buffer"), (torch.randn(3, 3),), {}


@scenario("test_export.py::test_nested_module_with_parameter", strict=(False,), post=decompose)
def nested_module_with_parameter():
    """in-forward module with Parameters (non-strict only: strict segfaulted upstream)"""
    return _NMM2("parameter"), (torch.randn(3, 3),), {}


class _NMSLeaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return self.linear(x)


class _NMSBar(nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = _NMSLeaf()
        self.register_buffer("buffer", torch.randn(4, 4))

    def forward(self, x):
        return self.buffer.sum() + self.leaf(x).sum()


class _NMSFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.bar = _NMSBar()

    def forward(self, x):
        y = self.bar.buffer + x
        return (self.bar(x) + y.sum(),)


@scenario("test_export.py::test_nn_module_stack", post=decompose)
def nn_module_stack():
    """bar > bar.leaf > bar.leaf.linear; root reads bar's buffer directly"""
    return _NMSFoo(), (torch.randn(4, 4),), {}


class _ClDummy(nn.Module):
    def forward(self, fn, x):
        y = x + 2
        z = fn(y)
        return z + 4


class _ClN(nn.Module):
    def forward(self, x):
        return x + 3


class _Closure(nn.Module):
    def __init__(self):
        super().__init__()
        self.dummy = _ClDummy()
        self.n = _ClN()

    def forward(self, x):
        y = x + 1
        z = self.dummy(lambda k: self.n(y + k) + y, y)
        return z + 5


@scenario("test_export.py::test_unflatten_closure")
def unflatten_closure():
    """n called from inside dummy through a closure: n inlined into dummy"""
    return _Closure(), (torch.randn(3),), {}


class _Blk(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.to_out = nn.ModuleList([nn.Linear(i, o, bias=True), nn.Dropout(0.5)])

    def forward(self, x):
        for b in self.to_out:
            x = b(x)
        return x


class _Pb1(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleDict({f"{i}": _Blk(2, 2) for i in range(4)})  # upstream: 5 of 64x64

    def forward(self, x):
        for _, m in self.blocks.items():
            x = m(x)
        return x


class _Pb2(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([_Blk(2, 2) for _ in range(4)])  # upstream: 5 of 64x64

    def forward(self, x):
        x = self.blocks[0](x)
        for m in self.blocks[1:4]:
            x = m(x)
        return x


def _split_after_forward(self, *args, **kwargs):
    return self._orig_forward(*args, **kwargs)


def _annotate_split_points(mod, names):
    for name in names:
        sub = mod.get_submodule(name)
        sub._orig_forward = sub.forward
        sub.forward = types.MethodType(_split_after_forward, sub)
    return mod


@scenario("test_export.py::test_malformed_fqn_from_source_name (Problem1)")
def malformed_fqn_problem1():
    """ModuleDict iterated with .items(); blocks.1/.3 forwards monkeypatched"""
    m = _annotate_split_points(_Pb1(), ["blocks.1", "blocks.3"])
    return m, (torch.rand(2, 2),), {}


@scenario("test_export.py::test_malformed_fqn_from_source_name (Problem2)")
def malformed_fqn_problem2():
    """ModuleList sliced (blocks[1:4]): slice(...) segments in stack fqns"""
    m = _annotate_split_points(_Pb2(), ["blocks.1", "blocks.3"])
    return m, (torch.rand(2, 2),), {}


@scenario("test_export.py::test_shared_submodule_nn_module_stack (related, no unflatten upstream)")
def shared_submodule_nn_module_stack():
    """one LayerNorm at sub_net.0 and sub_net.2: two stack fqns for one module object"""
    from scenarios import _SharedSubmodule
    return _SharedSubmodule(), (torch.rand(10),), {}


class _SliceN(nn.Module):
    def forward(self, x):
        return x + 1


class _SliceStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _SliceN()
        self.mod_list_1 = nn.Sequential(*(self.n for _ in range(5)))
        self.mod_list_2 = nn.ModuleList(self.n for _ in range(5))

    def forward(self, x):
        for m in self.mod_list_1[2:3]:
            x = m(x)
        for m in self.mod_list_2[4:5]:
            x = m(x)
        return x


@scenario("test_export.py::test_slice_nn_module_stack (related, no unflatten upstream)")
def slice_nn_module_stack():
    """one module under many fqns, called through slices of a Sequential and a ModuleList"""
    return _SliceStack(), (torch.randn(2, 3),), {}


# ---- random DAGs (representative: skip-level calls) ------------------------

def _dag_classes(calls, bufs=False, consts=False, mutate=None, reads=None):
    """N0..Nk chain (Ni.n{i+1}); calls[i] = paths (relative, e.g. "n2.n3")
    Ni calls with x + 1 around; reads[i] = attribute paths of buffers/consts
    added to x first; mutate[i] = buffer paths add_(1)-ed after the calls."""
    k = len(calls)
    classes = []
    for i in range(k):
        def init(self, i=i):
            nn.Module.__init__(self)
            if bufs:
                self.register_buffer("buf", torch.ones(1))
            if consts:
                self.const = torch.ones(1)
            if i + 1 < k:
                setattr(self, f"n{i + 1}", classes[i + 1]())

        def forward(self, x, i=i):
            for p in (reads or {}).get(i, ()):
                x = x + _getattr_path(self, p)
            for p in calls[i]:
                x = self.get_submodule(p)(x + 1)
            for p in (mutate or {}).get(i, ()):
                _getattr_path(self, p).add_(1)
            return x + 1

        classes.append(type(f"N{i}", (nn.Module,), {"__init__": init, "forward": forward}))
    return classes[0]


def _getattr_path(mod, path):
    for a in path.split("."):
        mod = getattr(mod, a)
    return mod


@scenario("test_export.py::test_unflatten_random_dag_5")
def random_dag_5():
    """dag {0:[1,2,3],1:[2,4],2:[4]}: skip-level calls, one module called from 3 parents"""
    N0 = _dag_classes({0: ["n1", "n1.n2", "n1.n2.n3"], 1: ["n2", "n2.n3.n4"],
                       2: ["n3.n4"], 3: [], 4: []})
    return N0(), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_random_dag_mutating_buf_4", functional=True)
def random_dag_mutating_buf_4():
    """buffers read and add_-ed across module boundaries (ivals), skip-level calls"""
    N0 = _dag_classes({0: ["n1", "n1.n2", "n1.n2.n3"], 1: ["n2", "n2.n3"], 2: [], 3: []},
                      bufs=True,
                      reads={0: ["n1.buf", "n1.n2.n3.buf"], 1: ["n2.n3.buf"]},
                      mutate={0: ["n1.buf", "n1.n2.buf"], 1: ["n2.n3.buf"]})
    return N0(), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_random_dag_mutating_buf_preserving_4",
          preserve=(("n1", "n1.n2", "n1.n2.n3"),), functional=True)
def random_dag_mutating_buf_preserving_4():
    """preserved chain; a mutated buffer's intermediate read in another module (_IVals.read)"""
    N0 = _dag_classes({0: ["n1.n2", "n1.n2.n3"], 1: ["n2"], 2: ["n3"], 3: []},
                      bufs=True,
                      reads={0: ["n1.n2.buf", "n1.n2.n3.buf"], 1: ["n2.buf"], 2: ["n3.buf"]},
                      mutate={1: ["n2.n3.buf"], 2: ["n3.buf"]})
    return N0(), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_random_dag_const_preserving_3",
          preserve=(("n1", "n1.n2"),))
def random_dag_const_preserving_3():
    """plain tensor attrs (lifted constants) read by ancestors; n1, n1.n2 preserved"""
    N0 = _dag_classes({0: ["n1", "n1.n2"], 1: ["n2"], 2: []}, consts=True,
                      reads={0: ["n1.n2.const"], 1: ["n2.const"]})
    return N0(), (torch.ones(1),), {}


# =====================================================================
# 1.B.2 repeated calls, @N, the dispatcher
# =====================================================================

class _IsN(nn.Module):
    def forward(self, x, b):
        if b:
            return x + 1
        return x + 2


class _IsM(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _IsN()

    def forward(self, x):
        return self.n(x + 1, True) + self.n(x + 1, False)


@scenario("test_export.py::test_unflatten_isinstance", preserve=(("n",),))
def unflatten_isinstance():
    """n called twice with different constant args: two graphs, a dispatcher at n"""
    return _IsM(), (torch.zeros(4),), {}


class _MGDispatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _IsN()

    def forward(self, x):
        x = x + 3
        x = self.n(x, True)
        x = x + 4
        x = self.n(x, True)
        x = x + 5
        x = self.n(x, False)
        x = x + 6
        return x


@scenario("test_export.py::test_unflatten_multiple_graphs_dispatch", preserve=(("n",),))
def multiple_graphs_dispatch():
    """three calls of n, calls 1 and 2 identical (n@1 redirected to n), call 3 differs"""
    return _MGDispatch(), (torch.ones(1),), {}


class _MGNoError(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _IsN()

    def forward(self, x):
        x = x + 3
        x = self.n(x, True)
        x = x + 4
        x = self.n(x, False)
        return x + 5


@scenario("test_export.py::test_unflatten_multiple_graphs_preserve_signature_no_error",
          preserve=((), ("n",)))
def multiple_graphs_preserve_signature_no_error():
    """two different graphs for one preserved fqn (dispatcher); and without preservation"""
    return _MGNoError(), (torch.ones(1),), {}


class _SpecM(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _IsN()

    def forward(self, x):
        x0 = x + 3
        x1 = self.n(x0, True)
        return x1 + 4


@scenario("test_export.py::test_preserve_module_call_signature_unflatten_specialization",
          preserve=(("n",),))
def preserve_signature_specialization():
    """preserved n called once with a constant True (ConstantArgument input)"""
    return _SpecM(), (torch.ones(1),), {}


class _NUN(nn.Module):
    def __init__(self):
        super().__init__()
        self.const = torch.ones(1) * 4
        self.register_buffer("buf", torch.ones(1) * 4)

    def forward(self, x, b):
        if b:
            return x + self.const + 1
        return x + 2 * (self.buf + 1) - self.const


class _NUK(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _NUN()

    def forward(self, x0):
        return self.n(x0, True)


class _NUP(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _NUN()

    def forward(self, x):
        x0 = x + 3
        x1 = self.n(x0, True)
        x2 = self.n(x0, False)
        return x1 + x2


class _NUQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = _NUK()

    def forward(self, x):
        x0 = x + 3
        x1 = self.k.n(x0, True)
        x2 = self.k.n(x0, False)
        return x1 + x2


class _NUR(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = _NUK()

    def forward(self, x):
        x0 = x + 3
        x1 = self.k(x0)
        x2 = self.k.n(x0, False)
        return x1 + x2


@scenario("test_export.py::test_unflatten_no_unroll (P)", preserve=((), ("n",)))
def no_unroll_p():
    """n called twice, different graphs: n and n@1 (or a dispatcher when preserved); const + buffer"""
    return _NUP(), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_no_unroll (Q)", preserve=((), ("k.n",)))
def no_unroll_q():
    """k.n called twice from the root, k never called: k.n and k.n@1"""
    return _NUQ(), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_no_unroll (R)", preserve=((), ("k.n",)))
def no_unroll_r():
    """k.n called once via k and once directly from the root"""
    return _NUR(), (torch.ones(1),), {}


class _MGSN(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(1), persistent=False)

    def forward(self, x, b):
        if b:
            self.buf.add_(1)
        else:
            self.buf.add_(2)
        return x + self.buf


class _MGSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _MGSN()

    def forward(self, x):
        x = self.n(x, True)
        x = x + 1
        x = self.n(x, False)
        x = x + 1
        x = self.n(x, True)
        x = x + 1
        x = self.n(x, False)
        return x


@scenario("test_export.py::test_unflatten_multiple_graphs_state", preserve=((), ("n",)),
          post=decompose)
def multiple_graphs_state():
    """4 alternating calls mutating a non-persistent buffer (n@2~n, n@3~n@1)"""
    return _MGSM(), (torch.ones(1),), {}


# =====================================================================
# 1.B.3 shared / aliased modules, params, constants; dedup
# =====================================================================

class _BarD(nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = _NMSLeaf()

    def forward(self, x):
        a = self.leaf(x).sum()
        b = self.leaf(x).sum()
        return a + b


class _SFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.bar = _NMSBar()
        self.bar_different = _BarD()

    def forward(self, x):
        y = self.bar.buffer + x
        return (self.bar(x) + self.bar_different(x + 2), y.sum())


@scenario("test_export.py::test_nn_module_stack_shared_submodule")
def nn_module_stack_shared_submodule():
    """bar_different.leaf called twice with identical graphs (leaf@1 deduplicated)"""
    return _SFoo(), (torch.randn(4, 4),), {}


def _gen_shared_m(n, n_1, p, p_1):
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.n = _IsN()
            self.p = self.n

        def forward(self, x):
            x = x + 3
            x = self.n(x, n)
            x = x + 4
            x = self.n(x, n_1)
            x = x + 5
            x = self.p(x, p)
            x = x + 6
            x = self.p(x, p_1)
            return x + 7
    return M()


@scenario("test_export.py::test_unflatten_multiple_graphs_shared_submodule (case 1)",
          preserve=((), ("n", "p")))
def multiple_graphs_shared_submodule_1():
    """n is p; p shares n@1's graph, p@1 optimized away"""
    return _gen_shared_m(True, False, False, False), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_multiple_graphs_shared_submodule (case 2)",
          preserve=((), ("n", "p")))
def multiple_graphs_shared_submodule_2():
    """n is p; p reuses n's graph, p@1 reuses n@1's"""
    return _gen_shared_m(True, False, True, False), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_multiple_graphs_shared_submodule (case 3)",
          preserve=((), ("n", "p")))
def multiple_graphs_shared_submodule_3():
    """n is p; n@1 optimized away, p reuses n's graph"""
    return _gen_shared_m(True, True, True, False), (torch.ones(1),), {}


@scenario("test_export.py::test_unflatten_multiple_graphs_shared_submodule (case 4)",
          preserve=((), ("n", "p")))
def multiple_graphs_shared_submodule_4():
    """n is p; p reuses n@1's graph, p@1 reuses n's"""
    return _gen_shared_m(True, False, False, True), (torch.ones(1),), {}


class _CAM2(nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = torch.ones(3, 3, requires_grad=True)

    def forward(self, x):
        return x + self.foo


class _CAM1(nn.Module):
    def __init__(self, m2, foo):
        super().__init__()
        self.m2 = m2
        self.foo = foo

    def forward(self, x):
        return x + self.foo + self.m2(x)


@scenario("test_export.py::test_constant_aliasing", strict=(False,))
def constant_aliasing():
    """one constant tensor at foo and m2.foo"""
    m2 = _CAM2()
    return _CAM1(m2, m2.foo), (torch.ones(3, 3),), {}


class _UnusedAliases(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.randn(4))
        self.beta = self.alpha
        self.gamma = self.alpha

    def forward(self, x):
        return x + self.gamma


@scenario("test_export.py::test_unused_aliases")
def unused_aliases():
    """one Parameter at alpha, beta, gamma; only gamma used"""
    return _UnusedAliases(), (torch.randn(4),), {}


class _SDLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(2, 2)
        self.linear2 = nn.Linear(2, 2)

    def forward(self, x):
        return self.linear2(torch.relu(self.linear1(x)))


class _SDCustom(nn.Module):
    def __init__(self):
        super().__init__()
        self._register_state_dict_hook(self._post_hook)
        self.register_state_dict_pre_hook(self._pre_hook)
        self.foo = nn.Buffer(torch.rand(2, 3), persistent=False)
        self.register_buffer("buf", None, persistent=False)
        self.layer = _SDLayer()

    @staticmethod
    def _post_hook(module, state_dict, prefix, *args, **kwargs):
        for k in list(state_dict):
            if k.startswith("layer."):
                state_dict[k[len("layer."):]] = state_dict.pop(k)

    @staticmethod
    def _pre_hook(module, prefix, keep_vars):
        if not hasattr(module, "test"):
            module.register_buffer("test", torch.ones(1), persistent=False)

    def forward(self, x):
        return self.layer(x)


@scenario("test_export.py::test_export_for_training_with_state_dict_hooks")
def state_dict_hooks():
    """state_dict hooks rename keys; a non-persistent buffer and a None buffer"""
    return _SDCustom(), (torch.randn(2, 2),), {}
