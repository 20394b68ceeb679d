"""Where a command prints: its report on stdout (rich), its problems on stderr (Diagnostics)."""

from __future__ import annotations

import sys

from rich.console import Console

from grader.commands import EXIT_GRADER_FAILED, EXIT_OK
from grader.inert import inert_text
from grader.judge.grade import GradeReport
from grader.judge.verdicts import Verdict


def stdout_console(console: Console | None) -> Console:
    """The console a command prints its report to: the caller's, else stdout."""
    return console if console is not None else Console(soft_wrap=True)


def judge_error_status(report: GradeReport) -> int:
    """Exit 1 when a test of `report` got JE (the grader's fault, said on stderr), else 0."""
    errors = [result for result in report.results if result.verdict is Verdict.JE]
    for result in errors:
        print(inert_text(f"grader error (JE) on {result.name}: {result.message}"), file=sys.stderr)
    return EXIT_GRADER_FAILED if errors else EXIT_OK
