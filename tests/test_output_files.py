"""What a command's output file may replace, and what it writes into instead
(`service.files`): a device or FIFO is written into, never renamed over; a symbolic link's
target is written; a tablebase file is never replaced by a report or a picture; a
look-alike folder a user made is never taken for a killed write's; and an output that
must not be replaced is not, even when another writer makes it meanwhile."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.store import StoreError, TablebaseStore
from tablebase.service.files import NEW_FOLDER_SECONDS, replacing, write_text

POSITION = "RRR.BB....../......../...."


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_fifo_is_written_into_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "picture.svg"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run("show", "sparro", POSITION, "--svg", str(fifo))
    reader.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO, not a file renamed over it
    assert received and received[0].startswith(b"<svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["picture.svg"]  # no work folder beside it


def test_a_symbolic_links_target_is_written(tmp_path: Path) -> None:
    (tmp_path / "real.svg").write_text("old")
    (tmp_path / "link.svg").symlink_to("real.svg")
    result = run("show", "sparro", POSITION, "--svg", str(tmp_path / "link.svg"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "link.svg").is_symlink()
    assert (tmp_path / "real.svg").read_text().startswith("<svg")


def test_an_output_never_replaces_a_tablebase_file(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    assert run("solve", "smallholder", "--board", "limping2", "--db", str(db), "-s").exit_code == 0
    for args in (["puzzles", "export", "--db", str(db), "--output", str(db)],
                 ["show", "sparro", POSITION, "--svg", str(db)]):
        result = run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert result.stderr == (f"Error: cannot write {str(db)!r}: it is a tablebase file, which an output never "
                                 "replaces; give another name\n")
    with TablebaseStore(db, readonly=True) as store:  # still the tablebase, its table whole
        assert [(t.rules, t.status) for t in store.tables()] == [("nibbler@limping2", "complete")]


def test_a_folder_named_like_a_work_folder_is_not_removed(tmp_path: Path) -> None:
    """Only a folder holding the lock file a writer makes first is a killed write's."""
    mine = tmp_path / ".out.svg.myfolder.tmp"  # eight characters, as a work folder's name has
    mine.mkdir()
    (mine / "notes.txt").write_text("important")
    aged = time.time() - 2 * NEW_FOLDER_SECONDS
    os.utime(mine, (aged, aged))
    write_text(tmp_path / "out.svg", "<svg/>")
    assert (mine / "notes.txt").read_text() == "important"
    assert not (mine / "lock").exists()


def test_an_output_not_to_be_replaced_stays_the_other_writers(tmp_path: Path) -> None:
    """Two writers of one new name without replace: the one that finishes second is
    refused, and the file is the first one's whole."""
    target = tmp_path / "copy.txt"
    with pytest.raises(StoreError) as refused:
        with replacing(target, replace=False) as handle:
            handle.write(b"second")
            target.write_bytes(b"first")  # the other writer finishes meanwhile
    assert str(refused.value) == (f"cannot write {str(target)!r}: it exists (written meanwhile by another "
                                  "process); give --force to replace it")
    assert target.read_bytes() == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.txt"]


def test_an_output_without_a_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="the output has no name"):
        write_text("", "x")


def test_atlas_checks_its_pictures_folder_before_the_work(tmp_path: Path) -> None:
    db = tmp_path / "fresh.sqlite"
    result = run("atlas", "smallholder", "--board", "limping2", "--db", str(db), "--svg",
                 str(tmp_path / "nowhere" / "grid.svg"), "-s")
    assert result.exit_code == 1
    assert "does not exist" in result.stderr and "nowhere" in result.stderr
    assert not db.exists()  # refused before any row was computed (or the file made)


def test_a_generated_pages_command_is_quoted_for_a_shell(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite"
    TablebaseStore(db, create=True).close()
    page = tmp_path / "out atlas*.md"
    result = run("atlas", "smallholder", "--board", "limping2", "--stored-only", "--db", str(db),
                 "--markdown", str(page), "-s")
    assert result.exit_code == 0, result.output
    quoted = f"--markdown '{page}'"
    assert f"Generated by `tablebase atlas smallholder --board limping2 --stored-only {quoted}`" in page.read_text()
