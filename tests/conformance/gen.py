"""gen.py - export the conformance corpus with torch and save torch's answers.

  python gen.py scenarios OUTDIR [NAME-GLOB]   every scenario variant (scenarios.py)
  python gen.py random OUTDIR N SEED           N programs of the random generator
  python gen.py archs OUTDIR [NAME-GLOB]       the transformers architectures

--shard K/J (anywhere) makes only every J-th program, from the K-th: J
processes share the work.

Each program becomes OUTDIR/NAME/ with program.pt2 and answers.json
(oracle.py); a module torch refuses to export gets answers.json with
export_error only ("torch refuses"). Prints one line per program.
Needs torch (scripts/deps.sh conformance).
"""
import contextlib
import fnmatch
import io
import os
import shutil
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import oracle  # noqa: E402


def export_one(outdir, name, make, strict, preserve, dynamic=None, meta=None, post=None):
    d = os.path.join(outdir, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    extra = {"name": name, "strict": strict, "preserve": list(preserve)}
    extra.update(meta or {})
    torch.manual_seed(0)
    out = io.StringIO()  # torch 2.13's _IVals prints "Checking mutability ..."
    try:
        with contextlib.redirect_stdout(out):
            return _export_one(d, name, make, strict, preserve, dynamic, extra, post)
    finally:
        sys.stdout.flush()


def _export_one(d, name, make, strict, preserve, dynamic, extra, post):
    def say(line):
        print(line, file=sys.__stdout__, flush=True)

    try:
        mod, args, kwargs = make()
        ep = torch.export.export(mod, args, kwargs or None, strict=strict,
                                 preserve_module_call_signature=tuple(preserve),
                                 dynamic_shapes=dynamic)
        if post:
            ep = post(ep)
    except Exception as e:  # noqa: BLE001 - torch refusing is the answer
        _reset_functorch()
        oracle.write_refusal(d, e, extra)
        say(f"{name}: torch refuses: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return False
    try:
        a = oracle.write(ep, d, extra)
    except Exception as e:  # noqa: BLE001 - e.g. torch.export.save refusing a constant
        oracle.write_refusal(d, e, dict(extra, refused_by="torch.export.save"))
        say(f"{name}: torch refuses to save: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return False
    err = a["unflatten"]["error"]
    say(f"{name}: exported, unflatten " + ("ok" if not err else f"raises {err['type']}"))
    return True


def _reset_functorch():
    """an export that fails inside torch.vmap/grad/jvp leaves its functorch
    levels on the interpreter stack, which would break every later export
    of this process ("vmap: called random operation ...")"""
    f = torch._C._functorch
    if f.get_dynamic_layer_stack_depth() > 0:
        f.pop_dynamic_layer_stack_and_undo_to_depth(0)


def main(argv):
    warnings.filterwarnings("ignore")
    shard_k, shard_j = 0, 1
    if "--shard" in argv:
        i = argv.index("--shard")
        shard_k, shard_j = map(int, argv[i + 1].split("/"))
        argv = argv[:i] + argv[i + 2:]
    count = [0]

    def mine():
        count[0] += 1
        return (count[0] - 1) % shard_j == shard_k
    what, outdir = argv[1], argv[2]
    os.makedirs(outdir, exist_ok=True)
    if what == "scenarios":
        import scenarios
        pat = argv[3] if len(argv) > 3 else "*"
        for name, s, st, p, post in scenarios.variants():
            if fnmatch.fnmatch(name, pat) and mine():
                export_one(outdir, name, s["make"], st, p, s["dynamic"],
                           {"upstream": s["upstream"]}, post)
    elif what == "random":
        import randgen
        n, seed = int(argv[3]), int(argv[4])
        for i in range(n):
            if not mine():
                continue
            name, make, st, p, dyn = randgen.program(seed, i)
            export_one(outdir, name, make, st, p, dyn, {"seed": seed, "index": i})
    elif what == "archs":
        import archs
        pat = argv[3] if len(argv) > 3 else "*"
        for name, make, st, p, dyn, post in archs.programs():
            if fnmatch.fnmatch(name, pat) and mine():
                export_one(outdir, name, make, st, p, dyn, post=post)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
