"""The three test sets: the exhaustive sweeps run only with --exhaustive, whatever -m says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SWEEPS = "tests/test_sparro_reachability.py"  # a file with exhaustive, slow and quick tests


def collected(*args: str) -> int:
    """How many tests of SWEEPS pytest selects with ``args``."""
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-o", "addopts=", SWEEPS, *args],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    if "no tests collected" in result.stdout:
        return 0
    found = re.search(r"(\d+)(?:/\d+)? tests? collected", result.stdout)
    assert found is not None, result.stdout
    return int(found.group(1))


@pytest.mark.slow  # five pytest processes
def test_exhaustive_sweeps_need_the_option() -> None:
    everything = collected("--exhaustive")
    full = collected()
    quick = collected("-m", "not slow")
    assert collected("-m", "exhaustive") == 0  # -m cannot pull them in
    assert collected("-m", "exhaustive", "--exhaustive") == everything - full > 0
    assert 0 < quick < full < everything
