"""Opening tablebase files, and writing the files a command was asked for, for the
interfaces (which do not import db/ themselves).

An output is written in a hidden work folder beside it, ``.NAME.XXXXXXXX.tmp`` (NAME the
output's name), and renamed over it only once whole; the folder is then removed. A
process killed meanwhile leaves its folder behind, so each write to NAME first removes
the folders of earlier writes to NAME whose writer is gone. What tells them apart is an
exclusive ``flock`` the writer holds on the file ``lock`` in its folder for as long as it
works: the kernel drops it when the process dies, however it dies, so a folder whose lock
can be taken has no writer, while one a live writer (this process or another, also on
another machine sharing the folder) is writing keeps its lock and is left alone (not a
pid in the name, which another process may reuse or which means nothing in another pid
namespace; the same reasoning as the solve lock, `TablebaseStore.solve_lock`). A folder
younger than `NEW_FOLDER_SECONDS` is left alone too: its writer may not have taken the
lock yet. Where the file system has no locks, nothing is removed.
"""

from __future__ import annotations

import fcntl
import glob
import gzip
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, TypeVar

from tablebase.db.store import StoreError, TablebaseStore

__all__ = ["TablebaseStore", "check_writable", "copy_store", "open_store", "replacing", "write_text"]

T = TypeVar("T")

#: The advice of the error refusing an output that exists.
FORCE_ADVICE = "give --force to replace it"
#: A work folder this young is never taken for a killed write's (its writer takes the lock
#: an instant after making it).
NEW_FOLDER_SECONDS = 60.0
#: The file of a work folder whose lock its writer holds (see the module doc).
LOCK_NAME = "lock"
#: The random characters `tempfile.mkdtemp` puts in a work folder's name.
WORK_NAME_CHARACTERS = 8


def open_store(path: str | Path, create: bool = False, readonly: bool = False) -> TablebaseStore:
    """The tablebase file at ``path``: created if missing with ``create``, opened
    read-only with ``readonly``; a StoreError (one line) when it cannot be used."""
    return TablebaseStore(path, create=create, readonly=readonly)


def check_writable(path: str | Path, replace: bool = True) -> Path:
    """``path`` as a Path when a file can be written there (checked before long work, so
    a typo in an output name is not found hours later); a StoreError of one line naming
    the path when it is a directory, its folder does not exist or is not writable, or,
    unless ``replace``, when it exists."""
    target = Path(path)
    if target.is_dir():
        raise StoreError(f"cannot write {str(target)!r}: it is a directory")
    if not replace and (target.exists() or target.is_symlink()):
        raise StoreError(f"cannot write {str(target)!r}: it exists", FORCE_ADVICE)
    if not target.parent.is_dir():
        raise StoreError(f"cannot write {str(target)!r}: the folder {str(target.parent)!r} does not exist")
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise StoreError(f"cannot write {str(target)!r}: permission denied")
    return target


def _cannot_write(target: Path, exc: OSError) -> StoreError:
    return StoreError(f"cannot write {str(target)!r}: {(exc.strerror or str(exc)).lower()}")


def _lock(handle: BinaryIO, wait: bool) -> bool:
    """Take an exclusive flock on ``handle`` (waiting for it with ``wait``); False if it is
    held elsewhere or the file system has no locks."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _remove_killed_writes(target: Path) -> None:
    """Remove the work folders of earlier writes to ``target`` whose writer is gone (see
    the module doc); any that cannot be told or removed stays."""
    for folder in target.parent.glob(f".{glob.escape(target.name)}.{'?' * WORK_NAME_CHARACTERS}.tmp"):
        try:
            if folder.is_symlink() or not folder.is_dir() or time.time() - folder.stat().st_mtime < NEW_FOLDER_SECONDS:
                continue
            with open(folder / LOCK_NAME, "ab") as handle:
                if _lock(handle, wait=False):  # nobody writes there: removed under the lock
                    shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


@contextmanager
def _work_folder(target: Path) -> Iterator[Path]:
    """A new hidden folder beside ``target`` to write it in, locked while the block runs
    and removed after it (see the module doc); first, those of killed writes to
    ``target`` are removed."""
    _remove_killed_writes(target)
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        handle = open(work / LOCK_NAME, "ab")
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    with handle:
        _lock(handle, wait=True)  # without locks the folder is never taken for a killed write's
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)  # under the lock, so never by another write


@contextmanager
def _written(work: Path, target: Path) -> Iterator[BinaryIO]:
    """A binary file in ``work`` renamed over ``target`` when the block ends without an
    error (gzip when the name ends in ``.gz``)."""
    written = work / target.name
    with open(written, "wb") as plain:  # the mode of an ordinary new file
        if target.name.endswith(".gz"):
            with gzip.GzipFile(target.name.removesuffix(".gz"), "wb", 9, plain, mtime=0) as packed:
                yield packed  # type: ignore[misc]
        else:
            yield plain
    os.replace(written, target)


@contextmanager
def replacing(path: str | Path, replace: bool = True) -> Iterator[BinaryIO]:
    """A binary file to write whose bytes replace ``path`` whole when the block ends
    without an error, and never otherwise (a file in a work folder beside it, renamed
    over it: see the module doc). Unless ``replace``, an existing ``path`` is refused. A
    name ending in ``.gz`` is compressed with gzip whose header names the plain file and
    no time, so the same bytes in give the same file. Errors writing are StoreErrors of
    one line naming ``path``."""
    target = check_writable(path, replace)
    try:
        with _work_folder(target) as work, _written(work, target) as handle:
            yield handle
    except OSError as exc:
        raise _cannot_write(target, exc) from None


def write_text(path: str | Path, text: str) -> int:
    """Write ``text`` (UTF-8) to ``path`` as `replacing` does (gzip when the name ends in
    ``.gz``); returns the bytes the file holds."""
    with replacing(path) as handle:
        handle.write(text.encode("utf-8"))
    return Path(path).stat().st_size


def copy_store(path: str | Path, output: str | Path,
               inspect: Callable[[TablebaseStore], T] | None = None,
               replace: bool = False) -> tuple[int, T | None]:
    """Copy the tablebase file at ``path`` to ``output``, consistently even while another
    process (a weak solve, a solve) writes to it, compressed with gzip when the name ends
    in ``.gz`` (what ``gunzip -k`` gives back is a tablebase file a run goes on from).
    The copy replaces ``output`` whole or not at all, and an existing ``output`` only
    with ``replace``. Returns the bytes written and what ``inspect`` found in the copy
    (opened read-only before it is packed), if given. Errors (the source missing or
    damaged, the output's folder missing, the output existing, the output the source
    itself) are StoreErrors of one line."""
    source, target = Path(path), Path(output)
    if target.exists() and source.exists() and target.resolve() == source.resolve():
        raise StoreError(f"cannot copy {str(source)!r} onto itself")
    check_writable(target, replace)
    with TablebaseStore(source, readonly=True) as store:
        try:
            with _work_folder(target) as work:
                snapshot = work / "copy.sqlite"
                store.backup_to(snapshot)
                found = None
                if inspect is not None:
                    with TablebaseStore(snapshot, readonly=True) as copy:
                        found = inspect(copy)
                with snapshot.open("rb") as plain, _written(work, target) as written:
                    shutil.copyfileobj(plain, written, 1 << 20)
        except OSError as exc:
            raise _cannot_write(target, exc) from None
    return target.stat().st_size, found
