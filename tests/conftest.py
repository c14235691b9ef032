"""Shared fixtures: the Sparro tablebase is solved once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebase.service.sparro import solve_into
from tablebase.db.store import TablebaseStore
from tablebase.games.sparro import VARIANTS


@pytest.fixture(scope="session")
def sparro_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tablebase file with all three Sparro variants solved (about a minute)."""
    path = tmp_path_factory.mktemp("tablebase") / "sparro.sqlite"
    with TablebaseStore(path, create=True) as store:
        for variant in VARIANTS:
            solve_into(store, variant, progress=False)
    return path
