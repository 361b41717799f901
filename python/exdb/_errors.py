"""exdb's error as a Python exception."""

from __future__ import annotations

from typing import Any


class Error(Exception):
    """A command exdb refused or that failed, with exdb's one-line message.

    Attributes:
        message: exdb's one-line error message (also ``str(error)``).
        command: the command that failed, or ``None`` when exdb failed
            before any command (a file it could not load, a bad option).
        answers: the JSON answers of the commands that ran before it.
    """

    def __init__(
        self,
        message: str,
        command: str | None = None,
        answers: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.command = command
        self.answers: list[dict[str, Any]] = answers or []
