"""`grader check`: a student's working copy against the visible tests."""

from __future__ import annotations

import argparse

from rich.console import Console

from grader.commands import EXIT_OK
from grader.judge.grade import grade
from grader.report.reports import print_report
from grader.suite.load import load_suite


def run(args: argparse.Namespace, console: Console) -> int:
    loaded = load_suite(args.exercise)
    report = grade(loaded, loaded.exercise.stubs, public_only=True, sandbox=args.sandbox,
                   default_sandbox="process")
    print_report(report, console)
    return EXIT_OK
