"""Regrading an assignment onto the suite on disk: the pin moves to a snapshot of it, every
submission is graded again with it, and once they all are, the students whose counted score
changed are listed (old -> new), from the class's scores kept just before (`SuiteChange`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q

from grader.errors import UserError
from grader.service import jobs, pins, snapshots
from grader.service.classes import class_rows
from grader.service.course import Assignment, Course
from grader.service.models import QUEUED, RUNNING, PinnedSuite, Submission, SuiteChange

Scores = dict[str, list[float | None]]  # login -> [score, max score, final score] that counts


class NotConfirmed(UserError):
    """A regrade onto the suite on disk that cannot happen as asked: one line saying why."""


def counted_scores(course: Course, assignment: Assignment, change: SuiteChange | None = None) -> Scores:
    """Each student's counted [score, max, final score] (among the submissions made by the time
    of `change`, when given)."""
    made_by = change.at if change is not None else None
    return {
        row.login: [row.score, row.max_score, row.final_score]
        for row in class_rows(course, assignment, made_by=made_by)
        if row.counted_id is not None
    }


def regrade_onto(course: Course, assignment: Assignment, confirmed: str, actor: str) -> SuiteChange:
    """Pin the suite on disk, whose snapshot the instructor saw as `confirmed` (its digest), and
    queue every submission of the assignment again (those being graded too): graded with it."""
    try:
        snapshot = pins.disk_snapshot(course, assignment)
    except UserError as error:
        raise NotConfirmed(f"the suite on disk cannot be loaded: {error}") from None
    if snapshot.digest != confirmed:
        raise NotConfirmed(
            "the suite on disk is not the one you confirmed (it changed since the page was "
            "shown, or nothing differs any more): look at the class page again"
        )
    pin = pins.pin_of(course, assignment)
    if snapshot.digest == pin.digest:
        raise NotConfirmed(f"{assignment.name} already grades with this suite")
    snapshots.store(course.state, snapshot)
    before = counted_scores(course, assignment)
    with transaction.atomic():
        moment = jobs.now()
        moved = PinnedSuite.objects.filter(pk=pin.pk, digest=pin.digest).update(
            digest=snapshot.digest, suite_file=snapshot.suite, pinned_at=moment
        )
        if not moved:
            raise NotConfirmed(f"{assignment.name} was just regraded onto another suite: look again")
        # Queued jobs of a regrade of some tests would lay the new suite's results over the old.
        Submission.objects.filter(assignment=assignment.name, status=QUEUED).update(only_tests=None)
        count = jobs.regrade(assignment.name, running_too=True)
        change: SuiteChange = SuiteChange.objects.create(
            at=moment,
            actor=actor,
            assignment=assignment.name,
            old_digest=pin.digest,
            new_digest=snapshot.digest,
            queued=count,
            before=before,
        )
    return change


@dataclass
class ChangeStatus:
    """A regrade onto another suite as the class page shows it: still `waiting` for that many
    gradings, or done with the `lines` of the students whose score changed."""

    change: SuiteChange
    waiting: int
    lines: list[str] = field(default_factory=list)

    @property
    def old(self) -> str:
        return pins.short(self.change.old_digest)

    @property
    def new(self) -> str:
        return pins.short(self.change.new_digest)


def latest_change(course: Course, assignment: Assignment) -> ChangeStatus | None:
    """The assignment's latest regrade onto another suite, its scores after it kept once every
    submission made before it is graded again."""
    change = SuiteChange.objects.filter(assignment=assignment.name).order_by("-at", "-id").first()
    if change is None:
        return None
    if change.after is None:
        waiting = Submission.objects.filter(
            Q(status=QUEUED) | Q(status=RUNNING), assignment=assignment.name, submitted_at__lte=change.at
        ).count()
        if waiting:
            return ChangeStatus(change, waiting)
        change.after = counted_scores(course, assignment, change)
        SuiteChange.objects.filter(pk=change.pk, after__isnull=True).update(after=change.after)
    return ChangeStatus(change, 0, score_changes(change.before, change.after))


def score_changes(before: Scores, after: Scores) -> list[str]:
    """`login: old -> new` for every student whose counted score or final score changed.

    >>> score_changes({"bob": [19, 19, 19], "cat": [0, 19, 0]}, {"bob": [21, 21, 21], "cat": [0, 21, 0]})
    ['bob: 19/19 -> 21/21']
    >>> score_changes({"dan": [10, 19, 10]}, {"dan": [10, 19, 5]})
    ['dan: 10/19 -> 10/19 (final 5)']
    """
    lines = []
    for login in sorted(set(before) | set(after)):
        old, new = before.get(login), after.get(login)
        if old is not None and new is not None and (old[0], old[2]) == (new[0], new[2]):
            continue
        lines.append(f"{login}: {shown(old)} -> {shown(new)}")
    return lines


def shown(scores: list[float | None] | None) -> str:
    if scores is None or scores[0] is None:
        return "nothing counted"
    score, most, final = scores
    text = f"{score:g}/{most or 0:g}"
    return text if final is None or final == score else f"{text} (final {final:g})"


@dataclass
class SuiteState:
    """The class page's suite section: the pin, how the suite on disk differs (None: it does
    not), and the latest regrade onto another suite."""

    pinned: str
    pinned_at: object
    drift: pins.Drift | None
    latest: ChangeStatus | None


def suite_state(course: Course, assignment: Assignment) -> SuiteState:
    pin = pins.pin_of(course, assignment)
    return SuiteState(
        pinned=pins.short(pin.digest),
        pinned_at=pin.pinned_at,
        drift=pins.drift(course, assignment),
        latest=latest_change(course, assignment),
    )
