"""The package's version: the VERSION file's, written here by the wheel's build."""

from __future__ import annotations

from pathlib import Path


def _source_version() -> str:
    # a source checkout (python/exdb/ beside VERSION); the wheel's build
    # replaces this file with the number itself
    try:
        return (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    except OSError:
        return "0+unknown"


__version__ = _source_version()
