"""Grading a whole class: every sub-folder or .zip of a folder is one student's submission.

Pool processes grade; the main process alone stores what they return (gradebook first, then the
student's files), so an interrupted batch keeps exactly the results it finished.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grader.batch import identity as ids
from grader.batch.discover import Discovery, discover
from grader.batch.grading import Payload as Payload  # re-exported for its callers
from grader.batch.grading import default_jobs as default_jobs
from grader.batch.grading import failed_report as failed_report
from grader.batch.grading import grade_one as grade_one
from grader.batch.grading import status_of as status_of
from grader.batch.pool import pool_setup as pool_setup
from grader.batch.pool import stop_pool as stop_pool
from grader.cluster.executors import open_executor
from grader.cluster.job import BatchJob
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


def store(book: Gradebook, loaded: LoadedSuite, out: Path, student: str,
          identity: ids.Identity, payload: Payload) -> Attempt:
    """Keep one finished grading: its gradebook row, then results.json, junit.xml, feedback."""
    data = payload["results"]
    graded_at = datetime.now(UTC).isoformat(timespec="seconds")
    data["extra_data"].update(student=student, status=payload["status"], graded_at=graded_at,
                              **identity.as_dict())
    attempt = attempt_from_results(student, identity.as_dict(), payload["status"], data,
                                   graded_at)
    book.add(attempt)
    folder = out / student
    write_atomically(folder / JUNIT_NAME, payload["junit"])
    hidden = frozenset(t["name"] for t in data["tests"] if t.get("visibility") != "visible")
    write_atomically(folder / FEEDBACK_NAME, feedback_html(loaded.name, attempt, hidden))
    write_atomically(folder / FEEDBACK_INSTRUCTOR_NAME,
                     feedback_html(loaded.name, attempt, hidden, instructor=True))
    write_atomically(results_path(out, student), json.dumps(data, indent=1) + "\n")
    return attempt


@dataclass
class Plan:
    """What a batch grades: every submission's identity, and which ones it keeps from before."""

    submissions: dict[str, Path]
    identities: dict[str, ids.Identity]
    todo: list[str]
    kept: list[str] = field(default_factory=list)


def plan(loaded: LoadedSuite, found: Discovery, book: Gradebook, out: Path,
         resume: bool) -> Plan:
    """Identify every submission; with `resume`, keep those whose inputs did not change."""
    suite_fp = ids.suite_fingerprint(loaded)
    expected_fp = ids.expectations_fingerprint(loaded)
    identities = {student: ids.identity_of(loaded, source, suite_fp, expected_fp)
                  for student, source in found.submissions.items()}
    latest = book.latest(identities) if resume else {}
    kept = [student for student, identity in identities.items()
            if student in latest and latest[student].identity == identity.as_dict()
            and results_path(out, student).is_file()]
    todo = [student for student in identities if student not in set(kept)]
    return Plan(submissions=found.submissions, identities=identities, todo=todo, kept=kept)


@dataclass
class BatchProgress:
    total: int
    done: int = 0
    failures: int = 0
    skipped: int = 0
    judge_errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


OnDone = Callable[[str, Attempt, BatchProgress], None]


def grade_planned(loaded: LoadedSuite, batch: Plan, out: Path, book: Gradebook, jobs: int | None,
                  public_only: bool = False, sandbox: str | None = None,
                  on_done: OnDone | None = None, executor: str = "local",
                  scheduler: str | None = None) -> BatchProgress:
    """Grade `batch.todo` on `executor`, storing each result here as it ends; Ctrl-C stops
    within seconds."""
    progress = BatchProgress(total=len(batch.submissions), skipped=len(batch.kept))
    progress.done = progress.skipped
    job = BatchJob(loaded, out, public_only=public_only, sandbox=sandbox)
    with open_executor(executor, job, jobs, scheduler) as running:
        for student in batch.todo:
            running.submit(student, batch.submissions[student])
        for student, payload in running.completed():
            attempt = store(book, loaded, out, student, batch.identities[student], payload)
            with progress.lock:
                progress.done += 1
                if attempt.score < attempt.max_score:
                    progress.failures += 1
                if attempt.status == "JE":
                    progress.judge_errors.append(student)
            if on_done is not None:
                on_done(student, attempt, progress)
    return progress


def grade_batch(loaded: LoadedSuite, folder: Path, out: Path, jobs: int | None, resume: bool,
                public_only: bool = False, sandbox: str | None = None,
                on_done: OnDone | None = None, executor: str = "local",
                scheduler: str | None = None) -> BatchProgress:
    """Discover, plan and grade a class folder into `out` (no roster, no checks before)."""
    found = discover(folder, loaded.suite.submit)
    out.mkdir(parents=True, exist_ok=True)
    with Gradebook.of(out) as book:
        book.claim(loaded.name)
        batch = plan(loaded, found, book, out, resume)
        return grade_planned(loaded, batch, out, book, jobs, public_only, sandbox, on_done,
                             executor, scheduler)


def write_class_reports(loaded: LoadedSuite, out: Path, book: Gradebook, students: list[str],
                        roster: Roster | None = None, public_only: bool = False) -> Summary:
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


