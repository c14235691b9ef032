"""What the `solve` and `probe` commands of every game share: progress on stderr,
lookups in a stored table, and probe answers for one position or a batch.

The game modules (`cli/sparro.py`, `cli/smallholder.py`) keep only what differs: how
a table is solved, how its payload decodes, how a key maps to its tier.
"""

from __future__ import annotations

from typing import Callable, Generic, Sequence, TypeVar

import click
import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.base import DRAW, Game, NotationError
from tablebase.solver.probe import Lookup, NotInTable, Outcome, ProbeResult, probe as probe_position, probe_many

P = TypeVar("P")

#: The probe value of a position no table or search could decide.
UNKNOWN = "unknown"
#: payload entries -> (values WIN/LOSS/DRAW, remoteness with -1 for a draw)
Decode = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


class NoProgress:
    """Stands in for a progress display when progress is off."""

    def __enter__(self) -> NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def update(self, text: str) -> None:
        pass


class ProgressLine(NoProgress):
    """One status line on stderr, rewritten in place (for stages of unknown length)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.width = 0

    def update(self, text: str) -> None:
        line = f"{self.label}: {text}"
        click.echo("\r" + line.ljust(self.width), err=True, nl=False)
        self.width = len(line)

    def __exit__(self, *exc: object) -> None:
        if self.width:
            click.echo(err=True)


def progress_display(enabled: bool, label: str) -> NoProgress:
    return ProgressLine(label) if enabled else NoProgress()


def tiered_lookup(store: TablebaseStore, table: TableInfo, tier_of: Callable[[np.ndarray], np.ndarray],
                  decode: Decode) -> Lookup:
    """Exact outcomes of canonical keys from a stored table (None where absent)."""

    def lookup(keys: Sequence[int]) -> list[Outcome | None]:
        array = np.array(keys, dtype=np.uint64)
        outcomes: list[Outcome | None] = [None] * len(keys)
        tiers = tier_of(array)
        for tier in np.unique(tiers):
            which = np.flatnonzero(tiers == tier)
            found, payload = store.lookup(table, int(tier), array[which])
            values, remoteness = decode(payload)
            for i, hit, value, plies in zip(which.tolist(), found.tolist(), values.tolist(), remoteness.tolist()):
                if hit:
                    outcomes[i] = Outcome(value, None if value == DRAW else plies)
        return outcomes

    return lookup


class ProbeAnswers(Generic[P]):
    """Probe answers as JSON-ready dicts, for one text or a batch (one lookup per batch).

    ``parse`` reads a text into (the rules object, the position); a batch may mix rules
    objects (e.g. boards), each gets its own ``lookup_for(game)``.
    """

    def __init__(self, parse: Callable[[str], tuple[Game[P], P]], lookup_for: Callable[[Game[P]], Lookup],
                 unknown: str = "position not in the table", answer_unknown: bool = False) -> None:
        self.parse = parse
        self.lookup_for = lookup_for
        self.unknown = unknown
        #: answer "unknown" (e.g. a search out of budget) instead of raising NotInTable
        self.answer_unknown = answer_unknown

    def one(self, text: str) -> dict:
        game, pos = self.parse(text)
        try:
            return self.answer(game, probe_position(game, pos, self.lookup_for(game), self.unknown))
        except NotInTable:
            if not self.answer_unknown:
                raise
            return unknown_json(game, pos)

    def many(self, texts: list[str]) -> list[dict | Exception]:
        results: list[dict | Exception] = []
        by_game: dict[int, tuple[Game[P], list[tuple[int, P]]]] = {}
        for i, text in enumerate(texts):
            try:
                game, pos = self.parse(text)
            except NotationError as exc:
                results.append(exc)
                continue
            results.append({})
            by_game.setdefault(id(game), (game, []))[1].append((i, pos))
        for game, items in by_game.values():
            probed = probe_many(game, [pos for _, pos in items], self.lookup_for(game), self.unknown)
            for (i, pos), result in zip(items, probed):
                if not isinstance(result, NotInTable):
                    results[i] = self.answer(game, result)
                else:
                    results[i] = unknown_json(game, pos) if self.answer_unknown else result
        return results

    def answer(self, game: Game[P], result: ProbeResult[P]) -> dict:
        return result.as_json()


def unknown_json(game: Game[P], pos: P) -> dict:
    """The probe answer of a position whose value is not known: the same shape, with
    ``"value": "unknown"`` and null remoteness for it and for each move."""
    return {
        "position": game.format(pos),
        "to_move": game.to_move(pos),
        "value": UNKNOWN,
        "remoteness": None,
        "moves": [{"cell": m, "name": game.move_name(m), "value": UNKNOWN, "remoteness": None}
                  for m in game.legal_moves(pos)],
    }


def probe_text(answer: dict) -> str:
    """One line per probed position: its value, then every move's, best first."""

    def value(item: dict, joint: str = " ") -> str:
        return item["value"] + ("" if item["remoteness"] is None else f"{joint}{item['remoteness']}")

    head = f"{answer['position']}: {answer['to_move']} to move, {value(answer, ' in ')}"
    moves_part = ", ".join(f"{m['name']} {value(m)}" for m in answer["moves"])
    return head + (f"; moves: {moves_part}" if moves_part else "")
