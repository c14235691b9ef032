"""Rule-fairness claims, decided from solved tables and exhaustive strategy checks.

Each claim function takes the tables it needs (through `SparroTables`, which the CLI
backs with the SQLite store), computes its evidence, and derives the verdict from that
evidence by a stated rule. Nothing here is typed in: change the rules and the verdicts
follow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.sparro import SYMMETRIES, Sparro, SparroPosition
from tablebase.games.sparro.geometry import ROTATE_180
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.solver.probe import Lookup, Outcome, probe
from tablebase.solver.strategy import check_strategy, symmetry_strategy
from tablebase.solver.tiered import TIERS, SolvedTier

HOLDS, FAILS, PARTLY = "holds", "fails", "partly"


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    verdict: str
    evidence: dict[str, Any] = field(default_factory=dict)
    summary: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "claim": self.claim, "verdict": self.verdict, "evidence": self.evidence,
                "summary": self.summary}


class SparroTables(Protocol):
    """Solved Sparro tables by variant."""

    def lookup(self, variant: str) -> Lookup: ...

    def tier(self, variant: str, tier: int) -> SolvedTier: ...


def outcome_json(outcome: Outcome, side: str) -> dict[str, Any]:
    return {"value": outcome.name, "remoteness": outcome.remoteness, "for": side}


def _start_outcome(tables: SparroTables, variant: str, pos: SparroPosition) -> Outcome:
    return probe(Sparro(variant), pos, tables.lookup(variant)).outcome


def _winner(outcome: Outcome, to_move: str) -> str | None:
    other = "B" if to_move == "R" else "R"
    return None if outcome.value == DRAW else to_move if outcome.value == WIN else other


_SIDE_VALUE = {"R": 1, None: 0, "B": -1}  # how good a result is for Red


def compensation_claim(tables: SparroTables, real: str = "standard", without: str = NO_COMPENSATION,
                       position: SparroPosition | None = None) -> Claim:
    """"If no one wins outright, Black wins; this compensates for Red's initiative."

    Verdict rule: *holds* if, with perfect play from ``position`` (the start by default),
    the rule changes the result in Black's favour; *partly* if the result is the same
    but the rule changes the value of some reachable positions; *fails* if it changes none.
    """
    game = Sparro(real)
    pos = position or game.start()
    with_rule = _start_outcome(tables, real, pos)
    without_rule = _start_outcome(tables, without, pos)
    winner_with, winner_without = _winner(with_rule, pos.to_move), _winner(without_rule, pos.to_move)
    decided = 0
    games_ended_by_rule = 0
    positions = 0
    for tier in range(TIERS):
        a, b = tables.tier(real, tier), tables.tier(without, tier)
        if not np.array_equal(a.keys, b.keys):
            raise ValueError(f"the {real} and {without} tables hold different positions in tier {tier}")
        positions += len(a.keys)
        decided += int(np.count_nonzero(a.values != b.values))
        if tier == TIERS - 1:
            games_ended_by_rule = int(np.count_nonzero(b.values == DRAW))
    first_moves = {}
    if pos == game.start():
        for name, variant in (("with_rule", real), ("without_rule", without)):
            answer = probe(Sparro(variant), pos, tables.lookup(variant))
            first_moves[name] = {m.name: m.outcome.name for m in answer.moves}
    if _SIDE_VALUE[winner_with] < _SIDE_VALUE[winner_without]:
        verdict = HOLDS
    elif decided:
        verdict = PARTLY
    else:
        verdict = FAILS
    who = {"R": "Red wins", "B": "Black wins", None: "a draw"}
    summary = (f"with perfect play {who[winner_with]} with the rule ({with_rule.remoteness} plies) and "
               f"{who[winner_without]} without it; the rule changes the value of {decided:,} of "
               f"{positions:,} reachable positions and decides {games_ended_by_rule:,} full boards with no line")
    evidence = {
        "position": game.format(pos),
        "with_rule": outcome_json(with_rule, pos.to_move),
        "without_rule": outcome_json(without_rule, pos.to_move),
        "positions": positions,
        "positions_decided_by_rule": decided,
        "full_boards_without_line": games_ended_by_rule,
        "first_moves": first_moves,
    }
    return Claim("sparro-compensation", "If no one wins outright, Black wins. This compensates for Red "
                 "having the initiative at the beginning of the game. (Sparro, standard)", verdict, evidence, summary)


def _check_symmetries(variant: str) -> dict[str, Any]:
    game = Sparro(variant)
    results = {}
    for symmetry in range(1, len(SYMMETRIES)):
        check = check_strategy(game, game.start(), "B", symmetry_strategy(SYMMETRIES[symmetry]))
        results[_SYMMETRY_NAMES[symmetry]] = {
            "always_wins": check.always_wins, "positions": check.positions,
            "counterexample": check.counterexample, "failure": check.failure}
    return results


_SYMMETRY_NAMES = ("identity", "rotate-90", "rotate-180", "rotate-270", "mirror-columns", "mirror-diagonal",
                   "mirror-rows", "mirror-antidiagonal")


def mirror_claim(tables: SparroTables, variant: str = "extended-unrestricted") -> Claim:
    """"Without the first-move rule, Black wins automatically by symmetric play."

    Verdict rule: *holds* if Black's 180-degree mirror strategy wins against every Red
    line (an exhaustive check); *fails* otherwise, with a shortest counterexample.
    """
    game = Sparro(variant)
    start = _start_outcome(tables, variant, game.start())
    mirror = check_strategy(game, game.start(), "B", symmetry_strategy(ROTATE_180))
    evidence = {
        "variant": variant,
        "start": outcome_json(start, "R"),
        "mirror": {"symmetry": "rotate-180", "always_wins": mirror.always_wins, "positions": mirror.positions,
                   "counterexample": mirror.counterexample, "failure": mirror.failure},
        "other_symmetries": _check_symmetries(variant),
    }
    if mirror.always_wins:
        summary = (f"Black's 180-degree mirror answer wins against all Red play ({mirror.positions:,} positions "
                   f"checked); the table agrees: the start is a {start.name} for Red")
    else:
        line = " ".join(game.move_name(m) for m in mirror.counterexample or [])
        summary = f"the mirror strategy fails after {line} ({mirror.failure}); the start is a {start.name} for Red"
    return Claim("sparro-mirror", "Without the first-move restriction, symmetric play gives Black an automatic "
                 f"win. (Sparro, {variant})", HOLDS if mirror.always_wins else FAILS, evidence, summary)


def first_move_rule_claim(tables: SparroTables, variant: str = "extended") -> Claim:
    """"The first-move rule prevents symmetric play and Black's automatic win."

    Verdict rule: *holds* if the mirror strategy fails and Red does not lose the start;
    *partly* if the mirror strategy fails but Black still wins with perfect play; *fails*
    if the mirror strategy still wins.
    """
    game = Sparro(variant)
    lookup = tables.lookup(variant)
    start = probe(game, game.start(), lookup)
    mirror = check_strategy(game, game.start(), "B", symmetry_strategy(ROTATE_180))
    first_moves = {}
    for move in start.moves:
        after = game.play(game.start(), move.cell)
        replies = probe(game, after, lookup)
        first_moves[move.name] = {
            "value_for_red": move.outcome.name, "remoteness": move.outcome.remoteness,
            "black_replies": {r.name: r.outcome.name for r in replies.moves}}
    if mirror.always_wins:
        verdict = FAILS
    elif start.outcome.value == LOSS:
        verdict = PARTLY
    else:
        verdict = HOLDS
    winning = [name for name, m in first_moves.items() if m["value_for_red"] == "win"]
    summary = (f"the mirror strategy {'still wins' if mirror.always_wins else 'fails'}"
               + ("" if mirror.always_wins else f" ({mirror.failure})")
               + f"; with perfect play the start is a {start.outcome.name} for Red in {start.outcome.remoteness} plies; "
               f"{len(winning)} of {len(first_moves)} first moves win for Red")
    evidence = {
        "variant": variant,
        "start": outcome_json(start.outcome, "R"),
        "mirror": {"always_wins": mirror.always_wins, "positions": mirror.positions,
                   "counterexample": mirror.counterexample, "failure": mirror.failure},
        "first_moves": first_moves,
    }
    return Claim("sparro-first-move-rule", "On Black's first turn, Black must answer a corner with an edge-centre "
                 "cell and an edge-centre with a corner; this prevents symmetric play and an automatic win for "
                 f"Black. (Sparro, {variant})", verdict, evidence, summary)


SPARRO_CLAIMS: tuple[Callable[[SparroTables], Claim], ...] = (compensation_claim, mirror_claim, first_move_rule_claim)
#: Variants whose tables the Sparro claims read.
SPARRO_VARIANTS_NEEDED = ("standard", NO_COMPENSATION, "extended", "extended-unrestricted")
