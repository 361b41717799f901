"""scenarios_errors.py - programs torch.export.unflatten rejects (the error
catalogue of docs/unflatten-notes.md §1.C), plus edge cases next to
them, registered into scenarios.REGISTRY.

Only errors raised by unflatten itself are reachable here: the catalogue's
call-time errors (the flat-args adapter TypeErrors, the input-shape
RuntimeError) happen when the unflattened module runs, so their programs are
the plain scenarios preserve_signature and wrong_input. Not reachable from
torch.export.export in 2.13, hence absent: "Unflattening on JointExportModule
NYI" (needs a backward signature), "Unable to find nn_module_stack" (export
gives every node a stack), "Unsupported data type for output node" (a
preserved module returning a custom object: export refuses it with
NotImplementedError), and "FakeScriptObject should only exist during tracing."
(constant_obj exported strict: torch.export.save refuses the FakeScriptObject
constant, so there is no program to read).
"""
import torch
import torch.nn as nn

import scenarios_export
from scenarios import scenario, _SkA


class _NDBc(nn.Module):
    def forward(self, x):
        return x.sin()


class _NDB(nn.Module):
    def __init__(self, root):
        super().__init__()
        self._root = [root]  # not a submodule

    def forward(self, x):
        return self._root[0].bc(x.cos()) + 1


class _NotDescendant(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = _NDB(self)
        self.bc = _NDBc()

    def forward(self, x):
        return self.b(x)


@scenario("1.C: RuntimeError Child module ... is not a descendant of parent module ...")
def err_not_descendant():
    """b calls the root's bc: stack [root, b, bc] survives _fix_nn_module_stacks ("b" is a string prefix of "bc")"""
    return _NotDescendant(), (torch.randn(2, 3),), {}


class _ONFChild(nn.Module):
    def forward(self, x):
        return x + 1, self.stash


class _OutputNotFound(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _ONFChild()

    def forward(self, x):
        y = x * 2
        self.c.stash = y  # the child returns a value its parent computed
        a, b = self.c(x)
        return a + b


@scenario("1.C: RuntimeError Could not find output node ...", preserve=(("c",),))
def err_output_not_found():
    """preserved c returns a tensor computed by its parent (never copied into c)"""
    return _OutputNotFound(), (torch.randn(2, 3),), {}


class _CRChild(nn.Module):
    def forward(self, x):
        return x + self.stash


class _CapturedRead(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _CRChild()

    def forward(self, x):
        y = x * 2
        self.c.stash = y
        return self.c(x)


@scenario("1.C edge: remap_input -> _IVals.read of a non-mutation", preserve=(("c",),))
def edge_preserved_captured_read():
    """preserved c reads a parent value it is not passed: torch reads mul's args[0] and copy_s it back (no error)"""
    return _CapturedRead(), (torch.randn(2, 3),), {}


@scenario("1.C edge: a preserved module whose calls were all inlined",
          preserve=(("n",),))
def err_preserved_inlined_closure():
    """test_unflatten_closure preserving n, which _fix_nn_module_stacks inlined into dummy: AttributeError"""
    return scenarios_export._Closure(), (torch.randn(3),), {}


@scenario("1.C edge: a preserved module whose calls were all inlined",
          strict=(False,), preserve=(("d",), ("b.c",)))
def err_preserved_inlined_skipped():
    """test_unflatten_skipped_call_module preserving d (inlined into b.c: AttributeError) or b.c (fine)"""
    return _SkA(), (torch.randn(2, 3),), {}
