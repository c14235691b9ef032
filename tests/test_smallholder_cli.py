"""`tablebase show smallholder` and `tablebase moves smallholder` through CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main

START_LIMPING2 = "../.../..../... B"


def run(*args: str, stdin: str | None = None):  # noqa: ANN201 (click's Result)
    return CliRunner().invoke(main, list(args), input=stdin)


# limping2 under hull-setbacks (groupwise capture): Black c3-d3 is partly inside White's
# holdings and has no playable neighbour, so it is dead; only d1 is playable.
SHOW_EXPECTED = """\
The Smallholder, hull-setbacks@limping2: Black to move
WW/W.W/W.BW/.WB B

a       W   W        a1-a2
b     W   w   W      b1-b3
c   W   w  (B)  W    c1-c4
d     .   W  (B)     d1-d3

B W  stones      (B) (W)  stones of a dead group (no playable cell next to it)
b w  empty cells held by Black / White      *  held by both      .  other empty cells

Black: 2 stones in 1 group: c3 d3 (2, dead)
White: 7 stones in 2 groups: a1 a2 b1 b3 c1 c4 (6), d2 (1)
Legal moves (1; + extends a group, xN captures N stones): d1
"""


def test_show_exact_output() -> None:
    result = run("show", "smallholder", "WW/W.W/W.BW/.WB B", "--ruleset", "hull-setbacks")
    assert result.exit_code == 0, result.output
    assert result.stdout == SHOW_EXPECTED


def test_show_default_is_empty_hex4_under_nibbler() -> None:
    result = run("show", "smallholder")
    assert result.exit_code == 0
    first, notation = result.stdout.splitlines()[:2]
    assert first == "The Smallholder, nibbler@hex4: Black to move"
    assert notation == "..../...../....../......./....../...../.... B"
    assert "Legal moves (37;" in result.stdout


def test_show_marks_holdings_and_captures() -> None:
    # Black c6 would close the ring a1..c6 and capture White c2 c3 c5.
    position = "BBBB/B...B/BWW.W./....W../....../WW.../BW.. B"
    result = run("show", "smallholder", position, "--rules", "groups=must-create-if-one")
    assert result.exit_code == 0, result.output
    assert "b       B   b   b   b   B        b1-b5" in result.stdout
    assert "(B)" in result.stdout  # g1 is dead
    assert "c6+x3" in result.stdout


def test_moves_text_and_json() -> None:
    result = run("moves", "smallholder", "--board", "limping2")
    assert result.exit_code == 0
    assert result.stdout == "../.../..../... B: B to move: a1 a2 b1 b2 b3 c1 c2 c3 c4 d1 d2 d3\n"
    result = run("moves", "smallholder", "B./.../..../..W B", "--json")
    assert result.exit_code == 0
    answer = json.loads(result.stdout)
    assert answer["position"] == "B./.../..../..W B"
    assert answer["to_move"] == "B"
    assert answer["result"] is None
    # One black group under nibbler: create only, so not next to a1.
    assert answer["moves"][0] == {"cell": 4, "name": "b3", "kind": "create", "captures": 0}


def test_moves_capture_and_finished_game() -> None:
    result = run("moves", "smallholder", "BW/B.B/.BWB/BWW B", "--rules", "groups=must-create-if-one,territory=hull")
    assert result.stdout == "BW/B.B/.BWB/BWW B: B to move: b2+x4\n"
    result = run("moves", "smallholder", "B./BBB/.B.B/B.. W", "--rules", "groups=must-create-if-one,territory=hull",
                 "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["result"] == {"winner": "B"}
    assert json.loads(result.stdout)["moves"] == []
    result = run("moves", "smallholder", "B./BBB/.B.B/B.. W", "--rules", "groups=must-create-if-one,territory=hull")
    assert result.stdout == "B./BBB/.B.B/B.. W: game over, B wins (W cannot move)\n"


def test_after_replays_moves() -> None:
    result = run("moves", "smallholder", "--board", "limping2", "--after", "a1, d3 c2", "--json")
    assert result.exit_code == 0
    answer = json.loads(result.stdout)
    assert answer["position"] == "B./.../.B../..W W"
    assert [m["name"] for m in answer["moves"]] == ["a2", "b1", "b2", "b3", "c1", "d1"]
    result = run("moves", "smallholder", START_LIMPING2, "--after", "0 11 6")
    assert result.stdout == "B./.../.B../..W W: W to move: a2 b1 b2 b3 c1 d1\n"


@pytest.mark.parametrize("args, message", [
    (["moves", "smallholder", "x B"], "Error: unknown character 'x' at offset 0 (expected B, W, . or /): 'x B'"),
    (["moves", "smallholder", "../.. B"], "Error: row lengths 2/2 match no board"),
    (["moves", "smallholder", "--board", "limping2", "--after", "a1 a1"],
     "Error: --after move 2 is illegal (not a legal move for white in 'B./.../..../... W' under nibbler@limping2)"),
    (["moves", "smallholder", "--board", "limping2", "--after", "a1 zz"], "Error: unknown cell on limping2"),
    (["show", "smallholder", START_LIMPING2, "--board", "hex4"],
     "Error: position is on limping2, not on the requested board hex4"),
    (["show", "smallholder", "WW/W.W/W.BW/.WB B"], "Error: position cannot arise in play under nibbler@limping2"),
])
def test_bad_input_is_one_line_and_exit_1(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args, message", [
    (["moves", "smallholder", "--ruleset", "nibler"], "Error: Invalid value for '--ruleset': unknown ruleset"),
    (["moves", "smallholder", "--rules", "territory=round"],
     "Error: Invalid value for '--rules': unknown territory option 'round'"),
    (["moves", "smallholder", "--board", "hex9"], "Error: Invalid value for '--board': unknown board"),
])
def test_a_bad_rules_option_is_a_usage_error(args: list[str], message: str) -> None:
    """An option value the parsers refuse is one the command cannot parse: exit status 2."""
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.endswith("moves smallholder --help')\n")
    assert result.stderr.count("\n") == 1


def test_allow_unreachable() -> None:
    result = run("show", "smallholder", "WW/W.W/W.BW/.WB B", "--allow-unreachable")
    assert result.exit_code == 0
    assert "Legal moves (1;" in result.stdout


def test_batch_mode_one_line_per_position() -> None:
    stdin = f"{START_LIMPING2}\n\nnot a position\n..../...../....../......./....../...../.... B\n"
    result = run("moves", "smallholder", "-", "--json", stdin=stdin)
    assert result.exit_code == 1  # one bad line
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 3
    assert len(lines[0]["moves"]) == 12
    assert lines[1] == {"position": "not a position", "error": "invalid side to move 'a position' "
                                                               "(expected B or W): 'not a position'"}
    assert len(lines[2]["moves"]) == 37
    assert "1 position(s) in the batch could not be answered" in result.stderr


def test_batch_mode_with_board_and_after() -> None:
    stdin = f"{START_LIMPING2}\nB./.../..../... W\n"
    result = run("moves", "smallholder", "-", "--board", "limping2", "--after", "d3", stdin=stdin)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["../.../..../..B W: W to move: a1 a2 b1 b2 b3 c1 c2 c3 c4 d1 d2",
                                          "B./.../..../..W B: B to move: b3 c1 c2 c3 c4 d1 d2"]


def test_batch_text_names_each_position() -> None:
    """A skipped bad line leaves the text output matchable to the input: each line starts
    with its position, as `moves sparro`'s do."""
    stdin = f"{START_LIMPING2}\nnot a position\nB./.../..../... W\n"
    result = run("moves", "smallholder", "-", stdin=stdin)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"{START_LIMPING2}: B to move: a1 a2 b1 b2 b3 c1 c2 c3 c4 d1 d2 d3",
                                          "B./.../..../... W: W to move: a2 b1 b2 b3 c1 c2 c3 c4 d1 d2 d3"]
    assert result.stderr.startswith("error: line 2: ")


@pytest.mark.parametrize("command", ["show", "moves"])
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_ends_with_an_example(command: str, flag: str) -> None:
    result = run(command, "smallholder", flag)
    assert result.exit_code == 0
    text = result.stdout
    assert "Example:" in text
    description = text.split("Options:")[0].rstrip()
    assert "tablebase " in description.splitlines()[-1]
    assert "Example:" in description.split("\n\n")[-1]


def test_rules_spec_builds_on_the_named_ruleset() -> None:
    result = run("show", "smallholder", "--board", "hex3", "--ruleset", "stymie", "--rules", "territory=hull")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == (
        "The Smallholder, groups=priority-create-if-one-live,adjacent=smallest,territory=hull,"
        "capture=groupwise-reentry@hex3: Black to move")
    result = run("show", "smallholder", "--rules", "groups=must-create-if-one-live")  # spells out nibbler
    assert result.stdout.splitlines()[0] == "The Smallholder, nibbler@hex4: Black to move"
