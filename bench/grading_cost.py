"""Benchmark: what grading one right submission costs in CPU, whole, against what its tests report.

    .venv/bin/python bench/grading_cost.py [NAME ...] [--solution plain-student] [--sandbox auto]

Grades fixtures/NAME/solutions/SOLUTION of each exercise (every exercise that has one, without
NAME) with `grader grade NAME FOLDER --results FILE` and prints `extra_data.cost` of the results:
the CPU seconds the tests' results report (`tests_cpu_s`), every run of a test (`runs_cpu_s`: the
second runs that explain a failure included; a right submission has none) and the whole grading
(`grading_cpu_s`: the grader's own process, its fork server, every test), with the score, the
most expensive test and the load average before and after. Both the ratio whole / tests and the
figures themselves go in bench/README.md (the README's benchmark table keeps the latest).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def graded(name: str, folder: Path, sandbox: str) -> dict[str, object]:
    """The results.json of grading `folder` as exercise `name`."""
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch) / "results.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                "grade",
                name,
                str(folder),
                "--results",
                str(results),
                "--sandbox",
                sandbox,
            ],
            cwd=ROOT,
            check=False,
            stdout=subprocess.DEVNULL,
        )
        data: dict[str, object] = json.loads(results.read_text())
        return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="exercises (default: every one with the solution)")
    parser.add_argument("--solution", default="plain-student")
    parser.add_argument("--sandbox", default="auto")
    options = parser.parse_args()
    names = options.names or sorted(
        path.parent.parent.name for path in (ROOT / "fixtures").glob(f"*/solutions/{options.solution}")
    )
    print(f"load before: {load()}")
    for name in names:
        folder = ROOT / "fixtures" / name / "solutions" / options.solution
        data = graded(name, folder, options.sandbox)
        extra = data["extra_data"]
        assert isinstance(extra, dict)
        cost = extra["cost"]
        tests = data["tests"]
        assert isinstance(tests, list)
        heaviest = max(tests, key=lambda test: test["extra_data"]["cpu_s"])
        print(
            f"{name} {options.solution}: {data['score']:g}/{extra['max_score']:g}; "
            f"tests {cost['tests_cpu_s']:.2f} s, runs {cost['runs_cpu_s']:.2f} s, whole "
            f"grading {cost['grading_cpu_s']:.2f} s "
            f"({cost['grading_cpu_s'] / max(cost['tests_cpu_s'], 1e-9):.2f}x); heaviest "
            f"{heaviest['name']} {heaviest['extra_data']['cpu_s']:.2f} s"
        )
    print(f"load after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
