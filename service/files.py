"""Opening tablebase files, for the interfaces (which do not import db/ themselves)."""

from __future__ import annotations

from pathlib import Path

from tablebase.db.store import TablebaseStore

__all__ = ["TablebaseStore", "open_store"]


def open_store(path: str | Path, create: bool = False, readonly: bool = False) -> TablebaseStore:
    """The tablebase file at ``path``: created if missing with ``create``, opened
    read-only with ``readonly``; a StoreError (one line) when it cannot be used."""
    return TablebaseStore(path, create=create, readonly=readonly)
