"""The command line under faults: a damaged block in a batch probe, huge integers, batch
error lines that say which input line they answer, search budgets that bound a probe,
and progress on long checks."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tablebase.cli.main import main
from tablebase.db.store import TablebaseStore
from tablebase.games.sparro import Sparro
from tablebase.service.check import check_database
from tablebase.service.sparro import search_lookup
from tablebase.solver.search import Search

HUGE = "99999999999999999999"
TIER = 9  # its positions' children are in tier 10, a tier of many blocks


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


@pytest.fixture(scope="module")
def standard_db(sparro_standard_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("faults") / "standard.sqlite"
    shutil.copy(sparro_standard_db, path)
    return path


def positions_of_tier(db: Path, tier: int, count: int) -> list[str]:
    game = Sparro("standard")
    with TablebaseStore(db, readonly=True) as store:
        table = store.table("sparro", "standard")
        keys, _ = store.read_tier(table.id, tier, table.payload_dtype)
    rng = random.Random(tier)
    return [game.format(game.from_key(int(k))) for k in rng.sample(keys.tolist(), count)]


def test_a_damaged_block_never_answers_wrong_and_the_rest_of_the_batch_is_answered(standard_db: Path,
                                                                                  tmp_path: Path) -> None:
    """The issue's case: one changed bit in a block's first_key. Every line is either the
    pristine answer or an error naming the tier and block; intact lines are answered."""
    texts = positions_of_tier(standard_db, TIER, 600)
    batch = "".join(text + "\n" for text in texts)
    pristine = run("probe", "sparro", "-", "--db", str(standard_db), "--json", input=batch)
    assert pristine.exit_code == 0, pristine.output
    truth = [json.loads(line) for line in pristine.stdout.splitlines()]
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(standard_db, damaged)
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE blocks SET first_key = (first_key | 64) - (first_key & 64) WHERE tier = ? AND block = 5",
                     (TIER + 1,))  # one bit flipped
    conn.close()
    result = run("probe", "sparro", "-", "--db", str(damaged), "--json", input=batch)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(truth)
    errors = [a for a in answers if "error" in a]
    assert errors and len(errors) < len(answers) // 2
    for answer, expected in zip(answers, truth):
        if "error" in answer:
            assert f"block 5 of tier {TIER + 1} of table sparro standard" in answer["error"], answer
            assert answer["position"] == expected["position"]
        else:
            assert answer == expected
    assert result.exit_code == 1 and result.stderr.count("\n") == 1


@pytest.mark.parametrize("args", [
    ["puzzles", "show", HUGE],
    ["puzzles", "play", HUGE],
    ["puzzles", "list", "--min-depth", HUGE],
    ["puzzles", "list", "--max-depth", HUGE],
    ["puzzles", "list", "--limit", HUGE],
    ["puzzles", "export", "--min-depth", HUGE],
    ["puzzles", "generate", "sparro", "--seed", HUGE],
    ["puzzles", "generate", "sparro", "--max-games", HUGE],
    ["check", "--sample", HUGE],
    ["check", "--seed", HUGE],
    ["check", "--search-budget", HUGE],
    ["probe", "sparro", "--search", "--budget", HUGE],
    ["probe", "smallholder", "--search", "--budget", HUGE],
])
def test_huge_integers_are_usage_errors(args: list[str], tmp_path: Path) -> None:
    result = run(*args, "--db", str(tmp_path / "none.sqlite"))
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert "Invalid value" in result.stderr and "is not in the range" in result.stderr, result.stderr


def test_text_batch_errors_carry_the_input_line_number() -> None:
    batch = "............/......../....\n\nnot a position\nR.........../......../....\nRRRBB..BRRRB/B......./....\n"
    result = run("moves", "sparro", "-", input=batch)
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert [line.split(":")[1].strip() for line in errors] == ["line 3", "line 5"]
    assert "'not a position'" in errors[0] and "cannot arise in play" in errors[1]
    assert len(result.stdout.splitlines()) == 2


def test_the_search_budget_bounds_a_whole_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe asks for a position and all its moves at once: together they get the budget."""
    calls = 0
    negamax = Search._negamax

    def counted(self, pos, alpha, beta):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return negamax(self, pos, alpha, beta)

    monkeypatch.setattr(Search, "_negamax", counted)
    game = Sparro("extended")
    pos = game.parse("R.........../......../.... B")
    keys = [game.canonical_key(pos)] + [game.canonical_key(game.play(pos, m)) for m in game.legal_moves(pos)]
    outcomes = search_lookup(game, 3000)(keys)
    assert all(outcome is None for outcome in outcomes)  # far too deep for 3,000 nodes
    assert calls <= 3000 + 1  # the node that finds the budget spent


def test_the_search_time_bounds_a_whole_probe() -> None:
    """``seconds`` bounds the whole probe's wall-clock time like the budget its positions
    (counted from ``since`` when given): the extended start with its moves, far beyond
    half a second, is unknown within about that; progress counts the positions."""
    game = Sparro("extended")
    pos = game.start()
    keys = [game.canonical_key(pos)] + [game.canonical_key(game.play(pos, m)) for m in game.legal_moves(pos)]
    events: list[Any] = []
    started = time.perf_counter()
    outcomes = search_lookup(game, 10 ** 12, 0.5, events.append)(keys)
    took = time.perf_counter() - started
    assert all(outcome is None for outcome in outcomes) and 0.5 <= took < 1.5
    counts = [int(e.text.split()[0].replace(",", "")) for e in events]
    assert counts and counts == sorted(counts) and all(e.task == "sparro extended search" for e in events)
    late = search_lookup(game, 10 ** 12, 0.5, since=time.perf_counter() - 1.0)
    started = time.perf_counter()
    assert late(keys[:1]) == [None] and time.perf_counter() - started < 0.5  # the time was spent before
    # a position within reach is answered exactly under the same bounds
    near = game.parse("RRBRBBRB..../......../....")
    assert search_lookup(game, 10 ** 12, 5.0)([game.canonical_key(near)])[0] is not None


def test_probe_sparro_search_keeps_time(tmp_path: Path) -> None:
    """`probe sparro --search --time`: the extended start is unknown after about the time
    given, whatever the budget."""
    started = time.perf_counter()
    result = run("probe", "sparro", "--search", "--variant", "extended", "--time", "0.5", "--budget", "1000000000",
                 "--json", "--db", str(tmp_path / "none.sqlite"))
    took = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["value"] == "unknown" and took < 2.5


@pytest.mark.slow
def test_long_checks_report_progress(standard_db: Path) -> None:
    events = []
    with TablebaseStore(standard_db, readonly=True) as store:
        report = check_database(store, 250, 1, progress=events.append)
    assert report.failures == 0
    tiers = [e for e in events if e.text.startswith("verifying tier")]
    assert [e.done for e in tiers] == list(range(1, 26)) and all(e.total == 25 for e in tiers)
    sampled = [(e.done, e.total) for e in events if e.text == "sampled positions"]
    assert sampled == [(100, 251), (200, 251)]  # the start is always judged too


def test_a_sample_beyond_the_table_checks_the_whole_table(tmp_path: Path) -> None:
    """Capped at the table's size: a synthetic table of an unknown game draws every key once."""
    import numpy as np

    from tablebase.service import check as audit

    path = tmp_path / "small.sqlite"
    with TablebaseStore(path, create=True) as store:
        info = store.begin_table("g", "r", "rv", "sv", "u1")
        store.write_tier(info.id, 0, np.arange(5, 50, dtype=np.uint64), np.zeros(45, dtype="u1"), 0.0)
        info = store.finish_table(info.id, 0.0, {})
        report = audit.TableReport("g", "r", 1, 45)
        keys = audit._check_stored_data(store, info, report, 10**9, random.Random(1))
    assert sorted(keys) == list(range(5, 50)) and not report.failures
