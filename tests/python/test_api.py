"""The exdb package against programs torch 2.13 made (conftest.py)."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import exdb

torch = pytest.importorskip("torch")


def test_run_answers_each_command(ep) -> None:
    answers = exdb.run(ep, "unflatten run", "info modules")
    assert [a["command"] for a in answers] == ["unflatten run", "info modules"]
    assert all(a["ok"] for a in answers)
    assert answers[0]["done"] is True


def test_info_modules_is_torch_unflatten(ep) -> None:
    # torch's own unflatten names the same modules in the same order
    mods = exdb.run(ep, "unflatten run", "info modules")[1]["modules"]
    want = [n for n, _ in torch.export.unflatten(ep).named_modules(remove_duplicate=False)]
    assert [m["fqn"] for m in mods] == want


def test_print_code_is_graph_module_code(ep, pt2) -> None:
    out = exdb.run(pt2, "print code")[0]["output"]
    assert out.strip() == ep.graph_module.code.strip()


def test_path_and_pathlike(pt2) -> None:
    a = exdb.run(str(pt2), "info program")[0]
    b = exdb.run(Path(pt2), "info program")[0]
    assert a["program"]["nodes"] == b["program"]["nodes"] > 0
    assert a["program"]["format"] == "pt2"


def test_python_signals_untouched(pt2) -> None:
    # exdb runs as a child process: its SIGBUS guard for a mapped program
    # (core/base/filemap.c) never lands in Python, whose faulthandler and
    # signal handlers stay as they were.
    import faulthandler

    was = faulthandler.is_enabled()
    faulthandler.enable()
    before = {s: signal.getsignal(s) for s in (signal.SIGBUS, signal.SIGSEGV, signal.SIGINT)}
    try:
        assert exdb.run(pt2, "info program")[0]["program"]["format"] == "pt2"
        assert faulthandler.is_enabled()
        assert {s: signal.getsignal(s) for s in before} == before
    finally:
        if not was:
            faulthandler.disable()


def test_error_is_exdbs_one_line_message(pt2) -> None:
    with pytest.raises(exdb.Error) as e:
        exdb.run(pt2, "info program", "print node no_such_node", "info modules")
    assert e.value.command == "print node no_such_node"
    assert "no_such_node" in str(e.value) and "\n" not in str(e.value)
    assert [a["command"] for a in e.value.answers] == ["info program"]


def test_error_when_the_file_does_not_load(tmp_path) -> None:
    missing = tmp_path / "missing.pt2"
    with pytest.raises(exdb.Error, match="No such file"):
        exdb.run(missing, "info program")
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"not a zip")
    with pytest.raises(exdb.Error) as e:
        exdb.run(bad)
    assert e.value.command is None and "bad.pt2" in str(e.value)


def test_not_a_program() -> None:
    with pytest.raises(TypeError, match="ExportedProgram"):
        exdb.run(42, "info program")


def test_temporary_pt2_removed(ep, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    exdb.run(ep, "info program")
    with pytest.raises(exdb.Error):
        exdb.run(ep, "no-such-command")
    assert list(tmp_path.iterdir()) == []


def test_render_files(ep, tmp_path) -> None:
    svg, html = tmp_path / "m.svg", tmp_path / "it's a page.html"
    answer = exdb.render(ep, "modules", svg)
    assert answer["ok"] and svg.read_text().lstrip().startswith("<")
    assert "<svg" in svg.read_text()
    exdb.render(ep, "flat --hide state", html)
    assert "<html" in html.read_text()
    with pytest.raises(exdb.Error, match="nosuch"):
        exdb.render(ep, "module nosuch", tmp_path / "x.svg")


def test_show_is_an_inline_page(ep) -> None:
    viewer = exdb.show(ep, view="modules", height=400)
    assert "<html" in viewer.html and "<script" in viewer.html
    frame = viewer._repr_html_()
    assert frame.startswith('<iframe srcdoc="') and "height:400px" in frame
    # the page is in the attribute, escaped: no quote ends it early
    inner = frame[len('<iframe srcdoc="') : frame.index('" style=')]
    assert '"' not in inner and "<" not in inner
    # nothing fetched: no src= or href= to a network address
    for attr in ("src=", "href=", "url("):
        for scheme in ("http:", "https:", "//"):
            assert attr + '"' + scheme not in viewer.html
            assert attr + "'" + scheme not in viewer.html


def test_python_m_exdb_is_exdb(pt2) -> None:
    env = dict(os.environ)
    m = subprocess.run([sys.executable, "-m", "exdb", "--version"], capture_output=True, text=True)
    direct = subprocess.run([exdb.binary(), "--version"], capture_output=True, text=True, env=env)
    assert m.stdout == direct.stdout == f"exdb {exdb.__version__}\n"
    batch = subprocess.run(
        [sys.executable, "-m", "exdb", "-q", "-batch", str(pt2), "-ex", "nosuch"],
        capture_output=True,
        text=True,
    )
    assert batch.returncode == 1 and "Undefined command" in batch.stderr + batch.stdout


def test_path_never_imports_torch(pt2) -> None:
    path = str(pt2)
    code = (
        "import sys, exdb\n"
        f"exdb.run({path!r}, 'unflatten run')\n"
        f"exdb.show({path!r})\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _read_until(fd: int, text: bytes, seen: bytearray) -> bool:
    # reads the terminal until text appears, or the program ends
    while text not in seen:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            return False
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return False
        if not chunk:
            return False
        seen += chunk
    return True


def test_debug_opens_the_prompt_in_a_terminal(ep, tmp_path) -> None:
    code = (
        "import sys, torch, exdb\n"
        f"ep = torch.export.load({str(tmp_path / 'p.pt2')!r})\n"
        "sys.exit(exdb.debug(ep, 'unflatten run'))\n"
    )
    torch.export.save(ep, str(tmp_path / "p.pt2"))
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["HOME"] = str(tmp_path)  # the prompt's history file
        os.execv(sys.executable, [sys.executable, "-c", code])
    seen = bytearray()
    try:
        assert _read_until(fd, b"(exdb) ", seen), seen.decode(errors="replace")
        assert b"unflatten complete" in seen
        os.write(fd, b"info modules\n")
        assert _read_until(fd, b"norm  InterpreterModule", seen), seen.decode(errors="replace")
        os.write(fd, b"quit\n")
        _read_until(fd, b"\0never", seen)  # to the end of the program's output
    finally:
        done, status = os.waitpid(pid, os.WNOHANG)
        if not done:  # a failed assertion above: exdb still waits at its prompt
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
