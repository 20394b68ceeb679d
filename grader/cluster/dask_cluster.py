"""The Dask cluster a batch or a tournament runs its tasks on: a running scheduler, or a
LocalCluster of `jobs` single-threaded workers here; and what every Dask executor asks of it."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from grader.cluster.job import ExecutorUnavailable

CONNECT_TIMEOUT = "20s"
RESUBMITS = 2  # a task the cluster lost (cancelled, its result gone with a worker) is sent again


def distributed_module() -> Any:
    """`distributed`, or ExecutorUnavailable saying how to install it."""
    try:
        import distributed
    except ImportError as error:
        raise ExecutorUnavailable(
            "--executor dask needs Dask: pip install 'gametree-grader[dask]' (dask[distributed])"
        ) from error
    return distributed


def allowed_failures() -> int:
    """How many workers may die running one task before the scheduler gives up on it."""
    import dask

    return int(dask.config.get("distributed.scheduler.allowed-failures"))


class DaskCluster:
    """A client of `scheduler`, or of a LocalCluster of `jobs` workers started here (and closed)."""

    def __init__(self, jobs: int | None, scheduler: str | None) -> None:
        self.jobs = jobs
        self.scheduler = scheduler
        self.distributed = distributed_module()
        self.cluster: Any = None
        self.client: Any = None

    def __enter__(self) -> DaskCluster:
        distributed = self.distributed
        try:
            if self.scheduler:
                self.client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            else:
                from grader.cluster.grading import default_jobs

                workers = self.jobs if self.jobs is not None else default_jobs()
                # One thread a worker: each task is one process of its own, as in the local pool.
                self.cluster = distributed.LocalCluster(
                    n_workers=max(1, workers),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                    memory_limit=0,
                )
                self.client = distributed.Client(self.cluster)
        except (OSError, TimeoutError) as error:
            self.close()
            where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else "a LocalCluster"
            raise ExecutorUnavailable(f"--executor dask: cannot reach {where}: {error}") from error
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def cancel_and_close(self, running: Iterable[Any]) -> None:
        """Cancel the tasks still `running`, then close the client (and a LocalCluster started here)."""
        pending = list(running)
        if self.client is not None and pending:
            self.client.cancel(pending)
        self.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None

    def window(self) -> int:
        """How many tasks may be in flight: twice the cluster's threads, at least 8."""
        threads: int = sum(self.client.nthreads().values())
        return max(8, 2 * threads)

    def lost(self, future: Any) -> bool:
        """Whether the cluster lost `future` (cancelled, or its result gone with a worker that
        died before it was fetched): sent again, it may still end."""
        if future.status in {"cancelled", "lost"}:
            return True
        try:
            future.exception()
        except Exception:
            return True
        return False
