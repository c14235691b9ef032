"""The rule-fairness claims, decided from the solved tables (solving what is missing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.smallholder import Rules, Smallholder
from tablebase.service import smallholder, sparro
from tablebase.service.progress import Progress
from tablebase.service.proof import DEFAULT_CHECK_BUDGET, check_proof_file
from tablebase.service.description import GameDescription
from tablebase.service.errors import NotSolved, ServiceError, WrongVersion
from tablebase.service.tables import is_current, table_lookup
from tablebase.solver.fairness import (
    SMALLHOLDER_BOARDS, SPARRO_CLAIMS, SPARRO_VARIANTS_NEEDED, Claim, StoredRuleset, confirmed_claim,
    first_player_claim, proved_first_player_claim, rulesets_claim, smallholder_claims)
from tablebase.solver.probe import Lookup
from tablebase.solver.tiered import SolvedTier

#: the games with fairness claims
GAMES = ("sparro", "smallholder")

__all__ = ["GAMES", "SMALLHOLDER_BOARDS", "Claim", "StoredSmallholderTables", "StoredSparroTables", "proof_claims",
           "stored_claims", "tables_needed", "verify_claims", "with_proofs"]


def _stored(store: TablebaseStore, description: GameDescription, rules: str) -> TableInfo:
    """The complete, current table of ``rules``; NotSolved or WrongVersion naming it otherwise."""
    table = store.table(description.name, rules)
    if table is None or table.status != "complete":
        raise NotSolved(f"{description.name} {rules} is not solved in {str(store.path)!r}")
    if not is_current(description, table):
        raise WrongVersion(f"the {description.name} {rules} table in {str(store.path)!r} was made by another version")
    return table


class StoredSparroTables:
    """The Sparro tables the claims need, solved into the store first if missing (with
    ``solve=False`` a missing one is a `NotSolved` error instead)."""

    def __init__(self, store: TablebaseStore, progress: Progress | None = None, solve: bool = True) -> None:
        self.store = store
        if solve:
            self.info: dict[str, TableInfo] = {
                variant: sparro.solve_into(store, variant, progress) for variant in SPARRO_VARIANTS_NEEDED}
        else:
            self.info = {variant: _stored(store, sparro.DESCRIPTION, variant)
                         for variant in SPARRO_VARIANTS_NEEDED}

    def lookup(self, variant: str) -> Lookup:
        return table_lookup(self.store, sparro.DESCRIPTION, self.info[variant])

    def tier(self, variant: str, tier: int) -> SolvedTier:
        return sparro.read_tier(self.store, self.info[variant], tier)


class StoredSmallholderTables:
    """The Smallholder tables the claims need, each solved into the store when first asked for."""

    def __init__(self, store: TablebaseStore, progress: Progress | None = None, solve: bool = True) -> None:
        self.store = store
        self.progress = progress
        self.solve = solve
        self.info: dict[tuple[str, str], TableInfo] = {}

    def _info(self, board: str, ruleset: str) -> TableInfo:
        if (board, ruleset) not in self.info:
            game = Smallholder(board, ruleset)
            self.info[board, ruleset] = (
                smallholder.solve_into(self.store, board, game.rules, self.progress) if self.solve
                else _stored(self.store, smallholder.DESCRIPTION, game.rules_name))
        return self.info[board, ruleset]

    def lookup(self, board: str, ruleset: str) -> Lookup:
        return table_lookup(self.store, smallholder.DESCRIPTION, self._info(board, ruleset))

    def positions(self, board: str, ruleset: str) -> StoredRuleset:
        info = self._info(board, ruleset)
        keys, payload = [], []
        for tier in sorted(self.store.stored_tiers(info.id)):
            tier_keys, tier_payload = self.store.read_tier(info.id, tier, info.payload_dtype)
            keys.append(tier_keys)
            payload.append(tier_payload)
        values, remoteness = smallholder.DESCRIPTION.decode(np.concatenate(payload))
        return StoredRuleset(np.concatenate(keys), values, remoteness, info.summary["moves"],
                             info.summary.get("cyclic_positions"))


def verify_claims(store: TablebaseStore | None, game: str, progress: Progress | None = None,
                  boards: tuple[str, ...] = SMALLHOLDER_BOARDS, rules: tuple[Rules, ...] = (),
                  proofs: tuple[tuple[str | Path, str | Path | None], ...] = (), search: bool = True) -> list[Claim]:
    """The claims of ``game`` ("all" for every game); Smallholder claims on ``boards``,
    for the named rulesets or, given ``rules``, for those combinations (see
    `custom_claims`); then the first-player claims of the weak solutions in ``proofs``
    (see `proof_claims`; ``search`` as there). ``store`` may be None when the arguments
    need no table (`tables_needed` is empty: the proofs' claims alone)."""
    if store is None:
        if tables_needed(game, boards, rules):
            raise ValueError("the tables' claims need a store")
        return with_proofs([], proof_claims(proofs, progress, search))
    claims = []
    if game in ("sparro", "all"):
        tables = StoredSparroTables(store, progress)
        claims += [claim(tables) for claim in SPARRO_CLAIMS]
    if game in ("smallholder", "all"):
        stored = StoredSmallholderTables(store, progress)
        claims += custom_claims(stored, boards, rules) if rules else smallholder_claims(stored, boards)
        claims = with_proofs(claims, proof_claims(proofs, progress, search))
    return claims


def proof_claims(proofs: tuple[tuple[str | Path, str | Path | None], ...], progress: Progress | None = None,
                 search: bool = True, check_budget: int = DEFAULT_CHECK_BUDGET) -> list[Claim]:
    """The first-player claim of each weak solution: (proof file, its check journal or
    None), each checked first as by `tablebase check --proof` (a ServiceError if it is not
    a valid proof of the empty board). With ``search`` False the check takes the big
    leaves from the journal and refuses to search (`SolveNotAsked`)."""
    claims = []
    for proof, journal in proofs:
        report = check_proof_file(proof, check_budget, progress, journal=journal, search=search)
        try:
            claims.append(proved_first_player_claim(report, str(proof)))
        except ValueError as exc:
            raise ServiceError(f"{str(proof)!r}: {exc}") from None
    return claims


def with_proofs(claims: Sequence[Claim], proved: Sequence[Claim]) -> list[Claim]:
    """``claims`` with the weak solutions' claims: a claim the tables decide too is
    confirmed by the proof (`confirmed_claim`: a ServiceError if they disagree), the others
    are added at the end."""
    by_id = {claim.id: number for number, claim in enumerate(claims)}
    claims = list(claims)
    decided: set[str] = set()
    for claim in proved:
        if claim.id in decided:
            raise ServiceError(f"two proofs decide {claim.id}: give one of them")
        decided.add(claim.id)
        if claim.id not in by_id:
            by_id[claim.id] = len(claims)
            claims.append(claim)
            continue
        try:
            claims[by_id[claim.id]] = confirmed_claim(claims[by_id[claim.id]], claim)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
    return claims


def tables_needed(game: str, boards: tuple[str, ...] = SMALLHOLDER_BOARDS, rules: tuple[Rules, ...] = ()
                  ) -> list[tuple[GameDescription, Any]]:
    """The tables `verify_claims` reads for the same arguments: (description, rules object)."""
    needed: list[tuple[GameDescription, Any]] = []
    if game in ("sparro", "all"):
        needed += [(sparro.DESCRIPTION, sparro.DESCRIPTION.rules(variant)) for variant in SPARRO_VARIANTS_NEEDED]
    if game in ("smallholder", "all"):
        chosen = rules or tuple(smallholder.DESCRIPTION.named_rules())
        needed += [(smallholder.DESCRIPTION, smallholder.game_of(board, r)) for board in boards for r in chosen]
    return needed


def custom_claims(tables: StoredSmallholderTables, boards: tuple[str, ...], rules: tuple[Rules, ...]) -> list[Claim]:
    """The first-player claim of each combination on each board, then, when several are
    given, the board's comparison of them (as for the named rulesets)."""
    claims = []
    for board in boards:
        claims += [first_player_claim(tables, board, r.name) for r in rules]
        if len(rules) > 1:
            claims.append(rulesets_claim(tables, board, tuple(r.name for r in rules)))
    return claims


def stored_claims(store: TablebaseStore, boards: tuple[str, ...] = SMALLHOLDER_BOARDS
                  ) -> tuple[list[Claim], list[str]]:
    """The claims whose tables ``store`` holds, solving nothing (a read-only file will do),
    and for each group of claims left out, why and the command that would check it."""
    claims: list[Claim] = []
    left_out: list[str] = []
    try:
        tables = StoredSparroTables(store, solve=False)
        claims += [claim(tables) for claim in SPARRO_CLAIMS]
    except ServiceError as exc:
        left_out.append(f"Sparro claims not checked: {exc}; 'tablebase verify sparro' solves the tables they need")
    for board in boards:
        try:
            claims += smallholder_claims(StoredSmallholderTables(store, solve=False), (board,))
        except ServiceError as exc:
            left_out.append(f"Smallholder claims on {board} not checked: {exc}; "
                            f"'tablebase verify smallholder --board {board}' solves the tables they need")
    return claims, left_out
