"""`grader serve COURSE`: the course's submission service."""

from __future__ import annotations

from pathlib import Path

from grader.cluster.job import ExecutorName
from grader.commands import EXIT_OK
from grader.errors import UsageError
from grader.sandboxes import SandboxChoice


def main(
    *,
    course: Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 2,
    sandbox: SandboxChoice | None = None,
    executor: ExecutorName = "local",
    scheduler: str | None = None,
) -> int:
    """Serve COURSE's pages and API on HOST:PORT (0: a free port, printed), grading with WORKERS
    local processes (with `executor="dask"`, WORKERS processes each dispatching one job at a time
    to the Dask scheduler at SCHEDULER), until SIGINT or SIGTERM (exit 130 or 143, jobs kept)."""
    from grader.service.course import load_course
    from grader.service.server import serve

    if executor == "dask" and not scheduler:
        raise UsageError(
            "--executor dask needs --scheduler ADDRESS (a running Dask scheduler); "
            "on this machine alone the service grades with its own worker "
            "processes (-w)"
        )
    if scheduler and executor != "dask":
        raise UsageError("--scheduler only goes with --executor dask")
    if workers < 1:
        raise UsageError("--workers needs at least 1")
    # Suites are checked as they are pinned: a pinned one grades whatever happens on disk.
    serve(load_course(course, check_suites=False), host, port, workers, sandbox, scheduler)
    return EXIT_OK
