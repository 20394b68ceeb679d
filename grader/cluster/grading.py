"""Grading one submission of a batch, in whichever process runs it (a local pool's, a cluster
worker's child): what it produced comes back as plain data for the batch to store."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from grader.cluster.job import Payload
from grader.judge.grade import GradeReport, grade, hidden_points_not_run, select_tests
from grader.judge.verdicts import TestResult, Verdict
from grader.report.reports import junit_xml, results_json
from grader.run.submission import SubmissionError, is_empty
from grader.suite.load import LoadedSuite, load_suite


def failed_report(
    loaded: LoadedSuite,
    source: Path,
    message: str,
    verdict: Verdict = Verdict.CE,
    public_only: bool = False,
    names: list[str] | None = None,
) -> GradeReport:
    """A report for a submission that could not be graded at all: every test scores 0.

    The tests are those a grading would run (`public_only`: the visible ones; `names`: those
    named), so its max_score is that of the submissions graded beside it."""
    report = GradeReport(
        exercise=loaded.name,
        submission=str(source),
        question_titles=loaded.suite.question_titles(),
        hidden_points_not_run=hidden_points_not_run(loaded, public_only),
    )
    report.notes.append(message)
    for test in select_tests(loaded, public_only, names):
        report.results.append(
            TestResult(
                name=test.name,
                verdict=verdict,
                points=0.0,
                max_points=test.points,
                visibility=test.visibility,
                kind=test.kind,
                message=message,
                question=test.question or "",
                cause=message,
            )
        )
    return report


def status_of(report: GradeReport) -> str:
    """The status column of a graded submission (the verdicts say the rest)."""
    verdicts = {result.verdict for result in report.results}
    if Verdict.JE in verdicts:
        return "JE"
    if report.missing:
        return "not-submitted-files"
    if Verdict.CE in verdicts:
        return "CE"
    return "graded"


@functools.cache
def _suite(path: str, root: str) -> LoadedSuite:
    return load_suite(path, Path(root))


def grade_one(root: str, suite_path: str, source: Path, public_only: bool, sandbox: str | None) -> Payload:
    """Grade one submission (in a pool process): its results.json, JUnit XML and status."""
    report, status = graded_or_failed(
        _suite(suite_path, root), source, public_only=public_only, sandbox=sandbox
    )
    return {"results": results_json(report), "junit": junit_xml(report), "status": status}


def graded_or_failed(
    loaded: LoadedSuite,
    source: Path,
    *,
    public_only: bool = False,
    names: list[str] | None = None,
    sandbox: str | None = None,
    on_result: Callable[[TestResult], None] | None = None,
    passed_on: tuple[type[BaseException], ...] = (),
    prior: Mapping[str, str] | None = None,
) -> tuple[GradeReport, str]:
    """A grading's report and status; one that cannot happen is a report where every test
    (of those selected) scores 0: `empty`, `corrupt` (the student's unreadable .zip, or one
    swapped for a FIFO), or `JE` naming the grader's error. `passed_on` errors are raised."""

    def failed(message: str, verdict: Verdict = Verdict.CE) -> GradeReport:
        return failed_report(loaded, source, message, verdict, public_only, names)

    try:
        if is_empty(source):
            return failed("the submission holds no file"), "empty"
        report = grade(
            loaded,
            source,
            public_only=public_only,
            names=names,
            sandbox=sandbox,
            on_result=on_result,
            prior=prior,
        )
        return report, status_of(report)
    except SubmissionError as error:
        return failed(str(error)), "corrupt"
    except passed_on:
        raise
    except Exception as error:
        return failed(f"grader error: {error!r}", Verdict.JE), "JE"


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
