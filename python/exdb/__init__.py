"""exdb from Python: the torch.export debugger on a program or a file.

exdb is a C program; this package runs the one the wheel carries. torch is
optional: it is imported only when a function is given an
``ExportedProgram``, which is then saved to a temporary ``.pt2`` for exdb.

>>> import exdb
>>> exdb.run("model.pt2", "unflatten run", "info modules")[1]["modules"][0]["fqn"]
''
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import tempfile
from typing import Any

from ._binary import binary
from ._errors import Error
from ._program import Program, program_path, quote
from ._version import __version__

__all__ = ["Error", "Program", "Viewer", "__version__", "binary", "debug", "render", "run", "show"]


def debug(program: Program, *commands: str) -> int:
    """Open exdb's prompt in the current terminal on ``program``.

    ``commands`` run first, as ``-ex`` options do. Returns exdb's exit status
    once you quit. Without a terminal on standard input exdb reads its
    commands from there instead, as the ``exdb`` command does.

    Args:
        program: a ``.pt2`` or program JSON path, or a ``torch.export.ExportedProgram``.
        commands: exdb commands to run before the prompt.
    """
    with program_path(program) as path:
        args = [binary(), path]
        for c in commands:
            args += ["-ex", c]
        return subprocess.call(args)


def _answers(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def run(program: Program, *commands: str, timeout: float | None = None) -> list[dict[str, Any]]:
    """Run exdb commands on ``program`` and return their JSON answers.

    exdb loads the program, runs each command in order (``exdb --json
    -batch FILE -ex CMD...``) and answers each with one JSON object:
    ``command``, ``ok``, the command's own fields and ``output`` (the text
    it would print); docs/json.md lists them. The list holds one answer per
    command, in order.

    Args:
        program: a ``.pt2`` or program JSON path, or a ``torch.export.ExportedProgram``.
        commands: exdb commands (``"unflatten run"``, ``"info modules"``, ...).
        timeout: seconds before the run is given up (``subprocess.TimeoutExpired``).

    Raises:
        Error: the program could not be loaded or a command failed, with
            exdb's one-line message; ``answers`` holds the commands' answers
            before it.
    """
    with program_path(program) as path:
        args = [binary(), "-q", "--json", "-batch", path]
        for c in commands:
            args += ["-ex", c]
        proc = subprocess.run(
            args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    answers = [a for a in _answers(proc.stdout) if "command" in a]
    if not answers or not answers[0].get("ok"):
        msg = answers[0].get("error") if answers else None
        stderr = proc.stderr.strip().splitlines()
        raise Error(msg or (stderr[-1] if stderr else f"exdb exited with status {proc.returncode}"))
    answers = answers[1:]
    for i, a in enumerate(answers):
        if not a.get("ok"):
            raise Error(a.get("error") or "failed", a.get("command"), answers[:i])
    if proc.returncode != 0:
        stderr = proc.stderr.strip().splitlines()
        raise Error(stderr[-1] if stderr else f"exdb exited with status {proc.returncode}")
    return answers


def render(program: Program, view: str, path: str | os.PathLike[str]) -> dict[str, Any]:
    """Draw ``view`` of ``program`` into the file ``path`` and return exdb's answer.

    The file's extension picks the format: ``.svg``, ``.html`` (the
    interactive viewer, one self-contained page), ``.dot``. The wheel draws
    with Graphviz's dot, sfdp and core plugins: PNG and PDF need exdb built
    from source with Graphviz's cairo plugin.

    Args:
        program: a ``.pt2`` or program JSON path, or a ``torch.export.ExportedProgram``.
        view: what to draw, as the words after ``render`` (``"modules"``,
            ``"modules --depth 3"``, ``"flat --hide state"``, ``"module layer1"``, ``"tree"``).
        path: the file to write.

    Raises:
        Error: exdb's message when it could not draw or write the file.
    """
    return run(program, f"render {view} -o {quote(os.fspath(path))}")[0]


class Viewer:
    """exdb's HTML viewer page, shown inline by Jupyter (``_repr_html_``).

    The page is self-contained: Jupyter shows it in an ``<iframe srcdoc>``,
    with no server and nothing fetched from the network.

    Attributes:
        html: the page.
        height: the frame's height in pixels.
    """

    def __init__(self, page: str, height: int = 600) -> None:
        self.html = page
        self.height = height

    def _repr_html_(self) -> str:
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            f'style="width:100%;height:{int(self.height)}px;border:1px solid #ccc" '
            'sandbox="allow-scripts"></iframe>'
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the page to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)


def show(program: Program, view: str = "modules", height: int = 600) -> Viewer:
    """Return exdb's HTML viewer of ``program`` for a notebook to show inline.

    The last expression of a Jupyter cell, or ``IPython.display.display(...)``,
    shows it: the same page as ``render VIEW -o FILE.html``.

    Args:
        program: a ``.pt2`` or program JSON path, or a ``torch.export.ExportedProgram``.
        view: what to draw, as for :func:`render` (default ``"modules"``).
        height: the frame's height in pixels.

    Raises:
        Error: exdb's message when it could not draw the view.
    """
    with tempfile.TemporaryDirectory(prefix="exdb-") as tmp:
        page = os.path.join(tmp, "view.html")
        render(program, view, page)
        with open(page, encoding="utf-8") as f:
            return Viewer(f.read(), height)
