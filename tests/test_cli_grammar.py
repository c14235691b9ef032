"""One CLI grammar: JSON lines, the same keys in both games, files written by options."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tablebase.cli.app import (
    ProgressLine, answer_positions, end_status_line, long_run_options, long_run_progress, proof_arguments, proof_pairs)
from tablebase.cli.main import main
from tablebase.service.progress import ProgressEvent


def run(*args: str) -> "object":
    return CliRunner().invoke(main, list(args))


def test_tables_lists_the_file(sparro_db: Path) -> None:
    result = run("tables", "--db", str(sparro_db), "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert {r["rules"] for r in rows} == {"standard", "extended", "extended-unrestricted"}
    assert all(r["game"] == "sparro" and r["status"] == "complete" and r["bytes"] > 0 for r in rows)
    text = run("tables", "--db", str(sparro_db))
    assert text.exit_code == 0 and len(text.stdout.splitlines()) == 3 and "sparro standard: complete" in text.stdout


def test_solve_json_has_rules_in_both_games(sparro_db: Path, tmp_path: Path) -> None:
    sparro = run("solve", "sparro", "--variant", "standard", "--db", str(sparro_db), "--json", "-s")
    assert sparro.exit_code == 0, sparro.output
    answer = json.loads(sparro.stdout)
    assert answer["rules"] == "standard" and "variant" not in answer
    db = str(tmp_path / "s.sqlite")
    small = run("solve", "smallholder", "--board", "limping2", "--ruleset", "stymie", "--db", db, "--json", "-s")
    assert small.exit_code == 0, small.output
    answer = json.loads(small.stdout)
    assert answer["rules"] == "stymie@limping2" and "moves" not in answer and answer["edges"] > answer["positions"] / 2


@pytest.mark.parametrize("args", [["show", "sparro"], ["show", "smallholder", "--board", "hex3"]])
def test_svg_to_a_bad_path_is_one_line(tmp_path: Path, args: list[str]) -> None:
    for target, words in [(tmp_path / "missing" / "x.svg", "does not exist"), (tmp_path, "is a directory")]:
        result = run(*args, "--svg", str(target))
        assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    good = tmp_path / "ok.svg"
    assert run(*args, "--svg", str(good)).exit_code == 0 and good.read_text().startswith("<svg")


@pytest.mark.parametrize("args", [
    ["proof", "export", "smallholder", "--board", "limping2", "--output"],
    ["verify", "smallholder", "--board", "limping2", "--markdown"],
    ["atlas", "smallholder", "--board", "limping2", "--markdown"]])
def test_an_output_path_is_checked_before_the_work(tmp_path: Path, args: list[str]) -> None:
    """A bad output name is the first thing said: here the file to read does not exist
    either, and the output's folder is named, not the missing file (after hours of work
    the other order would lose them)."""
    absent_db = str(tmp_path / "absent.sqlite")
    result = run(*args, str(tmp_path / "missing" / "out.md"), "--db", absent_db, "-s")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "does not exist" in result.stderr and "missing" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not Path(absent_db).exists()


def test_an_output_file_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    """service.files.replacing: an error while writing leaves the old file as it was and
    no temporary file behind; a .gz name is compressed, the same text giving the same bytes."""
    import gzip

    from tablebase.service.files import replacing, write_text

    target = tmp_path / "out.tsv"
    write_text(target, "old\n")
    with pytest.raises(RuntimeError):
        with replacing(target) as handle:
            handle.write(b"half")
            raise RuntimeError("stopped midway")
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]
    packed = tmp_path / "out.tsv.gz"
    write_text(packed, "row\n" * 100)
    first = packed.read_bytes()
    write_text(packed, "row\n" * 100)
    assert packed.read_bytes() == first and gzip.decompress(first) == b"row\n" * 100
    ordinary = tmp_path / "ordinary"
    ordinary.write_text("x")  # the mode a new file gets (the umask's), not a temporary's 0600
    assert packed.stat().st_mode & 0o777 == target.stat().st_mode & 0o777 == ordinary.stat().st_mode & 0o777


#: A writer that stops inside `replacing` until its stdin closes or it is killed.
HALF_WRITTEN = """
import sys
from tablebase.service.files import replacing
with replacing(sys.argv[1]) as handle:
    handle.write(b"half")
    print("writing", flush=True)
    sys.stdin.read()
"""


def test_a_killed_write_leaves_a_work_folder_the_next_write_removes(tmp_path: Path) -> None:
    """A write killed midway leaves its hidden work folder; the next write to that name
    removes it, and never the folder of a write still running (even an old one)."""
    import os
    import subprocess
    import time

    from tablebase.service.files import NEW_FOLDER_SECONDS, write_text

    target = tmp_path / "copy.sqlite.gz"

    def writer() -> tuple[subprocess.Popen, Path]:
        before = set(tmp_path.iterdir())
        process = subprocess.Popen([sys.executable, "-c", HALF_WRITTEN, str(target)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        assert process.stdout is not None and process.stdout.readline() == "writing\n"
        [folder] = set(tmp_path.iterdir()) - before
        assert folder.name.startswith(".copy.sqlite.gz.") and folder.name.endswith(".tmp")
        aged = time.time() - 2 * NEW_FOLDER_SECONDS  # old enough to be taken for a killed write's
        os.utime(folder, (aged, aged))
        return process, folder

    running, live = writer()
    try:
        killed, stale = writer()  # it leaves the running write's folder alone too
        killed.kill()
        killed.wait()
        assert stale.is_dir() and live.is_dir()
        write_text(target, "whole\n")
        assert not stale.exists() and live.is_dir()  # the running write's folder stays
    finally:
        running.communicate("")
    assert running.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_puzzle_json_names_the_moves(sparro_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "p.sqlite"
    db.write_bytes(sparro_db.read_bytes())
    made = run("puzzles", "generate", "sparro", "--count", "2", "--seed", "5", "--db", str(db), "--json", "-s")
    assert made.exit_code == 0, made.output
    for line in made.stdout.splitlines():
        puzzle = json.loads(line)
        assert len(puzzle["solution_names"]) == len(puzzle["solution"]) > 0
        assert all(isinstance(name, str) and name[0] in "012" for name in puzzle["solution_names"])


@pytest.mark.parametrize("args", [
    ["probe", "smallholder", "--time", "nan"],
    ["puzzles", "generate", "smallholder", "--board", "hex4", "--time", "NaN"],
    ["solve", "smallholder", "--weak", "--time-limit", "nan"],
])
def test_seconds_options_refuse_nan(tmp_path: Path, args: list[str]) -> None:
    """'nan' passes click's FloatRange (every comparison with it is false) and would make
    a time bound that never runs out; the options refuse it before any work starts."""
    result = run(*args, "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 2
    assert "is not a number of seconds" in result.output
    assert not (tmp_path / "t.sqlite").exists()


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> "list[tuple[str, ...]]":
    found = [path]
    for name, command in group.commands.items():
        found += _commands(command, path + (name,)) if isinstance(command, click.Group) else [path + (name,)]
    return found


def _command(path: tuple[str, ...]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", _commands(main), ids=" ".join)
def test_every_help_keeps_its_examples_as_written(path: tuple[str, ...]) -> None:
    result = run(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "\\b" not in result.output  # click's no-rewrap marker shown as text: the block was rewrapped
    shown = {line.strip() for line in result.output.splitlines()}
    for line in (_command(path).epilog or "").splitlines():
        if line.strip() and line.strip() != "\b":
            assert line.strip() in shown, line  # each example a line of its own, as written


def test_a_generated_page_names_each_proof_with_its_journal() -> None:
    # the command in a generated page's header gives the pairs as README and --help do
    pairs = proof_pairs(("a.tsv.gz", "b.tsv.gz"), ("a.journal", "b.journal"))
    assert " ".join(proof_arguments(pairs)) == "--proof a.tsv.gz --journal a.journal --proof b.tsv.gz --journal b.journal"
    assert proof_arguments(proof_pairs(("a.tsv.gz",), ())) == ["--proof a.tsv.gz"]


def test_an_answer_after_an_open_status_line_starts_a_line_of_its_own(monkeypatch) -> None:
    # a search's status line has no total, so nothing ends it; on a terminal the answer
    # went on the same line as "search ...: N positions, depth D"
    terminal = io.StringIO()  # stdout and stderr on one terminal
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setattr(sys, "stderr", terminal)
    line = ProgressLine()

    def answer(text: str) -> dict:
        line(ProgressEvent("search nibbler@limping3", "1,024 positions, depth 3"))
        return {"position": text}

    answer_positions("W../..../...../....../...../.... B", answer, True, str)
    assert terminal.getvalue() == ('\rsearch nibbler@limping3: 1,024 positions, depth 3\n'
                                   '{"position": "W../..../...../....../...../.... B"}\n')
    assert ProgressLine.open_line is None
    end_status_line()  # nothing open: nothing printed
    assert terminal.getvalue().count("\n") == 2


def test_a_searched_probe_says_once_what_unknown_means() -> None:
    start = "............/......../...."
    text = CliRunner().invoke(main, ["probe", "sparro", "--search", "--budget", "10", "-"], input=f"{start}\n{start}\n")
    assert text.exit_code == 0, text.output
    assert [line.split(";")[0] for line in text.stdout.splitlines()] == [f"{start}: R to move, unknown"] * 2
    assert text.stderr == ("note: 'unknown' is what the search did not prove within --time 30 s and --budget 10 "
                           "positions; give it more to go further\n")
    as_json = run("probe", "sparro", "--search", "--budget", "10", "--json", start)
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["value"] == "unknown" and as_json.stderr == ""



def test_an_unknown_answer_says_how_many_moves_were_settled_and_what_they_prove() -> None:
    from tablebase.cli.app import probe_text

    moves = [{"cell": 34, "name": "g2", "value": "win", "remoteness": 21},
             {"cell": 1, "name": "a2", "value": "unknown", "remoteness": None}]
    answer = {"position": "P", "to_move": "W", "value": "unknown", "remoteness": None, "moves": moves, "pv": [],
              "at_least": {"value": "win", "remoteness": 21}}
    assert probe_text(answer) == ("P: W to move, unknown (1 of the 2 moves settled; a win in at most 21); "
                                  "moves: g2 win 21, a2 unknown")
    drawn = {**answer, "moves": [{**moves[0], "value": "draw", "remoteness": None}, moves[1]],
             "at_least": {"value": "draw", "remoteness": None}}
    assert probe_text(drawn) == ("P: W to move, unknown (1 of the 2 moves settled; at least a draw); "
                                 "moves: g2 draw, a2 unknown")
    lost = {**answer, "moves": [{**moves[0], "value": "loss"}, moves[1]],  # the other move may still win
            "at_least": {"value": "loss", "remoteness": 21}}
    assert probe_text(lost) == "P: W to move, unknown (1 of the 2 moves settled); moves: g2 loss 21, a2 unknown"
    nothing = {**answer, "moves": [moves[1]], "at_least": None}
    assert probe_text(nothing) == "P: W to move, unknown; moves: a2 unknown"


def test_a_searched_probe_that_proves_everything_adds_no_note(tmp_path: Path) -> None:
    proved = run("probe", "smallholder", "--board", "limping2", "--search", "--db", str(tmp_path / "none.sqlite"))
    assert proved.exit_code == 0, proved.output
    assert "unknown" not in proved.stdout and " to move, win in " in proved.stdout and proved.stderr == ""


def test_log_every_sets_how_often_a_long_run_logs() -> None:
    """A long run whose stderr is not a terminal logs a line at most every --log-every
    seconds (30 by default); -s silences it."""
    @click.command()
    @long_run_options
    def command(silent: bool) -> None:
        progress = long_run_progress(silent)
        click.echo("silent" if progress is None else f"{progress.interval}")

    assert CliRunner().invoke(command, ["--log-every", "2.5"]).stdout == "2.5\n"
    assert CliRunner().invoke(command, []).stdout == "30.0\n"
    assert CliRunner().invoke(command, ["-s", "--log-every", "2"]).stdout == "silent\n"
    refused = CliRunner().invoke(command, ["--log-every", "0"])
    assert refused.exit_code == 2 and "--log-every" in refused.output


@pytest.mark.parametrize("path", [("solve", "smallholder"), ("solve", "sparro"), ("atlas", "smallholder"),
                                  ("atlas", "sparro"), ("check",), ("verify",), ("proof", "export", "smallholder"),
                                  ("puzzles", "generate")])
def test_every_long_run_takes_log_every(path: tuple[str, ...]) -> None:
    result = run(*path, "--help")
    assert result.exit_code == 0 and "--log-every SECONDS" in result.stdout, result.output
