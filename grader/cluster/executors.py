"""Where a batch's submissions are graded: this machine's process pool, or a Dask cluster.

Either way the batch sees one small interface: `submit(student, source)` each submission, then
iterate `completed()` for (student, results.json data) as each one is stored under OUT/STUDENT,
once per student; leaving the `with` block early cancels what has not started.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, TypeAlias

from grader.exercise import project_root
from grader.suite.load import LoadedSuite

ExecutorName: TypeAlias = Literal["local", "dask"]
EXECUTORS: tuple[str, ...] = ("local", "dask")
Finished: TypeAlias = tuple[str, dict[str, Any]]


class ExecutorUnavailable(Exception):
    """The executor asked for cannot run (its library is missing, its scheduler unreachable)."""


@dataclass(frozen=True)
class BatchJob:
    """What every submission of one batch is graded against, and where its results go."""

    loaded: LoadedSuite
    out: Path
    public_only: bool = False
    sandbox: str | None = None


class Executor(Protocol):
    def __enter__(self) -> Executor: ...

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None: ...

    def submit(self, student: str, source: Path) -> None: ...

    def completed(self) -> Iterator[Finished]: ...


class LocalExecutor:
    """A pool of processes on this machine (started by a fork server), `jobs` at a time."""

    def __init__(self, job: BatchJob, jobs: int) -> None:
        self.job = job
        self.pool = ProcessPoolExecutor(max_workers=max(1, jobs),
                                        mp_context=multiprocessing.get_context("forkserver"))
        self.pending: dict[Future[dict[str, Any]], str] = {}

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        for future in self.pending:
            future.cancel()
        self.pool.shutdown(wait=True)

    def submit(self, student: str, source: Path) -> None:
        from grader.commands.batch import grade_one

        job = self.job
        future = self.pool.submit(grade_one, str(project_root()), str(job.loaded.path), student,
                                  source, job.out, job.public_only, job.sandbox)
        self.pending[future] = student

    def completed(self) -> Iterator[Finished]:
        while self.pending:
            finished, _ = wait(self.pending, return_when=FIRST_COMPLETED)
            for future in finished:
                student = self.pending.pop(future)
                yield student, future.result()


def open_executor(name: str, job: BatchJob, jobs: int | None, scheduler: str | None = None
                  ) -> Executor:
    """The executor called `name`: `jobs` local processes, or Dask (`scheduler`, else a
    LocalCluster of `jobs` workers)."""
    if name == "local":
        from grader.commands.batch import default_jobs

        return LocalExecutor(job, jobs if jobs is not None else default_jobs())
    if name == "dask":
        from grader.cluster.dask_executor import DaskExecutor

        return DaskExecutor(job, jobs, scheduler)
    raise ExecutorUnavailable(f"unknown executor '{name}' (choose one of {', '.join(EXECUTORS)})")
