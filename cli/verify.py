"""`tablebase verify`: the rule-fairness claims, decided from the solved tables (the
claims are `solver.fairness`, the workflow `service.verify`)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tablebase.cli.app import db_option, json_option, main, progress_printer, silent_option
from tablebase.service.files import open_store
from tablebase.render.markdown import claims_markdown
from tablebase.service.verify import GAMES, SMALLHOLDER_BOARDS, verify_claims



@main.command(epilog="""\b
Example:
    tablebase verify
    tablebase verify sparro --json
    tablebase verify smallholder --board limping2
    tablebase verify --markdown docs/FAIRNESS.md""")
@click.argument("game", type=click.Choice(GAMES + ("all",)), default="all")
@click.option("--board", "boards", metavar="B", multiple=True, type=click.Choice(SMALLHOLDER_BOARDS),
              help=f"Smallholder board to check (repeatable; default: {' and '.join(SMALLHOLDER_BOARDS)}).")
@db_option
@json_option
@click.option("--markdown", "markdown", type=click.Path(dir_okay=False, writable=True),
              help="Also write the report as Markdown to this file.")
@silent_option
def verify(game: str, boards: tuple[str, ...], db_path: str, as_json: bool, markdown: str | None,
           silent: bool) -> None:
    """Check the rules' fairness claims against the solved tables.

    For each claim: the claim as the rules state it, the verdict (holds, fails or
    partly) and the evidence: values and remoteness from the tables, and exhaustive
    strategy checks with a shortest counterexample line when a strategy fails. Tables
    that are missing are solved first (about a minute for Sparro, seconds for the
    Smallholder on limping2, about a minute per ruleset on hex3).

    The Smallholder claims: for each named ruleset on each board, whether the first
    player (Black) wins with perfect play, with the value of each first move up to
    symmetry; and per board the rulesets side by side (legal moves per position,
    optimal game length, share of positions with a capture, positions, draws).

    With --json: a list of {"id", "claim", "verdict", "evidence", "summary"}.
    """
    with open_store(db_path, create=True) as store:
        claims = verify_claims(store, game, progress_printer(silent), boards or SMALLHOLDER_BOARDS)
    if markdown:
        Path(markdown).write_text(claims_markdown(claims))
    if as_json:
        click.echo(json.dumps([c.as_json() for c in claims], indent=1))
        return
    for c in claims:
        click.echo(f"[{c.verdict}] {c.id}: {c.claim}")
        click.echo(f"    {c.summary}")
