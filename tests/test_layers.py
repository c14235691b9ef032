"""The layers show in the imports: the CLI parses and prints, the service does the work.

No module of cli/ or web/ (the interfaces) imports numpy, sqlite3, sqlite-utils, the
rules engines (games/), the solvers or the database layer; they reach all of that through
`tablebase.service` (option choices and defaults through the game descriptions). games/ imports nothing of
the other layers (tests/test_smallholder_rules.py checks the rules engines' sources).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_CLI = ("numpy", "sqlite3", "sqlite_utils", "tablebase.games", "tablebase.solver", "tablebase.db")


def imported_modules(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "cli").glob("*.py")) + sorted((ROOT / "web").glob("*.py")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_interfaces_import_no_numpy_sqlite_games_solver_or_db(path: Path) -> None:
    bad = [name for name in imported_modules(path)
           if any(name == root or name.startswith(root + ".") for root in FORBIDDEN_IN_CLI)]
    assert bad == [], f"{path.name} imports {bad}"


def test_the_checker_sees_imports(tmp_path: Path) -> None:
    """The check above would catch each forbidden import form."""
    sample = tmp_path / "sample.py"
    sample.write_text("import numpy as np\nfrom sqlite3 import connect\nfrom tablebase.db.store import X\n"
                      "from tablebase.games.sparro import VARIANTS\nimport tablebase.games\n")
    names = imported_modules(sample)
    assert names == ["numpy", "sqlite3", "tablebase.db.store", "tablebase.games.sparro", "tablebase.games"]
    assert all(any(name == root or name.startswith(root + ".") for root in FORBIDDEN_IN_CLI) for name in names)


@pytest.mark.parametrize("layer", ["solver", "db", "render"])
def test_lower_layers_do_not_import_interfaces_or_the_service(layer: str) -> None:
    for path in sorted((ROOT / layer).glob("*.py")):
        bad = [name for name in imported_modules(path)
               if name.startswith(("tablebase.cli", "tablebase.service", "click"))]
        assert bad == [], f"{layer}/{path.name} imports {bad}"
