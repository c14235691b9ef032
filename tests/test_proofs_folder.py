"""proofs/: each compressed run file is a sound tablebase file holding the run its README
names, and the README gives each file's command."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import Smallholder

ROOT = Path(__file__).resolve().parent.parent
RUNS = sorted((ROOT / "proofs").glob("*.sqlite.gz"))


def test_the_folder_has_its_runs_and_readme() -> None:
    readme = (ROOT / "proofs" / "README.md").read_text(encoding="utf-8")
    assert RUNS
    for run in RUNS:
        assert f"## `{run.name}`" in readme and f"--db proofs/{run.name[:-3]}" in readme


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_each_run_file_holds_its_run(path: Path, tmp_path: Path) -> None:
    board, ruleset = path.name.removesuffix(".sqlite.gz").split("-", 1)
    game = Smallholder(board, ruleset)
    copy = tmp_path / "run.sqlite"
    with gzip.open(path, "rb") as source, copy.open("wb") as target:
        shutil.copyfileobj(source, target)
    with TablebaseStore(copy, readonly=True) as store:
        proofs = ProofStore(store)
        run = proofs.find_run("smallholder", game.rules_name, game.canonical_key(game.start()), "B")
        assert run is not None and run.settled > 0
        leaves = proofs.leaves("smallholder", game.rules_name)
        assert leaves and all(value in (WIN, LOSS, DRAW) for value, _ in leaves.values())
        assert set(proofs.settled(run.id)) & set(leaves)  # settled positions include solved leaves
