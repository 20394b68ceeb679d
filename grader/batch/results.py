"""The files a batch writes under `--out`: one folder per student, then the class's files; and
what is there already."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grader.atomic import make_private
from grader.batch import identity as ids
from grader.cluster.job import Payload
from grader.diagnostics import Diagnostics
from grader.judge.grade import select_tests
from grader.report.gradebook import Attempt, Gradebook, attempt_from_results
from grader.report.grades import grades_csv
from grader.report.reports import write_atomically
from grader.report.roster import Roster
from grader.report.summary import (
    FEEDBACK_INSTRUCTOR_NAME,
    FEEDBACK_NAME,
    Summary,
    feedback_html,
    summarize,
    summary_html,
)
from grader.suite.load import LoadedSuite

RESULTS_NAME = "results.json"
GRADES_NAME = "grades.csv"
SUMMARY_NAME = "summary.html"
JUNIT_NAME = "junit.xml"


def results_path(out: Path, student: str) -> Path:
    return out / student / RESULTS_NAME


def store(
    book: Gradebook, loaded: LoadedSuite, out: Path, student: str, identity: ids.Identity, payload: Payload
) -> Attempt:
    """Keep one finished grading: its gradebook row, then results.json, junit.xml, feedback."""
    data = payload["results"]
    graded_at = datetime.now(UTC).isoformat(timespec="seconds")
    data["extra_data"].update(
        student=student, status=payload["status"], graded_at=graded_at, **identity.as_dict()
    )
    attempt = attempt_from_results(student, identity.as_dict(), payload["status"], data, graded_at)
    book.add(attempt)
    folder = out / student
    write_atomically(folder / JUNIT_NAME, payload["junit"])
    hidden = frozenset(t["name"] for t in data["tests"] if t.get("visibility") != "visible")
    write_atomically(folder / FEEDBACK_NAME, feedback_html(loaded.name, attempt, hidden))
    write_atomically(
        folder / FEEDBACK_INSTRUCTOR_NAME, feedback_html(loaded.name, attempt, hidden, instructor=True)
    )
    write_atomically(results_path(out, student), json.dumps(data, indent=1) + "\n")
    return attempt


def write_class_reports(
    loaded: LoadedSuite,
    out: Path,
    book: Gradebook,
    students: list[str],
    roster: Roster | None = None,
    public_only: bool = False,
) -> Summary:
    """grades.csv and summary.html from the gradebook: each student's latest attempt."""
    tests = select_tests(loaded, public_only)
    names = [test.name for test in tests]
    max_score = sum(test.points for test in tests)
    latest = book.latest(students)
    write_atomically(out / GRADES_NAME, grades_csv(names, max_score, latest, roster))
    summary = summarize(latest, names, max_score)
    write_atomically(out / SUMMARY_NAME, summary_html(loaded.name, summary))
    return summary


def collect(out: Path) -> dict[str, dict[str, Any]]:
    """Every finished results.json under `out`, by student id."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(out.glob(f"*/{RESULTS_NAME}")):
        try:
            found[path.parent.name] = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
    return found


def out_problems(out: Path) -> Diagnostics:
    """Why results cannot be written into `out` (nothing once a probe file was written there)."""
    problems = Diagnostics()
    try:
        make_private(out)
        handle, probe = tempfile.mkstemp(dir=out, prefix=".probe-")
        os.close(handle)
        os.unlink(probe)
    except OSError as error:
        problems.error(f"cannot write the results there ({error.strerror or error})", file=out)
    return problems
