"""Puzzle workflows: generate puzzles into a file, find them, export them, and the
tables a puzzle (or a game against the perfect player) is judged by."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Iterator

from tablebase.db.puzzles import PuzzleStore, StoredPuzzle
from tablebase.db.store import TablebaseStore
from tablebase.render.html import PuzzleCard, puzzle_sheet
from tablebase.service.errors import NotationError
from tablebase.service.games import GAMES, describe
from tablebase.service.progress import Progress, report
from tablebase.service.tables import solved_lookup
from tablebase.solver.probe import Lookup
from tablebase.solver.puzzles import generate

#: The limits a puzzle listing takes (`puzzles list --limit`, the explorer's ``limit``):
#: at least one puzzle, at most a billion.
LIMIT_RANGE = (1, 10**9)
#: The depths a puzzle listing filters by (`puzzles list --min-depth/--max-depth`, the
#: explorer's ``min_depth``/``max_depth``).
DEPTH_FILTER_RANGE = (0, 1000)

TSV_COLUMNS = ("id", "game", "rules", "position", "solution", "depth", "grade")


def rules_label(game: str, **options: Any) -> str:
    """How a puzzle records its rules: the rules name of the game under ``options``
    (the Sparro variant, or the Smallholder ruleset@board)."""
    return describe(game).default_game(**options).rules_name


def rules_object(game: str, label: str) -> Any:
    """The rules object of a recorded rules label."""
    return describe(game).rules(label)


#: Per-position bounds of the search that judges puzzles of rules no table can hold.
PUZZLE_SEARCH_NODES = 2_000_000
PUZZLE_SEARCH_SECONDS = 5.0
#: The natural games of such rules are guided by a search of this fraction of the budget.
PLAY_SEARCH_FRACTION = 20


def searched(description: Any, rules: Any) -> bool:
    """Whether puzzles of ``rules`` are judged by the search (no table can hold them)."""
    return description.cannot_solve(rules) is not None and description.search_without_table


def game_and_lookup(store: TablebaseStore, game: str, label: str, progress: Progress | None = None,
                    nodes: int | None = None, seconds: float | None = None) -> tuple[Any, Lookup]:
    """The rules object and a lookup for recorded rules: their table, solved if needed, or
    for rules no table can hold (hex4) the exact search bounded per position by ``nodes``
    and ``seconds`` (an unknown answer stays unknown), starting from and adding to the
    search results stored in ``store``."""
    description = describe(game)
    rules = description.rules(label)
    if searched(description, rules):
        return rules, description.search_lookup(rules, nodes or PUZZLE_SEARCH_NODES, seconds, progress,
                                                store=store)
    return rules, solved_lookup(store, description, rules, progress)


def generate_into(store: TablebaseStore, game: str, label: str, count: int, min_depth: int, max_depth: int,
                  seed: int, max_games: int, source: str,
                  progress: Progress | None = None, nodes: int | None = None,
                  seconds: float | None = PUZZLE_SEARCH_SECONDS) -> Iterator[StoredPuzzle]:
    """Find up to ``count`` new puzzles (skipping those stored, up to symmetry), each stored
    (committed) as soon as it is proved and then yielded as stored: a generation that is
    stopped or killed keeps every puzzle found so far.

    Rules no table can hold are judged by the exact search, each probed position within
    ``nodes`` positions and ``seconds`` (None: no time bound, so that a seed always gives
    the same puzzles); the natural games are guided by a search of 1/PLAY_SEARCH_FRACTION
    of that, so only the later positions of a game, which it settles, are candidates."""
    rules, lookup = game_and_lookup(store, game, label, progress, nodes, seconds)
    description = describe(game)
    play_lookup = None
    on_game = None
    if searched(description, rules):
        play_nodes = max(1, (nodes or PUZZLE_SEARCH_NODES) // PLAY_SEARCH_FRACTION)
        play_lookup = description.search_lookup(rules, play_nodes, None if seconds is None else
                                                seconds / PLAY_SEARCH_FRACTION, None, store=store)

        def on_game(games: int, tried: int, found: int) -> None:
            report(progress, f"puzzles {label}", f"{games} games played, {tried} candidates searched, "
                                                 f"{found} puzzles found")

    library = PuzzleStore(store)
    for puzzle in generate(rules, lookup, count, min_depth, max_depth, seed, exclude=library.keys(game, label),
                           max_games=max_games, play_lookup=play_lookup, progress=on_game,
                           look_ahead=description.look_ahead(rules)):
        new_id = library.add({"game": game, "rules": label, "source": source, **asdict(puzzle)})
        if new_id is not None:
            yield library.get(new_id)


def find(store: TablebaseStore, game: str | None = None, rules: str | None = None, min_depth: int | None = None,
         max_depth: int | None = None, grade: int | None = None, limit: int | None = None) -> list[StoredPuzzle]:
    """Stored puzzles matching every filter given; ``rules`` is read as the games read
    rules (so a spelled-out spec finds the puzzles stored under its ruleset's label)."""
    label = None if rules is None else _rules_label(game, rules) or rules  # unread: it matches nothing
    return PuzzleStore(store).find(game, label, min_depth, max_depth, grade, limit)


def _rules_label(game: str | None, rules: str) -> str | None:
    """The label ``rules`` names for ``game`` (or the first game that reads it), or None
    when no game reads it."""
    for name in [game] if game else list(GAMES):
        try:
            return str(describe(name).rules(rules).rules_name)
        except NotationError:
            continue
    return None


def rules_filter_hint(game: str | None, rules: str | None) -> str | None:
    """Why a ``rules`` filter (of ``game``, or of any game) may match no puzzle: it is no
    rules label of those games, e.g. a Smallholder ruleset without its board; None when
    it is one (then nothing under those rules is stored)."""
    if rules is None:
        return None
    if _rules_label(game, rules) is not None:
        return None
    return (f"{rules!r} names no {game + ' ' if game else ''}rules: Smallholder rules are written ruleset@board "
            f"(e.g. nibbler@limping2), Sparro's as the variant")


def get(store: TablebaseStore, puzzle_id: int) -> StoredPuzzle:
    """One stored puzzle (StoreError if there is none with that id)."""
    return PuzzleStore(store).get(puzzle_id)


def solution_names(puzzle: StoredPuzzle) -> list[str]:
    """The main line of a puzzle as move names."""
    game = rules_object(puzzle.game, puzzle.rules)
    return [game.move_name(m) for m in puzzle.main_line]


def puzzle_json(puzzle: StoredPuzzle, tree: bool = False) -> dict[str, Any]:
    """The object `puzzles list --json` prints (`puzzles show --json` adds the ``tree``):
    the solution as cell indices and, beside it, as move names."""
    answer = {**puzzle.as_json(), "solution_names": solution_names(puzzle)}
    return {**answer, "tree": puzzle.tree} if tree else answer


def export_tsv(found: list[StoredPuzzle]) -> str:
    rows = ["\t".join(TSV_COLUMNS)]
    rows += ["\t".join([str(p.id), p.game, p.rules, p.position, " ".join(map(str, p.main_line)), str(p.depth),
                        str(p.grade)]) for p in found]
    return "\n".join(rows) + "\n"


def export_html(found: list[StoredPuzzle]) -> str:
    """An HTML sheet of puzzles, a picture of each."""
    cards = []
    for p in found:
        description = describe(p.game)
        game = description.rules(p.rules)
        pos = game.parse(p.position)
        cards.append(PuzzleCard(p.id, p.game, p.rules, p.position, game.to_move(pos), p.depth, p.grade,
                                [game.move_name(m) for m in p.main_line], description.svg(game, pos)))
    return puzzle_sheet(cards)
