"""Benchmark: the watchdog's own CPU as a share of the test's CPU (issue 11), idle and under load.

Grades the weighted reference's heaviest tests, task4-3-9 (~0.2 s of CPU) and task4-4-4 (~0.03 s),
each `--runs` times through `Grader.run_test`, and compares the grader process's own CPU time
(`time.process_time()`: this process only, so neither the fork server nor the test) with the
test's `cpu_s`. What is counted is everything the parent does for the test: the watchdog's
sampling, collecting the output, reading the expectations and comparing the transcript, so it
is an upper bound of the watchdog alone. Then the same with two busy loops per core running
(each in a session of its own, as independent jobs are, so the kernel's autogroup scheduling
gives each its share).

    .venv/bin/python bench/watchdog_share.py [--runs N] [--exercise weighted]
        [--tests task4-3-9 task4-4-4] [--mutant AC/plain-literal]

`--mutant VERDICT/NAME` grades that known submission (mutant or solution) instead of the
reference: AC/plain-literal's task4-3-9 lasts about 2.3-2.7 s, a test of the length the target is for
(its task2-4-5, 2.7 s, was measured until issue 28 removed that test).

Target: under 5 % of the test's CPU, idle and under load. Prints figures; asserts no times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.judge.calibration import resolve_limits  # noqa: E402
from grader.judge.grade import select_tests  # noqa: E402
from grader.judge.mutants import applied, mutants_of  # noqa: E402
from grader.judge.testrun import Grader, prepared_submission  # noqa: E402
from grader.run import watchdog  # noqa: E402
from grader.run.cgroup import hierarchies  # noqa: E402
from grader.run.sandbox import choose  # noqa: E402
from grader.suite.load import LoadedSuite, load_suite  # noqa: E402

TARGET_PERCENT = 5.0
LOOPS_PER_CORE = 2
BUSY_LOOP = (
    "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    for _ in range(100_000): pass\n"
)


@contextmanager
def busy_loops() -> Iterator[int]:
    """Two busy-loop processes per core for the duration of the block; yields how many."""
    loops: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(LOOPS_PER_CORE * (os.cpu_count() or 1)):
            loops.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL, start_new_session=True
                )
            )
        time.sleep(1.0)  # let them reach full speed
        yield len(loops)
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


SAMPLES = [0]


def _counting(sample: Callable[..., watchdog.KillReason | None]) -> Callable[..., watchdog.KillReason | None]:
    """The watchdog's sampling step, counted (to tell the per-sample cost from the fixed one)."""

    def counted(*args: object, **kwargs: object) -> watchdog.KillReason | None:
        SAMPLES[0] += 1
        return sample(*args, **kwargs)

    return counted


def load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


@contextmanager
def submission(loaded: LoadedSuite, mutant: str | None) -> Iterator[Path]:
    """The reference's folder, or the named mutant's or solution's."""
    if mutant is None:
        yield loaded.exercise.reference
        return
    found = {m.name: m for m in mutants_of(loaded.exercise)}
    if mutant not in found:
        sys.exit(
            f"{loaded.exercise.fixtures}: no mutant or solution {mutant} (known: {', '.join(sorted(found))})"
        )
    with applied(found[mutant], loaded.exercise.reference) as folder:
        yield folder


def measure(
    label: str, exercise: str, names: list[str], runs: int, sandbox: str | None, mutant: str | None
) -> None:
    loaded = load_suite(exercise)
    tests = select_tests(loaded, False, names)
    confinement = choose(sandbox, loaded.suite.sandbox, "bwrap")
    limits = resolve_limits(loaded, tests, confinement)
    with (
        submission(loaded, mutant) as folder,
        prepared_submission(loaded, folder) as (prepared, scratch),
        Grader(loaded, prepared, scratch, limits, confinement) as grader,
    ):
        for test in tests:
            own, cpu, wall, shares, verdicts, samples = [], [], [], [], [], []
            for _ in range(runs):
                SAMPLES[0] = 0
                before = time.process_time()
                judgement, run = grader.grade_test(test)
                spent = time.process_time() - before
                outcome = run.outcome
                assert outcome is not None, judgement.message
                own.append(spent)
                cpu.append(outcome.cpu_s)
                wall.append(outcome.wall_s)
                shares.append(100 * spent / outcome.cpu_s)
                verdicts.append(judgement.verdict.value)
                samples.append(SAMPLES[0])
            median = statistics.median
            print(
                f"{label}, {grader.sandbox}: {test.name}: grader {median(own) * 1000:.1f} ms CPU "
                f"for {median(cpu):.2f} s of test CPU ({median(wall):.2f} s wall, "
                f"{median(samples):.0f} samples): median share {median(shares):.2f} % (runs: "
                f"{', '.join(f'{share:.2f}' for share in shares)} %; verdicts "
                f"{' '.join(verdicts)}) (target < {TARGET_PERCENT:g} %); {load()}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--exercise", default="weighted")
    parser.add_argument("--tests", nargs="+", default=["task4-3-9", "task4-4-4"])
    parser.add_argument("--sandbox", default=None, help="default: $GRADER_SANDBOX, else bwrap")
    parser.add_argument("--mutant", default=None, help="VERDICT/NAME; default: the reference")
    args = parser.parse_args()
    watchdog.Test._sample = _counting(watchdog.Test._sample)  # type: ignore[method-assign]
    measured = ", ".join(sorted(set(hierarchies()) - {"kill"})) or "none (wait4 and /proc)"
    print(f"cgroup controllers used for tests: {measured}; {os.cpu_count()} cores; {load()}")
    what = args.mutant or "reference"
    measure(f"{what}, idle", args.exercise, args.tests, args.runs, args.sandbox, args.mutant)
    with busy_loops() as count:
        measure(
            f"{what}, under {count} busy loops",
            args.exercise,
            args.tests,
            args.runs,
            args.sandbox,
            args.mutant,
        )


if __name__ == "__main__":
    main()
