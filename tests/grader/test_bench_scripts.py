"""Every benchmark script still imports and parses its options: benchmarks run by hand (`make
bench`), so nothing else notices when the grader's code moves under them."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(path.stem for path in (ROOT / "bench").glob("*.py") if path.stem != "__init__")


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_benchmark_imports_and_its_help_runs(name: str) -> None:
    importlib.import_module(f"bench.{name}")
    source = (ROOT / "bench" / f"{name}.py").read_text()
    if "argparse" in source:
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / f"{name}.py"), "--help"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: ")
