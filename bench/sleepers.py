"""Benchmark: what a sleeping submission costs, and how long honest tests are ever asleep (issue 20).

1. Grades the bitgrid reference with `time.sleep(600)` at import (each of its 14 tests sleeps) and
   prints the wall time of the whole grading and each test's verdict and message. With `--before`
   it grades it a second time as before issue 20, the sleep rule switched off
   (`grader.run.asleep.AFTER_S` infinite), so that every test waits out the wall-clock safety net
   (about 7.5 minutes).
2. Grades every bundled exercise's reference (every test) and prints, per exercise, the longest
   stretch any of its tests was asleep by the watchdog's measure (no thread runnable, the CPU
   counter nearly still): the margin of `AFTER_S` against honest tests.

`--busy` runs both with two busy loops per core (each in a session of its own, as independent
jobs are). Prints figures and `uptime`'s load; asserts no times.

    .venv/bin/python bench/sleepers.py [--busy] [--before] [--exercises bitgrid ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.watchdog_share import busy_loops  # noqa: E402
from grader.judge.grade import grade  # noqa: E402
from grader.judge.testrun import Grader, TestRun  # noqa: E402
from grader.run import asleep  # noqa: E402
from grader.suite.load import load_suite  # noqa: E402
from grader.suite.schema import TestSpec  # noqa: E402

EXERCISES = ["bitgrid", "weighted", "gametree", "alphabeta", "ultimate", "boardgame"]


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


@contextmanager
def longest_asleep() -> Iterator[dict[str, float]]:
    """Records every test's longest asleep stretch, by test name, while the block runs."""
    seen: dict[str, float] = {}
    original = Grader.run_test

    def recorded(self: Grader, test: TestSpec, swapped: Sequence[str] = ()) -> TestRun:
        run = original(self, test, swapped)
        if run.outcome is not None:
            seen[test.name] = max(seen.get(test.name, 0.0), run.outcome.asleep_s)
        return run

    Grader.run_test = recorded  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        Grader.run_test = original  # type: ignore[method-assign]


def sleeper(before: bool) -> None:
    loaded = load_suite("bitgrid")
    folder = Path(tempfile.mkdtemp(prefix="bench-sleeper-"))
    try:
        reference = (loaded.exercise.reference / "grid.py").read_text()
        (folder / "grid.py").write_text(reference + "\nimport time\ntime.sleep(600)\n")
        rules = [("now", asleep.AFTER_S)] + ([("before issue 20", float("inf"))] if before else [])
        for label, after_s in rules:
            saved, asleep.AFTER_S = asleep.AFTER_S, after_s
            try:
                start = time.monotonic()
                report = grade(loaded, folder, sandbox="bwrap")
                seconds = time.monotonic() - start
            finally:
                asleep.AFTER_S = saved
            verdicts = sorted({r.verdict.value for r in report.results})
            print(
                f"sleeper at import, bitgrid ({len(report.results)} tests), {label}: "
                f"{seconds:.1f} s of wall time, verdicts {verdicts} (load {load()})"
            )
            print(f"  e.g. {report.results[0].name}: {report.results[0].message}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def honest(exercises: list[str]) -> None:
    for name in exercises:
        loaded = load_suite(name)
        with longest_asleep() as seen:
            report = grade(loaded, loaded.exercise.reference, sandbox="bwrap")
        worst = max(seen.items(), key=lambda item: item[1]) if seen else ("-", 0.0)
        verdicts = sorted({r.verdict.value for r in report.results})
        print(
            f"{name} reference, {len(report.results)} tests {verdicts}: longest asleep "
            f"{worst[1]:.3f} s ({worst[0]}); AFTER_S {asleep.AFTER_S:g} s (load {load()})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true", help="two busy loops per core meanwhile")
    parser.add_argument(
        "--before", action="store_true", help="also grade the sleeper without the sleep rule (slow)"
    )
    parser.add_argument("--exercises", nargs="*", default=EXERCISES)
    args = parser.parse_args()
    with busy_loops() if args.busy else nullcontext(0) as loops:
        print(f"{loops} busy loops; load {load()}")
        sleeper(args.before)
        honest(args.exercises)


if __name__ == "__main__":
    main()
