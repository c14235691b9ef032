"""`tablebase demo`, the README's first command: the headline results as the tables give them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.games.sparro import VARIANTS, Sparro


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


def test_demo_states_what_the_tables_say(sparro_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    shutil.copy(sparro_db, db)  # the three variants solved: the demo reuses them
    result = run("demo", "--db", str(db), "-s")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for variant in VARIANTS:
        start = Sparro(variant).format(Sparro(variant).start())
        probed = run("probe", "sparro", start, "--variant", variant, "--db", str(db), "--json")
        answer = json.loads(probed.stdout)
        [line] = [line for line in lines if line.startswith(variant + " ")]
        winner = "Red" if answer["value"] == "win" else "Black"
        assert f" {winner} wins with perfect play; the game lasts {answer['remoteness']} plies; " in line
        best = [m["name"] for m in answer["moves"] if (m["value"], m["remoteness"]) ==
                (answer["moves"][0]["value"], answer["moves"][0]["remoteness"])]
        # the first moves named are the best ones, and called winning only when they win
        said = "Red's best first moves: " if winner == "Red" else \
            "Red has no winning first move; the longest defences: "
        assert line.endswith(said + " ".join(best)), line
        # reused, not solved now: the line says so (it said "solved in 2.1 s", the first solve's time)
        assert "(already solved (in " in line and ", when it was made)" in line and "(solved in" not in line, line
    claims = [line for line in lines if line.startswith("  [")]
    assert {line.split("]")[1].split(":")[0].strip() for line in claims} == {
        "sparro-compensation", "sparro-mirror", "sparro-first-move-rule"}
    position = lines[-1].split("tablebase probe sparro ")[1].strip("'")
    assert run("probe", "sparro", position, "--db", str(db)).exit_code == 0  # the suggested next step works
