"""Benchmark: what a student's commands cost inside a handout (issue 14).

For the two largest handouts (alphabeta, gametree), builds the handout, then times
`python -m grader check NAME` and `python -m pytest exercises/NAME` there, with the stubs and with
the reference copied in: CPU seconds (user + system, the grader and every test process), wall
seconds, and the load. Target: `grader check` of the largest handout <= 4 s of CPU.

Run: .venv/bin/python bench/handout_check.py
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.commands.handout import make_handout  # noqa: E402 - needs the root on sys.path first
from grader.suite.load import load_suite  # noqa: E402


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds of the command and its children, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    env = {key: value for key, value in os.environ.items() if key != "GRADER_ROOT"}
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("alphabeta", "gametree"):
            loaded = load_suite(name)
            handout = Path(scratch) / name
            make_handout(loaded, handout)
            size = sum(p.stat().st_size for p in handout.glob(f"fixtures/{name}/*") if p.is_file())
            print(f"{name}: suite and generated cases {size / 1024:.0f} KB")
            for state in ("stubs", "reference"):
                if state == "reference":
                    for source in loaded.exercise.reference.glob("*.py"):
                        shutil.copy(source, handout / "exercises" / name)
                for label, command in (
                    ("grader check", [sys.executable, "-m", "grader", "check", name]),
                    (
                        "pytest",
                        [sys.executable, "-m", "pytest", f"exercises/{name}", "-q", "-p", "no:cacheprovider"],
                    ),
                ):
                    cpu, wall = timed(command, handout)
                    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
                    print(f"  {label:12} {state:9} {cpu:5.2f} s CPU {wall:5.2f} s wall (load {load})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
