"""`tablebase check`: is a tablebase file intact, current and right? (The audit itself
is `service.check`.)"""

from __future__ import annotations

import json
import random
import sys

import click

from tablebase.cli.app import (
    BUDGET_RANGE,
    DEFAULT_DB,
    SEED_RANGE,
    TablebaseError,
    Whole,
    cluster_options,
    db_option,
    json_option,
    long_run_options,
    long_run_progress,
    main,
    progress_printer,
)
from tablebase.service.files import open_store
from tablebase.service.check import DEFAULT_SAMPLE, DEFAULT_SEARCH_BUDGET, check_database
from tablebase.service.proof import (
    DEFAULT_CHECK_BUDGET, DEFAULT_LEAF_CHECK, LEAF_CHECKS, check_proof_file, check_proof_lines)

#: Options of one kind of check, refused with the other (they would be silently ignored).
PROOF_OPTIONS = {"leaf_budget": "--leaf-budget", "leaf_check": "--leaf-check", "journal_path": "--journal",
                 "workers": "--workers", "scheduler": "--scheduler"}
TABLE_OPTIONS = {"sample": "--sample", "seed": "--seed", "search_budget": "--search-budget"}


def _given(options: dict[str, str]) -> list[str]:
    """Those of ``options`` (parameter name -> option as typed) given on the command line."""
    ctx = click.get_current_context()
    return [option for name, option in options.items()
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE]


@main.command("check", epilog="""\b
Example:
    tablebase check
    tablebase check --db /tmp/sparro.sqlite --sample 1000 --json
    tablebase check --sample 0          # checksums and versions only
    tablebase check --proof limping3-nibbler.proof.tsv.gz
    tablebase check --proof limping3-nibbler.proof.tsv.gz --journal limping3-nibbler.journal
    tablebase check --proof limping3-nibbler.proof.tsv.gz --scheduler tcp://10.0.0.5:8786
    tablebase proof export smallholder --board hex3 | tablebase check --proof -""")
@db_option
@click.option("--sample", type=Whole(0, 10**9), default=DEFAULT_SAMPLE, show_default=True,
              help="Random positions per table checked against their children, symmetry images and the search "
                   "(at most the whole table; the start is judged besides, so the report counts one more).")
@click.option("--seed", type=SEED_RANGE, default=None,
              help="Seed of the random sample (default: a fresh one, printed in the report).")
@click.option("--search-budget", type=BUDGET_RANGE, default=DEFAULT_SEARCH_BUDGET, show_default=True,
              help="Search nodes per sampled position; a position needing more is counted, not searched.")
@click.option("--proof", "proof_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Instead: verify a proof file of 'tablebase proof export' (plain or .gz; '-': stdin) by "
                   "the rules.")
@click.option("--leaf-budget", type=BUDGET_RANGE, default=DEFAULT_CHECK_BUDGET, show_default=True,
              help="--proof: positions a leaf may have to be re-solved exactly by the reference engine; "
                   "bigger leaves are checked as --leaf-check says.")
@click.option("--leaf-check", type=click.Choice(LEAF_CHECKS), default=DEFAULT_LEAF_CHECK, show_default=True,
              help="--proof: a leaf too big for the reference engine is re-solved exactly (value and remoteness) "
                   "by the compiled search with another move order ('search'), or its value re-proved by the "
                   "proof-number search on reference-engine leaves ('reference': the rules engine alone, slow "
                   "beyond about 15 empty cells).")
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False), default=None, metavar="JOURNAL",
              help="--proof: keep what the re-checks of big leaves find in this file (created if missing), "
                   "each as soon as it is found; a check run again with the same JOURNAL takes those leaves "
                   "from it, so a long check that was stopped resumes.")
@cluster_options("--proof: re-solve the big leaves", ", one leaf each at a time",
                 "in-process, one leaf at a time on every core")
@json_option
@long_run_options
def check(db_path: str, sample: int, seed: int | None, search_budget: int, proof_path: str | None,
          leaf_budget: int, leaf_check: str, journal_path: str | None, workers: int | None, scheduler: str | None,
          as_json: bool, silent: bool) -> None:
    """Verify a tablebase file: the SQLite structure; every tier against the checksum
    recorded when it was written, and each table's checksum against its tiers; every
    table's rules and solver versions against this program's (a table from another
    version is reported, never used); and on a random sample of positions per table,
    that each value follows from its children's (the retrograde invariant), is the same
    under every symmetry, and agrees with the independent search where the search
    finishes within its budget. Stored atlas rows are checked against their checksums
    (a damaged one is named; the atlas computes it again).

    The file is opened read-only. A table still being solved is reported as incomplete
    (not a failure: nothing uses it); a table of a game this program cannot judge is
    "not checked: unknown game" after its checksums are verified. A sample larger than a
    table checks the whole table. Progress goes to stderr (each tier read, each hundred
    sampled positions). The report goes to stdout (one JSON object with --json); the exit
    status is 1 if anything failed.

    With --proof FILE, no tablebase is read (--sample, --seed and --search-budget are
    refused with it, the options marked --proof without it): the proof
    is verified with the per-position rules engine (every move legal, every reply
    covered, no cycle, values and lengths consistent) and every leaf re-solved: by the
    reference engine when it has at most --leaf-budget positions, otherwise as
    --leaf-check says (a leaf that is an image of an earlier one under a symmetry of the
    board must claim the same, and is not solved again). The first problem found is
    named with its line number and the exit status is 1. A proof with hundreds of big leaves takes hours to check (progress
    counts the leaves, with the time left at the pace so far): with --journal JOURNAL a
    stopped check resumes where it stopped (the leaves the journal holds are compared with
    the proof, not solved again), and with --workers N or --scheduler the big leaves are
    re-solved on a Dask cluster's workers, as many at once as it has.
    """
    if proof_path is None and (misplaced := _given(PROOF_OPTIONS)):
        raise click.UsageError(f"{misplaced[0]} is for --proof FILE (a proof's check), not a tablebase's")
    if proof_path is not None and (misplaced := _given(TABLE_OPTIONS)):
        raise click.UsageError(f"{misplaced[0]} is for a tablebase's check; --proof FILE reads no tablebase")
    if proof_path is not None:
        if proof_path == "-":
            proof_report = check_proof_lines(sys.stdin, "<stdin>", leaf_budget, long_run_progress(silent), leaf_check,
                                             journal_path, workers, scheduler)
        else:
            proof_report = check_proof_file(proof_path, leaf_budget, long_run_progress(silent), leaf_check,
                                            journal_path, workers, scheduler)
        if as_json:
            click.echo(json.dumps(proof_report.as_json()))
        else:
            click.echo(f"{proof_path}: {proof_report.text()}")
        return
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    with open_store(db_path or DEFAULT_DB, readonly=True) as store:
        report = check_database(store, sample, seed, search_budget, progress_printer(silent))
    click.echo(json.dumps(report.as_json()) if as_json else report.text())
    if report.failures:
        raise TablebaseError(f"check failed: {report.failures} problem(s) in {db_path!r}")
