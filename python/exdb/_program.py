"""A program given as a path or as a torch.export.ExportedProgram."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Union

#: A path to a .pt2 or program JSON file, or a ``torch.export.ExportedProgram``.
Program = Union[str, "os.PathLike[str]", Any]


def _is_exported_program(obj: Any) -> bool:
    # torch is imported only when the object may be one of its programs: an
    # object of a torch module while torch is loaded.
    if "torch" not in sys.modules or not type(obj).__module__.startswith("torch"):
        return False
    import torch

    return isinstance(obj, torch.export.ExportedProgram)


@contextmanager
def program_path(program: Program) -> Iterator[str]:
    """Yield a path exdb can load for ``program``.

    A path is used as it is. An ``ExportedProgram`` is written with
    ``torch.export.save`` to a temporary ``.pt2``, removed on exit.

    Raises:
        TypeError: when ``program`` is neither.
    """
    if isinstance(program, (str, os.PathLike)):
        yield os.fspath(program)
        return
    if not _is_exported_program(program):
        raise TypeError(
            f"exdb: expected a path or a torch.export.ExportedProgram, not {type(program).__name__}"
        )
    import torch

    with tempfile.TemporaryDirectory(prefix="exdb-") as tmp:
        path = os.path.join(tmp, "program.pt2")
        torch.export.save(program, path)
        yield path


def quote(word: str) -> str:
    """Quote ``word`` as one word of an exdb command line."""
    if "'" not in word:
        return f"'{word}'"
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
