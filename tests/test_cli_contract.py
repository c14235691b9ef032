"""The command line's contract where an exploratory test found it broken: what `play`
says when the user stops, exit status 2 for every option value the parsers refuse,
`compare`'s messages and the README's example, the options that belong to --weak, the
--budget help, the `puzzles list --rules` hint, a file that is no tablebase, and the
unreachable position's flag."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.sparro import Sparro
from tablebase.service.play import Match
from tablebase.solver.probe import Outcome

ROOT = Path(__file__).resolve().parent.parent
UNREACHABLE = "RRRBB..BRRRB/B......./...."  # two separate red lines: no game reaches it


def run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=input)


@pytest.fixture
def standard_db(sparro_standard_db: Path, tmp_path: Path) -> Path:
    """A copy of the standard Sparro table's file (play and puzzles may write to it)."""
    path = tmp_path / "standard.sqlite"
    shutil.copy(sparro_standard_db, path)
    return path


# -- 1. play: stopping says so, with the true value; exit 0 -------------------------------

@pytest.mark.parametrize("typed, how", [("q\n", "you quit"), ("", "input ended")])
def test_stopping_a_game_says_so_with_the_positions_value(standard_db: Path, typed: str, how: str) -> None:
    """Red wins the start in 21: stopping there is no win for the perfect player."""
    result = run("play", "sparro", "--db", str(standard_db), input=typed)
    assert result.exit_code == 0, result.output
    assert "perfect player wins" not in result.stdout
    assert result.stdout.rstrip().endswith(
        f"{how}; with perfect play this position is a win in 21 for Red (to move).")


def test_stopping_after_a_losing_move_gives_the_loss(standard_db: Path) -> None:
    """0a3 throws Red's win away; after the perfect player's answer Red, to move, loses."""
    result = run("play", "sparro", "RBBRBR.BR.../......../....", "--db", str(standard_db), input="0a3\nq\n")
    assert result.exit_code == 0, result.output
    last = result.stdout.rstrip().splitlines()[-1]
    assert re.search(r"you quit; with perfect play this position is a loss in \d+ for Red \(to move\)\.$", last)


def test_quitting_a_puzzle_is_no_error(standard_db: Path) -> None:
    made = run("puzzles", "generate", "sparro", "--count", "1", "--seed", "2", "--db", str(standard_db), "-s")
    assert made.exit_code == 0, made.output
    number = made.stdout.split()[0].lstrip("#")
    result = run("puzzles", "play", number, "--db", str(standard_db), input="h\nq\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith("you quit: not solved. (1 hint)")
    ended = run("puzzles", "play", number, "--db", str(standard_db), input="")
    assert ended.exit_code == 0 and ended.stdout.rstrip().endswith("input ended: not solved.")


@pytest.mark.parametrize("command", [["play"], ["puzzles", "play"]])
def test_the_help_says_quitting_exits_0(command: list[str]) -> None:
    text = " ".join(run(*command, "--help").stdout.split())
    assert "Exit status 0" in text and "quitting is your choice, not an error" in text


def test_a_finished_games_result_for_the_user() -> None:
    """A full board without a line: Black wins it in standard Sparro, nobody without the
    compensation rule; the result is the user's, whoever is to move."""
    text = "BBRBRRRBBRBB/RBRBBRBR/RRRB"  # Red to move, the board full

    def nothing(keys: list[int]) -> list[None]:  # a finished game needs no look-up
        return [None] * len(keys)

    for variant, for_red in (("standard", "loss"), ("standard-no-compensation", "draw")):
        game = Sparro(variant)
        pos = game.parse(text, allow_unreachable=True)
        assert game.terminal_value(pos) == {"loss": LOSS, "draw": DRAW}[for_red]
        assert Match(game, pos, nothing, "R").result == for_red
        assert Match(game, pos, nothing, "B").result == {"loss": "win", "draw": "draw"}[for_red]


HEX4_WIN_IN_9 = "WB.W/WBW.B/BBWBB./..B.B.W/.W.W../BWW.W/W.BB W"


def test_stopping_a_searched_game_starts_no_search(tmp_path: Path) -> None:
    """On hex4 the perfect player is the search: quitting at once says the value is not
    known (a search for it could take the whole --time, 30 s), quitting after a move and
    the reply gives the value the reply's probe found, without another search."""
    db = str(tmp_path / "h4.sqlite")
    at_once = run("play", "smallholder", HEX4_WIN_IN_9, "--db", db, input="q\n")
    assert at_once.exit_code == 0, at_once.output
    assert at_once.stdout.rstrip().endswith("you quit; the value of this position for White (to move) is not known: "
                                            "it was not searched ('tablebase probe' searches it).")
    later = run("play", "smallholder", HEX4_WIN_IN_9, "--db", db, input="d1\nq\n")
    assert later.exit_code == 0, later.output
    assert later.stdout.rstrip().endswith("you quit; with perfect play this position is a win in 7 for White (to move).")


def test_a_match_knows_what_its_probes_said() -> None:
    """After a reply the position's value is the reply's, seen by the side to move: no
    lookup is asked (the lookup here knows only the start)."""
    game = Sparro("standard")
    start = game.start()
    table = {game.canonical_key(start): Outcome(WIN, 21)}
    asked: list[int] = []

    def lookup(keys: list[int]) -> list[Outcome | None]:
        asked.extend(keys)
        return [table.get(key, Outcome(LOSS, 20)) for key in keys]  # every move of Red's "loses in 20" for Black

    match = Match(game, start, lookup, "B")
    assert match.standing(look_up=False) is None
    best = match.reply()
    asked.clear()
    assert match.standing() == best.outcome.after_move() and asked == []
    assert Outcome(WIN, 21).for_mover().after_move() == Outcome(WIN, 21)


def test_standing_is_the_lookups_value_or_none() -> None:
    game = Sparro("standard")
    pos = game.start()
    assert Match(game, pos, lambda keys: [Outcome(WIN, 21)] * len(keys), "R").standing() == Outcome(WIN, 21)
    assert Match(game, pos, lambda keys: [None] * len(keys), "R").standing() is None


# -- 2. compare: the README's example works, the messages name compare -----------------------

def test_the_docs_compare_examples_run(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8") + (ROOT / "docs" / "smallholder.md").read_text(
        encoding="utf-8")
    commands = {" ".join(found.split()) for found in re.findall(r"`tablebase (compare smallholder[^`]*)`", text)}
    assert commands
    for command in commands:
        result = run(*command.split(), "--db", str(tmp_path / "c.sqlite"), "-s")
        assert result.exit_code == 0, (command, result.output)


def test_compare_messages_name_compare_and_its_options(tmp_path: Path) -> None:
    db = str(tmp_path / "c.sqlite")
    big = run("compare", "smallholder", "--rules", "nibbler", "--rules", "stymie", "--db", db)
    assert big.exit_code == 1
    assert big.stderr == "Error: hex4 has 37 cells; compare solves boards of up to 20 cells (limping2, hex3): 'hex4'\n"
    one = run("compare", "smallholder", "--board", "limping2", "--rules", "nibbler", "--db", db)
    assert one.exit_code == 2  # a usage error, found before any file is read
    assert one.stderr.startswith("Error: compare needs at least two --rules to put side by side (see ")


# -- 3. a value the parsers refuse is a usage error (2), in every command ---------------------

BAD_VALUES = {"--board": ("hex9", "unknown board"), "--ruleset": ("foo", "unknown ruleset"),
              "--rules": ("territory=xyz", "unknown territory option 'xyz'")}
#: Every command with a rules option, and its options (a --board that is a click.Choice
#: says its choices instead of the parser's message).
RULES_OPTIONS = [
    (["show", "smallholder"], ["--board", "--ruleset", "--rules"]),
    (["moves", "smallholder"], ["--board", "--ruleset", "--rules"]),
    (["probe", "smallholder", "--db", "{db}"], ["--board", "--ruleset", "--rules"]),
    (["cycle", "smallholder"], ["--board", "--ruleset", "--rules"]),
    (["solve", "smallholder", "--db", "{db}"], ["--board", "--ruleset", "--rules"]),
    (["proof", "export", "smallholder", "--db", "{db}"], ["--board", "--ruleset", "--rules"]),
    (["compare", "smallholder", "--rules", "stymie", "--db", "{db}"], ["--board", "--rules"]),
    (["atlas", "smallholder", "--db", "{db}"], ["--board"]),
    (["verify", "smallholder", "--db", "{db}"], ["--rules", "--board"]),
    (["play", "smallholder", "--db", "{db}"], ["--ruleset", "--board"]),
    (["puzzles", "generate", "smallholder", "--db", "{db}"], ["--ruleset", "--board"]),
]
CASES = [(command, option) for command, options in RULES_OPTIONS for option in options]
CHOICE_BOARDS = ("verify", "play", "puzzles")


@pytest.mark.parametrize("command, option", CASES, ids=[f"{' '.join(c[:2])} {o}" for c, o in CASES])
def test_a_bad_rules_value_exits_2(tmp_path: Path, command: list[str], option: str) -> None:
    db = tmp_path / "x.sqlite"
    value, why = BAD_VALUES[option]
    result = run(*[str(db) if arg == "{db}" else arg for arg in command], option, value, "--rules", "nibbler"
                 ) if command[0] == "compare" and option == "--board" else \
        run(*[str(db) if arg == "{db}" else arg for arg in command], option, value)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"Error: Invalid value for '{option}': ")
    assert why in result.stderr or (option == "--board" and command[0] in CHOICE_BOARDS)
    assert re.search(r"\(see '[a-z ]+ --help'\)$", result.stderr.rstrip())
    assert not db.exists()


@pytest.mark.parametrize("args, words", [
    (["puzzles", "generate", "sparro", "--min-depth", "9", "--max-depth", "3"], "--min-depth 9 is more than --max-depth 3"),
    (["puzzles", "list", "--min-depth", "9", "--max-depth", "3"], "--min-depth 9 is more than --max-depth 3"),
    (["puzzles", "export", "--min-depth", "9", "--max-depth", "3"], "--min-depth 9 is more than --max-depth 3"),
    (["compare", "smallholder", "--board", "limping2", "--rules", "nibbler", "--rules", "groups=must-create-if-one-live"],
     "the same combination is given twice"),
    (["play", "sparro", "--as", "W"], "Invalid value for '--as': W is not a colour of sparro")])
def test_contradictory_options_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    db = tmp_path / "x.sqlite"
    result = run(*args, "--db", str(db))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Error: {words}") and result.stderr.count("\n") == 1 and "--help" in result.stderr
    assert not db.exists()


# -- 5. every option of a weak solve belongs to --weak ----------------------------------------

@pytest.mark.parametrize("options, named", [
    (["--job-budget", "5"], "--job-budget belongs to --weak"),
    (["--leaf-solver", "value"], "--leaf-solver belongs to --weak"),
    (["--workers", "2", "--first-moves"], "--workers and --first-moves belong to --weak")])
def test_weak_only_options_without_weak_exit_2(tmp_path: Path, options: list[str], named: str) -> None:
    db = tmp_path / "x.sqlite"
    result = run("solve", "smallholder", "--board", "limping2", *options, "--db", str(db), "-s")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Error: {named} (see '")
    assert not db.exists()


# -- 6. the --budget help says the exact search looks at it every 4,096 positions -------------

@pytest.mark.parametrize("command", [["probe", "smallholder"], ["play"], ["puzzles", "generate"]])
def test_budget_help_says_when_the_search_looks_at_it(command: list[str]) -> None:
    from tablebase.solver.smallholder_exact_kernel import CLOCK_EVERY

    text = " ".join(run(*command, "--help").stdout.split())
    budget = text[text.index("--budget"):]
    assert f"every {CLOCK_EVERY + 1:,} positions" in budget and f"a budget below {CLOCK_EVERY + 1:,}" in budget


# -- 7. puzzles list: a Smallholder ruleset without its board ---------------------------------

def test_a_rules_filter_without_its_board_gets_a_hint(tmp_path: Path) -> None:
    db = tmp_path / "p.sqlite"
    TablebaseStore(db, create=True).close()
    for rules, hinted in (("nibbler", True), ("nibbler@limping2", False), ("standard", False)):
        result = run("puzzles", "list", "--rules", rules, "--db", str(db))
        assert result.exit_code == 0 and result.stdout == ""
        assert result.stderr.startswith("note: no puzzles match these filters") and result.stderr.count("\n") == 1
        assert ("Smallholder rules are written ruleset@board (e.g. nibbler@limping2)" in result.stderr) == hinted


# -- 8. a file that is no SQLite database is not called damaged ------------------------------

def test_a_text_file_is_not_a_tablebase_not_a_damaged_one(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    result = run("probe", "sparro", "--db", str(text))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "it is not a tablebase file" in result.stderr and "damaged" not in result.stderr
    assert text.read_text() == "hello\n"


# -- 9. an unreachable position names the flag that accepts it -------------------------------

def test_the_unreachable_message_names_the_commands_flag() -> None:
    shown = run("show", "sparro", UNREACHABLE)
    assert shown.exit_code == 1
    assert shown.stderr.startswith("Error: position cannot arise in play under standard")
    assert f"; give --allow-unreachable to analyse it: {UNREACHABLE!r}\n" in shown.stderr
    batch = run("moves", "sparro", "-", "--json", input=UNREACHABLE + "\n")
    assert "give --allow-unreachable to analyse it" in batch.stdout
    assert run("show", "sparro", UNREACHABLE, "--allow-unreachable").exit_code == 0


def test_a_command_without_the_flag_names_none(standard_db: Path) -> None:
    played = run("play", "sparro", UNREACHABLE, "--db", str(standard_db))
    assert played.exit_code == 1
    assert "allow" not in played.stderr and played.stderr.endswith(f"): {UNREACHABLE!r}\n")


def test_the_python_message_keeps_its_wording() -> None:
    from tablebase.service.errors import IllegalPositionError

    with pytest.raises(IllegalPositionError, match="; allow unreachable positions to analyse it: 'RRR"):
        Sparro("standard").parse(UNREACHABLE)


# -- numbers: the message says what was expected --------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["puzzles", "list", "--limit", "x"], "Invalid value for '--limit': 'x' is not a valid whole number."),
    (["puzzles", "show", "abc"], "Invalid value for 'PUZZLE_ID': 'abc' is not a valid whole number."),
    (["probe", "smallholder", "--time", "abc"], "Invalid value for '--time': 'abc' is not a number of seconds."),
    (["probe", "sparro", "--search", "--time", "soon"], "Invalid value for '--time': 'soon' is not a number of seconds."),
])
def test_a_bad_number_is_named_as_what_was_expected(args: list[str], message: str) -> None:
    """Click called 'x' "not a valid integer range" and 'abc' "not a valid float range"."""
    result = run(*args)
    assert result.exit_code == 2 and message in result.stderr, result.output


def test_whole_number_options_show_n_in_the_help() -> None:
    text = run("puzzles", "list", "--help").stdout
    assert "--limit N" in text and "INTEGER RANGE" not in text


# -- show: a picture it cannot write fails before the board is printed ----------------------

@pytest.mark.parametrize("game", ["sparro", "smallholder"])
def test_show_fails_on_an_unwritable_picture_before_printing(tmp_path: Path, game: str) -> None:
    result = run("show", game, "--svg", str(tmp_path / "missing" / "x.svg"))
    assert result.exit_code == 1 and result.stdout == "" and "does not exist" in result.stderr


def test_faces_without_a_picture_is_a_usage_error() -> None:
    result = run("show", "sparro", "--faces")
    assert result.exit_code == 2 and "--faces draws into the --svg picture" in result.stderr
