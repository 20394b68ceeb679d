"""Grading a batch on a Dask cluster: one task per submission, results stored here.

Each task carries the submission's bytes and the exercise bundle (a few tens of kB, unpacked once
per machine by digest), so workers share no file system with this one. A worker that dies mid-task
has its tasks re-run elsewhere by the scheduler (up to `distributed.scheduler.allowed-failures`
times); a submission that keeps killing workers, or whose grading fails, is stored as a JE result
that says so. Results are stored here, one per student, as each task finishes; only
`window` tasks are in flight, so an interrupted batch keeps all it finished and `--resume` goes on.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from grader.cluster.bundle import ExerciseBundle, build_bundle
from grader.cluster.dask_cluster import RESUBMITS, DaskCluster, allowed_failures
from grader.cluster.job import BatchJob, Finished
from grader.cluster.parcel import pack
from grader.cluster.task import Graded, GradingTask, run_task
from grader.judge.verdicts import Verdict
from grader.report.reports import junit_xml, results_json


class DaskExecutor:
    """Submissions graded as Dask tasks on `scheduler`, or on a LocalCluster of `jobs` workers."""

    def __init__(self, job: BatchJob, jobs: int | None, scheduler: str | None) -> None:
        self.job = job
        self.dask = DaskCluster(jobs, scheduler)
        self.distributed = self.dask.distributed
        self.client: Any = None
        self.bundle: ExerciseBundle | None = None
        self.queue: deque[tuple[str, Path]] = deque()
        self.running: dict[Any, tuple[str, Path, int]] = {}
        self.stored: set[str] = set()

    def __enter__(self) -> DaskExecutor:
        self.bundle = build_bundle(self.job.loaded)
        self.client = self.dask.__enter__().client
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.dask.cancel_and_close(self.running)
        self.client = None

    def submit(self, student: str, source: Path) -> None:
        self.queue.append((student, source))

    def _launch(self, student: str, source: Path, attempt: int) -> Any:
        assert self.bundle is not None
        parcel = pack(source)
        task = GradingTask(
            student=student,
            parcel=parcel,
            bundle=self.bundle,
            public_only=self.job.public_only,
            sandbox=self.job.sandbox,
        )
        name = hashlib.sha256(student.encode()).hexdigest()[:16]
        key = f"grade-{name}-{parcel.digest[:12]}-{self.bundle.digest[:12]}-{attempt}"
        future = self.client.submit(run_task, task, key=key, retries=0)
        self.running[future] = (student, source, attempt)
        return future

    def completed(self) -> Iterator[Finished]:
        tracker = self.distributed.as_completed()
        self._fill(tracker)
        for future in tracker:
            student, source, attempt = self.running.pop(future)
            outcome = self._outcome(future, student)
            if outcome is None and attempt < RESUBMITS:
                tracker.add(self._launch(student, source, attempt + 1))
                continue
            data = self._store(student, source, outcome)
            self._fill(tracker)
            if data is not None:
                yield student, data

    def _fill(self, tracker: Any) -> None:
        window = self.dask.window()
        while self.queue and len(self.running) < window:
            student, source = self.queue.popleft()
            tracker.add(self._launch(student, source, 0))

    def _outcome(self, future: Any, student: str) -> Graded | str | None:
        """The graded files, a reason why there are none, or None for a task the cluster lost
        (cancelled, or its result gone with a worker that died before it was fetched)."""
        if self.dask.lost(future):
            return None
        error = future.exception()
        if error is None:
            graded: Graded = future.result()
            return graded
        if isinstance(error, self.distributed.KilledWorker):
            return (
                f"grader error: the workers grading this submission died "
                f"{1 + allowed_failures()} times; it was not graded"
            )
        return f"grader error: {error}"

    def _store(self, student: str, source: Path, outcome: Graded | str | None) -> dict[str, Any] | None:
        """What grading produced for the student (once), or a JE that says why there is none."""
        from grader.cluster.grading import failed_report

        if student in self.stored:
            return None
        self.stored.add(student)
        if isinstance(outcome, Graded):
            return outcome.payload
        message = outcome or "grader error: the cluster lost this submission's task"
        report = failed_report(self.job.loaded, source, message, Verdict.JE, self.job.public_only)
        return {"results": results_json(report), "junit": junit_xml(report), "status": "JE"}
