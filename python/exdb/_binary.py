"""Where the exdb program is: the binary the wheel carries beside this file."""

from __future__ import annotations

import os
from pathlib import Path

from ._errors import Error


def binary() -> str:
    """Return the path of the exdb program this package runs.

    The wheel carries it as ``exdb/_bin/exdb``; the environment variable
    ``EXDB_BINARY`` names another one (a build from source, for instance).

    Raises:
        Error: when there is no exdb program to run.
    """
    env = os.environ.get("EXDB_BINARY")
    path = Path(env) if env else Path(__file__).resolve().parent / "_bin" / "exdb"
    if not os.access(path, os.X_OK):
        where = "EXDB_BINARY" if env else "this package"
        raise Error(f"no exdb program at {path} (from {where})")
    return str(path)
