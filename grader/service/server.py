"""`grader serve`: the web application (waitress, a production WSGI server) and the grading
workers it keeps running: a worker that dies, or freezes (its job's heartbeat stops), has its
job queued again and is replaced."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

from grader.service.course import Course
from grader.service.setup import MAX_UPLOAD_BYTES

SUPERVISE_EVERY_S = 0.5
LOOPBACK_ADDRESSES = {"127.0.0.1", "localhost", "::1"}
STOP_GRACE_S = 10.0


# Against slow clients (slowloris): a connection silent this long is closed (looked for every
# CLEANUP_EVERY_S); a connection waiting for its request costs a file descriptor and a buffer, not
# a thread, so there is room for many; the request's head is at most MAX_HEADER_BYTES.
CHANNEL_TIMEOUT_S = 15
CLEANUP_EVERY_S = 5
MAX_CONNECTIONS = 1000
SPARE_FILES = 100  # descriptors kept for the database, blobs, workers' pipes
MAX_HEADER_BYTES = 32 * 1024


def connection_limit() -> int:
    """MAX_CONNECTIONS, the soft limit on open files raised for them if the hard one allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_CONNECTIONS + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(50, min(MAX_CONNECTIONS, soft - SPARE_FILES))


def make_server(application: Any, host: str, port: int, threads: int) -> Any:
    """The waitress server for `application`, with the limits above (docs/service.md)."""
    from waitress.server import create_server

    return create_server(
        application,
        host=host,
        port=port,
        threads=threads,
        channel_timeout=CHANNEL_TIMEOUT_S,
        cleanup_interval=CLEANUP_EVERY_S,
        connection_limit=connection_limit(),
        asyncore_use_poll=True,
        max_request_header_size=MAX_HEADER_BYTES,
        max_request_body_size=2 * MAX_UPLOAD_BYTES,
        expose_tracebacks=False,
        ident="grader",
    )


class Workers:
    """`count` worker processes, each restarted when it ends, its running job queued again."""

    def __init__(self, course: Course, count: int, sandbox: str | None, scheduler: str | None = None) -> None:
        self.course = course
        self.scheduler = scheduler
        self.count = count
        self.sandbox = sandbox
        self.instance = uuid.uuid4().hex[:8]
        self.running: dict[str, subprocess.Popen[bytes]] = {}
        self.started = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._supervise, name="workers", daemon=True)

    def _spawn(self) -> None:
        self.started += 1
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grader.service.worker",
                str(self.course.path),
                self.instance,
                "--parent",
                str(os.getpid()),
                *(["--sandbox", self.sandbox] if self.sandbox else []),
                *(["--scheduler", self.scheduler] if self.scheduler else []),
            ],
            stdin=subprocess.DEVNULL,
        )
        self.running[f"{self.instance}-{process.pid}"] = process  # the worker's name for itself

    def start(self) -> None:
        self.thread.start()

    def _supervise(self) -> None:
        # Spawned from this one long-lived thread: the workers' parent-death signal is tied to it.
        from grader.service import jobs, tournament_jobs

        while not self.stopping.is_set():
            for name in jobs.stale_workers(list(self.running), jobs.stale_seconds()):
                with contextlib.suppress(OSError):  # frozen: its job is queued again below
                    self.running[name].kill()
                self.running[name].wait()
            gone = [name for name, process in self.running.items() if process.poll() is not None]
            if gone:
                for name in gone:
                    del self.running[name]
                jobs.requeue(gone)
                tournament_jobs.requeue(gone)
            while len(self.running) < self.count and not self.stopping.is_set():
                self._spawn()
            self.stopping.wait(SUPERVISE_EVERY_S)
        for process in self.running.values():
            with contextlib.suppress(OSError):
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for process in self.running.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        jobs.requeue(list(self.running))
        tournament_jobs.requeue(list(self.running))

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()


def pin_suites(course: Course) -> list[tuple[str, str]]:
    """Pin the suite of every assignment served for the first time; (assignment, what is
    wrong) for those whose suite on disk differs from their pin, or whose pin is unusable."""
    from grader.service import pins
    from grader.service.tournament_runs import check_tournaments

    fresh = pins.publish(course)
    check_tournaments(course)
    warnings = []
    for assignment in course.spec.assignments:
        drift = pins.drift(course, assignment) if assignment.name not in fresh else None
        if drift is not None:
            warnings.append((assignment.name, drift.problem or "the suite on disk differs"))
    return warnings


def serve(
    course: Course,
    host: str,
    port: int,
    workers: int,
    sandbox: str | None,
    scheduler: str | None = None,
    threads: int = 8,
) -> None:
    """Serve until SIGINT or SIGTERM: the database migrated, jobs of a previous run queued again."""
    from grader.service.setup import configure, configure_logging, migrate

    configure(course)
    configure_logging()
    migrate()
    from grader.service import jobs, tournament_jobs  # models: after Django is configured
    from grader.service.people import sync_roster

    jobs.stale_seconds()  # a malformed $GRADER_SERVICE_STALE_S stops it here, in one line
    sync_roster(course)
    requeued = jobs.requeue()  # whatever was running when the service last stopped
    tournament_jobs.requeue()
    drifted = pin_suites(course)
    from django.core.wsgi import get_wsgi_application

    application = get_wsgi_application()
    server = make_server(application, host, port, threads)
    pool = Workers(course, workers, sandbox, scheduler)
    pool.start()
    address = f"http://{host}:{server.effective_port}/"
    where = f" dispatching to the Dask scheduler at {scheduler}" if scheduler else ""
    public = f" (public: {course.public_url})" if course.public_url else ""
    print(
        f"serving {course.spec.title} on {address}{public} with {workers} worker(s){where}; "
        f"{requeued} job(s) from before queued again",
        flush=True,
    )
    for name, problem in drifted:
        print(
            f"warning: {name}: {problem} (see /instructor/{name}: it grades with its pinned "
            f"suite until regraded onto the suite on disk there)",
            file=sys.stderr,
            flush=True,
        )
    if course.public_url and course.public_url.startswith("https:") and host not in LOOPBACK_ADDRESSES:
        print(
            f"warning: --host {host} is not a loopback address: a client reaching the service "
            f"directly, not through the TLS proxy, could claim TLS with X-Forwarded-Proto",
            file=sys.stderr,
            flush=True,
        )
    try:
        server.run()  # until SIGINT or SIGTERM (KeyboardInterrupt, for the CLI's exit status)
    finally:
        pool.stop()
        server.close()
