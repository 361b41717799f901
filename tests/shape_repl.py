#!/usr/bin/env python3
"""shape_repl.py EXDB GOOD BAD - the REPL in a pseudo-terminal on programs
opened shape first (EXDB_SHAPE_FIRST_MIN=0; docs/json-reader.md, "Shape
first"), whose IR is built in a thread of its own from the load line on.
GOOD is a program that loads; BAD one the whole load refuses in a node far
on (its one-line message: `exdb BAD -batch`). Driven by states, never by
time: each step sends a line and waits until the terminal shows what it
must (a deadline of 120 s per step is only a guard against a hang).

  - BAD: `info program` answers from the shape; the first command that
    needs the IR (`print code`) says the load's message; the REPL stays:
    `info program` then says no program is loaded; `load GOOD` at the
    prompt works and `print code` answers; `quit` exits 0.
  - `load BAD` at the prompt, then at once `load GOOD` (the first's build
    still running or refused), and `print code`: GOOD's code.
  - GOOD, then `quit` as soon as the prompt shows (the build most likely
    running: `quit` waits for it): exit 0, nothing on the terminal after
    the prompt but the echo (no sanitizer report).
  - Tab while the build is held (EXDB_TEST_BUILD_GATE): a module name
    completes from the shape, a node name has none yet; neither waits.
  - Ctrl-C while `print code` waits for the build (held by
    EXDB_TEST_BUILD_GATE until the test lets it go): Quit, the REPL alive,
    `info program` answers from the shape; the build let go, `print code`
    answers.
  - the same with descriptors 3..1100 open (inherited): the build's pipe
    past select's FD_SETSIZE, Ctrl-C still stops the wait.
  - a program unflatten refuses: `info modules` twice and `print module ""`
    each say unflatten's error (no half-made tree).
Prints "ok   ..." or "FAIL ..." per check and exits 1 if any failed."""
import os
import pty
import re
import resource
import select
import subprocess
import sys
import tempfile
import time

EXDB, GOOD, BAD = sys.argv[1:4]
PROMPT = "(exdb) "
STEP = 120.0  # seconds: a guard against a hang, never a pace
fails = 0


def check(ok, what, text=""):
    global fails
    print(("ok   shape-repl: " if ok else "FAIL shape-repl: ") + what)
    if not ok:
        fails += 1
        for line in text.splitlines()[-8:]:
            print("     | " + line[:200])


class Session:
    """exdb FILE in a pseudo-terminal: send lines, wait for text."""

    def __init__(self, *args, **more_env):
        env = dict(os.environ, EXDB_SHAPE_FIRST_MIN="0", TERM="dumb", NO_COLOR="1", **more_env)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(EXDB, [EXDB, "-q", *args], env)
        self.text = ""
        self.seen = 0  # what the waits so far have consumed

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the other side closed: exdb exited
            return None
        if not data:
            return None
        self.text += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def wait_for(self, pattern):
        """Until pattern (a regex) shows after what earlier waits consumed;
        the text up to its end is then consumed. The match or None."""
        deadline = time.monotonic() + STEP
        while True:
            m = re.compile(pattern, re.M).search(self.text, self.seen)
            if m:
                self.seen = m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0 or self.read(left) is None:
                return None

    def send(self, line):
        os.write(self.fd, (line + "\n").encode())

    def command(self, line):
        """Sends line and waits for the next prompt: its output (None on a
        hang or exit)."""
        self.send(line)
        start = self.seen
        m = self.wait_for(re.escape(PROMPT))
        return self.text[start:m.start()] if m else None

    def exit_status(self):
        deadline = time.monotonic() + STEP
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self.read(0):
                    pass
                return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
            self.read(0.05)  # drain the terminal so exdb never blocks on it
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        return None


msg = subprocess.run([EXDB, "-q", BAD, "-batch"], capture_output=True, text=True,
                     env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0")).stderr.strip()
if not msg or "\n" in msg:
    check(False, "the whole load refuses BAD with one line", msg)
    sys.exit(1)

# BAD: the shape answers, the first IR command says the load's message
s = Session(BAD)
s.wait_for(re.escape(PROMPT))
out = s.command("info program")
check(out is not None and "serialized nodes:" in out, "info program answers from the shape", s.text)
out = s.command("print code")
check(out is not None and msg in out, "print code says the load's message", s.text)
out = s.command("info program")
check(out is not None and "No program loaded." in out, "then no program, the REPL alive", s.text)
out = s.command("load " + GOOD)
check(out is not None and "Loaded " in out,
      "load GOOD at the prompt after it", s.text)
out = s.command("print code")
check(out is not None and "def forward(" in out, "print code answers on GOOD", s.text)
s.send("quit")
rc = s.exit_status()
check(rc == 0 and "ERROR" not in s.text[s.seen:], "quit exits 0 (exit %s)" % rc, s.text)

# load BAD then GOOD at once at the prompt, its build running or refused
s = Session(GOOD)
s.wait_for(re.escape(PROMPT))
out = s.command("load " + BAD)
check(out is not None and "Loaded " in out, "load BAD at the prompt: the shape opens", s.text)
out = s.command("load " + GOOD)
check(out is not None and "Loaded " in out, "load GOOD at once after it", s.text)
out = s.command("print code")
check(out is not None and "def forward(" in out and msg not in out,
      "print code: GOOD's code, not BAD's message", s.text)
s.send("quit")
rc = s.exit_status()
check(rc == 0 and "ERROR" not in s.text[s.seen:], "quit exits 0 (exit %s)" % rc, s.text)

# quit during the build
s = Session(GOOD)
s.wait_for(re.escape(PROMPT))
s.send("quit")
rc = s.exit_status()
check(rc == 0 and "ERROR" not in s.text[s.seen:] and "Sanitizer" not in s.text,
      "quit as the prompt shows, the build running: exit 0 (exit %s)" % rc, s.text)
# Ctrl-C while a command waits for the build: the build is held at the gate
# (a FIFO its thread reads a byte from), so the wait is certain to be on
gate = os.path.join(tempfile.mkdtemp(), "gate")
os.mkfifo(gate)
s = Session(GOOD, EXDB_TEST_BUILD_GATE=gate)
s.wait_for(re.escape(PROMPT))
# Tab while the build is held never waits for it: a module name completes
# from the shape, a node name has none yet; each used to wait
# for the whole build, saying nothing and deaf to Ctrl-C
os.write(s.fd, b"print module embed_t\t")
done = s.wait_for(r"print module embed_tokens ")
check(done is not None, "Tab on a module while the build is held: the shape's name", s.text)
# Ctrl-U: the line emptied first; the keys after the Tab echo only once the
# completion has returned (the terminal is raw: the line editor echoes)
os.write(s.fd, b"\x15info nodes outp\tut")
typed = s.wait_for(r"info nodes output")
check(typed is not None, "Tab on a node while the build is held: no candidate, no wait", s.text)
os.write(s.fd, b"\x15")
s.wait_for(r"\r\(exdb\) \Z")  # the emptied line redrawn
out = s.command("info program")
check(out is not None and "serialized nodes:" in out,
      "then info program answers from the shape", s.text)
s.send("print code")
waiting = s.wait_for(r"Reading the nodes of .*\(Ctrl-C to stop waiting\)")
os.write(s.fd, b"\x03")  # the terminal's Ctrl-C
start = s.seen
m = s.wait_for(re.escape(PROMPT))
out = s.text[start:m.start()] if m else None
check(waiting is not None and out is not None and "Quit" in out and "def forward(" not in out,
      "Ctrl-C while print code waits for the build: Quit, the prompt back", s.text)
out = s.command("info program")
check(out is not None and "serialized nodes:" in out,
      "then info program answers from the shape, the build held", s.text)
with open(gate, "wb") as g:  # the build let go
    g.write(b"x")
out = s.command("print code")
check(out is not None and "def forward(" in out, "the build let go: print code answers", s.text)
s.send("quit")
rc = s.exit_status()
check(rc == 0 and "Sanitizer" not in s.text, "then quit exits 0 (exit %s)" % rc, s.text)
# The same with descriptors 3..1100 taken (inherited, as from a shell that
# holds many open): the build's pipe is past select's FD_SETSIZE (1024),
# where the wait used to ignore Ctrl-C while saying it would stop
extra = []
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard == resource.RLIM_INFINITY or hard >= 1200:
    if soft != resource.RLIM_INFINITY and soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1200, hard))
    while not extra or extra[-1] < 1100:
        extra.append(os.open(os.devnull, os.O_RDONLY))
        os.set_inheritable(extra[-1], True)
    s = Session(GOOD, EXDB_TEST_BUILD_GATE=gate)
    for fd in extra:
        os.close(fd)
    low = os.dup(s.fd)  # the terminal's side below FD_SETSIZE (this test's select)
    os.close(s.fd)
    s.fd = low
    s.wait_for(re.escape(PROMPT))
    s.send("print code")
    waiting = s.wait_for(r"Reading the nodes of .*\(Ctrl-C to stop waiting\)")
    os.write(s.fd, b"\x03")
    start = s.seen
    m = s.wait_for(re.escape(PROMPT))
    out = s.text[start:m.start()] if m else None
    check(waiting is not None and out is not None and "Quit" in out,
          "Ctrl-C stops the wait with 1100 descriptors open: Quit", s.text)
    with open(gate, "wb") as g:
        g.write(b"x")
    if m is None:  # the prompt comes when the build ends
        s.wait_for(re.escape(PROMPT))
    out = s.command("print code")
    check(out is not None and "def forward(" in out, "then print code answers", s.text)
    s.send("quit")
    check(s.exit_status() == 0, "then quit exits 0", s.text)
else:
    print("ok   shape-repl: (skipped: descriptors limited to %d)" % hard)
os.unlink(gate)
os.rmdir(os.path.dirname(gate))

# a program unflatten refuses: every command that reads its module tree
# says so, not only the first (the second `info modules` showed the tree
# the refused run had made so far, as if it were the answer)
REFUSED = "tests/fixtures/unflatten/error_preserved_dead_parent.json"
s = Session(REFUSED)
s.wait_for(re.escape(PROMPT))
first = s.command("info modules")
again = s.command("info modules")
code = s.command("print module \"\"")
check(first is not None and "AssertionError" in first and again is not None and
      "AssertionError" in again and "UnflattenedModule" not in again and code is not None and
      "AssertionError" in code, "a refused unflatten: info modules says so every time", s.text)
s.send("quit")
s.exit_status()
sys.exit(1 if fails else 0)
