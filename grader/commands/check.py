"""`grader check`: a student's working copy against the visible tests."""

from __future__ import annotations

from rich.console import Console

from grader.commands.output import judge_error_status, stdout_console
from grader.judge.grade import grade, select_tests
from grader.judge.preflight import preflight
from grader.report.reports import print_report
from grader.sandboxes import SandboxChoice
from grader.suite.load import load_suite


def main(*, exercise: str, sandbox: SandboxChoice | None = None, console: Console | None = None) -> int:
    """Grade the working copy `exercises/EXERCISE` with the visible tests (the student's command).

    `sandbox` defaults to $GRADER_SANDBOX, the suite's, else process limits only (the student's
    own code on their own machine). A problem of the suite stops it first (exit 3); a JE exits 1.
    """
    loaded = load_suite(exercise)
    preflight(loaded, select_tests(loaded, public_only=True)).stop_on_errors("nothing graded")
    report = grade(
        loaded, loaded.exercise.stubs, public_only=True, sandbox=sandbox, default_sandbox="process"
    )
    print_report(report, stdout_console(console))
    return judge_error_status(report)
