"""``python -m exdb`` and the ``exdb`` command: the exdb program itself."""

from __future__ import annotations

import os
import sys

from ._binary import binary
from ._errors import Error


def main() -> None:
    """Replace this process with the exdb program, given this process's arguments."""
    try:
        exe = binary()
    except Error as e:
        sys.exit(f"exdb: {e}")
    os.execv(exe, ["exdb", *sys.argv[1:]])


if __name__ == "__main__":
    main()
