"""An assignment's class table (every roster student, submitted or not: section, status, score,
points per question, every submission) and its grades.csv."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from grader.errors import UserError
from grader.inert import csv_cell
from grader.report.grades import LmsGrade, lms_csv, number
from grader.report.headline import SEE_ABOVE
from grader.service.course import Assignment, Course
from grader.service.final_grade import grade_of
from grader.service.jobs import now
from grader.service.models import QUEUED, RUNNING, Submission
from grader.service.pins import pinned_suite
from grader.service.policy import ADD_POINTS, NOTHING, final_score, students_seen

MISSING = "missing"
LATE = "late"  # graded, submitted after the student's due date
FAILURE_TEXT_MAX = 300  # characters of a failure text the statistics compare and show


@dataclass(frozen=True)
class Part:
    """A column of the class table: a question of the suite, or a test outside any question."""

    id: str
    title: str
    max_points: float
    tests: tuple[str, ...]
    short: str = ""  # the column's head: Q1, Q2, ... for questions, T1, ... for tests alone


@dataclass(frozen=True, order=True)
class Failure:
    """A test not passed and what it said."""

    test: str
    text: str


@dataclass(frozen=True)
class Attempt:
    """One submission of a student, as the class table lists it."""

    id: str
    number: int
    submitted_at: datetime
    status: str  # grading_status
    score: float | None
    max_score: float | None
    final_score: float | None
    late_minutes: int
    given_back: str
    counts: bool


@dataclass
class Row:
    login: str
    name: str
    status: str
    attempts: int
    late_minutes: int | None = None
    score: float | None = None
    max_score: float | None = None
    penalty: float | None = None
    final_score: float | None = None
    counted_id: str | None = None
    counted_number: int | None = None
    instructor_note: str = ""  # the instructor's choice of the counted submission, its adjustment
    points: dict[str, float] = field(default_factory=dict)  # per test, of the counted submission
    section: str = ""
    part_points: dict[str, float] = field(default_factory=dict)  # per Part.id, of the counted one
    failures: dict[str, list[Failure]] = field(default_factory=dict)  # per Part.id
    submissions: list[Attempt] = field(default_factory=list)  # newest first


def grading_status(sub: Submission) -> str:
    """What became of a submission, in a batch's grades.csv words: `graded`, `CE`, `empty`,
    `not-submitted-files`, `corrupt`, `JE`, or `late` (graded, but late); while it has no
    grading, its job's status (queued, running, error)."""
    if sub.status in (QUEUED, RUNNING) or sub.results is None:
        return str(sub.status)
    status = str(sub.results.get("extra_data", {}).get("status", "graded"))
    return LATE if status == "graded" and sub.late_minutes > 0 else status


def failure_texts(results: dict[str, Any], parts: list[Part]) -> dict[str, list[Failure]]:
    """Per part, its tests not passed with their failure texts (a test stopped by an import
    failure: that failure's first line), each cut to FAILURE_TEXT_MAX characters."""
    top = str(results.get("output", "")).strip().splitlines()
    part_of = {test: part.id for part in parts for test in part.tests}
    found: dict[str, list[Failure]] = defaultdict(list)
    for test in results.get("tests", []):
        if test.get("status") == "passed" or test.get("name") not in part_of:
            continue
        text = str(test.get("output", "")).strip()
        if text == SEE_ABOVE and top:
            text = top[0]
        if len(text) > FAILURE_TEXT_MAX:
            text = text[: FAILURE_TEXT_MAX - 1] + "\u2026"
        if text:
            found[part_of[test["name"]]].append(Failure(test["name"], text))
    return dict(found)


def class_rows(
    course: Course,
    assignment: Assignment,
    parts: list[Part] | None = None,
    made_by: datetime | None = None,
) -> list[Row]:
    """One row per roster student (instructors left out), then anyone else who submitted. The
    submission that counts is the one its student is told counts (`policy.counted`); `parts`:
    the columns whose points and failure texts each row holds; `made_by`: among the
    submissions made by then only."""
    subs: dict[int, list[Submission]] = defaultdict(list)
    made = Submission.objects.filter(assignment=assignment.name)
    if made_by is not None:
        made = made.filter(submitted_at__lte=made_by)
    for sub in made.order_by("number"):
        subs[sub.user_id].append(sub)
    users = {user.pk: user for user in User.objects.filter(is_staff=False)}
    seen = students_seen(assignment, list(users.values()), now())
    rows = []
    for user in sorted(users.values(), key=lambda u: u.username):
        mine = subs.get(user.pk, [])
        grade = grade_of(mine, assignment.counts, seen.get(user.pk, NOTHING))
        chosen = grade.submission
        person = course.people.get(user.username)
        row = Row(
            login=user.username,
            name=user.first_name,
            status=grading_status(chosen or mine[-1]) if mine else MISSING,
            attempts=len(mine),
            section=person.section if person is not None else "",
            submissions=[attempt_of(sub, chosen) for sub in reversed(mine)],
        )
        if chosen is not None and chosen.results is not None:
            row.late_minutes = chosen.late_minutes
            row.score, row.max_score = chosen.score, chosen.max_score
            row.penalty, row.final_score = chosen.penalty, grade.final_score
            row.counted_id, row.counted_number = chosen.id, chosen.number
            row.instructor_note = instructor_note(chosen)
            row.points = {test["name"]: float(test["score"]) for test in chosen.results["tests"]}
            for part in parts or []:
                row.part_points[part.id] = sum(row.points.get(test, 0.0) for test in part.tests)
            row.failures = failure_texts(chosen.results, parts or [])
        rows.append(row)
    return rows


def adjustment_text(kind: str, points: float | None) -> str:
    """An adjustment in words: `manual score 17` or `points -2.5`."""
    return f"points {points or 0.0:+g}" if kind == ADD_POINTS else f"manual score {points or 0.0:g}"


def instructor_note(sub: Submission) -> str:
    """What an instructor changed of the counted submission's grade, with their reasons."""
    notes = []
    if sub.chosen:
        notes.append(f"chosen to count: {sub.chosen}")
    if sub.adjusted_kind:
        notes.append(f"{adjustment_text(sub.adjusted_kind, sub.adjusted_points)}: {sub.adjusted_reason}")
    return "; ".join(notes)


def attempt_of(sub: Submission, chosen: Submission | None) -> Attempt:
    return Attempt(
        id=sub.id,
        number=sub.number,
        submitted_at=sub.submitted_at,
        status=grading_status(sub),
        score=sub.score if sub.results is not None else None,
        max_score=sub.max_score if sub.results is not None else None,
        final_score=final_score(sub),
        late_minutes=sub.late_minutes,
        given_back=sub.given_back,
        counts=chosen is not None and chosen.id == sub.id,
    )


def regrade_changes(course: Course, assignment: Assignment) -> list[str]:
    """Per regraded submission whose score moved, the lines `grader gradebook --changes` prints:
    the score before and after, then each test whose points moved."""
    from grader.report.gradebook import GRADEBOOK_NAME, Gradebook, change, change_lines

    path = course.gradebook_folder(assignment.name) / GRADEBOOK_NAME
    if not path.is_file():
        return []
    lines: list[str] = []
    with Gradebook(path) as book:
        for sub in (
            Submission.objects.filter(assignment=assignment.name, generation__gt=1)
            .select_related("user")
            .order_by("user__username", "number")
        ):
            before = book.keyed(f"{sub.id}#{sub.generation - 1}")
            after = book.keyed(f"{sub.id}#{sub.generation}")
            if before is None or after is None or before.score == after.score:
                continue
            lines += change_lines([change(f"{sub.user.username} (submission {sub.number})", before, after)])
    return lines


def test_names(course: Course, assignment: Assignment) -> list[str]:
    """The tests of the suite the assignment grades with (none while it cannot be used)."""
    try:
        return [test.name for test in pinned_suite(course, assignment).tests]
    except UserError:  # a pinned suite that cannot be used: the pages still show the class
        return []


def parts_of(course: Course, assignment: Assignment) -> list[Part]:
    """The class table's columns: each question of the suite, in its order, then each test outside
    any question, of the suite the assignment grades with (none while it cannot be used)."""
    try:
        suite = pinned_suite(course, assignment)
    except UserError:
        return []
    parts = [
        Part(
            question,
            title,
            sum(test.points for test in suite.tests if test.question == question),
            tuple(test.name for test in suite.tests if test.question == question),
            f"Q{index}",
        )
        for index, (question, title) in enumerate(suite.question_titles().items(), 1)
    ]
    alone = [test for test in suite.tests if not test.question]
    parts += [
        Part(test.name, test.name, test.points, (test.name,), f"T{index}")
        for index, test in enumerate(alone, 1)
    ]
    return parts


def suite_points(course: Course, assignment: Assignment) -> float:
    """The most the assignment's suite gives (0 while it cannot be used)."""
    try:
        return pinned_suite(course, assignment).total_points
    except UserError:
        return 0.0


def grades_csv(course: Course, assignment: Assignment) -> str:
    """login, name, status, attempts, late minutes, score, max, penalty, final score, each test."""
    tests = test_names(course, assignment)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "login",
            "name",
            "status",
            "attempts",
            "late_minutes",
            "score",
            "max_score",
            "penalty",
            "final_score",
            *tests,
        ]
    )
    for row in class_rows(course, assignment):

        def shown(value: float | int | None) -> str:
            return "" if value is None else number(float(value))

        writer.writerow(
            [
                csv_cell(row.login),
                csv_cell(row.name),
                row.status,
                row.attempts,
                shown(row.late_minutes),
                shown(row.score),
                shown(row.max_score),
                shown(row.penalty),
                shown(row.final_score) if row.counted_id else "0",
                *(shown(row.points.get(name)) for name in tests),
            ]
        )
    return buffer.getvalue()


def lms_grades_csv(course: Course, assignment: Assignment, lms: str) -> str:
    """The class's final scores (late penalty included; the submission each student is told
    counts; 0 for none) as `lms` (canvas, moodle) imports them, login, name and email from the
    roster, the maximum from the suite's grading."""
    rows = class_rows(course, assignment)
    graded = [row.max_score for row in rows if row.max_score is not None]
    max_score = max(graded) if graded else suite_points(course, assignment)
    grades = []
    for row in rows:
        person = course.people.get(row.login)
        grades.append(
            LmsGrade(
                login=row.login,
                name=row.name,
                email=person.email if person is not None else "",
                score=(row.final_score or 0.0) if row.counted_id else 0.0,
                section=row.section,
            )
        )
    return lms_csv(lms, assignment.name, max_score, grades)
