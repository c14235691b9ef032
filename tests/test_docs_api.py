"""docs/api.md is a working tour: its Python blocks run in order, in one namespace, in a
folder holding the solved Sparro tables as tablebase.sqlite."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_api_tour_runs(sparro_standard_db: Path, tmp_path: Path) -> None:
    blocks = python_blocks((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    shutil.copy(sparro_standard_db, tmp_path / "tablebase.sqlite")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        namespace: dict = {}
        for number, block in enumerate(blocks, start=1):
            exec(compile(block, f"docs/api.md block {number}", "exec"), namespace)
    finally:
        os.chdir(here)
    assert (tmp_path / "custom.sqlite").exists()  # the solve block wrote its own file


def test_the_readme_api_lines_run(sparro_standard_db: Path, tmp_path: Path) -> None:
    blocks = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert blocks
    shutil.copy(sparro_standard_db, tmp_path / "tablebase.sqlite")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for number, block in enumerate(blocks, start=1):
            exec(compile(block, f"README.md block {number}", "exec"), {})
    finally:
        os.chdir(here)
