"""Opening tablebase files, for the interfaces (which do not import db/ themselves)."""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

from tablebase.db.store import StoreError, TablebaseStore

__all__ = ["TablebaseStore", "copy_store", "open_store"]

T = TypeVar("T")


def open_store(path: str | Path, create: bool = False, readonly: bool = False) -> TablebaseStore:
    """The tablebase file at ``path``: created if missing with ``create``, opened
    read-only with ``readonly``; a StoreError (one line) when it cannot be used."""
    return TablebaseStore(path, create=create, readonly=readonly)


def copy_store(path: str | Path, output: str | Path,
               inspect: Callable[[TablebaseStore], T] | None = None) -> tuple[int, T | None]:
    """Copy the tablebase file at ``path`` to ``output``, consistently even while another
    process (a weak solve, a solve) writes to it, compressed with gzip when the name ends
    in ``.gz`` (what ``gunzip -k`` gives back is a tablebase file a run goes on from).
    The copy replaces ``output`` whole or not at all. Returns the bytes written and what
    ``inspect`` found in the copy (opened read-only before it is packed), if given. Errors (the
    source missing or damaged, the output's folder missing, the output the source
    itself) are StoreErrors of one line."""
    source, target = Path(path), Path(output)
    if target.is_dir():
        raise StoreError(f"cannot write {str(target)!r}: it is a directory")
    if not target.parent.is_dir():
        raise StoreError(f"cannot write {str(target)!r}: the folder {str(target.parent)!r} does not exist")
    if target.exists() and source.exists() and target.resolve() == source.resolve():
        raise StoreError(f"cannot copy {str(source)!r} onto itself")
    with TablebaseStore(source, readonly=True) as store:
        try:
            with tempfile.TemporaryDirectory(dir=target.parent, prefix=".copy-") as work:
                snapshot = Path(work) / "copy.sqlite"
                store.backup_to(snapshot)
                found = None
                if inspect is not None:
                    with TablebaseStore(snapshot, readonly=True) as copy:
                        found = inspect(copy)
                written = Path(work) / "copy.out"
                if target.name.endswith(".gz"):
                    # the header names the plain file and no time: a copy of an unchanged
                    # file is the same bytes
                    with snapshot.open("rb") as plain, written.open("wb") as raw, gzip.GzipFile(
                            target.name.removesuffix(".gz"), "wb", 9, raw, mtime=0) as packed:
                        shutil.copyfileobj(plain, packed, 1 << 20)
                else:
                    snapshot.replace(written)
                os.replace(written, target)
        except OSError as exc:
            raise StoreError(f"cannot write {str(target)!r}: {(exc.strerror or str(exc)).lower()}") from None
    return target.stat().st_size, found
