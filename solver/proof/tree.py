"""The master proof-number graph over the opening of The Smallholder.

One goal at a time: "the attacker wins" (the attacker is a colour). Positions where the
attacker moves are OR nodes, the others AND nodes. Nodes are canonical keys, so
transpositions and symmetric positions share one node (a directed graph, not a tree).

Each node is in one of these states:

* ``FRONTIER``: created, not yet tried; it becomes a job for the exact leaf solver;
* ``PENDING``: its job is running;
* ``TRIED``: a job ran out of its largest budget on it before (a resumed run knows
  this), so it is expanded at once without a new job (a node a job ran out of a smaller
  budget on stays ``FRONTIER`` and keeps that budget in ``tried``: its next job gets more);
* ``EXPANDED``: its children are nodes of the graph; its numbers come from theirs;
* ``SETTLED``: proved or disproved, for good.

Proof and disproof numbers are the standard ones (OR: pn = min, dn = sum; AND: the
reverse), initialised from the number of legal moves. A pending node counts as won by
its side to move while its job runs (pn = 0 at an OR node, dn = 0 at an AND node),
so the next selection looks for the most-proving node elsewhere: at an AND node the
other replies (all of them are needed anyway), at an OR node the other moves.

**Cycles.** Captures can bring a position back, and endless play is a draw
(docs/smallholder.md, Decisions), i.e. not a win for the attacker. An edge that would
close a cycle among the graph's nodes (its child is already an ancestor of its parent) is
not added; it is a *loop edge*, and counts as a disproved child. Such a disproof is a fact
about a path, not about a position, so it is marked *tainted* and so is every disproof
relying on it; a tainted disproof is never stored, and a tainted disproof of the root
answers "unknown", never "loss". Proofs are never tainted: a proof uses no loop edge (a loop edge
only ever counts against the attacker), so it is a finite strategy that cannot repeat a
position, whichever path reached it, and its leaves carry exact values from the leaf
solver, which solves cycles exactly. Without any capturing edge in the graph, stones
strictly increase along every edge and no cycle can close, so the ancestor search runs
only once captures are around.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import Position, Smallholder

#: An infinite proof or disproof number (sums saturate here).
INF = 1 << 50

FRONTIER, PENDING, TRIED, EXPANDED, SETTLED = "frontier", "pending", "tried", "expanded", "settled"
PROVED, DISPROVED = 1, -1
#: where a settled result comes from
TERMINAL, LEAF, TREE = "terminal", "leaf", "tree"
#: An exact leaf result: (value for the side to move, remoteness), the remoteness None for a
#: draw and for a value proved alone (the ``value`` leaf solver); as `db.proofs` stores it.
Leaf = tuple[int, int | None]


@dataclass(frozen=True)
class Known:
    """What a store already knows about a canonical position (a resumed run)."""

    leaf: Leaf | None = None  # exact leaf result for the side to move
    tried_budget: int = 0  # the largest node budget a leaf job ran out of on it
    #: (status, best child key or None, length) of a settled node of this goal
    settled: tuple[int, int | None, int] | None = None


#: canonical key -> what is known about it (None: nothing)
KnownLookup = Callable[[int], Known | None]


class Node:
    __slots__ = ("key", "pos", "is_or", "pn", "dn", "state", "status", "source", "children", "parents",
                 "loops", "tainted", "best", "length", "mobility", "stones", "tried")

    def __init__(self, key: int, pos: Position, is_or: bool, mobility: int) -> None:
        self.key = key
        self.pos = pos
        self.is_or = is_or
        self.mobility = mobility
        self.stones = (pos.black | pos.white).bit_count()
        self.state = FRONTIER
        self.status = 0
        self.source = ""
        self.children: list[Node] = []
        self.parents: list[Node] = []
        self.loops = 0
        self.tainted = False
        self.best: Node | None = None
        self.length = 0
        self.pn, self.dn = (1, mobility) if is_or else (mobility, 1)
        self.tried = 0  # the largest node budget a leaf job ran out of on it (0: none yet)

    def __repr__(self) -> str:
        return f"Node({self.key}, {self.state}, pn={self.pn}, dn={self.dn})"


@dataclass
class Settled:
    """A node settled for good, as the store records it."""

    key: int
    status: int
    source: str
    best: int | None
    length: int


class ProofGraph:
    """The master graph of one goal (see the module doc)."""

    def __init__(self, game: Smallholder, root: Position, attacker: str, known: KnownLookup | None = None,
                 largest_budget: int = 0, order: str = "first") -> None:
        """``largest_budget``: the largest node budget a position's leaf job gets; a
        position a job ran out of that much on before is expanded at once."""
        if order not in ("first", "last"):
            raise ValueError(f"move order must be 'first' or 'last': {order!r}")
        self.game = game
        self.order = order
        self.attacker = attacker
        self.known = known or (lambda key: None)
        self.largest_budget = largest_budget
        self.nodes: dict[int, Node] = {}
        self.captures_seen = False
        #: nodes settled since the last `take_settled` (for the store), in settling order
        self._newly_settled: list[Settled] = []
        self.loop_edges = 0
        #: False once a leaf's value was proved without its remoteness: the lengths (which
        #: pick the shortest proof) then count such a leaf as 0 plies, a lower bound
        self.lengths_exact = True
        self.root = self.node_for(game.canonical_key(root))
        self.expand_tried()

    # -- nodes ----------------------------------------------------------------------

    def node_for(self, key: int) -> Node:
        """The node of a canonical key, created (and settled if already known) if new."""
        node = self.nodes.get(key)
        if node is not None:
            return node
        pos = self.game.from_key(key)
        moves = self.game.moves(pos)
        node = self.nodes[key] = Node(key, pos, pos.to_move == self.attacker, len(moves))
        if not moves:  # the side to move cannot move and loses
            self._settle(node, PROVED if not node.is_or else DISPROVED, TERMINAL, None, 0, record=False)
            return node
        known = self.known(key)
        if known is not None:
            if known.leaf is not None:
                self._settle_leaf(node, known.leaf, record=False)
            elif known.settled is not None:
                status, best_key, length = known.settled
                best = self.nodes.get(best_key) if best_key is not None else None
                self._settle(node, status, TREE, best, length, record=False, best_key=best_key)
            elif known.tried_budget:
                node.tried = known.tried_budget
                if known.tried_budget >= self.largest_budget:
                    node.state = TRIED
        return node

    def _settle_leaf(self, node: Node, leaf: Leaf, record: bool = True) -> None:
        """An exact leaf result (for the side to move) settles the node either way."""
        value, remoteness = leaf
        attacker_wins = value == WIN if node.is_or else value == LOSS
        if value != DRAW and remoteness is None:
            self.lengths_exact = False
        self._settle(node, PROVED if attacker_wins else DISPROVED, LEAF, None, remoteness or 0, record=record)

    def _settle(self, node: Node, status: int, source: str, best: Node | None, length: int,
                record: bool = True, best_key: int | None = None) -> None:
        node.state = SETTLED
        node.status = status
        node.source = source
        node.best = best
        node.length = length
        node.pn, node.dn = (0, INF) if status == PROVED else (INF, 0)
        if record and not node.tainted:
            key = best.key if best is not None else best_key
            self._newly_settled.append(Settled(node.key, status, source, key, length))

    def take_settled(self) -> list[Settled]:
        """The untainted nodes settled since the last call (what the store must commit)."""
        found, self._newly_settled = self._newly_settled, []
        return found

    # -- expansion --------------------------------------------------------------------

    def expand(self, node: Node) -> None:
        """Make the node's children part of the graph (its job, if any, was out of budget)."""
        game = self.game
        seen: set[int] = set()
        for move, child_pos in game.children(node.pos):
            key = game.canonical_key(child_pos)
            if key in seen:
                continue
            seen.add(key)
            capture = move.captured != 0
            existing = self.nodes.get(key)
            if existing is not None and (capture or self.captures_seen) and self._is_ancestor(existing, node):
                node.loops += 1
                self.loop_edges += 1
                continue
            child = existing if existing is not None else self.node_for(key)
            self.captures_seen |= capture
            node.children.append(child)
            child.parents.append(node)
        node.state = EXPANDED
        self._propagate(node)

    def _is_ancestor(self, candidate: Node, node: Node) -> bool:
        """Whether ``candidate`` is ``node`` or can reach it along the graph's edges."""
        if candidate is node:
            return True
        stack, seen = [node], {node.key}
        while stack:
            for parent in stack.pop().parents:
                if parent is candidate:
                    return True
                if parent.key not in seen:
                    seen.add(parent.key)
                    stack.append(parent)
        return False

    def expand_tried(self) -> None:
        """Expand every reachable node a previous run's job was out of budget on."""
        queue = deque([self.root])
        seen = {self.root.key}
        while queue:
            node = queue.popleft()
            if node.state == TRIED:
                self.expand(node)
            if node.state == EXPANDED:
                for child in node.children:
                    if child.key not in seen:
                        seen.add(child.key)
                        queue.append(child)

    # -- numbers ----------------------------------------------------------------------

    @staticmethod
    def _numbers(child: Node) -> tuple[int, int]:
        if child.state == PENDING:  # won by its side to move until its job says otherwise
            return (0, INF) if child.is_or else (INF, 0)
        return child.pn, child.dn

    def _recompute(self, node: Node) -> bool:
        """Refresh an expanded node from its children; whether anything changed."""
        before = (node.pn, node.dn, node.state)
        children = node.children
        if node.is_or:
            proved = [c for c in children if c.status == PROVED]
            if proved:
                best = min(proved, key=lambda c: c.length)
                self._settle(node, PROVED, TREE, best, best.length + 1)
                return True
            if all(c.status == DISPROVED for c in children):
                node.tainted = node.loops > 0 or any(c.tainted for c in children)
                self._settle(node, DISPROVED, TREE, None, 1 + max((c.length for c in children), default=0))
                return True
            numbers = [self._numbers(c) for c in children]
            node.pn = min((n[0] for n in numbers), default=INF)
            node.dn = min(INF, sum(n[1] for n in numbers))
        else:
            disproved = [c for c in children if c.status == DISPROVED]
            if disproved or node.loops:
                clean = [c for c in disproved if not c.tainted]
                if clean:
                    best = min(clean, key=lambda c: c.length)
                    self._settle(node, DISPROVED, TREE, best, best.length + 1)
                else:
                    node.tainted = True
                    refutation = disproved[0] if disproved else None
                    self._settle(node, DISPROVED, TREE, refutation, 1 + (refutation.length if refutation else 0))
                return True
            if all(c.status == PROVED for c in children):
                self._settle(node, PROVED, TREE, None, 1 + max(c.length for c in children))
                return True
            numbers = [self._numbers(c) for c in children]
            node.pn = min(INF, sum(n[0] for n in numbers))
            node.dn = min((n[1] for n in numbers), default=INF)
        return (node.pn, node.dn, node.state) != before

    def _propagate(self, node: Node) -> None:
        """Recompute ``node`` (if expanded) and then every ancestor whose numbers change."""
        queue = deque([node])
        queued = {node.key}
        first = True
        while queue:
            current = queue.popleft()
            queued.discard(current.key)
            # the first node's own numbers may not change while what its parents see does
            # (a pending node's virtual numbers give way to its real ones)
            changed = self._recompute(current) if current.state == EXPANDED else False
            changed = changed or first
            first = False
            if changed:
                for parent in current.parents:
                    if parent.state == EXPANDED and parent.key not in queued:
                        queued.add(parent.key)
                        queue.append(parent)

    # -- the search -----------------------------------------------------------------

    def numbers(self, node: Node) -> tuple[int, int]:
        return self._numbers(node)

    def select(self, target: Node | None = None) -> list[Node] | None:
        """The path from ``target`` (default: the root) to its most-proving frontier node,
        or None if none is available now (settled, or only pending jobs left)."""
        node: Node = target or self.root
        pn, dn = self._numbers(node)
        if node.state in (SETTLED, PENDING) or pn == 0 or dn == 0:
            return None
        path = [node]
        side = 0
        while node.state == EXPANDED:
            children = node.children if self.order == "first" else node.children[::-1]
            side = 0 if node.is_or else 1  # OR: smallest proof number; AND: smallest disproof number
            node = min(children, key=lambda c: self._numbers(c)[side])
            path.append(node)
        if node.state not in (FRONTIER, TRIED):  # cannot happen while the numbers are consistent
            raise AssertionError(f"selection reached a {node.state} node")
        return path

    def start_job(self, node: Node) -> None:
        node.state = PENDING
        self._propagate(node)

    def finish_job(self, node: Node, leaf: Leaf | None) -> None:
        """The job of a pending node came back: exact (settled) or unknown (expanded)."""
        if leaf is not None:
            self._settle_leaf(node, leaf)
            self._propagate(node)
        else:
            self.expand(node)

    def abandon_job(self, node: Node) -> None:
        """A job that failed (its worker died): the node goes back to the frontier."""
        node.state = FRONTIER
        self._propagate(node)

    # -- views ------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {}
        for node in self.nodes.values():
            tally[node.state] = tally.get(node.state, 0) + 1
        return tally
