"""Sparro commands: `show sparro`, `moves sparro`, `solve sparro`, `probe sparro`."""

from __future__ import annotations

import json

import click

from tablebase.cli.app import (
    BUDGET_RANGE,
    CheckedChoice,
    answer_positions,
    db_option,
    json_option,
    long_run_options,
    long_run_progress,
    moves,
    probe,
    probe_texts,
    progress_printer,
    pv_option,
    search_since,
    search_time_option,
    show,
    silent_option,
    solve,
)
from tablebase.service.files import open_store, write_text
from tablebase.service.tables import solve_json
from tablebase.service.probing import DEFAULT_SEARCH_SECONDS, probe_answers
from tablebase.service.sparro import DESCRIPTION, solve_into

GAME = "sparro"
START_TEXT = "............/......../...."
NOTATION_HELP = f"""Positions: the 24 playable cells in standard order as three '/'-separated
groups (12 on level 0, 8 on level 1, 4 on level 2), R red, B black, . empty; the empty
board is '{START_TEXT}'. In the extended variants the token holder may follow after a
space (R or B, default B). Cells are named level + column + row, e.g. 0a1 (base level,
north-west corner), 1b3, 2b2; a move is given by its name or its index 0-23."""

variant_option = click.option("--variant", type=CheckedChoice(DESCRIPTION.named_variants, DESCRIPTION.rules),
                              default="standard", show_default=True,
                              help="Rule variant (standard-no-compensation: standard with a full board without a line a draw).")
unreachable_option = click.option("--allow-unreachable", is_flag=True,
                                  help="Accept a legal position that no game reaches (for analysis).")


@show.command("sparro", help=f"""Draw a Sparro POSITION (default: the start) level by level.

Each level is a grid seen from above: R red, B black, . empty, o fixed white.

{NOTATION_HELP} A legal position that no game reaches (in standard, say, a line with a
marble played on it afterwards) is refused with the reason unless --allow-unreachable.""", epilog="""\b
Example:
    tablebase show sparro
    tablebase show sparro 'RB.........R/......../....'
    tablebase show sparro 'RRR.BB....../......../....' --svg line.svg --faces""")
@click.argument("position", default=START_TEXT)
@variant_option
@click.option("--svg", "svg_path", type=click.Path(),
              help="Also draw the position as an SVG picture into this file.")
@click.option("--faces", is_flag=True, help="With --svg: add the four faces unfolded, completed lines marked.")
@unreachable_option
def show_sparro(position: str, variant: str, svg_path: str | None, faces: bool, allow_unreachable: bool) -> None:
    if faces and not svg_path:
        raise click.UsageError("--faces draws into the --svg picture: give --svg FILE too")
    game, pos = DESCRIPTION.read(position, variant=variant, allow_unreachable=allow_unreachable)
    if svg_path:  # first: a file it cannot write is an error before anything is printed
        write_text(svg_path, DESCRIPTION.svg(game, pos, faces=faces))
    click.echo(DESCRIPTION.text(game, pos))


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
@unreachable_option
def moves_sparro(position: str, variant: str, as_json: bool, allow_unreachable: bool) -> None:
    """List the legal moves of POSITION, or of each line of stdin with '-'.

    Text output is one line per position: the position, whose turn, the move names.
    With --json, one object per position: {"position", "to_move", "moves": [{"cell",
    "name"}], "result": null or {"winner", "lines": {"R", "B"}}}.
    """
    answer_positions(position, lambda text: DESCRIPTION.moves(
        *DESCRIPTION.read(text, variant=variant, allow_unreachable=allow_unreachable)), as_json, moves_text)


# -- solving ----------------------------------------------------------------------


def _variants(choice: str) -> list[str]:
    return list(DESCRIPTION.variants) if choice == "all" else [choice]


@solve.command("sparro", epilog="""\b
Example:
    tablebase solve sparro --variant all
    tablebase solve sparro --variant extended --db /tmp/sparro.sqlite --json""")
@click.option("--variant", type=click.Choice(DESCRIPTION.named_variants + ("all",)), default="all", show_default=True,
              help="Variant to solve, or all three published ones (all: not standard-no-compensation).")
@db_option
@long_run_options
@json_option
@click.option("--force", is_flag=True, help="Solve again even if the table is complete.")
def solve_sparro(variant: str, db_path: str, silent: bool, as_json: bool, force: bool) -> None:
    """Solve every position reachable from the start and store it in the tablebase.

    Solving runs tier by tier (a tier is the positions with the same number of
    marbles), from the full board back to the start; each solved tier is committed on
    its own, so an interrupted solve resumes where it stopped. A complete table is
    reused unless --force is given (the line then says it was already solved, and how long that
    took). Prints the value of the start and the totals; with --json one object per variant,
    "reused" true for a table that was complete already.
    """
    with open_store(db_path, create=True) as store:
        for name in _variants(variant):
            info = solve_into(store, name, progress=long_run_progress(silent), force=force)
            summary = solve_json(info, info.reused)
            if as_json:
                click.echo(json.dumps(summary))
            else:
                click.echo(f"sparro {name}: start is a {summary['start']['value']} for Red in "
                           f"{summary['start']['remoteness']} plies; {info.positions:,} positions, "
                           f"{info.solved_text()}")


# -- probing ----------------------------------------------------------------------


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
@click.option("--budget", type=BUDGET_RANGE, default=2_000_000, show_default=True,
              help="Node budget per position for --search (the position and all its moves together).")
@search_time_option(DEFAULT_SEARCH_SECONDS)
@pv_option
@unreachable_option
@silent_option
def probe_sparro(position: str, variant: str, db_path: str, as_json: bool, use_search: bool, budget: int,
                 seconds: float, show_pv: bool, allow_unreachable: bool, silent: bool) -> None:
    """The exact value and remoteness of POSITION (or each stdin line with '-') and of
    every legal move, best move first.

    Values are for the side to move ('win' or 'loss'); a move's value is for the player
    who makes it. Remoteness is the number of plies to the end of the game when the
    winner hurries and the loser holds out. A position no game reaches is refused with
    the reason; with --allow-unreachable it is accepted, and answered by --search only
    (the tables hold the reachable positions). A search that runs out of its --budget
    or --time answers 'unknown' (remoteness null; the text output adds a note on
    stderr; progress goes to stderr meanwhile), the
    moves it settled first, with their exact value and remoteness, and "at_least" what
    they prove (the best of them; null when none is settled). --pv
    adds the principal variation (the moves to the end under perfect play) to the text.
    JSON: {"position", "to_move", "rules", "source" ("table" or "search"), "value",
    "remoteness", "moves": [{"cell", "name", "value", "remoteness"}], "pv": [names]},
    and "at_least": {"value", "remoteness"} or null when "value" is "unknown".
    """
    texts = probe_texts(show_pv, budget, seconds if use_search else None)
    if use_search:
        answers = probe_answers(DESCRIPTION, None, search=True, budget=budget, seconds=seconds or None,
                                progress=progress_printer(silent), since=search_since(position), variant=variant,
                                allow_unreachable=allow_unreachable, pv=as_json or show_pv)
        answer_positions(position, answers.one, as_json, texts, answers.many)
        return
    with open_store(db_path) as store:
        answers = probe_answers(DESCRIPTION, store, variant=variant, allow_unreachable=allow_unreachable,
                                pv=as_json or show_pv)
        answer_positions(position, answers.one, as_json, texts, answers.many)
