"""A student's grade for an assignment, as the class table, grades.csv, the LMS exports and an
LMS's grade passback take it: the submission the student is told counts (an instructor's choice
first), its final score with the late penalty and any manual adjustment (`policy.final_score`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User

from grader.service.course import Assignment
from grader.service.models import Submission
from grader.service.policy import Seen, counted, final_score, hidden_seen


@dataclass(frozen=True)
class FinalGrade:
    submission: Submission | None  # the one that counts (None: nothing graded counts)
    final_score: float  # 0 when none counts
    max_score: float | None


def final_grade(assignment: Assignment, user: User, now: datetime) -> FinalGrade:
    """`user`'s grade for `assignment` now: the submission that counts and its final score."""
    subs = list(Submission.objects.filter(user=user, assignment=assignment.name))
    return grade_of(subs, assignment.counts, hidden_seen(assignment, user, now))


def grade_of(subs: list[Submission], counts: str, seen: Seen) -> FinalGrade:
    """The grade a student's submissions `subs` give under the `counts:` rule, the student
    seeing `seen` of the hidden tests (which decides which counts under `counts: best`)."""
    chosen = counted(subs, counts, seen)
    if chosen is None or chosen.results is None:
        return FinalGrade(None, 0.0, None)
    return FinalGrade(chosen, final_score(chosen) or 0.0, chosen.max_score)
