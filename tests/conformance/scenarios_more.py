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


class _Phased(nn.Module):
    """calls 1-2 trace one graph, calls 3-4 another (a Python counter)"""

    def __init__(self):
        super().__init__()
        self.n = 0

    def forward(self, x):
        self.n += 1
        return x.sin() if self.n <= 2 else x.cos()


class _PhasedTwice(nn.Module):
    def __init__(self):
        super().__init__()
        self.r = _Phased()

    def forward(self, x):
        return self.r(self.r(x))


class _HoldsB(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = _PhasedTwice()

    def forward(self, x):
        return self.b(x)


class _AliasPopTwice(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _HoldsB()
        self.al = self.a.b  # one module under two names: al and a.b

    def forward(self, x):
        return self.a(self.al(x))


@scenario("exdb: _deduplicate_modules pops one call name twice (KeyError)")
def dedup_alias_pop_twice():
    """al and a.b are one module, so their calls share one _modules dict:
    al.r@1 (like al.r) is popped from it, then a.b.r@1 (like a.b.r) pops
    the same name again and torch raises KeyError: 'r@1'"""
    return _AliasPopTwice(), (torch.ones(2, 4),), {}


class _DoubleRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.ReLU()

    def forward(self, x):
        return self.b(x) * 2


class _CallsGrandchild(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _DoubleRelu()

    def forward(self, x):
        self.a(x)  # dead: unflatten drops it, a's first call is gone
        y = self.a(x)  # a@1, holding a.b@1
        return self.a.b(y)  # a.b@2, called from the root


@scenario("exdb: the root graph's final Graph.lint fails after _deduplicate_modules")
def root_lint_outside_call():
    """a.b@2 is called from the root, outside its parent a; it is equivalent
    to a.b@1, so _deduplicate_modules retargets the root's call to a.b@1,
    which sits in a@1, not in a: UnflattenedModule.__init__'s final
    self.graph.lint() raises 'Node a_b_2 target a.b@1 references
    nonexistent attribute b@1 of a'"""
    return _CallsGrandchild(), (torch.ones(2, 4),), {}


class _BufLeaf(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(4))

    def forward(self, x):
        return x.tanh()


class _BufMid(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _BufLeaf()

    def forward(self, x):
        return self.c(x) * 2


class _ReadsAliasedBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = _BufMid()
        self.al = self.m  # one module under two names

    def forward(self, x):
        y = self.al(x)  # al reached first (not in self.m(self.al(x))): strict
        z = self.m(y)  # export then names the buffer al.c.buf
        return z + self.m.c.buf  # read from the root


@scenario("exdb: the root graph's final Graph.lint fails on an aliased state path")
def root_lint_alias_state():
    """strict export names the buffer al.c.buf, and the root sinks its read
    as get_attr al.c.buf. al and m share one _modules dict, so its c is the
    module m.c's frame made, which gets the buffer; _deduplicate_modules
    then sets c to al.c's equivalent frame module, which never had it:
    UnflattenedModule.__init__'s final self.graph.lint() raises 'Node
    al_c_buf target al.c.buf references nonexistent attribute buf of
    al.c'"""
    return _ReadsAliasedBuffer(), (torch.ones(2, 4),), {}


def _randgen(seed, i, upstream):
    """a program of the random generator (randgen.py) kept as a scenario:
    one that found a mismatch, so the committed corpus checks its fix"""
    import randgen
    _, make, strict, preserve, dynamic = randgen.program(seed, i)
    make.__name__ = f"rand_{seed}_{i}"
    scenario(upstream, strict=(strict,), preserve=(tuple(preserve),), dynamic=dynamic)(make)


_randgen(5, 15, "exdb: _sink_params' _get_attr of a call_module that dedup retargeted raises")


class _LongChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.w


class _LongName(nn.Module):
    def __init__(self):
        super().__init__()
        setattr(self, "m" * 600, _LongChild())

    def forward(self, x):
        return getattr(self, "m" * 600)(x) + 1


@scenario("issue 13 item 8: a module path atom of 600 bytes (names may have 4096)")
def long_module_name():
    """a 600-byte submodule name: lint's and unflatten's target walks took at
    most 511 bytes an atom, and reported the module as nonexistent"""
    return _LongName(), (torch.ones(3),), {}


class _AnnotatedChild(nn.Module):
    def forward(self, x):
        from torch.fx.traceback import annotate
        with annotate({"pp_stage": 1, "ratio": 0.5, "on": True, "none": None,
                       "tags": ["a", "b's"], "nested": {"k": [1, 2.5e-05]},
                       "long": "x" * 45, "longlist": list(range(20)), "uni": "é" * 45}):
            y = x.sin()
        return y.cos()


class _Annotated(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _AnnotatedChild()

    def forward(self, x):
        from torch.fx.traceback import annotate
        with annotate({"stage": "root"}):
            x = x + 1
        return self.child(x)


@scenario("issue 15: print_readable's '# Annotation:' lines (fx.traceback.annotate, kept by strict "
          "export as node.meta['custom'])", strict=(True,))
def annotated():
    """values of every JSON kind, str() over 40 characters cut to 40 and '...'
    (unicode counted by character), in the root and a submodule"""
    return _Annotated(), (torch.randn(2),), {}


class _UpliftChild(nn.Module):
    def forward(self, x):
        return x.sin().cos()


class _Uplift(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _UpliftChild()

    def forward(self, x):
        from torch.fx.traceback import annotate
        with annotate({"stage": 2}):
            y = self.child(x + 1)
        return y * 2


@scenario("issue 22: _ModuleFrame.uplift_common_custom_metadata (every node a module's frame "
          "maps has the same node.meta['custom']: its call_module takes it, its nodes drop it)",
          strict=(True,))
def annotated_uplift():
    """the call to child and its input are under one annotate(): the
    annotation moves to root's call_module child"""
    return _Uplift(), (torch.randn(2),), {}


class _SinkOwner(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2))
        self.v = nn.Parameter(torch.full((2,), 3.0))

    def forward(self, x):
        return x * self.w + self.v


class _SinkBorrower(nn.Module):
    def __init__(self, owner):
        super().__init__()
        self._owner = [owner]  # not registered: its state is used from outside its owner

    def forward(self, x):
        return x + self._owner[0].w + self._owner[0].v


class _SinkElsewhere(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _SinkOwner()
        self.b = _SinkOwner()
        self.b.w = self.a.w  # one tensor under the names a.w and b.w
        self.c = _SinkBorrower(self.a)

    def forward(self, x):
        return self.a(x) + self.b(x) + self.c(x)


@scenario("issue 22: _sink_params keeps a state input in a module that uses state owned "
          "elsewhere: a.v (owned by a sibling) and the tied a.w/b.w (one tensor, two names)")
def sink_elsewhere():
    """c reads a.w and a.v through an unregistered reference"""
    return _SinkElsewhere(), (torch.randn(2),), {}


class _OutWriter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(2))
        self.register_buffer("vals", torch.zeros(2))
        self.register_buffer("idx", torch.zeros(2, dtype=torch.long))
        self.bn = nn.BatchNorm1d(2)

    def forward(self, x):
        torch.add(x, 1.0, out=self.buf)  # aten.add.out: an out= overload writes buf
        y = self.bn(x.reshape(1, 2).expand(3, 2))  # add_ of num_batches_tracked
        torch.sort(x, out=(self.vals, self.idx))  # aten.sort.values
        return x * self.buf + y.sum(0) + self.vals


class _OutOwner(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = _OutWriter()

    def forward(self, x):
        return self.c(x) + self.c.buf


@scenario("issue 22: _IVals in a preserved module whose buffers are written by an out= "
          "overload (aten.add.out, aten.sort.values) and an in-place op (batch norm's num_batches_tracked "
          "add_): target._schema.is_mutable by ATen's naming rules",
          preserve=(("c",),))
def ivals_out_overload():
    """torch.add(x, 1.0, out=self.buf) inside a preserved child, read by the parent"""
    return _OutOwner(), (torch.randn(2),), {}


class _BufOwner(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(2))

    def forward(self, x):
        return x + self.buf


class _BufMutator(nn.Module):
    def __init__(self, owner):
        super().__init__()
        self._owner = [owner]  # not registered: it mutates state owned elsewhere

    def forward(self, x):
        self._owner[0].buf.add_(x)
        return x * 2


class _MutatedElsewhere(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _BufOwner()
        self.c = _BufMutator(self.a)

    def forward(self, x):
        return self.c(x) + self.a(x)


@scenario("issue 22: _sink_params keeps a buffer input in a module that mutates state owned "
          "by a sibling (a.buf, add_ in c): the program returns the buffer's new value",
          functional=True)
def sink_mutated_elsewhere():
    """c mutates a.buf through an unregistered reference"""
    return _MutatedElsewhere(), (torch.randn(2),), {}
