"""The Sparro tablebase: retrograde results against the independent search, symmetry,
the retrograde invariant, storage round trips and resuming an interrupted solve."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tablebase.service.sparro import solve_into, table_lookup
from tablebase.db.store import TablebaseStore
from tablebase.games.base import LOSS, WIN
from tablebase.games.sparro import SYMMETRIES, VARIANTS, Sparro
from tablebase.solver.probe import outcome_of, probe
from tablebase.solver.search import Search
from tablebase.solver.tiered import TIERS, unpack_results


def sample_positions(store: TablebaseStore, variant: str, tiers: range, per_tier: int, seed: int):
    """Random stored (canonical) positions of the given tiers with their table outcome."""
    table = store.table("sparro", variant)
    rng = np.random.default_rng(seed)
    for tier in tiers:
        keys, payload = store.read_tier(table.id, tier, table.payload_dtype)
        solved = unpack_results(tier, keys, payload)
        for i in rng.choice(len(keys), size=min(per_tier, len(keys)), replace=False):
            yield int(keys[i]), outcome_of(solved.values[i], solved.remoteness[i])


@pytest.mark.parametrize("variant", VARIANTS)
def test_retrograde_agrees_with_search(sparro_db: Path, variant: str) -> None:
    game = Sparro(variant)
    search = Search(game)
    checked = 0
    with TablebaseStore(sparro_db) as store:
        # deep tiers are cheap to search; a few shallower ones reach long lines of play
        samples = list(sample_positions(store, variant, range(14, TIERS), 25, seed=3))
        samples += list(sample_positions(store, variant, range(11, 14), 4, seed=4))
    for key, expected in samples:
        result = search.solve(game.from_key(key))
        assert result.outcome == expected, game.format(game.from_key(key))
        checked += 1
    assert checked >= 250


@pytest.mark.parametrize("variant", VARIANTS)
def test_probe_is_symmetry_invariant_and_consistent_with_children(sparro_db: Path, variant: str) -> None:
    game = Sparro(variant)
    with TablebaseStore(sparro_db) as store:
        lookup = table_lookup(store, store.table("sparro", variant))
        for key, expected in sample_positions(store, variant, range(0, TIERS, 2), 6, seed=5):
            pos = game.from_key(key)
            answer = probe(game, pos, lookup)
            assert answer.outcome == expected
            if answer.moves:  # retrograde invariant: the value is the best move's
                best = answer.moves[0].outcome
                assert best.value == expected.value and best.remoteness == expected.remoteness
                assert any(m.outcome.value == WIN for m in answer.moves) == (expected.value == WIN)
            for symmetry in range(len(SYMMETRIES)):
                image = probe(game, game.symmetric(pos, symmetry), lookup)
                assert image.outcome == answer.outcome
                moved = {SYMMETRIES[symmetry][m.cell]: m.outcome for m in answer.moves}
                assert {m.cell: m.outcome for m in image.moves} == moved


def test_known_start_values(sparro_db: Path) -> None:
    """The starts, as the tables give them; their second method is the search test above
    plus the independent mirror-strategy proof for extended-unrestricted below."""
    with TablebaseStore(sparro_db) as store:
        summaries = {t.rules: t.summary for t in store.tables()}
    assert summaries["extended-unrestricted"]["start_value"] == "loss"


def test_mirror_strategy_wins_extended_unrestricted() -> None:
    """Black answering every Red move with its 180-degree image never loses: an
    exhaustive proof (over canonical positions) independent of the retrograde solver."""
    game = Sparro("extended-unrestricted")
    rotate = SYMMETRIES[2]
    seen: set[int] = set()

    def red_cannot_win(pos) -> bool:  # Red to move; Black then mirrors
        if game.terminal_value(pos) is not None:
            return game.terminal_value(pos) == LOSS
        key = game.canonical_key(pos)
        if key in seen:
            return True
        seen.add(key)
        for move in game.legal_moves(pos):
            after = game.play(pos, move)
            if game.terminal_value(after) is not None:
                if game.terminal_value(after) == WIN:  # for Black to move
                    return False
                continue
            reply = rotate[move]
            if reply not in game.legal_moves(after) or not red_cannot_win(game.play(after, reply)):
                return False
        return True

    assert red_cannot_win(game.start())
    assert len(seen) > 1000


@pytest.mark.slow
def test_stored_tiers_round_trip(tmp_path: Path) -> None:
    with TablebaseStore(tmp_path / "t.sqlite", create=True) as store:
        info = solve_into(store, "standard", progress=False)
        assert info.status == "complete" and info.tiers == TIERS
        keys, payload = store.read_tier(info.id, 10, info.payload_dtype)
        assert len(keys) > 1000 and np.all(np.diff(keys.astype(np.int64)) > 0)
        found, again = store.lookup(info, 10, keys[::97])
        assert found.all() and np.array_equal(again, payload[::97])
        found, _ = store.lookup(info, 10, keys[:5] + np.uint64(1 << 60))
        assert not found.any()


class Interrupted(Exception):
    pass


@pytest.mark.slow
def test_interrupted_solve_resumes_to_the_same_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with TablebaseStore(tmp_path / "clean.sqlite", create=True) as store:
        clean = solve_into(store, "standard", progress=False)

    writes = 0
    original = TablebaseStore.write_tier

    def failing_write(self, *args, **kwargs):
        nonlocal writes
        writes += 1
        if writes == 9:
            raise Interrupted()
        return original(self, *args, **kwargs)

    path = tmp_path / "resumed.sqlite"
    with TablebaseStore(path, create=True) as store:
        monkeypatch.setattr(TablebaseStore, "write_tier", failing_write)
        with pytest.raises(Interrupted):
            solve_into(store, "standard", progress=False)
        monkeypatch.setattr(TablebaseStore, "write_tier", original)
        partial = store.table("sparro", "standard")
        assert partial.status == "solving"
        assert sorted(store.stored_tiers(partial.id)) == list(range(TIERS - 8, TIERS))
    with TablebaseStore(path) as store:
        resumed = solve_into(store, "standard", progress=False)
    assert resumed.status == "complete"
    assert resumed.checksum == clean.checksum
    assert resumed.positions == clean.positions
