"""`tablebase verify`: the rule-fairness claims, decided from the solved tables (the
claims are `solver.fairness`, the workflow `service.verify`)."""

from __future__ import annotations

import json
import shlex
from contextlib import nullcontext

import click

from tablebase.cli.app import (
    db_option, json_option, long_run_options, long_run_progress, main, proof_arguments, proof_options, proof_pairs,
    solve_option)
from tablebase.cli.smallholder import RULES
from tablebase.service.files import check_writable, open_store, write_text
from tablebase.render.markdown import claims_markdown
from tablebase.service.smallholder import rules_of
from tablebase.service.tables import refuse_unasked_solve
from tablebase.service.verify import GAMES, SMALLHOLDER_BOARDS, tables_needed, verify_claims



@main.command(epilog="""\b
Example:
    tablebase verify --solve
    tablebase verify sparro --json
    tablebase verify smallholder --board limping2
    tablebase verify smallholder --board limping2 --rules territory=hull,capture=groupwise-reentry
    tablebase verify smallholder --board limping2 --rules nibbler --rules adjacent=smallest-only
    tablebase verify smallholder --board limping2 --proof limping2.proof.tsv
    tablebase verify smallholder --proof proofs/limping3-hull-setbacks.proof.tsv.gz \\
        --journal proofs/limping3-hull-setbacks.journal
    tablebase verify --board limping2 --board hex3 --markdown docs/FAIRNESS.md \\
        --proof proofs/limping3-hull-setbacks.proof.tsv.gz --journal proofs/limping3-hull-setbacks.journal \\
        --proof proofs/limping3-nibbler.proof.tsv.gz --journal proofs/limping3-nibbler.journal \\
        --proof proofs/limping3-gaps-original.proof.tsv.gz --journal proofs/limping3-gaps-original.journal \\
        --proof proofs/limping3-stymie.proof.tsv.gz --journal proofs/limping3-stymie.journal \\
        --proof proofs/limping3-offshore-gaps.proof.tsv.gz --journal proofs/limping3-offshore-gaps.journal""")
@click.argument("game", type=click.Choice(GAMES + ("all",)), default="all")
@click.option("--board", "boards", metavar="B", multiple=True, type=click.Choice(SMALLHOLDER_BOARDS),
              help=f"Smallholder board to check (repeatable; default: {' and '.join(SMALLHOLDER_BOARDS)}, none "
                   f"with --proof).")
@click.option("--rules", "specs", metavar="SPEC", multiple=True, type=RULES,
              help="Check these Smallholder combinations instead of the named rulesets (repeatable): a "
                   "ruleset name or groups=...,adjacent=...,territory=...,capture=... (keys left out keep "
                   "the nibbler values).")
@proof_options()
@db_option
@json_option
@click.option("--markdown", "markdown", type=click.Path(),
              help="Also write the report as Markdown to this file.")
@solve_option
@long_run_options
def verify(game: str, boards: tuple[str, ...], specs: tuple[str, ...], proofs: tuple[str, ...],
           journals: tuple[str, ...], db_path: str, as_json: bool, markdown: str | None, solve: bool,
           silent: bool) -> None:
    """Check the rules' fairness claims against the solved tables.

    For each claim: the claim as the rules state it, the verdict (holds, fails or
    partly) and the evidence: values and remoteness from the tables, and exhaustive
    strategy checks with a shortest counterexample line when a strategy fails. Tables
    that are missing are solved first with --solve (about a minute for Sparro, seconds
    for the Smallholder on limping2, about 20 s per ruleset on hex3); without it a
    file that lacks some says which and how long solving them takes, and exits with
    status 1.

    The Smallholder claims: for each named ruleset on each board, whether the first
    player (Black) wins with perfect play, with the value of each first move up to
    symmetry; and per board the rulesets side by side (legal moves per position,
    optimal game length, share of positions with a capture, positions, draws).
    With --rules the same claims are checked for the combinations given: each one's
    first-player claim, and with two or more their comparison.

    With --proof: the first-player claim of a board no table holds (limping3, hex4)
    from a weak solution, once its check passes (every row by the rules engine, every
    leaf re-solved, or taken from the check's journal); a claim the tables decide too is
    confirmed by it (evidence "weak_solution"), and a disagreement is an error. A big
    leaf the --journal lacks would be re-solved by the search (minutes to hours): without
    --solve that is an error. With --proof the tables' Smallholder claims are those of
    the boards given with --board (none without it).

    With --json: one object per claim and line: {"id", "claim", "verdict", "evidence",
    "summary"}.
    """
    if specs and game != "smallholder":
        raise click.UsageError("--rules chooses Smallholder combinations: use 'tablebase verify smallholder --rules ...'")
    if proofs and game == "sparro":
        raise click.UsageError("--proof gives Smallholder weak solutions: use "
                               "'tablebase verify smallholder --proof ...'")
    weak = proof_pairs(proofs, journals)
    rules = tuple(rules_of(None, spec) for spec in specs)
    if markdown:
        check_writable(markdown)  # before the work, not after it
    # with --proof, the Smallholder tables' claims are those of the boards given (none by default)
    chosen = boards or (() if proofs else SMALLHOLDER_BOARDS)
    needed = tables_needed(game, chosen, rules)
    if not solve:
        refuse_unasked_solve(db_path, "verify" + ("" if game == "all" else f" {game}"), needed)
    # the proofs' claims alone read no table: no file is opened (nor created)
    with open_store(db_path, create=True) if needed else nullcontext() as store:
        claims = verify_claims(store, game, long_run_progress(silent), chosen, rules, weak, search=solve)
    if markdown:
        command = " ".join(["tablebase verify"] + ([] if game == "all" else [game])
                           + [f"--board {b}" for b in boards] + [f"--rules {shlex.quote(spec)}" for spec in specs]
                           + proof_arguments(weak)
                           + [f"--markdown {shlex.quote(markdown)}"])
        write_text(markdown, claims_markdown(claims, command))
    if as_json:
        for c in claims:
            click.echo(json.dumps(c.as_json()))
        return
    for c in claims:
        click.echo(f"[{c.verdict}] {c.id}: {c.claim}")
        click.echo(f"    {c.summary}")
