"""SVG pictures (cli/pictures.py): valid XML, and the drawn elements match the position.

Each picture is parsed with ElementTree and its elements are counted by class (see the
module docstring of cli/pictures.py for the classes). The expected counts come from the
rules engines, never from the picture code.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.render.svg import smallholder_svg, sparro_svg
from tablebase.games.smallholder import BLACK, RULESETS, WHITE, Position, Smallholder, bits
from tablebase.games.sparro import CELL_NAMES, CELLS, LINE_MASKS, VARIANTS, Sparro, SparroPosition, count_lines

SVG = "{http://www.w3.org/2000/svg}"
FACES = ("north", "east", "south", "west")


def parse(svg: str) -> ET.Element:
    """The root of a picture, after checking it is an SVG document with a viewBox."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    x, y, width, height = (float(v) for v in root.attrib["viewBox"].split())
    assert (x, y) == (0, 0) and width > 0 and height > 0
    assert root.find(f"{SVG}title") is not None
    return root


def title_of(root: ET.Element) -> str:
    title = root.find(f"{SVG}title")
    assert title is not None
    return title.text or ""


def having(root: ET.Element, *classes: str) -> list[ET.Element]:
    """The elements whose class attribute has all of ``classes``, in document order."""
    wanted = set(classes)
    return [e for e in root.iter() if wanted <= set(e.get("class", "").split())]


def cells_of(elements: list[ET.Element]) -> list[str]:
    return sorted(e.attrib["data-cell"] for e in elements)


# -- Sparro -------------------------------------------------------------------------------

def names(mask: int) -> list[str]:
    return sorted(CELL_NAMES[i] for i in range(len(CELLS)) if mask >> i & 1)


def on_face(cell_name: str, face: str) -> bool:
    """docs/sparro.md (Notation): north is row 0 of each level, east the last column, and so on."""
    level, col, row = int(cell_name[0]), "abcd".index(cell_name[1]), int(cell_name[2]) - 1
    last = 3 - level
    return {"north": row == 0, "east": col == last, "south": row == last, "west": col == 0}[face]


def engine_lines(pos: SparroPosition) -> Counter[tuple[str, str]]:
    """(owner, cell names) of every completed line, from the engine's line table."""
    found: Counter[tuple[str, str]] = Counter()
    for line in LINE_MASKS:
        for owner, mask in (("red", pos.red), ("black", pos.black)):
            if mask & line == line:
                found[owner, " ".join(names(line))] += 1
    return found


def drawn_lines(root: ET.Element, view: str) -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for element in having(root, "line", f"view-{view}"):
        owner = "red" if "red" in element.attrib["class"].split() else "black"
        found[owner, " ".join(sorted(element.attrib["data-cells"].split()))] += 1
    return found


def check_sparro(game: Sparro, pos: SparroPosition, faces: bool) -> ET.Element:
    root = parse(sparro_svg(game, pos, faces=faces))
    for colour, mask in (("red", pos.red), ("black", pos.black)):
        for level in range(3):
            on_level = sum(1 << i for i, cell in enumerate(CELLS) if cell[0] == level)
            drawn = having(root, "marble", colour, f"level-{level}")
            assert cells_of(drawn) == names(mask & on_level), (colour, level)
    whites = having(root, "marble", "white")
    assert len(whites) == 5
    assert [len(having(root, "marble", "white", f"level-{level}")) for level in range(3)] == [4, 1, 0]
    assert len(having(root, "marble")) == 5 + pos.marbles
    expected = engine_lines(pos)
    assert drawn_lines(root, "top") == expected
    assert sum(n for (owner, _), n in expected.items() if owner == "red") == count_lines(pos.red)
    for face in FACES:
        on_this_face = Counter({key: n for key, n in expected.items()
                                if all(on_face(name, face) for name in key[1].split())})
        assert drawn_lines(root, face) == (on_this_face if faces else Counter())
        cells = having(root, "face-cell", f"face-{face}")
        assert len(cells) == (9 if faces else 0)
    return root


SPARRO_POSITIONS = [
    ("standard", "............/......../...."),                  # start
    ("standard", "RBRBRBBRBRRB/RBR...../...."),                  # mid-game, three on level 1
    ("standard", "RRRBB.B..R../......../...."),                  # Red completed 0a1-0c1
    ("standard", "RBR.B.B...../RB.R..../R..."),                  # a ridge line 0a1-1a1-2a1
    ("extended", "BRRBRRBRRBBB/RBBRBRRR/BBBR R"),                # full board, lines for both
    ("extended-unrestricted", "RRRRBBBBRBRB/RB.BR.../.... B"),  # a 4 in a row: 2 red lines
]


@pytest.mark.parametrize("variant, text", SPARRO_POSITIONS)
@pytest.mark.parametrize("faces", [False, True])
def test_sparro_picture_matches_position(variant: str, text: str, faces: bool) -> None:
    game = Sparro(variant)
    check_sparro(game, game.parse(text), faces)


def test_sparro_start_has_only_the_whites_and_twelve_pits() -> None:
    game = Sparro()
    root = check_sparro(game, game.start(), faces=True)
    assert len(having(root, "marble")) == 5
    assert len(having(root, "empty", "level-0")) == 12
    # Nothing can go on level 1 or 2 yet, so no dashed ring there.
    assert having(root, "empty", "available") == []


def test_sparro_available_upper_cells_are_rings() -> None:
    game = Sparro()
    pos = game.parse("RBRBRBBRBRRB/RBR...../....")
    root = parse(sparro_svg(game, pos))
    rings = having(root, "empty", "available")
    expected = [name for name in names(game.legal_mask(pos)) if name[0] != "0"]
    assert cells_of(rings) == expected


def test_sparro_ridge_line_shows_on_both_faces() -> None:
    game = Sparro()
    pos = game.parse("RBR.B.B...../RB.R..../R...")
    root = parse(sparro_svg(game, pos, faces=True))
    ridge = ("red", "0a1 1a1 2a1")
    assert drawn_lines(root, "north") == Counter([ridge])
    assert drawn_lines(root, "west") == Counter([ridge])
    assert drawn_lines(root, "top") == Counter([ridge])
    assert drawn_lines(root, "east") == drawn_lines(root, "south") == Counter()


def test_sparro_upper_levels_are_drawn_over_lower_ones() -> None:
    game = Sparro("extended")
    root = parse(sparro_svg(game, game.parse("BRRBRRBRRBBB/RBBRBRRR/BBBR R")))
    order = {id(e): i for i, e in enumerate(root.iter())}
    for lower, upper in ((0, 1), (1, 2)):
        last_lower = max(order[id(e)] for e in having(root, "marble", f"level-{lower}"))
        first_upper = min(order[id(e)] for e in having(root, "marble", f"level-{upper}"))
        assert last_lower < first_upper


def test_sparro_caption_says_whose_turn_or_who_won() -> None:
    game = Sparro()
    assert "Red to move" in sparro_svg(game, game.start())
    assert "Black to move" in sparro_svg(game, game.parse("R.........../......../...."))
    assert "Red wins" in sparro_svg(game, game.parse("RRRBB.B..R../......../...."))


def test_sparro_labels_are_optional() -> None:
    game = Sparro()
    pos = game.parse("RBRBRBBRBRRB/RBR...../....")
    with_labels = parse(sparro_svg(game, pos, faces=True))
    without = parse(sparro_svg(game, pos, faces=True, labels=False))
    assert "1a1" in {e.text for e in having(with_labels, "label")}
    assert having(without, "label") == []


# -- The Smallholder ----------------------------------------------------------------------

def smallholder_names(game: Smallholder, mask: int) -> list[str]:
    return sorted(game.board.names[i] for i in bits(mask))


def dead_stones(game: Smallholder, pos: Position) -> int:
    return sum(g.stones for colour in (BLACK, WHITE) for g in game.groups(pos, colour) if not g.live)


def check_smallholder(game: Smallholder, pos: Position, last_move: int | None = None,
                      captured: int = 0) -> ET.Element:
    root = parse(smallholder_svg(game, pos, last_move=last_move, captured=captured))
    assert len(having(root, "cell")) == game.board.size
    for colour, letter in (("black", BLACK), ("white", WHITE)):
        assert cells_of(having(root, "stone", colour)) == smallholder_names(game, pos.stones(letter))
        assert cells_of(having(root, "holding", colour)) == smallholder_names(game, game.holdings(pos, letter))
    assert cells_of(having(root, "dead")) == smallholder_names(game, dead_stones(game, pos))
    marked = [] if last_move is None else [game.board.names[last_move]]
    assert cells_of(having(root, "last-move")) == marked
    assert cells_of(having(root, "captured")) == smallholder_names(game, captured)
    return root


# White's extension at b2 joins b2-b3-c2-c4 and captures Black's c3 (between c2 and c4);
# White's g4 is hemmed in by g3, f4 and f5: a dead group. Black holds c1.
#         .   .   .   W
#       B   W   W   .   W
#     B   W  (x)  W   B   B
#   B   .   B   .   .   .   W
#     .   W   W   .   .   .
#       .   .   .   B   B
#         .   .   B   W
BEFORE_CAPTURE = "...W/B.W.W/BWBWBB/B.B...W/.WW.../...BB/..BW W"
# hull-setbacks on hex3: both players hold c2.
BOTH_HOLD = ".B./BB../B.W../WW../... W"


def test_smallholder_capture_dead_group_and_holdings() -> None:
    game = Smallholder("hex4", "nibbler")
    before = game.parse(BEFORE_CAPTURE)
    move = next(m for m in game.moves(before) if game.move_name(m.cell) == "b2")
    pos = game.result(before, move)
    # The position has everything the picture must show; fail loudly if the engine disagrees.
    assert smallholder_names(game, move.captured) == ["c3"]
    assert smallholder_names(game, dead_stones(game, pos)) == ["g4"]
    assert game.holdings(pos, BLACK) and game.holdings(pos, WHITE)
    root = check_smallholder(game, pos, last_move=move.cell, captured=move.captured)
    assert having(root, "captured", "black")  # the removed stone was Black's


def test_smallholder_cell_held_by_both_gets_both_shadings() -> None:
    game = Smallholder("hex3", "hull-setbacks")
    pos = game.parse(BOTH_HOLD)
    both = game.holdings(pos, BLACK) & game.holdings(pos, WHITE)
    assert both
    root = check_smallholder(game, pos)
    for name in smallholder_names(game, both):
        assert {e.attrib["class"] for e in having(root, "holding") if e.attrib["data-cell"] == name} == {
            "holding black", "holding white"}


@pytest.mark.parametrize("board", ["hex3", "limping2", "hex4", "limping3"])
def test_smallholder_start_is_an_empty_board(board: str) -> None:
    game = Smallholder(board)
    root = check_smallholder(game, game.start())
    assert having(root, "stone") == having(root, "holding") == having(root, "dead") == []
    assert "Black to move" in smallholder_svg(game, game.start())


def test_smallholder_game_over_caption() -> None:
    game = Smallholder("limping2")
    pos, rng = game.start(), random.Random(1)
    while game.legal_moves(pos):
        pos = game.play(pos, rng.choice(game.legal_moves(pos)))
    loser = "Black" if pos.to_move == BLACK else "White"
    assert f"{loser} cannot move" in smallholder_svg(game, pos)


@pytest.mark.parametrize("last_move, captured", [(99, 0), (-1, 0), (None, 1 << 40), (None, -1)])
def test_smallholder_marks_off_the_board_are_refused(last_move: int | None, captured: int) -> None:
    game = Smallholder("hex3")
    with pytest.raises(ValueError):
        smallholder_svg(game, game.start(), last_move=last_move, captured=captured)


def test_smallholder_captured_cell_must_be_empty() -> None:
    game = Smallholder("hex3")
    pos = game.play(game.start(), 0)
    with pytest.raises(ValueError, match="empty"):
        smallholder_svg(game, pos, last_move=0, captured=1)


# -- both games ---------------------------------------------------------------------------

def test_titles_and_text_are_escaped() -> None:
    title = 'Puzzle <1> & "friends"'
    sparro = parse(sparro_svg(Sparro(), Sparro().start(), title=title))
    smallholder = parse(smallholder_svg(Smallholder("hex3"), Smallholder("hex3").start(), title=title))
    for root in (sparro, smallholder):
        assert title_of(root) == title
        assert [e.text for e in having(root, "heading")] == [title]


@settings(max_examples=50, deadline=None)
@given(title=st.text(max_size=40))
def test_any_title_gives_valid_xml(title: str) -> None:
    allowed = "".join(c for c in title if c in "\t\n\r" or " " <= c and c not in "\ufffe\uffff")
    for svg in (sparro_svg(Sparro(), Sparro().start(), title=title),
                smallholder_svg(Smallholder("hex3"), Smallholder("hex3").start(), title=title)):
        root = parse(svg)
        if title:  # an empty title means none: the <title> then describes the position
            # XML parsers read a "\r" as "\n"; nothing else may change.
            assert title_of(root) == allowed.replace("\r\n", "\n").replace("\r", "\n")


def test_output_is_deterministic() -> None:
    game = Sparro("extended")
    pos = game.parse("BRRBRRBRRBBB/RBBRBRRR/BBBR R")
    assert sparro_svg(game, pos, faces=True) == sparro_svg(Sparro("extended"), game.parse(game.format(pos)),
                                                           faces=True)
    holder = Smallholder("hex4")
    before = holder.parse(BEFORE_CAPTURE)
    move = holder.moves(before)[0]
    first = smallholder_svg(holder, holder.result(before, move), last_move=move.cell, captured=move.captured)
    fresh = Smallholder("hex4")
    again = smallholder_svg(fresh, fresh.result(before, move), last_move=move.cell, captured=move.captured)
    assert first == again


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 24),
       faces=st.booleans())
def test_random_sparro_positions(variant: str, seed: int, plies: int, faces: bool) -> None:
    game, rng = Sparro(variant), random.Random(seed)
    pos = game.start()
    for _ in range(plies):
        legal = game.legal_moves(pos)
        if not legal:
            break
        pos = game.play(pos, rng.choice(legal))
    check_sparro(game, pos, faces)


@settings(max_examples=60, deadline=None)
@given(board=st.sampled_from(["hex3", "limping2", "hex4"]), ruleset=st.sampled_from(sorted(RULESETS)),
       seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 40))
def test_random_smallholder_positions(board: str, ruleset: str, seed: int, plies: int) -> None:
    game, rng = Smallholder(board, ruleset), random.Random(seed)
    pos, last_move, captured = game.start(), None, 0
    for _ in range(plies):
        moves = game.moves(pos)
        if not moves:
            break
        move = rng.choice(moves)
        pos, last_move, captured = game.result(pos, move), move.cell, move.captured
    check_smallholder(game, pos, last_move, captured)


# -- the pictures in docs/pictures.md -----------------------------------------------------

DOCS_IMG = Path(__file__).resolve().parent.parent / "docs" / "img"


def doc_pictures() -> dict[str, str]:
    """The example pictures of docs/pictures.md, by file name."""
    sparro = Sparro()
    holder = Smallholder("hex4", "nibbler")
    before = holder.parse(BEFORE_CAPTURE)
    move = next(m for m in holder.moves(before) if holder.move_name(m.cell) == "b2")
    hull = Smallholder("hex3", "hull-setbacks")
    return {
        "sparro-midgame.svg": sparro_svg(sparro, sparro.parse("RBRBRBBRBRRB/RBR...../....")),
        "sparro-faces.svg": sparro_svg(sparro, sparro.parse("RBR.B.B...../RB.R..../R..."), faces=True,
                                       title="A line up the north-west ridge"),
        "smallholder-capture.svg": smallholder_svg(holder, holder.result(before, move), last_move=move.cell,
                                                   captured=move.captured, title="White b2 captures c3"),
        "smallholder-holdings.svg": smallholder_svg(hull, hull.parse(BOTH_HOLD)),
    }


@pytest.mark.parametrize("name", sorted(doc_pictures()))
def test_doc_pictures_are_current(name: str) -> None:
    """The committed examples are what the code draws now (regenerate: python tests/test_pictures.py)."""
    assert (DOCS_IMG / name).read_text(encoding="utf-8") == doc_pictures()[name]


if __name__ == "__main__":
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    for file_name, picture in doc_pictures().items():
        (DOCS_IMG / file_name).write_text(picture, encoding="utf-8")
        print(DOCS_IMG / file_name)


def test_a_puzzle_sheet_repeats_no_id_and_each_picture_draws_the_same() -> None:
    """Every picture defines its gradients under the same ids; on one sheet each
    picture's ids (and its references to them) are its own, the rest unchanged."""
    import re

    from tablebase.render.html import PuzzleCard, puzzle_sheet

    sparro, smallholder = Sparro("standard"), Smallholder("limping2", "nibbler")
    pictures = [sparro_svg(sparro, sparro.start()), sparro_svg(sparro, sparro.parse("RB........../......../....")),
                smallholder_svg(smallholder, smallholder.start())]
    cards = [PuzzleCard(n, "game", "rules", "position", "B", 3, 1, ["a1"], svg) for n, svg in enumerate(pictures, 1)]
    sheet = puzzle_sheet(cards)
    ids = re.findall(r'\sid="([^"]+)"', sheet)
    assert len(ids) == len(set(ids)) and len(ids) > len(cards) * 2
    drawn = re.findall(r"<svg .*?</svg>", sheet, flags=re.S)
    assert len(drawn) == len(pictures)
    for number, (picture, shown) in enumerate(zip(pictures, drawn), 1):
        root = ET.fromstring(shown)
        own = {element.attrib["id"] for element in root.iter() if "id" in element.attrib}
        assert own and all(name.startswith(f"puzzle-{number}-") for name in own)
        assert set(re.findall(r"url\(#([^)]+)\)", shown)) <= own  # every reference within its picture
        original = re.sub(r' (width|height)="[^"]*"', "", picture.partition(">")[0], count=2)
        assert shown.replace(f"puzzle-{number}-", "") == original + ">" + picture.partition(">")[2].rstrip("\n")
