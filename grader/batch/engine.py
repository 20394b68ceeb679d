"""Grading a whole class: every sub-folder or .zip of a folder is one student's submission.

Executors grade (`grader.cluster`); this process alone stores what they return (gradebook first,
then the student's files), so an interrupted batch keeps exactly the results it finished.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.atomic import make_private
from grader.batch import identity as ids
from grader.batch.discover import Discovery, discover
from grader.batch.results import results_path, store
from grader.cluster.executors import open_executor
from grader.cluster.job import BatchJob, ExecutorName
from grader.report.gradebook import Attempt, Gradebook
from grader.suite.load import LoadedSuite


@dataclass
class Plan:
    """What a batch grades: every submission's identity, and which ones it keeps from before."""

    submissions: dict[str, Path]
    identities: dict[str, ids.Identity]
    todo: list[str]
    kept: list[str] = field(default_factory=list)


def plan(loaded: LoadedSuite, found: Discovery, book: Gradebook, out: Path, resume: bool) -> Plan:
    """Identify every submission; with `resume`, keep those whose inputs did not change."""
    suite_fp = ids.suite_fingerprint(loaded)
    expected_fp = ids.expectations_fingerprint(loaded)
    identities = {
        student: ids.identity_of(loaded, source, suite_fp, expected_fp)
        for student, source in found.submissions.items()
    }
    latest = book.latest(identities) if resume else {}
    kept = [
        student
        for student, identity in identities.items()
        if student in latest
        and latest[student].identity == identity.as_dict()
        and results_path(out, student).is_file()
    ]
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


def grade_planned(
    loaded: LoadedSuite,
    batch: Plan,
    out: Path,
    book: Gradebook,
    jobs: int | None,
    public_only: bool = False,
    sandbox: str | None = None,
    on_done: OnDone | None = None,
    executor: ExecutorName = "local",
    scheduler: str | None = None,
) -> BatchProgress:
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


def grade_batch(
    loaded: LoadedSuite,
    folder: Path,
    out: Path,
    jobs: int | None,
    resume: bool,
    public_only: bool = False,
    sandbox: str | None = None,
    on_done: OnDone | None = None,
    executor: ExecutorName = "local",
    scheduler: str | None = None,
) -> BatchProgress:
    """Discover, plan and grade a class folder into `out` (no roster, no checks before)."""
    found = discover(folder, loaded.suite.submit)
    make_private(out)
    with Gradebook.of(out) as book:
        book.claim(loaded.name)
        batch = plan(loaded, found, book, out, resume)
        return grade_planned(
            loaded, batch, out, book, jobs, public_only, sandbox, on_done, executor, scheduler
        )
