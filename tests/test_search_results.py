"""The exact search's persistent transposition table (service/search_results.py,
db/search_results.py): stored results answer later probes as a fresh search does, a
damaged row or a set of other versions is never used, and `check` re-proves a sample
and fails on a planted wrong result."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import tablebase
from tablebase.db.search_results import ENTRY_DTYPE, SearchResultStore
from tablebase.db.store import StoreError, TablebaseStore
from tablebase.games.base import LOSS, WIN
from tablebase.games.smallholder import Smallholder
from tablebase.service import search_results
from tablebase.service.check import check_database
from tablebase.solver.probe import probe
from tablebase.solver.smallholder_exact import Budget, ExactSearch, scores_of
from tablebase.solver.smallholder_search import ArrayLocalSearch

TABLE = 1 << 22
GAME = Smallholder("hex4", "nibbler")


def endgame(empty: int, seed: int):  # type: ignore[no-untyped-def]
    """The first position with ``empty`` empty cells of a random hex4 nibbler game."""
    rng = random.Random(seed)
    while True:
        pos = GAME.start()
        while GAME.legal_moves(pos):
            if (GAME.board.full & ~(pos.black | pos.white)).bit_count() == empty:
                return pos
            pos = GAME.play(pos, rng.choice(GAME.legal_moves(pos)))


POSITIONS = [endgame(13, seed) for seed in range(3)]


def answer(search: ExactSearch, pos, store: TablebaseStore | None = None):  # type: ignore[no-untyped-def]
    lookup = (search_results.persistent_lookup(store, search, Budget()) if store is not None
              else lambda keys: [search.solve(GAME.from_key(k)) for k in keys])
    result = probe(GAME, pos, lookup)
    return result.outcome, [(m.cell, m.outcome) for m in result.moves]


@pytest.fixture
def keep_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Store every exact result, saving after every lookup (small positions search little)."""
    monkeypatch.setattr(search_results, "SAVE_AFTER_NODES", 0)
    monkeypatch.setattr(search_results, "MIN_WORK", 0)
    monkeypatch.setattr(search_results.save, "__defaults__", (0,))


def stored(path: Path) -> np.ndarray:
    with TablebaseStore(path) as store:
        results = SearchResultStore(store)
        found = results.find("smallholder", GAME.rules_name)
        return results.read(found).entries if found else np.zeros(0, ENTRY_DTYPE)


def test_stored_results_answer_as_a_fresh_search(tmp_path: Path, keep_everything: None) -> None:
    path = tmp_path / "t.sqlite"
    with TablebaseStore(path, create=True) as store:
        first = ExactSearch(GAME, table_bytes=TABLE)
        answers = [answer(first, pos, store) for pos in POSITIONS]
        work = first.searched()
    entries = stored(path)
    assert len(entries) > 100
    with TablebaseStore(path, create=True) as store:
        second = ExactSearch(GAME, table_bytes=TABLE)
        again = [answer(second, pos, store) for pos in POSITIONS]
        assert second.searched() < max(work, 1)  # answered from the file, not searched again
    fresh = [answer(ExactSearch(GAME, table_bytes=TABLE), pos) for pos in POSITIONS]
    assert again == answers == fresh
    # and the subgraph method, independent of the search, agrees on the roots
    for pos, (outcome, _) in zip(POSITIONS, again):
        assert ArrayLocalSearch(GAME, node_budget=5_000_000).outcomes([GAME.canonical_key(pos)])[0] == outcome
    # every stored value is the one a fresh search proves (a sample)
    for i in random.Random(1).sample(range(len(entries)), 15):
        pos = ExactSearch(GAME).position_of_pair(int(entries["mover"][i]), int(entries["waiter"][i]))
        outcome = ExactSearch(GAME, table_bytes=TABLE).solve(pos)
        assert outcome is not None
        assert (outcome.value, outcome.remoteness or 0) == (entries["value"][i], entries["remoteness"][i])


@pytest.mark.parametrize("seed", [1, 2])
def test_a_second_probe_answers_from_its_moves_stored_results(tmp_path: Path, seed: int) -> None:
    """With the default saves, a second probe of a position (a fresh search, from what the
    file holds) takes every move's result from the file and the position's own from them,
    searching next to nothing. The file keeps results in canonical form and the search
    keys positions this far into the game as they stand, so a loaded result is put where
    the search looks; without that, the second probe searched the position again."""
    pos = endgame(18, seed)
    path = tmp_path / "t.sqlite"
    with TablebaseStore(path, create=True) as store:
        first = ExactSearch(GAME, table_bytes=TABLE)
        answered = answer(first, pos, store)
        work = first.searched()
    assert len(stored(path)) >= len(answered[1])
    with TablebaseStore(path) as store:
        second = ExactSearch(GAME, table_bytes=TABLE)
        assert answer(second, pos, store) == answered
        assert second.searched() < 100 < work


def test_the_facade_writes_only_when_opened_for_writing(tmp_path: Path, keep_everything: None) -> None:
    path = tmp_path / "t.sqlite"
    TablebaseStore(path, create=True).close()
    text = GAME.format(endgame(12, 7))
    with tablebase.open(path, mode="r") as tb:
        read_only = tb.probe("smallholder", text, search=True)
    assert len(stored(path)) == 0
    with tablebase.open(path, mode="w") as tb:
        written = tb.probe("smallholder", text, search=True)
    assert (written.value, written.remoteness) == (read_only.value, read_only.remoteness)
    assert len(stored(path)) > 0


def plant(path: Path, entries: np.ndarray, solver_version: str | None = None) -> None:
    rules_version, current = search_results.versions()
    with TablebaseStore(path, create=True) as store:
        SearchResultStore(store).add("smallholder", GAME.rules_name, rules_version, solver_version or current,
                                     entries)


def entries_of(positions: list, wrong: bool = False) -> np.ndarray:  # type: ignore[type-arg]
    """Stored-results rows of ``positions``: their true values (flipped with ``wrong``)."""
    search = ExactSearch(GAME, table_bytes=TABLE)
    rows = np.zeros(len(positions), ENTRY_DTYPE)
    for i, pos in enumerate(positions):
        outcome = search.solve(pos)
        assert outcome is not None and outcome.value in (WIN, LOSS)
        rows[i] = (*search.canonical_pair(pos), -outcome.value if wrong else outcome.value, outcome.remoteness, 10)
    return rows


def test_a_damaged_row_is_detected_and_never_used(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    plant(path, entries_of(POSITIONS, wrong=True))
    with sqlite3.connect(path) as conn:  # one byte of the data changed, the checksum kept
        data = bytearray(conn.execute("SELECT data FROM search_batches").fetchone()[0])
        data[len(data) // 2] ^= 0x10
        conn.execute("UPDATE search_batches SET data = ?", [bytes(data)])
    with TablebaseStore(path) as store:
        results = SearchResultStore(store)
        read = results.read(results.find("smallholder", GAME.rules_name))
        assert len(read.entries) == 0 and "batch 0" in read.damaged[0] and "damaged" in read.damaged[0]
        search = ExactSearch(GAME, table_bytes=TABLE)
        assert search_results.load(store, search) == 0
        assert [answer(search, pos, store) for pos in POSITIONS] == \
               [answer(ExactSearch(GAME, table_bytes=TABLE), pos) for pos in POSITIONS]
        report = check_database(store, sample=10, seed=0)
    failed = [t for t in report.tables if t.failures]
    assert len(failed) == 1 and "damaged" in failed[0].failures[0] and report.failures == 1


def test_a_damaged_set_record_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    plant(path, entries_of(POSITIONS[:1]))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE search_sets SET rules = 'stymie@hex4'")
    with TablebaseStore(path) as store:
        with pytest.raises(StoreError, match="does not match its checksum"):
            SearchResultStore(store).sets()
        assert check_database(store, sample=10, seed=0).failures == 1


def test_results_of_another_solver_version_are_ignored(tmp_path: Path, keep_everything: None) -> None:
    path = tmp_path / "t.sqlite"
    plant(path, entries_of(POSITIONS, wrong=True), solver_version="0")
    events: list = []
    with TablebaseStore(path, create=True) as store:
        search = ExactSearch(GAME, table_bytes=TABLE)
        assert search_results.load(store, search, events.append) == 0
        assert "version" in str(events[0]) and "not used" in str(events[0])
        report = check_database(store, sample=10, seed=0)
        assert report.failures == 1 and "probes ignore them" in report.tables[0].failures[0]
        # a writable probe replaces them with results of this version
        assert [answer(search, pos, store) for pos in POSITIONS] == \
               [answer(ExactSearch(GAME, table_bytes=TABLE), pos) for pos in POSITIONS]
        found = SearchResultStore(store).find("smallholder", GAME.rules_name)
        assert found is not None and search_results.is_current(found)


def test_check_reproves_a_sample_and_fails_on_a_planted_wrong_row(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    right = entries_of(POSITIONS)
    plant(path, right)
    with TablebaseStore(path) as store:
        report = check_database(store, sample=10, seed=0)
    assert report.failures == 0 and report.tables[0].searched == len(POSITIONS)
    assert "re-proved by a fresh search" in report.text()
    plant(path, entries_of([endgame(12, 3)], wrong=True))
    with TablebaseStore(path) as store:
        report = check_database(store, sample=10, seed=0)
    problems = report.tables[0].failures
    assert report.failures == 1 and "is stored as" in problems[0] and "a fresh search proves" in problems[0]


def test_two_values_for_one_position_fail_the_check(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    right = entries_of(POSITIONS[:1])
    plant(path, right)
    wrong = right.copy()
    wrong["remoteness"] += 2
    plant(path, wrong)
    with TablebaseStore(path) as store:
        report = check_database(store, sample=10, seed=0)
    assert any("two values" in problem for problem in report.tables[0].failures)


def test_scores_round_trip() -> None:
    values = np.array([1, -1, 0, 1], np.int8)
    remoteness = np.array([3, 0, 0, 41], np.int16)
    from tablebase.solver.smallholder_exact import outcome_of_score, values_of
    scores = scores_of(values, remoteness)
    assert [outcome_of_score(int(s)).value for s in scores] == values.tolist()
    back_values, back_remoteness = values_of(scores)
    assert back_values.tolist() == values.tolist() and back_remoteness.tolist() == remoteness.tolist()


def test_a_failed_save_leaves_the_answer(tmp_path: Path, keep_everything: None,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object) -> int:
        raise StoreError("cannot write (database or disk is full)")

    monkeypatch.setattr(SearchResultStore, "add", full)
    events: list = []
    with TablebaseStore(tmp_path / "t.sqlite", create=True) as store:
        search = ExactSearch(GAME, table_bytes=TABLE)
        lookup = search_results.persistent_lookup(store, search, Budget(), events.append)
        result = probe(GAME, POSITIONS[0], lookup)
    assert (result.outcome, [(m.cell, m.outcome) for m in result.moves]) == \
           answer(ExactSearch(GAME, table_bytes=TABLE), POSITIONS[0])
    assert any("not stored" in str(event) and "full" in str(event) for event in events)


def test_each_result_is_stored_once(tmp_path: Path, keep_everything: None) -> None:
    """Saving after every lookup adds only what the search proved since the last save:
    the file holds each position once, however many probes and saves (a search keys
    most positions by their table form, not the canonical form the file uses, and every
    save used to store those again)."""
    path = tmp_path / "t.sqlite"
    with TablebaseStore(path, create=True) as store:
        search = ExactSearch(GAME, table_bytes=TABLE)
        for pos in POSITIONS:
            answer(search, pos, store)
        assert search_results.save(store, search).rows == 0  # nothing new since the last lookup's save
    entries = stored(path)
    assert len(entries) > 100
    assert len(np.unique(entries[["mover", "waiter"]])) == len(entries)
