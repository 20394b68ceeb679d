"""Submissions as durable jobs: accepted (stored, committed), claimed by a worker, finished once.

Every transition is one conditional UPDATE, so two workers never both own a job, and a worker
that lost its job (it died and the job was queued again) cannot overwrite the new grading.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet

from grader.errors import UserError
from grader.service.course import Assignment, Course, late_minutes
from grader.service.dates import human
from grader.service.models import ERROR, GRADED, QUEUED, RUNNING, Submission
from grader.service.pins import pinned_suite
from grader.service.policy import due_for, refusal
from grader.service.storage import UploadError, bundle, file_names_problem, store_blob

MAX_TRIES = 3  # a job whose worker died this many times is an error, not tried forever
FAIR_WINDOW = 1000  # queued jobs looked at when choosing whose turn it is
STALE_S = 60.0  # a worker whose job's heartbeat is this old is frozen: killed, its job queued again


class Refused(UserError):
    """A submission the rules refuse, with the HTTP status that says why."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def now() -> datetime:
    return datetime.now(UTC)


def attempts_used(user: User, assignment: str) -> int:
    """The attempts a student has used: their submissions but those an instructor gave back."""
    return int(Submission.objects.filter(user=user, assignment=assignment, given_back="").count())


def accept(course: Course, user: User, assignment: Assignment, files: list[tuple[str, bytes]]) -> Submission:
    """Check, store the bytes, commit the row: only then is the submission accepted."""
    moment = now()
    refused = refusal(assignment, user, moment, lambda date: human(date, course.spec.zone))
    if refused is not None:
        raise Refused(refused, 403)
    late = late_minutes(moment, due_for(assignment, user))
    if assignment.attempts is not None and attempts_used(user, assignment.name) >= assignment.attempts:
        raise Refused(f"no attempt left: {assignment.name} allows {assignment.attempts}", 429)
    data, names = bundle(files)
    check_file_names(course, assignment, files, names)
    sha = store_blob(course.state, data)
    for _ in range(5):
        try:
            with transaction.atomic():
                taken = Submission.objects.filter(user=user, assignment=assignment.name).count()
                if (
                    assignment.attempts is not None
                    and attempts_used(user, assignment.name) >= assignment.attempts
                ):
                    raise Refused(f"no attempt left: {assignment.name} allows {assignment.attempts}", 429)
                created: Submission = Submission.objects.create(
                    id=uuid.uuid4().hex,
                    user=user,
                    assignment=assignment.name,
                    number=taken + 1,
                    submitted_at=moment,
                    blob=sha,
                    files=names,
                    late_minutes=late,
                )
                return created
        except IntegrityError:
            continue  # another submission of the same student took the number: count again
    raise Refused("too many submissions at once; try again", 503)


FIRST_GRADING = 1  # a submission's generation before any regrade: a student is waiting for it


def check_file_names(
    course: Course, assignment: Assignment, files: list[tuple[str, bytes]], names: list[str]
) -> None:
    """An UploadError (400, one line naming the expected files) when the upload lacks a file the
    assignment's suite lists under `submit:`, or sends a plain file it does not take: refused
    before it costs an attempt (`Grid.py` for `grid.py` once was graded 0)."""
    try:
        loaded = pinned_suite(course, assignment)
    except UserError:
        return  # a pinned suite that cannot be used: the grading says so
    archive = len(files) == 1 and files[0][0].lower().endswith(".zip")
    problem = file_names_problem(assignment.name, list(loaded.submit), list(loaded.given), names, archive)
    if problem is not None:
        raise UploadError(problem)


def claim(worker: str) -> Submission | None:
    """The next queued job, now running on `worker` (None when there is none). Students'
    uploads, graded for the first time, come before every regrade (an instructor's regrade of a
    whole class must not keep a student waiting); within each, students take turns, so one
    student's many submissions never hold up another's (`fair_order`)."""
    queued = Submission.objects.filter(status=QUEUED)
    for waiting_kind in (
        queued.filter(generation=FIRST_GRADING),
        queued.filter(generation__gt=FIRST_GRADING),
    ):
        claimed = _claim_fairly(worker, waiting_kind)
        if claimed is not None:
            return claimed
    return None


def claim_upload(worker: str) -> Submission | None:
    """The next student's upload waiting for its first grading, now `worker`'s (None: none)."""
    return _claim_fairly(worker, Submission.objects.filter(status=QUEUED, generation=FIRST_GRADING))


def preempt_for_upload(sub: Submission, worker: str) -> Submission | None:
    """A student's upload waiting while `worker` regrades `sub`: the upload claimed for `worker`
    and `sub` queued again (its grading so far dropped, not counted as a try), so an upload
    waits for the test being run, not for a whole regrade job; None when no upload waits."""
    upload = claim_upload(worker)
    if upload is not None:
        Submission.objects.filter(pk=sub.pk, status=RUNNING, worker=worker).update(
            status=QUEUED, worker="", progress="", tries=F("tries") - 1
        )
    return upload


def _claim_fairly(worker: str, waiting_kind: QuerySet[Submission]) -> Submission | None:
    for pk in _in_turn(waiting_kind)[:5]:
        taken = Submission.objects.filter(pk=pk, status=QUEUED).update(
            status=RUNNING, worker=worker, heartbeat=now(), tries=F("tries") + 1, progress=""
        )
        if taken:
            claimed: Submission = Submission.objects.select_related("user").get(pk=pk)
            return claimed
    return None


def _in_turn(waiting_kind: QuerySet[Submission], ahead: list[int] | None = None) -> list[str]:
    """The ids of (at most FAIR_WINDOW of) `waiting_kind`'s queued jobs, in the order `claim`
    serves them (`ahead`: the students of jobs to be served before them, one entry a job)."""
    waiting = list(
        waiting_kind.order_by("submitted_at").values_list("pk", "user_id", "submitted_at")[:FAIR_WINDOW]
    )
    if not waiting:
        return []
    served = Counter(
        Submission.objects.filter(
            Q(status=RUNNING) | Q(status__in=[GRADED, ERROR], graded_at__gte=waiting[0][2])
        ).values_list("user_id", flat=True)
    )
    served.update(ahead or [])
    return fair_order([(pk, user) for pk, user, _ in waiting], served)


def served_order() -> list[str]:
    """The queued jobs' ids in the order workers will claim them as things stand (students'
    first gradings, then regrades; students taking turns within each): what `claim` does, the
    uploads counted as served (running) by the time the regrades' turn comes."""
    queued = Submission.objects.filter(status=QUEUED)
    uploads = queued.filter(generation=FIRST_GRADING)
    first = _in_turn(uploads)
    students = list(uploads.filter(pk__in=first).values_list("user_id", flat=True))
    return first + _in_turn(queued.filter(generation__gt=FIRST_GRADING), students)


def fair_order(queued: list[tuple[str, int]], served: Mapping[int, int]) -> list[str]:
    """Queued jobs `(id, student)`, oldest first, in the order students take turns: each job
    ranks by how many of its student's jobs were `served` (running, or graded since the oldest
    queued one was submitted) or wait before it, then by age.

    >>> fair_order([("b2", 2), ("b3", 2), ("c1", 3)], {2: 1})
    ['c1', 'b2', 'b3']
    >>> fair_order([("b1", 2), ("b2", 2), ("c1", 3), ("d1", 4)], {})
    ['b1', 'c1', 'd1', 'b2']
    """
    ahead = Counter(served)
    ranked = []
    for age, (pk, student) in enumerate(queued):
        ranked.append((ahead[student], age, pk))
        ahead[student] += 1
    return [pk for _, _, pk in sorted(ranked)]


class BadStaleLimit(UserError):
    """$GRADER_SERVICE_STALE_S is set to what is not a number of seconds above 0."""


def stale_seconds() -> float:
    """How old a running job's heartbeat may grow before its worker counts as frozen: STALE_S,
    or $GRADER_SERVICE_STALE_S (seconds, > 0; anything else is one line, `grader serve` checks it
    first). Workers beat four times as often."""
    given = os.environ.get("GRADER_SERVICE_STALE_S")
    if given is None:
        return STALE_S
    try:
        chosen = float(given)
    except ValueError:
        chosen = float("nan")
    if not chosen > 0 or chosen == float("inf"):
        raise BadStaleLimit(f"$GRADER_SERVICE_STALE_S={given[:40]!r}: a number of seconds above 0")
    return chosen


def beat(sub: Submission, worker: str) -> bool:
    """The worker is alive and grading `sub`; False when the job is no longer its own."""
    return bool(Submission.objects.filter(pk=sub.pk, status=RUNNING, worker=worker).update(heartbeat=now()))


def stale_workers(workers: list[str], stale_s: float) -> list[str]:
    """Those of `workers` whose running job's heartbeat is older than `stale_s` (frozen)."""
    before = now() - timedelta(seconds=stale_s)
    return sorted(
        set(
            Submission.objects.filter(status=RUNNING, worker__in=workers, heartbeat__lt=before).values_list(
                "worker", flat=True
            )
        )
    )


def progress(sub: Submission, worker: str, text: str) -> bool:
    """Say how far the grading is; False when the job is no longer this worker's."""
    return bool(
        Submission.objects.filter(pk=sub.pk, status=RUNNING, worker=worker).update(
            progress=text[:200], heartbeat=now()
        )
    )


def finish(
    sub: Submission,
    worker: str,
    results: dict[str, Any],
    attempt: int,
    penalty: float,
    failed: bool = False,
    suite: str = "",
) -> bool:
    """Record the grading (once: only while the job is still this worker's) and the digest of
    the `suite` snapshot it used; `failed`: the grader's own error (JE), shown as status error."""
    score = float(results["score"])
    return bool(
        Submission.objects.filter(pk=sub.pk, status=RUNNING, worker=worker).update(
            status=ERROR if failed else GRADED,
            results=json.loads(json.dumps(results)),
            score=score,
            max_score=float(results["extra_data"]["max_score"]),
            penalty=penalty,
            final_score=max(0.0, score - penalty),
            attempt=attempt,
            graded_at=now(),
            progress="",
            suite=suite,
        )
    )


def fail(sub: Submission, worker: str, why: str) -> bool:
    """The job cannot be graded at all (its assignment or suite is gone or broken): an error
    that says why; a regrade once fixed grades it."""
    return bool(
        Submission.objects.filter(pk=sub.pk, status=RUNNING, worker=worker).update(
            status=ERROR, progress=why[:200]
        )
    )


def requeue(workers_gone: list[str] | None = None) -> int:
    """Queue again the running jobs of workers that are gone (all running jobs when None); a job
    tried MAX_TRIES times becomes an error."""
    running = Submission.objects.filter(status=RUNNING)
    if workers_gone is not None:
        running = running.filter(worker__in=workers_gone)
    failed: int = running.filter(tries__gte=MAX_TRIES).update(
        status=ERROR, progress=f"grading stopped {MAX_TRIES} times (its worker died)"
    )
    again: int = running.filter(tries__lt=MAX_TRIES).update(status=QUEUED, worker="", progress="")
    return failed + again


def regrade(assignment: str, tests: list[str] | None = None, running_too: bool = False) -> int:
    """Queue every graded submission of `assignment` again (only `tests`, when named);
    `running_too`: the ones being graded as well (their workers lose them), for a new suite."""
    statuses = [GRADED, ERROR, RUNNING] if running_too else [GRADED, ERROR]
    count: int = Submission.objects.filter(assignment=assignment, status__in=statuses).update(
        status=QUEUED,
        generation=F("generation") + 1,
        only_tests=tests or None,
        tries=0,
        worker="",
        progress="",
    )
    return count
