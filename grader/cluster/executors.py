"""Where a batch's submissions are graded: this machine's process pool, or a Dask cluster.

Either way the batch sees one small interface: `submit(student, source)` each submission, then
iterate `completed()` for (student, payload): what grading one submission produced (its
results.json data, JUnit XML and status), once per student, for the batch to store; leaving the
`with` block early (Ctrl-C) stops what is running and cancels what has not started.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from types import TracebackType

from grader.cluster.job import EXECUTORS, BatchJob, Executor, ExecutorUnavailable, Finished, Payload
from grader.exercise import project_root


class LocalExecutor:
    """A pool of processes on this machine (started by a fork server), `jobs` at a time."""

    def __init__(self, job: BatchJob, jobs: int) -> None:
        from grader.cluster.pool import start_pool

        self.job = job
        self.pool = start_pool(jobs)
        self.pending: dict[Future[Payload], str] = {}

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if kind is not None:  # interrupted: stop the running gradings now
            from grader.cluster.pool import stop_pool

            stop_pool(self.pool)
            return
        self.pool.shutdown(wait=True)

    def submit(self, student: str, source: Path) -> None:
        from grader.cluster.pool import grade_in_pool

        job = self.job
        future = self.pool.submit(
            grade_in_pool, str(project_root()), str(job.loaded.path), source, job.public_only, job.sandbox
        )
        self.pending[future] = student

    def completed(self) -> Iterator[Finished]:
        while self.pending:
            finished, _ = wait(self.pending, return_when=FIRST_COMPLETED)
            for future in finished:
                student = self.pending.pop(future)
                yield student, future.result()


def open_executor(name: str, job: BatchJob, jobs: int | None, scheduler: str | None = None) -> Executor:
    """The executor called `name`: `jobs` local processes, or Dask (`scheduler`, else a
    LocalCluster of `jobs` workers)."""
    if name == "local":
        from grader.cluster.grading import default_jobs

        return LocalExecutor(job, jobs if jobs is not None else default_jobs())
    if name == "dask":
        from grader.cluster.dask_executor import DaskExecutor

        return DaskExecutor(job, jobs, scheduler)
    raise ExecutorUnavailable(f"unknown executor '{name}' (choose one of {', '.join(EXECUTORS)})")
