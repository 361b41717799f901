"""scenarios_more.py - scenarios beyond upstream's tests, for behaviour the
conformance corpus found or the issues name, registered into
scenarios.REGISTRY.
"""
import torch
import torch.nn as nn

from scenarios import scenario


class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight  # one tensor, two names

    def forward(self, ids):
        return self.head(torch.relu(self.body(self.emb(ids))))


@scenario("issue 12: tied embeddings (transformers' tie_word_embeddings)")
def tied_embeddings():
    """emb.weight and head.weight are one tensor: export keeps a placeholder
    per name and feeds both uses from one; unflatten sinks the tensor in
    both modules, which exdb can know only from the archive's weights config"""
    return _Tied(), (torch.tensor([[1, 2, 3]]),), {}


class _DeadChild(nn.Module):
    def forward(self, x):
        unused = torch.sin(x) * 2  # dead: export keeps it, unflatten's dce drops it
        del unused
        v, i = torch.max(x, dim=-1)  # a multi-output op with one output unused
        return x + v.unsqueeze(-1)


class _Dead(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _DeadChild()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        y = self.c(x)
        torch.cos(y)  # dead in the root
        return self.lin(y)


@scenario("issue 12: dead code (unflatten's _remove_effect_tokens runs eliminate_dead_code)")
def dead_code():
    """dead nodes and an unused output of a multi-output op, in a child and
    in the root: torch.export.unflatten removes them before outlining"""
    return _Dead(), (torch.randn(2, 3),), {}


class _GapLeaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return x * self.w


class _CallGap(nn.Module):
    """calls c once per entry of live; a dead call's nodes are all removed
    by dead-code elimination, so it gets no frame and no module"""
    def __init__(self, live):
        super().__init__()
        self.c = _GapLeaf()
        self.live = live

    def forward(self, x):
        for live in self.live:
            y = self.c(x)
            if live:
                x = y
        return x


@scenario("random corpus: _assign_attr with gaps in the call numbers")
def dead_call_gap():
    """calls live, dead, live: modules c and c@2 (no c@1); _assign_attr
    gives w to every key of _modules matching c(@\\d+)?, so c@2 too"""
    return _CallGap((True, False, True)), (torch.ones(2, 4),), {}


@scenario("random corpus: _assign_attr with gaps in the call numbers")
def dead_call_gap_first():
    """calls dead, live, dead, live: no module c (_assign_attr makes a plain
    Module for it) and c@1, c@3 beside it, both given w"""
    return _CallGap((False, True, False, True)), (torch.ones(2, 4),), {}


class _GapC(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(4))

    def forward(self, x):
        return x.sin()


class _GapB(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _GapC()

    def forward(self, x):
        return self.c(x)


class _GapA(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = _GapB()

    def forward(self, x):
        self.b(x)  # dead
        return self.b(x)


class _NestedCallGap(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _GapA()

    def forward(self, x):
        self.a(x)  # dead
        return self.a(x) + self.a.b.c.buf


@scenario("random corpus: _assign_attr with gaps in the call numbers")
def dead_call_gap_nested():
    """a.b.c.buf assigned through a, a@1 > b, b@3 > c, c@3: _assign_attr
    makes plain Modules a, a.b, a.b.c, a@1.b, a@1.b.c and a@1.b@3.c (beside
    the live c@3), the last under a module only a regex scan reaches"""
    return _NestedCallGap(), (torch.ones(2, 4),), {}


class _DeadPreserved(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Module()
        self.b.c = nn.ReLU()

    def forward(self, x):
        self.b.c(x)  # dead: never outlined, nor is b
        return x + 1


@scenario("random corpus: a dead preserved call whose parent is missing too",
          preserve=(("b.c",),))
def dead_preserved_call_parent():
    """_dispatch_modules' _get_attr(self, "b.c"): b is missing, so
    _get_attr_via_attr_list raises AssertionError("Attribute 'b' not found
    in model"), not getattr's AttributeError"""
    return _DeadPreserved(), (torch.ones(2, 4),), {}


class _DeadPreservedLeaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.ReLU()

    def forward(self, x):
        self.c(x)  # dead: never outlined
        return x + 1


@scenario("random corpus: a dead preserved call whose parent is missing too",
          preserve=(("c",),))
def dead_preserved_call_leaf():
    """_get_attr(self, "c") with only the last atom missing: getattr's
    AttributeError on the UnflattenedModule"""
    return _DeadPreservedLeaf(), (torch.ones(2, 4),), {}
