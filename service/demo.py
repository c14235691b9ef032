"""The work of `tablebase demo`: solve the Sparro variants, read the headline results."""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.db.store import TablebaseStore
from tablebase.games.sparro import VARIANTS, Sparro
from tablebase.service.progress import Progress
from tablebase.service.sparro import DESCRIPTION, solve_into
from tablebase.service.tables import table_lookup
from tablebase.service.verify import verify_claims
from tablebase.solver.fairness import Claim
from tablebase.solver.probe import probe

#: Plies of the perfect game the demo shows.
SAMPLE_PLIES = 8


@dataclass(frozen=True)
class VariantLine:
    variant: str
    winner: str
    remoteness: int | None
    positions: int
    seconds: float
    best_moves: list[str]
    #: how the table came to be: "solved in 2.1 s", or "already solved (...)" (`SolvedTable.solved_text`)
    solved: str = ""


@dataclass(frozen=True)
class DemoResult:
    start_picture: str
    variants: list[VariantLine]
    line: list[str]
    end_picture: str
    end_position: str
    claims: list[Claim]


def run_demo(db_path: str, progress: Progress | None = None) -> DemoResult:
    """Solve (or reuse) the three Sparro variants in ``db_path`` and gather the headlines."""
    game = Sparro("standard")
    lines = []
    with TablebaseStore(db_path, create=True) as store:
        for variant in VARIANTS:
            info = solve_into(store, variant, progress)
            rules = Sparro(variant)
            answer = probe(rules, rules.start(), table_lookup(store, DESCRIPTION, info))
            winner = "Red" if answer.outcome.name == "win" else "Black"
            best = [m.name for m in answer.moves if m.outcome == answer.moves[0].outcome]
            lines.append(VariantLine(variant, winner, answer.outcome.remoteness, info.positions, info.seconds, best,
                                     info.solved_text()))
        pos = game.start()
        played = []
        table = store.table("sparro", "standard")
        assert table is not None
        lookup = table_lookup(store, DESCRIPTION, table)
        for _ in range(SAMPLE_PLIES):
            answer = probe(game, pos, lookup)
            if not answer.moves:
                break
            move = answer.moves[0]
            played.append(move.name)
            pos = game.play(pos, move.cell)
        claims = verify_claims(store, "sparro", progress)
    return DemoResult(DESCRIPTION.text(game, game.start()), lines, played, DESCRIPTION.text(game, pos),
                      game.format(pos), claims)
