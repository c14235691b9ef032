"""`tablebase proof export`: the proof of a weak solve as a file anyone can check;
`tablebase proof status`: where the stored weak solves stand."""

from __future__ import annotations

import json
import sys

import click

from tablebase.cli.app import (
    cluster_options, db_option, json_option, long_run_options, long_run_progress, main)
from tablebase.cli.smallholder import BOARD, RULES, RULESET
from tablebase.service.files import check_writable, copy_store, open_store, write_text
from tablebase.service.proof import export_proof, weak_solve_status, weak_solve_status_lines
from tablebase.service.smallholder import DESCRIPTION as SMALLHOLDER, rules_of


@main.group("proof")
def proof() -> None:
    """Proofs of weak solutions (see 'tablebase solve smallholder --weak')."""


@proof.group("export")
def export() -> None:
    """Write a stored proof as TSV (position, role, move, value, remoteness)."""


@export.command("smallholder", epilog="""\b
Example:
    tablebase solve smallholder --board limping2 --weak
    tablebase proof export smallholder --board limping2 --output limping2-nibbler.proof.tsv
    tablebase proof export smallholder --board limping3 --ruleset stymie --output stymie.tsv.gz
    tablebase proof export smallholder --board limping3 --ruleset nibbler --workers 2 -o nibbler.tsv.gz
    tablebase check --proof limping2-nibbler.proof.tsv""")
@click.option("--board", metavar="B", type=BOARD, default=SMALLHOLDER.default_board, show_default=True,
              help="Board of the weak solve.")
@click.option("--ruleset", metavar="R", type=RULESET, default=None,
              help=f"Named ruleset: {', '.join(SMALLHOLDER.rulesets)} (default {SMALLHOLDER.default_ruleset}).")
@click.option("--rules", "spec", metavar="SPEC", type=RULES, default=None,
              help="Custom options groups=...,adjacent=...,territory=...,capture=...")
@click.option("--position", metavar="POSITION", default=None,
              help="Root of the weak solve (default: the empty board, Black to move).")
@click.option("--output", "-o", type=click.Path(), default=None,
              help="Write here instead of stdout (checked before the work starts; replaced whole at the end, never left half-written); a name ending in .gz is compressed.")
@cluster_options("Search the leaves' remoteness", ", one leaf each at a time",
                 "in-process, one leaf at a time on every core")
@db_option
@long_run_options
def export_smallholder(board: str, ruleset: str | None, spec: str | None, position: str | None,
                       output: str | None, workers: int | None, scheduler: str | None, db_path: str,
                       silent: bool) -> None:
    """Write the proved strategy of a weak solve: one row per position of the winner's
    strategy as reached from the start (not canonical forms): 'winner' rows give the
    move the winner plays, 'loser' rows have every legal reply covered by a row, and
    'leaf' rows carry the exact value and remoteness of the leaf solver (or a finished
    game). '#' lines before the header name the rules, the board, the root and the
    claim. A draw (both sides' wins disproved) is written as the two sides' strategies
    that do not lose, each after a '# strategy: ... (holder B|W)' line and its own
    header: 'holder' rows give the move of the side that does not lose, 'opponent'
    rows have every reply covered, leaves are draws or wins for the holder. The file is
    checked with 'tablebase check --proof FILE'.

    A proof found with '--leaf-solver value' has leaves whose value alone is known:
    the export finds each one's remoteness with the exact search, which can take a while
    for a big proof (progress on stderr: how many leaves, then a line per leaf with
    the time left at the pace so far). What it finds is stored in
    the file (unless it is read-only), so an export stopped midway goes on from there.
    With --workers N or --scheduler those searches run on a Dask cluster's workers, as
    many at once as it has (the master stores what they find).
    """
    rules = rules_of(ruleset, spec)
    if output is not None:
        check_writable(output)  # before the work, which can take hours
    with open_store(db_path) as store:
        lines = list(export_proof(store, board, rules, position, long_run_progress(silent), workers, scheduler))
    text = "".join(line + "\n" for line in lines)
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)


@proof.command("status", epilog="""\b
Example:
    tablebase proof status --db limping3-nibbler.sqlite
    tablebase proof status --db limping3-nibbler.sqlite --json""")
@db_option
@json_option
def status(db_path: str, as_json: bool) -> None:
    """Where the weak solves stored in the file stand, without running them: per run its
    rules, root and goal, status (proved, disproved, unknown, running: with the pid of
    the process, or unfinished: stopped before the end, killed or not; the same solve
    command goes on from there) and the time of its last commit (UTC; a running search
    commits each time a job ends), nodes settled, jobs, seconds and the root's last
    proof and disproof numbers; for a proved run, its proof as 'proof export'
    writes it (positions, leaves, leaves up to symmetry) and how many of those leaves
    still need their remoteness from the exact search (what an export stopped midway
    has left); what the leaf jobs of the run's rules cost (positions solved, those on
    which a job ran out of its node budget and how many of those a retry solved, with
    the jobs' seconds: where the time went, for choosing --job-budget); then each move
    from the root (up to symmetry, its images after "or"), proved, disproved or open,
    and how many of the positions after it (up to symmetry) are proved and disproved.
    The file is opened read-only: a run or an export may go on meanwhile.

    With --json one object per run: {"board", "rules" (the label: nibbler@limping3),
    "spec" (as --rules takes it), "named", "root", "from_start",
    "goal", "status", "pid" (of a running run, else null), "started", "updated",
    "settled", "jobs", "seconds", "root_pn", "root_dn", "proof": {"positions", "leaves",
    "distinct_leaves", "leaves_without_remoteness"}, {"error"} (a proved run whose
    stored nodes make no proof: a damaged file) or null (a run not proved), "leaf_jobs":
    {"solved", "solved_seconds", "ran_out", "ran_out_seconds", "ran_out_then_solved"},
    "moves": [{"move", "images", "status", "next_positions", "proved", "disproved"}]}.
    """
    with open_store(db_path, readonly=True) as store:
        runs = weak_solve_status(store)
    if as_json:
        for run in runs:
            click.echo(json.dumps(run))
        return
    if not runs:
        click.echo(f"no weak solve is stored in {db_path}")
    for line in weak_solve_status_lines(runs):
        click.echo(line)


@proof.command("copy", epilog="""\b
Example:
    tablebase proof copy --db limping3-nibbler.sqlite proofs/limping3-nibbler.sqlite.gz
    tablebase proof copy --db limping3-nibbler.sqlite proofs/limping3-nibbler.sqlite.gz --force  # refresh it
    gunzip -k proofs/limping3-nibbler.sqlite.gz   # a file the same run goes on from""")
@click.argument("output", type=click.Path())
@db_option
@json_option
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists (a refreshed copy).")
def copy(output: str, db_path: str, as_json: bool, force: bool) -> None:
    """Copy a tablebase file to OUTPUT, consistently even while a weak solve (or any
    solve) writes to it: the way to keep a run that outlasts the machine. A name ending
    in .gz is compressed (gzip; the same file gives the same bytes). An existing OUTPUT
    is refused unless --force is given, and then replaced whole or not at all. The copy
    is made in a hidden folder beside OUTPUT ('.OUTPUT.<8 random characters>.tmp'), removed at the end;
    one left by a copy that was killed is removed by the next copy to OUTPUT (never one a
    copy still running is using). Prints where the copy's weak solves stand, as 'proof
    status' does (with --json: {"output", "bytes", "runs": [as 'proof status --json']})."""
    written, runs = copy_store(db_path, output, inspect=weak_solve_status, replace=force)
    assert runs is not None
    if as_json:
        click.echo(json.dumps({"output": output, "bytes": written, "runs": runs}))
        return
    click.echo(f"copied {db_path} to {output} ({written:,} bytes)")
    for line in weak_solve_status_lines(runs):
        click.echo(line)
