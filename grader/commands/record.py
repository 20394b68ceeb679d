"""`grader record`: run the reference on every test and store what it did as the expectations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from grader.commands import EXIT_CHECK_FAILED, EXIT_OK
from grader.commands.output import stdout_console
from grader.diagnostics import Diagnostics
from grader.errors import UserError
from grader.judge.calibration import uncalibrated
from grader.judge.grade import select_tests
from grader.judge.testrun import Grader, TestRun, prepared_submission
from grader.run.box.protocol import raised
from grader.run.sandbox import for_reference
from grader.suite import expectations
from grader.suite.load import LoadedSuite, load_suite


class RecordError(UserError):
    """The reference itself fails a test, so nothing can be recorded for it."""


@dataclass
class Recording:
    written: list[Path] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def record(
    loaded: LoadedSuite, names: list[str] | None = None, progress: Callable[[str], None] | None = None
) -> Recording:
    recording = Recording()
    tests = select_tests(loaded, public_only=False, names=names)
    with prepared_submission(loaded, loaded.exercise.reference) as (prepared, scratch):
        if prepared.missing:
            raise RecordError(f"reference/{loaded.name} lacks {', '.join(prepared.missing)}")
        # The reference runs under the suite's limits, relative ones uncalibrated: it is what they
        # are calibrated on.
        with Grader(loaded, prepared, scratch, uncalibrated(loaded, tests), for_reference()) as grader:
            for test in tests:
                run = grader.run_test(test)
                problem = why_not_recordable(run)
                if problem is not None:
                    recording.failures.append(f"{test.name}: the reference gets {problem}")
                    continue
                assert run.observed is not None
                recording.written += expectations.write(loaded, test, run.observed)
                if progress is not None and run.outcome is not None:
                    progress(
                        f"{test.name}: recorded ({run.outcome.cpu_s:.2f} s CPU, {run.outcome.peak_mb:.1f} MB)"
                    )
    return recording


def why_not_recordable(run: TestRun) -> str | None:
    """What is wrong with a run of the reference (a verdict, or a step not implemented, not
    importing or returning something that is not data), or None when it can be recorded."""
    if run.stopped is not None:
        return f"{run.stopped.verdict.value}: {run.stopped.message}"
    for step in run.observed if isinstance(run.observed, list) else []:
        failed = raised(step)
        if failed is not None and (failed["ni"] or failed["import"]):
            return f"an error: {failed['message']}"
        if "unplain" in step:
            return f"an error: {step.get('unplain')}"
    return None


def main(*, exercise: str, tests: list[str] | None = None, console: Console | None = None) -> int:
    """(Re)write the expectations of every test (or of `tests`) from the reference; exit 4 when
    the reference fails a test, which is then not recorded."""
    console = stdout_console(console)
    loaded = load_suite(exercise)
    recording = record(loaded, names=tests, progress=console.print)
    problems = Diagnostics()
    for failure in recording.failures:
        problems.error(f"not recorded: {failure}", file=loaded.path)
    problems.print()
    console.print(
        f"{len(recording.written)} file(s) written under {loaded.fixtures}; "
        f"review them with `git diff {loaded.fixtures}`"
    )
    return EXIT_CHECK_FAILED if recording.failures else EXIT_OK
