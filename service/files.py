"""Opening tablebase files, and writing the files a command was asked for, for the
interfaces (which do not import db/ themselves).

An output is written in a hidden work folder beside it, ``.NAME.<8 random characters>.tmp`` (NAME the
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
lock yet, and so is one without the lock file (a user's folder named alike). Where the
file system has no locks, nothing is removed.

An output that must not replace an existing file is linked into place (which fails if the
name appeared meanwhile), not renamed over it. An output that is a device or a FIFO
(/dev/null, /dev/stdout) is written into as it is; a symbolic link's target is written;
and no output ever replaces a tablebase file (`check_writable`).
"""

from __future__ import annotations

import fcntl
import glob
import gzip
import os
import shutil
import stat
import tempfile
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, TypeVar

from tablebase.db.store import SQLITE_HEADER, StoreError, TablebaseStore

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


def _is_special(target: Path) -> bool:
    """Whether ``target`` exists and is no regular file (a device such as /dev/null or
    /dev/stdout's terminal, a FIFO, a socket): written into, never renamed over."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _is_tablebase(target: Path) -> bool:
    """Whether ``target`` is an existing file that starts as an SQLite database does."""
    try:
        with open(target, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def check_writable(path: str | Path, replace: bool = True, tablebase: bool = False) -> Path:
    """The file to write for the output ``path`` (a symbolic link is followed: its
    target is written), checked before long work, so a typo in an output name is not
    found hours later; a StoreError of one line naming the path when it is a directory,
    its folder does not exist or is not writable, unless ``replace`` when it exists, and
    unless ``tablebase`` (a copy of a tablebase file) when it is a tablebase file: a
    report or a picture never takes the place of a database (the --db itself, say)."""
    if str(path) == "":
        raise StoreError("cannot write '': the output has no name")
    if _is_special(Path(path)):
        return Path(path)  # written into where it is (/dev/stdout's link too): no folder to check
    target = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)
    if target.is_dir():
        raise StoreError(f"cannot write {str(path)!r}: it is a directory")
    if not replace and (target.exists() or target.is_symlink()):
        raise StoreError(f"cannot write {str(path)!r}: it exists", FORCE_ADVICE)
    if not tablebase and target.is_file() and _is_tablebase(target):
        raise StoreError(f"cannot write {str(path)!r}: it is a tablebase file, which an output never replaces; "
                         f"give another name")
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
            # only a folder this module made (it holds the lock file from the first
            # instant its writer has it) is ever removed: never one a user named alike
            with open(os.open(folder / LOCK_NAME, os.O_RDWR), "r+b") as handle:
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
def _packed(plain: BinaryIO, name: str) -> Iterator[BinaryIO]:
    """``plain`` itself, or gzip into it when ``name`` ends in ``.gz`` (the header names
    the plain file and no time, so the same bytes in give the same file)."""
    if name.endswith(".gz"):
        with gzip.GzipFile(name.removesuffix(".gz"), "wb", 9, plain, mtime=0) as packed:
            yield packed  # type: ignore[misc]
    else:
        yield plain


@contextmanager
def _written(work: Path | None, target: Path, replace: bool = True) -> Iterator[BinaryIO]:
    """A binary file in ``work`` renamed over ``target`` when the block ends without an
    error (gzip when the name ends in ``.gz``); with no ``work`` (a device or FIFO
    ``target``), ``target`` itself. Unless ``replace``, a ``target`` that appeared
    meanwhile (another writer's) is not replaced: the file is linked in place, which
    fails if the name exists."""
    if work is None:
        with open(target, "wb") as plain, _packed(plain, target.name) as handle:
            yield handle
        return
    written = work / target.name
    with open(written, "wb") as plain, _packed(plain, target.name) as handle:  # the mode of an ordinary new file
        yield handle
    if replace:
        os.replace(written, target)
        return
    try:
        os.link(written, target)
        linked = True
    except FileExistsError:
        linked = False
    except OSError:  # a file system without hard links: the check just before is the best there is
        linked = not target.exists()
        if linked:
            os.replace(written, target)
    if not linked:
        raise StoreError(f"cannot write {str(target)!r}: it exists (written meanwhile by another process)",
                         FORCE_ADVICE)


@contextmanager
def replacing(path: str | Path, replace: bool = True) -> Iterator[BinaryIO]:
    """A binary file to write whose bytes replace ``path`` whole when the block ends
    without an error, and never otherwise (a file in a work folder beside it, renamed
    over it: see the module doc). Unless ``replace``, an existing ``path`` is refused. A
    name ending in ``.gz`` is compressed with gzip whose header names the plain file and
    no time, so the same bytes in give the same file. Errors writing are StoreErrors of
    one line naming ``path``. A device or FIFO (/dev/null, /dev/stdout) is written into
    as it is, and a symbolic link's target is written (`check_writable`)."""
    target = check_writable(path, replace)
    try:
        special = _is_special(target)
        with nullcontext(None) if special else _work_folder(target) as work, \
                _written(work, target, replace) as handle:
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
    target = check_writable(target, replace, tablebase=True)
    special = _is_special(target)
    with TablebaseStore(source, readonly=True) as store:
        try:
            # the snapshot of a copy written into a device or FIFO is made in the temporary folder
            with _work_folder(Path(tempfile.gettempdir()) / target.name if special else target) as work:
                snapshot = work / "copy.sqlite"
                store.backup_to(snapshot)
                found = None
                if inspect is not None:
                    with TablebaseStore(snapshot, readonly=True) as copy:
                        found = inspect(copy)
                with snapshot.open("rb") as plain, _written(None if special else work, target, replace) as written:
                    shutil.copyfileobj(plain, written, 1 << 20)
        except OSError as exc:
            raise _cannot_write(target, exc) from None
    return (0 if special else target.stat().st_size), found
