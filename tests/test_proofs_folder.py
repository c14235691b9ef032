"""proofs/: each compressed run file is a sound tablebase file holding the run its README
names, the README gives each file's command, and each compressed proof export is what its
run file exports."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import RULESETS, Smallholder
from tablebase.service.proof import export_proof, weak_solve_status
from tablebase.service.verify import proof_claims

ROOT = Path(__file__).resolve().parent.parent
RUNS = sorted((ROOT / "proofs").glob("*.sqlite.gz"))
EXPORTS = sorted((ROOT / "proofs").glob("*.proof.tsv.gz"))


def _unpacked(path: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run.sqlite"
    with gzip.open(path, "rb") as source, copy.open("wb") as target:
        shutil.copyfileobj(source, target)
    return copy


def test_the_folder_has_its_runs_and_readme() -> None:
    readme = (ROOT / "proofs" / "README.md").read_text(encoding="utf-8")
    assert RUNS
    for run in RUNS:
        assert f"## `{run.name}`" in readme and f"--db proofs/{run.name[:-3]}" in readme
    for export in EXPORTS:
        assert f"`{export.name}`" in readme and export.name.replace(".proof.tsv.gz", ".sqlite.gz") in {
            run.name for run in RUNS}


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_each_run_file_holds_its_run(path: Path, tmp_path: Path) -> None:
    board, ruleset = path.name.removesuffix(".sqlite.gz").split("-", 1)
    game = Smallholder(board, ruleset)
    with TablebaseStore(_unpacked(path, tmp_path), readonly=True) as store:
        proofs = ProofStore(store)
        run = proofs.find_run("smallholder", game.rules_name, game.canonical_key(game.start()), "B")
        assert run is not None and run.settled > 0
        leaves = proofs.leaves("smallholder", game.rules_name)
        assert leaves and all(value in (WIN, LOSS, DRAW) for value, _ in leaves.values())
        assert set(proofs.settled(run.id)) & set(leaves)  # settled positions include solved leaves
        # proof status counts leaf jobs only: not the positions too big for a job (0 nodes)
        _, attempts = proofs.job_costs("smallholder", game.rules_name)
        too_big = {key for key, (nodes, _) in attempts.items() if nodes == 0}
        [status] = [r for r in weak_solve_status(store) if r["rules"] == game.rules_name and r["spec"] == game.rules.spec]
        assert too_big and game.canonical_key(game.start()) in too_big  # the start: 27 empty cells, over --job-max-empty
        assert (status["leaf_jobs"]["solved"], status["leaf_jobs"]["ran_out"]) == (len(leaves),
                                                                                 len(attempts) - len(too_big))


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.name)
def test_each_proof_export_is_what_its_run_file_exports(path: Path, tmp_path: Path) -> None:
    # the run file holds every leaf's remoteness, so this export searches nothing
    board, ruleset = path.name.removesuffix(".proof.tsv.gz").split("-", 1)
    with TablebaseStore(_unpacked(path.with_name(path.name.replace(".proof.tsv.gz", ".sqlite.gz")), tmp_path),
                        readonly=True) as store:
        exported = list(export_proof(store, board, RULESETS[ruleset]))
    with gzip.open(path, "rt", encoding="utf-8") as committed:
        assert exported == committed.read().splitlines()


@pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.name)
def test_each_check_journal_agrees_with_its_proof_and_a_whole_one_checks_it(path: Path, tmp_path: Path) -> None:
    """Each proof here has its check journal beside it (proofs/README.md: the check's record,
    in progress or finished); the journal names leaves of the proof and finds what they
    claim, and once it covers every leaf up to symmetry, the proof checks from it (every
    row by the rules, no leaf solved again)."""
    journal = path.with_name(path.name.replace(".proof.tsv.gz", ".journal"))
    assert journal.exists(), f"no check journal beside {path.name}: run the check with --journal {journal.name}"
    board, ruleset = path.name.removesuffix(".proof.tsv.gz").split("-", 1)
    game = Smallholder(board, ruleset)
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [line.split("\t") for line in handle.read().splitlines() if "\t" in line]
    claims = {position: f"a {value} in {remoteness}" for position, role, _, value, remoteness in rows if role == "leaf"}
    header, *found = journal.read_text(encoding="utf-8").splitlines()
    assert header.startswith(f"# tablebase check journal: rules {game.rules.spec}, board {board}, leaf check search")
    assert found
    for line in found:
        position, question, answer = line.split("\t")
        assert question == "value and remoteness" and claims[position] == answer, line
    covered = {game.canonical_key(game.parse(line.split("\t")[0])) for line in found}
    if covered != {game.canonical_key(game.parse(position)) for position in claims}:
        return  # a check in progress: what it found so far agrees
    copy = tmp_path / journal.name
    shutil.copyfile(journal, copy)
    # the check, searching nothing (a leaf the journal lacks would be an error), and the
    # first-player claim it proves, which docs/FAIRNESS.md must state as verify makes it
    [claim] = proof_claims(((path, copy),), search=False)
    assert claim.evidence["proof"]["re_solved"] == len(covered) and claim.evidence["board"] == board
    fairness = (ROOT / "docs" / "FAIRNESS.md").read_text(encoding="utf-8")
    assert f"| `{claim.id}` | **{claim.verdict}** | {claim.summary} |" in fairness, "run the command in its header"
