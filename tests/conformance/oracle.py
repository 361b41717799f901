"""oracle.py - what torch itself writes and answers for one exported program.

Needs torch (the venv `scripts/deps.sh conformance` makes). For an
ExportedProgram it writes, into a folder:

  program.pt2    torch.export.save(ep)
  answers.json   what torch answers for the program torch.export.load reads
                 back from program.pt2 (what exdb reads), the keys below

answers.json:
  roundtrip_differs  the keys whose answer differs for the in-memory
                 ExportedProgram (torch's own save/load round trip changes
                 them; e.g. empty constants become one storage); [] mostly
  load_error     only when torch.export.load failed on its own archive: the
                 answers are then the in-memory program's
  torch          torch.__version__
  graph          str(ep.graph)
  tabular        ep.graph.print_tabular()'s output
  lint           "ok", or "ExceptionType: message" of ep.graph.lint()
  dce            names ep.graph.eliminate_dead_code() removes, in the order
                 removed, on a copy (null when it raises; dce_error then says why)
  unflatten      torch.export.unflatten(ep):
    error        null, or {"type": ..., "message": ...} when unflatten raised
    trace        _ModuleFrame's verbose printing (STEP / copying /
                 Creating new stack frame for / outlining ...), as torch prints it
    stdout       what unflatten itself printed (torch 2.13's _IVals prints
                 "Checking mutability ..." lines)
    events       the outliner's structural events, from wrappers on _ModuleFrame:
                 ["COPY", frame_fqn, node] for copy_node (frame_fqn is the frame's
                 child_fqn, "" the root), ["ENTER", child_fqn] when a frame is
                 created, ["EXIT", child_fqn] when it finalizes its outputs
    modules      [[fqn, kind, type]] for named_modules(remove_duplicate=False):
                 kind = UnflattenedModule | InterpreterModule |
                 InterpreterModuleDispatcher | GraphModule | Module; type = the module's _ty
                 (the original class from nn_module_stack), or null
    graphs       {fqn: str(graph)} for every module with a graph; a dispatcher's
                 calls as {fqn: [str(graph) of each call]}
    lint         {fqn: "ok" | "Type: message"}: Graph.lint() of each module
                 graph, once per graph object under the first path that
                 reaches it (dispatcher calls as fqn#i)
    dce          {fqn: [removed names]}: eliminate_dead_code() of each module
                 graph, on a fresh unflatten (dispatcher calls as fqn#i)
  code           the Python FX generates (code_answers):
    graph_module ep.graph_module.code
    readable     {OPTS: ep.graph_module.print_readable(print_output=False,
                 include_stride=, include_device=, colored=)} for all 8
                 combinations; OPTS is "" or the letters s, d, c present
    module       ep.module().code; module_readable its print_readable()
    unflatten    {label: {"code": graph.python_code("self").src,
                 "readable": {"": ..., "sdc": ...}}} for the root ("")
                 and every module graph (a dispatcher's calls as fqn#i:
                 its own print_readable joins them with a newline); the
                 root's readable is UnflattenedModule.print_readable(); the
                 HOP subgraphs (GraphModule) under their fqn too. Recorded
                 before unflatten runs (it removes dead code in place)

Only the standard library and torch are imported here.
"""
import contextlib
import copy
import io
import json
import os
import sys
import traceback

import torch

U = sys.modules["torch.export.unflatten"]


def _err(e):
    msg = str(e)
    return {"type": type(e).__name__, "message": msg}


def _err_text(e):
    return f"{type(e).__name__}: {e}"


def _capture_stdout(fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue()


def _dce_removed(graph):
    """names eliminate_dead_code removes from graph (modified in place), in
    the order FX erases them (reverse graph order, subgraphs after)."""
    removed = []
    erase = graph.erase_node

    def spy(node):
        removed.append(node.name)
        return erase(node)

    graph.erase_node = spy
    try:
        graph.eliminate_dead_code()
    finally:
        del graph.erase_node
    return removed


class _Trace:
    """Wraps _ModuleFrame so one unflatten call records its verbose print
    and its structural events."""

    def __init__(self):
        self.events = []
        self.out = io.StringIO()

    def __enter__(self):
        F = U._ModuleFrame
        self.saved = {k: F.__dict__[k] for k in ("__init__", "copy_node", "finalize_outputs", "print")}
        tr = self
        init, copy_node, finalize = self.saved["__init__"], self.saved["copy_node"], self.saved["finalize_outputs"]

        def w_init(self, *a, **k):
            init(self, *a, **k)
            if self.parent is not None:
                tr.events.append(["ENTER", self.child_fqn])

        def w_copy(self, node):
            tr.events.append(["COPY", self.child_fqn if self.parent is not None else "", node.name])
            return copy_node(self, node)

        def w_finalize(self):
            r = finalize(self)
            tr.events.append(["EXIT", self.child_fqn])
            return r

        def w_print(self, *a, **k):
            print(*a, file=tr.out, **{x: y for x, y in k.items() if x != "file"})

        F.__init__, F.copy_node, F.finalize_outputs, F.print = w_init, w_copy, w_finalize, w_print
        return self

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            setattr(U._ModuleFrame, k, v)
        return False


def _kind(mod):
    for cls in ("UnflattenedModule", "InterpreterModuleDispatcher", "InterpreterModule"):
        if type(mod).__name__ == cls:
            return cls
    if isinstance(mod, torch.fx.GraphModule):
        return "GraphModule"  # a HOP subgraph moved in by _copy_graph_attrs
    return "Module"


def _module_graphs(uf):
    """(fqn, label, graph) for every module graph: dispatcher calls labelled
    fqn#i, each module once per fqn it is reachable under."""
    out = []
    for fqn, mod in uf.named_modules(remove_duplicate=False):
        if type(mod).__name__ == "InterpreterModuleDispatcher":
            for i, cm in enumerate(mod._call_modules):
                out.append((fqn, f"{fqn}#{i}", cm.graph))
        elif hasattr(mod, "graph") and isinstance(getattr(mod, "graph"), torch.fx.Graph):
            out.append((fqn, fqn, mod.graph))
    return out


def unflatten_answers(ep):
    ans = {"error": None}
    out = io.StringIO()
    with _Trace() as tr, contextlib.redirect_stdout(out):
        try:
            uf = torch.export.unflatten(ep)
        except Exception as e:  # noqa: BLE001 - torch's own error is the answer
            uf = None
            ans["error"] = _err(e)
    ans["trace"] = tr.out.getvalue()
    ans["stdout"] = out.getvalue()
    ans["events"] = tr.events
    if uf is None:
        return ans
    mods, graphs, lint, linted = [], {}, {}, set()
    for fqn, mod in uf.named_modules(remove_duplicate=False):
        mods.append([fqn, _kind(mod), getattr(mod, "_ty", None)])
    for fqn, label, g in _module_graphs(uf):
        if label == fqn:
            graphs[fqn] = str(g)
        else:
            graphs.setdefault(fqn, []).append(str(g))
        if id(g) in linted:
            continue  # one graph reachable under several paths: linted once
        linted.add(id(g))
        try:
            g.lint()
            lint[label] = "ok"
        except Exception as e:  # noqa: BLE001
            lint[label] = _err_text(e)
    ans["modules"], ans["graphs"], ans["lint"] = mods, graphs, lint
    # dce on a fresh unflatten: each module graph once (a module reachable
    # under two names is one graph: the first name counts)
    dce, seen = {}, set()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            uf2 = torch.export.unflatten(ep)
        for fqn, label, g in _module_graphs(uf2):
            if id(g) in seen:
                continue
            seen.add(id(g))
            try:
                dce[label] = _dce_removed(g)
            except Exception as e:  # noqa: BLE001
                dce[label] = _err_text(e)
    except Exception as e:  # noqa: BLE001
        dce = _err_text(e)
    ans["dce"] = dce
    return ans


OPTS = ["", "s", "d", "c", "sd", "sc", "dc", "sdc"]


def _readable(mod, opts):
    return mod.print_readable(print_output=False, include_stride="s" in opts,
                              include_device="d" in opts, colored="c" in opts)


def _safe(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - torch's own error is the answer
        return {"error": _err_text(e)}


def code_answers(ep):
    """what FX's code generator writes for ep (see "code" above)."""
    gm = ep.graph_module
    c = {"graph_module": _safe(lambda: gm.code),
         "readable": {o: _safe(lambda o=o: _readable(gm, o)) for o in OPTS}}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        m = _safe(ep.module)
        uf = _safe(lambda: torch.export.unflatten(ep))
    if isinstance(m, dict):
        c["module"] = c["module_readable"] = m
    else:
        c["module"] = _safe(lambda: m.code)
        c["module_readable"] = _safe(lambda: _readable(m, ""))
    if isinstance(uf, dict):
        c["unflatten"] = uf
        return c
    u = {"": {"code": _safe(lambda: uf.graph.python_code("self").src),
              "readable": {o: _safe(lambda o=o: _readable(uf, o)) for o in ("", "sdc")}}}
    for fqn, mod in uf.named_modules(remove_duplicate=False):
        if type(mod).__name__ == "InterpreterModuleDispatcher":
            calls = [(f"{fqn}#{i}", cm) for i, cm in enumerate(mod._call_modules)]
        elif type(mod).__name__ == "InterpreterModule" or isinstance(mod, torch.fx.GraphModule):
            calls = [(fqn, mod)]  # a GraphModule: a HOP subgraph _copy_graph_attrs moved in
        else:
            continue
        for label, cm in calls:
            if label in u:
                continue
            u[label] = {"code": _safe(lambda cm=cm: cm.graph.python_code("self").src),
                        "readable": {o: _safe(lambda cm=cm, o=o: _readable(cm, o))
                                     for o in ("", "sdc")}}
    c["unflatten"] = u
    return c


def answers(ep):
    a = {"torch": torch.__version__}
    a["graph"] = str(ep.graph)
    a["tabular"] = _capture_stdout(ep.graph.print_tabular)
    try:
        ep.graph.lint()
        a["lint"] = "ok"
    except Exception as e:  # noqa: BLE001
        a["lint"] = _err_text(e)
    try:
        gm = copy.deepcopy(ep.graph_module)
        a["dce"] = _dce_removed(gm.graph)
        a["dce_error"] = None
    except Exception as e:  # noqa: BLE001
        a["dce"], a["dce_error"] = None, _err_text(e)
    # before unflatten, which removes the flat graph's dead code in place
    # (docs/conformance.md, deliberate difference 1): the code of the
    # program as loaded, which is what exdb prints
    a["code"] = code_answers(ep)
    a["unflatten"] = unflatten_answers(ep)
    return a


def add_code(d):
    """adds the "code" answers to d/answers.json from d/program.pt2 (what a
    regeneration would record for them, without re-exporting)."""
    path = os.path.join(d, "answers.json")
    with open(path) as f:
        a = json.load(f)
    if "export_error" in a:
        return
    try:
        ep = torch.export.load(os.path.join(d, "program.pt2"))
    except Exception as e:  # noqa: BLE001 - as write(): no answers from a program torch cannot load
        a["code"] = {"load_error": _err_text(e)}
    else:
        a["code"] = code_answers(ep)
    with open(path, "w") as f:
        json.dump(a, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    # python oracle.py --add-code DIR...: the code answers for committed programs
    if sys.argv[1:2] == ["--add-code"]:
        for d in sys.argv[2:]:
            add_code(d)


def write(ep, outdir, extra=None):
    """save ep and torch's answers into outdir; returns the answers.

    The answers are torch's on the program it loads back from the archive
    (torch.export.load), since that is what exdb reads. Where the exported
    program itself answers differently (the save/load round trip changes
    something torch answers), roundtrip_differs names those keys."""
    os.makedirs(outdir, exist_ok=True)
    pt2 = os.path.join(outdir, "program.pt2")
    torch.export.save(ep, pt2)
    mem = answers(ep)
    try:
        a = answers(torch.export.load(pt2))
    except Exception as e:  # noqa: BLE001
        a = dict(mem)
        a["load_error"] = _err(e)
    a["roundtrip_differs"] = sorted(
        k for k in set(a) | set(mem)
        if k not in ("load_error", "roundtrip_differs") and a.get(k) != mem.get(k))
    if extra:
        a.update(extra)
    with open(os.path.join(outdir, "answers.json"), "w") as f:
        json.dump(a, f, indent=1, sort_keys=True)
        f.write("\n")
    return a


def write_refusal(outdir, exc, extra=None):
    """torch.export refused the module: recorded as such, never a pass."""
    os.makedirs(outdir, exist_ok=True)
    a = {"torch": torch.__version__, "export_error": _err(exc),
         "export_traceback": traceback.format_exception_only(type(exc), exc)[-1].strip()}
    if extra:
        a.update(extra)
    pt2 = os.path.join(outdir, "program.pt2")
    if os.path.exists(pt2):
        os.remove(pt2)
    with open(os.path.join(outdir, "answers.json"), "w") as f:
        json.dump(a, f, indent=1, sort_keys=True)
        f.write("\n")
    return a
