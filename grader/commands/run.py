"""`grader run`: a driver of an exercise, interactively, on a submission, the reference, or (in
a handout) the student's working copy.

The reference and the caller's own working copy run as `python driver.py` would (the caller's
environment and files). A `--submission` is someone else's code: it runs confined
(`grader.run.interactive`: bubblewrap, the suite's memory and process limits, on the caller's
terminal), or, where bubblewrap cannot run, not at all unless `--unconfined` says to trust it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from grader import owners
from grader.errors import UsageError
from grader.exercise import Exercise
from grader.run.interactive import RunLimits, driver_command, require_bubblewrap, run_confined
from grader.run.submission import SubmissionError, prepare
from grader.suite.load import LoadedSuite, load_suite


def default_source(exercise: Exercise) -> Path:
    """The reference where there is one; in a handout (no reference), the student's working copy."""
    return exercise.reference if exercise.reference.is_dir() else exercise.stubs


def run_limits(loaded: LoadedSuite) -> RunLimits:
    """The most any of the suite's tests may use: memory, processes, scratch space."""
    suite = loaded.suite
    merged = [suite.limits.merged(test.limits) for test in suite.tests]
    return RunLimits(
        memory_mb=max(limits.memory_mb for limits in merged),
        processes=max(limits.processes for limits in merged),
        scratch_mb=max(limits.scratch_mb for limits in merged),
    )


@dataclass(frozen=True)
class DriverRun:
    """Who runs the driver, and with which arguments."""

    submission: Path | None
    unconfined: bool
    args: list[str]


def leading_flags(submission: Path | None, unconfined: bool, args: list[str]) -> DriverRun:
    """`--submission DIR` and `--unconfined` written after the driver (argparse leaves them in
    the driver's arguments) taken out of them.

    >>> leading_flags(None, False, ["--submission=s", "--unconfined", "--", "-x"])
    DriverRun(submission=PosixPath('s'), unconfined=True, args=['-x'])
    """
    rest = list(args)
    while rest[:1] and (rest[0].startswith("--submission") or rest[0] == "--unconfined"):
        flag = rest.pop(0)
        if flag == "--unconfined":
            unconfined = True
        elif "=" in flag:
            submission = Path(flag.split("=", 1)[1])
        elif rest:
            submission = Path(rest.pop(0))
        else:
            raise UsageError("--submission needs a folder")
    return DriverRun(submission, unconfined, rest[1:] if rest[:1] == ["--"] else rest)


def main(
    *,
    exercise: str,
    driver: str,
    submission: Path | None = None,
    unconfined: bool = False,
    args: list[str] | None = None,
) -> int:
    """Run the given program `driver` of `exercise` on the caller's terminal, with `args`; exit
    with its status.

    It runs on the reference (in a handout, the working copy), as `python driver.py` would; a
    `submission` (folder or .zip) is someone else's code and runs confined in bubblewrap, or, when
    `unconfined`, with the caller's own privileges.
    """
    loaded = load_suite(exercise)
    suite = loaded.suite
    if f"{driver}.py" not in suite.given:
        drivers = ", ".join(name.removesuffix(".py") for name in suite.given) or "none"
        raise UsageError(
            f"{loaded.path}: '{driver}' is not a given file of {suite.exercise} (given: {drivers})"
        )
    asked = leading_flags(submission, unconfined, args or [])
    confined = asked.submission is not None and not asked.unconfined
    if confined:
        require_bubblewrap()
    source = asked.submission or default_source(loaded.exercise)
    errors = Console(stderr=True, soft_wrap=True, highlight=False)
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("run-")) as scratch:
        code = Path(scratch) / "code"
        prepared = prepare(source, loaded.exercise, suite.submit, suite.given, code, overlay=None)
        if prepared.missing:
            raise SubmissionError(f"{source} lacks {', '.join(prepared.missing)}")
        if not confined:
            if asked.submission is not None:
                errors.print(
                    f"[yellow]note:[/] running {source} unconfined, with your own "
                    "privileges, files and environment"
                )
            command = driver_command(code, driver, asked.args, [sys.executable])
            return subprocess.call(command, cwd=os.getcwd())
        limits = run_limits(loaded)
        errors.print(
            f"[dim]confined: only the submission's code is visible, no network, at most "
            f"{limits.memory_mb:g} MB of memory and {limits.cpu_s} s of CPU time[/]"
        )
        ended = run_confined(code, driver, asked.args, suite.env, limits)
        if ended.stopped_by is not None:
            errors.print(f"[red]stopped:[/] {ended.stopped_by} (the limit of grader run --submission)")
        return ended.exit_code
