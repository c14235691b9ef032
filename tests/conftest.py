"""Shared fixtures and the three test sets.

* `pytest -m "not slow"`: the quick subset (under a minute on 2 cores);
* `pytest`: everything but the exhaustive sweeps, what CI runs (under 10 minutes);
* `pytest --exhaustive`: the exhaustive sweeps too (every option combination against the
  reference engine, the 120-combination solver checks, whole hex3 tables).

Tests marked ``exhaustive`` are deselected unless ``--exhaustive`` is given, whatever
``-m`` says. A test that uses an expensive fixture (the three solved Sparro variants, a
browser) is marked ``slow`` here, so the quick subset never pays for one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebase.service.sparro import solve_into
from tablebase.db.store import TablebaseStore
from tablebase.games.sparro import VARIANTS

#: fixtures that cost more than the quick subset can afford (several CPU seconds each:
#: solving several tables, a browser, a dask cluster): their tests are slow
EXPENSIVE_FIXTURES = ("sparro_db", "browser", "page", "server", "web_db", "cluster", "limping2_proof", "sparro_tiers")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--exhaustive", action="store_true",
                     help="also run the exhaustive sweeps (the tests marked exhaustive; far longer than the full run)")


@pytest.hookimpl(tryfirst=True)  # before -m selects by markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in EXPENSIVE_FIXTURES):
            item.add_marker(pytest.mark.slow)
    if config.getoption("--exhaustive"):
        return
    kept = [item for item in items if item.get_closest_marker("exhaustive") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("exhaustive")])
        items[:] = kept


@pytest.fixture(scope="session")
def sparro_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tablebase file with all three Sparro variants solved (about 40 CPU seconds:
    the tests that use it are slow)."""
    path = tmp_path_factory.mktemp("tablebase") / "sparro.sqlite"
    with TablebaseStore(path, create=True) as store:
        for variant in VARIANTS:
            solve_into(store, variant, progress=False)
    return path


@pytest.fixture(scope="session")
def sparro_standard_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tablebase file with standard Sparro solved (about 2 CPU seconds): for the quick
    subset. Tests must not write to it (copy it first)."""
    path = tmp_path_factory.mktemp("tablebase") / "standard.sqlite"
    with TablebaseStore(path, create=True) as store:
        solve_into(store, "standard", progress=False)
    return path
