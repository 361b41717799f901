"""scenarios.py - PyTorch's unflatten scenarios as small modules of our own.

One function per scenario catalogued in docs/unflatten-notes.md §1
(test/export/test_unflatten.py and the test_export.py tests that call
unflatten). Each returns (module, args, kwargs) and is registered with the
ways upstream's test exports it:

  strict    the export modes to run: (True,), (False,) or (True, False)
  preserve  the preserve_module_call_signature tuples to run, () = none
  dynamic   dynamic_shapes for export, or None

A variant is named SCENARIO__strict / SCENARIO__nonstrict, with
__preserve (the first non-empty tuple) or __preserveN appended.
"""
import torch
import torch.nn as nn

REGISTRY = []


def scenario(upstream, strict=(True, False), preserve=((),), dynamic=None, post=None,
             functional=False):
    """functional=True adds a variant of each (name __functional) exported
    then ep.run_decompositions(): the functional IR, where buffer and input
    mutations are outputs that unflatten copies back (_IVals, copy_)."""
    def deco(fn):
        REGISTRY.append({"name": fn.__name__, "make": fn, "upstream": upstream,
                         "strict": strict, "preserve": preserve, "dynamic": dynamic,
                         "post": post, "functional": functional})
        return fn
    return deco


def decompose(ep):
    """post= for the tests that export then call ep.run_decompositions()"""
    return ep.run_decompositions()



def variants():
    """(variant name, scenario dict, strict, preserve tuple, post) for every
    variant."""
    for s in REGISTRY:
        for st in s["strict"]:
            npres = [p for p in s["preserve"] if p]
            for p in s["preserve"]:
                name = s["name"] + ("__strict" if st else "__nonstrict")
                if p:
                    i = npres.index(p)
                    name += "__preserve" + (str(i + 1) if i else "")
                yield name, s, st, tuple(p), s["post"]
                if s["functional"]:
                    yield name + "__functional", s, st, tuple(p), decompose


# =====================================================================
# 1.A  test/export/test_unflatten.py
# (upstream exports with strict=True unless the notes say otherwise;
# "default export" tests run both modes: the file's own default is
# non-strict and test_unflatten_training_ir.py re-runs it strict)
# =====================================================================

# ---- basic nesting / hierarchy --------------------------------------------

class _NestedChild(nn.Module):
    def forward(self, x):
        return x / x


class _Child1(nn.Module):
    def __init__(self):
        super().__init__()
        self.nested = _NestedChild()
        self.child1param = nn.Parameter(torch.ones(2, 3))

    def forward(self, x):
        x = self.nested(x)
        return x + self.child1param


class _Child2(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("child2buffer", torch.ones(2, 3))

    def forward(self, x):
        return x - self.child2buffer


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = _Child1()
        self.bar = _Child2()
        self.rootparam = nn.Parameter(torch.ones(2, 3))

    def forward(self, x):
        x = x * self.rootparam
        x = self.foo(x)
        x = self.bar(x)
        return x


@scenario("test_unflatten.py::test_unflatten_nested",
          preserve=((), ("foo", "bar", "foo.nested")))
def nested():
    """three-level tree (foo > foo.nested, bar), a param per level, a buffer"""
    return MyModule(), (torch.rand(2, 3),), {}


class _NABufChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("child2buffer", torch.ones(2, 3))

    def forward(self, x):
        return x - self.child2buffer


class _NestedAccess(nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = _NABufChild()
        self.rootparam = nn.Parameter(torch.ones(2, 3))  # unused

    def forward(self, x):
        x = x + self.foo.child2buffer
        return self.foo(x)


@scenario("test_unflatten.py::test_unflatten_nested_access", strict=(True,))
def nested_access():
    """root reads a child's buffer outside the child's call; unused root param"""
    return _NestedAccess(), (torch.rand(2, 3),), {}


class _SubSubMod(nn.Module):
    def forward(self, x):
        return x * x


class _DNSubMod(nn.Module):
    def __init__(self):
        super().__init__()
        self.subsubmod = _SubSubMod()

    def forward(self, x):
        return x - x  # never called


class _DoubleNested(nn.Module):
    def __init__(self):
        super().__init__()
        self.submod = _DNSubMod()

    def forward(self, x):
        return x + self.submod.subsubmod(x)


@scenario("test_unflatten.py::test_double_nested_submodule", strict=(True,))
def double_nested_submodule():
    """grandchild called directly: stack [root, submod.subsubmod], submod created empty"""
    return _DoubleNested(), (torch.rand(2, 3),), {}


class _CTLeaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return self.linear(x)


class _CTBar(nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = _CTLeaf()
        self.register_buffer("buffer", torch.randn(4, 4))

    def forward(self, x, z):
        return self.buffer.sum() + self.leaf(x).sum() + z[0].sum() + z[1].sum()


class _CTFoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.bar = _CTBar()

    def forward(self, x, z):
        y = self.bar.buffer + x + z[0] + z[1]
        return self.bar(x, z) + y.sum()


def _ct_inputs():
    return (torch.randn(4, 4), [torch.randn(4, 4), torch.randn(4, 4)])


@scenario("test_unflatten.py::test_unflatten_container_type")
def container_type():
    """list input flattened into a child's call; Linear leaf; root reads child buffer"""
    return _CTFoo(), _ct_inputs(), {}


@scenario("test_unflatten.py::test_unflatten_container_type (re-export)", strict=(False,))
def container_type_reexport():
    """the UnflattenedModule of the non-strict export, exported again (non-strict)"""
    mod = _CTFoo()
    inp = _ct_inputs()
    ep = torch.export.export(mod, inp, strict=False)
    return torch.export.unflatten(ep), inp, {}


class _SOModule1(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buffer", torch.rand(3, 4))
        self.param = nn.Parameter(torch.rand(3, 4))

    def forward(self, x):
        return x + self.buffer + self.param


class _SOModule2(_SOModule1):
    pass


class _SubmoduleOrdering(nn.Module):
    def __init__(self):
        super().__init__()
        self.mod2 = _SOModule2()
        self.mod3 = self.mod2
        self.mod1 = _SOModule1()

    def forward(self, x):
        return self.mod3(self.mod2(self.mod1(x)))


@scenario("test_unflatten.py::test_unflatten_submodule_ordering", strict=(True,))
def submodule_ordering():
    """registration order mod2, mod3 (alias of mod2), mod1 vs call order mod1, mod2, mod3"""
    return _SubmoduleOrdering(), (torch.rand(3, 4),), {}


class _RTM(nn.Module):
    def forward(self, x):
        return x + x


class _RTM1(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = _RTM()

    def forward(self, x):
        return self.m(x)


@scenario("test_unflatten.py::test_unflatten_root_module_type")
def root_module_type():
    """the root's and a child's original class names (_ty)"""
    return _RTM1(), (torch.rand(2, 3),), {}


# ---- buffers / params / mutation ------------------------------------------

class _BMChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("child2buffer", torch.ones(2, 3))

    def forward(self, x):
        self.child2buffer.add_(x)
        return x - self.child2buffer


class _BufferMutation(nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = _BMChild()
        self.rootparam = nn.Parameter(torch.ones(2, 3))

    def forward(self, x):
        x = self.foo(x)
        return x * self.rootparam


@scenario("test_unflatten.py::test_unflatten_buffer_mutation", strict=(True,), functional=True)
def buffer_mutation():
    """a child mutates its own buffer in place (copy_ put back by unflatten)"""
    return _BufferMutation(), (torch.rand(2, 3),), {}


class _ParamListDict(nn.Module):
    def __init__(self, sums=False):
        super().__init__()
        self.sums = sums
        self.param_list = nn.ParameterList()
        self.param_dict = nn.ParameterDict()
        for i in range(2):
            self.param_list.append(nn.Parameter(torch.randn(2, 3)))
            self.param_dict[f"key_{i}"] = nn.Parameter(torch.randn(2, 3))

    def forward(self, x):
        if self.sums:  # test_unflatten_wrong_input's variant
            a = x.sum()
            for i in range(2):
                a = a + self.param_list[i].sum()
                a = a + self.param_dict[f"key_{i}"].sum()
            return a
        for i in range(2):
            x = x + self.param_list[i]
            x = x + self.param_dict[f"key_{i}"]
        return x


@scenario("test_unflatten.py::test_unflatten_param_list_dict", strict=(True,))
def param_list_dict():
    """ParameterList / ParameterDict containers: params param_list.0, param_dict.key_0"""
    return _ParamListDict(), (torch.randn(2, 3),), {}


class _RGParam(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.ones(3, 3, device="meta"), requires_grad=False)

    def forward(self, x):
        return self.p + x


@scenario("test_unflatten.py::test_unflatten_requires_grad_param", strict=(True,))
def requires_grad_param():
    """a requires_grad=False parameter; module and input on device meta"""
    return _RGParam(), (torch.randn(3, 3, device="meta"),), {}


class _TransposeModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 1, 3, stride=2)

    def forward(self, x):
        x = self.conv(x)
        return x.transpose(0, 1)


@scenario("test_unflatten.py::test_placeholder_and_get_attr_ordering_after_unflattened",
          strict=(True,))
def placeholder_and_get_attr_ordering():
    """Conv2d leaf: sunk get_attrs go after the last placeholder"""
    return _TransposeModule(), (torch.randn(1, 3, 6, 6),), {}


class _SimpleAlias(nn.Module):
    def __init__(self, use_bias):
        super().__init__()
        self.use_bias = use_bias
        self.bias = nn.Parameter(torch.randn(4))
        self.m = nn.Linear(4, 4)
        self.m.bias = self.bias

    def forward(self, x):
        if self.use_bias:
            return self.m(x) + self.bias
        return self.m(x)


@scenario("test_unflatten.py::test_simple_alias (a)", strict=(True,))
def simple_alias():
    """one Parameter at bias and m.bias, used by both root and m"""
    return _SimpleAlias(True), (torch.randn(2, 4),), {}


@scenario("test_unflatten.py::test_simple_alias (b)", strict=(True,))
def simple_alias_unused():
    """one Parameter at bias and m.bias, root's bias unused"""
    return _SimpleAlias(False), (torch.randn(2, 4),), {}


class _AttrLayer(nn.Module):
    def forward(self, x, const):
        return x + const


class _AttrAsSubmodInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("const", torch.ones(4, 8))
        self.layers = nn.ModuleList([_AttrLayer() for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x, self.const)
        return x


@scenario("test_unflatten.py::test_attr_as_submod_input", strict=(True,))
def attr_as_submod_input():
    """root buffer passed as an argument to two ModuleList children"""
    return _AttrAsSubmodInput(), (torch.randn(4, 8),), {}


class _DuplicatePlaceholder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.LayerNorm([2, 2, 3])
        self.norms = nn.ModuleList([layer, layer, layer])

    def forward(self, input_):
        for i in range(3):
            input_ = self.norms[i](input_)
        return input_


@scenario("test_unflatten.py::test_duplicate_placeholder")
def duplicate_placeholder():
    """one LayerNorm reused 3x in a ModuleList (norms.0/1/2 are one object)"""
    return _DuplicatePlaceholder(), (torch.randn(1, 2, 2, 3),), {}


# ---- shared submodules / dedup --------------------------------------------

class _SharedSubmodule(nn.Module):
    def __init__(self):
        super().__init__()
        layernorm = nn.LayerNorm(10)
        self.sub_net = nn.Sequential(layernorm, nn.ReLU(), layernorm, nn.ReLU())

    def forward(self, x):
        return self.sub_net(x)


@scenario("test_unflatten.py::test_unflatten_shared_submodule", strict=(True,))
def shared_submodule():
    """one LayerNorm at sub_net.0 and sub_net.2 (dedup across fqns)"""
    return _SharedSubmodule(), (torch.rand(10),), {}


# ---- preserved call signatures, pytree specs, FlatArgsAdapter -------------

class _PSNestedChild(nn.Module):
    def forward(self, zx, y):
        return {"x": y["key"] + zx[1], "w": y["key"] * zx[1]}


class _PSChild1(nn.Module):
    def __init__(self):
        super().__init__()
        self.nested = _PSNestedChild()

    def forward(self, x, y):
        z = torch.ones_like(x)
        xw = self.nested((z, x), y={"key": y})
        return xw["w"] + z - xw["x"]


class _PSChild2(nn.Module):
    def forward(self, x):
        return x - 1


class _PreserveSignature(nn.Module):
    def __init__(self):
        super().__init__()
        self.foo = _PSChild1()
        self.bar = _PSChild2()

    def forward(self, x, y):
        x = self.foo(x, y)
        return self.bar(x)


@scenario("test_unflatten.py::test_unflatten_preserve_signature",
          preserve=(("foo.nested",),))
def preserve_signature():
    """preserved foo.nested taking (tuple, dict kwarg) and returning a dict"""
    return _PreserveSignature(), (torch.rand(2, 3), torch.rand(2, 3)), {}


class _PUM1(nn.Module):
    def forward(self, x, a, b):
        return x + a, b


class _PreserveUnusedInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.m1 = _PUM1()

    def forward(self, x, y):
        a, b = torch.topk(y, 2)
        return self.m1(x, a, b)[0]


@scenario("test_unflatten.py::test_unflatten_preserve_with_unused_input",
          strict=(False,), preserve=(("m1",),))
def preserve_with_unused_input():
    """preserved m1 has an output dead at top level (upstream DCEs ep.graph first, which torch 2.13's unflatten does itself: _remove_effect_tokens)"""
    return _PreserveUnusedInput(), (torch.randn(2), torch.randn(5)), {}


class _NLLeaf(nn.Module):
    def forward(self, x):
        return x + 1


class _NLNested(nn.Module):
    def __init__(self):
        super().__init__()
        self.leaf = _NLLeaf()

    def forward(self, x):
        return self.leaf(x) + 2


class _NLTopLevel(nn.Module):
    def __init__(self):
        super().__init__()
        self.nested = _NLNested()

    def forward(self, x):
        return self.nested(x) + 3


@scenario("test_unflatten.py::test_nested_leaf_non_strict",
          strict=(False,), preserve=(("nested",),))
def nested_leaf_non_strict():
    """preserved nested with a leaf child inside"""
    return _NLTopLevel(), (torch.randn(3),), {}


class _NoneM2(nn.Module):
    def forward(self, x, y):
        return x + x, None


class _NoneM(nn.Module):
    def __init__(self):
        super().__init__()
        self.m2 = _NoneM2()

    def forward(self, x, y):
        x = x + x
        return self.m2(x, y)


@scenario("test_unflatten.py::test_unflatten_none", preserve=(("m2",),))
def unflatten_none():
    """None input and None output of a preserved module (ConstantArgument)"""
    return _NoneM(), (torch.rand(2, 3), None), {}


class _EBM(nn.Module):
    def forward(self, x):
        if x is None:
            return torch.ones(3), torch.ones(3)
        return x + x, x * x


class _EBM1(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = _EBM()

    def forward(self, x, y):
        a, b = self.m(x)
        c, d = self.m(y)
        return a + b + c + d


@scenario("test_unflatten.py::test_unflatten_empty_branch", preserve=((), ("m",)))
def empty_branch():
    """m called twice; the second call (None input) only creates constants"""
    return _EBM1(), (torch.randn(3), None), {}


# ---- symints / dynamic shapes / runtime asserts ---------------------------

class _DSM1(nn.Module):
    def forward(self, x, y):
        d = x.size(0) // 2
        return y[:d]


class _DSM2(_DSM1):
    pass


class _DedupSymSize(nn.Module):
    def __init__(self):
        super().__init__()
        self.m1 = _DSM1()
        self.m2 = _DSM2()

    def forward(self, x, y):
        d = x.size(0) // 2
        m1_res = self.m1(x, y)
        m2_res = self.m2(x, y)
        return y[d:] + m1_res + m2_res


def _dedup_sym_size_dynamic():
    d = 2 * torch.export.Dim("foo", max=2048)
    return ((d,), (d,))


@scenario("test_unflatten.py::test_dedup_sym_size", strict=(False,),
          preserve=(("m1",),), dynamic=_dedup_sym_size_dynamic())
def dedup_sym_size():
    """one sym_size in the flat graph: recomputed in preserved m1, a placeholder in m2"""
    return _DedupSymSize(), (torch.ones(10), torch.ones(10)), {}


class _ATMN(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.randn(3)  # plain tensor attr: a lifted constant

    def forward(self, x, y):
        x = x.to(dtype=torch.int32)
        y = y.to(dtype=torch.int32)
        x = x + self.a
        return x + y


class _ATMM(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = _ATMN()

    def forward(self, x, y):
        x = x * x
        y = y * y
        return self.n(x, y)


@scenario("test_unflatten.py::test_assert_tensor_metadata_stack")
def assert_tensor_metadata_stack():
    """_assert_tensor_metadata of .to inside n's frame; a lifted tensor constant"""
    return _ATMM(), (torch.randn(3), torch.randn(3)), {}


@scenario("test_unflatten.py::test_unflatten_wrong_input", strict=(True,))
def wrong_input():
    """static shape 2x3; calling with 6x6 fails only at run time (unflatten itself succeeds)"""
    return _ParamListDict(sums=True), (torch.randn(2, 3),), {}


# ---- constants / custom objects -------------------------------------------

class _CTSubMod(nn.Module):
    def __init__(self):
        super().__init__()
        self.initializer = 0.1

    def forward(self, x):
        return x + torch.tensor(self.initializer)


class _ConstantTensor(nn.Module):
    def __init__(self):
        super().__init__()
        self.submod = _CTSubMod()

    def forward(self, x):
        return x + self.submod(x)


@scenario("test_unflatten.py::test_unflatten_constant_tensor", strict=(True,))
def constant_tensor():
    """a tensor created in a child's forward: lifted constant sunk into submod"""
    return _ConstantTensor(), (torch.randn(2, 3),), {}


def _torchbind_foo():
    """torch.classes._TorchScriptTesting._Foo(10, 20), or None when the wheel
    has no libtorchbind_test.so (the CPU wheel of 2.13 ships it). Loaded by
    hand: init_torchbind_implementations() needs expecttest (common_utils)."""
    try:
        import os
        import torch.testing._internal.torchbind_impls as tb
        if not tb._TORCHBIND_IMPLS_INITIALIZED:
            torch.ops.load_library(os.path.join(os.path.dirname(torch.__file__),
                                                "lib", "libtorchbind_test.so"))
            tb.register_fake_operators()
            tb.register_fake_classes()
            tb._TORCHBIND_IMPLS_INITIALIZED = True
        return torch.classes._TorchScriptTesting._Foo(10, 20)
    except Exception:  # noqa: BLE001
        return None


class _COSubMod(nn.Module):
    def __init__(self):
        super().__init__()
        self.attr = _torchbind_foo()

    def forward(self, x):
        return x + self.attr.add_tensor(x)


class _ConstantObj(nn.Module):
    def __init__(self):
        super().__init__()
        self.submod = _COSubMod()

    def forward(self, x):
        return x + self.submod(x)


# strict=False only, as upstream: a strict export keeps a FakeScriptObject
# constant, which torch.export.save refuses (and unflatten would raise
# "FakeScriptObject should only exist during tracing.")
@scenario("test_unflatten.py::test_unflatten_constant_obj", strict=(False,))
def constant_obj():
    """a torchbind ScriptObject constant sunk to a get_attr in submod"""
    m = _ConstantObj()
    if m.submod.attr is None:
        raise RuntimeError("torch.classes._TorchScriptTesting unavailable in this wheel")
    return m, (torch.randn(2, 3),), {}


# ---- execution modes (the program is all that matters here) ---------------

@scenario("test_unflatten.py::test_unflatten_with_inplace_compile", strict=(True,))
def with_inplace_compile():
    """MyModule fixture (upstream then compiles unflattened.foo in place)"""
    return MyModule(), (torch.rand(2, 3),), {}


@scenario("test_unflatten.py::test_unflatten_eager", strict=(True,))
def unflatten_eager():
    """MyModule fixture (upstream unflattens under _disable_interpreter)"""
    return MyModule(), (torch.rand(2, 3),), {}


class _FxTrace(nn.Module):
    def forward(self, x, y):
        x = x[0] + x[1]
        return x + y["foo"]


@scenario("test_unflatten.py::test_fx_trace", strict=(True,))
def fx_trace():
    """tuple and dict inputs flattened into the root's placeholders"""
    return _FxTrace(), ((torch.rand(2, 3), torch.rand(2, 3)), {"foo": torch.rand(2, 3)}), {}


class _MVSubMod(nn.Module):
    def forward(self, x):
        return x + x, x * x


class _MetaVal(nn.Module):
    def __init__(self):
        super().__init__()
        self.submod = _MVSubMod()

    def forward(self, x):
        return x + sum(self.submod(x))


@scenario("test_unflatten.py::test_unflattened_module_nodes_has_meta_val", strict=(True,))
def module_nodes_has_meta_val():
    """a child with two outputs (list output, getitems in the parent)"""
    return _MetaVal(), (torch.randn(2, 3),), {}


# ---- error / edge cases ---------------------------------------------------

class _SkD(nn.Module):
    def forward(self, x):
        return x.sin()


class _SkC(nn.Module):
    def __init__(self, root):
        super().__init__()
        self._root = [root]  # a list: not registered as a submodule

    def forward(self, x):
        return self._root[0].d(x.cos())


class _SkB(nn.Module):
    def __init__(self, root):
        super().__init__()
        self.c = _SkC(root)

    def forward(self, x):
        return self.c(x) + x


class _SkA(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = _SkB(self)
        self.d = _SkD()

    def forward(self, x):
        return self.b(x)


@scenario("test_unflatten.py::test_unflatten_skipped_call_module", strict=(False,))
def skipped_call_module():
    """A -> b -> b.c -> A.d: d's stack is truncated and d is inlined into b.c"""
    return _SkA(), (torch.randn(2, 3),), {}


# the test_export.py scenarios (1.B) and the error cases (1.C) register here too
import scenarios_export  # noqa: E402,F401
import scenarios_export_state  # noqa: E402,F401
import scenarios_errors  # noqa: E402,F401
import scenarios_more  # noqa: E402,F401
import scenarios_fidelity  # noqa: E402,F401
