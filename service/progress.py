"""Progress of long work, reported through a callback instead of printed.

A service function that may run long takes ``progress: Progress | None``; it calls it
with a `ProgressEvent` at each step. The CLI draws them on stderr; a notebook may print
them or ignore them (``None``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class ProgressEvent:
    """One step of a task: ``task`` names the work ("sparro standard"), ``text`` the step;
    ``done``/``total`` count steps when the length of the work is known."""

    task: str
    text: str
    done: int | None = None
    total: int | None = None

    def __str__(self) -> str:
        count = f" [{self.done}/{self.total}]" if self.done is not None and self.total else ""
        return f"{self.task}: {self.text}{count}"


Progress = Callable[[ProgressEvent], None]


def report(progress: Progress | None, task: str, text: str, done: int | None = None,
           total: int | None = None) -> None:
    """Call ``progress`` with one event, if there is a callback."""
    if progress:
        progress(ProgressEvent(task, text, done, total))
