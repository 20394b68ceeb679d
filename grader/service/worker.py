"""A grading worker: a process of its own that takes queued submissions and grades them with the
grading engine, until its parent (`grader serve`) ends.

`python -m grader.service.worker COURSE INSTANCE --parent PID [--sandbox LEVEL]`
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.batch import identity as ids
from grader.cluster.grading import graded_or_failed
from grader.errors import UserError
from grader.judge.grade import select_tests
from grader.judge.verdicts import TestResult
from grader.report.gradebook import GRADEBOOK_NAME, Gradebook, attempt_from_results
from grader.report.reports import results_json
from grader.service import snapshots
from grader.service.course import Assignment, Course, load_course
from grader.service.setup import private_file, private_folder
from grader.service.storage import blob_path
from grader.suite.load import LoadedSuite, load_suite

if TYPE_CHECKING:
    from grader.service.models import Submission

IDLE_S = 0.2
PROGRESS_EVERY_S = 0.5
HEARTBEAT_S = 5.0
PR_SET_PDEATHSIG = 1


class Lost(Exception):
    """The job is no longer this worker's (queued again after it was thought dead)."""


class Preempted(Lost):
    """A regrade job put back in the queue for a student's upload, which this worker claimed."""

    def __init__(self, upload: Submission) -> None:
        super().__init__(upload.id)
        self.upload = upload


def grade_payload(
    loaded: LoadedSuite,
    source: Path,
    names: list[str] | None,
    sandbox: str | None,
    on_result: Any,
    before: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], str]:
    """results.json data and status of one grading, as a batch grades (`grade_one`); a
    regrade of `names` that cannot happen fails those tests only, and blames by the verdicts
    of `before` (the last full results) for the tests it does not run."""
    prior = {
        str(test.get("name")): str(test.get("extra_data", {}).get("verdict", ""))
        for test in (before or {}).get("tests", [])
    }
    report, status = graded_or_failed(
        loaded, source, names=names, sandbox=sandbox, on_result=on_result, passed_on=(Lost,), prior=prior
    )
    return results_json(report), status


def merged(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """A regrade of some tests laid over the previous full results."""
    if not before:
        return after
    fresh = {test["name"]: test for test in after["tests"]}
    tests = [fresh.get(test["name"], test) for test in before["tests"]]
    data = dict(before)
    data.update(tests=tests, score=sum(float(test["score"]) for test in tests))
    data["extra_data"] = {
        **before.get("extra_data", {}),
        **after.get("extra_data", {}),
        "max_score": sum(float(test["max_score"]) for test in tests),
    }
    return data


def grade_job(course: Course, worker: str, sandbox: str | None, remote: Any = None) -> bool:
    """Claim and grade one job (here, or on the cluster of `remote`, a `Remote`); False when the
    queue was empty. While it grades, a thread says every HEARTBEAT_S that the worker is alive:
    the service replaces a worker whose heartbeat stops (a frozen process)."""
    from grader.service import jobs

    sub = jobs.claim(worker)
    if sub is None:
        return _play_tournament(course, worker, sandbox, remote)
    return _grade_beating(course, worker, sandbox, remote, sub)


def _play_tournament(course: Course, worker: str, sandbox: str | None, remote: Any) -> bool:
    """Play a queued tournament (when no submission waits), grading every student's upload
    that waits before each game; False when none is queued."""
    from grader.service import jobs, tournament_jobs
    from grader.service.tournament_runs import play_claimed

    run = tournament_jobs.claim(worker)
    if run is None:
        return False

    def uploads_first() -> None:
        while (upload := jobs.claim_upload(worker)) is not None:
            _grade_beating(course, worker, sandbox, remote, upload)

    play_claimed(course, worker, sandbox, run, uploads_first)
    return True


def _grade_beating(course: Course, worker: str, sandbox: str | None, remote: Any, sub: Submission) -> bool:
    while True:
        done = threading.Event()
        heart = threading.Thread(target=_beat, args=(sub, worker, done), name="heartbeat", daemon=True)
        heart.start()
        try:
            return _grade_claimed(course, worker, sandbox, remote, sub)
        except Preempted as preempted:  # a student's upload first: the regrade job waits again
            sub = preempted.upload
        finally:
            done.set()
            heart.join()


def _beat(sub: Submission, worker: str, done: threading.Event) -> None:
    from django.db import connection

    from grader.service import jobs

    try:
        every = min(HEARTBEAT_S, jobs.stale_seconds() / 4)
        while not done.wait(every) and jobs.beat(sub, worker):
            pass
    finally:
        connection.close()  # this thread's own


def _grade_claimed(course: Course, worker: str, sandbox: str | None, remote: Any, sub: Submission) -> bool:
    from grader.service import jobs

    assignment = course.assignment(sub.assignment)
    if assignment is None:
        jobs.fail(sub, worker, f"the course has no assignment {sub.assignment} any more")
        return True
    from grader.service.pins import pin_of

    try:
        pin = pin_of(course, assignment)
        root = snapshots.unpacked(course.state, pin.digest)  # checked against its digest
    except UserError as error:
        jobs.fail(sub, worker, str(error))
        return True
    try:
        loaded = load_suite(str(root / pin.suite_file), root)  # the snapshot is its project root
    except UserError as error:
        jobs.fail(sub, worker, f"the suite cannot be loaded: {error}")
        return True
    return _grade_loaded(course, worker, sandbox, remote, sub, assignment, loaded, pin.digest)


def _grade_loaded(
    course: Course,
    worker: str,
    sandbox: str | None,
    remote: Any,
    sub: Submission,
    assignment: Assignment,
    loaded: LoadedSuite,
    digest: str,
) -> bool:
    """Grade `sub` with `loaded`, its assignment's pinned suite (`digest`), and record it."""
    from grader.service import jobs

    source = blob_path(course.state, sub.blob)
    names = list(sub.only_tests) if sub.only_tests else None
    total = len(select_tests(loaded, False, names))
    done = 0
    jobs.progress(sub, worker, f"test 1 of {total}")
    said = time.monotonic()

    def on_result(result: TestResult) -> None:
        """Say how far the grading is (at most every PROGRESS_EVERY_S: each is a commit); a
        regrade job gives way to a student's upload that waits."""
        nonlocal done, said
        done += 1
        if time.monotonic() - said < PROGRESS_EVERY_S:
            return
        said = time.monotonic()
        if not jobs.progress(sub, worker, f"test {min(done + 1, total)} of {total}"):
            raise Lost(sub.id)
        if sub.generation > jobs.FIRST_GRADING:
            upload = jobs.preempt_for_upload(sub, worker)
            if upload is not None:
                raise Preempted(upload)

    try:
        if remote is not None and names is None:  # a regrade of some tests runs here
            jobs.progress(sub, worker, "grading on the cluster")
            data, status = remote.grade(loaded, source, f"{sub.id}-{sub.generation}")
            data["extra_data"]["executor"] = f"dask {remote.scheduler}"
        else:
            data, status = grade_payload(
                loaded, source, names, sandbox, on_result, sub.results if names else None
            )
    except Preempted:
        raise
    except Lost:
        return True
    if names:
        data = merged(sub.results, data)
    graded_at = datetime.now(UTC).isoformat(timespec="seconds")
    identity = ids.identity_of(
        loaded, source, ids.suite_fingerprint(loaded), ids.expectations_fingerprint(loaded)
    )
    data["extra_data"].update(
        student=sub.user.username, status=status, graded_at=graded_at, submission=sub.id, **identity.as_dict()
    )
    attempt = attempt_from_results(sub.user.username, identity.as_dict(), status, data, graded_at)
    folder = private_folder(course.gradebook_folder(assignment.name), course.state)
    with Gradebook(private_file(folder / GRADEBOOK_NAME)) as book:
        book.claim(loaded.name)
        number = book.add(attempt, key=f"{sub.id}#{sub.generation}")
    penalty = assignment.penalty(sub.late_minutes, float(data["extra_data"]["max_score"]))
    failed = status == "JE"
    graded = jobs.finish(sub, worker, data, number, penalty, failed=failed, suite=digest) and not failed
    if graded and course.spec.lti is not None:
        from grader.service.lti_grades import post_after_grading  # pylti1p3: the `lti` extra

        post_after_grading(course, sub.id)
    return True


def _stop(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(128 + signum)


def _die_with_parent(parent: int) -> None:
    """SIGTERM when the service ends, however it ends (SIGKILL included)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        raise SystemExit(143)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="grader.service.worker")
    parser.add_argument("course", type=Path)
    parser.add_argument("instance", help="the service's instance; the worker is INSTANCE-PID")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--sandbox")
    parser.add_argument("--scheduler", help="grade on this Dask scheduler")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(args.parent)
    from grader.service.setup import configure

    course = load_course(args.course, check_suites=False)  # it grades with the pinned suites
    configure(course)
    worker = f"{args.instance}-{os.getpid()}"
    remote = None
    if args.scheduler:
        from grader.service.remote import Remote

        remote = Remote(args.scheduler, args.sandbox)
    try:
        while True:
            if not grade_job(course, worker, args.sandbox, remote):
                time.sleep(IDLE_S)
    finally:
        if remote is not None:
            remote.close()
        snapshots.forget_unpacked()


if __name__ == "__main__":
    sys.exit(main())
