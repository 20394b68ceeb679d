"""Benchmark: the weighted exercise's heaviest games, 4x4 at depth 7, tasks 2 and 4.

Runs the `main` driver as a child process on the reference (given files from exercises/) and
prints the child's CPU time, wall time and peak resident memory. Targets from the issue, against
the course's C++ solutions measured on this machine: task 2 within 6 s and 1.3 GB, task 4
within 2 s and 0.64 GB.

    .venv/bin/python bench/weighted_heavy.py [--runs N] [--tasks 2 4] [--size 4] [--depth 7]
        [--over DIR]   # files that replace the reference's, e.g. a mutant's folder
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {2: (6.0, 1300), 4: (2.0, 640)}  # CPU seconds, MB


def prepare(folder: Path, over: Path | None) -> None:
    """Given files, then the reference, then the override folder's files."""
    for source in (ROOT / "exercises" / "weighted", ROOT / "reference" / "weighted", over):
        if source is not None:
            for path in source.glob("*.py"):
                shutil.copy(path, folder / path.name)


def measure(folder: Path, task: int, size: int, depth: int) -> tuple[float, float, float, str]:
    """(CPU seconds, wall seconds, peak MB, last output line) of one child run of the driver."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "main.py", "--size", str(size), "--depth", str(depth)],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(f"{task}\n")
    child.stdin.close()
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)  # this child's own usage, not all children's
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, wall, usage.ru_maxrss / 1024, output.strip().splitlines()[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tasks", type=int, nargs="+", default=[4, 2])
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--over", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        prepare(folder, args.over)
        for task in args.tasks:
            for run in range(args.runs):
                cpu, wall, peak_mb, last = measure(folder, task, args.size, args.depth)
                target = TARGETS.get(task, (0.0, 0))
                print(
                    f"task {task} size {args.size} depth {args.depth} run {run + 1}: "
                    f"cpu {cpu:.2f} s, wall {wall:.2f} s, peak {peak_mb:.0f} MB "
                    f"(target {target[0]:.0f} s, {target[1]} MB); {last}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
