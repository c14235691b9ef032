"""Sparro commands: `show sparro`, `moves sparro`, `solve sparro`, `probe sparro`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Sequence

import click

from tablebase.cli.app import (
    TablebaseError,
    answer_positions,
    db_option,
    json_option,
    moves,
    probe,
    show,
    show_progress,
    silent_option,
    solve,
)
from tablebase.cli.pictures import sparro_svg
from tablebase.cli.tables import ProbeAnswers, probe_text, tiered_lookup
from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.base import WIN
from tablebase.games.sparro import VARIANTS, Sparro, SparroPosition, count_lines
from tablebase.games.sparro.geometry import INDEX, WHITE_CELLS
from tablebase.games.sparro.rules import RULES_VERSION
from tablebase.solver.probe import Lookup, Outcome
from tablebase.solver.search import Search, SearchBudgetExceeded
from tablebase.solver.sparro_arrays import SparroArrays
from tablebase.solver.tiered import (
    PAYLOAD_DTYPE,
    SOLVER_VERSION,
    TIERS,
    SolvedTier,
    TableMismatch,
    decode_payload,
    pack_results,
    solve_variant,
    tier_of_keys,
    unpack_results,
)

GAME = "sparro"
START_TEXT = "............/......../...."
NOTATION_HELP = f"""Positions: the 24 playable cells in standard order as three '/'-separated
groups (12 on level 0, 8 on level 1, 4 on level 2), R red, B black, . empty; the empty
board is '{START_TEXT}'. In the extended variants the token holder may follow after a
space (R or B, default B). Cells are named level + column + row, e.g. 0a1 (base level,
north-west corner), 1b3, 2b2; a move is given by its name or its index 0-23."""

variant_option = click.option("--variant", type=click.Choice(VARIANTS), default="standard", show_default=True,
                              help="Rule variant.")


def render(game: Sparro, pos: SparroPosition) -> str:
    """A text picture of the three levels, whose turn it is and the line counts."""
    header = f"Sparro ({game.variant})"
    result = game.result(pos)
    status = (f"game over: {'Red' if result.winner == 'R' else 'Black'} wins" if result
              else f"{'Red' if pos.to_move == 'R' else 'Black'} to move")
    lines = [f"{header}: {status}",
             f"marbles  R {pos.red.bit_count():2d}  B {pos.black.bit_count():2d}"
             f"    lines  R {count_lines(pos.red)}  B {count_lines(pos.black)}"
             + (f"    token {pos.token}" if game.extended else ""), ""]
    grids = []
    for level in range(3):
        size = 4 - level
        rows = [f"level {level}".ljust(12), "  " + " ".join("abcd"[:size])]
        for row in range(size):
            marks = []
            for col in range(size):
                cell = (level, row, col)
                if cell in WHITE_CELLS:
                    marks.append("o")
                else:
                    i = INDEX[cell]
                    marks.append("R" if pos.red >> i & 1 else "B" if pos.black >> i & 1 else ".")
            rows.append(f"{row + 1} " + " ".join(marks))
        grids.append(rows)
    for r in range(max(len(g) for g in grids)):
        lines.append("   ".join((g[r] if r < len(g) else "").ljust(12) for g in grids).rstrip())
    lines.append("")
    legal = game.legal_moves(pos)
    lines.append("legal moves: " + (" ".join(game.move_name(m) for m in legal) if legal else "none"))
    lines.append("(o: fixed white marble; a cell is named level+column+row, e.g. 0a1, 1b3, 2b2)")
    return "\n".join(lines)


@show.command("sparro", help=f"""Draw a Sparro POSITION (default: the start) level by level.

Each level is a grid seen from above: R red, B black, . empty, o fixed white.

{NOTATION_HELP}""", epilog="""\b
Example:
    tablebase show sparro
    tablebase show sparro 'RB.........R/......../....'
    tablebase show sparro 'RRR.BB....../......../....' --svg line.svg --faces""")
@click.argument("position", default=START_TEXT)
@variant_option
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, writable=True),
              help="Also draw the position as an SVG picture into this file.")
@click.option("--faces", is_flag=True, help="With --svg: add the four faces unfolded, completed lines marked.")
def show_sparro(position: str, variant: str, svg_path: str | None, faces: bool) -> None:
    game = Sparro(variant)
    pos = game.parse(position)
    click.echo(render(game, pos))
    if svg_path:
        Path(svg_path).write_text(sparro_svg(game, pos, faces=faces), encoding="utf-8")


def moves_answer(game: Sparro, text: str) -> dict:
    pos = game.parse(text)
    result = game.result(pos)
    return {
        "position": game.format(pos),
        "to_move": pos.to_move,
        "moves": [{"cell": m, "name": game.move_name(m)} for m in game.legal_moves(pos)],
        "result": None if result is None else {
            "winner": result.winner, "lines": {"R": result.red_lines, "B": result.black_lines}},
    }


def moves_text(answer: dict) -> str:
    if answer["result"]:
        result = answer["result"]
        return (f"{answer['position']}: game over, {result['winner']} wins "
                f"(lines R {result['lines']['R']}, B {result['lines']['B']})")
    names = " ".join(m["name"] for m in answer["moves"])
    return f"{answer['position']}: {answer['to_move']} to move: {names}"


@moves.command("sparro", epilog="""\b
Example:
    tablebase moves sparro
    tablebase moves sparro --json 'R.........../......../....'
    printf '%s\\n' '............/......../....' | tablebase moves sparro - --json""")
@click.argument("position", default=START_TEXT)
@variant_option
@json_option
def moves_sparro(position: str, variant: str, as_json: bool) -> None:
    """List the legal moves of POSITION, or of each line of stdin with '-'.

    Text output is one line per position: the position, whose turn, the move names.
    With --json, one object per position: {"position", "to_move", "moves": [{"cell",
    "name"}], "result": null or {"winner", "lines": {"R", "B"}}}.
    """
    game = Sparro(variant)
    answer_positions(position, lambda text: moves_answer(game, text), as_json, moves_text)


# -- solving ----------------------------------------------------------------------


def _variants(choice: str) -> list[str]:
    return list(VARIANTS) if choice == "all" else [choice]


@solve.command("sparro", epilog="""\b
Example:
    tablebase solve sparro --variant all
    tablebase solve sparro --variant extended --db /tmp/sparro.sqlite --json""")
@click.option("--variant", type=click.Choice(VARIANTS + ("all",)), default="all", show_default=True,
              help="Variant to solve, or all three.")
@db_option
@silent_option
@json_option
@click.option("--force", is_flag=True, help="Solve again even if the table is complete.")
def solve_sparro(variant: str, db_path: str, silent: bool, as_json: bool, force: bool) -> None:
    """Solve every position reachable from the start and store it in the tablebase.

    Solving runs tier by tier (a tier is the positions with the same number of
    marbles), from the full board back to the start; each solved tier is committed on
    its own, so an interrupted solve resumes where it stopped. A complete table is
    reused unless --force is given. Prints the value of the start and the totals.
    """
    with TablebaseStore(db_path, create=True) as store:
        for name in _variants(variant):
            info = solve_into(store, name, progress=show_progress(silent), force=force)
            summary = {"game": GAME, "variant": name, **info.summary, "positions": info.positions,
                       "seconds": round(info.seconds, 2), "checksum": info.checksum}
            if as_json:
                click.echo(json.dumps(summary))
            else:
                click.echo(f"sparro {name}: start is a {summary['start_value']} for Red in "
                           f"{summary['start_remoteness']} plies; {info.positions:,} positions, "
                           f"solved in {info.seconds:.1f} s")


def solve_into(store: TablebaseStore, variant: str, progress: bool, force: bool = False) -> TableInfo:
    """Solve a variant into ``store`` (resuming or reusing a stored table) and return its info.

    The whole solve holds the file's solve lock: a second solve into the same file fails
    at once with a StoreError instead of interleaving its tiers with this one's.
    """
    with store.solve_lock():
        if force:
            store.delete_table(GAME, variant)
        table = store.begin_table(GAME, variant, RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE)
        if table.status == "complete":
            return table
        stored = {tier: _loader(store, table, tier) for tier in store.stored_tiers(table.id)}
        started = time.perf_counter()
        steps = 2 * TIERS - 1 - len(stored)
        label = f"sparro {variant}"
        with click.progressbar(length=steps, label=label, file=click.get_text_stream("stderr")) if progress \
                else _NoProgress() as bar:
            def save(solved: SolvedTier, seconds: float) -> None:
                store.write_tier(table.id, solved.tier, solved.keys, pack_results(solved), seconds)

            try:
                start = solve_variant(SparroArrays(variant), stored, save, lambda stage, tier: bar.update(1))
            except TableMismatch as exc:
                raise TablebaseError(f"cannot resume the sparro {variant} table in {str(store.path)!r} ({exc}); "
                                     f"run 'tablebase solve sparro --variant {variant} --force'") from None
        seconds = time.perf_counter() - started + table.seconds
        summary = {"start_value": "win" if start.values[0] == WIN else "loss",
                   "start_remoteness": int(start.remoteness[0])}
        return store.finish_table(table.id, seconds, summary)


class _NoProgress:
    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def update(self, steps: int) -> None:
        pass


def _loader(store: TablebaseStore, table: TableInfo, tier: int) -> Callable[[], SolvedTier]:
    return lambda: unpack_results(tier, *store.read_tier(table.id, tier, table.payload_dtype))


# -- probing ----------------------------------------------------------------------


def table_lookup(store: TablebaseStore, table: TableInfo) -> Lookup:
    """Exact outcomes of canonical keys from a stored Sparro table (None where absent)."""
    return tiered_lookup(store, table, tier_of_keys, decode_payload)


def search_lookup(game: Sparro, budget: int | None) -> Lookup:
    """Exact outcomes by search from the rules engine alone (None past the budget)."""
    search = Search(game, node_budget=budget)

    def lookup(keys: Sequence[int]) -> list[Outcome | None]:
        outcomes: list[Outcome | None] = []
        for key in keys:
            try:
                result = search.solve(game.from_key(key))
            except SearchBudgetExceeded:
                outcomes.append(None)
                continue
            outcomes.append(Outcome(result.value, result.remoteness))
        return outcomes

    return lookup


@probe.command("sparro", epilog="""\b
Example:
    tablebase solve sparro && tablebase probe sparro
    tablebase probe sparro 'RB.R......B./......../....' --json
    tablebase probe sparro --variant extended --search 'RBRBRBRB..../......../.... B'
    cat positions.txt | tablebase probe sparro - --json""")
@click.argument("position", default=START_TEXT)
@variant_option
@db_option
@json_option
@click.option("--search", "use_search", is_flag=True,
              help="Answer by search from the rules alone instead of the tablebase.")
@click.option("--budget", type=click.IntRange(min=1), default=2_000_000, show_default=True,
              help="Node budget per position for --search.")
def probe_sparro(position: str, variant: str, db_path: str, as_json: bool, use_search: bool, budget: int) -> None:
    """The exact value and remoteness of POSITION (or each stdin line with '-') and of
    every legal move, best move first.

    Values are for the side to move ('win' or 'loss'); a move's value is for the player
    who makes it. Remoteness is the number of plies to the end of the game when the
    winner hurries and the loser holds out. A position missing from the table
    (unsolved variant, unreachable position) is an error unless --search is given; a
    search that runs out of its budget answers 'unknown' (remoteness null). JSON:
    {"position", "to_move", "value", "remoteness", "moves": [{"cell", "name", "value",
    "remoteness"}]}.
    """
    game = Sparro(variant)

    def parse(text: str) -> tuple[Sparro, SparroPosition]:
        return game, game.parse(text)

    if use_search:
        lookup = search_lookup(game, budget)
        answers = ProbeAnswers(parse, lambda _: lookup, answer_unknown=True)
        answer_positions(position, answers.one, as_json, probe_text, answers.many)
        return
    with TablebaseStore(db_path) as store:
        table = store.table(GAME, variant)
        if table is None or table.status != "complete":
            raise TablebaseError(f"sparro {variant} is not solved in {db_path!r}; run "
                                 f"'tablebase solve sparro --variant {variant}' or use --search")
        if table.rules_version != RULES_VERSION or table.solver_version != SOLVER_VERSION:
            raise TablebaseError(f"the sparro {variant} table in {db_path!r} was made by another version; "
                                 f"run 'tablebase solve sparro --variant {variant} --force'")
        lookup = table_lookup(store, table)
        answers = ProbeAnswers(parse, lambda _: lookup)
        answer_positions(position, answers.one, as_json, probe_text, answers.many)
