"""`tablebase check` through CliRunner: it passes on the solved tables and catches a changed
byte on disk, changed data with a stale checksum, wrong values with fresh checksums, a
table of another version; it reports unknown games and unfinished tables without
failing. Tampering goes through sqlite3 or the store API on purpose (a damaged disk, a
buggy solver)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from tablebase.cli.main import main
from tablebase.db.store import TABLE_COLUMNS, StoreError, TablebaseStore, record_checksum

TIER = 15  # the largest standard tier: about an eighth of the table, so a sample finds it


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args])


def report(result: Result) -> dict:
    return json.loads(result.stdout)


def assert_clean_failure(result: Result) -> None:
    """Exit 1, a single 'check failed' line on stderr, no traceback."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: check failed"), result.stderr


@pytest.fixture(scope="module")
def standard_db(sparro_standard_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the session tablebase with only the standard table (quick to check)."""
    path = tmp_path_factory.mktemp("check") / "standard.sqlite"
    shutil.copy(sparro_standard_db, path)
    return path


@pytest.fixture
def db(standard_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "t.sqlite"
    shutil.copy(standard_db, path)
    return path


def test_passes_on_the_solved_tables(sparro_db: Path) -> None:
    result = run("--db", str(sparro_db), "--sample", "15", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    found = report(result)
    assert found["ok"] and found["integrity"] == "ok" and found["failures"] == 0
    assert sorted(t["rules"] for t in found["tables"]) == ["extended", "extended-unrestricted", "standard"]
    for table in found["tables"]:
        assert table["status"] == "ok" and table["tiers"] == 25
        assert table["sampled"] == 16 and table["searched"] >= 10  # the start is too deep to search


def test_text_report(db: Path) -> None:
    result = run("--db", str(db), "--sample", "5", "--seed", "2")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"check of {str(db)!r} (sample of 5 positions per table, seed 2)"
    assert lines[1] == "file: ok (SQLite integrity check)"
    assert lines[2].startswith("ok: sparro standard: 25 tiers, 1,964,178 positions; 6 sampled positions")
    assert lines[-1] == "result: ok (1 table(s))"


def blob(path: Path, column: str, tier: int, block: int) -> bytes:
    with sqlite3.connect(path) as conn:
        value = conn.execute(f"SELECT {column} FROM blocks WHERE tier = ? AND block = ?", (tier, block)).fetchone()[0]
    conn.close()
    return value


def flip_byte_on_disk(path: Path, inside: bytes) -> None:
    """Change one byte of the file in the middle of the stored blob ``inside``."""
    data = bytearray(path.read_bytes())
    at = data.find(inside[len(inside) // 2:len(inside) // 2 + 32])
    assert at >= 0, "blob not found in the file"
    data[at + 5] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("column", ["keys", "payload"])
def test_a_changed_byte_on_disk_is_detected(db: Path, column: str) -> None:
    flip_byte_on_disk(db, blob(db, column, TIER, 3))
    result = run("--db", str(db), "--sample", "0", "--json")
    assert_clean_failure(result)
    table = report(result)["tables"][0]
    assert table["status"] == "failed"
    assert any(f"block 3 of tier {TIER}" in f or f"tier {TIER} " in f for f in table["failures"]), table


def test_changed_data_with_a_stale_checksum_is_detected(db: Path) -> None:
    payload = np.frombuffer(zlib.decompress(blob(db, "payload", TIER, 0)), dtype="u1").copy()
    payload[0] ^= 0x80  # flip a value, recompressed: only the checksum can see it
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE blocks SET payload = ? WHERE tier = ? AND block = 0",
                     (zlib.compress(payload.tobytes()), TIER))
    conn.close()
    result = run("--db", str(db), "--sample", "0")
    assert_clean_failure(result)
    assert f"tier {TIER} of table" in result.stdout and "does not match its checksum" in result.stdout


def test_the_report_names_damage_without_telling_to_run_check(db: Path) -> None:
    """A damaged block's error advises running 'tablebase check' wherever it is shown,
    but not in check's own report, which names the problem alone."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE blocks SET checksum = 'x' WHERE tier = ? AND block = 1", (TIER,))
    conn.close()
    with TablebaseStore(db, readonly=True) as store, pytest.raises(StoreError) as raised:
        table = store.table("sparro", "standard")
        store.read_tier(table.id, TIER, table.payload_dtype)
    assert str(raised.value) == f"{raised.value.problem}; run 'tablebase check'"
    result = run("--db", str(db), "--sample", "0", "--json")
    assert_clean_failure(result)
    failures = report(result)["tables"][0]["failures"]
    assert failures == [raised.value.problem]
    assert "does not match its checksum" in failures[0] and "tablebase check" not in result.stdout


@pytest.mark.slow
def test_wrong_values_with_fresh_checksums_are_detected(db: Path) -> None:
    """A buggy solver's table: every checksum fits, the values do not."""
    with TablebaseStore(db) as store:
        table = store.table("sparro", "standard")
        keys, payload = store.read_tier(table.id, TIER, table.payload_dtype)
        store.write_tier(table.id, TIER, keys, payload ^ np.uint8(0x80), 0.0)
        store.finish_table(table.id, table.seconds, table.summary)
    result = run("--db", str(db), "--sample", "100", "--seed", "3", "--json")
    assert_clean_failure(result)
    failures = report(result)["tables"][0]["failures"]
    assert any("best move gives" in f for f in failures)
    assert any("the search" in f for f in failures)


def test_a_damaged_table_record_fails_that_table_alone_and_force_replaces_it(tmp_path: Path) -> None:
    """One table's record damaged: check reported the whole file as failing SQLite's
    integrity check and checked no table; solve --force could not replace it either."""
    db = tmp_path / "two.sqlite"
    for ruleset in ("nibbler", "stymie"):
        assert CliRunner().invoke(main, ["solve", "smallholder", "--board", "limping2", "--ruleset", ruleset,
                                         "--db", str(db), "-s"]).exit_code == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE solved_tables SET seconds = seconds + 1 WHERE rules = 'nibbler@limping2'")
    conn.close()
    result = run("--db", str(db), "--sample", "5", "--json")
    assert_clean_failure(result)
    found = report(result)
    assert found["integrity"] == "ok"
    tables = {t["rules"]: t for t in found["tables"]}
    assert tables["nibbler@limping2"]["failures"] == [
        f"the record of table smallholder nibbler@limping2 in {str(db)!r} is damaged (it does not match its "
        "checksum); solve it again with --force"]
    assert tables["stymie@limping2"]["failures"] == [] and tables["stymie@limping2"]["sampled"] > 0
    repaired = CliRunner().invoke(main, ["solve", "smallholder", "--board", "limping2", "--force", "--db", str(db), "-s"])
    assert repaired.exit_code == 0, repaired.output
    assert run("--db", str(db), "--sample", "5").exit_code == 0


def test_another_version_is_reported(db: Path) -> None:
    with sqlite3.connect(db) as conn:  # a table as another version would have written it: a fitting checksum
        conn.execute("UPDATE solved_tables SET solver_version = 'tiered-0'")
        for row in conn.execute(f"SELECT {', '.join(TABLE_COLUMNS)} FROM solved_tables").fetchall():
            conn.execute("UPDATE solved_tables SET record_checksum = ? WHERE id = ?",
                         (record_checksum("solved_tables", row), row[0]))
    conn.close()
    result = run("--db", str(db), "--sample", "5")
    assert_clean_failure(result)
    assert "made by rules/solver/payload sparro-1/tiered-0/u1" in result.stdout


def test_unknown_game_is_not_checked_but_its_checksums_are(db: Path) -> None:
    with TablebaseStore(db) as store:
        info = store.begin_table("tic-tac-toe", "3x3", "ttt-1", "naive-1", "u1")
        store.write_tier(info.id, 0, np.array([0, 5, 9], dtype=np.uint64), np.array([1, 2, 3], dtype="u1"), 0.0)
        store.finish_table(info.id, 0.0, {})
    result = run("--db", str(db), "--sample", "3", "--json")
    assert result.exit_code == 0, result.output
    statuses = {t["game"]: t["status"] for t in report(result)["tables"]}
    assert statuses == {"sparro": "ok", "tic-tac-toe": "not checked: unknown game"}

    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE blocks SET payload = ? WHERE table_id = ?", (zlib.compress(b"\1\2\4"), info.id))
    conn.close()
    assert_clean_failure(run("--db", str(db), "--sample", "0"))


def test_unfinished_table_is_incomplete_not_failed(db: Path) -> None:
    with TablebaseStore(db) as store:
        info = store.begin_table("sparro", "extended", *[store.table("sparro", "standard").rules_version,
                                                        store.table("sparro", "standard").solver_version], "u1")
        store.write_tier(info.id, 24, np.array([1, 2], dtype=np.uint64), np.array([0, 0], dtype="u1"), 0.0)
    result = run("--db", str(db), "--sample", "5", "--json")
    assert result.exit_code == 0, result.output
    assert {t["rules"]: t["status"] for t in report(result)["tables"]} == {"extended": "incomplete",
                                                                          "standard": "ok"}


@pytest.mark.parametrize("content", [None, b"definitely not a database" * 50, b""])
def test_unusable_file_is_one_line(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "x.sqlite"
    if content is not None:
        path.write_bytes(content)
    result = run("--db", str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and str(path) in result.stderr
    if content is not None:
        assert path.read_bytes() == content


def test_check_does_not_write(db: Path) -> None:
    before = db.read_bytes()
    assert run("--db", str(db), "--sample", "3").exit_code == 0
    assert db.read_bytes() == before


def test_help_has_an_example() -> None:
    result = CliRunner().invoke(main, ["check", "--help"])
    assert result.exit_code == 0
    assert "Example:\n      tablebase check\n      tablebase check --db" in result.output


@pytest.mark.parametrize("seed", range(6))
def test_random_byte_flips_never_crash(db: Path, seed: int) -> None:
    """A changed byte anywhere (header, b-tree pages, free space, blobs): check and probe
    answer with a report or a one-line error, never a traceback."""
    rng = np.random.default_rng(seed)
    data = bytearray(db.read_bytes())
    for at in rng.integers(0, len(data), size=3):
        data[at] ^= 1 << int(rng.integers(8))
    db.write_bytes(bytes(data))
    result = run("--db", str(db), "--sample", "3", "--seed", "1")
    assert result.exit_code in (0, 1) and (result.exception is None or isinstance(result.exception, SystemExit))
    probed = CliRunner().invoke(main, ["probe", "sparro", "--db", str(db)])
    assert probed.exit_code in (0, 1) and (probed.exception is None or isinstance(probed.exception, SystemExit))
    if probed.exit_code == 1:
        assert probed.stderr.count("\n") == 1 and probed.stderr.startswith("Error: ")


def test_smallholder_tables_are_checked(tmp_path: Path) -> None:
    """A solved Smallholder table passes; its values flipped (checksums refreshed) fail."""
    from tablebase.service.smallholder import solve_into
    from tablebase.games.smallholder import parse_rules
    from tablebase.solver.payload import layout

    path = tmp_path / "smallholder.sqlite"
    with TablebaseStore(path, create=True) as store:
        solve_into(store, "limping2", parse_rules("nibbler"))
    good = run("--db", str(path), "--sample", "100", "--json")
    assert good.exit_code == 0, good.output
    (table,) = report(good)["tables"]
    assert table["status"] == "ok" and table["sampled"] >= 100
    with TablebaseStore(path) as store:
        info = store.table("smallholder", "nibbler@limping2")
        tiers = store.stored_tiers(info.id)
        _, win_flag, _ = layout(info.payload_dtype)
        for tier in tiers:  # every value becomes its opposite: wins and losses swap
            keys, payload = store.read_tier(info.id, tier, info.payload_dtype)
            store.write_tier(info.id, tier, keys, payload ^ np.uint16(win_flag), 0.0)
        store.finish_table(info.id, info.seconds, info.summary)
    bad = run("--db", str(path), "--sample", "100", "--json")
    assert_clean_failure(bad)
    assert report(bad)["tables"][0]["failures"]


@pytest.mark.parametrize("option, value", [("--leaf-budget", "5"), ("--leaf-check", "reference"), ("--journal", "j")])
def test_proof_options_without_a_proof_are_refused(tmp_path: Path, option: str, value: str) -> None:
    result = run("--db", str(tmp_path / "none.sqlite"), option, value)
    assert result.exit_code == 2 and f"{option} is for --proof FILE" in result.output, result.output


@pytest.mark.parametrize("option, value", [("--sample", "200"), ("--seed", "1"), ("--search-budget", "10")])
def test_table_options_with_a_proof_are_refused(tmp_path: Path, option: str, value: str) -> None:
    proof = tmp_path / "p.tsv"
    proof.write_text("not read\n")
    result = run("--proof", str(proof), option, value)
    assert result.exit_code == 2 and f"{option} is for a tablebase's check" in result.output, result.output
