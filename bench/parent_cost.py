"""Benchmark: the grader's own CPU for one grading of each exercise's reference, apart from its tests.

Grades reference/NAME `--runs` times in this process (bubblewrap by default) and prints, per
grading, this process's CPU time (`time.process_time()`: launching tests, sampling their cgroups,
decoding and comparing what they send back, games' referees), the CPU its tests report and the
wall time, with the load average before and after. Step-heavy suites show the parent's share:
gametree's reference sends back about 16,700 step outcomes per grading.

    .venv/bin/python bench/parent_cost.py [NAME ...] [--runs 3] [--sandbox bwrap]

Measured figures go in bench/README.md. Prints figures; asserts no times.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.judge.grade import grade  # noqa: E402
from grader.suite.load import load_suite  # noqa: E402

EXERCISES = ["alphabeta", "bitgrid", "boardgame", "gametree", "ultimate", "weighted"]


def load() -> str:
    return " ".join((Path("/proc/loadavg").read_text()).split()[:3])


def measure(name: str, runs: int, sandbox: str) -> str:
    loaded = load_suite(name)
    grade(loaded, loaded.exercise.reference, sandbox=sandbox)  # caches warm: cases, bytecode
    cpu, wall, tests = time.process_time(), time.monotonic(), 0.0
    for _ in range(runs):
        report = grade(loaded, loaded.exercise.reference, sandbox=sandbox)
        tests += sum(result.usage.cpu_s for result in report.results if result.usage is not None)
    parent = (time.process_time() - cpu) / runs
    return (
        f"{name}: the parent {parent:.3f} CPU-s per grading, its tests {tests / runs:.3f} CPU-s, "
        f"wall {(time.monotonic() - wall) / runs:.2f} s ({runs} gradings)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=EXERCISES, help="exercises (default: all six)")
    parser.add_argument("--runs", type=int, default=3, help="gradings per exercise (default 3)")
    parser.add_argument("--sandbox", default="bwrap", help="sandbox level (default bwrap)")
    options = parser.parse_args()
    print(f"load before: {load()}")
    for name in options.names:
        print(measure(name, options.runs, options.sandbox), flush=True)
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
