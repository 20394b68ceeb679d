"""grades.csv: one row per student, roster columns first, then status, score and every test."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from grader.inert import csv_cell
from grader.report.gradebook import Attempt
from grader.report.roster import Roster

GRADE_COLUMNS = ("student", "status", "score", "max_score")
MISSING = "missing"


def number(value: float) -> str:
    """A score as a spreadsheet reads it.

    >>> number(3.0), number(0.5)
    ('3', '0.5')
    """
    return f"{value:g}"


def grades_csv(
    tests: list[str], max_score: float, attempts: dict[str, Attempt], roster: Roster | None = None
) -> str:
    """The class's grades; every cell a student or a roster controls passes csv_cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = roster.columns if roster is not None else []
    writer.writerow([csv_cell(name) for name in [*columns, *GRADE_COLUMNS, *tests]])
    order = list(roster.rows) if roster is not None else []
    order += sorted(student for student in attempts if student not in set(order))
    for student in order:
        front = (
            [csv_cell(cell) for cell in roster.rows.get(student, [""] * len(columns))]
            if roster is not None
            else []
        )
        attempt = attempts.get(student)
        if attempt is None:
            writer.writerow(
                [*front, csv_cell(student), MISSING, "0", number(max_score), *([""] * len(tests))]
            )
            continue
        points = {row.test: row.points for row in attempt.tests}
        writer.writerow(
            [
                *front,
                csv_cell(student),
                attempt.status,
                number(attempt.score),
                number(attempt.max_score),
                *(number(points[name]) if name in points else "" for name in tests),
            ]
        )
    return buffer.getvalue()


# What a learning management system's grade import reads as it is. Canvas (its Gradebook's
# "Import"): the identity columns of its own export, then one column per assignment (matched by
# name; a new name creates the assignment), and a "Points Possible" row first. Canvas finds
# each student by ID, SIS User ID or SIS Login ID: the grader knows the login, so SIS Login ID.
# Moodle (Grades > Import > CSV file): any columns; "Identify user by" maps one (Username, or
# Email address) to its user field and the grade column to a grade item.
LMS_FORMATS = ("canvas", "moodle")
CANVAS_IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_POSSIBLE = "Points Possible"
MOODLE_IDENTITY = ("Username", "Email address")


@dataclass(frozen=True)
class LmsGrade:
    """One student's grade for one assignment, as an LMS import takes it."""

    login: str
    name: str
    email: str
    score: float
    section: str = ""  # Canvas's Section column (the roster's `section`)


def lms_csv(lms: str, assignment: str, max_score: float, grades: list[LmsGrade]) -> str:
    """`grades` as `lms` ("canvas" or "moodle") imports them: one assignment column.

    >>> print(lms_csv("canvas", "bitgrid-1", 19, [LmsGrade("ada", "Ada L", "", 17.5, "B")]), end="")
    Student,ID,SIS User ID,SIS Login ID,Section,bitgrid-1
    Points Possible,,,,,19
    Ada L,,,ada,B,17.5
    >>> print(lms_csv("moodle", "bitgrid-1", 19, [LmsGrade("ada", "", "a@x.org", 0)]), end="")
    Username,Email address,bitgrid-1
    ada,a@x.org,0
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    column = csv_cell(assignment)
    if lms == "canvas":
        writer.writerow([*CANVAS_IDENTITY, column])
        writer.writerow([CANVAS_POINTS_POSSIBLE, "", "", "", "", number(max_score)])
        for grade in grades:
            writer.writerow(
                [
                    csv_cell(grade.name or grade.login),
                    "",
                    "",
                    csv_cell(grade.login),
                    csv_cell(grade.section),
                    number(grade.score),
                ]
            )
    elif lms == "moodle":
        writer.writerow([*MOODLE_IDENTITY, column])
        for grade in grades:
            writer.writerow([csv_cell(grade.login), csv_cell(grade.email), number(grade.score)])
    else:
        raise ValueError(f"no LMS format '{lms}': {', '.join(LMS_FORMATS)}")
    return buffer.getvalue()
