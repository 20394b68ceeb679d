"""`grader run`: a driver of an exercise, interactively, on a submission, the reference, or (in
a handout) the student's working copy.

The reference and the caller's own working copy run as `python driver.py` would (the caller's
environment and files). A `--submission` is someone else's code: it runs confined
(`grader.run.interactive`: bubblewrap, the suite's memory and process limits, on the caller's
terminal), or, where bubblewrap cannot run, not at all unless `--unconfined` says to trust it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from grader import owners
from grader.commands import EXIT_BAD_INPUT, EXIT_USAGE
from grader.exercise import Exercise
from grader.run.interactive import RunLimits, driver_command, require_bubblewrap, run_confined
from grader.run.submission import prepare
from grader.suite.load import LoadedSuite, load_suite


def default_source(exercise: Exercise) -> Path:
    """The reference where there is one; in a handout (no reference), the student's working copy."""
    return exercise.reference if exercise.reference.is_dir() else exercise.stubs


def run_limits(loaded: LoadedSuite) -> RunLimits:
    """The most any of the suite's tests may use: memory, processes, scratch space."""
    suite = loaded.suite
    merged = [suite.limits.merged(test.limits) for test in suite.tests]
    return RunLimits(memory_mb=max(limits.memory_mb for limits in merged),
                     processes=max(limits.processes for limits in merged),
                     scratch_mb=max(limits.scratch_mb for limits in merged))


def _leading_flags(args: argparse.Namespace) -> str | None:
    """`--submission DIR` and `--unconfined` written after the driver (argparse leaves them in
    the driver's arguments); a usage problem, or None."""
    rest = list(args.args)
    while rest[:1] and (rest[0].startswith("--submission") or rest[0] == "--unconfined"):
        flag = rest.pop(0)
        if flag == "--unconfined":
            args.unconfined = True
        elif "=" in flag:
            args.submission = Path(flag.split("=", 1)[1])
        elif rest:
            args.submission = Path(rest.pop(0))
        else:
            return "--submission needs a folder"
    args.args = rest[1:] if rest[:1] == ["--"] else rest
    return None


def run(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    suite = loaded.suite
    if f"{args.driver}.py" not in suite.given:
        drivers = ", ".join(name.removesuffix(".py") for name in suite.given) or "none"
        console.print(f"[red]error:[/] {loaded.path}: '{args.driver}' is not a given file of "
                      f"{suite.exercise} (given: {drivers})")
        return EXIT_USAGE
    problem = _leading_flags(args)
    if problem is not None:
        console.print(f"[red]error:[/] {problem}")
        return EXIT_USAGE
    confined = args.submission is not None and not args.unconfined
    if confined:
        require_bubblewrap()
    source = args.submission or default_source(loaded.exercise)
    errors = Console(stderr=True, soft_wrap=True, highlight=False)
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("run-")) as scratch:
        code = Path(scratch) / "code"
        prepared = prepare(source, suite.exercise, suite.submit, suite.given, code, overlay=None)
        if prepared.missing:
            console.print(f"[red]error:[/] {source} lacks {', '.join(prepared.missing)}")
            return EXIT_BAD_INPUT
        if not confined:
            if args.submission is not None:
                errors.print(f"[yellow]note:[/] running {source} unconfined, with your own "
                             "privileges, files and environment")
            command = driver_command(code, args.driver, args.args, [sys.executable])
            return subprocess.call(command, cwd=os.getcwd())
        limits = run_limits(loaded)
        errors.print(f"[dim]confined: only the submission's code is visible, no network, at most "
                     f"{limits.memory_mb:g} MB of memory and {limits.cpu_s} s of CPU time[/]")
        os.chmod(scratch, 0o755)  # the run's unprivileged uid reads the code below it
        ended = run_confined(code, args.driver, args.args, suite.env, limits)
        if ended.stopped_by is not None:
            errors.print(f"[red]stopped:[/] {ended.stopped_by} (the limit of grader run "
                         f"--submission)")
        return ended.exit_code
