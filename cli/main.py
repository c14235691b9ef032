"""Entry point of the `tablebase` command: the group plus every module that adds commands."""

from tablebase.cli import (  # noqa: F401  (they register commands)
    atlas, check, demo, proof, puzzles, serve, smallholder, sparro, tables, verify)
from tablebase.cli.app import main, run

__all__ = ["main", "run"]
