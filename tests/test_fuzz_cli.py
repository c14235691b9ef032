"""Hostile text everywhere text comes in: both notation parsers and every CLI entry point
that reads text (positions as arguments and on stdin, --rules, --ruleset, --board,
--after, --db). Arbitrary Unicode, NUL bytes, huge inputs, near-notation and positions
that parse but cannot occur. Each must give the rules engine's own answer or a one-line
error with a non-zero exit: never a traceback, a hang or a wrong answer.

Examples per entry point: ``TABLEBASE_FUZZ_EXAMPLES`` (default 100, for CI; the full run
is 10000: ``TABLEBASE_FUZZ_EXAMPLES=10000 pytest tests/test_fuzz_cli.py``).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablebase.cli.app import error_text
from tablebase.cli.main import main
from tablebase.games.base import NotationError
from tablebase.games.smallholder import BOARD_ROWS, RULESETS, Smallholder, get_board, parse_position, parse_rules
from tablebase.games.sparro import VARIANTS, Sparro
from tablebase.service.smallholder import rules_of
from tablebase.solver.search import Search, SearchBudgetExceeded

EXAMPLES = int(os.environ.get("TABLEBASE_FUZZ_EXAMPLES", "100"))
fuzz = settings(max_examples=EXAMPLES, deadline=10_000,  # a hang, not a slow shared CI machine
                print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

# -- text strategies -------------------------------------------------------------------

#: Characters near the notations, with whitespace, NUL, look-alikes and line separators.
NEAR = "RBW./ \t\n\r\x00\x0b\u00a0\u2028\u3000ＲＢ·／rbw0123456789abcdg,+-=x"


def huge(alphabet: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(lambda s, n: s * n, st.text(alphabet, min_size=1, max_size=8), st.integers(500, 20_000))


def sparro_boards() -> st.SearchStrategy[str]:
    """Syntactically valid Sparro text: mostly illegal positions (floating, wrong counts...)."""
    group = lambda n: st.text("RB.", min_size=n, max_size=n)  # noqa: E731
    token = st.sampled_from(["", " R", " B"])
    return st.builds(lambda a, b, c, t: f"{a}/{b}/{c}{t}", group(12), group(8), group(4), token)


@st.composite
def sparro_reachable(draw: st.DrawFn) -> str:
    """A position met in play, sometimes with one character changed."""
    game = Sparro(draw(st.sampled_from(VARIANTS)))
    pos = game.start()
    for choice in draw(st.lists(st.integers(0, 23), max_size=24)):
        moves = game.legal_moves(pos)
        if not moves:
            break
        pos = game.play(pos, moves[choice % len(moves)])
    text = game.format(pos)
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.sampled_from("RB./ x")) + text[at + 1:]
    return text


def smallholder_boards() -> st.SearchStrategy[str]:
    """Syntactically valid Smallholder text on a known board: mostly unreachable positions."""
    @st.composite
    def board(draw: st.DrawFn) -> str:
        rows = draw(st.sampled_from(list(BOARD_ROWS.values())))
        cells = [draw(st.text("BW.", min_size=n, max_size=n)) for n in rows]
        return "/".join(cells) + " " + draw(st.sampled_from("BW"))
    return board()


def hostile(*valid: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.text(), st.text(NEAR, max_size=60), huge(st.sampled_from(NEAR)), *valid)


SPARRO_TEXT = hostile(sparro_boards(), sparro_reachable())
SMALLHOLDER_TEXT = hostile(smallholder_boards())
SPEC_TEXT = st.one_of(hostile(), st.sampled_from(list(RULESETS)), st.builds(
    lambda items: ",".join(items), st.lists(st.builds(lambda k, v: f"{k}={v}", st.sampled_from(
        ["groups", "adjacent", "territory", "capture", "x", ""]), st.sampled_from(
        ["gap", "hull", "piecewise", "groupwise", "smallest", "must-create-if-one", "", "=", "Gap"])), max_size=5)))
BOARD_TEXT = st.one_of(hostile(), st.sampled_from(list(BOARD_ROWS) + ["HEX4", "hex4 ", "hex8", ""]))
MOVES_TEXT = st.one_of(hostile(), st.lists(st.one_of(
    st.sampled_from(["a1", "b2", "c3", "d1", "e5", "z9", "0", "7", "36", "999", "a0", "-1"]),
    st.text(NEAR, max_size=4)), max_size=30).map(" ".join))
#: Lines for stdin; a huge line has no line breaks, else one example is 100,000 lines (slow, not hostile).
ONE_LINE = st.sampled_from([c for c in NEAR if c not in "\n\r\x0b\u2028"])
BATCH_TEXT = st.lists(st.one_of(st.text(), st.text(NEAR, max_size=60), huge(ONE_LINE), sparro_boards(),
                                sparro_reachable(), smallholder_boards()), max_size=20).map("\n".join)

# -- running and judging the CLI ---------------------------------------------------------


def run(args: list[str], stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, args, input=stdin)


def assert_clean(result: Result) -> None:
    """No traceback; exit 0, a usage error (2), or exit 1 whose stderr is one-line errors."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"traceback: {result.exception!r}") from result.exception
    assert result.exit_code in (0, 1, 2), result.exit_code
    assert "Traceback" not in result.output
    if result.exit_code == 1:
        lines = result.stderr.splitlines()
        assert lines and lines[-1].startswith("Error: "), result.stderr
        assert all(line.startswith(("Error: ", "error: ")) for line in lines), result.stderr


def said(exc: Exception) -> str:
    """The line the CLI says for a parser's error in the commands fuzzed here (show, moves
    and probe, which take --allow-unreachable: an unreachable position's message names it)."""
    return error_text(exc, main.get_command(click.Context(main), "show").get_command(  # type: ignore[union-attr]
        click.Context(main), "sparro"))


def expect(result: Result, oracle: Callable[[], object]) -> object | None:
    """The CLI agrees with the engine: success iff ``oracle()`` succeeds, else its message."""
    assert_clean(result)
    try:
        answer = oracle()
    except NotationError as exc:
        assert result.exit_code == 1 and result.stderr == f"Error: {said(exc)}\n", (result.stderr, said(exc))
        return None
    assert result.exit_code == 0, result.output
    return answer


def lines_of(stdin: str) -> list[str]:
    """The non-blank lines the CLI reads from ``stdin`` (as `answer_positions` splits them)."""
    return [line.strip() for line in io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8") if line.strip()]


# -- the parsers -------------------------------------------------------------------------


@fuzz
@given(st.sampled_from(VARIANTS), SPARRO_TEXT)
def test_sparro_parse(variant: str, text: str) -> None:
    game = Sparro(variant)
    try:
        pos = game.parse(text)
    except NotationError as exc:
        assert str(exc) and "\n" not in str(exc) and len(str(exc)) < 1000  # huge text is cut short
        return
    assert game.illegality(pos) is None and game.parse(game.format(pos)) == pos


@fuzz
@given(SMALLHOLDER_TEXT, st.sampled_from(list(RULESETS)))
def test_smallholder_parse(text: str, ruleset: str) -> None:
    try:
        board, pos = parse_position(text)
        game = Smallholder(board.name, ruleset)
        checked = game.parse(text)
    except NotationError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert checked == pos and game.parse(game.format(pos)) == pos


@fuzz
@given(SPEC_TEXT)
def test_rules_parse(text: str) -> None:
    try:
        rules = parse_rules(text)
    except NotationError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert parse_rules(rules.spec) == rules


# -- Sparro commands ---------------------------------------------------------------------


@fuzz
@given(st.sampled_from(VARIANTS), SPARRO_TEXT)
def test_show_sparro(variant: str, text: str) -> None:
    result = run(["show", "sparro", "--variant", variant, "--", text])
    expect(result, lambda: Sparro(variant).parse(text))


@fuzz
@given(st.sampled_from(VARIANTS), SPARRO_TEXT.filter(lambda t: t != "-"))
def test_moves_sparro(variant: str, text: str) -> None:
    game = Sparro(variant)
    result = run(["moves", "sparro", "--variant", variant, "--json", "--", text])
    pos = expect(result, lambda: game.parse(text))
    if pos is not None:
        assert json.loads(result.stdout)["moves"] == [{"cell": m, "name": game.move_name(m)}
                                                     for m in game.legal_moves(pos)]


def judge_probe(game: Sparro, text: str, result: Result) -> None:
    """Parse errors as the engine says; 'not in the table' only for unreachable positions;
    answers deep enough to search agree with the search."""
    assert_clean(result)
    try:
        pos = game.parse(text)
    except NotationError as exc:
        assert result.exit_code == 1 and result.stderr == f"Error: {said(exc)}\n"
        return
    if result.exit_code == 1:
        assert "not in the table" in result.stderr or "node budget" in result.stderr, result.stderr
        return
    answer = json.loads(result.stdout)
    assert answer["position"] == game.format(pos)
    if pos.marbles >= 16 and answer["value"] != "unknown":  # 'unknown': --search ran out of its budget
        try:
            found = Search(game, node_budget=5_000).solve(pos)
        except SearchBudgetExceeded:
            return
        assert (answer["value"], answer["remoteness"]) == (found.outcome.name, found.outcome.remoteness)


@fuzz
@given(st.sampled_from(VARIANTS), SPARRO_TEXT.filter(lambda t: t != "-"))
def test_probe_sparro(sparro_db: Path, variant: str, text: str) -> None:
    result = run(["probe", "sparro", "--variant", variant, "--db", str(sparro_db), "--json", "--", text])
    judge_probe(Sparro(variant), text, result)


@fuzz
@given(st.sampled_from(VARIANTS), SPARRO_TEXT.filter(lambda t: t != "-"))
def test_probe_sparro_search(variant: str, text: str) -> None:
    result = run(["probe", "sparro", "--variant", variant, "--search", "--budget", "1000", "--json", "--", text])
    judge_probe(Sparro(variant), text, result)


@fuzz
@given(st.sampled_from(VARIANTS), BATCH_TEXT)
def test_moves_sparro_batch(variant: str, stdin: str) -> None:
    game = Sparro(variant)
    result = run(["moves", "sparro", "-", "--variant", variant, "--json"], stdin)
    assert_clean(result)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    failures = 0
    texts = lines_of(stdin)
    assert len(answers) == len(texts)
    for text, answer in zip(texts, answers):
        try:
            assert answer["position"] == game.format(game.parse(text))
        except NotationError as exc:
            failures += 1
            assert answer == {"position": text, "error": said(exc)}
    assert result.exit_code == (1 if failures else 0)


@fuzz
@given(st.sampled_from(VARIANTS), BATCH_TEXT)
def test_probe_sparro_batch(sparro_db: Path, variant: str, stdin: str) -> None:
    game = Sparro(variant)
    result = run(["probe", "sparro", "-", "--variant", variant, "--db", str(sparro_db), "--json"], stdin)
    assert_clean(result)
    texts = lines_of(stdin)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(texts)
    for text, answer in zip(texts, answers):
        try:
            pos = game.parse(text)
        except NotationError as exc:
            assert answer == {"position": text, "error": said(exc)}
            continue
        if "error" in answer:
            assert "not in the table" in answer["error"]
        else:
            assert answer["position"] == game.format(pos)
    assert result.exit_code == (1 if any("error" in a for a in answers) else 0)


# -- Smallholder commands ----------------------------------------------------------------


def smallholder_oracle(text: str, ruleset: str = "nibbler", spec: str | None = None,
                       board: str | None = None) -> object:
    rules = parse_rules(ruleset)
    if spec:
        rules = parse_rules(spec, rules)
    found, _ = parse_position(text, get_board(board) if board else None)
    return Smallholder(found.name, rules).parse(text)


@fuzz
@given(SMALLHOLDER_TEXT, st.sampled_from(list(RULESETS)))
def test_show_smallholder(text: str, ruleset: str) -> None:
    result = run(["show", "smallholder", "--ruleset", ruleset, "--", text])
    expect(result, lambda: smallholder_oracle(text, ruleset))


@fuzz
@given(SMALLHOLDER_TEXT.filter(lambda t: t != "-"))
def test_moves_smallholder(text: str) -> None:
    result = run(["moves", "smallholder", "--json", "--", text])
    expect(result, lambda: smallholder_oracle(text))


@pytest.mark.slow
@fuzz
@given(SMALLHOLDER_TEXT.filter(lambda t: t != "-"), st.sampled_from(list(RULESETS)))
def test_probe_smallholder(sparro_db: Path, text: str, ruleset: str) -> None:
    """A file without Smallholder tables: the engine's parse error, or an answer of the search
    (source "search"; "unknown" when its time runs out)."""
    result = run(["probe", "smallholder", "--ruleset", ruleset, "--db", str(sparro_db), "--json",
                  "--time", "0.5", "--", text])
    assert_clean(result)
    try:
        smallholder_oracle(text, ruleset)
    except NotationError as exc:
        assert result.exit_code == 1 and result.stderr == f"Error: {said(exc)}\n"
    else:
        assert result.exit_code == 0, result.stderr
        answer = json.loads(result.stdout)
        assert answer["source"] == "search" and answer["value"] in ("win", "loss", "draw", "unknown")


@pytest.mark.slow
@fuzz
@given(SMALLHOLDER_TEXT.filter(lambda t: t != "-"))
def test_probe_smallholder_search(text: str) -> None:
    result = run(["probe", "smallholder", "--search", "--budget", "300", "--json", "--", text])
    answer = expect(result, lambda: smallholder_oracle(text))
    if answer is not None:
        assert json.loads(result.stdout)["value"] in ("win", "loss", "draw", "unknown")


@fuzz
@given(SPEC_TEXT)
def test_rules_option(spec: str) -> None:
    result = run(["show", "smallholder", "--board", "hex3", "--rules", spec])
    assert_clean(result)
    try:  # the CLI's own reading of --rules (on top of the default ruleset)
        rules_of(None, spec)
    except NotationError as exc:  # a value it cannot parse: a usage error
        assert result.exit_code == 2 and result.stderr.startswith(f"Error: Invalid value for '--rules': {exc} (see ")
    else:
        assert result.exit_code == 0


@fuzz
@given(BOARD_TEXT, st.one_of(st.none(), SPEC_TEXT))
def test_board_and_ruleset_options(board: str, ruleset: str | None) -> None:
    args = ["moves", "smallholder", "--board", board] + (["--ruleset", ruleset] if ruleset is not None else [])
    result = run(args)
    assert_clean(result)
    try:  # the option values as the CLI reads them: one it refuses is a usage error
        get_board(board)
        rules_of(ruleset, None)
    except NotationError:
        assert result.exit_code == 2
    else:
        assert result.exit_code == 0


@fuzz
@given(st.sampled_from(["hex3", "limping2", "hex4"]), MOVES_TEXT)
def test_after_option(board: str, moves: str) -> None:
    result = run(["moves", "smallholder", "--board", board, "--after", moves, "--json"])
    assert_clean(result)
    if result.exit_code == 0:  # replayed: the position reached is one the engine reaches too
        game = Smallholder(board, "nibbler")
        pos = game.start()
        for token in moves.replace(",", " ").split():
            pos = game.play(pos, game.parse_move(token))
        assert json.loads(result.stdout)["position"] == game.format(pos)


@fuzz
@given(BATCH_TEXT)
def test_moves_smallholder_batch(stdin: str) -> None:
    result = run(["moves", "smallholder", "-", "--json"], stdin)
    assert_clean(result)
    texts = lines_of(stdin)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(texts)
    for text, answer in zip(texts, answers):
        try:
            smallholder_oracle(text)
        except NotationError as exc:
            assert answer == {"position": text, "error": said(exc)}
        else:
            assert "error" not in answer


# -- database paths ----------------------------------------------------------------------


@contextmanager
def inside(folder: Path) -> Iterator[None]:
    """Run with ``folder`` as the working directory, so relative paths land there."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@pytest.fixture(scope="module")
def hostile_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a junk file, an empty file and a sub-folder for relative --db paths."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "junk.sqlite").write_bytes(b"not a database\n" * 100)
    (folder / "empty.sqlite").touch()
    (folder / "sub").mkdir()
    return folder


#: No NUL: an argument or environment variable cannot hold one, and click's own path check
#: raises ValueError on it before our code runs (TablebaseStore itself refuses it cleanly).
PATH_TEXT = st.one_of(st.text(), huge(st.sampled_from("a/.é")), st.sampled_from(
    ["junk.sqlite", "empty.sqlite", "sub", "sub/", "missing/x.sqlite", "/", "", ".", "..", "/dev/null",
     "/proc/self/mem", "-", "x" * 300])).map(lambda path: path.replace("\0", ""))


@fuzz
@given(PATH_TEXT)
def test_db_paths(hostile_folder: Path, path: str) -> None:
    with inside(hostile_folder):
        before = sorted(p.name for p in hostile_folder.iterdir())
        for args in (["probe", "sparro", "--db", path], ["check", "--db", path, "--sample", "1"]):
            result = run(args)
            assert_clean(result)
            assert result.exit_code != 0
        assert sorted(p.name for p in hostile_folder.iterdir()) == before  # readers create nothing
        assert (hostile_folder / "junk.sqlite").read_bytes() == b"not a database\n" * 100


@pytest.mark.parametrize("path, message", [
    ("junk.sqlite", "cannot use"), ("sub", "is a directory"), ("missing/x.sqlite", "cannot use"),
    ("x" * 5000, "cannot use")])
def test_solve_into_hostile_paths(hostile_folder: Path, path: str, message: str) -> None:
    with inside(hostile_folder):
        result = run(["solve", "sparro", "--variant", "standard", "--db", path, "-s"])
    assert_clean(result)
    assert result.exit_code != 0 and message in result.stderr
    assert (hostile_folder / "junk.sqlite").read_bytes() == b"not a database\n" * 100


@pytest.mark.slow
def test_raw_bytes_through_a_real_process(sparro_db: Path) -> None:
    """What CliRunner cannot send: undecodable bytes in argv and on stdin."""
    command = [sys.executable, "-c", "from tablebase.cli.main import main; main()"]
    for args, stdin in [(["show", "sparro", b"RB\xff\xfe/..../.."], b""),
                        (["moves", "smallholder", "-"], b"../.../..../... B\n\xff\xfe\x00\n"),
                        (["probe", "sparro", "-", "--db", str(sparro_db)], b"\xc3\x28\n" * 3)]:
        done = subprocess.run(command + args, input=stdin, capture_output=True, timeout=60)
        assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
        assert done.stderr.splitlines()[-1].startswith(b"Error: ")
