#!/usr/bin/env python3
"""long_session.py - a long exdb session through the real command loop.

    tests/long_session.py [--cycles N] [--wrapper 'valgrind ...'] EXDB

Starts EXDB with no file (commands come from a pipe, the way a script or an
editor integration feeds it) and sends N cycles (default 1,000). Each cycle
loads the next program of a fixed rotation (the bundled example, the dce
fixtures, unflatten scenarios, and every 25th cycle resnet18 from
../shared/real_pt2 when it is there), then: steps the unflatten machine
forwards and back (stepi, reverse-stepi, step, reverse-step, goto, next,
finish, a breakpoint, run, restart), prints the frame stack, the module tree
and a module's graph, lints, runs dce and undo where the program has dead
code, and renders the flat graph and the module view to DOT.

After every cycle it sends "echo @@N", waits for that line, and checks the
cycle's output (undo restores what dce removed, goto lands on its event,
both renders were written, the cycle's load succeeded). It reads the
process's resident set size (VmRSS in /proc/PID/status) after the first
cycle, after the warm-up (every program loaded once and the allocator's
caches filled: WARMUP cycles, default 100 or a tenth of N) and at the end,
prints them, and fails when RSS grew by more than MAX_GROWTH_MIB (default
16) between the warm-up and the end. At the end it sends "quit" and
requires exit status 0 and nothing on stderr but notes (so a LeakSanitizer
or valgrind report fails it). Prints exactly

    long-session: P passed, F failed

where the three checks counted are: all cycles answered right, the RSS bound, a clean
exit. Under ASan, run with a small quarantine (run_long_session.extra.sh
sets quarantine_size_mb=16) or the quarantine itself looks like growth.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = os.environ.get("REAL_PT2", os.path.join(os.path.dirname(ROOT), "shared", "real_pt2"))

# (path, has dead code for dce/undo, an event K for "goto K", whether event K
# is inside a module frame, so that "finish" has a frame to leave)
PROGRAMS = [
    ("tests/fixtures/example.json", True, 60, True),
    ("tests/fixtures/dce/dead_pure.json", True, 5, False),
    ("tests/fixtures/unflatten/double_nested.json", False, 3, True),
    ("tests/fixtures/dce/getitems.json", True, 5, False),
    ("tests/fixtures/unflatten/shared_submodule_1.json", False, 8, True),
    ("tests/fixtures/dce/impure.json", True, 5, False),
    ("tests/fixtures/unflatten/buffer_mutation.json", False, 6, True),
]
RESNET = ("TheCBaH__pytorch.models.pt2__resnet18__model.json", True, 200, True)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def cycle_commands(i, prog, has_dead, goto_k, nested, out_dir):
    dot = os.path.join(out_dir, "c%d.dot" % (i % 2))
    mod = os.path.join(out_dir, "m%d.dot" % (i % 2))
    cmds = [
        "set trace-commands on",
        "load '%s'" % prog,
        "stepi 25",
        "reverse-stepi 10",
        "step 3",
        "reverse-step 2",
        "goto %d" % goto_k,
        "backtrace",
    ]
    if nested:
        cmds += ["up", "down", "finish"]
    cmds += [
        "next",
        "reverse-next",
        "list",
        "break event sink",
        "run",
        "delete",
        "restart",
        "unflatten run",
        "info modules",
        "print module ''",
        "lint",
    ]
    if has_dead:
        cmds += ["dce", "undo", "info facts"]
    cmds += [
        "render flat -o '%s'" % dot,
        "render modules --depth 2 -o '%s'" % mod,
        "echo @@%d" % i,
    ]
    return cmds


def split_commands(text):
    """The cycle's output as [(command, its output)], from the "+command"
    lines that "set trace-commands on" prints."""
    parts = []
    for ln in text.splitlines():
        if ln.startswith("+"):
            parts.append((ln[1:], []))
        elif parts:
            parts[-1][1].append(ln)
    return [(c, "\n".join(o)) for c, o in parts]


def check_cycle(text, i, prog, has_dead, goto_k):
    """What must be in one cycle's output; returns a reason or None."""
    outs = split_commands(text)
    got = dict(outs)
    if not got.get("load '%s'" % prog, "").startswith("Loaded "):
        return "load printed no \"Loaded\" line for %s" % prog
    if not got.get("goto %d" % goto_k, "").startswith("[%d] " % goto_k):
        return "goto %d did not land on event %d" % (goto_k, goto_k)
    # the first command that makes the run may print its prepass notes first
    stepi = "\n".join(l for l in got.get("stepi 25", "").split("\n") if not l.startswith("note: "))
    if not stepi.startswith("[1] "):
        return "stepi 25 did not start at event 1"
    if not got.get("unflatten run", ""):
        return "unflatten run printed nothing"
    if has_dead:
        removed = got.get("dce", "").splitlines()
        restored = got.get("undo", "").splitlines()
        if not removed or not removed[0].startswith("Removed ") or not restored:
            return "dce removed nothing or undo restored nothing"
        if removed[0].split()[1] != restored[0].split()[1]:
            return "undo restored %s nodes, dce removed %s" % (
                restored[0].split()[1], removed[0].split()[1])
    renders = [o for c, o in outs if c.startswith("render ")]
    if len(renders) != 2 or not all(o.startswith("Wrote ") for o in renders):
        return "a render wrote no file"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exdb")
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=None)
    ap.add_argument("--max-growth-mib", type=float, default=16.0)
    ap.add_argument("--wrapper", default="", help="a command line to run exdb under")
    a = ap.parse_args()
    warmup = a.warmup if a.warmup is not None else min(100, max(1, a.cycles // 10))
    programs = list(PROGRAMS)
    have_resnet = os.path.exists(os.path.join(REAL, RESNET[0]))
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="exdb-long-")
    err_path = os.path.join(tmp, "stderr")
    argv = shlex.split(a.wrapper) + [os.path.abspath(a.exdb), "-q"]
    with open(err_path, "wb") as err:
        p = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=err, bufsize=0)
    out = p.stdout
    pending = b""

    def read_until(marker):
        nonlocal pending
        chunks = [pending]
        buf = pending
        while marker not in buf:
            data = os.read(out.fileno(), 1 << 16)
            if not data:
                return None
            chunks.append(data)
            buf = b"".join(chunks) if len(chunks) > 1 else data
            chunks = [buf]
        k = buf.index(marker) + len(marker)
        pending = buf[k:]
        return buf[:k].decode("utf-8", "replace")

    rss_first = rss_warm = None
    status = None
    bad_cycles = 0  # the cycles count as one test: every cycle's answers were right
    for i in range(1, a.cycles + 1):
        if have_resnet and i % 25 == 0:
            prog, has_dead, goto_k, nested = (os.path.join(REAL, RESNET[0]),) + RESNET[1:]
        else:
            prog, has_dead, goto_k, nested = programs[i % len(programs)]
        cmds = cycle_commands(i, prog, has_dead, goto_k, nested, tmp)
        try:
            p.stdin.write(("\n".join(cmds) + "\n").encode())
        except BrokenPipeError:
            status = "exdb stopped before cycle %d" % i
            break
        text = read_until(b"@@%d\n" % i)
        if text is None:
            status = "exdb stopped in cycle %d (a command failed: see stderr)" % i
            break
        why = check_cycle(text, i, prog, has_dead, goto_k)
        if why:
            bad_cycles += 1
            if bad_cycles <= 5:
                print("FAIL cycle %d (%s): %s" % (i, os.path.basename(prog), why))
        if i == 1:
            rss_first = rss_kib(p.pid)
        if i == warmup:
            rss_warm = rss_kib(p.pid)
    rss_end = rss_kib(p.pid) if status is None else -1
    try:
        p.stdin.write(b"quit\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    out.read()  # whatever quit printed
    rc = p.wait()
    with open(err_path, "rb") as f:
        err_text = f.read().decode("utf-8", "replace")
    if status:
        print("FAIL %s" % status)
        failed += 1
    elif bad_cycles:
        print("FAIL %d of %d cycles answered wrongly" % (bad_cycles, a.cycles))
        failed += 1
    else:
        passed += 1
    print("cycles: %d (%d programs%s), each: load, stepi/reverse-stepi/step/reverse-step/goto/"
          "next/reverse-next/finish, break+run, restart, unflatten, lint, dce+undo, 2 renders"
          % (a.cycles, len(programs), ", resnet18 every 25th" if have_resnet else ""))
    if rss_first is not None and rss_warm is not None and status is None:
        growth = (rss_end - rss_warm) / 1024.0
        print("RSS after cycle 1: %.1f MiB; after cycle %d (warm-up): %.1f MiB; after cycle %d: "
              "%.1f MiB; growth after warm-up %.1f MiB (limit %.1f)"
              % (rss_first / 1024.0, warmup, rss_warm / 1024.0, a.cycles, rss_end / 1024.0,
                 growth, a.max_growth_mib))
        if growth > a.max_growth_mib:
            print("FAIL RSS grew by %.1f MiB after the warm-up" % growth)
            failed += 1
        else:
            passed += 1
    # notes ("note: unflatten removes N dead nodes first ...") go to stderr
    # once per run; anything else there is a failure
    err_text = "\n".join(l for l in err_text.splitlines() if not l.startswith("note: "))
    if rc != 0 or err_text.strip():
        print("FAIL exit status %d; stderr: %s" % (rc, err_text.strip()[:2000]))
        failed += 1
    else:
        passed += 1
    subprocess.call(["rm", "-rf", tmp])
    print("long-session: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
