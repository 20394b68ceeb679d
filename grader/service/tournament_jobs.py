"""Tournaments as jobs (`TournamentRun`): asked for by an instructor, claimed by a worker once no
submission waits, finished once; every transition one conditional UPDATE, as a submission's."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F

from grader.service.course import Assignment
from grader.service.jobs import MAX_TRIES, now
from grader.service.models import ERROR, GRADED, QUEUED, RUNNING, Submission, TournamentRun
from grader.service.policy import counted

PLAYED = GRADED  # a tournament whose games were all played


def entrants(assignment: Assignment) -> dict[str, Submission]:
    """Each student's counted submission (`policy.counted`, the course's `counts:` rule, an
    instructor's choice and attempts given back applying), by login; instructors do not play."""
    subs: dict[str, list[Submission]] = {}
    for sub in Submission.objects.filter(assignment=assignment.name, user__is_staff=False).select_related(
        "user"
    ):
        subs.setdefault(sub.user.username, []).append(sub)
    chosen = {login: counted(mine, assignment.counts) for login, mine in subs.items()}
    return {login: sub for login, sub in sorted(chosen.items()) if sub is not None}


def pending(assignment: str) -> TournamentRun | None:
    """The assignment's tournament that is queued or being played, if any."""
    found: TournamentRun | None = (
        TournamentRun.objects.filter(assignment=assignment, status__in=[QUEUED, RUNNING])
        .order_by("-asked_at")
        .first()
    )
    return found


def latest(assignment: str, status: str | None = None) -> TournamentRun | None:
    """The assignment's last tournament asked for (with `status`, when given)."""
    runs = TournamentRun.objects.filter(assignment=assignment)
    if status is not None:
        runs = runs.filter(status=status)
    found: TournamentRun | None = runs.order_by("-asked_at", "-id").first()
    return found


def ask(assignment: Assignment, actor: str) -> TournamentRun | str:
    """Queue a tournament of the students' counted submissions; or why not, in one line."""
    if assignment.tournament is None:
        return f"{assignment.name} has no tournament (no `tournament:` in the course file)"
    if pending(assignment.name) is not None:
        return f"a tournament of {assignment.name} is already queued or being played"
    playing = entrants(assignment)
    if len(playing) < 2:
        return f"a tournament needs at least two students with a graded submission ({len(playing)} now)"
    try:
        with transaction.atomic():
            created: TournamentRun = TournamentRun.objects.create(
                assignment=assignment.name,
                asked_at=now(),
                asked_by=actor,
                entrants={login: sub.id for login, sub in playing.items()},
            )
            return created
    except IntegrityError:  # asked for meanwhile
        return f"a tournament of {assignment.name} is already queued or being played"


def claim(worker: str) -> TournamentRun | None:
    """The oldest queued tournament, now `worker`'s (None when there is none)."""
    queued = TournamentRun.objects.filter(status=QUEUED).order_by("asked_at", "id")
    for pk in queued.values_list("pk", flat=True)[:5]:
        taken = TournamentRun.objects.filter(pk=pk, status=QUEUED).update(
            status=RUNNING, worker=worker, tries=F("tries") + 1, progress=""
        )
        if taken:
            claimed: TournamentRun = TournamentRun.objects.get(pk=pk)
            return claimed
    return None


def progress(run: TournamentRun, worker: str, text: str) -> bool:
    """Say how far the tournament is; False when it is no longer this worker's."""
    return bool(
        TournamentRun.objects.filter(pk=run.pk, status=RUNNING, worker=worker).update(progress=text[:200])
    )


def finish(run: TournamentRun, worker: str, results: dict[str, Any], suite: str, void: int) -> bool:
    """Record the played tournament (once: only while it is still this worker's)."""
    said = f"{void} game(s) void (the grader's fault: see the games)" if void else ""
    return bool(
        TournamentRun.objects.filter(pk=run.pk, status=RUNNING, worker=worker).update(
            status=PLAYED, results=results, suite=suite, finished_at=now(), progress=said
        )
    )


def fail(run: TournamentRun, worker: str, why: str) -> bool:
    """The tournament cannot be played (its suite, sandbox or entrants are gone): why, kept."""
    return bool(
        TournamentRun.objects.filter(pk=run.pk, status=RUNNING, worker=worker).update(
            status=ERROR, progress=why[:200], finished_at=now()
        )
    )


def requeue(workers_gone: list[str] | None = None) -> int:
    """Queue again (to be played from its first game) the tournaments of workers that are gone
    (every running one when None); one tried MAX_TRIES times becomes an error."""
    running = TournamentRun.objects.filter(status=RUNNING)
    if workers_gone is not None:
        running = running.filter(worker__in=workers_gone)
    failed: int = running.filter(tries__gte=MAX_TRIES).update(
        status=ERROR, progress=f"stopped {MAX_TRIES} times (its worker died)", finished_at=now()
    )
    again: int = running.filter(tries__lt=MAX_TRIES).update(status=QUEUED, worker="", progress="")
    return failed + again
