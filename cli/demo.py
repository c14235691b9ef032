"""`tablebase demo`: the main job in one command, on the embedded default database."""

from __future__ import annotations

import click

from tablebase.cli.app import db_option, main, progress_printer, silent_option
from tablebase.service.demo import run_demo


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
    result = run_demo(db_path, progress_printer(silent))
    click.echo(result.start_picture)
    click.echo()
    for line in result.variants:
        best = ("Red's best first moves: " if line.winner == "Red"
                else "Red has no winning first move; the longest defences: ") + " ".join(line.best_moves)
        click.echo(f"{line.variant:22s} {line.winner} wins with perfect play; the game lasts "
                   f"{line.remoteness} plies; {line.positions:,} positions "
                   f"({line.solved}); {best}")
    click.echo()
    click.echo(f"Perfect play in standard Sparro, first {len(result.line)} plies: {' '.join(result.line)}")
    click.echo(result.end_picture)
    click.echo()
    click.echo("Fairness claims (tablebase verify):")
    for claim in result.claims:
        click.echo(f"  [{claim.verdict}] {claim.id}: {claim.summary}")
    click.echo()
    click.echo(f"Tablebase: {db_path}. Try: tablebase probe sparro '{result.end_position}'")
