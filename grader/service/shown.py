"""What the students' pages show, worked out from the models under the policy: a submission's
points per question and what is said of its hidden tests, the home page's assignments with every
submission's score, and an assignment's statement."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from grader.errors import UserError
from grader.report.headline import NOTHING_RAN
from grader.report.statement import exercise_statement_html
from grader.service.course import Assignment, Course, suite_of
from grader.service.dates import human
from grader.service.models import Submission
from grader.service.policy import NOTHING, counted, due_for, final_score, hidden_seen, redact, view
from grader.service.queue_place import place_of
from grader.suite.load import load_suite


@dataclass(frozen=True)
class QuestionLine:
    title: str
    score: float
    max_score: float
    failed: list[str]  # its tests the student lost points on (only those they may see)


@dataclass(frozen=True)
class Row:
    """One submission in the home page's list."""

    sub: Submission
    score: float | None  # the final score the student may see (None: not graded)
    max_score: float | None
    counts: bool
    visible_only: bool  # the score counts the visible tests only (hidden points not shown yet)
    queue: str = ""  # while it waits: its place in the queue and the wait, e.g. "number 3 in ..."


@dataclass(frozen=True)
class AssignmentRows:
    assignment: Assignment
    due: datetime
    left: int | None  # attempts left (None: unlimited)
    open: bool
    rows: list[Row]


def submission_view(
    course: Course, sub: Submission, assignment: Assignment, viewer: User, now: datetime
) -> dict[str, Any]:
    """The submission page's data: policy.view's (its notes' dates in the course's zone), with
    the points per question, the hidden tests' maximum a student is not shown, and whether no
    test could run."""
    data = view(sub, assignment, viewer, now, lambda moment: human(moment, course.spec.zone))
    results = data["results"] or {}
    questions = [
        QuestionLine(
            q["id"] if q["title"] == q["id"] else q["title"],
            float(q["score"]),
            float(q["max_score"]),
            list(q["lost"]),
        )
        for q in results.get("extra_data", {}).get("questions", [])
    ]
    return {
        **data,
        "questions": questions,
        "hidden_max": data["hidden_max_score"],
        "nothing_ran": str(results.get("output", "")).startswith(NOTHING_RAN),
        "queue": place_of(sub, now),
    }


def queue_text(sub: Submission, now: datetime) -> str:
    """Where a queued submission stands and how long it may wait ("" once it is not queued)."""
    place = place_of(sub, now)
    return "" if place is None else place["text"]


def home_rows(course: Course, user: User, now: datetime) -> list[AssignmentRows]:
    """Each assignment with the student's due date, attempts left, and every submission's score
    as the policy lets them see it, the counted one marked."""
    shown = []
    for assignment in course.spec.assignments:
        subs = list(Submission.objects.filter(user=user, assignment=assignment.name).order_by("-number"))
        seen = hidden_seen(assignment, user, now)
        chosen = counted(subs, assignment.counts, seen)
        rows = []
        for sub in subs:
            score = max_score = None
            if sub.results is not None:
                results = redact(sub.results, seen)
                score = final_score(sub, seen)
                max_score = float(results["extra_data"]["max_score"])
            rows.append(
                Row(
                    sub,
                    score,
                    max_score,
                    chosen is not None and chosen.id == sub.id,
                    seen == NOTHING
                    and any(
                        test.get("visibility") != "visible" for test in (sub.results or {}).get("tests", [])
                    ),
                    queue_text(sub, now),
                )
            )
        left = (
            None
            if assignment.attempts is None
            else max(0, assignment.attempts - len([sub for sub in subs if not sub.given_back]))
        )
        shown.append(
            AssignmentRows(
                assignment,
                due_for(assignment, user),
                left,
                assignment.opens is None or assignment.opens <= now,
                rows,
            )
        )
    return shown


def statement_html(course: Course, assignment: Assignment) -> str | None:
    """The exercise's statement, sanitised by grader.report.statement (None: it has none, or its
    suite cannot be loaded just now)."""
    try:
        exercise = load_suite(suite_of(course, assignment)).exercise
    except UserError:
        return None
    return exercise_statement_html(exercise)
