"""scenarios.py - PyTorch's unflatten scenarios as small modules of our own.

One function per scenario catalogued in ../shared/docs/unflatten-notes.md §1
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


def scenario(upstream, strict=(True, False), preserve=((),), dynamic=None):
    def deco(fn):
        REGISTRY.append({"name": fn.__name__, "make": fn, "upstream": upstream,
                         "strict": strict, "preserve": preserve, "dynamic": dynamic})
        return fn
    return deco


def variants():
    """(variant name, scenario dict, strict, preserve tuple) for every variant."""
    for s in REGISTRY:
        for st in s["strict"]:
            npres = [p for p in s["preserve"] if p]
            for p in s["preserve"]:
                name = s["name"] + ("__strict" if st else "__nonstrict")
                if p:
                    i = npres.index(p)
                    name += "__preserve" + (str(i + 1) if i else "")
                yield name, s, st, tuple(p)


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
    return MyModule(), (torch.rand(2, 3),), {}
