"""Benchmark: each test's CPU limit against a plain right solution's CPU, measured by the grader.

    .venv/bin/python bench/plain_limits.py [NAME ...] [--mutant AC/plain-student|reference]
                                           [--runs 3] [--test TEST ...] [--sandbox auto]

The plain solution is a known right submission, the whole folder fixtures/NAME/solutions/SOLUTION
(AC/SOLUTION) or a diff fixtures/NAME/mutants/AC/MUTANT.diff, over a copy of reference/NAME
(`--mutant reference` grades the reference itself, any other VERDICT/MUTANT that mutant). It is
graded `--runs` times with `grader grade NAME FOLDER --results FILE` and every test's CPU seconds
are read from the results (the grader measures them from outside the test's process). Prints,
per test, the limit the grader applied (relative limits resolved), the CPU range over the runs,
the limit divided by the largest CPU (the margin), the verdicts, and `< 3x` where that margin is
under 3; the load average before and after. Without NAME, every exercise that has the mutant. The limits of
fixtures/NAME/suite.yaml are chosen from these figures.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.exercise import Exercise  # noqa: E402 - needs the root on sys.path first
from grader.judge.mutants import applied, mutants_of  # noqa: E402

MARGIN = 3.0


@dataclass
class Figures:
    """One test's limit and the CPU seconds and verdicts of every run."""

    limit_s: float
    cpu_s: list[float] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)

    def margin(self) -> float:
        """The limit divided by the largest CPU measured.

        >>> Figures(20.0, [4.0, 5.0]).margin()
        4.0
        """
        return self.limit_s / max(max(self.cpu_s), 1e-9)


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def lay_out(exercise: Exercise, mutant_name: str, target: Path) -> None:
    """reference/NAME with the mutant's patched files, or the solution's, over it (`reference`:
    none)."""
    shutil.copytree(exercise.reference, target)
    if mutant_name == "reference":
        return
    found = {m.name: m for m in mutants_of(exercise)}
    if mutant_name not in found:
        sys.exit(
            f"{exercise.fixtures}: no mutant or solution {mutant_name} "
            f"(known: {', '.join(sorted(found)) or 'none'})"
        )
    with applied(found[mutant_name], exercise.reference) as patched:
        for source in patched.iterdir():
            shutil.copy(source, target / source.name)


def grade(name: str, folder: Path, tests: list[str], sandbox: str | None) -> list[dict[str, object]]:
    """The per-test results of one `grader grade` run."""
    results = folder.parent / "results.json"
    results.unlink(missing_ok=True)
    command = [
        str(Path(sys.executable).parent / "grader"),
        "grade",
        name,
        str(folder),
        "--results",
        str(results),
    ]
    for test in tests:
        command += ["--test", test]
    if sandbox:
        command += ["--sandbox", sandbox]
    run = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if not results.is_file():
        sys.exit(f"grader grade {name}: no results (exit {run.returncode}): {run.stderr.strip()}")
    tests_run: list[dict[str, object]] = json.loads(results.read_text())["tests"]
    return tests_run


def measure(name: str, mutant: str, runs: int, tests: list[str], sandbox: str | None) -> None:
    """Grade the mutant of exercise `name` `runs` times and print each test's figures."""
    exercise = Exercise.named(name, ROOT)
    if not exercise.suite.is_file():
        sys.exit(f"{exercise.suite}: no such suite (exercise {name!r})")
    figures: dict[str, Figures] = {}
    print(f"load before: {load()}")
    with tempfile.TemporaryDirectory(prefix="plain-limits-") as scratch:
        folder = Path(scratch) / "submission"
        lay_out(exercise, mutant, folder)
        for _run in range(runs):
            for test in grade(name, folder, tests, sandbox):
                extra = test["extra_data"]
                assert isinstance(extra, dict)
                entry = figures.setdefault(str(test["name"]), Figures(float(extra["limits"]["cpu_s"])))
                entry.cpu_s.append(float(extra["cpu_s"] or 0.0))
                entry.verdicts.append(str(extra["verdict"]))
    print(f"load after: {load()}")
    print(f"{name} {mutant}, {runs} runs: test, limit, CPU s (min-max), margin")
    for test_name, entry in figures.items():
        flag = "  < 3x" if entry.margin() < MARGIN else ""
        verdicts = ",".join(sorted(set(entry.verdicts)))
        print(
            f"  {test_name:32} {entry.limit_s:6.2f} {min(entry.cpu_s):7.3f}-{max(entry.cpu_s):<7.3f}"
            f" {entry.margin():7.1f}x  {verdicts}{flag}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help="exercises (default: every one that has the mutant)"
    )
    parser.add_argument("--mutant", default="AC/plain-student")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--test", action="append", default=[])
    parser.add_argument("--sandbox", default=None)
    args = parser.parse_args()
    names = args.names or [
        exercise.name
        for exercise in Exercise.all(ROOT)
        if args.mutant in {m.name for m in mutants_of(exercise)}
    ]
    for name in names:
        measure(name, args.mutant, args.runs, args.test, args.sandbox)
    return 0


if __name__ == "__main__":
    sys.exit(main())
