"""Grading the service's jobs on a Dask cluster (`grader serve --executor dask --scheduler
ADDRESS`): each worker process of the service dispatches its job as one task, through the batch's
own Dask executor (the exercise bundle and the submission travel with it; a cluster worker that
dies has the task run again elsewhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.batch import identity as ids
from grader.cluster.dask_executor import DaskExecutor
from grader.cluster.job import BatchJob
from grader.suite.load import LoadedSuite


class Remote:
    """One Dask client per service worker, one executor (bundle) per version of a suite."""

    def __init__(self, scheduler: str, sandbox: str | None) -> None:
        self.scheduler = scheduler
        self.sandbox = sandbox
        self.executors: dict[str, DaskExecutor] = {}

    def grade(self, loaded: LoadedSuite, source: Path, name: str) -> tuple[dict[str, Any], str]:
        """results.json data and status of one grading on the cluster; `name` is unique to it."""
        version = f"{loaded.path}:{ids.suite_fingerprint(loaded)}:{ids.expectations_fingerprint(loaded)}"
        executor = self.executors.get(version)
        if executor is None:
            executor = DaskExecutor(BatchJob(loaded, Path("."), sandbox=self.sandbox), None, self.scheduler)
            executor.__enter__()
            self.executors[version] = executor
        executor.submit(name, source)
        for _, payload in executor.completed():
            return payload["results"], str(payload["status"])
        raise RuntimeError(f"the cluster returned nothing for {name}")

    def close(self) -> None:
        for executor in self.executors.values():
            executor.__exit__(None, None, None)
        self.executors.clear()
