"""`tablebase atlas` and `tablebase compare`: option combinations side by side."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import click

from tablebase.cli.app import (
    atlas, compare, db_option, json_option, long_run_options, long_run_progress, progress_printer, proof_arguments,
    proof_options, proof_pairs, silent_option, solve_option)
from tablebase.cli.smallholder import BOARD, RULES
from tablebase.render.atlas import (
    BoardAtlas, atlas_markdown, atlas_text, compare_text, game_lengths_svg, option_grid_svg, start_text)
from tablebase.service.atlas import (
    WEAK_BOARDS, compare_smallholder, compared_rules_problem, smallholder_atlas, sparro_atlas, weak_first_player_results)
from tablebase.service.files import check_writable, open_store, write_text
from tablebase.service.smallholder import DESCRIPTION as SMALLHOLDER, game_of, rules_of
from tablebase.service.tables import refuse_unasked_solve
from tablebase.service.sparro import DESCRIPTION as SPARRO

#: The board `atlas` and `compare` use without --board: the default board of every
#: Smallholder command (hex4), which has no tables, so they say so and name the boards
#: that have them (limping2: all 120 combinations in seconds; hex3: about 20 minutes for all 120).
ATLAS_BOARD = SMALLHOLDER.default_board


def _picture_paths(svg: str, board: str, several: bool) -> tuple[Path, Path]:
    """The option grid's file and the game lengths' file for ``board``."""
    path = Path(svg)
    stem = path.stem + (f"-{board}" if several else "")
    return path.with_name(stem + path.suffix), path.with_name(stem + "-lengths" + path.suffix)


@atlas.command("smallholder", epilog="""\b
Example:
    tablebase atlas smallholder --board limping2
    tablebase atlas smallholder --board limping2 --json
    tablebase atlas smallholder --board limping2 --board hex3 --markdown docs/ATLAS.md --svg docs/img/atlas.svg
    tablebase atlas smallholder --board hex3 --stored-only
    tablebase atlas smallholder --board limping2 --board hex3 --stored-only --markdown docs/ATLAS.md \\
        --proof proofs/limping3-hull-setbacks.proof.tsv.gz --journal proofs/limping3-hull-setbacks.journal""")
@click.option("--board", "boards", metavar="B", multiple=True, type=BOARD,
              help=f"Board, repeatable: limping2 (seconds for all 120) or hex3 (about 20 minutes for all "
                   f"120); the default, {ATLAS_BOARD}, has no tables.")
@click.option("--stored-only", is_flag=True,
              help="Compute nothing: show the stored rows and list the combinations not computed yet.")
@db_option
@json_option
@click.option("--markdown", type=click.Path(),
              help="Also write the atlas page (all boards, with the pictures of --svg, and the first-player "
                   "results of limping3 and hex4 from the --proof files and the weak solves stored in the file) "
                   "to this file.")
@click.option("--svg", metavar="FILE", type=click.Path(),
              help="Also draw the option grid into FILE and the game lengths into FILE-lengths.svg "
                   "(with several --board, FILE-BOARD.svg and FILE-BOARD-lengths.svg).")
@proof_options(("Also put the first-player result of this weak solution (limping3 or hex4) on the --markdown "
                "page", ""))
@long_run_options
def atlas_smallholder(boards: tuple[str, ...], stored_only: bool, db_path: str, as_json: bool,
                      markdown: str | None, svg: str | None, proofs: tuple[str, ...], journals: tuple[str, ...],
                      silent: bool) -> None:
    """Every option combination of The Smallholder on a board, side by side.

    Each of the 120 combinations (5 group rules x 4 adjacency rules x 2 territories
    x 3 captures) is solved strongly and described by exact figures over all its
    canonical reachable positions (nothing is sampled): who wins the empty board with
    perfect play and in how many plies, positions, drawn positions, whether play can
    repeat, Black's winning first moves (up to symmetry and of all), the longest
    possible game, the share of positions where a capture is legal, and legal moves
    per position. Each row is stored in the tablebase file as soon as it is computed:
    a run that is stopped continues with the combinations not stored yet.

    Text output: one line per combination. With --json, one object per line:
    {"rules" (the label: nibbler@limping2), "spec" (as --rules takes it), "named",
    "start": {"value", "remoteness"}, "positions", "draws",
    "cycles", "winning_first_moves": {"up_to_symmetry", "of_up_to_symmetry", "all",
    "of_all"}, "longest_game" (null when play can repeat forever), "capture_share",
    "mean_moves"}; values are for Black, who moves first.

    The --markdown page ends with the first-player results of limping3 and hex4, which
    no table holds: from each --proof (a weak solution, checked first as by 'tablebase
    check --proof'; with --stored-only a leaf its --journal lacks is an error, not a
    search) and from the weak solves stored in the file (unfinished ones with their
    progress, never a guess).
    """
    if proofs and not markdown:
        raise click.UsageError("--proof adds its result to the --markdown page: give --markdown too")
    weak_proofs = proof_pairs(proofs, journals)
    boards = boards or (ATLAS_BOARD,)
    if len(set(boards)) < len(boards):
        raise click.UsageError(f"a --board is given twice: {', '.join(boards)}")
    # the outputs are checked before the work (20 minutes on hex3), not after it
    if markdown:
        check_writable(markdown)
    if svg:
        for board in boards:
            for picture in _picture_paths(svg, board, len(boards) > 1):
                check_writable(picture)
    sections = []
    weak = None
    with open_store(db_path, create=not stored_only) as store:
        if markdown:
            weak = weak_first_player_results(store, proofs=weak_proofs, progress=long_run_progress(silent),
                                             search=not stored_only)
        for board in boards:
            found = smallholder_atlas(store, board, compute=not stored_only, progress=long_run_progress(silent))
            section = BoardAtlas(board, found.rows, [r.spec for r in found.missing])
            if svg:
                grid, lengths = _picture_paths(svg, board, len(boards) > 1)
                write_text(str(grid), option_grid_svg(board, found.rows))
                write_text(str(lengths), game_lengths_svg(board, found.rows))
                if markdown:
                    base = Path(markdown).resolve().parent
                    section = BoardAtlas(board, found.rows, section.missing,
                                         Path(os.path.relpath(grid.resolve(), base)).as_posix(),
                                         Path(os.path.relpath(lengths.resolve(), base)).as_posix())
            sections.append(section)
            if as_json:
                for row in found.rows:
                    click.echo(json.dumps(row))
            else:
                if len(boards) > 1:
                    click.echo(f"{board}:")
                click.echo(atlas_text(found.rows))
            if found.missing:
                click.echo(f"{board}: {len(found.missing)} of {len(found.rows) + len(found.missing)} combinations "
                           f"not computed yet (run without --stored-only to compute them)", err=True)
    if markdown:
        command = " ".join(["tablebase atlas smallholder"] + [f"--board {b}" for b in boards]
                           + (["--stored-only"] if stored_only else []) + [f"--markdown {shlex.quote(markdown)}"]
                           + ([f"--svg {shlex.quote(svg)}"] if svg else []) + proof_arguments(weak_proofs))
        write_text(markdown, atlas_markdown(sections, command, weak, WEAK_BOARDS))


@atlas.command("sparro", epilog="""\b
Example:
    tablebase atlas sparro
    tablebase atlas sparro --variant standard --variant standard-no-compensation --json""")
@click.option("--variant", "variants", multiple=True, type=click.Choice(SPARRO.named_variants),
              help="Variant, repeatable (default: all four, standard-no-compensation included).")
@db_option
@json_option
@long_run_options
def atlas_sparro(variants: tuple[str, ...], db_path: str, as_json: bool, silent: bool) -> None:
    """The Sparro variants side by side, with the keys of the Smallholder atlas.

    Exact over every canonical reachable position of each variant's table (solved
    first when missing: about a minute in all): the start for Red (who moves first),
    positions, draws (only standard-no-compensation has any), Red's winning first
    moves, the longest game, legal moves per position. Sparro never repeats a position
    and has no captures ("cycles" is false, "capture_share" null).
    """
    with open_store(db_path, create=True) as store:
        rows = sparro_atlas(store, variants or SPARRO.named_variants, long_run_progress(silent))
    if as_json:
        for row in rows:
            click.echo(json.dumps(row))
        return
    click.echo(atlas_text(rows, sides="RB"))


@compare.command("smallholder", epilog="""\b
Example:
    tablebase compare smallholder --board limping2 --rules nibbler --rules gaps-original --solve
    tablebase compare smallholder --board limping2 --rules nibbler --rules capture=groupwise 'B./.W./..../... B'
    tablebase compare smallholder --board hex3 --rules stymie --rules hull-setbacks --json --solve""")
@click.argument("position", required=False)
@click.option("--board", metavar="B", type=BOARD, default=ATLAS_BOARD, show_default=True,
              help="Board: limping2 or hex3 (the default has no tables).")
@click.option("--rules", "specs", metavar="SPEC", multiple=True, required=True, type=RULES,
              help="A combination to compare, at least two: a ruleset name or "
                   "groups=...,adjacent=...,territory=...,capture=... (keys left out keep the nibbler values).")
@db_option
@solve_option
@json_option
@silent_option
def compare_smallholder_command(position: str | None, board: str, specs: tuple[str, ...], db_path: str,
                                solve: bool, as_json: bool, silent: bool) -> None:
    """Chosen Smallholder combinations side by side, with the moves where they differ.

    The combinations' tables are read from the tablebase file; --solve solves those it
    lacks first (seconds each on limping2, about 20 s each on hex3; without --solve the
    command says what it would solve and stops). Printed: per combination who wins the empty
    board and in how many plies, positions, draws, whether play can repeat, legal
    moves per position; then POSITION (default: the empty board) probed under each,
    every legal move's value for the player making it ('illegal' where the move is
    not legal under those rules), the moves whose values differ marked with '*'.

    With --json one object: {"board", "tables": [{"rules", "spec", "named", "start",
    "positions", "draws", "cycles", "mean_moves"}], "position": {"position",
    "to_move", "rules", "values", "differ", "moves": [{"cell", "name", "values",
    "differ"}], "differing_moves"}}; "rules" is each combination's label as every
    command's JSON has it (nibbler@limping2), "spec" the combination as --rules takes
    it, and "values" map each label to {"value", "remoteness"} (null: not legal).
    """
    rules = [rules_of(None, spec) for spec in specs]
    problem = compared_rules_problem(rules)
    if problem:  # an option problem, found before any file is read
        raise click.UsageError(problem)
    if not solve:
        refuse_unasked_solve(db_path, "compare smallholder",
                             [(SMALLHOLDER, game_of(board, r)) for r in rules])
    with open_store(db_path, create=True) as store:
        result = compare_smallholder(store, board, rules, position, progress_printer(silent))
    if as_json:
        click.echo(json.dumps(result))
        return
    for i, table in enumerate(result["tables"], start=1):
        named = f" ({table['named']})" if table["named"] else ""
        click.echo(f"[{i}] {table['spec']}{named}: {start_text(table['start'])}, {table['positions']:,} positions, "
                   f"{table['draws']:,} draws, {'cycles' if table['cycles'] else 'no cycles'}, "
                   f"{table['mean_moves']:.2f} moves per position")
    click.echo(compare_text(result["position"]))
