"""Rule-fairness claims, decided from solved tables and exhaustive strategy checks.

Each claim function takes the tables it needs (through `SparroTables` or
`SmallholderTables`, which the CLI backs with the SQLite store), computes its evidence,
and derives the verdict from that evidence by a stated rule. Nothing here is typed in:
change the rules and the verdicts follow.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import BLACK, RULESETS, Position, Smallholder, parse_rules
from tablebase.games.sparro import SYMMETRIES, Sparro, SparroPosition
from tablebase.games.sparro.geometry import ROTATE_180
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.solver.probe import VALUE_NAMES, Lookup, Outcome, ProbeResult, probe
from tablebase.solver.proof.certificate import CheckReport
from tablebase.solver.smallholder_arrays import SmallholderArrays
from tablebase.solver.smallholder_stats import SAMPLE_SEED, move_statistics, sample_keys
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


# -- The Smallholder -----------------------------------------------------------------

#: Boards small enough to have tables (at most 31 cells), smallest first.
SMALLHOLDER_BOARDS = ("limping2", "hex3")
#: Tables with more positions than this get a uniform random sample for the share of
#: positions with a capture instead of a full pass (move generation over all of a hex3
#: table takes about a minute per ruleset; the sample, a few seconds).
FULL_PASS_LIMIT = 2_000_000
#: Positions in that sample.
SAMPLE_SIZE = 1_000_000


@dataclass(frozen=True)
class StoredRuleset:
    """Every canonical position of one solved ruleset on one board."""

    keys: np.ndarray  # uint64 canonical keys
    values: np.ndarray  # WIN/LOSS/DRAW for the side to move, aligned with keys
    remoteness: np.ndarray  # plies to the end, aligned with keys (0: the side to move has no move)
    moves: int  # legal moves summed over all positions (the solved graph's edges)
    cyclic_positions: int | None  # positions from which play can go on forever (from the solve)


class SmallholderTables(Protocol):
    """Solved Smallholder tables by board and named ruleset."""

    def lookup(self, board: str, ruleset: str) -> Lookup: ...

    def positions(self, board: str, ruleset: str) -> StoredRuleset: ...


#: the first-player verdict of the start's value for Black (`first_player_verdict`)
VERDICT_OF_START = {WIN: HOLDS, LOSS: FAILS, DRAW: PARTLY}


def first_player_verdict(start: Outcome) -> str:
    """The verdict of a first-player claim from the start's value for Black (the side to
    move): *holds* if Black wins with perfect play, *fails* if Black loses, *partly* if
    the game is drawn (neither side can force a win)."""
    return VERDICT_OF_START[start.value]


def _smallholder_start(tables: SmallholderTables, board: str, ruleset: str) -> ProbeResult[Position]:
    """The table's answer for the empty board (Black to move) and each first move."""
    game = Smallholder(board, ruleset)
    return probe(game, game.start(), tables.lookup(board, ruleset))


def _outcome_text(outcome: Outcome) -> str:
    if outcome.value == DRAW:
        return "a draw"
    return f"{'Black' if outcome.value == WIN else 'White'} wins in {outcome.remoteness} plies"


def first_player_claim(tables: SmallholderTables, board: str, ruleset: str) -> Claim:
    """"Does the first player (Black) have the advantage?" under ``ruleset`` on ``board``.

    Evidence: the value and remoteness of the empty board for Black, and of each first
    move up to symmetry (one representative, the lowest cell, per class of first moves
    whose positions are symmetric images of each other, with the cells it stands for).
    Verdict rule (`first_player_verdict`): *holds* if Black wins the start with perfect
    play, *fails* if White wins, *partly* if it is a draw.
    """
    game = Smallholder(board, ruleset)
    start = game.start()
    answer = _smallholder_start(tables, board, ruleset)
    classes: dict[int, list[int]] = {}
    for move in game.legal_moves(start):
        classes.setdefault(game.canonical_key(game.play(start, move)), []).append(move)
    by_cell = {m.cell: m.outcome for m in answer.moves}
    first_moves: list[dict[str, Any]] = []
    for cells in sorted(classes.values(), key=lambda c: (by_cell[c[0]].preference(), c[0])):
        outcome = by_cell[cells[0]]  # symmetric children have the same value: any cell stands for all
        first_moves.append({"cell": cells[0], "name": game.move_name(cells[0]),
                            "cells": [game.move_name(c) for c in cells], "count": len(cells),
                            "value": outcome.name, "remoteness": outcome.remoteness})
    winning = sum(len(cells) for cells in classes.values() if by_cell[cells[0]].value == WIN)
    winning_classes = sum(1 for cells in classes.values() if by_cell[cells[0]].value == WIN)
    verdict = first_player_verdict(answer.outcome)
    summary = (f"with perfect play {_outcome_text(answer.outcome)}; {winning} of {len(by_cell)} first moves win "
               f"for Black ({winning_classes} of {len(first_moves)} up to symmetry)")
    evidence = {
        "board": board,
        "ruleset": game.rules.name,
        "rules": game.rules_name,
        "spec": game.rules.spec,
        "start": outcome_json(answer.outcome, BLACK),
        "first_moves_for": BLACK,
        "first_moves": first_moves,
        "first_moves_winning_for_black": winning,
        "first_moves_total": len(by_cell),
    }
    return Claim(f"smallholder-first-player:{game.rules.name}:{board}",
                 f"Does the first player (Black) have the advantage, i.e. win with perfect play from the "
                 f"empty board? (The Smallholder, {game.rules.name} on {board})", verdict, evidence, summary)


def proved_first_player_claim(report: CheckReport, proof: str) -> Claim:
    """The first-player claim from a weak solution: a proof of the empty board's value
    (``proof`` names its file) that `check_proof` passed (``report``): every row checked
    by the rules engine, every leaf re-solved. Where no table holds the board, this is how
    the claim is decided.

    Evidence: the start's value for Black and the length of the proved strategy against
    the longest defence (``at_most_plies``: an upper bound on the start's remoteness, not
    the remoteness), Black's first move when the proof is Black's win (it and its images
    under the board's symmetries win; the other first moves are not solved), and the
    proof's size. When White wins, the proof covers every first move: none wins for Black.
    Verdict rule (`first_player_verdict`): as for the tables' claim, from the proved value.
    """
    game = Smallholder(report.board, parse_rules(report.spec))
    start = game.start()
    if report.root != game.format(start):
        raise ValueError(f"the proof is of {report.root!r}, not of the empty board: it says nothing of the first "
                         f"player")
    value = WIN if report.winner == BLACK else DRAW if report.draw else LOSS
    moves = game.legal_moves(start)
    evidence: dict[str, Any] = {
        "board": report.board,
        "ruleset": game.rules.name,
        "rules": game.rules_name,
        "spec": game.rules.spec,
        "method": "weak solution: the strategy of a proof-number search whose leaves are exact searches, "
                  "checked by 'tablebase check --proof' (every row by the rules engine, every leaf re-solved "
                  "exactly by another method)",
        "start": {"value": VALUE_NAMES[value], "for": BLACK,
                  "at_most_plies": None if report.draw else report.depth},
        "first_moves_total": len(moves),
    }
    if report.winner == BLACK and not report.root_move:  # the start itself a leaf, solved exactly
        summary = f"proved by a checked weak solution: Black wins in {report.depth} plies"
    elif report.winner == BLACK:
        first = game.parse_move(report.root_move)
        key = game.canonical_key(game.play(start, first))
        images = [game.move_name(m) for m in moves if game.canonical_key(game.play(start, m)) == key]
        evidence["first_move"] = {"name": game.move_name(first), "value": VALUE_NAMES[WIN], "for": BLACK,
                                  "cells": images}
        evidence["first_moves_proved_winning_for_black"] = len(images)  # the others are not solved
        others = [name for name in images if name != game.move_name(first)]
        summary = (f"proved by a checked weak solution: Black wins with {game.move_name(first)}"
                   + (f" (or its images {', '.join(others)})" if others else "")
                   + f" in at most {report.depth} plies against any defence; the other first moves are not solved")
    elif report.winner:
        evidence["first_moves_winning_for_black"] = 0
        summary = (f"proved by a checked weak solution: White wins in at most {report.depth} plies against every "
                   f"first move")
    else:
        summary = "proved by a checked weak solution: a draw (each side has a strategy that does not lose)"
    evidence["proof"] = {"file": proof, "rows": report.rows, "leaves": report.leaves,
                         "finished_games": report.terminal_leaves,
                         "images_of_other_leaves": report.image_leaves,
                         "re_solved": report.leaves - report.terminal_leaves - report.image_leaves}
    summary += f"; the proof has {report.rows:,} positions and {report.leaves:,} leaves"
    return Claim(f"smallholder-first-player:{game.rules.name}:{report.board}",
                 f"Does the first player (Black) have the advantage, i.e. win with perfect play from the "
                 f"empty board? (The Smallholder, {game.rules.name} on {report.board})",
                 VERDICT_OF_START[value], evidence, summary)


def confirmed_claim(table: Claim, proved: Claim) -> Claim:
    """A table's first-player claim confirmed by the same claim from a checked weak
    solution (`proved_first_player_claim`): two independent methods. The verdicts must
    agree, the proved first move must win in the table and the table's remoteness must not
    exceed the proof's length (ValueError otherwise); the proof's evidence is added under
    ``weak_solution``."""
    start, proved_start = table.evidence["start"], proved.evidence["start"]
    if table.verdict != proved.verdict:
        raise ValueError(f"the tables and the proof disagree on {table.id}: the start is {start['value']} for "
                         f"Black by the tables, {proved_start['value']} by the proof")
    first = proved.evidence.get("first_move")
    if first is not None:
        row = next(m for m in table.evidence["first_moves"] if first["name"] in m["cells"])
        if row["value"] != first["value"]:
            raise ValueError(f"the tables and the proof disagree on {table.id}: the first move {first['name']} is "
                             f"{row['value']} for Black by the tables, {first['value']} by the proof")
    if proved_start["at_most_plies"] is not None and start["remoteness"] > proved_start["at_most_plies"]:
        raise ValueError(f"the tables and the proof disagree on {table.id}: the start's remoteness is "
                         f"{start['remoteness']} by the tables, the proof wins in {proved_start['at_most_plies']}")
    weak = {key: value for key, value in proved.evidence.items() if key not in ("board", "ruleset", "rules", "spec")}
    return replace(table, evidence={**table.evidence, "weak_solution": weak},
                   summary=f"{table.summary}; a checked weak solution agrees ({proved.evidence['proof']['rows']:,} "
                           f"positions)")


def ruleset_statistics(tables: SmallholderTables, board: str, ruleset: str,
                       full_pass_limit: int = FULL_PASS_LIMIT, sample_size: int = SAMPLE_SIZE) -> dict[str, Any]:
    """One row of the ruleset comparison.

    Exact over every position: the start, positions, draws, cyclic positions, the share
    of finished positions (remoteness 0), and the average number of legal moves (the
    solved graph has one edge per legal move). The share of positions where a capture
    is possible needs move generation: exact over every position, or over a uniform
    sample when the table holds more than ``full_pass_limit`` (``sampled`` says which);
    ``examined_average_legal_moves`` is the average over those same positions, equal to
    the exact one on a full pass and an estimate of it on a sample.
    """
    stored = tables.positions(board, ruleset)
    positions = len(stored.keys)
    examined = stored.keys if positions <= full_pass_limit else sample_keys(stored.keys, sample_size)
    stats = move_statistics(SmallholderArrays(board, ruleset), examined)
    start = _smallholder_start(tables, board, ruleset).outcome
    # a finished position is a loss for its side to move at remoteness 0 (draws have none)
    finished = int(np.count_nonzero((stored.remoteness == 0) & (stored.values == LOSS)))
    return {
        "ruleset": ruleset,
        "start_for_black": start.name,
        "optimal_game_length": start.remoteness,
        "positions": positions,
        "draws": int(np.count_nonzero(stored.values == DRAW)),
        "cyclic_positions": stored.cyclic_positions,
        "average_legal_moves": round(stored.moves / positions, 3),
        "finished_share": round(finished / positions, 4),
        "capture_possible_share": round(stats.capture_share, 4),
        "examined": stats.positions,
        "sampled": stats.positions < positions,
        "examined_average_legal_moves": round(stats.average_moves, 3),
    }


def rulesets_claim(tables: SmallholderTables, board: str, rulesets: tuple[str, ...] = tuple(RULESETS),
                   full_pass_limit: int = FULL_PASS_LIMIT, sample_size: int = SAMPLE_SIZE) -> Claim:
    """"Does the first player (Black) have the advantage whichever named ruleset is played?"

    Evidence: the rulesets side by side (one row each, see `ruleset_statistics`): who
    wins the start and in how many plies (the optimal game length), positions, draws and
    cyclic positions, average legal moves per position, the share of positions where a
    capture is possible and the share of finished positions. Positions are canonical
    (one per symmetry class). Verdict rule: the first-player verdicts of the rulesets
    (`first_player_verdict`) combined: *holds* if all hold, *fails* if all fail (White
    wins every start), *partly* otherwise.
    """
    rows = [ruleset_statistics(tables, board, r, full_pass_limit, sample_size) for r in rulesets]
    verdicts = [first_player_verdict(_smallholder_start(tables, board, r).outcome) for r in rulesets]
    verdict = HOLDS if all(v == HOLDS for v in verdicts) else FAILS if all(v == FAILS for v in verdicts) else PARTLY
    sampled = [row["ruleset"] for row in rows if row["sampled"]]
    black = [row["ruleset"] for row, v in zip(rows, verdicts) if v == HOLDS]
    busiest = max(rows, key=lambda row: row["average_legal_moves"])
    lengths = [row["optimal_game_length"] for row in rows if row["optimal_game_length"] is not None]  # None: drawn
    summary = (f"Black wins the start under {len(black)} of {len(rows)} rulesets"
               + (f" ({', '.join(black)})" if 0 < len(black) < len(rows) else "")
               + (f"; optimal games last {min(lengths)} to {max(lengths)} plies" if lengths else "")
               + f"; {busiest['ruleset']} has the most legal moves per position ({busiest['average_legal_moves']})"
               + (f"; capture shares from a sample of {sample_size:,} positions per ruleset" if sampled else ""))
    method = ("every figure is over all canonical reachable positions (exhaustive); average_legal_moves is "
              "the solved graph's edges per position, examined_average_legal_moves the same recounted by "
              "move generation")
    if sampled:
        method = (f"capture_possible_share and examined_average_legal_moves are over a uniform random sample "
                  f"without replacement of {sample_size:,} stored positions (seed {SAMPLE_SEED}) for "
                  f"{', '.join(sampled)}"
                  + (" (exhaustive for the others)" if len(sampled) < len(rows) else "")
                  + "; everything else is exact over all "
                  "canonical reachable positions (average_legal_moves: the solved graph's edges per position)")
    evidence = {"board": board, "method": method, "rulesets": rows}
    kind = "named ruleset" if all(r in RULESETS for r in rulesets) else "ruleset"
    return Claim(f"smallholder-rulesets:{board}",
                 f"Does the first player (Black) have the advantage whichever {kind} is played? "
                 f"(The Smallholder on {board}: {', '.join(rulesets)})", verdict, evidence, summary)


def smallholder_claims(tables: SmallholderTables, boards: tuple[str, ...] = SMALLHOLDER_BOARDS) -> list[Claim]:
    """The first-player claim of every named ruleset on each board, then the board's comparison."""
    claims = []
    for board in boards:
        claims += [first_player_claim(tables, board, ruleset) for ruleset in RULESETS]
        claims.append(rulesets_claim(tables, board))
    return claims
