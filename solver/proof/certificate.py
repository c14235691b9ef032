"""A weak solution as a file anyone can check: export and verification.

The export is TSV: a few ``#`` comment lines naming the game, the rules (full option
spec), the board, the root and the claim, then the header
``position	role	move	value	remoteness`` and one row per position of the winner's
strategy **as actually reached from the root** (not canonical forms):

* ``winner``: the winner is to move; ``move`` is the move the strategy plays;
* ``loser``: the loser is to move; every legal reply must lead to a row;
* ``leaf``: no move; the exact value and remoteness of the position (from the exact
  leaf solver), or a finished game (the side to move cannot move: ``loss`` in 0).

``value`` is for the side to move (``win``/``loss``); ``remoteness`` is the number of
plies to the end: exact at leaves, and at the other rows the length of the strategy
below the row against the longest defence (an upper bound on the true remoteness).

**A draw** (neither side can force a win: the weak solve disproved both) is proved by
both sides' strategies that do not lose, each under a ``# strategy: black does not lose
(holder B)`` line (then ``white ... (holder W)``) and its own column header, the claim
being ``a draw: neither side can force a win (draw)``. Their roles are ``holder`` (the
strategy's side is to move; ``move`` is its move), ``opponent`` (every reply must lead
to a row) and ``leaf`` (exact value, not a loss for the holder; remoteness empty for a
draw). The other rows have the value ``draw`` (the holder does not lose from there) and
no remoteness. Such a strategy may loop: endless play is a draw, which is all it claims.

`check_proof` verifies such a file with the per-position rules engine: every row reached
from the root, every move legal, every reply covered, no cycle (in a win's strategy),
the values and lengths consistent. Every leaf is re-solved exactly (value and remoteness) by the reference
subgraph search when it is small enough; a bigger one (``leaf_check``):

* ``search`` (default): re-solved exactly by the compiled exact search with another move
  order (no reply-count ordering) and a table of its own; its rules core agrees move for
  move with the reference engine (tests/test_smallholder_compiled.py);
* ``reference``: its value re-proved by the proof-number search with the opposite move
  order and reference-engine leaves (the rules engine alone; slow beyond ~15 empty cells,
  and the leaf's remoteness is not re-checked).

A leaf that is the image of an earlier leaf under a symmetry of the board must claim the
same and is not solved again (``image_leaves``). With an executor (a Dask cluster's), the
big leaves' compiled re-solves run on its workers (`recheck_leaf`).

A check of a proof with hundreds of big leaves takes hours. With a ``journal``
(`LeafJournal`), what each big leaf's re-check found is recorded as soon as it is found,
and a check run again with the same journal (rules, board and leaf check the same) takes
those findings from it instead of solving the leaves again: a stopped check resumes. A
journal's finding is compared with the row's claim like a fresh one.
"""

from __future__ import annotations

import functools
import time
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Protocol

from tablebase.games.base import DRAW, LOSS, WIN, NotationError
from tablebase.games.smallholder import COLOUR_NAMES, IllegalMoveError, Position, Smallholder, opponent, parse_rules
from tablebase.solver.probe import VALUE_NAMES, Outcome
from tablebase.solver.proof.executors import InlineExecutor, wait_first
from tablebase.solver.proof.tree import DISPROVED, LEAF, PROVED, Leaf

HEADER = ("position", "role", "move", "value", "remoteness")
WINNER, LOSER, LEAF_ROLE = "winner", "loser", "leaf"
#: the roles of a drawing strategy's rows: the side that does not lose, to move; the other
HOLDER, OPPONENT = "holder", "opponent"
#: how a draw's claim ends; each of its two strategies starts with such a comment line
DRAW_CLAIM = "a draw: neither side can force a win (draw)"
STRATEGY_PREFIX = "# strategy: "
#: Positions a leaf may have for `check_proof` to re-solve it with the reference engine.
DEFAULT_CHECK_BUDGET = 50_000
#: How `check_proof` checks a leaf too big for the reference re-solve (see the module doc).
LEAF_CHECKS = ("search", "reference")
DEFAULT_LEAF_CHECK = "search"
#: Transposition-table size of the compiled re-solve of big leaves.
CHECK_TABLE_BYTES = 1 << 30
#: The question a check journal's finding answers about a leaf re-solved by the search.
EXACT_QUESTION = "value and remoteness"


class LeafJournal(Protocol):
    """What the re-checks of big leaves found, kept across checks (see the module doc)."""

    #: where the journal is, for messages
    name: str

    def open(self, check: str) -> None:
        """Bind to the check described by ``check`` (rules, board, leaf check); an
        error if the journal holds another check's findings."""

    def recall(self, position: str, question: str) -> str | None:
        """The answer an earlier check found to ``question`` about ``position``, if any."""

    def record(self, position: str, question: str, answer: str) -> None:
        """Keep an answer for good (on disk before this returns)."""


class ProofError(ValueError):
    """A proof file that is malformed or does not prove its claim (the message says where)."""


class LeafSearchNeeded(Exception):
    """A check told not to search met a big leaf that its journal does not answer."""


@dataclass(frozen=True)
class Row:
    position: str
    role: str
    move: str
    value: str
    remoteness: int | None  # None: a draw leaf, or a row of a drawing strategy


# -- export ------------------------------------------------------------------------------


def proof_rows(game: Smallholder, root: Position, winner: str,
               settled: dict[int, tuple[int, str, int | None, int]],
               leaves: dict[int, Leaf],
               distance: Callable[[Position], int] | None = None) -> Iterator[Row]:
    """The rows of a proof that ``winner`` wins from ``root``, from a run's settled nodes
    (canonical key -> status, source, best child key, length) and the exact leaves
    (canonical key -> value, remoteness).

    The rows' remoteness is worked out here from the leaves up, not read from the stored
    lengths: a leaf whose value alone was proved (remoteness None) gets its exact
    remoteness from ``distance``. Raises ProofError if the stored nodes do not make a
    complete proof, if it loops, or if a leaf's remoteness is missing and no
    ``distance`` is given."""
    entries = _stored_strategy(game, root, winner, True, settled, leaves, distance)
    lengths = _strategy_lengths(entries, game.key(root))
    for exact, (row, _) in entries.items():
        yield replace(row, remoteness=lengths[exact])


def _stored_strategy(game: Smallholder, root: Position, side: str, wins: bool,
                     settled: dict[int, tuple[int, str, int | None, int]], leaves: dict[int, Leaf],
                     distance: Callable[[Position], int] | None) -> dict[int, tuple[Row, list[int]]]:
    """``side``'s strategy from ``root`` as a run stored it, by exact key in order: each
    row (interior rows' remoteness 0 for a win, None for a draw, worked out by the caller)
    and the exact keys of the rows it leads to. ``wins``: from a run that proved
    ``side``'s win (its move: the stored best child); else from one that disproved the
    other side's win, ``side`` not losing (its move: the stored refutation, or if that
    was a repetition any move to a position the run disproved too). At the other side's
    turn every reply. ProofError if the stored nodes make no such strategy."""
    what = "proof" if wins else "drawing strategy"
    status = PROVED if wins else DISPROVED
    side_role, other_role = (WINNER, LOSER) if wins else (HOLDER, OPPONENT)
    side_value, other_value = (VALUE_NAMES[WIN], VALUE_NAMES[LOSS]) if wins else (VALUE_NAMES[DRAW],) * 2
    length = 0 if wins else None

    def fits(pos: Position, value: int) -> bool:  # a leaf value the strategy may end on
        for_side = value if pos.to_move == side else -value
        return for_side == WIN if wins else for_side != LOSS

    def settled_here(child: Position) -> bool:  # a child the run settled as the strategy needs
        key = game.canonical_key(child)
        known, leaf = settled.get(key), leaves.get(key)
        return (not game.moves(child) and fits(child, LOSS) or known is not None and known[0] == status
                and known[1] != LEAF or leaf is not None and fits(child, leaf[0]))

    entries: dict[int, tuple[Row, list[int]]] = {}
    stack = [root]
    while stack:
        pos = stack.pop()
        exact = game.key(pos)
        if exact in entries:
            continue
        text = game.format(pos)
        children = game.children(pos)
        key = game.canonical_key(pos)
        leaf = (LOSS, 0) if not children else leaves.get(key)
        if leaf is not None:  # a finished game, or an exact result (possibly of another run of these rules)
            if not fits(pos, leaf[0]):
                raise ProofError(f"the stored search holds no {what} for {text!r}: it is a "
                                 f"{VALUE_NAMES[leaf[0]]} for the side to move")
            entries[exact] = (_leaf_row(pos, text, leaf[0], leaf[1], distance), [])
            continue
        record = settled.get(key)
        if record is None or record[0] != status or record[1] == LEAF:
            raise ProofError(f"the stored search holds no {what} for {text!r}: the run did not settle it")
        if pos.to_move != side:
            entries[exact] = (Row(text, other_role, "", other_value, length), [game.key(c) for _, c in children])
            stack.extend(child for _, child in reversed(children))
            continue
        chosen = [(move, child) for move, child in children if game.canonical_key(child) == record[2]]
        if not chosen and not wins:
            chosen = [(move, child) for move, child in children if settled_here(child)]
        if not chosen:
            raise ProofError(f"the stored move of {text!r} is not one of its moves")
        move, child = chosen[0]
        entries[exact] = (Row(text, side_role, game.move_name(move.cell), side_value, length), [game.key(child)])
        stack.append(child)
    return entries


def _leaf_row(pos: Position, text: str, value: int, remoteness: int | None,
              distance: Callable[[Position], int] | None) -> Row:
    """A leaf's row: its exact value and, unless a draw, its remoteness (from ``distance``
    when the leaf solver proved the value alone)."""
    if value != DRAW and remoteness is None:
        if distance is None:
            raise ProofError(f"the leaf {text!r} has a proved value but no remoteness")
        remoteness = distance(pos)
    return Row(text, LEAF_ROLE, "", VALUE_NAMES[value], None if value == DRAW else remoteness)


def _strategy_lengths(entries: dict[int, tuple[Row, list[int]]], root: int) -> dict[int, int]:
    """Plies to the end of each row's strategy against the longest defence: a leaf's own
    remoteness, a winner row one more than its move's row, a loser row one more than its
    longest reply's (depth-first from the leaves up; ProofError on a loop)."""
    lengths: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[int, int]] = [(root, 0)]
    on_path.add(root)
    while stack:
        key, next_child = stack[-1]
        row, below = entries[key]
        if next_child < len(below):
            stack[-1] = (key, next_child + 1)
            child = below[next_child]
            if child in on_path:
                raise ProofError(f"the stored strategy loops: it comes back to {entries[child][0].position!r}")
            if child not in lengths:
                on_path.add(child)
                stack.append((child, 0))
            continue
        stack.pop()
        on_path.discard(key)
        lengths[key] = (row.remoteness or 0) if not below else 1 + max(lengths[child] for child in below)
    return lengths


def proof_header(game: Smallholder, root: Position, winner: str, notes: Iterable[str] = ()) -> list[str]:
    lines = [f"# tablebase proof: The Smallholder, {game.rules_name}",
             f"# rules: {game.rules.spec}",
             f"# board: {game.board.name}",
             f"# root: {game.format(root)}",
             f"# claim: {f'{COLOUR_NAMES[winner]} wins (winner {winner})' if winner else DRAW_CLAIM}"]
    lines += [f"# {note}" for note in notes]
    lines.append("\t".join(HEADER))
    return lines


def format_rows(rows: Iterable[Row]) -> Iterator[str]:
    for row in rows:
        remoteness = "" if row.remoteness is None else str(row.remoteness)
        yield "\t".join((row.position, row.role, row.move, row.value, remoteness))


def holding_rows(game: Smallholder, root: Position, holder: str,
                 settled: dict[int, tuple[int, str, int | None, int]],
                 leaves: dict[int, Leaf],
                 distance: Callable[[Position], int] | None = None) -> Iterator[Row]:
    """The rows of a strategy by which ``holder`` does not lose from ``root``, from a run
    that disproved the other side's win (its settled nodes, as for `proof_rows`): at the
    holder's turn the move of the stored refutation, or if the refutation was a
    repetition any move to a position the run disproved as well; at the other side's turn
    every reply. Play may go round for ever (a draw, not a loss), so the strategy may
    loop. Its rows' value is ``draw`` (the holder does not lose from there) and their
    remoteness empty; a leaf has its exact value (a draw, or a win for the holder) and,
    unless a draw, its remoteness. ProofError if the stored nodes make no such strategy."""
    entries = _stored_strategy(game, root, holder, False, settled, leaves, distance)
    yield from (row for row, _ in entries.values())


def draw_lines(game: Smallholder, root: Position, strategies: dict[str, list[Row]],
               notes: Iterable[str] = ()) -> Iterator[str]:
    """The lines of a draw's proof: the header, then each side's drawing strategy under a
    ``# strategy: ...`` line and the column header."""
    header = proof_header(game, root, "", notes)
    yield from header[:-1]
    for holder, rows in strategies.items():
        yield f"{STRATEGY_PREFIX}{COLOUR_NAMES[holder]} does not lose (holder {holder})"
        yield header[-1]
        yield from format_rows(rows)


# -- check -------------------------------------------------------------------------------


@dataclass
class CheckReport:
    rules: str
    board: str
    root: str
    winner: str  # "" for a draw
    rows: int = 0
    draw: bool = False  # a draw's proof: both sides' strategies that do not lose
    winner_rows: int = 0
    loser_rows: int = 0
    holder_rows: int = 0  # a draw's: rows where a strategy's side moves, of both strategies
    opponent_rows: int = 0
    leaves: int = 0
    terminal_leaves: int = 0
    resolved_leaves: int = 0  # re-solved exactly (value and remoteness) by the reference engine
    searched_leaves: int = 0  # too big: re-solved exactly by the compiled search, another move order
    reproved_leaves: int = 0  # too big: value re-proved by the proof-number search on the reference engine
    journal_leaves: int = 0  # too big: what an earlier check found, taken from the check journal
    #: images under a symmetry of the board of a leaf checked before them (the same claim
    #: required, not solved again)
    image_leaves: int = 0
    depth: int = 0  # the root's remoteness as a win's proof claims it
    #: the full option spec of the rules (``rules`` is their name)
    spec: str = ""
    #: a win's: the winner's move at the root ("" when the loser moves there: every reply is covered)
    root_move: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        leaves = (f"{self.leaves:,} leaves: {self.terminal_leaves:,} finished games, {self.resolved_leaves:,} "
                  f"re-solved by the reference engine, {self.searched_leaves:,} re-solved by the compiled search, "
                  f"{self.reproved_leaves:,} re-proved"
                  + (f", {self.journal_leaves:,} as the check journal holds them" if self.journal_leaves else "")
                  + (f", {self.image_leaves:,} as symmetric images of others" if self.image_leaves else "")
                  + f"), checked in {self.seconds:.1f} s")
        if self.draw:
            return (f"a valid proof that {self.root!r} is a draw under {self.rules} (each side has a strategy "
                    f"that does not lose): {self.rows:,} rows ({self.holder_rows:,} holder, "
                    f"{self.opponent_rows:,} opponent, " + leaves)
        length = (f"in at most {self.depth} plies" if self.remoteness_checked else
                  f"(in at most {self.depth} plies as the proof claims: the lengths of its {self.reproved_leaves:,} "
                  f"re-proved leaves are not re-checked, their values are)")
        return (f"a valid proof that {COLOUR_NAMES[self.winner]} wins {self.root!r} under {self.rules} {length}: "
                f"{self.rows:,} rows ({self.winner_rows:,} winner, {self.loser_rows:,} loser, " + leaves)

    @property
    def remoteness_checked(self) -> bool:
        """Whether the claimed length is checked: every leaf's remoteness was re-solved (a
        leaf whose value alone was re-proved, `--leaf-check reference`, leaves it a claim)."""
        return self.reproved_leaves == 0

    def as_json(self) -> dict:
        return {"rules": self.rules, "board": self.board, "root": self.root, "winner": self.winner or None,
                "draw": self.draw, "rows": self.rows, "winner_rows": self.winner_rows, "loser_rows": self.loser_rows,
                "holder_rows": self.holder_rows, "opponent_rows": self.opponent_rows,
                "leaves": self.leaves, "terminal_leaves": self.terminal_leaves,
                "resolved_leaves": self.resolved_leaves, "searched_leaves": self.searched_leaves,
                "reproved_leaves": self.reproved_leaves, "journal_leaves": self.journal_leaves,
                "image_leaves": self.image_leaves, "spec": self.spec, "root_move": self.root_move or None,
                "remoteness": None if self.draw else self.depth, "remoteness_checked": self.remoteness_checked,
                "seconds": round(self.seconds, 3), "ok": True}


#: (holder, rows): one section of a proof file; holder "" for a win's single strategy
Section = tuple[str, list[tuple[int, Row]]]


def _parse(lines: Iterable[str]) -> tuple[dict[str, str], list[Section]]:
    meta: dict[str, str] = {}
    sections: list[Section] = []
    header_due = True  # a column header comes next (the first one, or after a strategy line)
    holder = ""
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line.startswith(STRATEGY_PREFIX):
            holder = line[-2] if line.endswith(("(holder B)", "(holder W)")) else ""
            if not holder or sections and not sections[-1][0]:
                raise ProofError(f"line {number}: a strategy line must end with '(holder B)' or '(holder W)' "
                                 f"and come before its column header: {line[:80]!r}")
            header_due = True
            continue
        if line.startswith("#"):
            name, sep, value = line[1:].partition(":")
            if sep and not sections:
                meta.setdefault(name.strip(), value.strip())
            continue
        fields = line.split("\t")
        if header_due:
            if tuple(fields) != HEADER:
                raise ProofError(f"line {number}: expected the header {'<tab>'.join(HEADER)!r}: {line[:80]!r}")
            sections.append((holder, []))
            header_due = False
            continue
        if len(fields) != len(HEADER):
            raise ProofError(f"line {number}: expected {len(HEADER)} tab-separated fields, found {len(fields)}: "
                             f"{line[:80]!r}")
        position, role, move, value, remoteness = fields
        roles = (HOLDER, OPPONENT, LEAF_ROLE) if holder else (WINNER, LOSER, LEAF_ROLE)
        if role not in roles:
            raise ProofError(f"line {number}: unknown role (expected {', '.join(roles[:2])} or leaf): {role!r}")
        if value not in ("win", "loss", "draw"):
            raise ProofError(f"line {number}: unknown value (expected win, loss or draw): {value!r}")
        plies: int | None = None
        if remoteness or not holder:
            try:
                plies = int(remoteness)
                if plies < 0:
                    raise ValueError
            except ValueError:
                raise ProofError(f"line {number}: remoteness must be a non-negative integer: {remoteness!r}") from None
        sections[-1][1].append((number, Row(position, role, move, value, plies)))
    if not sections:
        raise ProofError("no header line 'position<tab>role<tab>move<tab>value<tab>remoteness': not a proof file")
    for name in ("rules", "board", "root", "claim"):
        if name not in meta:
            raise ProofError(f"missing comment line '# {name}: ...' before the header")
    return meta, sections


def check_proof(lines: Iterable[str], check_budget: int = DEFAULT_CHECK_BUDGET,
                progress: Callable[[str], None] | None = None, leaf_check: str = DEFAULT_LEAF_CHECK,
                journal: LeafJournal | None = None, executor: Executor | None = None, slots: int = 1,
                search: bool = True) -> CheckReport:
    """Verify a proof file (see the module doc); ProofError names the first problem. With an
    ``executor`` (`executors.open_executor`: its workers and ``slots``), the big leaves'
    compiled re-solves run on its workers, one thread each, ``2 * slots`` at a time. With
    ``search`` False, a big leaf that is neither an image of an earlier one nor answered
    by the journal raises `LeafSearchNeeded` instead of being re-solved (a check that
    takes seconds or nothing)."""
    if leaf_check not in LEAF_CHECKS:
        raise ValueError(f"leaf_check must be one of {', '.join(LEAF_CHECKS)}, not {leaf_check!r}")
    started = time.perf_counter()
    meta, sections = _parse(lines)
    try:
        game = Smallholder(meta["board"], parse_rules(meta["rules"]))
    except (NotationError, KeyError, ValueError) as exc:
        raise ProofError(f"the proof's rules or board are not valid ({exc})") from None
    title = meta.get("tablebase proof")
    if title is not None and title.rpartition(", ")[2] != game.rules_name:
        raise ProofError(f"the title names other rules than the '# rules:' and '# board:' lines "
                         f"({game.rules_name}): {title!r}")
    claim = meta["claim"]
    winner = claim[-2] if claim.endswith(("(winner B)", "(winner W)")) else ""
    if not winner and claim != DRAW_CLAIM:
        raise ProofError(f"the claim must end with '(winner B)' or '(winner W)', or be {DRAW_CLAIM!r}: {claim!r}")
    try:
        root = game.parse(meta["root"])
    except NotationError as exc:
        raise ProofError(f"the proof's root is not a position of {game.rules_name} ({exc})") from None
    holders = [holder for holder, _ in sections]
    if winner and holders != [""]:
        raise ProofError("a win's proof holds one strategy, with no '# strategy:' line")
    if not winner and sorted(holders) != ["B", "W"]:
        raise ProofError(f"a draw's proof holds two strategies, '(holder B)' and '(holder W)': found "
                         f"{', '.join(h or 'a win' for h in holders)}")
    if journal is not None:
        journal.open(f"rules {game.rules.spec}, board {game.board.name}, leaf check {leaf_check}")
    report = CheckReport(game.rules_name, game.board.name, game.format(root), winner,
                         rows=sum(len(rows) for _, rows in sections), draw=not winner, spec=game.rules.spec)
    leaf_checks: list[LeafCheck] = []
    if winner:
        report.depth = _check_win(game, root, winner, _rows_by_position(game, sections[0][1]), report, leaf_checks)
    else:
        for holder, rows in sections:
            _check_holding(game, root, holder, _rows_by_position(game, rows), report, leaf_checks)
    _check_leaves(game, leaf_checks, check_budget, leaf_check, report, progress, journal, executor, slots, search)
    report.seconds = time.perf_counter() - started
    return report


#: a value's name in a proof file -> the value
VALUES = {name: value for value, name in VALUE_NAMES.items()}


def _claimed(row: Row) -> Outcome:
    """A leaf row's claim: its value for the side to move and its remoteness."""
    return Outcome(VALUES[row.value], row.remoteness)


#: (line number, row, position, the colour whose win the leaf proves or refutes, True if proves)
LeafCheck = tuple[int, Row, Position, str, bool]


def _outcome_text(outcome: Outcome) -> str:
    return "a draw" if outcome.remoteness is None else f"a {outcome.name} in {outcome.remoteness}"


def _rows_by_position(game: Smallholder, rows: list[tuple[int, Row]]) -> dict[int, tuple[int, Row]]:
    table: dict[int, tuple[int, Row]] = {}
    for number, row in rows:
        try:
            pos = game.parse(row.position)
        except NotationError as exc:
            raise ProofError(f"line {number}: {exc}") from None
        exact = game.key(pos)
        if exact in table:
            raise ProofError(f"line {number}: position already given on line {table[exact][0]}: {row.position!r}")
        table[exact] = (number, row)
    return table


def _unreached(table: dict[int, tuple[int, Row]], reached: Iterable[int]) -> None:
    missing = set(table) - set(reached)
    if missing:
        first = min(table[key][0] for key in missing)
        raise ProofError(f"line {first}: {len(missing)} row(s) not reached from the root by the strategy")


def _check_win(game: Smallholder, root: Position, winner: str, table: dict[int, tuple[int, Row]],
               report: CheckReport, leaf_checks: list[LeafCheck]) -> int:
    """Walk a win's strategy (no loops allowed); the root's length."""
    if game.key(root) not in table:
        raise ProofError(f"no row for the root position: {game.format(root)!r}")
    # depth-first over the strategy: grey = on the current path (a way back there is a loop)
    remoteness: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Position, Iterator[Position] | None]] = [(root, None)]
    root_row = table[game.key(root)][1]
    report.root_move = root_row.move if root_row.role == WINNER else ""
    while stack:
        pos, todo = stack[-1]
        exact = game.key(pos)
        number, row = table[exact]
        if todo is None:
            on_path.add(exact)
            todo = iter(_successors(game, pos, row, number, winner, report, leaf_checks))
            stack[-1] = (pos, todo)
        child = next(todo, None)
        if child is not None:
            child_exact = game.key(child)
            if child_exact in on_path:
                raise ProofError(f"line {number}: the strategy loops: a move from {row.position!r} returns to "
                                 f"line {table[child_exact][0]} (endless play is a draw, not a win)")
            if child_exact not in table:
                what = f"the move {row.move}" if row.role == WINNER else "a reply"
                raise ProofError(f"line {number}: {what} from {row.position!r} reaches {game.format(child)!r}, "
                                 f"which has no row (a reply not covered)")
            if child_exact not in remoteness:
                stack.append((child, None))
            continue
        stack.pop()
        on_path.discard(exact)
        remoteness[exact] = _verify_length(game, pos, row, number, remoteness)
    _unreached(table, remoteness)
    return remoteness[game.key(root)]


def _check_holding(game: Smallholder, root: Position, holder: str, table: dict[int, tuple[int, Row]],
                   report: CheckReport, leaf_checks: list[LeafCheck]) -> None:
    """Walk a strategy by which ``holder`` does not lose (it may loop: endless play is a draw)."""
    if game.key(root) not in table:
        raise ProofError(f"no row for the root position in {COLOUR_NAMES[holder]}'s strategy: {game.format(root)!r}")
    seen: set[int] = set()
    stack = [root]
    while stack:
        pos = stack.pop()
        exact = game.key(pos)
        if exact in seen:
            continue
        seen.add(exact)
        number, row = table[exact]
        for child in _holding_successors(game, pos, row, number, holder, report, leaf_checks):
            if game.key(child) not in table:
                what = f"the move {row.move}" if row.role == HOLDER else "a reply"
                raise ProofError(f"line {number}: {what} from {row.position!r} reaches {game.format(child)!r}, "
                                 f"which has no row (a reply not covered)")
            stack.append(child)
    _unreached(table, seen)


def _holding_successors(game: Smallholder, pos: Position, row: Row, number: int, holder: str, report: CheckReport,
                        leaf_checks: list[LeafCheck]) -> list[Position]:
    moves = game.moves(pos)
    other = opponent(holder)
    if row.role == LEAF_ROLE:
        report.leaves += 1
        if row.move:
            raise ProofError(f"line {number}: a leaf row has no move: {row.move!r}")
        losing = "loss" if pos.to_move == holder else "win"
        if row.value == losing:
            raise ProofError(f"line {number}: a leaf of {COLOUR_NAMES[holder]}'s strategy must not be lost for "
                             f"{COLOUR_NAMES[holder]}: {row.position!r}")
        if (row.value == "draw") != (row.remoteness is None):
            raise ProofError(f"line {number}: a leaf has a remoteness unless it is a draw: {row.position!r}")
        if not moves:
            report.terminal_leaves += 1
            if row.remoteness != 0 or row.value != "loss":
                raise ProofError(f"line {number}: a finished game is a loss in 0: {row.position!r}")
        else:
            leaf_checks.append((number, row, pos, other, False))
        return []
    if not moves:
        raise ProofError(f"line {number}: the game is over here, so the row must be a leaf: {row.position!r}")
    if row.value != "draw" or row.remoteness is not None:
        raise ProofError(f"line {number}: a row of a drawing strategy has the value draw and no remoteness: "
                         f"{row.position!r}")
    if row.role == HOLDER:
        report.holder_rows += 1
        if pos.to_move != holder:
            raise ProofError(f"line {number}: a holder row needs {COLOUR_NAMES[holder]} to move: {row.position!r}")
        return _played(game, pos, row, number)
    report.opponent_rows += 1
    return _every_reply(game, pos, row, number, other, "an opponent")


def _successors(game: Smallholder, pos: Position, row: Row, number: int, winner: str, report: CheckReport,
                leaf_checks: list[LeafCheck]) -> list[Position]:
    loser = opponent(winner)
    moves = game.moves(pos)
    if row.role == LEAF_ROLE:
        report.leaves += 1
        if row.move:
            raise ProofError(f"line {number}: a leaf row has no move: {row.move!r}")
        expected = "win" if pos.to_move == winner else "loss"
        if row.value != expected:
            raise ProofError(f"line {number}: a leaf of this proof must be a {expected} for "
                             f"{COLOUR_NAMES[pos.to_move]} to move, not a {row.value}: {row.position!r}")
        if not moves:
            report.terminal_leaves += 1
            if row.remoteness != 0:
                raise ProofError(f"line {number}: a finished game has remoteness 0: {row.position!r}")
        else:
            leaf_checks.append((number, row, pos, winner, True))
        return []
    if not moves:
        raise ProofError(f"line {number}: the game is over here, so the row must be a leaf: {row.position!r}")
    if row.role == WINNER:
        report.winner_rows += 1
        if pos.to_move != winner:
            raise ProofError(f"line {number}: a winner row needs {COLOUR_NAMES[winner]} to move: {row.position!r}")
        if row.value != "win":
            raise ProofError(f"line {number}: a winner row has the value win: {row.value!r}")
        return _played(game, pos, row, number)
    report.loser_rows += 1
    if row.value != "loss":
        raise ProofError(f"line {number}: a loser row has the value loss: {row.value!r}")
    return _every_reply(game, pos, row, number, loser, "a loser")


def _played(game: Smallholder, pos: Position, row: Row, number: int) -> list[Position]:
    """The position the row's move leads to (ProofError if it is not a legal move)."""
    try:
        return [game.play(pos, game.parse_move(row.move))]
    except (NotationError, IllegalMoveError):
        raise ProofError(f"line {number}: illegal move in {row.position!r} under {game.rules_name}: "
                         f"{row.move!r}") from None


def _every_reply(game: Smallholder, pos: Position, row: Row, number: int, mover: str, role: str) -> list[Position]:
    """Every reply of a row where ``mover`` must be to move and no move is given."""
    if pos.to_move != mover:
        raise ProofError(f"line {number}: {role} row needs {COLOUR_NAMES[mover]} to move: {row.position!r}")
    if row.move:
        raise ProofError(f"line {number}: {role} row has no move (every reply is covered): {row.move!r}")
    return [child for _, child in game.children(pos)]


def _verify_length(game: Smallholder, pos: Position, row: Row, number: int, remoteness: dict[int, int]) -> int:
    if row.role == LEAF_ROLE:
        if row.remoteness is None:
            raise ProofError(f"line {number}: a leaf of a win's proof has a remoteness: {row.position!r}")
        return row.remoteness
    if row.role == WINNER:
        expected = remoteness[game.key(game.play(pos, game.parse_move(row.move)))] + 1
    else:
        expected = max(remoteness[game.key(child)] for _, child in game.children(pos)) + 1
    if row.remoteness != expected:
        raise ProofError(f"line {number}: remoteness {row.remoteness} does not follow from the rows below "
                         f"(expected {expected}): {row.position!r}")
    return expected


@functools.lru_cache(maxsize=1)
def _recheck_search(board: str, rules: str) -> Any:
    """A check worker's one compiled search (the latest rules'), on one thread, kept from
    leaf to leaf like the jobs' (`jobs._exact_search`)."""
    from tablebase.solver.smallholder_exact import ExactSearch  # compiles on first use

    return ExactSearch(Smallholder(board, rules), table_bytes=CHECK_TABLE_BYTES, mobility=False, threads=1)


def recheck_leaf(board: str, rules: str, position: str, claim: Outcome) -> Outcome | None:
    """A big leaf re-solved exactly by the compiled search with the check's move order,
    from the row's ``claim`` (the function check workers run: `check_proof` with an
    executor)."""
    search = _recheck_search(board, rules)
    return search.solve(search.game.parse(position), guess=claim)


def _check_leaves(game: Smallholder, leaf_checks: list[LeafCheck], check_budget: int, leaf_check: str,
                  report: CheckReport, progress: Callable[[str], None] | None, journal: LeafJournal | None,
                  executor: Executor | None = None, slots: int = 1, search_allowed: bool = True) -> None:
    _LeafChecker(game, leaf_checks, check_budget, leaf_check, report, progress, journal, executor, slots,
                 search_allowed).run()


class _LeafChecker:
    """The leaves of one check, in the proof's order (see `check_proof`): each an image of
    an earlier one (the same claim required), taken from the journal, re-solved by the
    reference engine, or by the compiled search (in-process, or on the executor's workers,
    ``2 * slots`` at a time), or its value re-proved; progress with the time left."""

    def __init__(self, game: Smallholder, leaf_checks: list[LeafCheck], check_budget: int, leaf_check: str,
                 report: CheckReport, progress: Callable[[str], None] | None, journal: LeafJournal | None,
                 executor: Executor | None, slots: int, search_allowed: bool) -> None:
        from tablebase.solver.smallholder_search import LocalSearch  # the driver imports this package's tree

        self.game, self.leaf_checks, self.check_budget, self.leaf_check = game, leaf_checks, check_budget, leaf_check
        self.report, self.progress, self.journal = report, progress, journal
        self.executor, self.slots, self.search_allowed = executor, slots, search_allowed
        self.search = LocalSearch(game, node_budget=check_budget)
        self.compiled_search: Any = None
        # the compiled re-solves handed to the executor's workers
        self.pending: dict[Future, LeafCheck] = {}
        # with the compiled search at hand, a leaf with as many empty cells as one that was
        # too big for the reference re-solve goes straight to it (a failed try costs seconds)
        self.too_big_from = game.board.size + 1
        self.last = time.perf_counter()
        self.checked = self.worked = 0  # leaves checked; of them, those not taken from the journal
        self.working_since: float | None = None  # when the first leaf not in the journal was taken on
        # (canonical key, question) -> the line of the first leaf of that key and its answer: a
        # leaf that is an image of it under a symmetry of the board must claim the same, and is
        # not solved again
        self.firsts: dict[tuple[int, str], tuple[int, str]] = {}
        self.keys = [game.canonical_key(pos) for _, _, pos, _, _ in leaf_checks]

    def run(self) -> None:
        for done, leaf in enumerate(self.leaf_checks, start=1):
            if not self._known(done, leaf):
                self._re_solve(done, leaf)
            if self.pending:
                self._collect(block=False)
            self._report_progress(final=done == len(self.leaf_checks) and not self.pending)
        while self.pending:
            self._collect(block=True)
            self._report_progress(final=not self.pending)

    def _question_of(self, row: Row, attacker: str, wins: bool) -> tuple[str, str]:
        """What a big leaf's re-check answers as the journal keeps it, and the row's answer."""
        if self.leaf_check == "search":
            return EXACT_QUESTION, _outcome_text(_claimed(row))
        return f"a win for {COLOUR_NAMES[attacker]}?", "yes" if wins else "no"

    def _known(self, done: int, leaf: LeafCheck) -> bool:
        """Whether the leaf is checked without a solve: as an image of an earlier leaf, or
        from the journal (its claim compared with theirs)."""
        number, row, _pos, attacker, wins = leaf
        question, claim = self._question_of(row, attacker, wins)
        first_number, first_claim = self.firsts.setdefault((self.keys[done - 1], question), (number, claim))
        if first_number != number:
            if first_claim != claim:
                raise ProofError(f"line {number}: the leaf claims {claim!r} but is an image under a symmetry of the "
                                 f"board of the leaf of line {first_number}, which claims {first_claim!r}: "
                                 f"{row.position!r}")
            self.report.image_leaves += 1
            self.checked += 1
            return True
        journal = self.journal
        recalled = None if journal is None else journal.recall(row.position, question)
        if journal is None or recalled is None:
            return False
        if recalled != claim:
            raise ProofError(f"line {number}: an earlier check found {question!r} of the leaf to be {recalled!r}, "
                             f"not {claim!r} (the check journal {journal.name!r}): {row.position!r}")
        self.report.journal_leaves += 1
        self.checked += 1
        return True

    def _re_solve(self, done: int, leaf: LeafCheck) -> None:
        """Re-solve a leaf: by the reference engine when small enough, else by the compiled
        search (or, with the leaf check ``reference``, re-prove its value)."""
        game = self.game
        number, row, pos, _attacker, _wins = leaf
        if self.working_since is None:
            self.working_since = time.perf_counter()
        empty = game.board.size - (pos.black | pos.white).bit_count()
        outcome = None
        if self.leaf_check == "reference" or empty < self.too_big_from:
            outcome = self.search.solve(pos)
            self.search.table.clear()
        if outcome is None and not self.search_allowed:
            where = "" if self.journal is None else f" in the check journal {self.journal.name!r}"
            raise LeafSearchNeeded(f"line {number}: the leaf ({empty} empty cells) is too big for the reference "
                                   f"re-solve and its re-check is not{where or ' in a check journal'}")
        if outcome is not None or self.leaf_check != "search":
            self._conclude(leaf, outcome, searched=False)
            return
        self.too_big_from = min(self.too_big_from, empty)
        if self.executor is not None:
            while len(self.pending) >= 2 * self.slots:
                self._collect(block=True)
                self._report_progress()
            self.pending[self.executor.submit(recheck_leaf, game.board.name, game.rules.spec, row.position,
                                              _claimed(row))] = leaf
            return
        if self.compiled_search is None:
            from tablebase.solver.smallholder_exact import ExactSearch  # compiles on first use

            # without the reply-count ordering the jobs' search used: another move order
            self.compiled_search = ExactSearch(game, table_bytes=CHECK_TABLE_BYTES, mobility=False)
        progress = self.progress
        # from the claim (a start of MTD(f), the answer the same whatever it is)
        outcome = self.compiled_search.solve(pos, guess=_claimed(row), progress=None if progress is None else (
            lambda nodes, depth, line: progress(f"re-solving {self._which(done, number)}: {nodes:,} positions")))
        self._conclude(leaf, outcome, searched=True)

    def _which(self, done: int, number: int) -> str:
        """A leaf as progress names it: its place among the leaves and its line."""
        return f"leaf {done:,} of {len(self.leaf_checks):,} (line {number})"

    def _conclude(self, leaf: LeafCheck, outcome: Outcome | None, searched: bool) -> None:
        """Judge a leaf's re-solve (``outcome``, None: not settled, then its value is re-proved)."""
        number, row, pos, attacker, wins = leaf
        report, journal = self.report, self.journal
        claimed = _claimed(row)
        question = self._question_of(row, attacker, wins)[0]
        if searched:
            report.searched_leaves += 1
            if journal is not None and outcome is not None:
                journal.record(row.position, question, _outcome_text(outcome))
        elif outcome is not None:
            report.resolved_leaves += 1
        if outcome is not None:
            if outcome != claimed:
                raise ProofError(f"line {number}: the leaf is {_outcome_text(outcome)}, not "
                                 f"{_outcome_text(claimed)}: {row.position!r}")
        else:
            # a finished game is the rules' to say, whatever else is re-checked
            if claimed.remoteness == 0 and self.game.terminal_value(pos) is None:
                raise ProofError(f"line {number}: the leaf claims a finished game ({_outcome_text(claimed)}) but "
                                 f"the side to move has legal moves: {row.position!r}")
            # the value alone: the attacker's win proved (a win's leaf) or disproved (a draw's)
            from tablebase.solver.proof.driver import ProofSearch, SearchSettings  # it imports this package

            settings = SearchSettings(node_budget=self.check_budget, solver="reference", order="last")
            progress, which = self.progress, self._which(self.checked + 1, number)  # leaves are re-proved in turn
            result = ProofSearch(self.game, pos, attacker, InlineExecutor(), 1, settings, progress=None if (
                progress is None) else lambda p: progress(
                    f"re-proving {which}: {p.settled:,} positions settled, {p.nodes:,} nodes, {p.seconds:.0f} s")).run()
            if result.status in ("proved", "disproved") and journal is not None:
                journal.record(row.position, question, "yes" if result.status == "proved" else "no")
            if result.status != ("proved" if wins else "disproved"):
                raise ProofError(f"line {number}: the leaf could not be re-proved {'a' if wins else 'not a'} win "
                                 f"for {COLOUR_NAMES[attacker]} ({result.status}): {row.position!r}")
            report.reproved_leaves += 1
        self.checked += 1
        self.worked += 1

    def _collect(self, block: bool) -> None:
        """Conclude the workers' re-solves that are done (with ``block``, wait for one)."""
        done, _ = wait_first(list(self.pending), None if block else 0)
        for future in done:
            self._conclude(self.pending.pop(future), future.result(), searched=True)

    def _report_progress(self, final: bool = False) -> None:
        if self.progress is None or not (final or time.perf_counter() - self.last > 2):
            return
        self.last = time.perf_counter()
        # the leaves left to solve (those being solved and those not met yet): an image of a
        # leaf met before costs nothing
        pending = self.pending
        left = len(pending) + len(set(self.keys[self.checked + len(pending):]) - {key for key, _ in self.firsts})
        pace = ""
        if self.worked and left and self.working_since is not None:
            minutes = (self.last - self.working_since) / self.worked * left / 60
            pace = f" (about {minutes:.0f} min left at the pace so far)"
        busy = f", {len(pending):,} being re-solved" if pending else ""
        self.progress(f"checked {self.checked:,} of {len(self.leaf_checks):,} leaves{busy}{pace}")
