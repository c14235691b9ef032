"""The journal of a proof check: what the re-checks of big leaves found, on disk.

A text file (UTF-8), written only by `tablebase check --proof FILE --journal JOURNAL`:

* the first line names the check it belongs to: ``# tablebase check journal: rules
  SPEC, board B, leaf check C``;
* then one line per finding, ``position<tab>question<tab>answer``, appended and flushed
  to disk as soon as it is found, so a check stopped at any moment keeps every finding
  before it. A last line cut short (no newline: the check was killed while writing it)
  is dropped when the journal is opened again.

A file that does not start with that first line is never written to: a proof file or any
other file given as the journal by mistake stays as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

from tablebase.db.store import StoreError

#: how the first line of a journal starts
JOURNAL_PREFIX = "# tablebase check journal: "


class CheckJournal:
    """A check journal file (see the module doc); StoreError names what is wrong with it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(path)
        self._answers: dict[tuple[str, str], str] = {}
        self._opened = False

    def open(self, check: str) -> None:
        """Read the journal of ``check`` (created if missing or empty)."""
        header = f"{JOURNAL_PREFIX}{check}\n"
        try:
            data = self.path.read_bytes() if self.path.exists() else b""
        except OSError as exc:
            raise StoreError(f"cannot read the check journal {self.name!r} ({exc.strerror or exc})") from None
        if not data:
            self._write(header, "w")
        else:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise StoreError(f"{self.name!r} is not a check journal (not UTF-8 text)") from None
            first = text.split("\n", 1)[0]
            if not first.startswith(JOURNAL_PREFIX):
                raise StoreError(f"{self.name!r} is not a check journal (its first line is not "
                                 f"'{JOURNAL_PREFIX}...'): {first[:80]!r}")
            if first + "\n" != header:
                raise StoreError(f"the check journal {self.name!r} belongs to another check "
                                 f"({first[len(JOURNAL_PREFIX):]}), not to this one ({check})")
            complete = text[:text.rfind("\n") + 1]
            for number, line in enumerate(complete.splitlines()[1:], start=2):
                fields = line.split("\t")
                if len(fields) != 3 or not all(fields):
                    raise StoreError(f"line {number} of the check journal {self.name!r} is not "
                                     f"'position<tab>question<tab>answer': {line[:80]!r}")
                self._answers[(fields[0], fields[1])] = fields[2]
            if len(complete) < len(text):  # a line cut short by a killed check
                try:
                    os.truncate(self.path, len(complete.encode("utf-8")))
                except OSError as exc:
                    raise StoreError(f"cannot write the check journal {self.name!r} ({exc.strerror or exc})") from None
        self._opened = True

    def recall(self, position: str, question: str) -> str | None:
        return self._answers.get((position, question))

    def record(self, position: str, question: str, answer: str) -> None:
        if not self._opened:
            raise StoreError(f"the check journal {self.name!r} is not open")
        for text in (position, question, answer):
            if not text or "\t" in text or "\n" in text:
                raise StoreError(f"a check journal's fields hold no tab or newline and are not empty: {text!r}")
        self._write(f"{position}\t{question}\t{answer}\n", "a")
        self._answers[(position, question)] = answer

    def _write(self, text: str, mode: str) -> None:
        try:
            with open(self.path, mode, encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise StoreError(f"cannot write the check journal {self.name!r} ({exc.strerror or exc})") from None
