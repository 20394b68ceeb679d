"""When a student first read a hidden test's failure text a release showed: from then on the
release cannot be undone."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User

from grader.service.course import Assignment
from grader.service.models import Release, Submission
from grader.service.policy import EVERYTHING, hidden_seen, release_effect


def note_texts_read(assignment: Assignment, viewer: User, sub: Submission, now: datetime) -> None:
    """Record (once) that `viewer`, a student, is about to be shown `sub`'s hidden tests in full
    under `assignment`'s release (before they are: an undo racing it then finds it seen)."""
    if viewer.is_staff or sub.results is None:
        return
    if all(test.get("visibility") == "visible" for test in sub.results.get("tests", [])):
        return
    if not Release.objects.filter(assignment=assignment.name, first_seen_at__isnull=True).exists():
        return
    effect = release_effect(assignment)
    in_effect = effect is not None and now >= effect.takes_effect
    if in_effect and hidden_seen(assignment, viewer, now) == EVERYTHING:
        Release.objects.filter(assignment=assignment.name, first_seen_at__isnull=True).update(
            first_seen_at=now, first_seen_by=viewer.username
        )
