"""`tablebase demo`: the main job in one command, on the embedded default database."""

from __future__ import annotations

import click

from tablebase.cli.app import db_option, main, show_progress, silent_option
from tablebase.cli.sparro import render, solve_into, table_lookup
from tablebase.cli.verify import verify_claims
from tablebase.db.store import TablebaseStore
from tablebase.games.sparro import VARIANTS, Sparro
from tablebase.solver.probe import probe

SAMPLE_PLIES = 8


@main.command(epilog="""\b
Example:
    tablebase demo
    tablebase demo --db /tmp/tb.sqlite -s""")
@db_option
@silent_option
def demo(db_path: str, silent: bool) -> None:
    """Solve the three Sparro variants into the tablebase (reusing what is already
    there) and print the headline results: the value of each start, the best first
    moves, the opening of a perfectly played game, and the fairness verdicts."""
    game = Sparro("standard")
    click.echo(render(game, game.start()))
    click.echo()
    with TablebaseStore(db_path, create=True) as store:
        for variant in VARIANTS:
            info = solve_into(store, variant, progress=show_progress(silent))
            rules = Sparro(variant)
            answer = probe(rules, rules.start(), table_lookup(store, info))
            winner = "Red" if answer.outcome.name == "win" else "Black"
            best = [m.name for m in answer.moves if m.outcome == answer.moves[0].outcome]
            click.echo(f"{variant:22s} {winner} wins with perfect play; the game lasts "
                       f"{answer.outcome.remoteness} plies; {info.positions:,} positions "
                       f"(solved in {info.seconds:.1f} s); Red's best first moves: {' '.join(best)}")
        pos = game.start()
        line = []
        lookup = table_lookup(store, store.table("sparro", "standard"))
        for _ in range(SAMPLE_PLIES):
            answer = probe(game, pos, lookup)
            if not answer.moves:
                break
            move = answer.moves[0]
            line.append(move.name)
            pos = game.play(pos, move.cell)
        claims = verify_claims(store, "sparro", show_progress(silent))
    click.echo()
    click.echo(f"Perfect play in standard Sparro, first {len(line)} plies: {' '.join(line)}")
    click.echo(render(game, pos))
    click.echo()
    click.echo("Fairness claims (tablebase verify):")
    for claim in claims:
        click.echo(f"  [{claim.verdict}] {claim.id}: {claim.summary}")
    click.echo()
    click.echo(f"Tablebase: {db_path}. Try: tablebase probe sparro '{game.format(pos)}'")
