#!/usr/bin/env python3
"""golden_echo_check.py - after `UPDATE=1 tests/run_golden.sh EXDB`, proves
that the rewritten tests/golden/*.out differ from git's REV (default HEAD)
only by "(exdb) CMD" echo lines (exdb --echo), and that the echo lines are
the goldens' own commands.

  python3 scripts/golden_echo_check.py [REV]

For each .out: with the echo lines taken out of both, REV's file and the
working copy's are byte for byte the same (no answer changed); the new file
has echo lines; and the script's commands (its .cmd lines that are not
blank or comments, and the -ex commands of its "# args:" line) appear
among the echo lines in order (those after a stop excepted). Prints one line per golden that fails and
"golden-echo: N same, M failed, K new" (K: no file at REV).
"""
import glob
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECHO = b"(exdb) "


def at_rev(rev, path):
    p = subprocess.run(["git", "show", "%s:%s" % (rev, path)], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p.stdout if p.returncode == 0 else None


def strip(text):
    return b"".join(l for l in text.splitlines(True) if not l.startswith(ECHO))


def commands(cmd_path):
    lines = open(cmd_path, "rb").read().splitlines()
    out = []
    if lines and lines[0].startswith(b"# args:"):
        args = shlex.split(lines[0][7:].decode())
        out += [args[i + 1].encode() for i, a in enumerate(args[:-1]) if a == "-ex"]
    for l in lines:
        if l.strip() and not l.lstrip().startswith(b"#"):
            out.append(l)
    return out


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
    same = failed = new = lines = 0
    for out in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.out"))):
        rel = os.path.relpath(out, ROOT)
        name = os.path.basename(out)
        now = open(out, "rb").read()
        old = at_rev(rev, rel)
        errs = []
        if old is None:
            new += 1
        elif strip(old) != strip(now):
            errs.append("an answer changed (diff with the echo lines taken out)")
        echoed = [l[len(ECHO):] for l in now.splitlines() if l.startswith(ECHO)]
        if not echoed:
            errs.append("no echo line")
        # in order; the commands after a script stopped (a failing command
        # in batch mode, quit) are never read, so never echoed: a missing
        # tail is fine, a gap is not
        cmds = commands(out[:-4] + ".cmd")
        k = 0
        for e in echoed:
            if k < len(cmds) and e == cmds[k]:
                k += 1
        last = max((i for i, c in enumerate(cmds) if c in echoed), default=-1)
        if k <= last:
            errs.append("command %r not echoed in order" % cmds[k].decode())
        lines += len(echoed)
        if errs:
            failed += 1
            print("FAIL %s: %s" % (name, "; ".join(errs)))
        elif old is not None:
            same += 1
    print("golden-echo: %d same, %d failed, %d new (%d echo lines)" % (same, failed, new, lines))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
