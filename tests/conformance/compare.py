#!/usr/bin/env python3
"""compare.py - exdb against what torch answered, program by program.

  python3 compare.py EXDB DIR... [--table] [--verbose] [--only CHECK] [--selftest PROG]

Each DIR is a corpus folder (holding NAME/answers.json and NAME/program.pt2,
as gen.py writes them) or one program's folder. For every program it runs
EXDB once in batch mode with --json and compares, with torch's answers
(oracle.py says what each is):

  graph      print graph          == str(ep.graph)                  (bytes)
  tabular    print tabular        == ep.graph.print_tabular()       (bytes)
  lint       lint: FX's findings   == Graph.lint() ("ok" or its message)
  dce        dce --dry-run         == eliminate_dead_code()'s removed names
  unflatten  unflatten run: completes where torch does; where torch raises,
             stops with torch's message
  events     info events: the COPY/ENTER/EXIT sequence == _ModuleFrame's
  modules    info modules         == named_modules(remove_duplicate=False):
             fqn, kind, original class
  module-graphs  print module FQN  == str(graph) of every module graph, every
             call of a dispatcher (bytes)
  lint-all   lint all: each module graph's FX findings == its Graph.lint()
  dce-all    dce all --dry-run: names removed per module graph
  code       print code           == ep.graph_module.code           (bytes)
  readable   print readable [--stride] [--device] [--color]
                                  == ep.graph_module.print_readable(print_output=False,
                                     include_stride=, include_device=, colored=): all 8
  module-code  print code module FQN == graph.python_code("self").src of every
             module graph (root "" included); print readable module FQN
             (plain and with all three options) == its print_readable(), a
             dispatcher's being its calls' joined by a newline (bytes)
  unlifted   print code module    == ep.module().code, print readable module ==
             ep.module().print_readable()                           (bytes)

Two differences docs/conformance.md lists as deliberate are recognised here
and counted apart ("deliberate"), never as plain passes: an unflatten error
whose message dumps a graph (exdb gives the line before the dump and names
the module), and the order of a module's HOP subgraphs (a Python set's order
in torch). Programs that torch refused to export or save are counted as
"refused by torch", never as a pass.

--selftest PROG first changes each of torch's answers for the program in
folder PROG in turn and checks that exdb is then found to differ (a check
that cannot fail is a defect); those results (one per check) count in the totals.

Prints one line per failing check (all with --verbose), then
"conformance: N passed, M failed" (checks). Exit 1 on any failure.
With --table, the per-corpus table of the README.
Python 3 standard library only.
"""
import difflib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS = ["graph", "tabular", "lint", "dce", "unflatten", "events", "modules",
          "module-graphs", "lint-all", "dce-all", "code", "readable", "module-code", "unlifted"]
OPTS = ["", "s", "d", "c", "sd", "sc", "dc", "sdc"]


def opt_words(o):
    return "".join(w for k, w in (("s", " --stride"), ("d", " --device"), ("c", " --color")) if k in o)


def code_cmds(code):
    """the exdb commands whose answers the code checks compare"""
    if not code or "load_error" in code:
        return []
    cmds = ["print code", "print code module", "print readable module"]
    cmds += ["print readable" + opt_words(o) for o in OPTS]
    u = code.get("unflatten")
    if isinstance(u, dict) and "error" not in u:
        for fqn in sorted({lbl.split("#")[0] for lbl in u}):
            for c in ("print code module ", "print readable module ",
                      "print readable --stride --device --color module "):
                cmds.append(c + quote(fqn))
    return cmds


def code_of(o):
    return (o or {}).get("code")


def class_blocks(text):
    """a print_readable text as its own class and its nested classes in
    name order: torch nests a module's HOP subgraphs in the order
    _copy_graph_attrs added them, a Python set's (see hop_order)"""
    parts = text.rstrip("\n").split("\n\n    class ")
    return [parts[0]] + sorted(parts[1:])


def check_code(res, get, code):
    """the code, readable, module-code and unlifted checks"""
    deliberate = []
    def one(cmd, want):
        if isinstance(want, dict):  # torch raised: exdb need not answer
            return None
        o = get.get(cmd)
        if o is None or not o.get("ok"):
            return f"{cmd}: " + ((o or {}).get("error") or "no answer")
        have = code_of(o)
        if have != want:
            if cmd.startswith("print readable") and " module " in cmd and have and \
                    class_blocks(have) == class_blocks(want):
                deliberate.append(cmd)
                return None
            return f"{cmd}:\n" + diff(want, have or "")
        return None

    if not code or "load_error" in code:
        for c in ("code", "readable", "module-code", "unlifted"):
            res[c] = (True, "torch cannot load the program: nothing to compare")
        return
    bad = one("print code", code["graph_module"])
    res["code"] = (bad is None, bad or "")
    bad = [b for b in (one("print readable" + opt_words(o), code["readable"][o]) for o in OPTS) if b]
    res["readable"] = (not bad, "\n".join(bad))
    bad = [b for b in (one("print code module", code["module"]),
                       one("print readable module", code["module_readable"])) if b]
    res["unlifted"] = (not bad, "\n".join(bad))
    u = code.get("unflatten")
    if not isinstance(u, dict) or "error" in u:
        res["module-code"] = (True, "torch cannot unflatten: nothing to compare")
        return
    bad = []
    for fqn in sorted({lbl.split("#")[0] for lbl in u}):
        calls = [lbl for lbl in u if lbl.split("#")[0] == fqn]
        if calls == [fqn]:
            e = u[fqn]
            want_code, want_r, want_rsdc = e["code"], e["readable"][""], e["readable"]["sdc"]
        else:  # a dispatcher: its calls fqn#0, fqn#1, ...
            calls = sorted(calls, key=lambda x: int(x.split("#")[1]))
            n = len(calls)
            want_code = "\n".join(f"# call {i + 1} of {n}\n" + u[c]["code"] for i, c in enumerate(calls))
            want_r = "\n".join(u[c]["readable"][""] for c in calls)
            want_rsdc = "\n".join(u[c]["readable"]["sdc"] for c in calls)
        for cmd, want in (("print code module ", want_code), ("print readable module ", want_r),
                          ("print readable --stride --device --color module ", want_rsdc)):
            b = one(cmd + quote(fqn), want)
            if b:
                bad.append(b)
    if not bad and deliberate:
        res["module-code"] = (True, "deliberate: HOP subgraph order in " + ", ".join(deliberate))
    else:
        res["module-code"] = (not bad, "\n".join(bad))


def quote(fqn):
    return "'" + fqn.replace("\\", "\\\\").replace("'", "\\'") + "'"


def run_exdb(exdb, pt2, cmds, timeout=600):
    args = [exdb, "-q", "--json", pt2]
    for c in ["set on-error continue"] + cmds:
        args += ["-ex", c]
    args.append("-batch")
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, text=True, errors="replace")
    answers = []
    for line in p.stdout.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if isinstance(o, dict) and "command" in o:
            answers.append(o)
    return p, answers


def diff(a, b, la="torch", lb="exdb"):
    return "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), la, lb, n=1))[:3000]


def text_of(o):
    return (o or {}).get("output", "")


def fx_findings(o, want_module=None):
    """FX Graph.lint findings (check fx.*) of a lint answer, grouped by
    module label."""
    out = {}
    for f in (o or {}).get("findings", []) or []:
        if not f.get("check", "").startswith("fx.") or f.get("severity") != "error":
            continue
        label = f.get("module")
        if label is None:
            label = None if want_module is None else ""
        if f.get("graph"):
            continue  # a HOP subgraph's own finding: torch's lint does not walk those
        out.setdefault(label, []).append(f.get("message", ""))
    return out


def exdb_label(label):
    """the module label exdb gives a graph torch's answers call fqn#i (call i
    of a dispatcher): fqn for the first call, fqn@i after."""
    if "#" not in label:
        return label
    fqn, i = label.rsplit("#", 1)
    return fqn if i == "0" else f"{fqn}@{i}"


def hop_order(mods):
    """a module's HOP subgraph GraphModules in name order: torch adds them
    (_copy_graph_attrs) iterating a Python set, so their order changes with
    PYTHONHASHSEED from one process to the next (docs/conformance.md)"""
    out, i = [], 0
    while i < len(mods):
        j = i
        while j < len(mods) and mods[j][1] == "GraphModule":
            j += 1
        if j > i:
            out += sorted(mods[i:j])
            i = j
        else:
            out.append(mods[i])
            i += 1
    return out


def torch_lint_msg(t):
    """Graph.lint's message without the exception type."""
    return None if t == "ok" else t.split(": ", 1)[1] if ": " in t else t


def compare_program(exdb, d, name, ans):
    """{check: (ok, detail)} for one program."""
    res = {}
    pt2 = os.path.join(d, "program.pt2")
    u = ans["unflatten"]
    uerr = u.get("error")
    mods = u.get("graphs", {}) if not uerr else {}
    cmds = ["print graph", "print tabular", "lint", "unflatten run", "info events",
            "info modules"]
    for fqn in mods:
        cmds.append("print module " + quote(fqn))
    cmds += ["lint all", "dce all --dry-run", "dce --dry-run"]
    cmds += code_cmds(ans.get("code"))
    p, outs = run_exdb(exdb, pt2, cmds)
    by = {}
    for o in outs:
        by.setdefault(o["command"], []).append(o)
    if not outs or not outs[0].get("ok", False):
        msg = (outs[0].get("error") if outs else p.stderr.strip()) or "no answer"
        return {c: (False, "load failed: " + msg) for c in CHECKS}
    get = {}
    i = 1  # outs[0] is the load
    for c in ["set on-error continue"] + cmds:
        if i < len(outs) and outs[i]["command"] == c:
            get[c] = outs[i]
            i += 1
        else:
            # commands answer in order; a missing answer is a crash or a hang
            get[c] = None

    def text_check(check, cmd, want):
        o = get.get(cmd)
        if o is None or not o.get("ok"):
            res[check] = (False, f"{cmd}: " + ((o or {}).get("error") or "no answer"))
            return
        have = text_of(o)
        res[check] = (have.rstrip("\n") == want.rstrip("\n"), diff(want, have))

    check_code(res, get, ans.get("code"))
    text_check("graph", "print graph", ans["graph"])
    # docs/conformance.md: str() of a Python function target (torch.sym_max,
    # the functorch wrappers) shows its address in torch's process, which
    # exdb cannot know; exdb prints as many question marks
    tab = re.sub(r" at 0x[0-9a-f]{12}>", " at 0x????????????>", ans["tabular"])
    text_check("tabular", "print tabular", tab)
    if tab != ans["tabular"] and res["tabular"][0]:
        res["tabular"] = (True, "deliberate: function address")

    # flat lint: FX's checks only (exdb's lint adds export and unflatten checks)
    o = get.get("lint")
    fx = fx_findings(o).get(None, [])
    want = torch_lint_msg(ans["lint"])
    if want is None:
        res["lint"] = (not fx, "exdb finds: " + "; ".join(fx))
    else:
        res["lint"] = (want in fx, f"torch: {want!r}; exdb: {fx!r}")

    o = get.get("dce --dry-run")
    if ans.get("dce") is None:
        ok = o is not None and not o.get("ok")
        res["dce"] = (ok, f"torch raises {ans.get('dce_error')}; exdb: {o and o.get('output')}")
    else:
        have = (o or {}).get("removed")
        have = [r if isinstance(r, str) else r.get("node", r.get("name")) for r in (have or [])]
        ok = o is not None and o.get("ok") and sorted(have) == sorted(ans["dce"])
        res["dce"] = (ok, f"torch {sorted(ans['dce'])} exdb {sorted(have)}")

    o = get.get("unflatten run")
    if uerr:
        stop_err = (o or {}).get("error") or ""
        msg = uerr["message"]
        # docs/conformance.md: a message that dumps a graph is one line in
        # exdb, the dump replaced by the module's name
        cut = msg.split(". Graph: graph():")[0]
        ok = o is not None and not o.get("ok") and cut in stop_err
        if ok and cut != msg:
            res["unflatten"] = (True, "deliberate: graph dump")
        res.setdefault("unflatten", (ok, f"torch raises {uerr['type']}: {uerr['message']!r}; exdb: "
                            + json.dumps({k: (o or {}).get(k) for k in ("ok", "reason", "error")})))
    else:
        ok = o is not None and o.get("ok") and o.get("reason") == "end"
        res["unflatten"] = (ok, "exdb: " + json.dumps({k: (o or {}).get(k) for k in ("ok", "reason", "error")}))

    o = get.get("info events")
    have = []
    for e in (o or {}).get("events", []) or []:
        k = e.get("kind")
        if k == "COPY":
            have.append(["COPY", e.get("fqn", ""), e.get("node")])
        elif k in ("ENTER", "EXIT"):
            have.append([k, e.get("fqn", "")])
    want = u.get("events", [])
    if have == want:
        res["events"] = (True, "")
    else:
        ws = [" ".join(x) for x in want]
        hs = [" ".join(x) for x in have]
        res["events"] = (False, diff("\n".join(ws) + "\n", "\n".join(hs) + "\n"))

    if uerr:
        for c in ("modules", "module-graphs", "lint-all", "dce-all"):
            res[c] = (True, "torch raises: nothing to compare") if c != "modules" else (True, "")
        return res

    o = get.get("info modules")
    have = [[m["fqn"], m["kind"], m.get("type")] for m in (o or {}).get("modules", [])]
    want = u["modules"]
    if have != want and hop_order(have) == hop_order(want):
        res["modules"] = (True, "deliberate: HOP subgraph order")
    else:
        res["modules"] = (have == want, diff("\n".join(map(json.dumps, want)) + "\n",
                                             "\n".join(map(json.dumps, have)) + "\n"))

    bad = []
    for fqn, g in mods.items():
        o = get.get("print module " + quote(fqn))
        if isinstance(g, list):
            # a dispatcher: each call under a header, named as exdb names calls
            want = "\n\n".join(f"# call {i + 1} of {len(g)}: {exdb_label(f'{fqn}#{i}')}\n{x}"
                                for i, x in enumerate(g))
        else:
            want = g
        if o is None or not o.get("ok"):
            bad.append(f"print module {fqn!r}: " + ((o or {}).get("error") or "no answer"))
        elif text_of(o).rstrip("\n") != want.rstrip("\n"):
            bad.append(f"module {fqn!r}:\n" + diff(want, text_of(o)))
    res["module-graphs"] = (not bad, "\n".join(bad))

    o = get.get("lint all")
    found = fx_findings(o, want_module=True)
    bad = []
    for label, t in u.get("lint", {}).items():
        w = torch_lint_msg(t)
        h = found.get(exdb_label(label), [])
        if (w is None and h) or (w is not None and w not in h):
            bad.append(f"{label}: torch {t!r} exdb {h!r}")
    res["lint-all"] = (not bad, "\n".join(bad))

    o = get.get("dce all --dry-run")
    removed = {}
    for r in (o or {}).get("removed", []) or []:
        if isinstance(r, dict):
            removed.setdefault(r.get("module", ""), []).append(r.get("node", r.get("name")))
    bad = []
    want_dce = u.get("dce", {})
    if isinstance(want_dce, str):
        bad.append("torch: " + want_dce)
    else:
        for label, names in want_dce.items():
            if isinstance(names, str):
                continue
            h = removed.get(exdb_label(label), [])
            if sorted(h) != sorted(names):
                bad.append(f"{label}: torch {sorted(names)} exdb {sorted(h)}")
    res["dce-all"] = (not bad, "\n".join(bad))
    return res


def programs(dirs):
    for d in dirs:
        if os.path.exists(os.path.join(d, "answers.json")):
            yield os.path.basename(os.path.normpath(d)), d
            continue
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isdir(p) and os.path.exists(os.path.join(p, "answers.json")):
                yield n, p


def selftest(exdb, d):
    """compare_program must fail each check when torch's answer is changed:
    a check that cannot fail is a defect. Returns the failures of the
    self-test (check names whose perturbation went unnoticed)."""
    import copy
    with open(os.path.join(d, "answers.json")) as f:
        ans = json.load(f)
    if "export_error" in ans or ans["unflatten"].get("error"):
        raise SystemExit(f"selftest: {d} must be a program torch unflattens")
    u = ans["unflatten"]
    fqn = next(iter(u["graphs"]))

    def graphs(a):
        g = a["unflatten"]["graphs"][fqn]
        a["unflatten"]["graphs"][fqn] = g + " " if isinstance(g, str) else g + ["x"]

    def lint_all(a):
        a["unflatten"]["lint"][next(iter(a["unflatten"]["lint"]))] = "RuntimeError: made up"

    def module_code(a):
        e = a["code"]["unflatten"][next(iter(a["code"]["unflatten"]))]
        e["code"] = e["code"].replace("def", "async def", 1)

    def dce_all(a):
        a["unflatten"]["dce"][next(iter(a["unflatten"]["dce"]))].append("made_up")

    perturb = {
        "graph": lambda a: a.__setitem__("graph", a["graph"].replace("%", "%%", 1)),
        "tabular": lambda a: a.__setitem__("tabular", a["tabular"] + "x"),
        "lint": lambda a: a.__setitem__("lint", "RuntimeError: made up"),
        "dce": lambda a: a["dce"].append("made_up"),
        "unflatten": lambda a: a["unflatten"].__setitem__("error", {"type": "X", "message": "made up"}),
        "events": lambda a: a["unflatten"]["events"].pop(),
        "modules": lambda a: a["unflatten"]["modules"][0].__setitem__(1, "Module"),
        "module-graphs": graphs,
        "lint-all": lint_all,
        "dce-all": dce_all,
        "code": lambda a: a["code"].__setitem__("graph_module", a["code"]["graph_module"] + " "),
        "readable": lambda a: a["code"]["readable"].__setitem__("sdc", a["code"]["readable"]["sdc"] + " "),
        "module-code": module_code,
        "unlifted": lambda a: a["code"].__setitem__("module", a["code"]["module"].replace("self", "this", 1)),
    }
    base = compare_program(exdb, d, "selftest", ans)
    unnoticed = [c for c in CHECKS if not base[c][0]]
    if unnoticed:
        raise SystemExit(f"selftest: {d} does not match to begin with: {unnoticed}")
    for c in CHECKS:
        a = copy.deepcopy(ans)
        perturb[c](a)
        if compare_program(exdb, d, "selftest", a)[c][0]:
            unnoticed.append(c)
    return unnoticed


def main(argv):
    verbose = "--verbose" in argv
    table = "--table" in argv
    opt = {}
    for o in ("--only", "--selftest"):
        if o in argv:
            opt[o] = argv[argv.index(o) + 1]
    only = opt.get("--only")
    args = [a for i, a in enumerate(argv[1:], 1)
            if not a.startswith("--") and argv[i - 1] not in opt]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    exdb, dirs = args[0], args[1:]
    passed = failed = refused = deliberate = 0
    if "--selftest" in opt:
        bad = selftest(exdb, opt["--selftest"])
        for c in bad:
            print(f"FAIL selftest: a changed {c} answer went unnoticed")
        passed, failed = len(CHECKS) - len(bad), len(bad)
    corpus_rows = {}
    for name, d in programs(dirs):
        with open(os.path.join(d, "answers.json")) as f:
            ans = json.load(f)
        corpus = os.path.basename(os.path.dirname(os.path.normpath(d)))
        row = corpus_rows.setdefault(corpus, {"programs": 0, "refused": 0,
                                              **{c: [0, 0] for c in CHECKS}})
        row["programs"] += 1
        if "export_error" in ans:
            refused += 1
            row["refused"] += 1
            if verbose:
                print(f"refused {name}: torch refuses: {ans['export_error']['message'][:200]}")
            continue
        res = compare_program(exdb, d, name, ans)
        for c in CHECKS:
            if only and c != only:
                continue
            ok, detail = res[c]
            row[c][1] += 1
            if ok and detail.startswith("deliberate:"):
                deliberate += 1
                row[c][0] += 1
                if verbose:
                    print(f"deliberate {name} {c}: {detail}")
                continue
            if ok:
                passed += 1
                row[c][0] += 1
                if verbose:
                    print(f"ok   {name} {c}")
                continue
            failed += 1
            print(f"FAIL {name} {c}")
            if detail:
                print("     " + detail.replace("\n", "\n     "))
    if table:
        print()
        print("| corpus | programs | torch refuses | " + " | ".join(CHECKS) + " |")
        print("|---|---|---|" + "---|" * len(CHECKS))
        for corpus, row in corpus_rows.items():
            cells = [f"{row[c][0]}/{row[c][1]}" for c in CHECKS]
            print(f"| {corpus} | {row['programs']} | {row['refused']} | " + " | ".join(cells) + " |")
    extra = f", {deliberate} deliberate" if deliberate else ""
    print(f"conformance: {passed} passed, {failed} failed{extra}, {refused} refused by torch")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
