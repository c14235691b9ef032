"""Opening tablebase files, and writing the files a command was asked for, for the
interfaces (which do not import db/ themselves)."""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, TypeVar

from tablebase.db.store import StoreError, TablebaseStore

__all__ = ["TablebaseStore", "check_writable", "copy_store", "open_store", "replacing", "write_text"]

T = TypeVar("T")


def open_store(path: str | Path, create: bool = False, readonly: bool = False) -> TablebaseStore:
    """The tablebase file at ``path``: created if missing with ``create``, opened
    read-only with ``readonly``; a StoreError (one line) when it cannot be used."""
    return TablebaseStore(path, create=create, readonly=readonly)


def check_writable(path: str | Path) -> Path:
    """``path`` as a Path when a file can be written there (checked before long work, so
    a typo in an output name is not found hours later); a StoreError of one line naming
    the path when it is a directory, its folder does not exist or is not writable."""
    target = Path(path)
    if target.is_dir():
        raise StoreError(f"cannot write {str(target)!r}: it is a directory")
    if not target.parent.is_dir():
        raise StoreError(f"cannot write {str(target)!r}: the folder {str(target.parent)!r} does not exist")
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise StoreError(f"cannot write {str(target)!r}: permission denied")
    return target


def _cannot_write(target: Path, exc: OSError) -> StoreError:
    return StoreError(f"cannot write {str(target)!r}: {(exc.strerror or str(exc)).lower()}")


@contextmanager
def replacing(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write whose bytes replace ``path`` whole when the block ends
    without an error, and never otherwise (a temporary file in the same folder, renamed
    over it). A name ending in ``.gz`` is compressed with gzip whose header names the
    plain file and no time, so the same bytes in give the same file. Errors writing are
    StoreErrors of one line naming ``path``."""
    target = check_writable(path)
    try:
        temporary = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    try:
        with temporary:
            if target.name.endswith(".gz"):
                with gzip.GzipFile(target.name.removesuffix(".gz"), "wb", 9, temporary, mtime=0) as packed:
                    yield packed  # type: ignore[misc]
            else:
                yield temporary  # type: ignore[misc]
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary.name, 0o666 & ~umask)  # as an ordinary new file, not the temporary's 0600
        os.replace(temporary.name, target)
    except OSError as exc:
        raise _cannot_write(target, exc) from None
    finally:
        if os.path.exists(temporary.name):
            os.unlink(temporary.name)


def write_text(path: str | Path, text: str) -> int:
    """Write ``text`` (UTF-8) to ``path`` as `replacing` does (gzip when the name ends in
    ``.gz``); returns the bytes the file holds."""
    with replacing(path) as handle:
        handle.write(text.encode("utf-8"))
    return Path(path).stat().st_size


def copy_store(path: str | Path, output: str | Path,
               inspect: Callable[[TablebaseStore], T] | None = None) -> tuple[int, T | None]:
    """Copy the tablebase file at ``path`` to ``output``, consistently even while another
    process (a weak solve, a solve) writes to it, compressed with gzip when the name ends
    in ``.gz`` (what ``gunzip -k`` gives back is a tablebase file a run goes on from).
    The copy replaces ``output`` whole or not at all. Returns the bytes written and what
    ``inspect`` found in the copy (opened read-only before it is packed), if given. Errors (the
    source missing or damaged, the output's folder missing, the output the source
    itself) are StoreErrors of one line."""
    source, target = Path(path), check_writable(output)
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
                with snapshot.open("rb") as plain, replacing(target) as written:
                    shutil.copyfileobj(plain, written, 1 << 20)
        except OSError as exc:
            raise _cannot_write(target, exc) from None
    return target.stat().st_size, found
