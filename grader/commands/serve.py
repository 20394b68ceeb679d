"""`grader serve COURSE`: the course's submission service."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.commands import EXIT_OK, EXIT_USAGE


def serve(*, course: Path, host: str = "127.0.0.1", port: int = 8000, workers: int = 2,
          sandbox: str | None = None, executor: str = "local", scheduler: str | None = None,
          console: Console | None = None) -> int:
    """Serve COURSE's pages and API on HOST:PORT, grading with WORKERS local processes (with
    `executor="dask"`, WORKERS processes each dispatching one job at a time to the Dask scheduler
    at SCHEDULER), until SIGINT or SIGTERM. Returns the exit status."""
    from grader.service.course import load_course
    from grader.service.server import serve as run_service

    if executor == "dask" and not scheduler:
        (console or Console(stderr=True)).print(
            "[red]error:[/] --executor dask needs --scheduler ADDRESS (a running Dask scheduler); "
            "on this machine alone the service grades with its own worker processes (-w)")
        return EXIT_USAGE
    if scheduler and executor != "dask":
        (console or Console(stderr=True)).print(
            "[red]error:[/] --scheduler only goes with --executor dask")
        return EXIT_USAGE
    if workers < 1:
        (console or Console(stderr=True)).print("[red]error:[/] --workers needs at least 1")
        return EXIT_USAGE
    loaded = load_course(course)
    run_service(loaded, host, port, workers, sandbox, scheduler)
    return EXIT_OK


def run(args: argparse.Namespace, console: Console) -> int:
    return serve(course=args.course, host=args.host, port=args.port, workers=args.workers,
                 sandbox=args.sandbox, executor=args.executor, scheduler=args.scheduler,
                 console=console)
