"""Probes that remember what complete tables answered (``tablebase.open(path, memo=True)``,
what the web explorer uses; see `service.probing.MemoLookup`) answer exactly what probes
reading the file every time answer, and never answer from memory for a table that the
file no longer holds as it was."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterator

import pytest

import tablebase
from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder import Smallholder
from tablebase.games.sparro import Sparro
from tablebase.service import probing
from tablebase.service.errors import NotSolved
from tablebase.service.games import describe

BOARD = {"board": "limping2"}


def random_texts(game: Any, count: int, seed: int) -> list[str]:
    """Distinct positions of random games, every ply (the finished ones included)."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < count:
        pos = game.start()
        while True:
            if game.format(pos) not in texts:
                texts.append(game.format(pos))
            if game.terminal_value(pos) is not None:
                break
            pos = game.play(pos, rng.choice(list(game.legal_moves(pos))))
    return texts[:count]


@pytest.fixture
def memo_forgotten() -> Iterator[None]:
    probing.forget_tables()
    yield
    probing.forget_tables()


@pytest.fixture(scope="module")
def smallholder_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("memo") / "smallholder.sqlite"
    with tablebase.open(path, mode="w") as tb:
        tb.solve("smallholder", **BOARD)
    return path


class CountedReads:
    """Counts the lookups that reach the stored blocks."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original = TablebaseStore.lookup_partial

        def counted(store: TablebaseStore, *args: Any) -> Any:
            self.count += 1
            return original(store, *args)

        monkeypatch.setattr(TablebaseStore, "lookup_partial", counted)


@pytest.mark.parametrize("game, engine, options", [
    ("sparro", Sparro("standard"), {"variant": "standard"}),
    ("smallholder", Smallholder("limping2", "nibbler"), BOARD),
])
def test_remembered_answers_are_the_answers_read_from_the_file(
        game: str, engine: Any, options: dict[str, str], sparro_db: Path, smallholder_db: Path,
        memo_forgotten: None, monkeypatch: pytest.MonkeyPatch) -> None:
    path = sparro_db if game == "sparro" else smallholder_db
    texts = random_texts(engine, 150, seed=5)
    with tablebase.open(path) as plain, tablebase.open(path, memo=True) as remembering:
        read = [plain.probe(game, text, **options).to_dict() for text in texts]
        first = [remembering.probe(game, text, **options).to_dict() for text in texts]
        reads = CountedReads(monkeypatch)
        again = [remembering.probe(game, text, **options).to_dict() for text in texts]
        assert reads.count == 0  # the second time, every answer came from memory
        assert [plain.probe(game, text, **options).to_dict() for text in texts] == read
        assert reads.count > 0  # without memo, the file is read every time
    assert first == read and again == read
    # a batch (one lookup per ply for all lines) answers the same, remembered or not
    with TablebaseStore(path, readonly=True) as store:
        for memo in (False, True, True):
            batch = probing.probe_answers(describe(game), store, memo=memo, **options).many(texts)
            assert batch == read


def test_a_replaced_table_is_never_answered_from_memory(tmp_path: Path, memo_forgotten: None) -> None:
    path = tmp_path / "replaced.sqlite"
    with tablebase.open(path, mode="w") as tb:
        tb.solve("smallholder", **BOARD)
    reader = tablebase.open(path, memo=True)  # open all along, as the web explorer's are
    before = [reader.probe("smallholder", None, **BOARD).to_dict() for _ in range(2)][1]
    assert len(probing.STEPS) > 0
    with TablebaseStore(path) as writer:
        old = writer.table("smallholder", "nibbler@limping2")
        assert old is not None
        tiers = {tier: writer.read_tier(old.id, tier, old.payload_dtype) for tier in writer.stored_tiers(old.id)}
        writer.delete_table(old.game, old.rules)
        new = writer.begin_table(old.game, old.rules, old.rules_version, old.solver_version, old.payload_dtype)
        # while the table is being written again, nothing is answered, from memory or not
        with pytest.raises(NotSolved):
            reader.probe("smallholder", None, **BOARD)
        for tier, (keys, payload) in tiers.items():
            # other values after the first move: the start's move values change
            writer.write_tier(new.id, tier, keys, payload[::-1].copy() if tier == 1 else payload, 0.0)
        writer.finish_table(new.id, 0.0, old.summary)
    after = reader.probe("smallholder", None, **BOARD).to_dict()
    with tablebase.open(path) as plain:
        expected = plain.probe("smallholder", None, **BOARD).to_dict()
    assert after["moves"] != before["moves"]  # the replacement answers otherwise...
    assert after == expected  # ...and that is what the remembering reader answers
    reader.close()


def test_only_complete_tables_are_remembered() -> None:
    from tablebase.db.store import TableInfo

    complete = TableInfo(1, "sparro", "standard", "r", "s", "u1", "complete", 10, 2, 0.0, "abc", {})
    solving = TableInfo(1, "sparro", "standard", "r", "s", "u1", "solving", 10, 2, 0.0, None, {})
    assert probing.table_identity(complete) is not None
    assert probing.table_identity(solving) is None
    # another checksum (other data) is another table
    other = TableInfo(1, "sparro", "standard", "r", "s", "u1", "complete", 10, 2, 0.0, "abd", {})
    assert probing.table_identity(other) != probing.table_identity(complete)


def test_stores_sharing_blocks_read_what_a_store_of_its_own_reads(smallholder_db: Path, tmp_path: Path) -> None:
    """Decoded blocks shared by the stores of a process (``share_blocks``) are those of the
    table whose checksum they carry: another file with other data under the same table id
    reads its own data."""
    import numpy as np

    other = tmp_path / "other.sqlite"
    with tablebase.open(other, mode="w") as tb:
        tb.solve("smallholder", board="limping2", ruleset="stymie")
    with TablebaseStore(smallholder_db, readonly=True) as own, \
            TablebaseStore(smallholder_db, readonly=True, share_blocks=True) as first, \
            TablebaseStore(smallholder_db, readonly=True, share_blocks=True) as second, \
            TablebaseStore(other, readonly=True, share_blocks=True) as elsewhere:
        table = own.table("smallholder", "nibbler@limping2")
        assert table is not None
        for tier in own.stored_tiers(table.id):
            keys, payload = own.read_tier(table.id, tier, table.payload_dtype)
            for store in (first, second, own):
                found, read = store.lookup(table, tier, keys)
                assert found.all() and np.array_equal(read, payload)
        foreign = elsewhere.table("smallholder", "stymie@limping2")
        assert foreign is not None and foreign.id == table.id and foreign.checksum != table.checksum
        for tier in elsewhere.stored_tiers(foreign.id):
            keys, payload = elsewhere.read_tier(foreign.id, tier, foreign.payload_dtype)
            found, read = elsewhere.lookup(foreign, tier, keys)
            assert found.all() and np.array_equal(read, payload)
