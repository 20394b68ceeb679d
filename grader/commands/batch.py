"""Grading a whole class: every sub-folder or .zip of a folder is one student's submission.

Pool processes grade; the main process alone stores what they return (gradebook first, then the
student's files), so an interrupted batch keeps exactly the results it finished.
"""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import os
import signal
import threading
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grader.batch import identity as ids
from grader.batch.discover import Discovery, discover
from grader.batch.roster import Roster
from grader.exercise import project_root
from grader.judge.grade import GradeReport, grade, select_tests
from grader.judge.verdicts import TestResult, Verdict
from grader.report.gradebook import Attempt, Gradebook, attempt_from_results
from grader.report.grades import grades_csv
from grader.report.reports import junit_xml, results_json, write_atomically
from grader.report.summary import FEEDBACK_NAME, Summary, feedback_html, summarize, summary_html
from grader.run.submission import SubmissionError
from grader.suite.load import LoadedSuite, load_suite

RESULTS_NAME = "results.json"
GRADES_NAME = "grades.csv"
SUMMARY_NAME = "summary.html"
JUNIT_NAME = "junit.xml"
STOP_GRACE_S = 2.0  # after Ctrl-C, how long a pool process may take to stop its tests

Payload = dict[str, Any]


def results_path(out: Path, student: str) -> Path:
    return out / student / RESULTS_NAME


def failed_report(loaded: LoadedSuite, source: Path, message: str,
                  verdict: Verdict = Verdict.CE) -> GradeReport:
    """A report for a submission that could not be graded at all: every test scores 0."""
    report = GradeReport(exercise=loaded.name, submission=str(source))
    report.notes.append(message)
    for test in loaded.suite.tests:
        report.results.append(TestResult(name=test.name, verdict=verdict, points=0.0,
                                         max_points=test.points, visibility=test.visibility,
                                         kind=test.kind, message=message))
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
def _suite(path: str) -> LoadedSuite:
    return load_suite(path)


def _stop_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def pool_setup() -> None:
    """In a pool process: Ctrl-C is the main process's to handle; SIGTERM unwinds (stopping tests)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_on_term)


def grade_one(root: str, suite_path: str, source: Path, public_only: bool,
              sandbox: str | None) -> Payload:
    """Grade one submission (in a pool process): its results.json, JUnit XML and status."""
    os.environ["GRADER_ROOT"] = root  # pool processes may outlive the caller's environment
    loaded = _suite(suite_path)
    if source.is_file() and not zipfile.is_zipfile(source):
        report, status = failed_report(loaded, source, f"{source.name}: not a readable .zip "
                                       f"file"), "corrupt"
    elif ids.is_empty(source):
        report, status = failed_report(loaded, source, "the submission holds no file"), "empty"
    else:
        try:
            report = grade(loaded, source, public_only=public_only, sandbox=sandbox)
            status = status_of(report)
        except SubmissionError as error:
            report, status = failed_report(loaded, source, str(error)), "corrupt"
        except Exception as error:
            report = failed_report(loaded, source, f"grader error: {error!r}", Verdict.JE)
            status = "JE"
    return {"results": results_json(report), "junit": junit_xml(report), "status": status}


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
    write_atomically(folder / FEEDBACK_NAME, feedback_html(loaded.name, attempt))
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


def grade_planned(loaded: LoadedSuite, batch: Plan, out: Path, book: Gradebook, jobs: int,
                  public_only: bool = False, sandbox: str | None = None,
                  on_done: OnDone | None = None) -> BatchProgress:
    """Grade `batch.todo`, storing each result as it ends; Ctrl-C stops within seconds."""
    progress = BatchProgress(total=len(batch.submissions), skipped=len(batch.kept))
    progress.done = progress.skipped
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=context,
                               initializer=pool_setup)
    pending: dict[Future[Payload], str] = {}
    try:
        for student in batch.todo:
            future = pool.submit(grade_one, str(project_root()), str(loaded.path),
                                 batch.submissions[student], public_only, sandbox)
            pending[future] = student
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                student = pending.pop(future)
                attempt = store(book, loaded, out, student, batch.identities[student],
                                future.result())
                with progress.lock:
                    progress.done += 1
                    if attempt.score < attempt.max_score:
                        progress.failures += 1
                    if attempt.status == "JE":
                        progress.judge_errors.append(student)
                if on_done is not None:
                    on_done(student, attempt, progress)
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    return progress


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued work dropped, running gradings told to stop their tests, then
    killed if they have not within STOP_GRACE_S."""
    processes = list(getattr(pool, "_processes", {}).values())  # no public handle on them
    for process in processes:
        with contextlib.suppress(OSError, AttributeError):
            process.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join(1.0)
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)


def grade_batch(loaded: LoadedSuite, folder: Path, out: Path, jobs: int, resume: bool,
                public_only: bool = False, sandbox: str | None = None,
                on_done: OnDone | None = None) -> BatchProgress:
    """Discover, plan and grade a class folder into `out` (no roster, no checks before)."""
    found = discover(folder, loaded.suite.submit)
    out.mkdir(parents=True, exist_ok=True)
    with Gradebook.of(out) as book:
        book.claim(loaded.name)
        batch = plan(loaded, found, book, out, resume)
        return grade_planned(loaded, batch, out, book, jobs, public_only, sandbox, on_done)


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


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
