"""Every package type-checks cleanly (house style: mypy clean).

The package folders are mapped to `tablebase.*` at install time, which mypy cannot
follow in place, so the test lays out the same mapping with symbolic links."""

from __future__ import annotations

from pathlib import Path

import pytest

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "solver", "db", "service", "render", "cli")


@pytest.mark.slow
def test_every_package_is_mypy_clean(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "tablebase"
    package.mkdir()
    (package / "__init__.py").symlink_to(ROOT / "tablebase" / "__init__.py")
    for name in PACKAGES:
        (package / name).symlink_to(ROOT / name, target_is_directory=True)
    monkeypatch.setenv("MYPYPATH", str(tmp_path))
    stdout, stderr, status = api.run([
        "-p", "tablebase",  # the facade and every subpackage under it
        "--ignore-missing-imports",
        "--cache-dir", str(tmp_path / ".mypy_cache"), "--config-file", str(ROOT / "pyproject.toml"),
    ])
    assert status == 0, stdout + stderr
