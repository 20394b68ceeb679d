"""Grading a whole class: every sub-folder or .zip of a folder is one student's submission."""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.cluster.executors import BatchJob, open_executor
from grader.inert import csv_cell
from grader.judge.grade import GradeReport, grade
from grader.judge.verdicts import TestResult, Verdict
from grader.report.reports import results_json, write_atomically
from grader.run.submission import SubmissionError
from grader.suite.load import LoadedSuite, load_suite

RESULTS_NAME = "results.json"


def discover(folder: Path) -> dict[str, Path]:
    """Student id -> submission (sub-folders and .zip files, hidden entries skipped)."""
    if not folder.is_dir():
        raise SubmissionError(f"{folder}: a batch is a folder of submissions (folders or .zip)")
    found: dict[str, Path] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() and not entry.is_symlink():
            found[entry.name] = entry
        elif entry.suffix == ".zip" and entry.is_file():
            found.setdefault(entry.stem, entry)
    return found


def results_path(out: Path, student: str) -> Path:
    return out / student / RESULTS_NAME


def failed_report(loaded: LoadedSuite, student: str, source: Path, message: str,
                  verdict: Verdict = Verdict.CE) -> GradeReport:
    """A report for a submission that could not be graded at all: every test scores 0."""
    report = GradeReport(exercise=loaded.name, submission=str(source))
    report.notes.append(message)
    for test in loaded.suite.tests:
        report.results.append(TestResult(name=test.name, verdict=verdict, points=0.0,
                                         max_points=test.points, visibility=test.visibility,
                                         message=message))
    return report


@functools.cache
def _suite(path: str) -> LoadedSuite:
    return load_suite(path)


def grade_one(root: str, suite_path: str, student: str, source: Path, out: Path,
              public_only: bool, sandbox: str | None) -> dict[str, Any]:
    """Grade one submission (in a pool process) and store its results.json atomically."""
    os.environ["GRADER_ROOT"] = root  # pool processes may outlive the caller's environment
    loaded = _suite(suite_path)
    try:
        report = grade(loaded, source, public_only=public_only, sandbox=sandbox)
    except SubmissionError as error:
        report = failed_report(loaded, student, source, str(error))
    except Exception as error:
        report = failed_report(loaded, student, source, f"grader error: {error!r}",
                               verdict=Verdict.JE)
    data = results_json(report)
    data["extra_data"]["student"] = student
    write_atomically(results_path(out, student), json.dumps(data, indent=1) + "\n")
    return data


@dataclass
class BatchProgress:
    total: int
    done: int = 0
    failures: int = 0
    skipped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def grade_batch(loaded: LoadedSuite, folder: Path, out: Path, jobs: int | None, resume: bool,
                public_only: bool = False, sandbox: str | None = None,
                on_done: Callable[[str, dict[str, Any], BatchProgress], None] | None = None,
                executor: str = "local", scheduler: str | None = None) -> BatchProgress:
    """Grade every submission of `folder` into `out`; finished results survive interruption."""
    submissions = discover(folder)
    out.mkdir(parents=True, exist_ok=True)
    todo = {s: p for s, p in submissions.items()
            if not (resume and _readable(results_path(out, s)))}
    progress = BatchProgress(total=len(submissions), skipped=len(submissions) - len(todo))
    progress.done = progress.skipped
    job = BatchJob(loaded, out, public_only=public_only, sandbox=sandbox)
    with open_executor(executor, job, jobs, scheduler) as running:
        for student, source in todo.items():
            running.submit(student, source)
        for student, data in running.completed():
            with progress.lock:
                progress.done += 1
                if data["score"] < data["extra_data"]["max_score"]:
                    progress.failures += 1
            if on_done is not None:
                on_done(student, data, progress)
    return progress


def _readable(path: Path) -> bool:
    try:
        json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return True


def collect(out: Path) -> dict[str, dict[str, Any]]:
    """Every finished result under `out`, by student id."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(out.glob(f"*/{RESULTS_NAME}")):
        try:
            found[path.parent.name] = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
    return found


def grades_csv(loaded: LoadedSuite, results: dict[str, dict[str, Any]]) -> str:
    """student, score, max_score, then the points of every test (suite order)."""
    names = [test.name for test in loaded.suite.tests]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["student", "score", "max_score", *names])
    for student in sorted(results):
        data = results[student]
        points = {test["name"]: test["score"] for test in data["tests"]}
        # The student is a folder or file name, text a spreadsheet must not run as a formula.
        writer.writerow([csv_cell(student), _number(data["score"]),
                         _number(data["extra_data"]["max_score"]),
                         *(_number(points[name]) if name in points else "" for name in names)])
    return buffer.getvalue()


def _number(value: float) -> str:
    return f"{value:g}"


def write_grades(loaded: LoadedSuite, out: Path) -> Path:
    path = out / "grades.csv"
    write_atomically(path, grades_csv(loaded, collect(out)))
    return path


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
