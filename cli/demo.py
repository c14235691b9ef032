"""`tablebase demo`: the main job in one command."""

import click

from tablebase.cli.app import main


@main.command()
def demo() -> None:
    """Show what the toolkit does."""
    click.echo("tablebase demo")
