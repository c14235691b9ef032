"""`tablebase atlas`, `tablebase compare`, `tablebase verify --rules` and the Sparro
no-compensation variant, through CliRunner (and one real process, killed mid-sweep)."""

from __future__ import annotations

import gzip
import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.atlas import AtlasRows
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW
from tablebase.games.smallholder import RULESETS, Smallholder, all_rules
from tablebase.games.sparro import Sparro
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.service.atlas import smallholder_atlas
from tablebase.solver.atlas import ROW_KEYS, VERSIONS, atlas_row
from tablebase.solver.sparro_arrays import SparroArrays
from tablebase.solver.tiered import solve_variant

BOARD = "limping2"


def run(*args: str, stdin: str | None = None):  # noqa: ANN201 (click's Result)
    return CliRunner().invoke(main, list(args), input=stdin)


@pytest.fixture(scope="module")
def atlas_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A file holding the limping2 atlas (all 120 rows, a few seconds), and what the sweep
    wrote on stderr (not a terminal here)."""
    path = tmp_path_factory.mktemp("atlas") / "atlas.sqlite"
    result = run("atlas", "smallholder", "--board", BOARD, "--db", str(path))
    assert result.exit_code == 0, result.output
    return path, result.stderr


@pytest.fixture(scope="module")
def atlas_db(atlas_sweep: tuple[Path, str]) -> Path:
    return atlas_sweep[0]


def test_a_sweep_logs_its_progress_when_stderr_is_not_a_terminal(atlas_sweep: tuple[Path, str]) -> None:
    lines = atlas_sweep[1].splitlines()
    assert lines and all(re.fullmatch(r"\[\d\d:\d\d:\d\d\] atlas smallholder limping2: .* \[\d+/120\]", line)
                         for line in lines)


def test_json_rows_have_the_documented_keys_and_match_the_solver(atlas_db: Path) -> None:
    result = run("atlas", "smallholder", "--board", BOARD, "--db", str(atlas_db), "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["spec"] for row in rows] == [r.spec for r in all_rules()]
    assert [row["rules"] for row in rows] == [Smallholder(BOARD, r).rules_name for r in all_rules()]
    assert all(list(row) == list(ROW_KEYS) for row in rows)
    assert {row["named"] for row in rows} == set(RULESETS) | {None}
    for rules in (RULESETS["stymie"], all_rules()[77]):
        assert rows[all_rules().index(rules)] == json.loads(json.dumps(atlas_row(BOARD, rules)))


def test_text_has_a_line_per_combination(atlas_db: Path) -> None:
    result = run("atlas", "smallholder", "--board", BOARD, "--db", str(atlas_db))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["start", "positions", "draws"]
    assert len(lines) == 121
    nibbler = next(line for line in lines if line.endswith("(nibbler)"))
    assert nibbler.split()[:4] == ["B", "11", "18,428", "0"]


def test_markdown_and_pictures(atlas_db: Path, tmp_path: Path) -> None:
    page, svg = tmp_path / "docs" / "ATLAS.md", tmp_path / "docs" / "img" / "atlas.svg"
    svg.parent.mkdir(parents=True)
    result = run("atlas", "smallholder", "--board", BOARD, "--db", str(atlas_db), "--markdown", str(page), "--svg", str(svg), "-s")
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert "![limping2: option grid](img/atlas.svg)" in text
    assert "![limping2: game lengths](img/atlas-lengths.svg)" in text
    assert "Nothing is sampled" in text and "Not computed" not in text
    assert sum(1 for line in text.splitlines() if line.startswith("| must-") or line.startswith("| priority-")) == 120
    assert "Black wins the empty board under 44, White under 76 of 120 combinations" in text
    assert svg.read_text().count('class="combination') == 120
    assert (svg.parent / "atlas-lengths.svg").read_text().startswith("<svg")


@pytest.mark.slow
def test_stored_only_lists_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "partial.sqlite"
    with TablebaseStore(path, create=True) as store:
        first = smallholder_atlas(store, BOARD, combinations=all_rules()[:7])
        assert first.computed == 7
    page = tmp_path / "ATLAS.md"
    result = run("atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(path), "--json", "--markdown", str(page))
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["spec"] for line in result.stdout.splitlines()] == [r.spec for r in all_rules()[:7]]
    assert "limping2: 113 of 120 combinations not computed yet" in result.stderr
    assert "**Not computed: 113 of 120 combinations**" in page.read_text()
    with TablebaseStore(path) as store:
        rest = smallholder_atlas(store, BOARD)
    assert (rest.computed, len(rest.rows), rest.missing) == (113, 120, [])


def _stored_rows(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM atlas_rows").fetchone()[0]
    except sqlite3.Error:  # the table is not there yet
        return 0


@pytest.mark.slow
def test_a_killed_sweep_continues_with_the_combinations_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    code = "import sys; from tablebase.cli.main import main; sys.exit(main())"
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr:
        process = subprocess.Popen([sys.executable, "-c", code, "atlas", "smallholder", "--board", BOARD, "--db",
                                    str(path), "-s"], stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 120
    seen = []  # what each poll counted
    while (rows := _stored_rows(path)) < 3 and time.monotonic() < deadline and process.poll() is None:
        seen.append(rows)
        time.sleep(0.01)
    ended = process.poll()  # not None: the sweep ended on its own before it was killed
    process.send_signal(signal.SIGKILL)
    process.wait()
    stored = _stored_rows(path)
    assert 3 <= stored < 120, (f"{stored} rows stored; the sweep's exit status before the kill: {ended}; "
                               f"{len(seen)} polls saw {sorted(set(seen))} rows; its stderr: {errors.read_text()!r}")
    with TablebaseStore(path) as store:
        before = {r.rules: r.computed for r in AtlasRows(store).all("smallholder", BOARD, VERSIONS)}
        resumed = smallholder_atlas(store, BOARD)
        after = {r.rules: r.computed for r in AtlasRows(store).all("smallholder", BOARD, VERSIONS)}
    assert resumed.computed == 120 - stored
    assert all(after[spec] == when for spec, when in before.items())  # stored rows were not recomputed
    assert [row["spec"] for row in resumed.rows] == [r.spec for r in all_rules()]


def test_the_default_board_is_hex4_which_has_no_tables(atlas_db: Path) -> None:
    """Like every Smallholder command, atlas and compare default to hex4; they need
    tables, so they say so on one line and name the boards that have them."""
    for args, who in ((["atlas", "smallholder"], "the atlas"),
                      (["compare", "smallholder", "--rules", "nibbler", "--rules", "stymie"], "compare")):
        result = run(*args, "--db", str(atlas_db))
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr == (f"Error: hex4 has 37 cells; {who} solves boards of up to 20 cells "
                                 "(limping2, hex3): 'hex4'\n"), result.stderr


def test_bad_requests_are_one_line_errors(atlas_db: Path) -> None:
    result = run("atlas", "smallholder", "--board", "hex4", "--db", str(atlas_db))
    assert result.exit_code == 1
    assert result.stderr == "Error: hex4 has 37 cells; the atlas solves boards of up to 20 cells (limping2, hex3): 'hex4'\n"
    # limping3 (27 cells) fits a key but not the solve's packed edges: refused, not a traceback mid-way
    result = run("atlas", "smallholder", "--board", "limping3", "--db", str(atlas_db))
    assert result.exit_code == 1
    assert result.stderr == ("Error: limping3 has 27 cells; the atlas solves boards of up to 20 cells (limping2, "
                             "hex3): 'limping3'\n")
    result = run("atlas", "smallholder", "--board", "hex9", "--db", str(atlas_db))
    assert result.exit_code == 2 and result.stderr.startswith("Error: Invalid value for '--board': unknown board")
    # rows of several boards in one JSON stream: each row's label names its board
    result = run("atlas", "smallholder", "--board", BOARD, "--board", "hex3", "--json", "--stored-only",
                 "--db", str(atlas_db))
    assert result.exit_code == 0, result.stderr
    assert [json.loads(line)["rules"] for line in result.stdout.splitlines()] == \
        [Smallholder(BOARD, r).rules_name for r in all_rules()]
    assert "hex3: 120 of 120 combinations not computed yet" in result.stderr
    result = run("atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(atlas_db.parent / "none.sqlite"))
    assert result.exit_code == 1 and "no tablebase at" in result.stderr


# -- compare --------------------------------------------------------------------------------


def test_compare_lists_the_moves_whose_values_differ(atlas_db: Path) -> None:
    specs = ["nibbler", "gaps-original", "capture=groupwise"]
    asked = [a for s in specs for a in ("--rules", s)]
    # the tables are missing: without --solve, compare says what it would solve and solves nothing
    unasked = run("compare", "smallholder", "--board", BOARD, "--db", str(atlas_db), *asked, "--json", "-s")
    assert unasked.exit_code == 1 and unasked.stdout == ""
    assert unasked.stderr.startswith("Error: compare smallholder would first solve 3 tables it needs into "), \
        unasked.stderr
    assert unasked.stderr.rstrip().endswith("give --solve to go ahead")
    with TablebaseStore(atlas_db) as store:
        assert not [t for t in store.tables() if t.game == "smallholder"]
    result = run("compare", "smallholder", "--board", BOARD, "--db", str(atlas_db), *asked, "--json", "-s", "--solve")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert [t["rules"] for t in answer["tables"]] == [f"nibbler@{BOARD}", f"gaps-original@{BOARD}",
                                                      f"{replace(RULESETS['nibbler'], capture='groupwise').spec}@{BOARD}"]
    assert [t["spec"] for t in answer["tables"]] == [RULESETS["nibbler"].spec, RULESETS["gaps-original"].spec,
                                                      "groups=must-create-if-one-live,adjacent=smallest-playable,"
                                                      "territory=gap,capture=groupwise"]
    # each combination probed on its own: the compared values are exactly those
    probes = []
    for spec in specs:
        probed = run("probe", "smallholder", "--board", BOARD, "--rules", spec, "--db", str(atlas_db), "--json")
        assert probed.exit_code == 0, probed.output
        probes.append({m["name"]: (m["value"], m["remoteness"]) for m in json.loads(probed.stdout)["moves"]})
    for move in answer["position"]["moves"]:
        values = [tuple(v.values()) for v in move["values"].values()]
        assert values == [p[move["name"]] for p in probes]
        assert move["differ"] == (len(set(values)) > 1)
    assert answer["position"]["differing_moves"] == ["b1", "b3", "d2"]
    text = run("compare", "smallholder", "--board", BOARD, "--db", str(atlas_db), *[a for s in specs for a in ("--rules", s)])
    assert text.exit_code == 0
    assert text.stdout.splitlines()[-1] == "3 of 12 moves differ (marked *): b1 b3 d2"


def test_compare_a_position_and_bad_requests(atlas_db: Path) -> None:
    result = run("compare", "smallholder", "--board", BOARD, "B./.W./..../... B", "--rules", "nibbler", "--rules", "stymie",
                 "--db", str(atlas_db), "--json", "--solve")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["position"]["position"] == "B./.W./..../... B"
    one = run("compare", "smallholder", "--board", BOARD, "--rules", "nibbler", "--db", str(atlas_db))
    assert one.exit_code == 2 and one.stderr == ("Error: compare needs at least two --rules to put side by side "
                                                 "(see 'main compare smallholder --help')\n")  # CliRunner's program name
    twice = run("compare", "smallholder", "--board", BOARD, "--rules", "nibbler", "--rules", "groups=must-create-if-one-live",
                "--db", str(atlas_db))
    assert twice.exit_code == 2 and "given twice" in twice.stderr  # a usage error, as a --board twice is
    bad = run("compare", "smallholder", "--board", BOARD, "--rules", "nibbler", "--rules", "capture=never", "--db", str(atlas_db))
    assert bad.exit_code == 2 and bad.stderr.startswith("Error: Invalid value for '--rules': unknown capture option 'never'")


# -- verify --rules ---------------------------------------------------------------------------


def test_verify_custom_rules(atlas_db: Path) -> None:
    spec = "groups=priority-create,adjacent=smallest-only,territory=hull,capture=groupwise"
    result = run("verify", "smallholder", "--board", BOARD, "--rules", spec, "--rules", "nibbler",
                 "--db", str(atlas_db), "--json", "-s", "--solve")
    assert result.exit_code == 0, result.output
    claims = [json.loads(line) for line in result.stdout.splitlines()]  # one claim per line
    assert [c["id"] for c in claims] == [f"smallholder-first-player:{spec}:{BOARD}",
                                         f"smallholder-first-player:nibbler:{BOARD}", f"smallholder-rulesets:{BOARD}"]
    row = atlas_row(BOARD, all_rules()[[r.spec for r in all_rules()].index(spec)])
    first = claims[0]
    assert first["evidence"]["start"]["value"] == row["start"]["value"]
    assert first["evidence"]["start"]["remoteness"] == row["start"]["remoteness"]
    assert first["verdict"] == {"win": "holds", "loss": "fails", "draw": "partly"}[row["start"]["value"]]
    assert first["evidence"]["first_moves_winning_for_black"] == row["winning_first_moves"]["all"]
    assert [r["ruleset"] for r in claims[2]["evidence"]["rulesets"]] == [spec, "nibbler"]
    result = run("verify", "sparro", "--rules", spec, "--db", str(atlas_db))
    assert result.exit_code == 2 and "--rules chooses Smallholder combinations" in result.stderr


# -- Sparro: the no-compensation variant --------------------------------------------------------


@pytest.fixture(scope="module")
def sparro_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sparro") / "nc.sqlite"
    for variant in ("standard", NO_COMPENSATION):
        result = run("solve", "sparro", "--variant", variant, "--db", str(path), "-s")
        assert result.exit_code == 0, result.output
    return path


@pytest.mark.slow
def test_no_compensation_is_solved_and_probed_like_the_others(sparro_db: Path) -> None:
    # a position one marble short of a full board, whose last move makes no line
    tiers: dict[int, object] = {}
    solve_variant(SparroArrays(NO_COMPENSATION), {}, lambda tier, seconds: tiers.__setitem__(tier.tier, tier))
    last = tiers[23]
    drawn = int(last.keys[np.flatnonzero(last.values == DRAW)[0]])  # type: ignore[attr-defined]
    game = Sparro(NO_COMPENSATION)
    text = game.format(game.from_key(drawn))
    result = run("probe", "sparro", text, "--variant", NO_COMPENSATION, "--db", str(sparro_db), "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["value"], answer["remoteness"]) == ("draw", None)
    assert [m["value"] for m in answer["moves"]] == ["draw"]
    standard = json.loads(run("probe", "sparro", text, "--variant", "standard", "--db", str(sparro_db),
                              "--json").stdout)
    assert standard["value"] == "win" and standard["to_move"] == "B"  # the compensation decides it for Black
    listed = run("solve", "sparro", "--help")
    assert NO_COMPENSATION in listed.stdout


def test_atlas_sparro_rows(sparro_db: Path) -> None:
    result = run("atlas", "sparro", "--variant", "standard", "--variant", NO_COMPENSATION, "--db", str(sparro_db),
                 "--json", "-s")
    assert result.exit_code == 0, result.output
    standard, without = [json.loads(line) for line in result.stdout.splitlines()]
    assert list(standard) == list(ROW_KEYS)
    assert (standard["rules"], without["rules"]) == ("standard", NO_COMPENSATION)
    assert standard["draws"] == 0 and without["draws"] > 0
    assert standard["start"] == without["start"] == {"value": "win", "remoteness": 21}
    assert standard["capture_share"] is None and standard["cycles"] is False
    text = run("atlas", "sparro", "--variant", NO_COMPENSATION, "--db", str(sparro_db), "-s")
    assert text.stdout.splitlines()[1].split()[:2] == ["R", "21"]


def test_a_damaged_stored_row_is_an_error_not_a_figure(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    with TablebaseStore(path, create=True) as store:
        smallholder_atlas(store, BOARD, combinations=all_rules()[:2])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE atlas_rows SET row = replace(row, '\"draws\": 0', '\"draws\": 1') WHERE rowid = 1")
    result = run("atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(path), "--json")
    assert result.exit_code == 1
    assert "is damaged (it does not match its checksum)" in result.stderr


def test_markdown_reports_stored_weak_solves_as_they_stand(tmp_path: Path) -> None:
    from tablebase.db.proofs import ProofStore
    from tablebase.games.smallholder import Smallholder

    path = tmp_path / "weak.sqlite"
    with TablebaseStore(path, create=True) as store:
        smallholder_atlas(store, BOARD, combinations=all_rules()[:1])
        proofs = ProofStore(store)
        for board, status in (("hex4", "proved"), ("limping3", "running")):
            game = Smallholder(board, "nibbler")
            opened = proofs.open_run("smallholder", game.rules_name, game.format(game.start()), 0, "B", "test", 100)
            store.db.execute("UPDATE proof_runs SET status = ?, settled = 1234 WHERE id = ?", [status, opened.id])
        other = Smallholder("hex4", "stymie")
        later = other.play(other.start(), other.moves(other.start())[0].cell)  # a run from another root
        proofs.open_run("smallholder", other.rules_name, other.format(later), other.canonical_key(later), "B", "test",
                        100)
    page = tmp_path / "ATLAS.md"
    result = run("atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(path), "--markdown", str(page), "-s")
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert "| hex4 | " + RULESETS["nibbler"].spec + " | nibbler | Black wins (proved) | a run stored in the file: " \
        "1,234 nodes settled, 0.0 s |" in text
    assert "| limping3 | " + RULESETS["nibbler"].spec + " | nibbler | unfinished: 1,234 nodes settled, no result |" in text
    assert "stymie" not in text.split("weak solutions")[1]
    empty = tmp_path / "empty.sqlite"
    with TablebaseStore(empty, create=True) as store:
        smallholder_atlas(store, BOARD, combinations=all_rules()[:1])
    result = run("atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(empty), "--markdown", str(page), "-s")
    assert "No weak solution of these boards was given (`--proof`) or is stored" in page.read_text()


def test_markdown_reports_checked_proofs(tmp_path: Path) -> None:
    """A --proof (checked first) puts its result on the page, in place of a run of the same
    combination stored in the file; the others' runs stay. A proof that does not check,
    one of a board the tables cover, or --proof without --markdown: one line, status 1 or 2."""
    from tablebase.db.proofs import ProofStore
    from tablebase.games.smallholder import Smallholder

    proofs = Path(__file__).resolve().parent.parent / "proofs"
    proof, journal = proofs / "limping3-hull-setbacks.proof.tsv.gz", proofs / "limping3-hull-setbacks.journal"
    path = tmp_path / "weak.sqlite"
    with TablebaseStore(path, create=True) as store:
        smallholder_atlas(store, BOARD, combinations=all_rules()[:1])
        for ruleset in ("hull-setbacks", "nibbler"):
            game = Smallholder("limping3", ruleset)
            ProofStore(store).open_run("smallholder", game.rules_name, game.format(game.start()), 0, "B", "test", 100)
    page = tmp_path / "ATLAS.md"
    args = ["atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(path), "--markdown", str(page), "-s"]
    result = run(*args, "--proof", str(proof), "--journal", str(journal))
    assert result.exit_code == 0, result.output
    rows = [line for line in page.read_text().split("weak solutions")[1].splitlines() if line.startswith("| limping3")]
    assert rows == [
        "| limping3 | " + RULESETS["hull-setbacks"].spec + " | hull-setbacks | proved by a checked weak solution: "
        "Black wins with a2 (or its images e1, e5) in at most 29 plies against any defence; the other first moves are "
        f"not solved; the proof has 944 positions and 444 leaves | the proof `{proof}`, checked (`tablebase check "
        "--proof`) |",
        "| limping3 | " + RULESETS["nibbler"].spec + " | nibbler | unfinished: 0 nodes settled, no result "
        "| a run stored in the file: 0 nodes settled, 0.0 s |"]
    assert f"--proof {proof} --journal {journal}" in page.read_text().splitlines()[2]  # the command that made it
    damaged = tmp_path / "damaged.proof.tsv"
    damaged.write_text(gzip.decompress(proof.read_bytes()).decode().replace("\tloser\t", "\twinner\t", 1))
    rejected = run(*args, "--proof", str(damaged))
    assert rejected.exit_code == 1 and str(damaged) in rejected.stderr and "Traceback" not in rejected.output
    assert len(rejected.stderr.strip().splitlines()) == 1
    assert run(*args[:-3], "--proof", str(proof), "--journal", str(journal)).exit_code == 2  # no --markdown
    from tablebase.service.proof import export_proof, weak_solve_into

    rules = Smallholder(BOARD, "nibbler").rules
    with TablebaseStore(tmp_path / "limping2-weak.sqlite", create=True) as store:
        weak_solve_into(store, BOARD, rules, node_budget=1_000, job_max_empty=9)
        small = tmp_path / "limping2.proof.tsv"
        small.write_text("\n".join(export_proof(store, BOARD, rules)) + "\n")
    other_board = run(*args, "--proof", str(small))
    assert other_board.exit_code == 1 and "a proof on limping2" in other_board.stderr, other_board.output


def test_a_damaged_row_fails_check_and_is_computed_again(atlas_db: Path, tmp_path: Path) -> None:
    """A stored row whose text no longer fits its checksum: check names it, --stored-only
    refuses it, and the atlas computes it again (never reading the damaged figures)."""
    path = tmp_path / "damaged.sqlite"
    path.write_bytes(atlas_db.read_bytes())
    nibbler = RULESETS["nibbler"].spec
    with sqlite3.connect(path) as db:
        changed = db.execute("UPDATE atlas_rows SET row = replace(row, '\"draws\": 0', '\"draws\": 5') "
                             "WHERE rules = ?", [nibbler]).rowcount
    assert changed == 1
    checked = run("check", "--db", str(path), "--json")
    assert checked.exit_code == 1
    report = json.loads(checked.stdout)
    assert report["atlas_rows"]["checked"] == 120 and len(report["atlas_rows"]["damaged"]) == 1
    assert nibbler in report["atlas_rows"]["damaged"][0] and "compute it again" in report["atlas_rows"]["damaged"][0]
    stored_only = run("atlas", "smallholder", "--board", BOARD, "--stored-only", "--db", str(path))
    assert stored_only.exit_code == 1 and "is damaged" in stored_only.stderr
    again = run("atlas", "smallholder", "--board", BOARD, "--db", str(path), "--json")
    assert again.exit_code == 0, again.output
    [row] = [json.loads(line) for line in again.stdout.splitlines() if json.loads(line)["spec"] == nibbler]
    assert row == atlas_row(BOARD, RULESETS["nibbler"]) and row["draws"] == 0
    assert json.loads(run("check", "--db", str(path), "--json").stdout)["atlas_rows"] == {"checked": 120, "damaged": []}
