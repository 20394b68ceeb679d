"""`grader grade EXERCISE SUBMISSION`: one submission (`grader batch` grades a class)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from grader.batch.discover import looks_like_a_class
from grader.commands.output import judge_error_status, stdout_console
from grader.errors import UsageError
from grader.judge.grade import grade, select_tests
from grader.judge.preflight import preflight
from grader.report.reports import print_report, write_junit, write_results
from grader.sandboxes import SandboxChoice
from grader.suite.load import load_suite


def main(
    *,
    exercise: str,
    submission: Path,
    results: Path | None = None,
    junit: Path | None = None,
    public: bool = False,
    tests: list[str] | None = None,
    sandbox: SandboxChoice | None = None,
    console: Console | None = None,
) -> int:
    """Grade one submission (a folder or a .zip) and print its report.

    `exercise` is a name (`bitgrid`) or a suite file; `results` and `junit` also write Gradescope's
    results.json and JUnit XML there; `public` grades only the visible tests, `tests` only those
    named; `sandbox` defaults to $GRADER_SANDBOX, the suite's, else bwrap. The suite is checked
    first (`grader.judge.preflight`): a problem is the author's, exit 3 with nothing graded.
    Exit 1 when a test got JE (the report and files are still written).
    """
    console = stdout_console(console)
    loaded = load_suite(exercise)
    if looks_like_a_class(submission, loaded.suite.submit):
        raise UsageError(
            f"{submission}: holds several submissions (folders or .zip files with "
            f"{', '.join(loaded.suite.submit)}), not one; to grade them all, use "
            f"`grader batch`"
        )
    chosen = select_tests(loaded, public, tests)
    preflight(loaded, chosen).stop_on_errors("nothing graded")
    report = grade(loaded, submission, public_only=public, names=tests, sandbox=sandbox)
    print_report(report, console)
    if results:
        write_results(report, results)
    if junit:
        write_junit(report, junit)
    return judge_error_status(report)
