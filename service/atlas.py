"""The rules atlas and the side-by-side comparison of Smallholder option combinations.

* `smallholder_atlas`: the row of every combination on a board (`solver.atlas`), read
  from the file when stored, else computed and stored one at a time, so a long sweep
  that is killed continues with the combinations not yet stored;
* `sparro_atlas`: a row per Sparro variant from its solved tables (solved if missing);
* `compare_smallholder`: chosen combinations' tables side by side (solved if missing)
  and one position probed under each, with the moves whose values differ;
* `weak_first_player_results`: what the weak solves (proof-number search) stored in
  the file, and the checked proofs given, say about the empty board of the boards too
  big for tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tablebase.db.atlas import AtlasRows
from tablebase.db.store import StoreError, TablebaseStore
from tablebase.games.smallholder import Rules, all_rules, get_board
from tablebase.games.sparro.rules import NAMED_VARIANTS
from tablebase.service import smallholder, sparro
from tablebase.service.errors import ServiceError
from tablebase.service.progress import Progress, report
from tablebase.service.proof import weak_solve_status
from tablebase.service.verify import proof_claims
from tablebase.solver.atlas import ROW_KEYS, VERSIONS, compare_probes, sparro_row, sweep
from tablebase.solver.probe import probe
from tablebase.solver.smallholder_solve import MAX_SOLVE_CELLS
from tablebase.solver.tiered import SolvedTier

GAME = smallholder.GAME
#: Stage names of the row computation, as progress text.
_STAGES = {"enumerate": "enumerating, ply", "solve": "retrograde, level", "lines": "longest lines"}


@dataclass(frozen=True)
class BoardRows:
    """The atlas of one board: the rows found or computed, in `all_rules` order, and
    the combinations that have none (when computing was not allowed)."""

    board: str
    rows: list[dict[str, Any]]
    missing: list[Rules]
    computed: int  # rows computed by this call
    seconds: float  # time the stored rows took to compute, summed


def _check_board(board: str, who: str = "the atlas") -> None:
    """A ServiceError naming ``who`` (the command) unless ``board`` can have tables."""
    size = get_board(board).size
    if size > MAX_SOLVE_CELLS:
        raise ServiceError(f"{board} has {size} cells; {who} solves boards of up to {MAX_SOLVE_CELLS} cells "
                           f"(limping2, hex3): {board!r}")


def smallholder_atlas(store: TablebaseStore, board: str, compute: bool = True, progress: Progress | None = None,
                      combinations: Sequence[Rules] | None = None) -> BoardRows:
    """Every combination's row on ``board`` (all 120 unless ``combinations``): stored rows
    are read; with ``compute`` the others are solved and stored, each as soon as it is
    done; without, they are listed as missing."""
    _check_board(board)
    combos = list(combinations or all_rules())
    rows_store = AtlasRows(store)
    task = f"atlas smallholder {board}"

    def stored(rules: Rules) -> dict[str, Any] | None:
        try:
            found = rows_store.get(GAME, board, rules.spec, VERSIONS)
        except StoreError as exc:
            if not compute:
                raise
            # a damaged row is computed again (saving replaces it), never read
            report(progress, task, f"{rules.name}: {exc.problem}: computing it again")
            return None
        # a row of other keys was made by a program that meant something else by it
        return found.row if found is not None and tuple(found.row) == ROW_KEYS else None

    def save(rules: Rules, row: dict[str, Any], seconds: float) -> None:
        rows_store.save(GAME, board, rules.spec, VERSIONS, row, seconds)

    def follow(index: int, total: int, rules: Rules, stage: str, step: int, positions: int) -> None:
        report(progress, task, f"{rules.name}: {_STAGES.get(stage, stage)} {step}, {positions:,} positions",
               index - 1, total)

    rows: list[dict[str, Any]] = []
    missing: list[Rules] = []
    computed = 0
    if compute:
        for step in sweep(board, combos, stored, save, follow):
            rows.append(step.row)
            computed += step.computed
            if step.computed:
                report(progress, task, f"{step.rules.name}: done in {step.seconds:.1f} s", step.index, step.total)
    else:
        for rules in combos:
            row = stored(rules)
            if row is None:
                missing.append(rules)
            else:
                rows.append(row)
    seconds = sum(r.seconds for r in rows_store.all(GAME, board, VERSIONS)
                  if r.rules in {row["spec"] for row in rows})
    return BoardRows(board, rows, missing, computed, seconds)


def sparro_atlas(store: TablebaseStore, variants: Sequence[str] = NAMED_VARIANTS,
                 progress: Progress | None = None) -> list[dict[str, Any]]:
    """A row per Sparro variant, from its tables (solved into ``store`` first if missing)."""
    rows = []
    for variant in variants:
        info = sparro.solve_into(store, variant, progress)
        cache: dict[int, SolvedTier] = {}

        def tier_of(n: int) -> SolvedTier:
            if n not in cache:
                cache[n] = sparro.read_tier(store, info, n)
            return cache[n]

        report(progress, f"atlas sparro {variant}", "counting moves")
        rows.append(sparro_row(variant, tier_of))
    return rows


def compared_rules_problem(rules_list: Sequence[Rules]) -> str | None:
    """What is wrong with ``rules_list`` as combinations to compare (fewer than two, or
    one given twice), or None."""
    if len(rules_list) < 2:
        return "compare needs at least two --rules to put side by side"
    if len({r.spec for r in rules_list}) < len(rules_list):
        return "the same combination is given twice: " + ", ".join(r.spec for r in rules_list)
    return None


def compare_smallholder(store: TablebaseStore, board: str, rules_list: Sequence[Rules], position: str | None = None,
                        progress: Progress | None = None) -> dict[str, Any]:
    """The chosen combinations side by side on ``board`` (tables solved into ``store``
    when missing): per combination its table's totals, and ``position`` (default the
    empty board) probed under each, with the moves whose values differ."""
    _check_board(board, "compare")
    problem = compared_rules_problem(rules_list)
    if problem:
        raise ServiceError(problem)
    tables = []
    answers = []
    for rules in rules_list:
        info = smallholder.solve_into(store, board, rules, progress)
        game, pos = smallholder.read(position, board, rules)
        answers.append((game.rules_name, probe(game, pos, smallholder.stored_lookup(store, game),
                                               f"position not in the {game.rules_name} table (not reachable?)")))
        summary = info.summary
        tables.append({
            "rules": game.rules_name, "spec": rules.spec, "named": rules.name if rules.name != rules.spec else None,
            "start": {"value": summary["start_value"], "remoteness": summary["start_remoteness"]},
            "positions": info.positions, "draws": summary["draws"],
            "cycles": summary.get("cyclic_positions", 0) > 0,
            "mean_moves": summary["moves"] / info.positions,
        })
    return {"board": board, "tables": tables, "position": compare_probes(answers)}


#: Boards beyond the tables whose weak solutions the atlas page reports.
WEAK_BOARDS = ("limping3", "hex4")


def weak_first_player_results(store: TablebaseStore, boards: Sequence[str] = WEAK_BOARDS,
                              proofs: tuple[tuple[str | Path, str | Path | None], ...] = (),
                              progress: Progress | None = None, search: bool = True) -> list[dict[str, Any]]:
    """The first-player results of ``boards`` from weak solutions, one per combination:

    * each proof of ``proofs`` ((proof file, its check journal or None), checked first as
      by `tablebase check --proof`, `verify.proof_claims`; ``search`` as there): its
      claim's ``summary`` and ``proof`` (file, rows, leaves), status ``proved``;
    * every weak-solve run stored in the file from the empty board of a combination no
      proof covers: the colour whose win it tries to prove (``goal``), its status
      (``proved``, ``disproved``, or ``running`` / ``unknown`` / ``unfinished`` with the
      progress made: ``settled``, ``seconds``; never a guess).

    A proof of another board is a ServiceError (the atlas's tables cover the others)."""
    results = []
    for claim in proof_claims(proofs, progress, search):
        evidence = claim.evidence
        if evidence["board"] not in boards:
            raise ServiceError(f"{evidence['proof']['file']!r}: a proof on {evidence['board']}; the atlas takes weak "
                               f"solutions of {' and '.join(boards)} (its tables cover the other boards)")
        results.append({"board": evidence["board"], "rules": evidence["rules"], "spec": evidence["spec"],
                        "named": evidence["ruleset"] if evidence["ruleset"] != evidence["spec"] else None,
                        "status": "proved", "summary": claim.summary, "proof": evidence["proof"]})
    covered = {result["rules"] for result in results}
    for run in weak_solve_status(store):
        if run["board"] in boards and run["from_start"] and run["rules"] not in covered:
            results.append({key: run[key] for key in ("board", "rules", "spec", "named", "goal", "status", "settled",
                                                      "seconds")})
    return results
