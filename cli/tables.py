"""`tablebase tables`: what a tablebase file holds."""

from __future__ import annotations

import json

import click

from tablebase.cli.app import db_option, json_option, main
from tablebase.service.api import open as open_tablebase


@main.command("tables", epilog="""\b
Example:
    tablebase tables
    tablebase tables --db /tmp/tb.sqlite --json""")
@db_option
@json_option
def tables(db_path: str, as_json: bool) -> None:
    """List the tables a file holds: game, rules, status (complete, or still being
    solved), positions, the rules and solver versions that made it, and its bytes.
    The file is opened read-only. JSON: one object per table and line: {"game",
    "rules", "status", "positions", "rules_version", "solver_version", "bytes",
    "seconds"}."""
    with open_tablebase(db_path) as tb:
        found = tb.tables()
    for table in found:
        if as_json:
            click.echo(json.dumps(table.to_dict()))
        else:
            click.echo(f"{table.game} {table.rules}: {table.status}, {table.positions:,} positions, "
                       f"{table.bytes:,} bytes (rules {table.rules_version}, solver {table.solver_version})")
    if not found and not as_json:
        click.echo(f"no tables in {db_path!r}", err=True)
