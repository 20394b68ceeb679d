"""`grader run`: a driver of an exercise, interactively, on a submission, the reference, or (in
a handout) the student's working copy."""

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
from grader.run.submission import prepare
from grader.suite.load import load_suite


def default_source(exercise: Exercise) -> Path:
    """The reference where there is one; in a handout (no reference), the student's working copy."""
    return exercise.reference if exercise.reference.is_dir() else exercise.stubs


def run(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    suite = loaded.suite
    if f"{args.driver}.py" not in suite.given:
        drivers = ", ".join(name.removesuffix(".py") for name in suite.given) or "none"
        console.print(f"[red]error:[/] {loaded.path}: '{args.driver}' is not a given file of "
                      f"{suite.exercise} (given: {drivers})")
        return EXIT_USAGE
    rest = list(args.args)
    while rest[:1] and rest[0].startswith("--submission"):
        flag = rest.pop(0)
        if "=" in flag:
            args.submission = Path(flag.split("=", 1)[1])
        elif rest:
            args.submission = Path(rest.pop(0))
        else:
            console.print("[red]error:[/] --submission needs a folder")
            return EXIT_USAGE
    args.args = rest
    source = args.submission or default_source(loaded.exercise)
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("run-")) as scratch:
        code = Path(scratch) / "code"
        prepared = prepare(source, suite.exercise, suite.submit, suite.given, code,
                           overlay=None)
        if prepared.missing:
            console.print(f"[red]error:[/] {source} lacks {', '.join(prepared.missing)}")
            return EXIT_BAD_INPUT
        driver_args = [a for a in args.args if a != "--"] if args.args[:1] == ["--"] else args.args
        bootstrap = ("import runpy, sys; sys.path.insert(0, sys.argv[1]); "
                     "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')")
        command = [sys.executable, "-c", bootstrap, str(code), str(code / f"{args.driver}.py"),
                   *driver_args]
        return subprocess.call(command, cwd=os.getcwd())
