"""exdb's PEP 517 build backend: make builds the binary, this writes the wheel.

``pip install .`` and ``make wheel`` (scripts/wheel.sh) call it. The wheel
holds the ``exdb`` Python package (python/exdb) with the binary as
``exdb/_bin/exdb`` and the ``exdb`` command as an entry point that becomes
that binary (``exdb.__main__``). It is tagged ``py3-none-<platform>``: the
binary needs no Python ABI, one wheel serves every Python 3. The wheel built
here links the machine's libraries; ``auditwheel repair`` (make wheel) puts
them inside and gives it its manylinux tag. It needs nothing from PyPI.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "exdb"
SUMMARY = "A debugger for torch.export programs: unflatten, step, lint, draw"


def _version() -> str:
    return (ROOT / "VERSION").read_text().strip()


def _metadata() -> str:
    return (
        "Metadata-Version: 2.1\n"
        "Name: exdb\n"
        f"Version: {_version()}\n"
        f"Summary: {SUMMARY}\n"
        "Requires-Python: >=3.8\n"
        "Provides-Extra: torch\n"
        'Requires-Dist: torch; extra == "torch"\n'
        "Description-Content-Type: text/markdown\n"
        "\n"
        "exdb is a debugger for PyTorch `torch.export` programs, written in C.\n"
        "This wheel carries the `exdb` program with its libraries and the `exdb`\n"
        "Python package (`exdb.run`, `exdb.debug`, `exdb.show`, `exdb.render`).\n"
    )


def _platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _build_binary() -> Path:
    make = os.environ.get("MAKE", "make")
    subprocess.check_call([make, "-C", str(ROOT), "--no-print-directory", "deps"])
    subprocess.check_call(
        [make, "-C", str(ROOT), "--no-print-directory", "-j2", "build/wheel/exdb"]
    )
    exe = ROOT / "build" / "wheel" / "exdb"
    stripped = ROOT / "build" / "wheel" / "exdb.stripped"
    if shutil.which("strip"):
        subprocess.check_call(["strip", "-o", str(stripped), str(exe)])
        return stripped
    return exe


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _add(zf: zipfile.ZipFile, record: list[str], name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)
    record.append(_record_line(name, data))


def build_wheel(
    wheel_directory: str,
    config_settings: dict | None = None,
    metadata_directory: str | None = None,
) -> str:
    """PEP 517: build the binary and write the wheel into wheel_directory."""
    exe = _build_binary()
    version = _version()
    tag = f"py3-none-{_platform_tag()}"
    name = f"exdb-{version}-{tag}.whl"
    info = f"exdb-{version}.dist-info"
    os.makedirs(wheel_directory, exist_ok=True)
    record: list[str] = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as zf:
        for src in sorted(PACKAGE.iterdir()):
            if src.suffix not in (".py", ".typed") or src.name == "_version.py":
                continue
            _add(zf, record, f"exdb/{src.name}", src.read_bytes(), 0o644)
        version_py = (
            '"""The package\'s version: the VERSION file\'s, written by the wheel\'s build."""\n\n'
            f'__version__ = "{version}"\n'
        )
        _add(zf, record, "exdb/_version.py", version_py.encode(), 0o644)
        _add(zf, record, "exdb/_bin/exdb", exe.read_bytes(), 0o755)
        wheel = f"Wheel-Version: 1.0\nGenerator: exdb_build\nRoot-Is-Purelib: false\nTag: {tag}\n"
        _add(zf, record, f"{info}/WHEEL", wheel.encode(), 0o644)
        _add(zf, record, f"{info}/METADATA", _metadata().encode(), 0o644)
        entry = "[console_scripts]\nexdb = exdb.__main__:main\n"
        _add(zf, record, f"{info}/entry_points.txt", entry.encode(), 0o644)
        record.append(f"{info}/RECORD,,")
        _add(zf, [], f"{info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644)
    return name


def _source_files() -> list[str]:
    try:
        out = subprocess.check_output(["git", "-C", str(ROOT), "ls-files", "-z"])
        return [f for f in out.decode().split("\0") if f and (ROOT / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", "build", "dist"}
        files = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            dirnames[:] = [d for d in dirnames if d not in skip]
            rel = os.path.relpath(dirpath, ROOT)
            files += [os.path.normpath(os.path.join(rel, f)) for f in filenames]
        return sorted(files)


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    """PEP 517: the tracked source files and PKG-INFO as exdb-VERSION.tar.gz."""
    base = f"exdb-{_version()}"
    os.makedirs(sdist_directory, exist_ok=True)
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tf:
        for f in _source_files():
            tf.add(str(ROOT / f), arcname=f"{base}/{f}")
        data = _metadata().encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    return name
