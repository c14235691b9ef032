"""Entry point of the `tablebase` command: the group plus every module that adds commands."""

from tablebase.cli import atlas, check, demo, proof, puzzles, serve, smallholder, sparro, verify  # noqa: F401  (they register commands)
from tablebase.cli.app import main

__all__ = ["main"]
