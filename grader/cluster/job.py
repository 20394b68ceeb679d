"""What every executor shares: the batch job, the payload it returns, the executor's shape."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, TypeAlias

from grader.errors import UsageError, UserError
from grader.suite.load import LoadedSuite

ExecutorName: TypeAlias = Literal["local", "dask"]
EXECUTORS: tuple[str, ...] = ("local", "dask")
Payload: TypeAlias = dict[str, Any]  # {"results": results.json data, "junit": str, "status": str}
Finished: TypeAlias = tuple[str, Payload]


class ExecutorUnavailable(UserError):
    """The executor asked for cannot run (its library is missing, its scheduler unreachable)."""


def check_executor_options(executor: str | None, scheduler: str | None, jobs: int | None) -> None:
    """UsageError for `--executor`, `--scheduler` and `-j` that do not go together."""
    if scheduler is not None and (executor or "local") != "dask":
        raise UsageError("--scheduler only goes with --executor dask")
    if scheduler is not None and jobs is not None:
        raise UsageError(
            "-j sizes this machine's pool or LocalCluster; with --scheduler the cluster's workers decide"
        )
    if jobs is not None and jobs < 1:
        raise UsageError("-j needs at least 1")


@dataclass(frozen=True)
class BatchJob:
    """What every submission of one batch is graded against, and where its results go."""

    loaded: LoadedSuite
    out: Path
    public_only: bool = False
    sandbox: str | None = None


class Executor(Protocol):
    def __enter__(self) -> Executor: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None: ...

    def submit(self, student: str, source: Path) -> None: ...

    def completed(self) -> Iterator[Finished]: ...
